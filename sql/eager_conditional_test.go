package sql

import (
	"strings"
	"testing"
)

// TestEagerConditionalAggregates checks sums, minimums and maximums of
// CASE WHEN <condition on the joined dimension> THEN <fact value> END
// folded before the join (eager_aggregation) against the same query with
// the rule off: NULL values and keys, conditions that never hold, groups
// whose rows all fail the condition, numeric and integer sums, and a
// conditional count, which the rule must leave alone.
func TestEagerConditionalAggregates(t *testing.T) {
	s := joinLake(t)
	must(t, s, `INSERT INTO fact VALUES (20001, 3, 1, NULL), (20002, NULL, 2, 5), (20003, 10, 8, 7)`)
	must(t, s, `INSERT INTO dim VALUES (101, NULL), (10, 'hot')`)
	queries := []string{
		`SELECT wk, sum(CASE WHEN kind = 'hot' THEN qty END), sum(CASE WHEN kind = 'cold' THEN qty::numeric ELSE NULL END),
			max(CASE WHEN dim.dk > 50 THEN id END), min(CASE WHEN kind IS NULL THEN id END) FROM fact JOIN dim ON fact.dk = dim.dk GROUP BY wk ORDER BY wk`,
		`SELECT kind, sum(CASE WHEN dim.dk % 3 = 0 THEN qty * 1.5 END), sum(CASE WHEN kind = 'none' THEN qty END) FROM fact JOIN dim ON fact.dk = dim.dk GROUP BY kind ORDER BY kind`,
		`SELECT wk, sum(CASE WHEN kind = 'hot' THEN qty END), count(CASE WHEN kind = 'hot' THEN qty END) FROM fact JOIN dim ON fact.dk = dim.dk GROUP BY wk ORDER BY wk`,
	}
	sameWithRuleOff(t, s, "eager_aggregation", queries)
	for i, wantPartial := range []bool{true, true, false} {
		plan := strings.Join(explainLines(t, s, "EXPLAIN "+queries[i]), "\n")
		if strings.Contains(plan, "Partial HashAggregate") != wantPartial {
			t.Errorf("query %d: partial aggregation %v, want %v:\n%s", i, !wantPartial, wantPartial, plan)
		}
	}
}

// TestPresizedAggregation: a GROUP BY of integer keys estimated to make
// many groups starts with tables for half the estimate (EXPLAIN says so)
// and answers as one that grows from nothing; text keys are not presized.
func TestPresizedAggregation(t *testing.T) {
	s := lake(t)
	must(t, s, `CALL lakepg.set_option('data_inlining_row_limit', '0')`)
	must(t, s, `CREATE TABLE big AS SELECT n AS k, n % 7 AS g, 'name ' || n AS name FROM generate_series(1, 200000) g(n)`)
	q := `SELECT count(*), sum(c), max(k) FROM (SELECT k, g, count(*) AS c FROM big GROUP BY k, g) s`
	plan := strings.Join(explainLines(t, s, "EXPLAIN "+q), "\n")
	if !strings.Contains(plan, "Tables sized for") {
		t.Errorf("the integer GROUP BY is not presized:\n%s", plan)
	}
	must(t, s, q, "200000|200000|200000")
	plan = strings.Join(explainLines(t, s, "EXPLAIN SELECT name, count(*) FROM big GROUP BY name"), "\n")
	if strings.Contains(plan, "Tables sized for") {
		t.Errorf("a text GROUP BY is presized:\n%s", plan)
	}
}
