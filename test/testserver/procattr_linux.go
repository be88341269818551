package testserver

import (
	"os/exec"
	"syscall"
)

// dieWithParent makes the kernel kill the server when the test process dies without its
// cleanups (a panic on the go test timeout, a kill), so that no server is left running a
// query on the machine.
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
