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
