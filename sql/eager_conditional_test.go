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

// TestEagerAggregationForms checks the forms eager_aggregation rewrites
// over the logical plan against the same queries with the rule off, each
// with a partial aggregation in its plan: SELECT DISTINCT, a partial
// grouping moved below the probe side's join to a small table (nested),
// counts over NULLs, an aggregation in a derived table and in a WITH query
// read twice (their plans optimized again in the plan reading them).
func TestEagerAggregationForms(t *testing.T) {
	s := joinLake(t)
	must(t, s, `INSERT INTO fact VALUES (20001, 3, 1, NULL), (20002, NULL, 2, 5), (20003, 10, 8, 7)`)
	queries := []string{
		`SELECT DISTINCT kind, wk FROM fact JOIN dim ON fact.dk = dim.dk ORDER BY 1, 2`,
		`SELECT kind, wname, sum(qty::numeric), count(*), count(qty), min(id) FROM fact JOIN dim ON fact.dk = dim.dk JOIN week ON fact.wk = week.wk GROUP BY kind, wname ORDER BY 1, 2`,
		`SELECT kind, count(*), count(qty), sum(qty) FROM fact JOIN dim ON fact.dk = dim.dk GROUP BY kind ORDER BY 1`,
		`SELECT t.kind, t.n, week.wname FROM (SELECT kind, wk, count(*) AS n FROM fact JOIN dim ON fact.dk = dim.dk GROUP BY kind, wk) t JOIN week ON t.wk = week.wk ORDER BY 1, 2, 3`,
		`WITH t AS (SELECT kind, wk, sum(qty) AS q FROM fact JOIN dim ON fact.dk = dim.dk GROUP BY kind, wk)
			SELECT a.kind, a.wk, a.q, b.q FROM t a JOIN t b ON a.wk = b.wk + 1 AND a.kind = b.kind ORDER BY 1, 2`,
	}
	sameWithRuleOff(t, s, "eager_aggregation", queries)
	for _, q := range queries {
		if plan := strings.Join(explainLines(t, s, "EXPLAIN "+q), "\n"); !strings.Contains(plan, "Partial HashAggregate") {
			t.Errorf("no partial aggregation for %s:\n%s", q, plan)
		}
	}
}

// TestEstimateAbovePartialAggregation: a WITH query's aggregation split
// by eager_aggregation is estimated, for the join reading it, as it is
// without the rule, so that the plans reading it are costed (EXPLAIN
// (VERBOSE)'s join order costs) and ordered the same.
func TestEstimateAbovePartialAggregation(t *testing.T) {
	s := joinLake(t)
	q := `EXPLAIN (VERBOSE) WITH t AS MATERIALIZED (SELECT kind, wk, sum(qty) AS q FROM fact JOIN dim ON fact.dk = dim.dk GROUP BY kind, wk)
		SELECT a.kind, a.wk, a.q, b.q FROM t a JOIN t b ON a.wk = b.wk + 1 AND a.kind = b.kind`
	// the join orders' estimated costs, as planned
	costs := func() (plan string, joins []string) {
		lines := explainLines(t, s, q)
		for _, l := range lines {
			if strings.Contains(l, "estimated cost") {
				joins = append(joins, strings.TrimSpace(l))
			}
		}
		return strings.Join(lines, "\n"), joins
	}
	plan, with := costs()
	must(t, s, `SET lakepg.disabled_rules = 'eager_aggregation'`)
	_, without := costs()
	if !strings.Contains(plan, "Partial HashAggregate") || len(with) != 3 || strings.Join(with, ";") != strings.Join(without, ";") {
		t.Fatalf("the join orders' costs with the rule %q, without %q:\n%s", with, without, plan)
	}
}
