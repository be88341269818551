package sql

import (
	"strings"
	"testing"

	"github.com/lakepg/lakepg/pgerr"
)

// TestArrayColumnsStoreAndReadBack: array columns in tables, written to Parquet files and
// inlined into the catalog, by INSERT, COPY-like multi-row inserts, UPDATE, CTAS and ADD
// COLUMN, read back exactly (NULL list, empty list, NULL elements apart).
func TestArrayColumnsStoreAndReadBack(t *testing.T) {
	for _, inline := range []bool{false, true} {
		name := "files"
		if inline {
			name = "inlined"
		}
		t.Run(name, func(t *testing.T) {
			s := lake(t)
			if !inline {
				must(t, s, `CALL lakepg.set_option('data_inlining_row_limit', '0')`)
			}
			must(t, s, `CREATE TABLE la (id integer, a integer[], s text[], b bytea[], iv interval[], ts timestamptz[], n numeric(10,2)[], w numeric(30,3)[])`)
			must(t, s, `INSERT INTO la VALUES
				(1, '{1,NULL,-3}', ARRAY['x y', '', NULL, 'it''s', 'a\b', 'NULL'], ARRAY['\x00ff'::bytea], ARRAY['1 mon 2 days 00:00:01.5'::interval],
				 ARRAY['2000-01-02 03:04:05.5+00'::timestamptz, 'infinity'], '{1.5,-2.25}', '{123456789012345678901.125}'),
				(2, NULL, '{}', NULL, '{}', NULL, '{NULL}', NULL),
				(3, '{}', NULL, ARRAY[''::bytea, NULL], NULL, '{}', NULL, '{}')`)
			want := []string{
				`1|{1,NULL,-3}|{"x y","",NULL,it's,"a\\b","NULL"}|{"\\x00ff"}|{"1 mon 2 days 00:00:01.5"}|{"2000-01-02 03:04:05.5+00",infinity}|{1.50,-2.25}|{123456789012345678901.125}`,
				`2|NULL|{}|NULL|{}|NULL|{NULL}|NULL`,
				`3|{}|NULL|{"\\x",NULL}|NULL|{}|NULL|{}`,
			}
			must(t, s, `SELECT * FROM la ORDER BY id`, want...)
			changes, _, err := run(t, s, `SELECT changes FROM lakepg.snapshots() ORDER BY snapshot_id DESC LIMIT 1`)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(changes[0], "inlined_insert"); got != inline {
				t.Fatalf("changes %q: inlined %t, want %t", changes[0], got, inline)
			}
			must(t, s, `UPDATE la SET a = a || 9 WHERE id < 3`)
			must(t, s, `SELECT id, a, cardinality(a) FROM la ORDER BY id`, "1|{1,NULL,-3,9}|4", "2|{9}|1", "3|{}|0")
			must(t, s, `ALTER TABLE la ADD COLUMN extra date[]`)
			must(t, s, `INSERT INTO la (id, extra) VALUES (4, '{2024-01-01,NULL}')`)
			must(t, s, `SELECT id, extra FROM la WHERE id >= 3 ORDER BY id`, "3|NULL", "4|{2024-01-01,NULL}")
			must(t, s, `CREATE TABLE la2 AS SELECT id % 2 AS k, array_agg(id ORDER BY id) AS ids, ARRAY[id, NULL] AS pair FROM la GROUP BY id % 2, id`)
			must(t, s, `SELECT k, ids, pair FROM la2 ORDER BY k, ids`, "0|{2}|{2,NULL}", "0|{4}|{4,NULL}", "1|{1}|{1,NULL}", "1|{3}|{3,NULL}")
			must(t, s, `SELECT x FROM la, unnest(s) x WHERE id = 1 AND x IS NOT NULL ORDER BY x`, "", "NULL", "a\\b", "it's", "x y")
		})
	}
}

// TestArrayColumnErrors: what cannot be stored answers 0A000.
func TestArrayColumnErrors(t *testing.T) {
	s := lake(t)
	mustFail(t, s, `CREATE TABLE bad (a integer[] DEFAULT '{1}')`, pgerr.FeatureNotSupported)
	mustFail(t, s, `CREATE TABLE bad (a numeric[])`, pgerr.FeatureNotSupported)
	must(t, s, `CREATE TABLE ok (a integer[], b smallint)`)
	// only widening of the element, as for scalar columns
	for _, alter := range []string{`a TYPE text[]`, `a TYPE bigint`, `b TYPE smallint[]`} {
		mustFail(t, s, `ALTER TABLE ok ALTER COLUMN `+alter, pgerr.FeatureNotSupported)
	}
}

