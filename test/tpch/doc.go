// Package tpch runs the 22 TPC-H queries at scale factor 0.1 and checks their results
// against the expected answers of ../shared/tpch (see its README).
//
// TestTPCH loads the eight tables into a fresh lakepg lake with
// CREATE TABLE t AS SELECT * FROM read_parquet('…/sf0.1/t.parquet'), runs
// queries/qNN.sql through pgx in the extended protocol (prepared statements, binary results
// where pgx knows the type), and compares each result with answers/sf0.1/qNN.csv: same
// column names, same number of rows in the same order (each query's ORDER BY), strings
// exactly, numbers (decimals and floats alike) within a relative 1e-9. The engine is still
// growing, so the test compares the passing queries with baseline.txt: a query of the
// baseline that fails is a regression, a new pass prints "raise the baseline";
// `go test ./test/tpch -run 'TestTPCH$' -update` rewrites it. A query that runs out of its
// time limit counts neither as a pass nor as a regression (speed is for `make bench`).
//
// TestTPCHPostgres proves the comparison: it loads the same Parquet data into the real
// PostgreSQL that scripts/test.sh starts (schema.sql, then COPY … FROM STDIN with rows read
// by parquet-go) and requires all 22 queries to match the answers there. PostgreSQL runs
// the correlated subqueries of Q17 and Q20 as nested loops over lineitem, which takes minutes
// without an index; the load therefore adds indexes on lineitem's part and supplier keys
// (plans change, results cannot), which brings the whole test to well under a minute.
package tpch
