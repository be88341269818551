package sql

import (
	"strings"
	"testing"
)

// TestAggregateOverUnionAllRunsParallel: an aggregate over a UNION ALL of
// pipelines (a filtered scan, a join, a scan) runs on all workers, each
// taking morsels of every branch in turn, and gives PostgreSQL 15's
// answer.
func TestAggregateOverUnionAllRunsParallel(t *testing.T) {
	s := joinLake(t)
	q := `SELECT string_agg(x, ',') FROM (SELECT wk || ':' || count(*) || ':' || sum(qty) AS x FROM (SELECT wk, qty FROM fact WHERE qty > 2 UNION ALL SELECT fact.wk, 1 FROM fact, dim WHERE fact.dk = dim.dk AND kind = 'hot' UNION ALL SELECT dk % 7, 2 FROM dim) u GROUP BY wk ORDER BY wk) s`
	must(t, s, q, "0:14:28,1:2301:12319,2:2301:12317,3:2300:12313,4:2299:12310,5:2300:12316,6:2300:12314,7:2285:12283")
	plan := strings.Join(explainLines(t, s, "EXPLAIN "+q), "\n")
	i := strings.Index(plan, "HashAggregate (1 group keys")
	if i < 0 || !strings.Contains(plan[i:], "Parallel (") || strings.Index(plan[i:], "Parallel (") > strings.Index(plan[i:], "Append") {
		t.Errorf("the aggregate does not read a Parallel over the union:\n%s", plan)
	}
}
