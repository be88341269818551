package sql

import (
	"strings"
	"testing"
)

// TestJoinOrderFiltersEarly checks two planner rules by the plan's shape
// and by the rows: a filtered table joined to only one other is joined into
// it before the largest table meets it (TPC-H Q3's shape), and an
// uncorrelated IN filters its table before the joins (Q18's shape).
func TestJoinOrderFiltersEarly(t *testing.T) {
	s := lake(t)
	must(t, s, `CALL lakepg.set_option('data_inlining_row_limit', '0')`)
	must(t, s, `CREATE TABLE cust AS SELECT n AS ck, CASE WHEN n % 5 = 0 THEN 'BUILDING' ELSE 'OTHER' END AS seg FROM generate_series(1, 1000) g(n)`)
	must(t, s, `CREATE TABLE ord AS SELECT n AS ok, 1 + n % 1000 AS ck FROM generate_series(1, 5000) g(n)`)
	must(t, s, `CREATE TABLE line AS SELECT 1 + n % 5000 AS ok, n % 10 AS qty FROM generate_series(1, 20000) g(n)`)

	// indentation of each operator line gives the tree
	depthOf := func(lines []string, op string) []int {
		var ds []int
		for _, l := range lines {
			trimmed := strings.TrimLeft(l, " ")
			if strings.HasPrefix(strings.TrimPrefix(trimmed, "->  "), op) {
				ds = append(ds, len(l)-len(trimmed))
			}
		}
		return ds
	}

	q3 := `SELECT count(*), sum(qty) FROM cust, ord, line WHERE seg = 'BUILDING' AND cust.ck = ord.ck AND line.ok = ord.ok`
	lines := explainLines(t, s, "EXPLAIN "+q3)
	plan := strings.Join(lines, "\n")
	// cust is joined into ord, so its scan sits deeper than line's
	line, cust := depthOf(lines, "Lake Scan on public.line"), depthOf(lines, "Lake Scan on public.cust")
	if len(line) != 1 || len(cust) != 1 || cust[0] <= line[0] {
		t.Errorf("cust should be joined into ord below the join with line:\n%s", plan)
	}
	rows, _, err := run(t, s, q3)
	if err != nil {
		t.Fatal(err)
	}
	// customers 5, 10, …: orders whose ck is a multiple of 5, their lines
	want, _, err := run(t, s, `SELECT count(*), sum(qty) FROM line WHERE ok IN (SELECT ok FROM ord WHERE ck % 5 = 0)`)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(rows, ";") != strings.Join(want, ";") {
		t.Errorf("Q3 shape: %v, want %v", rows, want)
	}

	q18 := `SELECT count(*), sum(qty) FROM ord, line WHERE ord.ok IN (SELECT ok FROM line GROUP BY ok HAVING sum(qty) > 15) AND line.ok = ord.ok`
	lines = explainLines(t, s, "EXPLAIN "+q18)
	plan = strings.Join(lines, "\n")
	semi := depthOf(lines, "Hash Join (semi")
	if len(semi) == 0 {
		semi = depthOf(lines, "Hash Join (right semi")
	}
	inner := depthOf(lines, "Hash Join (inner")
	if len(semi) != 1 || len(inner) != 1 || semi[0] <= inner[0] {
		t.Errorf("the IN should filter ord below the join with line:\n%s", plan)
	}
	rows, _, err = run(t, s, q18)
	if err != nil {
		t.Fatal(err)
	}
	want, _, err = run(t, s, `WITH big AS (SELECT ok FROM line GROUP BY ok HAVING sum(qty) > 15) SELECT count(*), sum(qty) FROM line WHERE ok IN (SELECT ok FROM big)`)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(rows, ";") != strings.Join(want, ";") || rows[0] == "0|" {
		t.Errorf("Q18 shape: %v, want %v", rows, want)
	}
}
