package sql

import "testing"

// TestUnconstrainedNumericIsStored: a column declared numeric without precision, and one
// CREATE TABLE AS makes from an expression of that type, are stored as numeric(38,10):
// values keep 10 decimal places (rounded as numeric(38,10) input rounds), larger ones fail
// with 22003 rather than lose digits.
func TestUnconstrainedNumericIsStored(t *testing.T) {
	s := lake(t)
	must(t, s, `CREATE TABLE n (x numeric, y decimal)`)
	must(t, s, `SELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = 'n'::regclass AND attnum > 0 ORDER BY attnum`,
		"numeric(38,10)", "numeric(38,10)")
	must(t, s, `INSERT INTO n VALUES (1.23456789015, 2), (-0.5, NULL)`)
	must(t, s, `SELECT x, y FROM n ORDER BY x`, "-0.5000000000|NULL", "1.2345678902|2.0000000000")
	mustFail(t, s, `INSERT INTO n VALUES (1e28, 0)`, "22003")
	must(t, s, `CREATE TABLE m AS SELECT coalesce(x, 0) AS c, avg(y) OVER () AS a, x::numeric / 3 AS d FROM n`)
	must(t, s, `SELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = 'm'::regclass AND attnum > 0 ORDER BY attnum`,
		"numeric(38,10)", "numeric(38,10)", "numeric(38,10)")
	must(t, s, `SELECT c, a, d FROM m ORDER BY c`, "-0.5000000000|2.0000000000|-0.1666666667", "1.2345678902|2.0000000000|0.4115226301")
}

// TestProductScaleLeavesIntegerDigits: a product of fixed-scale numerics
// whose scales add up to more than the integer part of a scaled int64 can
// spare is computed unconstrained, as PostgreSQL's products are, instead of
// failing with 22003 (TPC-H Q11 at SF10 multiplies a sum of 2·10^13 by
// 0.0001000000); the result prints every digit of its scale either way.
func TestProductScaleLeavesIntegerDigits(t *testing.T) {
	s := lake(t)
	must(t, s, `CREATE TABLE ps (c numeric(16,2), q bigint)`)
	must(t, s, `INSERT INTO ps VALUES (20018287508331.97, 1), (0.01, 3)`)
	must(t, s, `SELECT c * 0.0001000000 FROM ps ORDER BY c`, "0.000001000000", "2001828750.833197000000")
	must(t, s, `SELECT sum(c) * 0.0001000000, sum(c * q) * 0.0001000000 FROM ps`, "2001828750.833198000000|2001828750.833200000000")
	must(t, s, `SELECT c * 1.00 FROM ps ORDER BY c`, "0.0100", "20018287508331.9700")
}
