package sql

import "testing"

func TestTableOID(t *testing.T) {
	s := setup(t)
	// a lake table's tableoid is its pg_class OID, on every row
	must(t, s, `SELECT count(*), count(DISTINCT t.tableoid) FROM t JOIN pg_class c ON c.oid = t.tableoid WHERE c.relname = 't'`, "4|1")
	must(t, s, `SELECT tableoid = 't'::regclass, x FROM t WHERE x = 1`, "t|1")
	// a catalog relation's is its own OID (pg_class is 1259, pg_attribute 1249)
	must(t, s, `SELECT DISTINCT tableoid FROM pg_catalog.pg_class`, "1259")
	must(t, s, `SELECT DISTINCT a.tableoid, c.tableoid FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid WHERE c.relname = 't'`, "1249|1259")
	// pgAdmin's join of pg_depend.classid to pg_class.tableoid
	must(t, s, `SELECT count(*) FROM pg_class cls LEFT JOIN pg_depend dep ON dep.classid = cls.tableoid AND dep.objid = cls.oid WHERE cls.relname = 't'`, "1")
	// * does not expand it, nor t.*
	must(t, s, `SELECT * FROM t WHERE x = 1`, "a|1|1.5|1.25|2024-01-01")
	must(t, s, `SELECT t.* FROM t WHERE x = 1`, "a|1|1.5|1.25|2024-01-01")
	must(t, s, `SELECT count(*) FROM (SELECT * FROM pg_tablespace) s WHERE spcname = 'pg_default'`, "1")
	// the null-extended side of an outer join has none
	must(t, s, `SELECT c.tableoid IS NULL FROM t LEFT JOIN pg_class c ON c.relname = t.g WHERE t.x = 1`, "t")
	// two relations: the bare name is ambiguous; a subquery has no tableoid
	mustFail(t, s, `SELECT tableoid FROM t, pg_class`, "42702")
	mustFail(t, s, `SELECT tableoid FROM (SELECT x FROM t) s`, "42703")
}

func TestTableOIDUserColumn(t *testing.T) {
	// DuckDB lets a table have a column named tableoid; it wins over the system column
	s := lake(t)
	must(t, s, `CREATE TABLE d (tableoid integer, v text)`)
	must(t, s, `INSERT INTO d VALUES (7, 'x')`)
	must(t, s, `SELECT tableoid, d.tableoid, * FROM d`, "7|7|7|x")
}
