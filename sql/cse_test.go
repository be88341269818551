package sql

import (
	"testing"
)

// TestCommonSubexpressions: an expression written several times in a
// projection is computed once (rule common_subexpressions), with the
// answers of the plan without the rule; one evaluated only where a CASE
// branch, a later COALESCE or AND argument reaches is left where it is, so
// the rows that never reach it do not fail the query.
func TestCommonSubexpressions(t *testing.T) {
	s := lake(t)
	must(t, s, `CALL lakepg.set_option('data_inlining_row_limit', '0')`)
	must(t, s, `CREATE TABLE cs AS SELECT n AS id, n % 40 AS ship, n % 13 AS sold, CASE WHEN n % 17 = 0 THEN NULL ELSE n % 5 END AS q,
		(n % 1000)::numeric(9,2) / 100 AS price, (n % 7)::numeric(4,2) / 100 AS disc, n % 3 AS g FROM generate_series(1, 30000) g(n)`)
	fired := []string{
		`SELECT g, sum(CASE WHEN ship - sold <= 10 THEN 1 ELSE 0 END), sum(CASE WHEN ship - sold > 10 AND ship - sold <= 20 THEN 1 ELSE 0 END),
			sum(CASE WHEN ship - sold > 20 THEN 1 ELSE 0 END) FROM cs GROUP BY g ORDER BY g`,
		`SELECT g, sum(price * (1 - disc)), sum(price * (1 - disc) * (1 + disc)), avg(1 - disc) FROM cs GROUP BY g ORDER BY g`,
		`SELECT id, q * 2 + 1, (q * 2 + 1) * ship, -(q * 2 + 1) FROM cs WHERE id % 1000 = 0 ORDER BY id`,
		`SELECT sum(ship::numeric * 3), max(ship::numeric * 3 + q) FROM cs`,
	}
	unfired := []string{
		// q is 0 on some rows: 100 / q only where the CASE tests it
		`SELECT sum(CASE WHEN q = 0 THEN 0 ELSE 100 / q END), sum(CASE WHEN q IS NULL OR q = 0 THEN -1 ELSE 100 / q END) FROM cs`,
		`SELECT sum(COALESCE(q, 100 / (ship - sold))), max(COALESCE(q, 100 / (ship - sold))) FROM cs WHERE ship <> sold OR q IS NOT NULL`,
		`SELECT count(*) FILTER (WHERE q <> 0 AND 10 / q > 2), count(*) FILTER (WHERE q <> 0 AND 10 / q > 3) FROM cs`,
		`SELECT sum(ship - sold), sum(ship + sold) FROM cs`,
	}
	ruleFires(t, s, "common_subexpressions", fired, unfired)
}
