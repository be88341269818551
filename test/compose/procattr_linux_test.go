package compose

import (
	"os/exec"
	"syscall"
)

// dieWithParent has the kernel kill a server when the test process dies
// without its cleanups (a panic at the go test timeout, a kill).
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
