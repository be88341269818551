// Package concurrency proves lakepg's optimistic commit protocol with real writers racing on
// one PostgreSQL catalog: two lakepg servers (the built binary) sharing one catalog database
// and one data directory, and one DuckDB 1.5.5 process with its ducklake extension attached
// to the same catalog, all writing at once. Every statement must either succeed or be refused
// with SQLSTATE 40001; afterwards the catalog must be consistent, DuckDB and both servers must
// read identical rows, and no acknowledged write may be lost (each client keeps a ledger of
// what it was told succeeded). A counter-increment stress checks that no update is lost.
//
// The tests need the throwaway PostgreSQL server of scripts/test.sh (LAKEPG_TEST_PG_DSN) and
// DuckDB 1.5.5 for Python with its ducklake and postgres extensions; without them they fail.
package concurrency
