package sql

import (
	"fmt"
	"strings"
	"testing"
)

// TestOuterJoinToInnerRule checks FULL and aliased LEFT joins under WHERE
// conditions that reject one side's NULL rows (the optimizer's
// outer_join_to_inner) against the same queries with the rule off: NULL
// keys and values on both sides, an ON condition with a residual, a
// condition rejecting neither side, an OR of both and a FULL join in a
// FROM list with another table, whose join predicates reject a side too.
// The plans show the join kinds.
func TestOuterJoinToInnerRule(t *testing.T) {
	s := joinLake(t)
	must(t, s, `INSERT INTO fact VALUES (20001, NULL, 1, 1), (20002, 3, NULL, NULL), (30000, 3, 2, 3)`)
	must(t, s, `INSERT INTO ret VALUES (NULL, 1), (20002, NULL), (20001, 2), (90001, 3)`)
	for _, c := range []struct{ q, join string }{
		{`SELECT count(*), count(ret.id), sum(fact.id) FROM fact FULL JOIN ret ON ret.id = fact.id WHERE fact.qty = 3`, "left"},
		{`SELECT count(*), count(fact.id), sum(ret.id) FROM fact FULL JOIN ret ON ret.id = fact.id AND ret.reason < fact.qty WHERE ret.reason = 2`, "right"},
		{`SELECT fact.id, ret.id FROM fact FULL JOIN ret ON ret.id = fact.id WHERE fact.qty + 1 > 3 AND ret.reason IN (1, 2) ORDER BY 1, 2`, "inner"},
		{`SELECT count(*), count(fact.id), count(ret.id) FROM fact FULL JOIN ret ON ret.id = fact.id WHERE ret.reason IS NULL`, "full"},
		{`SELECT count(*), count(fact.id), count(ret.id) FROM fact FULL JOIN ret ON ret.id = fact.id WHERE fact.qty = 3 OR ret.reason = 2`, "full"},
		{`SELECT count(*), count(j.reason) FROM (fact LEFT JOIN ret ON ret.id = fact.id) AS j WHERE j.reason <> 1`, "inner"},
		{`SELECT dim.kind, count(*), count(fact.id) FROM dim, fact FULL JOIN ret ON ret.id = fact.id WHERE fact.dk = dim.dk AND ret.reason = 1 GROUP BY 1 ORDER BY 1`, "inner"},
		{`SELECT dim.kind, count(*), count(ret.id) FROM dim, fact FULL JOIN ret ON ret.id = fact.id WHERE fact.dk = dim.dk GROUP BY 1 ORDER BY 1`, "left"},
		{`SELECT count(*), count(ret.id) FROM dim, fact FULL JOIN ret ON ret.id = fact.id WHERE fact.dk = dim.dk OR ret.reason = dim.dk`, "full"},
	} {
		sameWithRuleOff(t, s, "outer_join_to_inner", []string{c.q})
		plan := strings.Join(explainLines(t, s, "EXPLAIN "+c.q), "\n")
		if !strings.Contains(plan, "Hash Join ("+c.join+",") {
			t.Errorf("%s: want a %s join:\n%s", c.q, c.join, plan)
		}
	}
}

// TestOuterJoinPushdownRule checks WHERE conditions over one side of
// joins the planner keeps whole (an aliased LEFT join, FULL joins made
// LEFT, RIGHT or inner) moved below them by the optimizer's
// outer_join_pushdown, and the terms of their ON conditions over a side
// they do not preserve, against the same queries with the rule off, NULLs
// on both sides.
func TestOuterJoinPushdownRule(t *testing.T) {
	s := joinLake(t)
	must(t, s, `INSERT INTO fact VALUES (20001, NULL, 1, 1), (20002, 3, NULL, NULL), (30000, 3, 2, 3)`)
	must(t, s, `INSERT INTO ret VALUES (NULL, 1), (20002, NULL), (20001, 2), (90001, 3)`)
	for _, q := range []string{
		`SELECT count(*), count(j.reason), sum(j.qty) FROM (fact LEFT JOIN ret ON ret.id = fact.id) AS j WHERE j.qty = 3 AND coalesce(j.reason, 0) = 0 AND j.dk < 50`,
		`SELECT count(*), count(fact.id), sum(ret.reason) FROM fact FULL JOIN ret ON ret.id = fact.id AND ret.reason < 3 WHERE ret.reason IN (1, 3) AND coalesce(fact.qty, 1) = 1`,
		`SELECT fact.id, ret.reason FROM fact FULL JOIN ret ON ret.id = fact.id WHERE fact.qty + 1 > 3 AND ret.reason > 0 AND fact.qty + ret.reason > 4 ORDER BY 1, 2`,
		`SELECT count(*), count(fact.id), count(ret.id) FROM fact FULL JOIN ret ON ret.id = fact.id WHERE fact.qty = 3 OR ret.reason IS NULL`,
		`SELECT count(*), count(ret.id), sum(ret.reason) FROM fact FULL JOIN ret ON ret.id = fact.id AND ret.reason > 1 AND fact.dk < 90 WHERE fact.qty = 3`,
		`SELECT count(*), count(ret.id), sum(fact.qty) FROM fact FULL JOIN ret ON ret.id = fact.id AND ret.reason <> 2 AND fact.dk < 90 WHERE fact.qty + 0 = 3 AND ret.reason + 0 IN (1, 3)`,
	} {
		sameWithRuleOff(t, s, "outer_join_pushdown", []string{q})
	}
}

