package duckdb

import (
	"context"
	"path/filepath"
	"testing"
)

// TestDuckDBReadsRetypedColumns: ALTER COLUMN … TYPE that rewrites the table (text to integer
// with USING, numeric to text, integer to varchar with an expression) leaves a lake DuckDB
// 1.5.5 reads with the new types, the converted values and the columns in their places;
// DuckDB's insert after the change is read by lakepg.
func TestDuckDBReadsRetypedColumns(t *testing.T) {
	ducklakeExt, sqliteExt := duckdbExtensions(t)
	ctx, dir, srv, conn := startLake(t)
	for _, st := range []string{
		`CREATE TABLE rt (id integer, code text NOT NULL, amt numeric(10,2), tail text)`,
		`INSERT INTO rt SELECT g, (g * 10)::text, g * 1.25, 't' || g FROM generate_series(1, 3000) g`,
		`ALTER TABLE rt ALTER COLUMN code TYPE integer USING code::integer`,
		`ALTER TABLE rt ALTER COLUMN amt TYPE text`,
		`ALTER TABLE rt ALTER COLUMN id TYPE varchar(12) USING 'k' || id`,
	} {
		query(t, ctx, conn, st)
	}
	conn.Close(context.Background())
	srv.Stop(t)

	out := runDuckDB(t, duckInput{Ducklake: ducklakeExt, Sqlite: sqliteExt, Catalog: filepath.Join(dir, "catalog.sqlite"),
		Queries: []duckQuery{}, Raw: []string{
			`SELECT column_name, data_type FROM duckdb_columns() WHERE database_name = 'lk' AND table_name = 'rt' ORDER BY column_index`,
			`SELECT id, code::VARCHAR, amt, tail FROM lk.public.rt WHERE code IN (10, 29990) ORDER BY code`,
			`SELECT count(*)::VARCHAR, sum(code)::VARCHAR FROM lk.public.rt`,
		}})
	for i, want := range [][][]*string{
		rows([]string{"id", "VARCHAR"}, []string{"code", "INTEGER"}, []string{"amt", "VARCHAR"}, []string{"tail", "VARCHAR"}),
		rows([]string{"k1", "10", "1.25", "t1"}, []string{"k2999", "29990", "3748.75", "t2999"}),
		rows([]string{"3000", "45015000"}),
	} {
		if got, exp := fmtRows(out.Raw[i]), fmtRows(want); got != exp {
			t.Errorf("DuckDB reads the retyped table (query %d):\n%s\nwant\n%s", i, got, exp)
		}
	}
	runDuckSteps(t, ctx, ducklakeExt, sqliteExt, dir, []string{`INSERT INTO public.rt VALUES ('dk', 7, 'seven', 'duck')`})
	srv, conn = startOn(t, ctx, dir)
	defer conn.Close(context.Background())
	got := query(t, ctx, conn, `SELECT id, code, amt, tail FROM rt WHERE code < 11 ORDER BY code`)
	if g, exp := fmtRows(got.Rows), fmtRows(rows([]string{"dk", "7", "seven", "duck"}, []string{"k1", "10", "1.25", "t1"})); g != exp {
		t.Errorf("lakepg reads the retyped table after DuckDB's insert:\n%s\nwant\n%s", g, exp)
	}
}
