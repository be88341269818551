package sql

import (
	"strings"
	"testing"
)

// TestOuterJoinToAnti checks LEFT JOINs filtered by WHERE <joined key>
// IS NULL, planned as anti joins (outer_join_to_anti), against the same
// queries with the rule off: NULL keys on either side, an ON condition
// with a residual, the nullable side's columns in the select list, a
// preserved side smaller than the other (the join built on it), and an IS
// NULL on a column the ON does not compare, which the rule leaves.
func TestOuterJoinToAnti(t *testing.T) {
	s := joinLake(t)
	must(t, s, `INSERT INTO fact VALUES (20001, NULL, 1, 1), (20002, 3, NULL, 2), (30000, 3, 2, 3)`)
	must(t, s, `INSERT INTO ret VALUES (NULL, 1), (20002, NULL), (20001, 2)`)
	queries := []string{
		`SELECT fact.id, ret.reason, ret.id FROM fact LEFT JOIN ret ON ret.id = fact.id WHERE ret.id IS NULL AND fact.dk = 3 ORDER BY fact.id`,
		`SELECT count(*), sum(fact.qty) FROM fact LEFT JOIN ret ON ret.id = fact.id AND ret.reason > 1 WHERE ret.id IS NULL`,
		`SELECT one.dk, ret.reason FROM one LEFT JOIN ret ON ret.id = one.dk * 3 WHERE ret.id IS NULL`,
		`SELECT count(*) FROM fact LEFT JOIN ret ON ret.id = fact.id WHERE ret.reason IS NULL`,
		`SELECT dim.kind, count(*) FROM fact LEFT JOIN ret ON fact.id = ret.id JOIN dim ON dim.dk = fact.dk WHERE ret.id IS NULL GROUP BY dim.kind ORDER BY 1`,
	}
	sameWithRuleOff(t, s, "outer_join_to_anti", queries)
	for i, anti := range []bool{true, true, true, false, true} {
		plan := strings.Join(explainLines(t, s, "EXPLAIN "+queries[i]), "\n")
		if strings.Contains(plan, "anti") != anti {
			t.Errorf("query %d: anti join %v, want %v:\n%s", i, !anti, anti, plan)
		}
	}
}
