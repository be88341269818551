package bench

import (
	"os/exec"
	"syscall"
)

// dieWithParent has the kernel kill a server when the benchmark dies without its
// cleanups, so that no server is left loading the shared machine.
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
