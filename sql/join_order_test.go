package sql

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/lakepg/lakepg/sql/planner"
)

// joinLake has a fact table, two dimensions and a table joined by an outer
// join, in Parquet files (not inlined) so the catalog has statistics.
func joinLake(t *testing.T) *Session {
	t.Helper()
	s := lake(t)
	must(t, s, `CALL lakepg.set_option('data_inlining_row_limit', '0')`)
	for _, q := range joinLakeTables {
		must(t, s, q)
	}
	return s
}

// joinLakeTables make joinLake's tables (PostgreSQL runs them too).
var joinLakeTables = []string{
	`CREATE TABLE fact AS SELECT n AS id, 1 + n % 100 AS dk, 1 + n % 7 AS wk, n % 10 AS qty FROM generate_series(1, 20000) g(n)`,
	`CREATE TABLE dim AS SELECT n AS dk, CASE WHEN n % 10 = 0 THEN 'hot' ELSE 'cold' END AS kind FROM generate_series(1, 100) g(n)`,
	`CREATE TABLE week AS SELECT n AS wk, 'w' || n AS wname FROM generate_series(1, 7) g(n)`,
	`CREATE TABLE ret AS SELECT n * 3 AS id, n % 4 AS reason FROM generate_series(1, 3000) g(n)`,
	`CREATE TABLE one AS SELECT 5 AS dk, 'x' AS tag`,
}

// TestStarKeepsFromOrder: the join order follows the estimates (here the
// one-row table is built, the big one probes), but `*` and the described
// row type follow FROM, also when the described plan (no files listed, no
// estimates) orders the joins otherwise than the executed one.
func TestStarKeepsFromOrder(t *testing.T) {
	s := joinLake(t)
	for _, c := range []struct{ q, cols, row string }{
		{`SELECT * FROM one, fact WHERE one.dk = fact.dk AND fact.id = 4`, "dk:integer tag:text id:integer dk:integer wk:integer qty:integer", "5|x|4|5|5|4"},
		{`SELECT * FROM fact, one WHERE one.dk = fact.dk AND fact.id = 4`, "id:integer dk:integer wk:integer qty:integer dk:integer tag:text", "4|5|5|4|5|x"},
		{`SELECT * FROM week, one, fact WHERE one.dk = fact.dk AND fact.wk = week.wk AND fact.id = 4`, "wk:integer wname:text dk:integer tag:text id:integer dk:integer wk:integer qty:integer", "5|w5|5|x|4|5|5|4"},
	} {
		stmts, err := s.Prepare(context.Background(), c.q, nil)
		if err != nil {
			t.Fatal(err)
		}
		var cols []string
		for _, col := range stmts[0].Columns() {
			cols = append(cols, col.Name+":"+col.Type.String())
		}
		if got := strings.Join(cols, " "); got != c.cols {
			t.Errorf("%s: described %s, want %s", c.q, got, c.cols)
		}
		must(t, s, c.q, c.row)
	}
}

// joinShape is a plan's join tree: its join and scan lines without figures.
func joinShape(t *testing.T, s *Session, q string) string {
	t.Helper()
	var out []string
	figures := regexp.MustCompile(`[0-9.]+`)
	for _, l := range explainLines(t, s, "EXPLAIN "+q) {
		tl := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "->"))
		if strings.HasPrefix(tl, "Hash Join") || strings.HasPrefix(tl, "Nested Loop") || strings.HasPrefix(tl, "Lake Scan") {
			out = append(out, figures.ReplaceAllString(l, "N"))
		}
	}
	return strings.Join(out, "\n")
}

// TestJoinOrderIgnoresWriting: the same join written with its FROM items
// and WHERE conjuncts in other orders gets the same join tree, and the
// filtered dimension meets the fact table before the other dimension.
func TestJoinOrderIgnoresWriting(t *testing.T) {
	s := joinLake(t)
	forms := []string{
		`SELECT count(*), sum(qty) FROM fact, dim, week WHERE fact.dk = dim.dk AND fact.wk = week.wk AND kind = 'hot' AND wname <> 'w3'`,
		`SELECT count(*), sum(qty) FROM week, dim, fact WHERE wname <> 'w3' AND kind = 'hot' AND fact.wk = week.wk AND fact.dk = dim.dk`,
		`SELECT count(*), sum(qty) FROM dim JOIN fact ON fact.dk = dim.dk JOIN week ON week.wk = fact.wk WHERE kind = 'hot' AND wname <> 'w3'`,
		`SELECT count(*), sum(qty) FROM week CROSS JOIN fact CROSS JOIN dim WHERE week.wk = fact.wk AND kind = 'hot' AND dim.dk = fact.dk AND wname <> 'w3'`,
	}
	// dk 10, 20, …, 100 and wk other than 3: per dk, 200 rows of which those with n % 7 != 2
	want, _, err := run(t, s, `SELECT count(*), sum(qty) FROM fact WHERE dk % 10 = 0 AND wk <> 3`)
	if err != nil {
		t.Fatal(err)
	}
	first := joinShape(t, s, forms[0])
	for _, q := range forms {
		if got := joinShape(t, s, q); got != first {
			t.Errorf("plan depends on how the query is written:\n%s\n--- gives\n%s\n--- but the first form\n%s", q, got, first)
		}
		must(t, s, q, want...)
	}
	if !strings.Contains(first, "Hash Join") {
		t.Fatalf("no hash join:\n%s", first)
	}
}

