// Package tpcds runs the 99 TPC-DS queries at a small scale factor (0.01 unless -tpcds.sf
// says otherwise) on lakepg and checks each result against DuckDB's answer to the same query
// over the same data (see ../shared/tpcds/README.md beside the repository).
//
// The data comes from DuckDB 1.5.5's tpcds extension (PyPI duckdb-extension-tpcds==1.5.5,
// LOADed by path): CALL dsdgen(sf=…), then COPY of each of the 24 tables to a Parquet file.
// The files are kept under the user cache directory (lakepg-tpcds/duckdb-1.5.5-sf<SF>), so
// only the first run at a scale factor pays for the generation.
//
// DuckDB answers each query over views of those files: these are the reference answers.
// lakepg runs queries/qNN.sql, the PostgreSQL text; DuckDB runs its own text of the same query
// (tpcds_queries() of the extension, which queries/ was rewritten from), because DuckDB reads
// the PostgreSQL text's CAST(x AS DECIMAL) as DECIMAL(18,3) and would round Q2 and Q78 twice.
// On the shared data PostgreSQL answers the rewritten text with DuckDB's answer to its own.
//
// TestTPCDS loads the same files into a fresh lakepg lake with
// CREATE TABLE t AS SELECT * FROM read_parquet('…/t.parquet'), runs each query through pgx
// in the extended protocol and compares: the same number of columns (not their names:
// DuckDB and PostgreSQL name unaliased expressions differently), the same rows as a multiset
// (both sides sorted: the queries' ORDER BY keys leave ties, which each engine may break its
// own way), strings exactly, numbers to 6 significant digits, NULL equal only to NULL. The
// engine is still growing, so the passing queries are compared with baseline.txt as in
// test/tpch: a query of the baseline that fails is a regression, a new pass prints "raise
// the baseline", and `go test ./test/tpcds -run 'TestTPCDS$' -update` rewrites it. A query
// over its time limit, or not run once the time budget is spent, counts neither as a pass
// nor as a regression (speed is for `make bench`). The baseline holds for scale factor 0.01
// only; at another scale factor the test reports its figures without checking them.
//
// The summary (name "tpcds" for testserver.Report) gives N/99 equal to DuckDB and, for each
// failing query, one line: the SQLSTATE and message of its error, or its first differing row.
package tpcds
