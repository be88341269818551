package sql

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// explainLines runs EXPLAIN [ANALYZE] q and returns its lines.
func explainLines(t *testing.T, s *Session, q string) []string {
	t.Helper()
	rows, _, err := run(t, s, q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return rows
}

// estimateUnder returns the estimate printed under the first line starting
// (after indentation and arrow) with op.
func estimateUnder(t *testing.T, lines []string, op string) (string, string) {
	t.Helper()
	re := regexp.MustCompile(`^\s+Rows: (\d+) estimated \((.*)\)$`)
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimLeft(strings.TrimSpace(l), "-> "), op) && i+1 < len(lines) {
			if m := re.FindStringSubmatch(lines[i+1]); m != nil {
				return m[1], m[2]
			}
		}
	}
	t.Fatalf("no estimate under %q in:\n%s", op, strings.Join(lines, "\n"))
	return "", ""
}

func TestExplainEstimates(t *testing.T) {
	s := lake(t)
	must(t, s, `CALL lakepg.set_option('data_inlining_row_limit', '0')`)
	must(t, s, `CREATE TABLE a AS SELECT n AS id, n % 100 AS g, 'x' || n AS s FROM generate_series(1, 10000) g(n)`)
	must(t, s, `CREATE TABLE b AS SELECT n AS id, n % 7 AS k FROM generate_series(1, 500) g(n)`)

	// the rules over the catalog's figures alone; sketches below
	must(t, s, `SET lakepg.disabled_rules = 'ndv_sketches'`)
	cases := []struct {
		q, op, rows, how string
	}{
		// the catalog's min/max of id are 1 and 10000: id < 2500 keeps a quarter
		{`EXPLAIN SELECT * FROM a WHERE id < 2500`, "Filter", "2499", "filter selectivity 0.25"},
		// k has 7 distinct values (max − min + 1)
		{`EXPLAIN SELECT * FROM b WHERE k = 3`, "Filter", "71", "filter selectivity 0.143"},
		{`EXPLAIN SELECT * FROM a WHERE s LIKE 'x1%' OR id IS NULL`, "Filter", "1000", "filter selectivity 0.1"},
		{`EXPLAIN SELECT g, count(*) FROM a GROUP BY g`, "HashAggregate", "100", "product of the group keys' distinct estimates"},
		{`EXPLAIN SELECT s, count(*) FROM a GROUP BY s`, "HashAggregate", "1000", "input/10: a group key has no distinct estimate"},
		{`EXPLAIN SELECT count(*), sum(g) FROM a`, "HashAggregate", "1", "one row without GROUP BY"},
		// |a| · |b| / max(ndv(a.id), ndv(b.id)) = 10000 · 500 / 10000
		{`EXPLAIN SELECT * FROM a JOIN b ON a.id = b.id`, "Hash Join", "500", "|L|·|R| / key distinct estimate"},
		{`EXPLAIN SELECT * FROM a LEFT JOIN b ON a.id = b.id`, "Hash Join", "10000", "|L|·|R| / key distinct estimate, at least the left side"},
		{`EXPLAIN SELECT * FROM a ORDER BY s LIMIT 7`, "Sort", "7", "top-N"},
		{`EXPLAIN SELECT * FROM a ORDER BY s LIMIT 7`, "Limit", "7", "LIMIT"},
	}
	for _, c := range cases {
		rows, how := estimateUnder(t, explainLines(t, s, c.q), c.op)
		if rows != c.rows || how != c.how {
			t.Errorf("%s: %s estimated %s (%s), want %s (%s)", c.q, c.op, rows, how, c.rows, c.how)
		}
	}
	must(t, s, `RESET lakepg.disabled_rules`)

	// distinct values from the files' sketches (planner/estimate/ndv.go): text keys get
	// one, a sparse integer key its own rather than its range's
	must(t, s, `CREATE TABLE c AS SELECT n * 10 AS k, 'k' || (n % 300) AS t FROM generate_series(1, 1000) g(n)`)
	sketchCases := []struct {
		q, op, rows, how string
	}{
		{`EXPLAIN SELECT s, count(*) FROM a GROUP BY s`, "HashAggregate", "10000", "product of the group keys' distinct estimates, ndv from sketches"},
		{`EXPLAIN SELECT g, count(*) FROM a GROUP BY g`, "HashAggregate", "100", "product of the group keys' distinct estimates, ndv from sketches"},
		// k spans 10…10000 but holds 1000 values: 1 row, not 1000/9991 of one
		{`EXPLAIN SELECT * FROM c WHERE k = 50`, "Filter", "1", "filter selectivity 0.001, ndv from sketches"},
		{`EXPLAIN SELECT * FROM c WHERE t = 'k7'`, "Filter", "3", "filter selectivity 0.00334, ndv from sketches"},
		// |a| · |c| / max(ndv(s), ndv(t)) = 10000 · 1000 / 10000
		{`EXPLAIN SELECT * FROM a JOIN c ON a.s = c.t`, "Hash Join", "1000", "|L|·|R| / key distinct estimate, ndv from sketches"},
	}
	for _, c := range sketchCases {
		rows, how := estimateUnder(t, explainLines(t, s, c.q), c.op)
		if rows != c.rows || how != c.how {
			t.Errorf("%s: %s estimated %s (%s), want %s (%s)", c.q, c.op, rows, how, c.rows, c.how)
		}
	}

	// EXPLAIN ANALYZE: actual rows on the operator line, the estimate under it
	lines := explainLines(t, s, `EXPLAIN ANALYZE SELECT a.s, b.k FROM a JOIN b ON a.id = b.id WHERE b.k = 3`)
	var join string
	for i, l := range lines {
		if strings.Contains(l, "Hash Join") {
			join = l + "\n" + lines[i+1]
		}
	}
	if !regexp.MustCompile(`Hash Join \(inner, 1 keys\) \(actual time=[0-9.]+ ms rows=72\)\n\s+Rows: 71 estimated`).MatchString(join) {
		t.Errorf("EXPLAIN ANALYZE join lines:\n%s\nplan:\n%s", join, strings.Join(lines, "\n"))
	}
}

