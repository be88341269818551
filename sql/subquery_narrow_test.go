package sql

import (
	"slices"
	"strings"
	"testing"
)

// TestCorrelatedNonEquality checks scalar subqueries correlated by more
// than equalities, whose outer rows go through the join narrowed to the
// columns the subquery reads (subquery_narrow.go), against PostgreSQL's
// answers: NULL outer values and keys, count(*) over no match, a value
// reading an outer column, outer columns of the same name, and rows
// that are alike but for columns the subquery does not read.
func TestCorrelatedNonEquality(t *testing.T) {
	setup := []string{
		`CREATE TABLE it (sk int, cat text, price numeric(7,2), name text, note text)`,
		`INSERT INTO it SELECT n, CASE WHEN n % 11 = 0 THEN NULL ELSE 'c' || (n % 4) END,
			CASE WHEN n % 13 = 0 THEN NULL ELSE (n * 37 % 1000) / 10.0 END, 'item ' || n, repeat('x', n % 7)
			FROM generate_series(1, 3000) g(n)`,
		`INSERT INTO it VALUES (NULL, 'c1', 5.00, 'dup', 'a'), (NULL, 'c1', 5.00, 'dup', 'b'), (7, 'c3', 1.00, 'item 7', 'again')`,
		`CREATE TABLE ot (sk int, cat text, name text)`,
		`INSERT INTO ot SELECT n, 'c' || (n % 4), 'o' || n FROM generate_series(1, 200) g(n)`,
	}
	s := lake(t)
	for _, st := range setup {
		must(t, s, st)
	}
	queries := []string{
		`SELECT sk, name, note FROM it i1 WHERE price > (SELECT avg(price) FROM it i2 WHERE i2.sk < i1.sk AND i2.cat = i1.cat)`,
		`SELECT name, note, (SELECT count(*) FROM it i2 WHERE i2.sk < i1.sk AND i2.cat = i1.cat) FROM it i1`,
		`SELECT name, (SELECT max(i2.price) + i1.sk FROM it i2 WHERE i2.sk BETWEEN i1.sk - 5 AND i1.sk - 1) FROM it i1`,
		`SELECT o.name, (SELECT count(*) FROM it WHERE it.sk > o.sk AND it.cat IS NOT DISTINCT FROM o.cat) FROM ot o, it WHERE it.sk = o.sk`,
		`SELECT o.name, it.name, (SELECT sum(i2.price) FROM it i2 WHERE i2.sk < o.sk AND i2.name <> it.name) FROM ot o JOIN it ON it.sk = o.sk + 1`,
	}
	for _, q := range queries {
		want := pgAnswer(t, setup, q)
		got, _, err := run(t, s, q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%s\n%d rows, PostgreSQL %d; first differing:\n%s", q, len(got), len(want), firstDiff(got, want))
		}
	}
	// only the columns the correlation reads go through the join: the
	// plan reads the table twice from one materialized outer side
	plan := strings.Join(explainLines(t, s, "EXPLAIN "+queries[0]), "\n")
	if strings.Count(plan, "MaterializedReader") != 2 {
		t.Errorf("want the outer rows materialized and read twice:\n%s", plan)
	}
}

// TestCorrelatedSubqueryFirst checks conditions comparing one FROM item
// with a correlated scalar subquery over that item, applied to the item
// before the joins (correlated_subquery_first), against the rule off:
// NULL correlation values, an aggregate over no rows; the rule leaves a
// condition on the largest item (the joins shrink it first) and a
// subquery reading two items.
func TestCorrelatedSubqueryFirst(t *testing.T) {
	s := joinLake(t)
	must(t, s, `INSERT INTO fact VALUES (20001, NULL, 1, 1), (20002, 3, NULL, 2)`)
	must(t, s, `INSERT INTO dim VALUES (101, NULL), (102, 'warm')`)
	queries := []string{
		`SELECT dim.kind, count(*), sum(fact.qty) FROM fact, dim WHERE fact.dk = dim.dk
			AND dim.dk > (SELECT avg(d2.dk) FROM dim d2 WHERE d2.kind = dim.kind) GROUP BY dim.kind ORDER BY 1`,
		`SELECT count(*) FROM fact f, dim d WHERE f.dk = d.dk AND f.qty >= (SELECT max(g.qty) - 2 FROM fact g WHERE g.wk = f.wk AND g.dk < 50)`,
		`SELECT count(*) FROM fact f, dim d WHERE f.dk = d.dk AND f.qty > (SELECT min(g.qty) FROM fact g WHERE g.wk = f.wk AND g.dk = d.dk)`,
		`SELECT count(*) FROM fact f, dim d WHERE f.dk = d.dk AND d.dk > (SELECT count(*) FROM week w WHERE w.wk = d.dk)`,
	}
	sameWithRuleOff(t, s, "correlated_subquery_first", queries)
	for i, first := range []bool{true, false, false, true} {
		plan := strings.Join(explainLines(t, s, "EXPLAIN (VERBOSE) "+queries[i]), "\n")
		if strings.Contains(plan, "correlated_subquery_first") != first {
			t.Errorf("query %d: rule applied %v, want %v:\n%s", i, !first, first, plan)
		}
	}
}
