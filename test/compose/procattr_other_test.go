//go:build !linux

package compose

import "os/exec"

func dieWithParent(cmd *exec.Cmd) {}