// TestSmallTextFilterCounted: a small table filtered on text is counted
// while planning (planner/estimate/estimate_exact.go), so the fact table joins the
// dimension an equality keeps one row of first, not the one a range
// keeps 5 % of (the text equality's guess, 0.1, ranked it second).
func TestSmallTextFilterCounted(t *testing.T) {
	s := lake(t)
	must(t, s, `CALL lakepg.set_option('data_inlining_row_limit', '0')`)
	must(t, s, `CREATE TABLE f AS SELECT n AS id, n % 1000 AS d, n % 500 AS e FROM generate_series(1, 20000) g(n)`)
	must(t, s, `CREATE TABLE d AS SELECT n AS id, 'n' || n AS name FROM generate_series(0, 999) g(n)`)
	must(t, s, `CREATE TABLE e AS SELECT n AS id, n AS v FROM generate_series(0, 499) g(n)`)
	lines := explainLines(t, s, `EXPLAIN SELECT count(*) FROM f, d, e WHERE f.d = d.id AND f.e = e.id AND d.name = 'n7' AND e.v < 25`)
	var scans []string
	for _, l := range lines {
		if i := strings.Index(l, "Lake Scan on "); i >= 0 {
			scans = append(scans, strings.Fields(l[i+len("Lake Scan on "):])[0])
		}
	}
	if len(scans) != 3 || scans[0] != "public.f" || scans[1] != "public.d" {
		t.Errorf("join order %v, want f joined with d first:\n%s", scans, strings.Join(lines, "\n"))
	}
	rows, _, err := run(t, s, `SELECT count(*) FROM f, d, e WHERE f.d = d.id AND f.e = e.id AND d.name = 'n7' AND e.v < 25`)
	if err != nil || len(rows) != 1 || rows[0] != "20" {
		t.Errorf("count = %v, %v; want 20", rows, err)
	}
}

// TestForeignKeyCoversPartOfDimension: a fact table's foreign key uses 100
// of its dimension's 10,000 keys and the dimension's filter keeps 50 of
// those, so the fact joined with it keeps half its rows, and the 5,000-row
// table is the one to build, not that join (taken for 250 rows when the
// dimension's whole key domain counted).
func TestForeignKeyCoversPartOfDimension(t *testing.T) {
	s := lake(t)
	must(t, s, `CALL lakepg.set_option('data_inlining_row_limit', '0')`)
	must(t, s, `CREATE TABLE fact AS SELECT n AS id, 1 + n % 100 AS dk, n % 5000 AS ck FROM generate_series(1, 50000) g(n)`)
	must(t, s, `CREATE TABLE dim AS SELECT n AS dk, n / 50 AS grp FROM generate_series(1, 10000) g(n)`)
	must(t, s, `CREATE TABLE cust AS SELECT n AS ck, 'c' || n AS name FROM generate_series(0, 4999) g(n)`)
	q := `SELECT count(*) FROM fact, dim, cust WHERE fact.dk = dim.dk AND fact.ck = cust.ck AND dim.grp = 0`
	var scans []string
	for _, l := range explainLines(t, s, `EXPLAIN `+q) {
		if i := strings.Index(l, "Lake Scan on "); i >= 0 {
			scans = append(scans, strings.Fields(l[i+len("Lake Scan on "):])[0])
		}
	}
	if len(scans) != 3 || scans[2] != "public.cust" {
		t.Errorf("scans %v, want cust built last (fact ⋈ dim probing it)", scans)
	}
	must(t, s, q, "24500")
}

