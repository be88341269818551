package duckdb

import (
	"context"
	"path/filepath"
	"testing"
)

// TestTempTablesLeaveNoTrace: temporary tables a session made, filled, changed and
// renamed are nowhere in the DuckLake catalog DuckDB attaches while the session holds
// them: no table, no column, no snapshot beyond the lake table's own.
func TestTempTablesLeaveNoTrace(t *testing.T) {
	ducklakeExt, sqliteExt := duckdbExtensions(t)
	ctx, dir, _, conn := startLake(t)
	defer conn.Close(context.Background())
	for _, st := range []string{
		`CREATE TABLE kept (id integer, name text)`,
		`INSERT INTO kept VALUES (1, 'a'), (2, 'b')`,
		`CREATE TEMP TABLE tmp_stage (id integer, name text, extra double precision)`,
		`INSERT INTO tmp_stage SELECT g, 'n' || g, g * 1.5 FROM generate_series(1, 5000) g`,
		`UPDATE tmp_stage SET name = 'changed' WHERE id < 10`,
		`DELETE FROM tmp_stage WHERE id > 4000`,
		`ALTER TABLE tmp_stage ADD COLUMN more text DEFAULT 'x'`,
		`ALTER TABLE tmp_stage RENAME TO tmp_renamed`,
		`CREATE TEMP TABLE tmp_ctas AS SELECT * FROM kept`,
		`CREATE TABLE pg_temp.tmp_qualified (x integer)`,
		`BEGIN`,
		`CREATE TEMP TABLE tmp_rolled (x integer)`,
		`ROLLBACK`,
	} {
		query(t, ctx, conn, st)
	}
	snaps := query(t, ctx, conn, `SELECT count(*)::text FROM lakepg.snapshots`)
	if got := fmtRows(query(t, ctx, conn, `SELECT count(*) FROM tmp_renamed`).Rows); got != fmtRows(rows([]string{"4000"})) {
		t.Fatalf("the session's temporary table: %s", got)
	}
	// DuckDB attaches the catalog while the session still holds its temporary tables
	out := runDuckDB(t, duckInput{Ducklake: ducklakeExt, Sqlite: sqliteExt, Catalog: filepath.Join(dir, "catalog.sqlite"),
		Queries: []duckQuery{}, Raw: []string{
			`SELECT schema_name || '.' || table_name FROM duckdb_tables() WHERE database_name = 'lk' ORDER BY 1`,
			`SELECT count(*) FROM duckdb_columns() WHERE database_name = 'lk' AND table_name LIKE 'tmp%'`,
			`SELECT count(*)::VARCHAR FROM lk.snapshots()`,
			`SELECT count(*) FROM duckdb_schemas() WHERE database_name = 'lk' AND schema_name LIKE 'pg_temp%'`,
		}})
	if got, want := fmtRows(out.Raw[0]), fmtRows(rows([]string{"public.kept"})); got != want {
		t.Errorf("DuckDB's tables:\n%s\nwant\n%s", got, want)
	}
	if got, want := fmtRows(out.Raw[1]), fmtRows(rows([]string{"0"})); got != want {
		t.Errorf("DuckDB's columns of tmp tables: %s", got)
	}
	if got, want := fmtRows(out.Raw[2]), fmtRows(snaps.Rows); got != want {
		t.Errorf("DuckDB's snapshots: %s, lakepg's %s", got, want)
	}
	if got, want := fmtRows(out.Raw[3]), fmtRows(rows([]string{"0"})); got != want {
		t.Errorf("DuckDB's temporary schemas: %s", got)
	}
}
