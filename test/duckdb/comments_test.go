package duckdb

import (
	"context"
	"path/filepath"
	"testing"
)

// TestCommentsBothWays: COMMENT ON TABLE, COLUMN and VIEW written by lakepg are DuckDB 1.5.5's
// comments (duckdb_tables, duckdb_columns, duckdb_views), and comments DuckDB writes are
// lakepg's obj_description and col_description; a comment removed on one side is gone on the
// other.
func TestCommentsBothWays(t *testing.T) {
	ducklakeExt, sqliteExt := duckdbExtensions(t)
	ctx, dir, srv, conn := startLake(t)
	for _, st := range []string{
		`CREATE TABLE orders (id integer, note text, total numeric(10,2))`,
		`INSERT INTO orders VALUES (1, 'a', 2.50)`,
		`COMMENT ON TABLE orders IS 'one row per order'`,
		`COMMENT ON COLUMN orders.total IS 'in euros, it''s gross'`,
		`COMMENT ON COLUMN orders.note IS 'to be removed'`,
		`COMMENT ON COLUMN orders.note IS NULL`,
		`CREATE VIEW big_orders AS SELECT id FROM orders WHERE total > 2`,
		`COMMENT ON VIEW big_orders IS 'orders above two euros'`,
	} {
		query(t, ctx, conn, st)
	}
	conn.Close(context.Background())
	srv.Stop(t)

	out := runDuckDB(t, duckInput{Ducklake: ducklakeExt, Sqlite: sqliteExt, Catalog: filepath.Join(dir, "catalog.sqlite"),
		Queries: []duckQuery{}, Raw: []string{
			`SELECT table_name, comment FROM duckdb_tables() WHERE database_name = 'lk' ORDER BY table_name`,
			`SELECT column_name, comment FROM duckdb_columns() WHERE database_name = 'lk' AND table_name = 'orders' ORDER BY column_index`,
			`SELECT view_name, comment FROM duckdb_views() WHERE database_name = 'lk' AND NOT internal ORDER BY view_name`,
		}})
	for i, want := range [][][]*string{
		rows([]string{"orders", "one row per order"}),
		rows([]string{"id", ""}, []string{"note", ""}, []string{"total", "in euros, it's gross"}),
		rows([]string{"big_orders", "orders above two euros"}),
	} {
		if got, exp := fmtRows(out.Raw[i]), fmtRows(want); got != exp {
			t.Errorf("DuckDB reads lakepg's comments (query %d):\n%s\nwant\n%s", i, got, exp)
		}
	}

	runDuckSteps(t, ctx, ducklakeExt, sqliteExt, dir, []string{
		`COMMENT ON TABLE public.orders IS 'set by DuckDB'`,
		`COMMENT ON COLUMN public.orders.id IS 'the key'`,
		`COMMENT ON COLUMN public.orders.total IS NULL`,
		`COMMENT ON VIEW public.big_orders IS NULL`,
	})
	srv, conn = startOn(t, ctx, dir)
	defer conn.Close(context.Background())
	got := query(t, ctx, conn, `SELECT obj_description('orders'::regclass, 'pg_class'), col_description('orders'::regclass, 1),
		col_description('orders'::regclass, 3), obj_description('big_orders'::regclass)`)
	if g, exp := fmtRows(got.Rows), fmtRows(rows([]string{"set by DuckDB", "the key", "", ""})); g != exp {
		t.Errorf("lakepg reads DuckDB's comments:\n%s\nwant\n%s", g, exp)
	}
	// what pgJDBC's getTables reads for REMARKS
	got = query(t, ctx, conn, `SELECT c.relname, d.description FROM pg_class c JOIN pg_description d ON d.objoid = c.oid AND d.objsubid = 0
		WHERE c.relname IN ('orders', 'big_orders') ORDER BY 1`)
	if g, exp := fmtRows(got.Rows), fmtRows(rows([]string{"orders", "set by DuckDB"})); g != exp {
		t.Errorf("pg_description:\n%s\nwant\n%s", g, exp)
	}
}
