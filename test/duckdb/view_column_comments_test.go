package duckdb

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// psqlViewColumns is what psql's \d+ and pgJDBC's getColumns read for a
// relation's column comments: col_description and pg_description joined
// on attnum.
const psqlViewColumns = `SELECT a.attname, pg_catalog.col_description(a.attrelid, a.attnum), dsc.description
	FROM pg_catalog.pg_attribute a
	LEFT JOIN pg_catalog.pg_description dsc ON a.attrelid = dsc.objoid AND a.attnum = dsc.objsubid
	LEFT JOIN pg_catalog.pg_class dc ON dc.oid = dsc.classoid AND dc.relname = 'pg_class'
	WHERE a.attrelid = 'main.v'::regclass AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`

// TestViewColumnComments: COMMENT ON COLUMN of a view is a row of DuckLake
// 1.1's ducklake_view_column_tag (view id, column name, key 'comment'), as
// DuckDB 2.0 writes it; psql's and pgJDBC's catalog queries show it, a
// restarted server reads it back from the catalog, a new comment end-dates
// the old row, DROP VIEW ends them. A 1.0 catalog has no place for it (and
// DuckDB 1.5.5 refuses such comments: "Cannot comment on columns for entry
// … it is not a table"): 0A000.
func TestViewColumnComments(t *testing.T) {
	for _, kind := range []string{"sqlite", "postgres"} {
		t.Run(kind, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			old := newEncLake(t, kind)
			_, oldConn := old.start(t, ctx)
			query(t, ctx, oldConn, `CREATE VIEW main.v AS SELECT 1 AS id`)
			_, err := oldConn.Exec(ctx, `COMMENT ON COLUMN main.v.id IS 'x'`)
			var pe *pgconn.PgError
			if !errors.As(err, &pe) || pe.Code != "0A000" || !strings.Contains(pe.Message, "1.1") {
				t.Fatalf("view column comment on a 1.0 catalog: %v, want 0A000", err)
			}

			l := newEncLake(t, kind)
			srv, conn := l.start(t, ctx, "--ducklake-version", "1.1")
			for _, st := range []string{
				`CREATE TABLE main.t (id integer, note text)`,
				`CREATE VIEW main.v AS SELECT id, note AS label, id * 2 AS twice FROM main.t`,
				`COMMENT ON COLUMN main.v.label IS 'what the note says'`,
				`COMMENT ON COLUMN main.v.twice IS 'to be replaced'`,
				`COMMENT ON COLUMN main.v.twice IS 'id doubled, it''s even'`,
				`COMMENT ON COLUMN main.v.id IS 'gone soon'`,
				`COMMENT ON COLUMN main.v.id IS NULL`,
				`COMMENT ON VIEW main.v IS 'the view'`,
			} {
				query(t, ctx, conn, st)
			}
			_, err = conn.Exec(ctx, `COMMENT ON COLUMN main.v.nope IS 'x'`)
			if !errors.As(err, &pe) || pe.Code != "42703" {
				t.Fatalf("comment on a column the view lacks: %v, want 42703", err)
			}
			want := fmtRows([][]*string{
				{ptr("id"), nil, nil},
				{ptr("label"), ptr("what the note says"), ptr("what the note says")},
				{ptr("twice"), ptr("id doubled, it's even"), ptr("id doubled, it's even")},
			})
			if got := fmtRows(query(t, ctx, conn, psqlViewColumns).Rows); got != want {
				t.Fatalf("view column comments:\n%s\nwant\n%s", got, want)
			}
			db := l.catalogDB(t, ctx)
			tagRows := func() string {
				rows, err := db.SQL().QueryContext(ctx, `SELECT column_name, key, value, end_snapshot IS NULL FROM ducklake_view_column_tag ORDER BY begin_snapshot, column_name`)
				if err != nil {
					t.Fatal(err)
				}
				defer rows.Close()
				var out []string
				for rows.Next() {
					var col, key, val string
					var live bool
					if err := rows.Scan(&col, &key, &val, &live); err != nil {
						t.Fatal(err)
					}
					out = append(out, col+"|"+key+"|"+val+"|"+map[bool]string{true: "live", false: "ended"}[live])
				}
				return strings.Join(out, "\n")
			}
			wantTags := strings.Join([]string{
				"label|comment|what the note says|live",
				"twice|comment|to be replaced|ended",
				"twice|comment|id doubled, it's even|live",
				"id|comment|gone soon|ended",
			}, "\n")
			if got := tagRows(); got != wantTags {
				t.Fatalf("ducklake_view_column_tag:\n%s\nwant\n%s", got, wantTags)
			}
			// read back from the catalog by a new server
			conn.Close(context.Background())
			srv.Stop(t)
			srv, conn = l.start(t, ctx)
			if got := fmtRows(query(t, ctx, conn, psqlViewColumns).Rows); got != want {
				t.Fatalf("view column comments after a restart:\n%s\nwant\n%s", got, want)
			}
			query(t, ctx, conn, `DROP VIEW main.v`)
			if got := tagRows(); strings.Contains(got, "live") {
				t.Fatalf("ducklake_view_column_tag after DROP VIEW:\n%s", got)
			}
			_ = srv
		})
	}
}
