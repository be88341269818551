package duckdb

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestListElementWideningLikeDuckDB: lakepg widens an array column's
// element (INTEGER[] → BIGINT[]) as DuckDB does, writing the same catalog
// rows as DuckDB's own ALTER on a twin table; DuckDB reads lakepg's table,
// old files included, as lakepg does.
func TestListElementWideningLikeDuckDB(t *testing.T) {
	lk := partLakes(t)["sqlite"](t)
	srv := lk.launch(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, srv.DSN())
	if err != nil {
		t.Fatalf("connecting to lakepg: %v", err)
	}
	defer conn.Close(context.Background())

	query(t, ctx, conn, `CALL lakepg.set_option('data_inlining_row_limit', '0')`)
	query(t, ctx, conn, `CREATE TABLE ours (id integer, a integer[])`)
	query(t, ctx, conn, `INSERT INTO ours VALUES (1, '{1,2,NULL}'), (2, NULL), (3, '{}')`)
	query(t, ctx, conn, `ALTER TABLE ours ALTER COLUMN a TYPE bigint[]`)
	query(t, ctx, conn, `INSERT INTO ours VALUES (4, '{9000000000,-1}')`)

	in := lk.duck
	in.Steps = []string{
		`CALL lk.set_option('data_inlining_row_limit', 0)`,
		`CREATE TABLE lk.public.theirs (id INTEGER, a INTEGER[])`,
		`INSERT INTO lk.public.theirs VALUES (1, [1, 2, NULL]), (2, NULL), (3, [])`,
		`ALTER TABLE lk.public.theirs ALTER COLUMN a TYPE BIGINT[]`,
		`INSERT INTO lk.public.theirs VALUES (4, [9000000000, -1])`,
	}
	in.Raw = []string{
		`SELECT list(a ORDER BY id)::VARCHAR FROM lk.public.ours`,
		`SELECT list(a ORDER BY id)::VARCHAR FROM lk.public.theirs`,
	}
	in.Queries = []duckQuery{}
	out := runDuckDB(t, in)
	if got, want := *out.Raw[0][0][0], *out.Raw[1][0][0]; got != want || !strings.Contains(got, "9000000000") {
		t.Errorf("DuckDB reads lakepg's widened array column as %s, its own as %s", got, want)
	}

	// catalog rows: the list row kept, the element row replaced, in both tables
	rows := func(table string) string {
		_, tbl, _ := catalogSchemaTable(t, lk, "public", table)
		var parts []string
		for _, c := range tbl.Columns {
			parts = append(parts, c.Name+":"+c.Type)
			for _, k := range c.Children {
				parts = append(parts, k.Name+":"+k.Type)
			}
		}
		return strings.Join(parts, ",")
	}
	if a, b := rows("ours"), rows("theirs"); a != b || !strings.Contains(a, "element:int64") {
		t.Errorf("catalog columns of lakepg's table %s, of DuckDB's %s", a, b)
	}
	got := query(t, ctx, conn, `SELECT string_agg(a::text, ';' ORDER BY id) FROM theirs`)
	want := query(t, ctx, conn, `SELECT string_agg(a::text, ';' ORDER BY id) FROM ours`)
	if g, w := fmtVal(got.Rows[0][0]), fmtVal(want.Rows[0][0]); g != w || w != "{1,2,NULL};{};{9000000000,-1}" {
		t.Errorf("lakepg reads DuckDB's widened table as %s, its own as %s", g, w)
	}
}
