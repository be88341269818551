package sql

import (
	"slices"
	"strings"
	"testing"
)

// TestOuterJoinReorder: the FROM lists with LEFT joins that
// outer_join_reorder takes apart, and some it must leave alone, answer as
// PostgreSQL does with the rule on and off; the rule fires where the plan
// cases (testdata/plans/outer_join_reorder.txt) say it does. SELECT * and
// the columns of every side check that the rule gives the columns back
// in FROM order.
func TestOuterJoinReorder(t *testing.T) {
	s := joinLake(t)
	for _, c := range []struct {
		q     string
		fires bool
	}{
		{`SELECT * FROM fact LEFT JOIN ret ON ret.id = fact.id AND ret.reason < fact.qty, week WHERE fact.wk = week.wk AND wname = 'w3' AND fact.id < 400`, true},
		{`SELECT * FROM fact LEFT JOIN ret ON ret.id = fact.id AND ret.reason + 4 > fact.qty, (SELECT wk, wk * 2 AS w2 FROM week) w WHERE fact.wk = w.wk AND w.w2 = 6`, true},
		{`SELECT * FROM fact LEFT JOIN ret ON ret.id = fact.id, dim LEFT JOIN one ON one.dk = dim.dk, week
			WHERE fact.dk = dim.dk AND fact.wk = week.wk AND wname = 'w3' AND fact.id < 900`, true},
		// a condition over the nullable side that keeps NULL rows stays above
		{`SELECT fact.id, dim.*, ret.reason, week.* FROM fact LEFT JOIN ret ON ret.id = fact.id, dim, week
			WHERE coalesce(ret.reason, 0) + 1 = dim.dk AND fact.wk = week.wk AND wname = 'w3' AND fact.id < 600`, true},
		{`SELECT fact.id, ret.reason FROM fact LEFT JOIN ret ON ret.id = fact.id, dim WHERE coalesce(ret.reason, 0) + 1 = dim.dk AND fact.dk = dim.dk`, false},
		{`SELECT count(*), count(ret.id) FROM fact LEFT JOIN ret ON ret.id = fact.id, week WHERE coalesce(ret.reason, 9) <> 1 AND fact.wk = week.wk AND wname = 'w3'`, true},
		// anti joins
		{`SELECT * FROM fact LEFT JOIN ret ON ret.id = fact.id, week WHERE ret.id IS NULL AND fact.wk = week.wk AND wname = 'w3' AND fact.id < 300`, true},
		{`SELECT j.qty, count(*) FROM (fact LEFT JOIN ret ON ret.reason = fact.qty) AS j, week WHERE j.wk = week.wk AND j.reason IS NULL AND wname <> 'w2' GROUP BY 1`, true},
		// a derived table, WITH readers, USING
		{`WITH w AS (SELECT wk, wname FROM week WHERE wname <> 'w3')
			SELECT w.wname, count(*), count(ret.id), sum(ret.reason) FROM fact LEFT JOIN ret ON ret.id = fact.id, w, w AS w2,
			(SELECT dk FROM dim WHERE kind = 'hot') d WHERE fact.wk = w.wk AND w2.wk = w.wk AND d.dk = fact.dk GROUP BY 1`, true},
		{`SELECT week.wname, count(*), count(ret.id) FROM fact LEFT JOIN ret ON ret.id = fact.id, week JOIN week AS w2 USING (wk)
			WHERE fact.wk = week.wk AND w2.wname <> 'w3' GROUP BY 1`, true},
		// K a join itself, an outer join too
		{`SELECT * FROM fact LEFT JOIN ret ON ret.id = fact.id LEFT JOIN one ON one.dk = fact.dk, week WHERE fact.wk = week.wk AND wname = 'w3' AND fact.id < 500`, true},
		{`SELECT fact.id, week.wname, ret.reason, dim.kind FROM (fact JOIN week ON fact.wk = week.wk) LEFT JOIN ret ON ret.id = fact.id AND week.wname <> 'w1', dim
			WHERE fact.dk = dim.dk AND kind = 'hot' AND fact.id < 2000`, true},
		// FULL joins: made LEFT by a condition over the left side, or not
		{`SELECT count(*), count(fact.id), count(ret.id), sum(ret.reason) FROM fact FULL JOIN ret ON ret.id = fact.id, week WHERE fact.wk = week.wk AND wname = 'w3'`, true},
		{`SELECT count(*), count(fact.id), count(ret.id) FROM fact FULL JOIN ret ON ret.id = fact.id, week WHERE coalesce(fact.wk, 1) = week.wk AND wname = 'w1'`, false},
		{`SELECT count(*), count(ret.id) FROM ret RIGHT JOIN fact ON ret.id = fact.id, week WHERE fact.wk = week.wk AND wname = 'w3'`, false},
	} {
		want := pgAnswer(t, joinLakeTables, c.q)
		if len(want) == 0 {
			t.Fatalf("PostgreSQL: no rows for %s", c.q)
		}
		for _, disabled := range []string{"", "outer_join_reorder"} {
			must(t, s, `SET lakepg.disabled_rules = '`+disabled+`'`)
			got, _, err := run(t, s, c.q)
			if err != nil {
				t.Fatalf("%s: %v", c.q, err)
			}
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Errorf("%s\ndisabled %q: %d rows, PostgreSQL %d; first differing:\n%s", c.q, disabled, len(got), len(want), firstDiff(got, want))
			}
			plan := strings.Join(explainLines(t, s, "EXPLAIN (VERBOSE) "+c.q), "\n")
			if fired := strings.Contains(plan, "outer_join_reorder ("); fired != (c.fires && disabled == "") {
				t.Errorf("%s\ndisabled %q: fired %v:\n%s", c.q, disabled, fired, plan)
			}
		}
	}
	must(t, s, `RESET lakepg.disabled_rules`)
	// with two LEFT joins, which goes on top does not depend on how FROM
	// lists them
	a := joinShape(t, s, `SELECT count(*) FROM fact LEFT JOIN ret ON ret.id = fact.id, dim LEFT JOIN one ON one.dk = dim.dk, week
		WHERE fact.dk = dim.dk AND fact.wk = week.wk AND wname = 'w3'`)
	b := joinShape(t, s, `SELECT count(*) FROM week, dim LEFT JOIN one ON one.dk = dim.dk, fact LEFT JOIN ret ON ret.id = fact.id
		WHERE fact.wk = week.wk AND wname = 'w3' AND fact.dk = dim.dk`)
	if a != b {
		t.Errorf("the FROM list written in another order is planned otherwise:\n%s\n\n%s", a, b)
	}
	// an ON condition reads only the two sides it joins, never the other
	// items of the FROM list, as in PostgreSQL: the rule may rely on it
	mustFail(t, s, `SELECT count(*) FROM week, fact LEFT JOIN ret ON ret.id = fact.id AND week.wk = ret.reason`, "42P01")
}
