package sql

import (
	"strings"
	"testing"
)

func explainHas(t *testing.T, s *Session, q, want string) bool {
	t.Helper()
	rows, _, err := run(t, s, "EXPLAIN "+q)
	if err != nil {
		t.Fatalf("EXPLAIN %s: %v", q, err)
	}
	return strings.Contains(strings.Join(rows, "\n"), want)
}

// min()/max() of whole columns come from the files' catalog statistics
// while those describe exactly the rows read, and from the rows otherwise.
func TestMinMaxFromStats(t *testing.T) {
	s := setupFiles(t)
	const q = `SELECT min(x), max(x), min(y), max(y), min(n), max(n), min(d), max(d) FROM t`
	const fromStats = "Min/max of 1 files from catalog statistics"
	must(t, s, q, "1|3|0.5|3.5|0.10|2.50|2024-01-01|2024-03-01")
	if !explainHas(t, s, q, fromStats) {
		t.Fatal("min/max of an unfiltered table did not use the catalog statistics")
	}
	// an expression, a filter, a group or a string column reads the rows
	for _, other := range []string{`SELECT max(x + 1) FROM t`, `SELECT max(x) FROM t WHERE y > 1`,
		`SELECT g, max(x) FROM t GROUP BY g`, `SELECT max(g) FROM t`, `SELECT max(x), count(*) FROM t`} {
		if explainHas(t, s, other, "from catalog statistics") {
			t.Fatalf("%s used the catalog statistics", other)
		}
	}
	must(t, s, `SELECT max(x + 1), max(g) FROM t`, "4|c")

	// a second file and inlined rows: the extremes of all of them
	must(t, s, `INSERT INTO t VALUES ('d', -7, 9.25, 99.99, '2023-12-31'), ('e', 40, NULL, NULL, NULL)`)
	must(t, s, `CALL lakepg.set_option('data_inlining_row_limit', '10')`)
	must(t, s, `INSERT INTO t VALUES ('f', 41, -2, -1.00, '2025-01-01')`)
	must(t, s, q, "-7|41|-2|9.25|-1.00|99.99|2023-12-31|2025-01-01")
	if !explainHas(t, s, q, "Min/max of 2 files from catalog statistics") {
		t.Fatal("two files and inlined rows did not use the catalog statistics")
	}
	// a column of only NULLs in one file
	must(t, s, `SELECT min(n), max(n) FROM t WHERE true`, "-1.00|99.99")

	// a deleted extreme: the files are read again
	must(t, s, `CALL lakepg.set_option('data_inlining_row_limit', '0')`)
	must(t, s, `DELETE FROM t WHERE x = -7`)
	must(t, s, q, "1|41|-2|3.5|-1.00|2.50|2024-01-01|2025-01-01")
	if explainHas(t, s, q, "from catalog statistics") {
		t.Fatal("a table with a delete file used the catalog statistics")
	}
}
