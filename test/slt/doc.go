// Package slt is lakepg's sqllogictest runner: a parser for the sqllogictest format of
// SQLite's conformance corpus, and a runner that executes the records against any
// PostgreSQL-protocol server through pgx and checks the results exactly as the original
// sqllogictest program does (value formatting, sort modes, MD5 hashes of long results).
//
// TestSLT runs ../shared/conformance/slt/select1–5.test (the classic corpus, see its README)
// against lakepg, one fresh server and lake per file. The engine is still growing, so the
// test compares the passing records per file with baseline.txt: fewer passes fail, more passes
// print "raise the baseline"; `go test ./test/slt -run 'TestSLT$' -update -slt.budget=0`
// rewrites it from a run of every record.
//
// To keep CI short, each record has a time limit (-slt.timeout, 10s) and each file a time
// budget (-slt.budget, 60s; 0 runs everything); a record over its limit counts as timed out
// and the server is restarted on the same lake, records after the budget as not run. Neither
// counts as a pass or as a regression: tests assert results, speed is for benchmarks. A run
// regresses only when passes plus timed-out and not-run records fall below the baseline, that
// is when a record that passed now definitely fails. A runaway query (a cross product of many
// tables) is also stopped by a 4 GiB limit on the server's resident memory.
// TestSLTPostgres runs the same files against the real PostgreSQL that scripts/test.sh starts
// and requires every non-skipped record to pass: it proves the runner itself (PostgreSQL 15
// passes the whole corpus).
//
// Each suite prints per file the records passed, failed and skipped, and the first failures
// with their SQL and error, in the test log and, under scripts/test.sh, in the report printed
// after the tests.
package slt
