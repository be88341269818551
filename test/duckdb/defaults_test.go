package duckdb

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// Column defaults as DuckLake keeps them: initial_default is what rows
// written before the column existed read (set by CREATE TABLE and ADD
// COLUMN with a literal DEFAULT), default_value what an INSERT without the
// column writes (changed by SET/DROP DEFAULT, 'NULL' when none). DuckDB
// 1.5.5 and lakepg write the same ducklake_column rows for the same
// statements, and each reads the other's rows as it does its own.

// defaultSteps: %[1]s is the table's qualifier, %[2]s the double type.
var defaultSteps = []string{
	`CREATE TABLE %[1]st (id INTEGER DEFAULT 5, s VARCHAR DEFAULT 'x', n INTEGER, f %[2]s DEFAULT -1.5)`,
	`INSERT INTO %[1]st (n) VALUES (1)`,
	`ALTER TABLE %[1]st ADD COLUMN c INTEGER DEFAULT 42`,
	`ALTER TABLE %[1]st ADD COLUMN d VARCHAR DEFAULT 'it''s'`,
	`ALTER TABLE %[1]st ALTER COLUMN c SET DEFAULT 7`,
	`ALTER TABLE %[1]st ALTER COLUMN d DROP DEFAULT`,
	`INSERT INTO %[1]st (n) VALUES (2)`,
	`ALTER TABLE %[1]st ALTER COLUMN s SET DEFAULT 'y'`,
	`INSERT INTO %[1]st (n, id) VALUES (3, 6)`,
}

func TestColumnDefaults(t *testing.T) {
	for _, kind := range []string{"sqlite", "postgres"} {
		t.Run(kind, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			duck := newEncLake(t, kind)
			in := duck.duck
			in.Attach = duck.attach + " (DATA_PATH " + sqlString(duck.data) + ", DATA_INLINING_ROW_LIMIT 0)"
			in.Queries = []duckQuery{}
			for _, st := range defaultSteps {
				in.Steps = append(in.Steps, fmt.Sprintf(st, "lk.", "DOUBLE"))
			}
			runDuckDB(t, in)
			mine := newEncLake(t, kind)
			_, conn := mine.start(t, ctx)
			query(t, ctx, conn, `CALL lakepg.set_option('data_inlining_row_limit', '0')`)
			for _, st := range defaultSteps {
				query(t, ctx, conn, fmt.Sprintf(st, "main.", "DOUBLE PRECISION"))
			}
			cols := `SELECT column_id, begin_snapshot, end_snapshot, column_name, column_type, initial_default, default_value, nulls_allowed, default_value_type
				FROM __ducklake_metadata_lk.ducklake_column ORDER BY column_id, begin_snapshot`
			data := `SELECT n, id, s, f, c, d FROM lk.main.t ORDER BY n`
			read := func(l encLake) [][][]*string {
				in := l.duck
				in.Attach = l.attach + " (READ_ONLY)"
				in.Queries = []duckQuery{}
				in.Raw = []string{cols, data}
				return runDuckDB(t, in).Raw
			}
			theirs, ours := read(duck), read(mine)
			if fmtRows(theirs[0]) != fmtRows(ours[0]) {
				t.Fatalf("ducklake_column rows\nDuckDB %s\nlakepg %s", fmtRows(theirs[0]), fmtRows(ours[0]))
			}
			want := fmtRows([][]*string{
				{ptr("1"), ptr("5"), ptr("x"), ptr("-1.5"), ptr("42"), ptr("it's")},
				{ptr("2"), ptr("5"), ptr("x"), ptr("-1.5"), ptr("7"), nil},
				{ptr("3"), ptr("6"), ptr("y"), ptr("-1.5"), ptr("7"), nil},
			})
			if fmtRows(theirs[1]) != want || fmtRows(ours[1]) != want {
				t.Fatalf("rows read by DuckDB\nits lake %s\nlakepg's %s\nwant %s", fmtRows(theirs[1]), fmtRows(ours[1]), want)
			}
			_, duckConn := duck.start(t, ctx)
			pq := strings.Replace(data, "lk.main.t", "main.t", 1)
			for _, r := range []struct {
				name string
				rows string
			}{{"lakepg's lake", fmtRows(query(t, ctx, conn, pq).Rows)}, {"DuckDB's lake", fmtRows(query(t, ctx, duckConn, pq).Rows)}} {
				if r.rows != want {
					t.Fatalf("lakepg reading %s: %s, want %s", r.name, r.rows, want)
				}
			}
		})
	}
}
