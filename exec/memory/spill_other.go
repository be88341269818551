//go:build !unix

package memory

// processAlive cannot tell here: every other server's directory is kept.
func processAlive(pid int) bool { return true }
