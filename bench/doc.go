// Package bench is lakepg's benchmark suite (`make bench`): it measures lakepg against
// DuckDB and PostgreSQL on the same machine, in the same run, and writes a Markdown report
// with PNG charts to bench/results/. It produces figures, never verdicts: nothing here
// asserts a time, because a shared 2-core machine can halve any figure; every comparison
// is therefore a ratio from one run.
//
// The suite finds or installs what it compares with (tpchgen-cli and DuckDB 1.5.5 with its
// extensions from PyPI, the tpcds one generating TPC-DS with dsdgen, PostgreSQL from
// Debian, versitygw with go install), builds lakepg from the module it runs in, starts
// every server on loopback ports in a work directory it removes afterwards, and drives
// them through pgx, psql and a small Python driver for DuckDB (duckdb_runner.py,
// embedded). Query results are read without building values: lakepg's rows as pgx's raw
// column bytes, DuckDB's as Arrow record batches that are dropped. Memory is the peak of the sampled proportional set size of each server's
// processes, so PostgreSQL's shared buffers count once.
//
// Sections (Config.Sections): tpch, tpcds, ingest, wire, writes, concurrency, scaling, s3.
// Each creates what it needs when an earlier section has not, so any one runs alone.
package bench