// TestArrayElementWidening: ALTER COLUMN … TYPE widens an array's element
// (the list's catalog row stays, the element's is replaced, as DuckDB
// does); rows written before read widened, in and after the transaction.
func TestArrayElementWidening(t *testing.T) {
	s := lake(t)
	must(t, s, `CALL lakepg.set_option('data_inlining_row_limit', '0')`)
	must(t, s, `CREATE TABLE w (id integer, a integer[])`)
	must(t, s, `INSERT INTO w VALUES (1, '{1,2,NULL}'), (2, NULL), (3, '{}')`)
	must(t, s, `BEGIN`)
	must(t, s, `ALTER TABLE w ALTER COLUMN a TYPE bigint[]`)
	must(t, s, `INSERT INTO w VALUES (4, '{9000000000}')`)
	must(t, s, `SELECT id, a, pg_typeof(a) FROM w ORDER BY id`, "1|{1,2,NULL}|bigint[]", "2|NULL|bigint[]", "3|{}|bigint[]", "4|{9000000000}|bigint[]")
	must(t, s, `COMMIT`)
	must(t, s, `SELECT id, a[1] + 1, pg_typeof(a) FROM w ORDER BY id`, "1|2|bigint[]", "2|NULL|bigint[]", "3|NULL|bigint[]", "4|9000000001|bigint[]")
	must(t, s, `ALTER TABLE w ALTER COLUMN a TYPE bigint[]`) // already bigint[]: nothing to do
	mustFail(t, s, `ALTER TABLE w ALTER COLUMN a TYPE integer[]`, pgerr.FeatureNotSupported)
}

// TestArrayColumnsInCatalogs: pg_attribute and information_schema describe
// array columns as PostgreSQL does (psql's \d shows integer[], not text).
func TestArrayColumnsInCatalogs(t *testing.T) {
	s := lake(t)
	must(t, s, `CREATE TABLE arr (id integer, a integer[], s text[], w bigint[])`)
	must(t, s, `SELECT attname, format_type(atttypid, atttypmod), atttypid FROM pg_attribute WHERE attrelid = 'arr'::regclass AND attnum > 0 ORDER BY attnum`,
		"id|integer|23", "a|integer[]|1007", "s|text[]|1009", "w|bigint[]|1016")
	must(t, s, `SELECT column_name, data_type, udt_name FROM information_schema.columns WHERE table_name = 'arr' ORDER BY ordinal_position`,
		"id|integer|int4", "a|ARRAY|_int4", "s|ARRAY|_text", "w|ARRAY|_int8")
}

// TestRowValuesInStructColumns: ROW(…) values make and fill struct columns
// (fields f1, f2, … as PostgreSQL names a row's fields), are cast to the
// column's field types by position, and their fields are selected with
// (r).fN, in files and inlined rows alike.
func TestRowValuesInStructColumns(t *testing.T) {
	for _, limit := range []string{"0", "10"} {
		s := lake(t)
		must(t, s, `CALL lakepg.set_option('data_inlining_row_limit', '`+limit+`')`)
		must(t, s, `CREATE TABLE rt AS SELECT 1 AS id, ROW(1, 'x') AS r`)
		must(t, s, `INSERT INTO rt VALUES (2, ROW(2, 'y')), (3, (3::bigint, NULL)), (4, ROW('4', 5))`)
		must(t, s, `UPDATE rt SET r = ROW(30, 'z') WHERE id = 3`)
		must(t, s, `SELECT id, r, (r).f1 + 1, (r).f2, pg_typeof(r) FROM rt ORDER BY id`,
			"1|(1,x)|2|x|record", "2|(2,y)|3|y|record", "3|(30,z)|31|z|record", "4|(4,5)|5|5|record")
		must(t, s, `SELECT id FROM rt WHERE r = ROW(2, 'y') OR (r).f2 = 'z' ORDER BY id`, "2", "3")
		mustFail(t, s, `INSERT INTO rt VALUES (5, ROW(1, 2, 3))`, pgerr.CannotCoerce)
		mustFail(t, s, `SELECT (r).f3 FROM rt`, pgerr.UndefinedColumn)
	}
}
