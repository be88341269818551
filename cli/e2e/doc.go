// Package e2e tests lakepg's command line end to end: the built binary's
// shell driven through a pseudo-terminal and non-interactively, import,
// snapshots, check, and the server's metrics and query log. It holds no code
// of its own; the tests live in its _test.go files.
package e2e
