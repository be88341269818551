package duckdb

import (
	"context"
	"database/sql"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	_ "modernc.org/sqlite"
)

// sketchRows counts lakepg_file_column_sketch rows of live data files
// and rows of files the catalog no longer has.
func sketchRows(t *testing.T, catalog string) (live, orphans int64) {
	t.Helper()
	db, err := sql.Open("sqlite", catalog)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.QueryRow(`SELECT
	(SELECT count(*) FROM lakepg_file_column_sketch sk JOIN ducklake_data_file df ON df.data_file_id = sk.data_file_id WHERE df.end_snapshot IS NULL),
	(SELECT count(*) FROM lakepg_file_column_sketch sk WHERE NOT EXISTS (SELECT 1 FROM ducklake_data_file df WHERE df.data_file_id = sk.data_file_id))`).Scan(&live, &orphans); err != nil {
		t.Fatal(err)
	}
	return live, orphans
}

// TestDuckDBWithSketches: lakepg keeps distinct-value sketches of its data
// files in lakepg_file_column_sketch beside the DuckLake tables. DuckDB
// 1.5.5 must attach such a catalog, read and write it and compact the
// table; lakepg then estimates from what sketches are left, sketches the
// files it merges, and its expiry drops the rows of files DuckDB removed.
func TestDuckDBWithSketches(t *testing.T) {
	ducklakeExt, sqliteExt := duckdbExtensions(t)
	ctx, dir, srv, conn := startLake(t)
	catalog := filepath.Join(dir, "catalog.sqlite")
	query(t, ctx, conn, `CALL lakepg.set_option('data_inlining_row_limit', '0')`)
	query(t, ctx, conn, `CREATE TABLE s AS SELECT n AS id, 'v' || (n % 50) AS t FROM generate_series(1, 2000) g(n)`)
	query(t, ctx, conn, `INSERT INTO s SELECT n AS id, 'v' || (n % 50) FROM generate_series(2001, 3000) g(n)`)
	conn.Close(context.Background())
	srv.Stop(t)
	if live, orphans := sketchRows(t, catalog); live != 4 || orphans != 0 {
		t.Fatalf("sketch rows: %d live, %d orphaned; want 2 files × 2 columns", live, orphans)
	}

	runDuckSteps(t, ctx, ducklakeExt, sqliteExt, dir, []string{
		`INSERT INTO public.s SELECT range + 3001, 'v' || (range % 50) FROM range(1000)`,
		`CALL ducklake_merge_adjacent_files('lk', 's', schema => 'public')`,
	})
	out := runDuckDB(t, duckInput{Ducklake: ducklakeExt, Sqlite: sqliteExt, Catalog: catalog,
		Queries: []duckQuery{}, Raw: []string{
			`SELECT count(*)::VARCHAR, count(DISTINCT t)::VARCHAR, sum(id)::VARCHAR FROM lk.public.s`,
		}})
	if got, want := fmtFlat(out.Raw[0]), "4000 50 8002000 "; got != want {
		t.Errorf("DuckDB reads s: %q, want %q", got, want)
	}
	live, orphans := sketchRows(t, catalog)
	if live != 0 || orphans != 4 {
		t.Errorf("after DuckDB's merge: %d live sketch rows, %d orphaned; want 0 and 4", live, orphans)
	}

	srv, conn = startOn(t, ctx, dir)
	if got := fmtFlat(query(t, ctx, conn, `SELECT count(*), count(DISTINCT t), sum(id) FROM s`).Rows); got != "4000 50 8002000 " {
		t.Errorf("lakepg reads s after DuckDB: %q", got)
	}
	// DuckDB's file has no sketch: no estimate from sketches
	if plan := explainText(t, ctx, conn, `EXPLAIN SELECT t, count(*) FROM s GROUP BY t`); strings.Contains(plan, "sketches") {
		t.Errorf("estimate from sketches without any:\n%s", plan)
	}
	query(t, ctx, conn, `INSERT INTO s SELECT n, 'v' || (n % 50) FROM generate_series(4001, 5000) g(n)`)
	// lakepg's new file has one: 50 groups by it (the other file's values
	// add none, at its rate of new values), not input/10
	plan := explainText(t, ctx, conn, `EXPLAIN SELECT t, count(*) FROM s GROUP BY t`)
	// (the sketch of 50 values counts 51)
	if !regexp.MustCompile(`Rows: (4[5-9]|5[0-5]) estimated \(product of the group keys' distinct estimates, ndv from sketches\)`).MatchString(plan) {
		t.Errorf("group estimate from sketches:\n%s", plan)
	}
	query(t, ctx, conn, `CALL lakepg.expire_snapshots(older_than => now() + interval '1 day')`)
	conn.Close(context.Background())
	srv.Stop(t)
	if live, orphans := sketchRows(t, catalog); live != 2 || orphans != 0 {
		t.Errorf("after lakepg's expiry: %d live sketch rows, %d orphaned; want 2 and 0", live, orphans)
	}

	// DuckDB still attaches, reads and writes after lakepg's expiry
	runDuckSteps(t, ctx, ducklakeExt, sqliteExt, dir, []string{`INSERT INTO public.s VALUES (0, 'v0')`})
	out = runDuckDB(t, duckInput{Ducklake: ducklakeExt, Sqlite: sqliteExt, Catalog: catalog,
		Queries: []duckQuery{}, Raw: []string{`SELECT count(*)::VARCHAR, count(DISTINCT t)::VARCHAR FROM lk.public.s`}})
	if got, want := fmtFlat(out.Raw[0]), "5001 50 "; got != want {
		t.Errorf("DuckDB reads s at the end: %q, want %q", got, want)
	}
}

// explainText is an EXPLAIN's lines joined.
func explainText(t *testing.T, ctx context.Context, conn *pgx.Conn, q string) string {
	t.Helper()
	var lines []string
	for _, r := range query(t, ctx, conn, q).Rows {
		lines = append(lines, fmtVal(r[0]))
	}
	return strings.Join(lines, "\n")
}
