package sql

import "testing"

func TestDistinctOrderByOutputExpression(t *testing.T) {
	s := setup(t)
	// pgAdmin's columns node: ORDER BY the expression an output is aliased from
	must(t, s, `SELECT DISTINCT x AS oid, g FROM t WHERE x IS NOT NULL ORDER BY t.x DESC`, "3|a", "2|b", "1|a")
	must(t, s, `SELECT DISTINCT upper(g) FROM t ORDER BY upper(g) DESC`, "C", "B", "A")
	must(t, s, `SELECT DISTINCT g || '!' FROM t ORDER BY g || '!'`, "a!", "b!", "c!")
	must(t, s, `SELECT DISTINCT g, count(*) FROM t GROUP BY g ORDER BY count(*) DESC, g`, "a|2", "b|1", "c|1")
	// an expression no output equals stays an error, as in PostgreSQL
	mustFail(t, s, `SELECT DISTINCT g FROM t ORDER BY x`, "42P10")
	mustFail(t, s, `SELECT DISTINCT x FROM t ORDER BY x + 1`, "42P10")
	mustFail(t, s, `SELECT DISTINCT upper(g) FROM t ORDER BY lower(g)`, "42P10")
}