// TestOuterJoinPushdown: WHERE conjuncts over the preserved side of a LEFT
// JOIN filter it below the join, the inner joins under it are ordered, and
// a conjunct that rejects the NULLs of the other side makes it an inner
// join; results as PostgreSQL gives them.
func TestOuterJoinPushdown(t *testing.T) {
	s := joinLake(t)
	q := `SELECT count(*), count(reason), sum(qty) FROM fact JOIN dim ON fact.dk = dim.dk LEFT JOIN ret ON ret.id = fact.id WHERE kind = 'hot' AND fact.qty > 5`
	// the filter on dim sits below the left join: no Filter line above it
	lines := explainLines(t, s, "EXPLAIN "+q)
	plan := strings.Join(lines, "\n")
	left := strings.Index(plan, "Hash Join (left") + strings.Index(plan, "Hash Join (right")
	if left < 0 {
		t.Fatalf("no outer hash join:\n%s", plan)
	}
	for _, l := range lines[:2] {
		if strings.Contains(l, "Filter") {
			t.Errorf("a WHERE conjunct stayed above the outer join:\n%s", plan)
		}
	}
	// dk in 10, 20, …, 100 is n % 10 = 9, so qty 9: 2000 rows; ret has the
	// ids 3, 6, …, 9000, of which those ≡ 9 mod 30: 300
	must(t, s, q, "2000|300|18000")
	must(t, s, `SELECT count(*) FROM fact JOIN dim ON fact.dk = dim.dk WHERE kind = 'hot' AND fact.qty > 5 AND fact.id % 3 = 0 AND fact.id <= 9000`, "300")

	// conjuncts over the nullable side stay above the join
	must(t, s, `SELECT count(*) FROM fact LEFT JOIN ret ON ret.id = fact.id WHERE ret.id IS NULL`, "17000")
	must(t, s, `SELECT count(*) FROM fact LEFT JOIN ret ON ret.id = fact.id WHERE coalesce(ret.reason, 9) = 9`, "17000")
	// ON conditions on the preserved side do not filter it
	must(t, s, `SELECT count(*), count(ret.id) FROM fact LEFT JOIN ret ON ret.id = fact.id AND fact.qty = 0`, "20000|300")

	// a null-rejecting conjunct: the left join is an inner join
	q = `SELECT count(*) FROM fact LEFT JOIN ret ON ret.id = fact.id WHERE ret.reason = 1`
	if plan := strings.Join(explainLines(t, s, "EXPLAIN "+q), "\n"); strings.Contains(plan, "left") || strings.Contains(plan, "right") {
		t.Errorf("the left join with a null-rejecting WHERE should be inner:\n%s", plan)
	}
	must(t, s, q, "750")
	must(t, s, `SELECT * FROM one RIGHT JOIN dim ON one.dk = dim.dk WHERE one.tag = 'x'`, "5|x|5|cold")
	must(t, s, `SELECT * FROM dim LEFT JOIN one ON one.dk = dim.dk WHERE one.tag = 'x'`, "5|cold|5|x")

	// a pushed conjunct is still resolved against all of FROM
	mustFail(t, s, `SELECT count(*) FROM fact LEFT JOIN ret ON ret.id = fact.id, dim WHERE qty > 1 AND kind = 'hot' AND dk = 3`, "42702")
}

