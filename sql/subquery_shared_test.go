package sql

import (
	"sort"
	"testing"

	"github.com/lakepg/lakepg/sql/planner"

	pg "github.com/pganalyze/pg_query_go/v6"
)

func TestScalarSubqueryGroups(t *testing.T) {
	for _, tc := range []struct {
		sql  string
		want []int // the values each group computes, one entry per group
	}{
		// q9's shape: two filters, three values each (the count written twice)
		{`SELECT CASE WHEN (SELECT count(*) FROM t WHERE q BETWEEN 1 AND 20) > 5 THEN (SELECT avg(a) FROM t WHERE q BETWEEN 1 AND 20)
		   ELSE (SELECT avg(b) FROM t WHERE q BETWEEN 1 AND 20) END, (SELECT count(*) FROM t WHERE q BETWEEN 1 AND 20),
		   (SELECT avg(a) FROM t WHERE q > 20), (SELECT max(b) FROM t WHERE q > 20) FROM r`, []int{3, 2}},
		// different rows: nothing shared
		{`SELECT (SELECT count(*) FROM t WHERE q = 1), (SELECT count(*) FROM t WHERE q = 2), (SELECT count(*) FROM u WHERE q = 1)`, nil},
		// a volatile call, a star, a GROUP BY, a subquery in the value: alone
		{`SELECT (SELECT count(*) FROM t WHERE q < random()), (SELECT sum(a) FROM t WHERE q < random())`, nil},
		{`SELECT (SELECT count(*) FROM t GROUP BY q), (SELECT sum(a) FROM t GROUP BY q)`, nil},
		{`SELECT (SELECT (SELECT 1) FROM t), (SELECT sum(a) FROM t), (SELECT min(a) FROM t)`, []int{2}},
		// a WITH anywhere: a name in FROM may mean different things
		{`WITH t AS (SELECT 1 AS a) SELECT (SELECT sum(a) FROM t), (SELECT (SELECT max(a) FROM t) FROM (SELECT 1) x), (SELECT max(a) FROM t)`, nil},
	} {
		tree, err := pg.Parse(tc.sql)
		if err != nil {
			t.Fatal(err)
		}
		groups := planner.GroupScalarSubqueries(tree.Stmts[0].Stmt.GetSelectStmt())
		seen := map[*planner.SharedScalars]bool{}
		var got []int
		for _, g := range groups {
			if !seen[g] {
				seen[g] = true
				got = append(got, len(g.Sel.TargetList))
			}
		}
		sort.Sort(sort.Reverse(sort.IntSlice(got)))
		if len(got) != len(tc.want) || (len(got) > 0 && !equalInts(got, tc.want)) {
			t.Errorf("%s\ngroups computing %v values, want %v", tc.sql, got, tc.want)
		}
	}
}

func equalInts(a, b []int) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return len(a) == len(b)
}

// The members of a group get their own values, and a group that cannot run
// as one falls back to its members alone with their own answers and errors.
func TestScalarSubqueriesShared(t *testing.T) {
	s := lake(t)
	must(t, s, `CREATE TABLE t AS SELECT n AS q, n * 10 AS a, n % 7 AS b, 'x' || n AS c FROM generate_series(1, 100) g(n)`)
	must(t, s, `CREATE TABLE r AS SELECT 1 AS id`)
	must(t, s, `SELECT CASE WHEN (SELECT count(*) FROM t WHERE q BETWEEN 1 AND 20) > 5 THEN (SELECT avg(a) FROM t WHERE q BETWEEN 1 AND 20)
		ELSE (SELECT avg(b) FROM t WHERE q BETWEEN 1 AND 20) END, (SELECT count(*) FROM t WHERE q BETWEEN 1 AND 20),
		(SELECT max(b) FROM t WHERE q > 95), (SELECT sum(a) FROM t WHERE q > 95) FROM r`,
		"105.0000000000000000|20|6|4900")
	// no row: every member is NULL
	must(t, s, `SELECT (SELECT a FROM t WHERE q > 1000), (SELECT c FROM t WHERE q > 1000) IS NULL`, "NULL|t")
	// plain values of one row, of different types
	must(t, s, `SELECT (SELECT a FROM t WHERE q = 3), (SELECT c FROM t WHERE q = 3), (SELECT b FROM t WHERE q = 3)`, "30|x3|3")
	// an aggregate beside a plain column cannot be one query: each alone
	must(t, s, `SELECT (SELECT count(*) FROM t WHERE q = 3), (SELECT c FROM t WHERE q = 3)`, "1|x3")
	// a correlated member: the others still run, the correlated one is joined
	must(t, s, `SELECT id, (SELECT a FROM t WHERE q = 3), (SELECT a + r.id FROM t WHERE q = 3) FROM r`, "1|30|31")
	// more than one row: the same error as alone
	mustFail(t, s, `SELECT (SELECT a FROM t WHERE q < 3), (SELECT b FROM t WHERE q < 3)`, "21000")
	// an error in one value is the statement's error, as alone
	mustFail(t, s, `SELECT (SELECT sum(a) FROM t WHERE q < 3), (SELECT sum(a / (b - b)) FROM t WHERE q < 3)`, "22012")
}
