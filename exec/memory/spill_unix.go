//go:build unix

package memory

import "syscall"

// processAlive reports whether a process pid exists (signal 0 checks
// without sending anything).
func processAlive(pid int) bool { return syscall.Kill(pid, 0) == nil }