// TestPushdownIntoSubqueries: WHERE conjuncts over a derived table's or
// WITH query's plain output columns filter inside it (below its GROUP BY,
// into each UNION ALL branch, per reference of a WITH query read twice),
// never where that would change the answer.
func TestPushdownIntoSubqueries(t *testing.T) {
	s := joinLake(t)
	// the conjunct reaches the scan below the aggregate: the scan's file
	// keeps the rows of dk 5 only, so the aggregate sees 200 rows
	q := `SELECT * FROM (SELECT dk, count(*) AS c FROM fact GROUP BY dk) s WHERE dk = 5`
	must(t, s, q, "5|200")
	plan := strings.Join(explainLines(t, s, "EXPLAIN "+q), "\n")
	if agg, filter := strings.Index(plan, "HashAggregate"), strings.Index(plan, "Filter"); agg < 0 || filter < agg {
		t.Errorf("the filter on the group key should sit below the aggregate:\n%s", plan)
	}
	must(t, s, `SELECT * FROM (SELECT dk, count(*) AS c FROM fact GROUP BY dk) s WHERE c = 200 AND dk < 3 ORDER BY dk`, "1|200", "2|200")
	must(t, s, `SELECT * FROM (SELECT dk, count(*) FROM fact GROUP BY 1) s(k, c) WHERE k = 7`, "7|200")
	q = `SELECT count(*) FROM (SELECT 's' AS kind, id FROM fact UNION ALL SELECT 'r', id FROM ret) u WHERE kind = 'r' AND id < 10`
	must(t, s, q, "3")
	// the branch the constant rules out reads nothing
	if plan := strings.Join(explainLines(t, s, "EXPLAIN "+q), "\n"); strings.Contains(plan, "public.fact") || !strings.Contains(plan, "public.ret") {
		t.Errorf("the fact branch should not be read:\n%s", plan)
	}
	must(t, s, `SELECT count(*) FROM fact, dim WHERE fact.dk = dim.dk AND 1 = 2`, "0")
	mustFail(t, s, `SELECT count(*) FROM fact WHERE 1/0 = 1 AND 1 = 2`, "22012")
	must(t, s, `WITH g AS (SELECT dk, wk, count(*) AS c FROM fact GROUP BY dk, wk)
		SELECT a.c, b.c FROM g a, g b WHERE a.dk = b.dk AND a.wk = 1 AND b.wk = 2 AND a.dk = 1`, "28|29")
	must(t, s, `WITH g(k, c) AS MATERIALIZED (SELECT dk, count(*) FROM fact GROUP BY dk) SELECT c FROM g WHERE k = 9`, "200")

	// where a filter below would change the answer, it stays above
	must(t, s, `SELECT * FROM (SELECT count(*) AS c FROM fact) s WHERE c > 0`, "20000")
	must(t, s, `SELECT * FROM (SELECT count(*) AS c FROM fact HAVING count(*) > 0) s WHERE c > 0`, "20000")
	must(t, s, `SELECT * FROM (SELECT id FROM fact ORDER BY id LIMIT 3) s WHERE id > 1`, "2", "3")
	must(t, s, `SELECT * FROM (SELECT id, row_number() OVER (ORDER BY id) AS r FROM fact) s WHERE id = 5`, "5|5")
	must(t, s, `SELECT * FROM (SELECT DISTINCT ON (dk) dk, id FROM fact ORDER BY dk, id) s WHERE id > 100 ORDER BY dk LIMIT 2`, "")
	must(t, s, `SELECT * FROM (SELECT dk + 0 AS k, count(*) AS c FROM fact GROUP BY dk + 0) s WHERE k = 4`, "4|200")
	must(t, s, `SELECT (SELECT count(*) FROM (SELECT dk FROM fact) s WHERE dk = d.dk) FROM dim d WHERE d.dk = 3`, "200")

	// the conjunct is still resolved against all of FROM
	mustFail(t, s, `SELECT count(*) FROM (SELECT dk FROM fact) s, dim WHERE dk = 5`, "42702")
}

// TestImpliedConditionsOnNullableSide: WHERE col = constant and ON col =
// other filter the nullable side of an outer join by other = constant, into
// a WITH query below its GROUP BY, without changing any row of the answer.
func TestImpliedConditionsOnNullableSide(t *testing.T) {
	s := joinLake(t)
	q := `WITH a AS (SELECT wk, count(*) AS c FROM fact GROUP BY wk), b AS (SELECT 1 + ret.id % 7 AS wk2, fact.wk, count(*) AS c FROM ret, fact WHERE ret.id = fact.id GROUP BY 1, 2)
		SELECT a.wk, a.c, b.wk2, b.c FROM a LEFT JOIN b ON b.wk = a.wk WHERE a.wk = 3 ORDER BY 3`
	// fact rows of wk 3 (n % 7 = 2): 2857; ret ids (multiples of 3 up to
	// 9000) with n % 7 = 2: 429, all with 1 + id % 7 = 3
	must(t, s, q, "3|2857|3|429")
	plan := strings.Join(explainLines(t, s, "EXPLAIN "+q), "\n")
	if strings.Count(plan, "HashAggregate") != 2 || strings.Count(plan, "Filter") < 2 {
		t.Errorf("both WITH queries should be filtered below their aggregates:\n%s", plan)
	}
	// preserved rows whose key the implied condition rules out keep their NULLs
	must(t, s, `SELECT one.dk, dim.kind FROM one LEFT JOIN dim ON dim.dk = one.dk AND dim.kind = 'hot' WHERE one.dk = 5`, "5|NULL")
	must(t, s, `SELECT count(*), count(r.id) FROM fact f LEFT JOIN ret r ON r.id = f.id WHERE f.id = 9`, "1|1")
	must(t, s, `SELECT count(*), count(r.id) FROM fact f LEFT JOIN ret r ON r.id = f.id WHERE f.id = 10`, "1|0")
}