// TestFilterEstimateAfterPruning: the rows a filter keeps are its
// selectivity times the scan's rows before the row groups and pages it
// pruned, not after (that counted the filter twice).
func TestFilterEstimateAfterPruning(t *testing.T) {
	s := lake(t)
	must(t, s, `CALL lakepg.set_option('data_inlining_row_limit', '0')`)
	must(t, s, `CREATE TABLE days AS SELECT n AS id, n / 365 AS yr FROM generate_series(0, 73048) g(n)`)
	// yr's ndv by its range, exactly 201 (its sketch is off by its error)
	must(t, s, `SET lakepg.disabled_rules = 'ndv_sketches'`)
	var filter, scan string
	for _, l := range explainLines(t, s, `EXPLAIN SELECT count(*) FROM days WHERE yr = 100`) {
		l = strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(l, "Rows:") && strings.Contains(l, "filter selectivity"):
			filter = l
		case strings.HasPrefix(l, "Rows:") && strings.Contains(l, "after pruning"):
			scan = l
		}
	}
	if !strings.Contains(scan, "73049 in the files read") || strings.Contains(scan, ", 73049 estimated after pruning") {
		t.Fatalf("the scan prunes nothing, the test needs it to: %q", scan)
	}
	if !strings.HasPrefix(filter, "Rows: 363 estimated") {
		t.Errorf("filter estimate %q, want 363 rows (73049 / 201 years)", filter)
	}
}

// A pg_catalog table's rows are made while planning: its estimate is their
// count, so a join of pg_class (a row per table and TOAST relation) with
// pg_namespace hashes the few namespaces, not every relation.
func TestCatalogTableEstimate(t *testing.T) {
	s := lake(t)
	for i := 0; i < 30; i++ {
		must(t, s, fmt.Sprintf(`CREATE TABLE t%d (id bigint, s text)`, i))
	}
	var nclass, nns int
	rows, _, err := run(t, s, `SELECT (SELECT count(*) FROM pg_catalog.pg_class), (SELECT count(*) FROM pg_catalog.pg_namespace)`)
	if err != nil || len(rows) != 1 {
		t.Fatalf("counts: %v %v", rows, err)
	}
	fmt.Sscanf(rows[0], "%d|%d", &nclass, &nns)
	if nclass < 60 || nns < 4 {
		t.Fatalf("pg_class has %d rows, pg_namespace %d", nclass, nns)
	}
	lines := explainLines(t, s, `EXPLAIN SELECT c.relname FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public'`)
	n, how := estimateUnder(t, lines, "BatchSource")
	if how != "rows made while planning" || (n != fmt.Sprint(nclass) && n != fmt.Sprint(nns)) {
		t.Fatalf("BatchSource estimate %s (%s), want %d or %d:\n%s", n, how, nclass, nns, strings.Join(lines, "\n"))
	}
	// the hash join's second input is its build side: the namespaces
	var join int
	for i, l := range lines {
		if strings.Contains(l, "Hash Join") {
			join = i
			break
		}
	}
	depth := func(l string) int { return len(l) - len(strings.TrimLeft(l, " ")) }
	var children []int
	for i := join + 1; i < len(lines); i++ {
		if !strings.Contains(lines[i], "->") {
			continue
		}
		if len(children) > 0 && depth(lines[i]) > depth(lines[children[0]]) {
			continue
		}
		children = append(children, i)
	}
	if len(children) != 2 {
		t.Fatalf("hash join children at %v:\n%s", children, strings.Join(lines, "\n"))
	}
	build := strings.Join(lines[children[1]:], "\n")
	if !strings.Contains(build, "Rows: "+fmt.Sprint(nns)+" estimated (rows made while planning)") {
		t.Fatalf("the join hashes pg_class, not pg_namespace:\n%s", strings.Join(lines, "\n"))
	}
}
