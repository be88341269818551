package duckdb

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestViewsBothWays: views lakepg creates (column aliases, a view over a view, one in
// another schema reading public, a replace, a rename, a drop) are read by DuckDB 1.5.5 with
// lakepg's answers; views DuckDB creates (unqualified names resolved in the view's schema,
// column aliases, a rename) are read by lakepg with DuckDB's answers; and lakepg drops one.
func TestViewsBothWays(t *testing.T) {
	ducklakeExt, sqliteExt := duckdbExtensions(t)
	ctx, dir, srv, conn := startLake(t)
	for _, st := range []string{
		`CREATE TABLE sales (id integer, region text, amount numeric(10,2))`,
		`INSERT INTO sales VALUES (1, 'eu', 10.50), (2, 'us', 20.00), (3, 'eu', 5.25), (4, NULL, 1.00)`,
		`CREATE VIEW big (sale_id, amt) AS SELECT id, amount FROM sales WHERE amount > 5`,
		`CREATE VIEW by_region AS SELECT region, sum(amount) AS total, count(*) AS n FROM sales GROUP BY region`,
		`CREATE VIEW eu_big AS SELECT b.sale_id FROM big b JOIN sales s ON s.id = b.sale_id WHERE s.region = 'eu'`,
		`CREATE SCHEMA rpt`,
		`CREATE VIEW rpt.top AS SELECT region, total FROM by_region ORDER BY total DESC LIMIT 1`,
		`CREATE VIEW gone AS SELECT 1 AS one`,
		`DROP VIEW gone`,
		`CREATE OR REPLACE VIEW by_region AS SELECT region, sum(amount) AS total, count(*) AS n, max(id) AS last_id FROM sales GROUP BY region`,
		`CREATE VIEW tmp_v AS SELECT id FROM sales WHERE region IS NULL`,
		`ALTER VIEW tmp_v RENAME TO no_region`,
		// keys live in lakepg_constraint: DuckDB must attach and write around it
		`CREATE TABLE keyed (id integer PRIMARY KEY, v text UNIQUE)`,
		`INSERT INTO keyed VALUES (1, 'a'), (2, 'b')`,
	} {
		query(t, ctx, conn, st)
	}
	// the same queries for lakepg and, values as text, for DuckDB on the attached lake
	checks := []struct{ pg, duck string }{
		{`SELECT sale_id, amt FROM big ORDER BY sale_id`,
			`SELECT sale_id::VARCHAR, amt::VARCHAR FROM lk.public.big ORDER BY sale_id`},
		{`SELECT region, total, n, last_id FROM by_region ORDER BY region NULLS LAST`,
			`SELECT region, total::VARCHAR, n::VARCHAR, last_id::VARCHAR FROM lk.public.by_region ORDER BY region NULLS LAST`},
		{`SELECT sale_id FROM eu_big ORDER BY sale_id`, `SELECT sale_id::VARCHAR FROM lk.public.eu_big ORDER BY sale_id`},
		{`SELECT region, total FROM rpt.top`, `SELECT region, total::VARCHAR FROM lk.rpt.top`},
		{`SELECT id FROM no_region`, `SELECT id::VARCHAR FROM lk.public.no_region`},
		{`SELECT id, v FROM keyed ORDER BY id`, `SELECT id::VARCHAR, v FROM lk.public.keyed ORDER BY id`},
	}
	var want []result
	raw := make([]string, len(checks))
	for i, c := range checks {
		want = append(want, query(t, ctx, conn, c.pg))
		raw[i] = c.duck
	}
	conn.Close(context.Background())
	srv.Stop(t)
	out := runDuckDB(t, duckInput{Ducklake: ducklakeExt, Sqlite: sqliteExt, Catalog: filepath.Join(dir, "catalog.sqlite"),
		Queries: []duckQuery{}, Raw: raw})
	for i, c := range checks {
		if got, exp := fmtRows(out.Raw[i]), fmtRows(want[i].Rows); got != exp {
			t.Errorf("DuckDB reads lakepg's view: %s\n%s\nlakepg answered\n%s", c.duck, got, exp)
		}
	}

	runDuckSteps(t, ctx, ducklakeExt, sqliteExt, dir, []string{
		`CREATE VIEW rpt.dk (r, c) AS SELECT region, n FROM public.by_region WHERE region IS NOT NULL`,
		`CREATE TABLE rpt.local_t (x INTEGER)`,
		`INSERT INTO rpt.local_t VALUES (7), (8)`,
		`CREATE VIEW rpt.uses_local AS SELECT x * 2 AS y FROM local_t`,
		`CREATE VIEW public.dk_tmp AS SELECT CAST(id AS BIGINT) AS id, upper(region) AS r FROM sales`,
		`ALTER VIEW public.dk_tmp RENAME TO dk_renamed`,
		`INSERT INTO public.keyed VALUES (3, 'c')`,
	})
	srv, conn = startOn(t, ctx, dir)
	defer conn.Close(context.Background())
	for _, c := range []struct {
		q    string
		want [][]*string
	}{
		{`SELECT r, c FROM rpt.dk ORDER BY r`, rows([]string{"eu", "2"}, []string{"us", "1"})},
		{`SELECT y FROM rpt.uses_local ORDER BY y`, rows([]string{"14"}, []string{"16"})},
		{`SELECT id, v FROM keyed ORDER BY id`, rows([]string{"1", "a"}, []string{"2", "b"}, []string{"3", "c"})},
		{`SELECT conname FROM pg_constraint WHERE conrelid = 'keyed'::regclass ORDER BY 1`, rows([]string{"keyed_pkey"}, []string{"keyed_v_key"})},
		{`SELECT id, r FROM dk_renamed WHERE id < 3 ORDER BY id`, rows([]string{"1", "EU"}, []string{"2", "US"})},
		{`SELECT table_schema || '.' || table_name FROM information_schema.views WHERE table_schema IN ('public', 'rpt') ORDER BY 1`,
			rows([]string{"public.big"}, []string{"public.by_region"}, []string{"public.dk_renamed"}, []string{"public.eu_big"},
				[]string{"public.no_region"}, []string{"rpt.dk"}, []string{"rpt.top"}, []string{"rpt.uses_local"})},
	} {
		if got, exp := fmtRows(query(t, ctx, conn, c.q).Rows), fmtRows(c.want); got != exp {
			t.Errorf("lakepg reads DuckDB's view: %s\n%s\nwant\n%s", c.q, got, exp)
		}
	}
	query(t, ctx, conn, `DROP VIEW rpt.dk`)
	var pe *pgconn.PgError
	// the row DuckDB wrote counts for lakepg's key check
	if _, err := conn.Exec(ctx, `INSERT INTO keyed VALUES (3, 'z')`); !errors.As(err, &pe) || pe.Code != "23505" {
		t.Errorf("a key DuckDB inserted: %v, want 23505", err)
	}
	if _, err := conn.Exec(ctx, `SELECT * FROM rpt.dk`); !errors.As(err, &pe) || pe.Code != "42P01" {
		t.Errorf("a dropped view: %v, want 42P01", err)
	}
	conn.Close(context.Background())
	srv.Stop(t)
	out = runDuckDB(t, duckInput{Ducklake: ducklakeExt, Sqlite: sqliteExt, Catalog: filepath.Join(dir, "catalog.sqlite"),
		Queries: []duckQuery{}, Raw: []string{
			`SELECT view_name FROM duckdb_views() WHERE database_name = 'lk' AND NOT internal ORDER BY view_name`,
		}})
	if got, exp := fmtRows(out.Raw[0]), fmtRows(rows([]string{"big"}, []string{"by_region"}, []string{"dk_renamed"},
		[]string{"eu_big"}, []string{"no_region"}, []string{"top"}, []string{"uses_local"})); got != exp {
		t.Errorf("DuckDB's views after lakepg dropped one:\n%s\nwant\n%s", got, exp)
	}
}
