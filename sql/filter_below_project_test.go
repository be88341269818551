package sql

import (
	"strings"
	"testing"
)

// TestUsingJoinRules: a JOIN written with USING or NATURAL is a projection
// of its merged columns over the join, and the outer-join rules reach the
// join through it (filter_below_project): a WHERE on the nullable side
// makes the join inner, one on the preserved side filters it first, IS
// NULL of the nullable side's key makes it an anti join. The answers are
// those with these rules off, when the outer join ran as written.
const filterBelowProject = "filter_below_project"

func TestUsingJoinRules(t *testing.T) {
	s := joinLake(t)
	queries := []string{
		`SELECT count(*), sum(reason) FROM fact LEFT JOIN ret USING (id) WHERE ret.reason = 2`,
		`SELECT count(*), count(reason) FROM fact LEFT JOIN ret USING (id) WHERE fact.qty = 3`,
		`SELECT count(*) FROM fact LEFT JOIN ret USING (id) WHERE ret.id IS NULL`,
		`SELECT count(*), count(reason), count(qty) FROM fact FULL JOIN ret USING (id) WHERE fact.qty = 3`,
		`SELECT count(*), count(qty) FROM fact FULL JOIN ret USING (id) WHERE ret.reason = 1`,
		`SELECT count(*), sum(id) FROM fact FULL JOIN ret USING (id) WHERE id > 19990`,
		`SELECT count(*), count(qty) FROM fact RIGHT JOIN ret USING (id) WHERE qty > 5`,
		`SELECT kind, count(*) FROM fact NATURAL LEFT JOIN dim WHERE kind = 'hot' GROUP BY kind`,
		`SELECT count(*), count(reason) FROM fact LEFT JOIN ret USING (id) WHERE coalesce(ret.reason, 0) = 0`,
		`SELECT f.id, reason FROM fact f LEFT JOIN ret USING (id) WHERE reason = 3 AND f.id < 40 ORDER BY 1`,
	}
	sameWithRuleOff(t, s, filterBelowProject+", outer_join_to_inner, outer_join_to_anti, outer_join_pushdown", queries)
	must(t, s, queries[0], "750|1500")
	must(t, s, queries[9], "9|3", "21|3", "33|3")

	for _, c := range []struct{ q, join string }{
		{queries[0], "Hash Join (inner"},
		{queries[2], "Hash Join (anti"},
		{queries[3], "Hash Join (left"},
		{queries[4], "Hash Join (right"},
		{queries[6], "Hash Join (inner"},
	} {
		plan := strings.Join(explainLines(t, s, "EXPLAIN (VERBOSE) "+c.q), "\n")
		if !strings.Contains(plan, c.join) || !strings.Contains(plan, filterBelowProject) {
			t.Errorf("%s: want %s… by %s, got\n%s", c.q, c.join, filterBelowProject, plan)
		}
	}
	// a filter on FULL JOIN USING's merged column (COALESCE of both keys)
	// cannot reach the join
	plan := strings.Join(explainLines(t, s, "EXPLAIN (VERBOSE) "+queries[5]), "\n")
	if !strings.Contains(plan, "Hash Join (full") {
		t.Errorf("%s: the full join changed:\n%s", queries[5], plan)
	}
}
