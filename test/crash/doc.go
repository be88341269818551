// Package crash proves that lakepg's writes are all-or-nothing across a crash: it runs large
// writes (INSERT … SELECT of 200k rows, COPY, UPDATE and DELETE of many rows, BEGIN … COMMIT
// blocks) against the built binary and kills the server with SIGKILL at a random moment of
// each, restarts it on the same lake, and requires every write to be either fully visible or
// absent — and visible when its command tag or COMMIT was received. Afterwards
// cleanup_old_files and delete_orphaned_files must remove what the killed writes left in the
// data directory, so that every file there is referenced by the catalog.
//
// The lake's catalog is SQLite, and PostgreSQL (the server scripts/test.sh starts,
// LAKEPG_TEST_PG_DSN; without it that test fails).
package crash
