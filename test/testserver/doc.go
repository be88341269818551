// Package testserver is the shared test support of lakepg's end-to-end suites
// (test/integration, test/slt, test/pgdiff, test/tpch, test/tpcds): it builds the lakepg
// binary, starts it on free loopback ports with temporary lakes, guards it against runaway
// queries, finds the throwaway PostgreSQL server that scripts/test.sh starts, and keeps the
// checked-in baselines against which the conformance suites detect regressions.
//
// It is an ordinary (non-test) package so that several test packages can share it; nothing
// outside test/ imports it.
package testserver
