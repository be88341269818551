// Package integration holds lakepg's end-to-end tests: they build the lakepg binary once,
// start it on free loopback ports with temporary lakes, and drive it with real clients —
// psql (Debian's postgresql-client) and pgx in both the simple and the extended protocol —
// asserting exact outputs, SQLSTATEs, the DuckLake catalog rows in SQLite and the Parquet
// files on disk.
//
// Run them with `make test` (scripts/test.sh installs what they need) or, when psql is
// already installed, `go test ./test/integration/`. Expected outputs were recorded from a
// real PostgreSQL where PostgreSQL has the same feature, never from lakepg.
package integration
