package sql

import (
	"strings"
	"testing"
)

// TestCTEInline checks that a WITH query planned into each reference
// (cte_inline) returns what it returns run once, for the shapes the rule
// takes and the ones it leaves, and that the IN subqueries over it are
// built on the outer rows when those are fewer (right semi joins).
func TestCTEInline(t *testing.T) {
	s := joinLake(t)
	must(t, s, `INSERT INTO fact VALUES (20001, NULL, 1, 1), (20002, 3, NULL, 2)`)
	must(t, s, `INSERT INTO ret VALUES (NULL, 1), (20002, 2)`)
	queries := []string{
		// TPC-DS q95's shape: a self-join read by two IN subqueries
		`WITH pairs AS (SELECT a.id, b.wk FROM fact a JOIN fact b ON a.dk = b.dk AND a.wk <> b.wk)
		 SELECT count(*), sum(qty), count(DISTINCT fact.id) FROM fact
		 WHERE fact.id IN (SELECT id FROM pairs) AND fact.id IN (SELECT ret.id FROM ret, pairs WHERE ret.id = pairs.id) AND fact.dk = 3`,
		// NOT IN and NULLs through the same CTE
		`WITH pairs AS (SELECT a.id, b.wk FROM fact a JOIN fact b ON a.dk = b.dk AND a.wk <> b.wk)
		 SELECT count(*) FROM ret WHERE ret.id NOT IN (SELECT id FROM pairs WHERE wk = 2) AND ret.id IN (SELECT id FROM pairs)`,
		// both references joined, each with its own condition
		`WITH pairs AS (SELECT a.id, a.dk, b.wk FROM fact a JOIN fact b ON a.dk = b.dk AND a.wk <> b.wk)
		 SELECT x.wk, count(*) FROM pairs x JOIN pairs y ON x.id = y.id AND x.wk = y.wk WHERE x.dk < 4 AND y.wk > 5 GROUP BY x.wk ORDER BY x.wk`,
		// left as run once: no expansion, aggregation
		`WITH j AS (SELECT fact.id, dim.kind FROM fact JOIN dim ON dim.dk = fact.dk)
		 SELECT count(*) FROM j a JOIN j b ON a.id = b.id WHERE a.kind = 'hot'`,
		`WITH g AS NOT MATERIALIZED (SELECT dk, count(*) AS c FROM fact GROUP BY dk)
		 SELECT sum(a.c * b.c) FROM g a JOIN g b ON a.dk = b.dk + 1`,
	}
	sameWithRuleOff(t, s, "cte_inline", queries)
	// q95's shape plans each reference on its own, built on the few
	// outer rows
	plan := strings.Join(explainLines(t, s, "EXPLAIN "+queries[0]), "\n")
	if strings.Contains(plan, "MaterializedReader") || strings.Count(plan, "right semi") != 2 {
		t.Errorf("want the WITH query planned into both IN subqueries, each a right semi join:\n%s", plan)
	}
}

// ruleFires checks that each query answers as it does with rule switched
// off, and that EXPLAIN (VERBOSE) lists the rule as applied to those of
// fired and not to those of unfired.
func ruleFires(t *testing.T, s *Session, rule string, fired, unfired []string) {
	t.Helper()
	sameWithRuleOff(t, s, rule, append(append([]string{}, fired...), unfired...))
	applied := func(q string) bool {
		return strings.Contains(strings.Join(explainLines(t, s, "EXPLAIN (VERBOSE) "+q), "\n"), rule+" (")
	}
	for _, q := range fired {
		if !applied(q) {
			t.Errorf("%s not applied:\n%s", rule, q)
		}
	}
	for _, q := range unfired {
		if applied(q) {
			t.Errorf("%s applied:\n%s", rule, q)
		}
	}
}

// sameWithRuleOff checks that each query answers as it does with rule
// switched off.
func sameWithRuleOff(t *testing.T, s *Session, rule string, queries []string) {
	t.Helper()
	for _, q := range queries {
		must(t, s, `SET lakepg.disabled_rules = '`+rule+`'`)
		want, _, err := run(t, s, q)
		if err != nil {
			t.Fatal(err)
		}
		must(t, s, `RESET lakepg.disabled_rules`)
		must(t, s, q, want...)
	}
}
