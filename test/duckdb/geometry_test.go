package duckdb

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestGeometry: DuckDB 1.5.5 writes GEOMETRY columns as Parquet GEOMETRY
// (WKB bytes); lakepg reads them as bytea, and what it writes to such a
// column DuckDB reads back as the same geometry. Geometry is never inlined.
func TestGeometry(t *testing.T) {
	const (
		pointWKB = `0101000000000000000000f03f0000000000000040`                                         // POINT (1 2)
		lineWKB  = `01020000000200000000000000000000000000000000000000000000000000f03f000000000000f03f` // LINESTRING (0 0, 1 1)
	)
	for _, kind := range []string{"sqlite", "postgres"} {
		t.Run(kind, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			l := newEncLake(t, kind)
			in := l.duck
			in.Attach = l.attach + " (DATA_PATH " + sqlString(l.data) + ")"
			in.Steps = []string{
				`CREATE TABLE lk.g (id INTEGER, geom GEOMETRY)`,
				`INSERT INTO lk.g VALUES (1, 'POINT(1 2)'::GEOMETRY), (2, NULL), (3, 'LINESTRING(0 0, 1 1)'::GEOMETRY)`,
				`INSERT INTO lk.g SELECT i, ('POINT(' || i || ' ' || (i * 2) || ')')::GEOMETRY FROM range(100, 600) r(i)`,
			}
			in.Queries = []duckQuery{}
			runDuckDB(t, in)

			_, conn := l.start(t, ctx)
			r := query(t, ctx, conn, `SELECT id, geom::text, pg_typeof(geom)::text FROM main.g WHERE id < 10 ORDER BY id`)
			want := fmtRows([][]*string{{ptr("1"), ptr(`\x` + pointWKB), ptr("bytea")}, {ptr("2"), nil, ptr("bytea")}, {ptr("3"), ptr(`\x` + lineWKB), ptr("bytea")}})
			if got := fmtRows(r.Rows); got != want {
				t.Fatalf("DuckDB's geometries read by lakepg:\n%s\nwant\n%s", got, want)
			}
			// POINT(i 2i): x at bytes 5..12, y at 13..20 (little-endian doubles)
			r = query(t, ctx, conn, `SELECT count(*), count(geom), sum(length(geom)) FROM main.g WHERE id >= 100`)
			if got := fmtRows(r.Rows); got != fmtRows([][]*string{{ptr("500"), ptr("500"), ptr("10500")}}) {
				t.Fatalf("DuckDB's 500 points read by lakepg: %s", got)
			}

			for _, st := range []string{
				`INSERT INTO main.g VALUES (10, '\x` + pointWKB + `'::bytea), (11, NULL), (13, '\x` + lineWKB + `')`,
				`INSERT INTO main.g SELECT id, geom FROM main.g WHERE id BETWEEN 100 AND 399`,
				`UPDATE main.g SET id = 12 WHERE id = 3`,
				`DELETE FROM main.g WHERE id BETWEEN 500 AND 549`,
			} {
				query(t, ctx, conn, st)
			}
			mine := query(t, ctx, conn, `SELECT count(*), count(geom) FROM main.g`)
			din := l.duck
			din.Attach = l.attach + " (READ_ONLY)"
			din.Queries = []duckQuery{}
			din.Raw = []string{
				`SELECT id, geom::VARCHAR FROM lk.main.g WHERE id < 20 ORDER BY id`,
				`SELECT count(*), count(geom) FROM lk.main.g`,
				`SELECT count(*) FROM lk.main.g WHERE id BETWEEN 100 AND 399 AND geom::VARCHAR = 'POINT (' || id || ' ' || (id * 2) || ')'`,
				// lakepg's files: no byte-wise bounds for the geometry column
				`SELECT count(*), count(s.min_value) FROM __ducklake_metadata_lk.ducklake_file_column_stats s
					JOIN __ducklake_metadata_lk.ducklake_column c ON c.table_id = s.table_id AND c.column_id = s.column_id AND c.end_snapshot IS NULL
					WHERE c.column_name = 'geom'`,
			}
			out := runDuckDB(t, din).Raw
			wantRows := fmtRows([][]*string{{ptr("1"), ptr("POINT (1 2)")}, {ptr("2"), nil}, {ptr("10"), ptr("POINT (1 2)")}, {ptr("11"), nil},
				{ptr("12"), ptr("LINESTRING (0 0, 1 1)")}, {ptr("13"), ptr("LINESTRING (0 0, 1 1)")}})
			if got := fmtRows(out[0]); got != wantRows {
				t.Fatalf("lakepg's geometries read by DuckDB:\n%s\nwant\n%s", got, wantRows)
			}
			if got := fmtRows(out[1]); got != fmtRows(mine.Rows) {
				t.Fatalf("counts: DuckDB %s, lakepg %s", got, fmtRows(mine.Rows))
			}
			if got := fmtRows(out[2]); got != fmtRows([][]*string{{ptr("600")}}) { // DuckDB's 300 and lakepg's copies
				t.Fatalf("points 100..399 as DuckDB reads them: %s", got)
			}
			if s := fmtRows(out[3]); !strings.Contains(s, `", "0")`) {
				t.Fatalf("geometry stats rows (all, with min_value): %s", s)
			}
		})
	}
}
