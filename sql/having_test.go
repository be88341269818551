package sql

import (
	"testing"
)

// TestAggregateHaving: a filter over an aggregation's groups that reads
// its numeric averages and deviations cast to float8, or compared with
// zero, is also tested by the aggregation before it makes their text (rule
// aggregate_having), with the answers of the plan without the rule; one
// that reads them as numeric, or calls a function, is the filter's alone.
func TestAggregateHaving(t *testing.T) {
	s := lake(t)
	must(t, s, `CALL lakepg.set_option('data_inlining_row_limit', '0')`)
	must(t, s, `CREATE TABLE hv AS SELECT n AS id, n % 50 AS g, n % 7 AS w, CASE WHEN n % 11 = 0 THEN NULL ELSE (n * 7919) % (1 + n % 23) END AS q,
		(((n * 104729) % 100000) / 100.0)::numeric(9,2) AS price FROM generate_series(1, 20000) g(n)`)
	fired := []string{
		// TPC-DS q39's shape
		`WITH inv AS (SELECT g, w, stdev, mean, CASE mean WHEN 0 THEN NULL ELSE stdev::float8 / mean END AS cov
			FROM (SELECT g, w, stddev_samp(q) * 1.000 AS stdev, avg(q) AS mean FROM hv GROUP BY g, w) foo
			WHERE CASE mean WHEN 0 THEN 0 ELSE stdev::float8 / mean END > 1)
		SELECT a.g, a.w, a.mean, a.cov, b.w, b.mean, b.cov FROM inv a, inv b WHERE a.g = b.g AND a.w = 1 AND b.w = 2 ORDER BY 1, 2, 3, 4, 5, 6, 7`,
		`SELECT g, avg(q), var_pop(price) FROM hv GROUP BY g HAVING avg(q)::float8 > 5.5 AND var_samp(price)::float8 < 9e6 ORDER BY g`,
		`SELECT g, w, stddev_pop(price) FROM hv WHERE id % 3 = 0 GROUP BY g, w HAVING stddev_pop(q)::float8 / (1 + g) > 0.2 ORDER BY g, w`,
		`SELECT * FROM (SELECT g, w, avg(q) AS a, sum(price) AS s FROM hv GROUP BY g, w) x WHERE a::float8 > 4 OR s::float8 < 3000 ORDER BY g, w`,
	}
	unfired := []string{
		`SELECT g, avg(q) FROM hv GROUP BY g HAVING avg(q) > 5.5 ORDER BY g`,
		`SELECT g, avg(q) FROM hv GROUP BY g HAVING avg(q)::float8 > 5.5 AND random() >= 0 ORDER BY g`,
		`SELECT g, avg(q) FROM hv GROUP BY g HAVING g > 3 ORDER BY g`,
		// an unconstrained numeric's results may be too small for a float8
		`SELECT g, avg(price / 7) FROM hv GROUP BY g HAVING avg(price / 7)::float8 > 70 ORDER BY g`,
		`SELECT g, w, avg(q) FROM hv GROUP BY ROLLUP (g, w) HAVING avg(q)::float8 > 5.5 ORDER BY g, w`,
	}
	ruleFires(t, s, "aggregate_having", fired, unfired)
}
