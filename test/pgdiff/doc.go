// Package pgdiff holds lakepg's PostgreSQL differential tests: a corpus of small, targeted SQL
// scripts (testdata/*.sql) that run statement by statement on lakepg and on a real
// PostgreSQL, each file on a fresh lakepg lake and a fresh PostgreSQL database, and every
// statement's outcome must be identical: the text psql -A would print (column names, values
// in PostgreSQL's text format with NULL as the empty string, the row-count footer) for a
// result, the command tag for other statements, and the SQLSTATE for an error (messages are
// not compared).
//
// Script format: statements end with ';' (outside quotes, comments and dollar quoting). A
// comment line "-- @error" right before a statement says that PostgreSQL rejects it: the
// suite checks its own corpus, so a statement that fails on PostgreSQL without the mark, or
// succeeds with it, is reported as a corpus error. "-- @rowsort" compares a result's rows
// sorted, for the rare statement whose row order PostgreSQL leaves open; prefer ORDER BY.
//
// The engine is still growing, so TestPGDiff compares the statements passing per file with
// baseline.txt: fewer fail the test, more print "raise the baseline";
// `go test ./test/pgdiff -update` rewrites it. A statement over its time limit on lakepg
// (-pgdiff.timeout, 10s) counts as timed out, neither a pass nor a regression, and the server
// is restarted on the same lake (session settings are then lost for the rest of the script).
//
// PostgreSQL comes from scripts/test.sh (`make test`), which exports LAKEPG_TEST_PG_DSN; each
// script gets a fresh database with collation C (byte order, as lakepg compares text) and
// character classes of C.UTF-8. Run one script with
// `go test ./test/pgdiff -run TestPGDiff -pgdiff.files window -v`.
package pgdiff
