package duckdb

import (
	"context"
	"database/sql"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/lakepg/lakepg/catalog"
)

// TestDuckDBLakeGetsIndexes: a lake DuckDB 1.5.5 created has none of the
// indexes lakepg adds to the DuckLake tables; lakepg adds them when it
// opens the catalog, on SQLite and on PostgreSQL. DuckDB must then still
// attach the catalog and write to it — inserts inlined and in files,
// deletes, updates, a new table, a flush, a compaction, expiry and
// cleanup, which delete catalog rows under the indexes — and both read
// the same tables afterwards.
func TestDuckDBLakeGetsIndexes(t *testing.T) {
	for _, kind := range []string{"sqlite", "postgres"} {
		t.Run(kind, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			l := newEncLake(t, kind)
			in := l.duck
			in.Attach = l.attach + " (DATA_PATH " + sqlString(l.data) + ", DATA_INLINING_ROW_LIMIT 10)"
			in.Steps = []string{
				`CREATE TABLE lk.t (id INTEGER, v VARCHAR)`,
				`INSERT INTO lk.t SELECT i, 'v' || i FROM range(0, 500) r(i)`,
				`INSERT INTO lk.t VALUES (1000, 'inlined'), (1001, NULL)`,
				`DELETE FROM lk.t WHERE id % 7 = 0`,
			}
			in.Queries = []duckQuery{}
			runDuckDB(t, in)
			if have := lakeIndexes(t, ctx, l); len(have) != 0 {
				t.Fatalf("DuckDB's new lake has lakepg's indexes already: %v", have)
			}

			srv, conn := l.start(t, ctx)
			have := lakeIndexes(t, ctx, l)
			for _, n := range catalog.IndexNames() {
				if !have[n] {
					t.Errorf("lakepg did not add index %s to DuckDB's catalog", n)
				}
			}
			l.compareTables(t, ctx, conn, "DuckDB's lake read by lakepg", "t")
			query(t, ctx, conn, `INSERT INTO main.t SELECT i, 'lakepg ' || i FROM generate_series(2000, 2299) i`)
			query(t, ctx, conn, `INSERT INTO main.t VALUES (3000, 'lakepg inlined')`)
			query(t, ctx, conn, `DELETE FROM main.t WHERE id BETWEEN 10 AND 20`)
			conn.Close(ctx)
			srv.Stop(t)

			// DuckDB writes the indexed catalog in every way that adds or
			// removes rows of the indexed tables.
			in = l.duck
			in.Attach = l.attach
			in.Steps = []string{
				`INSERT INTO lk.t SELECT i, 'duck ' || i FROM range(5000, 5400) r(i)`,
				`INSERT INTO lk.t VALUES (6000, 'duck inlined')`,
				`UPDATE lk.t SET v = 'upd' WHERE id BETWEEN 100 AND 150 OR id = 1000`,
				`DELETE FROM lk.t WHERE id % 5 = 0`,
				`CREATE TABLE lk.u (id INTEGER, w DOUBLE)`,
				`INSERT INTO lk.u SELECT i, i / 3 FROM range(0, 300) r(i)`,
				`ALTER TABLE lk.u ADD COLUMN x INTEGER`,
				`INSERT INTO lk.u VALUES (301, 1, 2)`,
				`CALL ducklake_flush_inlined_data('lk')`,
				`CALL ducklake_merge_adjacent_files('lk')`,
				`CALL ducklake_expire_snapshots('lk', older_than => now())`,
				`CALL ducklake_cleanup_old_files('lk', cleanup_all => true)`,
				`CREATE TABLE lk.gone (id INTEGER)`,
				`INSERT INTO lk.gone VALUES (1)`,
				`DROP TABLE lk.gone`,
			}
			in.Queries = []duckQuery{}
			in.Raw = []string{`SELECT count(*)::VARCHAR, sum(id)::VARCHAR FROM lk.t`}
			out := runDuckDB(t, in)
			if len(out.Raw) != 1 || len(out.Raw[0]) != 1 || out.Raw[0][0][0] == nil {
				t.Fatalf("DuckDB's count after its writes: %v", out.Raw)
			}

			srv, conn = l.start(t, ctx)
			defer srv.Stop(t)
			mine := query(t, ctx, conn, `SELECT count(*)::text, sum(id)::text FROM main.t`)
			if got, want := fmtRows(mine.Rows), fmtRows(out.Raw[0]); got != want {
				t.Errorf("count and sum of t: lakepg %s, DuckDB %s", got, want)
			}
			l.compareTables(t, ctx, conn, "DuckDB's writes to the indexed catalog read by lakepg", "t", "u")
			after := lakeIndexes(t, ctx, l)
			for _, n := range catalog.IndexNames() {
				if !after[n] {
					t.Errorf("index %s gone after DuckDB's writes", n)
				}
			}
		})
	}
}

// lakeIndexes lists the lakepg_ indexes in the lake's catalog, read
// directly (opening it with package catalog would add them).
func lakeIndexes(t *testing.T, ctx context.Context, l encLake) map[string]bool {
	t.Helper()
	have := map[string]bool{}
	add := func(name string) { have[name] = true }
	if l.sqlitePath != "" {
		db, err := sql.Open("sqlite", "file:"+l.sqlitePath+"?mode=ro&_pragma=busy_timeout(5000)")
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		rows, err := db.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE 'lakepg%'`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var n string
			if err := rows.Scan(&n); err != nil {
				t.Fatal(err)
			}
			add(n)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return have
	}
	conn, err := pgx.Connect(ctx, l.lakepgArgs[1])
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, fmt.Sprintf(`SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = '%s' AND c.relname LIKE 'lakepg%%' AND i.indisvalid`, catalog.DefaultSchema))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		add(n)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return have
}