// TestOuterJoinToAntiRule checks LEFT joins the planner keeps whole (an
// aliased one, a FULL join made LEFT) filtered by IS NULL on a right key
// column, planned as anti joins by the optimizer's outer_join_to_anti,
// against the same queries with the rule off: NULL keys on both sides, a
// residual ON condition, a smaller left side (a right anti join), other
// filters above and below, and an IS NULL the rule must leave.
func TestOuterJoinToAntiRule(t *testing.T) {
	s := joinLake(t)
	must(t, s, `INSERT INTO fact VALUES (20001, NULL, 1, 1), (20002, 3, NULL, NULL), (30000, 3, 2, 3)`)
	must(t, s, `INSERT INTO ret VALUES (NULL, 1), (20002, NULL), (20001, 2), (90001, 3), (15, NULL)`)
	must(t, s, `INSERT INTO one VALUES (NULL, 'n'), (7, 'y')`)
	for _, c := range []struct {
		q    string
		anti bool
	}{
		{`SELECT j.qty, count(*) FROM (fact LEFT JOIN ret ON ret.reason = fact.qty) AS j WHERE j.dk = 3 AND j.reason IS NULL GROUP BY 1 ORDER BY 1`, true},
		{`SELECT j.dk, j.tag, j.reason FROM (one LEFT JOIN ret ON ret.id = one.dk * 3) AS j WHERE j.id IS NULL AND coalesce(j.reason, 1) = 1 ORDER BY 1, 2`, true},
		{`SELECT count(*), sum(fact.id) FROM fact FULL JOIN ret ON ret.id = fact.id AND ret.reason > 1 WHERE fact.qty = 3 AND ret.id IS NULL AND fact.dk + coalesce(ret.reason, 0) > 5`, true},
		{`SELECT count(*), sum(j.qty) FROM (fact LEFT JOIN ret ON ret.id = fact.id) AS j WHERE j.reason IS NULL`, false},
	} {
		sameWithRuleOff(t, s, "outer_join_to_anti", []string{c.q})
		plan := strings.Join(explainLines(t, s, "EXPLAIN "+c.q), "\n")
		if strings.Contains(plan, "anti") != c.anti {
			t.Errorf("%s: anti join %v, want %v:\n%s", c.q, !c.anti, c.anti, plan)
		}
	}
}

// TestRulePushedFiltersPruneFiles: a condition the outer-join rules move
// onto a lake table (a FULL join's WHERE made it RIGHT, the condition went
// to the side kept whole) prunes that table's files as a condition the
// planner places itself does, and the answers stay those of the rules off.
func TestRulePushedFiltersPruneFiles(t *testing.T) {
	s := lake(t)
	must(t, s, `CALL lakepg.set_option('data_inlining_row_limit', '0')`)
	must(t, s, `CREATE TABLE a AS SELECT n AS k, n % 7 AS x FROM generate_series(1, 400) g(n)`)
	must(t, s, `CREATE TABLE b (k int, v int)`)
	for f := 0; f < 4; f++ {
		// one file per hundred of v
		must(t, s, fmt.Sprintf(`INSERT INTO b SELECT n, n FROM generate_series(%d, %d) g(n)`, f*100+1, f*100+100))
	}
	q := `SELECT count(*), count(a.k), sum(b.v) FROM a FULL JOIN b ON a.k = b.k AND a.x > 2 WHERE b.v > 330`
	sameWithRuleOff(t, s, "outer_join_pushdown", []string{q})
	plan := strings.Join(explainLines(t, s, "EXPLAIN "+q), "\n")
	if !strings.Contains(plan, "Files: 1 scanned, 3 pruned") {
		t.Errorf("b's files not pruned by v > 330:\n%s", plan)
	}
}
