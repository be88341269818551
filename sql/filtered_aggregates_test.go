package sql

import "testing"

// TestFilteredAggregates: one-row aggregates of one FROM side by side,
// their WHERE clauses differing in some conjuncts, give PostgreSQL 15's
// answers (taken from it on the same tables) with the rule on and off:
// members whose own conditions match no rows, meet NULLs, or are none at
// all, several aggregates per member, and members the rule leaves alone
// (another FROM, a JOIN … ON).
func TestFilteredAggregates(t *testing.T) {
	s := joinLake(t)
	must(t, s, `CREATE TABLE nf AS SELECT n, CASE WHEN n % 5 = 0 THEN NULL ELSE n % 3 END AS g, CASE WHEN n % 7 = 0 THEN NULL ELSE n END AS v FROM generate_series(1, 1000) g(n)`)
	for _, c := range []struct{ q, want string }{
		{`SELECT a.c, b.c, round(a.c::numeric / b.c, 4) FROM (SELECT count(*) c FROM fact, dim WHERE fact.dk = dim.dk AND kind = 'hot' AND qty BETWEEN 1 AND 3) a,
			(SELECT count(*) c FROM fact, dim WHERE fact.dk = dim.dk AND kind = 'hot' AND qty BETWEEN 7 AND 9) b`, "0|2000|0.0000"},
		{`SELECT * FROM (SELECT count(*), sum(qty), min(id) FROM fact WHERE wk = 3) x, (SELECT max(id) m, avg(qty) FROM fact WHERE wk = 3 AND dk > 50) y,
			(SELECT count(id) n FROM fact WHERE wk = 3 AND (qty = 0 OR dk IS NULL)) z`, "2857|12856|2|19994|4.5021008403361345|286"},
		{`SELECT * FROM (SELECT count(*), sum(qty) FROM fact WHERE qty > 100) a, (SELECT count(*), sum(qty) FROM fact WHERE qty < 0) b`, "0|NULL|0|NULL"},
		{`SELECT * FROM (SELECT count(*) c1, count(v) v1, sum(v) s1 FROM nf WHERE g = 1) a, (SELECT count(*) c2, sum(v) s2, max(v) FROM nf WHERE g <> 1) b,
			(SELECT count(*) c3, min(v) FROM nf WHERE g IS NULL) c`, "267|228|113718|533|229421|999|200|5"},
		{`SELECT * FROM (SELECT count(*) FROM fact WHERE qty = 1) a, (SELECT count(*) FROM dim WHERE kind = 'hot') b, (SELECT count(*) FROM fact WHERE qty = 2) c`, "2000|10|2000"},
		{`SELECT * FROM (SELECT count(*) FROM fact, dim WHERE fact.dk = dim.dk AND qty = 9 AND kind = 'hot') a, (SELECT sum(qty) FROM dim, fact WHERE kind = 'hot' AND dim.dk = fact.dk) b`, "2000|18000"},
		{`SELECT x.count + y.count FROM (SELECT count(*) FROM fact WHERE wk = 1 AND qty = 2) x JOIN (SELECT count(*) FROM fact WHERE wk = 1 AND qty = 3) y ON true`, "571"},
	} {
		for _, disabled := range []string{"", "filtered_aggregates", "shared_subqueries"} {
			must(t, s, `SET lakepg.disabled_rules = '`+disabled+`'`)
			must(t, s, c.q, c.want)
		}
	}
	must(t, s, `RESET lakepg.disabled_rules`)
}
