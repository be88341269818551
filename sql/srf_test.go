package sql

import (
	"context"
	"testing"

	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// The expected rows below are what PostgreSQL 15 answers for the same
// queries over the same table.

func TestSetReturningSelectList(t *testing.T) {
	s := setup(t)
	must(t, s, `SELECT unnest('{1,2,3}'::int[]) AS u, 5`, "1|5", "2|5", "3|5")
	must(t, s, `SELECT x, generate_series(1, x) FROM t WHERE x < 3 ORDER BY 1, 2`, "1|1", "2|1", "2|2")
	// several calls run in lockstep, the shorter padded with NULLs
	must(t, s, `SELECT unnest('{a,b,c}'::text[]), generate_subscripts('{x,y}'::text[], 1)`, "a|1", "b|2", "c|NULL")
	must(t, s, `SELECT generate_subscripts('{a,b,c}'::text[], 1, true)`, "3", "2", "1")
	// an input row whose calls return nothing is dropped
	must(t, s, `SELECT g, unnest(CASE WHEN x = 1 THEN '{p,q}' ELSE '{}' END::text[]) FROM t WHERE x IS NOT NULL`, "a|p", "a|q")
	// _pg_expandarray's record, whole and by field, also through a subquery (pgJDBC)
	must(t, s, `SELECT (information_schema._pg_expandarray('{7,8}'::int2[])).n, information_schema._pg_expandarray('{7,8}'::int2[]) AS k`,
		"1|(7,1)", "2|(8,2)")
	must(t, s, `SELECT (k).x + 1, (k).n FROM (SELECT information_schema._pg_expandarray('{7,8}'::int2[]) AS k) s WHERE (k).x = 8`, "9|2")
	mustFail(t, s, `SELECT (k).nope FROM (SELECT information_schema._pg_expandarray('{7}'::int2[]) AS k) s`, pgerr.UndefinedColumn)
	mustFail(t, s, `SELECT g, count(*), unnest('{1}'::int[]) FROM t GROUP BY g`, pgerr.FeatureNotSupported)
}

func TestFunctionsInFromReadOtherItems(t *testing.T) {
	s := setup(t)
	// implicit LATERAL over the items before the function
	must(t, s, `SELECT t.x, v FROM t, generate_series(1, t.x) v WHERE t.x < 3 ORDER BY 1, 2`, "1|1", "2|1", "2|2")
	must(t, s, `SELECT t.x, z FROM t, LATERAL generate_series(t.x, 2) AS s(z) ORDER BY 1, 2`, "1|1", "1|2", "2|2")
	// a scalar function in FROM is one row (Grafana's search_path query)
	must(t, s, `SELECT s[i] FROM generate_series(1, 3) AS i, string_to_array('a,b,c', ',') s`, "a", "b", "c")
	// psql's \d: a function in a correlated subquery's FROM reads the outer row
	must(t, s, `SELECT x, (SELECT string_agg(v::text, ',') FROM generate_series(1, t.x) v) FROM t ORDER BY x`,
		"1|1", "2|1,2", "3|1,2,3", "NULL|NULL")
	must(t, s, `SELECT x FROM t WHERE EXISTS (SELECT 1 FROM generate_series(1, t.x) v WHERE v = 2) ORDER BY x`, "2", "3")
	must(t, s, `SELECT * FROM t WHERE EXISTS (SELECT 1 FROM generate_series(1, t.x) v WHERE v = 3)`, "a|3|3.5|NULL|NULL")
	mustFail(t, s, `SELECT * FROM generate_series(1, nope.x)`, pgerr.UndefinedTable)
}

func TestCorrelatedValueReadsOuterRow(t *testing.T) {
	s := setup(t)
	must(t, s, `CREATE TABLE u (g text, w integer)`)
	must(t, s, `INSERT INTO u VALUES ('a', 10), ('b', 20)`)
	must(t, s, `SELECT x, (SELECT t.x * 100 + u.w FROM u WHERE u.g = t.g) FROM t ORDER BY x`,
		"1|110", "2|220", "3|310", "NULL|NULL")
}

func TestArrayBuildersAndOperators(t *testing.T) {
	s := setup(t)
	must(t, s, `SELECT string_to_array('a,,b', ',', ''), string_to_array('abc', NULL), string_to_array('', ','), string_to_array('x y,z', ',')`,
		`{a,NULL,b}|{a,b,c}|{}|{"x y",z}`)
	must(t, s, `SELECT parse_ident('sales.orders'), parse_ident('"My Tab".Foo'), parse_ident('a . b'), parse_ident('a.b c', false)`,
		`{sales,orders}|{"My Tab",foo}|{a,b}|{a,b}`)
	mustFail(t, s, `SELECT parse_ident('a.')`, pgerr.InvalidParameterValue)
	must(t, s, `SELECT 'a%b' LIKE 'a/%%' ESCAPE '/', 'a/%b' LIKE 'a/%%' ESCAPE '/', 'nab' NOT LIKE 'n%' ESCAPE '/', 'a\b' LIKE 'a\b' ESCAPE ''`, "t|f|f|t")
	must(t, s, `SELECT array_agg(x ORDER BY x DESC), array_agg(DISTINCT g) FROM t`, "{NULL,3,2,1}|{a,b,c}")
	must(t, s, `SELECT array_agg(x) FROM t WHERE false`, "NULL")
	must(t, s, `SELECT 5 & 1, 6 | 1, 5 # 1, 1 << 3, 16 >> 2, 3::smallint & 1::smallint, -8 >> 1`, "1|7|4|8|4|1|-4")
	must(t, s, `SELECT json_build_object('a', 1, 'b', 'x"y', 'c', NULL, 'd', true), json_build_array(1, 'a', NULL)`,
		`{"a" : 1, "b" : "x\"y", "c" : null, "d" : true}|[1, "a", null]`)
	must(t, s, `SELECT unnest(indkey) FROM pg_index`)
}

func TestCatalogNameType(t *testing.T) {
	s := setup(t)
	cols := describe(t, s, `SELECT nspname, current_database(), current_user, schema_name, nspname || 'x', 'a'::name FROM pg_namespace, information_schema.schemata LIMIT 1`)
	want := []uint32{types.OIDName, types.OIDName, types.OIDName, types.OIDName, types.OIDText, types.OIDName}
	for i, c := range cols {
		if c.Type.OID() != want[i] {
			t.Errorf("column %s: OID %d, want %d", c.Name, c.Type.OID(), want[i])
		}
	}
	if cols := describe(t, s, `SHOW timezone`); cols[0].Name != "TimeZone" {
		t.Errorf("SHOW timezone names its column %q, want TimeZone", cols[0].Name)
	}
	must(t, s, `SELECT count(*) FROM pg_type WHERE typtype = 'c' AND typrelid = 't'::regclass AND typname = 't'`, "1")
	must(t, s, `SELECT count(*) FROM pg_class c JOIN pg_type y ON y.oid = c.reltype WHERE c.relname = 't'`, "1")
}

// describe is the result columns of q.
func describe(t *testing.T, s *Session, q string) []Column {
	t.Helper()
	stmts, err := s.Prepare(context.Background(), q, nil)
	if err != nil {
		t.Fatal(err)
	}
	return stmts[0].Columns()
}

// TestSRFOverCorrelatedSubquery: a set-returning call in the SELECT list
// whose argument is a correlated subquery (pgcli's foreign-key query
// unnests one per constraint), here with the correlation inside a derived
// table of the subquery.
func TestSRFOverCorrelatedSubquery(t *testing.T) {
	s := lake(t)
	must(t, s, `CREATE TABLE parent (k integer, names text[])`)
	must(t, s, `INSERT INTO parent VALUES (1, '{b,a}'), (2, '{c}'), (3, NULL)`)
	must(t, s, `SELECT k, unnest((SELECT array_agg(x ORDER BY x) FROM (SELECT unnest(names) AS x) u)) FROM parent ORDER BY 1, 2`,
		"1|a", "1|b", "2|c")
	must(t, s, `SELECT k, generate_series(1, (SELECT count(*) FROM parent p2 WHERE p2.k <= parent.k)) FROM parent ORDER BY 1, 2`,
		"1|1", "2|1", "2|2", "3|1", "3|2", "3|3")
}
