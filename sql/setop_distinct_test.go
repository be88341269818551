package sql

import "testing"

// TestSetOpDistinctInputs: INTERSECT and EXCEPT without ALL give the same
// rows whether their inputs lose duplicates first (setop_distinct_inputs)
// or not, and whether an aggregation (setop_aggregate) or SetOp compares
// them — with duplicates on both sides, NULLs (equal to each other
// there), several columns, an input already distinct or empty, columns
// cast to a common type and set operations nested; ALL keeps the
// multiplicities either way. The answers are PostgreSQL 15's.
func TestSetOpDistinctInputs(t *testing.T) {
	s := joinLake(t)
	must(t, s, `CREATE TABLE sa AS SELECT CASE WHEN n % 5 = 0 THEN NULL ELSE n % 7 END AS a, CASE WHEN n % 3 = 0 THEN NULL ELSE 'k' || (n % 4) END AS b FROM generate_series(1, 3000) g(n)`)
	must(t, s, `CREATE TABLE sb AS SELECT CASE WHEN n % 4 = 0 THEN NULL ELSE n % 5 END AS a, CASE WHEN n % 6 = 0 THEN NULL ELSE 'k' || (n % 3) END AS b FROM generate_series(1, 2000) g(n)`)
	for _, c := range []struct {
		q    string
		want []string
	}{
		{`SELECT a FROM sa INTERSECT SELECT a FROM sb ORDER BY 1`, []string{"0", "1", "2", "3", "4", "NULL"}},
		{`SELECT a FROM sa EXCEPT SELECT a FROM sb ORDER BY 1`, []string{"5", "6"}},
		{`SELECT count(*), count(a), count(b) FROM (SELECT a, b FROM sa INTERSECT SELECT a, b FROM sb) u`, []string{"23|20|17"}},
		{`SELECT count(*), count(a), count(b) FROM (SELECT a, b FROM sa EXCEPT SELECT a, b FROM sb) u`, []string{"17|15|15"}},
		{`SELECT count(*) FROM (SELECT DISTINCT a, b FROM sa INTERSECT SELECT a, b FROM sb EXCEPT SELECT a, b FROM sb WHERE a = 1) u`, []string{"19"}},
		{`SELECT b FROM sa EXCEPT SELECT b FROM sb WHERE false ORDER BY 1`, []string{"k0", "k1", "k2", "k3", "NULL"}},
		{`SELECT count(*) FROM (SELECT a, b FROM sa WHERE false INTERSECT SELECT a, b FROM sb) u`, []string{"0"}},
		{`SELECT a::numeric(10,2) FROM sa INTERSECT SELECT a::bigint FROM sb ORDER BY 1`, []string{"0.00", "1.00", "2.00", "3.00", "4.00", "NULL"}},
		{`SELECT a::numeric(10,2) FROM sa INTERSECT SELECT a::numeric(10,1) FROM sb ORDER BY 1`, []string{"0.00", "1.00", "2.00", "3.00", "4.00", "NULL"}},
		{`SELECT a::text, b::varchar(4), a::bigint::numeric(10,3) FROM sa INTERSECT SELECT a::text, b, a::numeric(10,3) FROM sb ORDER BY 1, 2 LIMIT 5`, []string{"0|k0|0.000", "0|k1|0.000", "0|k2|0.000", "0|NULL|0.000", "1|k0|1.000"}},
		{`SELECT a, b FROM sa EXCEPT SELECT a, b FROM sb ORDER BY 1, 2 NULLS FIRST LIMIT 6`, []string{"0|k3", "1|k3", "2|k3", "3|k3", "4|k3", "5|NULL"}},
		{`SELECT a FROM sa EXCEPT SELECT a FROM sb EXCEPT SELECT 5 ORDER BY 1`, []string{"6"}},
		{`SELECT count(*) FROM (SELECT a FROM sa INTERSECT ALL SELECT a FROM sb) u`, []string{"2000"}},
		{`SELECT count(*) FROM (SELECT a FROM sa EXCEPT ALL SELECT a FROM sb) u`, []string{"1000"}},
	} {
		for _, disabled := range []string{"", "setop_distinct_inputs", "setop_aggregate", "setop_distinct_inputs, setop_aggregate"} {
			must(t, s, `SET lakepg.disabled_rules = '`+disabled+`'`)
			must(t, s, c.q, c.want...)
		}
	}
	must(t, s, `RESET lakepg.disabled_rules`)
}
