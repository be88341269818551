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