// TestRulesCanBeSwitchedOff: every rule named in lakepg.disabled_rules is
// left out (EXPLAIN (VERBOSE) lists the rules that changed the plan and
// the join orders' cost), the answers stay the same, and an unknown name is
// refused.
func TestRulesCanBeSwitchedOff(t *testing.T) {
	s := joinLake(t)
	q := `SELECT count(*), sum(c) FROM (SELECT dk, count(*) AS c FROM fact GROUP BY dk) g JOIN dim ON dim.dk = g.dk
		LEFT JOIN one ON one.dk = dim.dk WHERE g.dk < 50 AND kind = 'hot' AND (1 = 1 AND dim.dk > 0 OR 1 = 1 AND dim.dk < 0)`
	summary := func() string {
		var out []string
		for _, l := range explainLines(t, s, "EXPLAIN (VERBOSE) "+q) {
			if strings.HasPrefix(l, "Rules applied:") || strings.HasPrefix(l, "Join order:") || strings.HasPrefix(l, "  ") && strings.Contains(l, " items by ") {
				out = append(out, l)
			}
		}
		return strings.Join(out, "\n")
	}
	all := summary()
	for _, r := range []string{planner.RuleSubqueryPushdown, planner.RuleOuterPushdown, planner.RuleJoinOrder, planner.RuleFactorOr} {
		if !strings.Contains(all, r+" (") {
			t.Errorf("%s did not fire:\n%s", r, all)
		}
	}
	must(t, s, q, "4|800")
	for _, r := range planner.Rules {
		must(t, s, `SET lakepg.disabled_rules = '`+r+`'`)
		if got := summary(); strings.Contains(got, r+" (") {
			t.Errorf("%s fired while disabled:\n%s", r, got)
		}
		must(t, s, q, "4|800")
	}
	must(t, s, `SET lakepg.disabled_rules = '`+strings.Join(planner.Rules, ", ")+`'`)
	if got := summary(); !strings.Contains(got, "Rules applied: none") || !strings.Contains(got, "written order") {
		t.Errorf("with every rule off:\n%s", got)
	}
	must(t, s, q, "4|800")
	must(t, s, `RESET lakepg.disabled_rules`)
	mustFail(t, s, `SET lakepg.disabled_rules = 'join_order, no_such_rule'`, "22023")
}

// TestDynamicFilters: the probe side's scan skips the row groups whose key
// range misses the build keys, once the build side is in memory; with the
// rule off it reads them all; the answer is the same either way.
func TestDynamicFilters(t *testing.T) {
	s := lake(t)
	must(t, s, `CREATE TABLE big AS SELECT n / 1000 AS d, n % 7 AS v FROM generate_series(0, 499999) g(n)`)
	must(t, s, `CREATE TABLE days AS SELECT n AS d, CASE WHEN n BETWEEN 10 AND 20 THEN 'x' ELSE 'y' END AS tag FROM generate_series(0, 499) g(n)`)
	q := `SELECT count(*), sum(v) FROM big, days WHERE big.d = days.d AND days.tag = 'x'`
	// d 10…20: 11,000 rows; n % 7 over n = 10000…20999 sums to 33,006
	want := []string{"11000|33006"}
	read := func(q string) string {
		for _, l := range explainLines(t, s, "EXPLAIN ANALYZE "+q) {
			if strings.Contains(l, "Actual:") && strings.Contains(l, "row groups read") {
				if f := strings.Fields(strings.TrimSpace(l)); len(f) > 5 {
					return f[1] + " read, " + f[5] + " pruned"
				}
			}
		}
		return ""
	}
	must(t, s, q, want...)
	// 500,000 rows in row groups of 122,880: only the first holds d 10…20
	if got := read(q); got != "1 read, 4 pruned" {
		t.Errorf("big's scan: %s, want 1 read, 4 pruned", got)
	}
	// through a GROUP BY on the key: the groups the join would drop are
	// never made (a correlated aggregate, decorrelated, reads like this)
	qg := `SELECT count(*), sum(s) FROM (SELECT d, sum(v) AS s FROM big GROUP BY d) g, days WHERE g.d = days.d AND days.tag = 'x'`
	must(t, s, qg, "11|33006")
	if got := read(qg); got != "1 read, 4 pruned" {
		t.Errorf("big's scan under a GROUP BY: %s, want 1 read, 4 pruned", got)
	}
	// a ROLLUP's rows are not all keyed by d: it keeps its input whole
	must(t, s, `SELECT count(*), sum(s) FROM (SELECT d, sum(v) AS s FROM big GROUP BY ROLLUP (d)) g, days WHERE g.d = days.d AND days.tag = 'x'`, "11|33006")
	must(t, s, `SET lakepg.disabled_rules = 'dynamic_filters'`)
	must(t, s, q, want...)
	if got := read(q); got != "5 read, 0 pruned" {
		t.Errorf("big's scan without dynamic filters: %s, want 5 read, 0 pruned", got)
	}
	must(t, s, `RESET lakepg.disabled_rules`)
	// an empty build side reads nothing; a left join keeps every row
	must(t, s, `SELECT count(*) FROM big, days WHERE big.d = days.d AND days.tag = 'z'`, "0")
	must(t, s, `SELECT count(*), count(days.d) FROM big LEFT JOIN days ON big.d = days.d AND days.tag = 'x'`, "500000|11000")
}

