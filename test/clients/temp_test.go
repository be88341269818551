package clients

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestTempTablesPerConnection: two connections each create a temporary table of the same
// name with different rows (one through COPY FROM STDIN, as loaders stage data) and read
// their own; a lake table of that name stays shadowed for both; once a connection closes, a
// new one sees no temporary table of it, and the other keeps its own.
func TestTempTablesPerConnection(t *testing.T) {
	s := lakeServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	a, b := connect(t, s.DSN()), connect(t, s.DSN())
	mustExec := func(c *pgx.Conn, sql string, args ...any) {
		t.Helper()
		if _, err := c.Exec(ctx, sql, args...); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	ids := func(c *pgx.Conn, sql string) string {
		t.Helper()
		rows, err := c.Query(ctx, sql)
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		vals, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		return fmt.Sprint(vals)
	}
	mustExec(a, `CREATE TABLE stage (id integer, who text)`)
	mustExec(a, `INSERT INTO stage VALUES (0, 'lake')`)
	mustExec(a, `CREATE TEMP TABLE stage (id integer, who text)`)
	mustExec(b, `CREATE TEMPORARY TABLE stage (id integer, who text) ON COMMIT PRESERVE ROWS`)
	mustExec(a, `INSERT INTO stage VALUES ($1, $2), ($3, $4)`, 1, "a", 2, "a")
	n, err := b.PgConn().CopyFrom(ctx, strings.NewReader("10\tb\n11\tb\n12\tb\n"), `COPY stage FROM STDIN`)
	if err != nil || n.RowsAffected() != 3 {
		t.Fatalf("COPY into the temporary table: %v %v", n, err)
	}
	if got := ids(a, `SELECT id::text || who FROM stage ORDER BY id`); got != "[1a 2a]" {
		t.Errorf("connection a reads %s", got)
	}
	if got := ids(b, `SELECT id::text || who FROM stage ORDER BY id`); got != "[10b 11b 12b]" {
		t.Errorf("connection b reads %s", got)
	}
	if got := ids(b, `SELECT id::text || who FROM public.stage`); got != "[0lake]" {
		t.Errorf("the lake table: %s", got)
	}
	// prepared statements over the extended protocol see the same table
	if got := ids(a, `SELECT who FROM stage WHERE id = 2`); got != "[a]" {
		t.Errorf("prepared read: %s", got)
	}
	if err := a.Close(ctx); err != nil {
		t.Fatal(err)
	}
	c := connect(t, s.DSN())
	if got := ids(c, `SELECT id::text || who FROM stage`); got != "[0lake]" {
		t.Errorf("a new connection reads %s, want the lake table only", got)
	}
	if got := ids(c, `SELECT count(*)::text FROM pg_class WHERE relpersistence = 't'`); got != "[0]" {
		t.Errorf("a new connection's pg_class has temporary tables: %s", got)
	}
	if got := ids(b, `SELECT count(*)::text FROM stage`); got != "[3]" {
		t.Errorf("connection b after a closed: %s", got)
	}
	if err := b.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if got := ids(c, `SELECT count(*)::text FROM pg_namespace WHERE nspname LIKE 'pg_temp%'`); got != "[0]" {
		t.Errorf("temporary schemas left: %s", got)
	}
}
