package sql

import "testing"

// pg_typeof prints regtype: type names without their modifiers.
func TestPgTypeofDropsModifiers(t *testing.T) {
	s := lake(t)
	must(t, s, `CREATE TABLE m (a numeric(12,2), b varchar(10), c char(3), d numeric(30,5), e text, f integer[])`)
	must(t, s, `INSERT INTO m VALUES (1.5, 'x', 'y', 2, 'z', '{1}')`)
	must(t, s, `SELECT pg_typeof(a), pg_typeof(b), pg_typeof(c), pg_typeof(d), pg_typeof(e), pg_typeof(f), pg_typeof(a * 2), pg_typeof(ARRAY[a]), pg_typeof(NULL) FROM m`,
		"numeric|character varying|character|numeric|text|integer[]|numeric|numeric[]|unknown")
}

// SHOW TimeZone after a bare number of hours prints the POSIX zone, as
// PostgreSQL does.
func TestShowTimeZoneBareHours(t *testing.T) {
	s := lake(t)
	for _, c := range []struct{ set, show string }{{"+3", "<+03>-03"}, {"-5.5", "<-05:30>+05:30"}, {"8", "<+08>-08"}, {"Europe/Rome", "Europe/Rome"}} {
		must(t, s, "SET TimeZone = '"+c.set+"'")
		must(t, s, "SHOW TimeZone", c.show)
	}
	must(t, s, "SET TimeZone = '+3'")
	must(t, s, "SELECT '2024-01-01 00:00:00+00'::timestamptz::text", "2024-01-01 03:00:00+03")
}