// TestPushdownIntoSetOperations: a filter over a UNION, INTERSECT or
// EXCEPT (with or without ALL) goes into every branch; duplicates and
// their removal come out as without it.
func TestPushdownIntoSetOperations(t *testing.T) {
	s := joinLake(t)
	for _, c := range []struct{ q, want string }{
		{`SELECT count(*) FROM (SELECT wk FROM fact UNION SELECT dk FROM dim) u WHERE wk < 5`, "4"},
		{`SELECT count(*) FROM (SELECT wk FROM fact UNION ALL SELECT dk FROM dim) u WHERE wk < 3`, "5717"},
		{`SELECT count(*) FROM (SELECT wk FROM fact INTERSECT SELECT dk FROM dim) u WHERE wk > 2`, "5"},
		{`SELECT count(*) FROM (SELECT dk FROM dim EXCEPT SELECT wk FROM fact) u WHERE dk < 10`, "2"},
		{`SELECT count(*) FROM (SELECT dk FROM fact INTERSECT ALL SELECT dk FROM dim) u WHERE dk = 7`, "1"},
	} {
		must(t, s, c.q, c.want)
		if plan := strings.Join(explainLines(t, s, "EXPLAIN (VERBOSE) "+c.q), "\n"); !strings.Contains(plan, "subquery_pushdown (1)") {
			t.Errorf("%s: not pushed down:\n%s", c.q, plan)
		}
	}
}

// TestScalarSubqueryFiltersItsTable: a conjunct comparing one table's
// column with an uncorrelated scalar subquery filters that table before the
// joins (the subquery runs once while planning); a correlated one still
// waits for the joins.
func TestScalarSubqueryFiltersItsTable(t *testing.T) {
	s := joinLake(t)
	q := `SELECT count(*) FROM fact, dim WHERE fact.dk = dim.dk AND dim.dk = (SELECT max(dk) FROM one)`
	must(t, s, q, "200")
	lines := explainLines(t, s, "EXPLAIN "+q)
	for i, l := range lines {
		if strings.Contains(l, "Lake Scan on public.dim") {
			if i < 2 || !strings.Contains(lines[i-2], "Filter") {
				t.Errorf("dim is not filtered right above its scan:\n%s", strings.Join(lines, "\n"))
			}
		}
	}
	must(t, s, `SELECT count(*) FROM fact f, dim d WHERE f.dk = d.dk AND f.qty = (SELECT max(qty) FROM fact g WHERE g.dk = d.dk)`, "20000")
}

