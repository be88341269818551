// Package difftest is a randomized differential test of lakepg's queries. It draws tables
// (integer, bigint, numeric(p,s), double precision, text, boolean, date and timestamp
// columns; NULL-heavy; the ends of each type's range, empty strings, duplicates), creates
// them on lakepg and on a real PostgreSQL 15 (on lakepg partly by CREATE TABLE AS into
// Parquet files, partly inlined, with rows deleted and updated so that delete files and
// inlined deletes are read), and runs generated queries on both: joins of every kind on
// several conditions, correlated and uncorrelated subqueries (IN, NOT IN, EXISTS, ANY/ALL,
// scalar), GROUP BY, HAVING and grouping sets, window functions, set operations, CTEs,
// CASE/COALESCE/NULLIF and NULL-heavy expressions, comparisons across types, ORDER BY and
// LIMIT. Every query is valid PostgreSQL; answers compare as multisets (in order when the
// ORDER BY names every column), floats within a relative 1e-9, everything else exactly.
// Two errors of the same SQLSTATE class agree; an error on one side only is a difference,
// unless it is a data exception the other server avoided by not evaluating an expression,
// which SQL leaves open: evalorder_test.go tells the two apart by making the other server
// evaluate the same expressions outright.
//
// On lakepg alone, two metamorphic oracles check each query PostgreSQL agreed on: ternary
// logic partitioning (the rows of Q are those of Q WHERE p, Q WHERE NOT p and Q WHERE p IS
// NULL together; HAVING for grouped queries) and non-optimising rewrites (each base table
// behind an OFFSET 0 barrier, every condition as (p) IS TRUE, or the FROM clause moved into
// a materialised CTE or a derived table the rest of the query reads).
//
// Every difference is shrunk (clauses dropped, joins replaced by one side, expressions by
// an operand or a constant, then the rows of the tables) while it persists, and printed
// with the script that recreates its tables and the query. allowlist.txt lists the known
// ones, each with a one-line why ("bug: …" for lakepg bugs still to fix); a difference not
// on it fails the test. The figures go to testserver.Report as "difftest".
//
// CI runs seed 1 for 60 s of queries (-difftest.queries also caps their number); to
// explore, run longer or with other seeds:
//
//	go test ./test/difftest -run TestDiff -v -args -difftest.seed 7 -difftest.budget 10m
//
// Query i of round r of a seed is the same whatever lakepg answered before it.
// -difftest.repro also reduces the data of allow-listed differences and prints every
// reproduction; -difftest.log writes every generated query to a file.
package difftest