// TestKeyFilters: a scan below joins on one key each reads the key columns
// first and decodes its other columns only at the rows whose keys the
// build sides have. The answers must be those without it, over several
// files, deleted and updated rows, NULL keys and values, text, floats and
// numerics, keys that every row matches (the scan stops asking) and keys
// that none does.
func TestKeyFilters(t *testing.T) {
	s := lake(t)
	must(t, s, `CALL lakepg.set_option('data_inlining_row_limit', '0')`)
	must(t, s, `CREATE TABLE sales AS SELECT n AS id, CASE WHEN n % 97 = 0 THEN NULL ELSE n % 3650 END AS day,
		CASE WHEN n % 89 = 0 THEN NULL ELSE (n * 7919) % 18000 END AS item, n % 13 AS qty,
		CASE WHEN n % 5 = 0 THEN NULL ELSE (n % 1000)::numeric(9,2) / 7 END AS price,
		(n % 777)::float8 / 3 AS cost, CASE WHEN n % 11 = 0 THEN NULL ELSE 'note ' || (n % 501) END AS note
		FROM generate_series(1, 150000) g(n)`)
	must(t, s, `INSERT INTO sales SELECT n, n % 3650, (n * 31) % 18000, n % 5, (n % 300)::numeric(9,2), n::float8, 'late'
		FROM generate_series(150001, 230000) g(n)`)
	must(t, s, `DELETE FROM sales WHERE id % 10 = 3`)
	must(t, s, `UPDATE sales SET qty = qty + 100, note = 'updated' WHERE id % 1000 = 7`)
	must(t, s, `CREATE TABLE days AS SELECT n AS day, n / 365 AS year, n % 12 AS month FROM generate_series(0, 3649) g(n)`)
	must(t, s, `CREATE TABLE items AS SELECT n AS item, n % 100 AS manager, 'brand ' || (n % 37) AS brand FROM generate_series(0, 17999) g(n)`)
	queries := []string{
		// two selective dimensions
		`SELECT brand, year, count(*), sum(qty), sum(price), round(sum(cost)::numeric, 3), count(note), min(note), max(note)
			FROM sales, days, items WHERE sales.day = days.day AND sales.item = items.item AND items.manager = 7 AND days.month = 11
			GROUP BY brand, year ORDER BY brand, year`,
		// every key matches: the scan stops asking
		`SELECT count(*), sum(qty), sum(price), count(note) FROM sales JOIN items ON sales.item = items.item`,
		// no key matches
		`SELECT count(*), sum(price) FROM sales JOIN days ON sales.day = days.day WHERE days.year = 99`,
		// a semi join and an IN list
		`SELECT count(*), sum(price), max(note) FROM sales WHERE item IN (SELECT item FROM items WHERE manager = 3)`,
		// the fact rows themselves
		`SELECT id, qty, price, cost, note FROM sales JOIN items ON sales.item = items.item WHERE items.manager = 42 AND items.item < 600 ORDER BY id`,
	}
	var want [][]string
	must(t, s, `SET lakepg.disabled_rules = 'dynamic_filters'`)
	for _, q := range queries {
		rows, _, err := run(t, s, q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if len(rows) == 0 {
			t.Fatalf("%s: no rows", q)
		}
		want = append(want, rows)
	}
	must(t, s, `RESET lakepg.disabled_rules`)
	for i, q := range queries {
		found := false
		for _, l := range explainLines(t, s, "EXPLAIN "+q) {
			found = found || strings.Contains(l, "Key filter: rows whose")
		}
		if !found {
			t.Errorf("%s: no key filter in the plan", q)
		}
		must(t, s, q, want[i]...)
	}
	// the first query's scan keeps a few of the rows it reads: 1 % of the
	// items, then 1/12 of the days
	kept, in := keyFilterKept(t, s, queries[0])
	if in < 100000 || kept == 0 || kept*20 > in {
		t.Errorf("key filter kept %d of %d rows; want about 1 in 100 of over 100,000", kept, in)
	}
}

// keyFilterKept is how many rows the key filter of q's scan kept of how
// many it read (EXPLAIN ANALYZE; the last scan with one).
func keyFilterKept(t *testing.T, s *Session, q string) (kept, in int64) {
	t.Helper()
	for _, l := range explainLines(t, s, "EXPLAIN ANALYZE "+q) {
		if _, rest, ok := strings.Cut(l, "the key filter kept "); ok {
			if _, err := fmt.Sscanf(rest, "%d of %d rows", &kept, &in); err != nil {
				t.Fatalf("%q: %v", l, err)
			}
		}
	}
	return kept, in
}

// TestKeyFiltersOfSeveralKeys: a join on several keys hands the scan below
// its probe side each integer key's build values alone (TPC-DS q17's
// sales, returns and catalog sales joined on customer and item). A probe
// row whose value of one key no build row has is dropped at the scan; the
// answers must be those without it, NULL keys, duplicate build keys, a
// right join, a text key beside an integer one and a key every row has
// included.
func TestKeyFiltersOfSeveralKeys(t *testing.T) {
	s := lake(t)
	must(t, s, `CALL lakepg.set_option('data_inlining_row_limit', '0')`)
	must(t, s, `CREATE TABLE sales AS SELECT n AS id, CASE WHEN n % 97 = 0 THEN NULL ELSE n % 5000 END AS cust,
		CASE WHEN n % 89 = 0 THEN NULL ELSE (n * 7919) % 18000 END AS item, n % 13 AS qty, 'c' || (n % 7) AS chan
		FROM generate_series(1, 200000) g(n)`)
	must(t, s, `DELETE FROM sales WHERE id % 10 = 3`)
	must(t, s, `CREATE TABLE returns AS SELECT id AS rid, cust, CASE WHEN id % 50 = 1 THEN NULL ELSE item END AS item, id % 4 AS amt,
		'c' || (id % 3) AS chan FROM sales WHERE id % 60 = 1`)
	must(t, s, `INSERT INTO returns SELECT rid + 200000, cust, item, amt + 1, chan FROM returns WHERE rid % 7 = 0
		UNION ALL SELECT n + 300000, n % 5000, n, 1, 'c1' FROM generate_series(1, 500) g(n)`)
	queries := []string{
		`SELECT count(*), sum(s.qty), sum(r.amt) FROM sales s JOIN returns r ON s.cust = r.cust AND s.item = r.item`,
		`SELECT s.id, s.qty, r.rid FROM sales s JOIN returns r ON s.cust = r.cust AND s.item = r.item AND s.chan <> r.chan ORDER BY s.id, r.rid`,
		`SELECT count(*), count(s.id), sum(r.amt) FROM sales s RIGHT JOIN returns r ON s.cust = r.cust AND s.item = r.item`,
		`SELECT count(*) FROM sales s WHERE EXISTS (SELECT 1 FROM returns r WHERE r.cust = s.cust AND r.item = s.item AND r.amt > 1)`,
		`SELECT count(*), sum(s.qty) FROM sales s JOIN (SELECT DISTINCT cust % 5000 AS cust, 0 AS z FROM sales) c ON s.cust = c.cust AND s.qty * 0 = c.z`,
	}
	sameWithRuleOff(t, s, "dynamic_filters", queries)
	// the returns' 3,800 rows have a fifth of the 18,000 items and 750 of
	// the 5,000 customers: the sales scan keeps few rows
	kept, in := keyFilterKept(t, s, queries[0])
	if in < 100000 || kept == 0 || kept*10 > in {
		t.Errorf("key filter kept %d of %d rows; want under a tenth of over 100,000", kept, in)
	}
}

// TestOuterJoinKeyFilter: an aggregation below LEFT JOINs whose WHERE
// needs a match in one of them groups only the rows whose keys a build
// side has (rule outer_join_key_filter, TPC-DS q78's shape). The answers
// must be those without the rule, with NULL keys and values, a term that
// is true on NULLs or reads the preserved side (the rule must not apply),
// an aggregation whose rows another reader needs too, and ROLLUP (neither).
func TestOuterJoinKeyFilter(t *testing.T) {
	s := lake(t)
	must(t, s, `CALL lakepg.set_option('data_inlining_row_limit', '0')`)
	// 12,000 groups of ten rows; w has 1,500 of them, c 1,000, 500 both
	must(t, s, `CREATE TABLE ss AS SELECT n AS id, n % 3 AS yr, CASE WHEN n % 1201 = 0 THEN NULL ELSE n % 4000 END AS item,
		n % 1000 AS cust, CASE WHEN n % 13 = 0 THEN NULL ELSE n % 50 END AS qty FROM generate_series(1, 120000) g(n)`)
	must(t, s, `CREATE TABLE ws AS SELECT n % 3 AS yr, CASE WHEN n % 37 = 0 THEN NULL ELSE n % 4000 END AS item, n % 1000 AS cust,
		CASE WHEN n % 11 = 0 THEN NULL ELSE n % 5 END AS qty FROM generate_series(1, 1500) g(n)`)
	must(t, s, `CREATE TABLE cs AS SELECT n % 3 AS yr, n % 4000 AS item, n % 1000 AS cust, n % 4 - 1 AS qty FROM generate_series(1001, 2000) g(n)`)
	with := `WITH s AS (SELECT yr, item, cust, sum(qty) AS q, count(*) AS n FROM ss GROUP BY yr, item, cust),
		w AS (SELECT yr, item, cust, sum(qty) AS q FROM ws GROUP BY yr, item, cust),
		c AS (SELECT yr, item, cust, sum(qty) AS q FROM cs GROUP BY yr, item, cust) `
	join := ` FROM s LEFT JOIN w ON w.yr = s.yr AND w.item = s.item AND w.cust = s.cust
		LEFT JOIN c ON c.yr = s.yr AND c.item = s.item AND c.cust = s.cust `
	fired := []string{
		with + `SELECT count(*), sum(s.q), sum(s.n), sum(w.q), sum(c.q)` + join + `WHERE COALESCE(w.q, 0) > 0 OR COALESCE(c.q, 0) > 0`,
		with + `SELECT s.yr, s.item, s.cust, s.q, w.q, c.q` + join + `WHERE (w.q > 1 OR c.q >= 0) AND s.yr = 1 ORDER BY 1, 2, 3 LIMIT 50`,
		with + `SELECT count(*), sum(s.q)` + join + `WHERE c.q IS NOT NULL OR w.q IN (1, 2)`,
	}
	unfired := []string{
		with + `SELECT count(*), sum(s.q), sum(w.q)` + join + `WHERE w.q IS NULL OR c.q > 0`,
		with + `SELECT count(*), sum(s.q), sum(w.q)` + join + `WHERE w.q > 0 OR s.q > 100`,
		// s read twice: its rows are made once for both readers
		with + `SELECT count(*), sum(s.q)` + join + `WHERE w.q > 0 OR c.q > 0 UNION ALL SELECT count(*), sum(q) FROM s`,
		`SELECT count(*), sum(q), sum(wq) FROM (SELECT s.yr, s.item, sum(s.qty) AS q, max(w.qty) AS wq
			FROM ss s LEFT JOIN ws w ON w.item = s.item AND w.yr = s.yr WHERE w.qty > 0 OR s.qty > 40 GROUP BY ROLLUP (s.yr, s.item)) x`,
	}
	sameWithRuleOff(t, s, "outer_join_key_filter", append(append([]string{}, fired...), unfired...))
	keyFiltered := func(q string) bool {
		lines := explainLines(t, s, "EXPLAIN "+q)
		for i, l := range lines {
			if strings.Contains(l, "HashAggregate (3 group keys, 2 aggregates)") {
				// its input, below the estimates and a Parallel
				return strings.Contains(strings.Join(lines[i+1:min(i+6, len(lines))], "\n"), "->  Filter")
			}
		}
		t.Fatalf("%s: no aggregation of s in\n%s", q, strings.Join(lines, "\n"))
		return false
	}
	for _, q := range fired {
		if !keyFiltered(q) {
			t.Errorf("no key filter below the aggregation:\n%s", q)
		}
	}
	for _, q := range unfired[:2] {
		if keyFiltered(q) {
			t.Errorf("a key filter below the aggregation:\n%s", q)
		}
	}
}

// TestEagerAggregationNested: a GROUP BY of small dimensions' text columns
// over a fact table joined to them (TPC-DS q99's shape) is grouped on the
// fact's integer keys below every one of those joins, with counts and
// integer sums folded as bigint sums; the answers equal the plan without
// the rule, NULL arguments and keys included.
func TestEagerAggregationNested(t *testing.T) {
	s := lake(t)
	must(t, s, `CALL lakepg.set_option('data_inlining_row_limit', '0')`)
	must(t, s, `CREATE TABLE ship AS SELECT n AS id, 1 + n % 5 AS wh, CASE WHEN n % 53 = 0 THEN NULL ELSE 1 + n % 20 END AS mode,
		1 + n % 6 AS cc, (n % 9)::int2 AS lag, CASE WHEN n % 7 = 0 THEN NULL ELSE (n % 130)::int4 END AS days
		FROM generate_series(1, 60000) g(n)`)
	must(t, s, `CREATE TABLE wh AS SELECT n AS wh, 'warehouse ' || (n % 3) AS wname FROM generate_series(1, 5) g(n)`)
	must(t, s, `CREATE TABLE modes AS SELECT n AS mode, CASE WHEN n % 4 = 0 THEN NULL ELSE 'mode ' || (n % 4) END AS mtype FROM generate_series(1, 20) g(n)`)
	must(t, s, `CREATE TABLE cc AS SELECT n AS cc, 'Center ' || n AS cname FROM generate_series(1, 6) g(n)`)
	q := `SELECT substr(wname, 1, 20) AS w, mtype, lower(cname) AS c,
			sum(CASE WHEN days <= 30 THEN 1 ELSE 0 END) AS d30, sum(CASE WHEN days > 30 AND days <= 90 THEN 1 ELSE 0 END) AS d90,
			count(*) AS n, count(days) AS nd, sum(days) AS total, sum(lag) AS lags, min(days), max(id)
		FROM ship, wh, modes, cc WHERE ship.wh = wh.wh AND ship.mode = modes.mode AND ship.cc = cc.cc
		GROUP BY substr(wname, 1, 20), mtype, lower(cname) ORDER BY 1, 2, 3`
	must(t, s, `SET lakepg.disabled_rules = 'eager_aggregation'`)
	want, _, err := run(t, s, q)
	if err != nil {
		t.Fatal(err)
	}
	must(t, s, `RESET lakepg.disabled_rules`)
	aggs := 0
	for _, l := range explainLines(t, s, "EXPLAIN "+q) {
		if strings.Contains(l, "HashAggregate") {
			aggs++
		}
	}
	if aggs != 4 {
		t.Errorf("%d aggregations in the plan, want 4: the final one and a partial one below each join", aggs)
	}
	if len(want) < 10 {
		t.Fatalf("%d rows", len(want))
	}
	must(t, s, q, want...)
}

// TestBuildSideKeySets: TPC-H Q9's shape. The fact table probes the few
// parts of one name first and then partsupp on (part, supplier); partsupp's
// rows of other parts can meet no fact row that got that far, so its scan
// keeps only the rows whose part the first join's build side has. The
// answers equal those without dynamic filters, with NULL keys, deleted
// rows and an empty first build side.
func TestBuildSideKeySets(t *testing.T) {
	s := lake(t)
	must(t, s, `CALL lakepg.set_option('data_inlining_row_limit', '0')`)
	must(t, s, `CREATE TABLE li AS SELECT n AS id, CASE WHEN n % 101 = 0 THEN NULL ELSE (n * 7) % 5000 END AS part,
		(n * 13) % 4 AS supp, (n % 50)::numeric(12,2) AS qty, (n % 1000)::numeric(12,2) AS price FROM generate_series(1, 120000) g(n)`)
	must(t, s, `CREATE TABLE pt AS SELECT n AS part, CASE WHEN n % 4 = 0 THEN 'green ' || n ELSE 'red ' || n END AS name FROM generate_series(0, 4999) g(n)`)
	must(t, s, `CREATE TABLE ps AS SELECT p AS part, sp AS supp, (p * 3 + sp)::numeric(12,2) / 10 AS cost
		FROM generate_series(0, 4999) a(p), generate_series(0, 3) b(sp)`)
	must(t, s, `INSERT INTO ps VALUES (NULL, 1, 5.00)`)
	must(t, s, `DELETE FROM ps WHERE part % 8 = 4`)
	q := func(pattern string) string {
		return `SELECT li.supp, count(*), sum(price - cost * qty) FROM pt, li, ps
			WHERE pt.part = li.part AND ps.part = li.part AND ps.supp = li.supp AND pt.name LIKE '` + pattern + `'
			GROUP BY li.supp ORDER BY li.supp`
	}
	for _, pattern := range []string{"green%", "blue%", "%"} {
		must(t, s, `SET lakepg.disabled_rules = 'dynamic_filters'`)
		want, _, err := run(t, s, q(pattern))
		if err != nil {
			t.Fatal(err)
		}
		must(t, s, `RESET lakepg.disabled_rules`)
		must(t, s, q(pattern), want...)
	}
	var kept, in int64
	for _, l := range explainLines(t, s, "EXPLAIN ANALYZE "+q("green%")) {
		if strings.Contains(l, "Lake Scan on public.ps") {
			kept, in = -1, -1
		}
		if _, rest, ok := strings.Cut(l, "the key filter kept "); ok && kept == -1 {
			if _, err := fmt.Sscanf(rest, "%d of %d rows", &kept, &in); err != nil {
				t.Fatalf("%q: %v", l, err)
			}
		}
	}
	// the green parts are 1 in 4, and half of them deleted; the scan reads
	// the 17,501 rows left
	if in < 17000 || kept <= 0 || kept*6 > in {
		t.Errorf("partsupp's key filter kept %d of %d rows; want about 1 in 8", kept, in)
	}
}
