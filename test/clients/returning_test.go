package clients

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/lakepg/lakepg/test/testserver"
)

// returningTranscript drives INSERT/UPDATE/DELETE … RETURNING through the extended
// protocol as drivers do: Parse + Describe of a prepared statement (the RowDescription of
// the RETURNING list and the parameter types, which pgJDBC's getGeneratedKeys, psycopg and
// SQLAlchemy read), execution of it, pgx's QueryRow, a pipeline whose last statement fails
// (the RETURNING rows it sent are not committed), and a portal read part-way.
func returningTranscript(t *testing.T, dsn string) []string {
	t.Helper()
	tr := startStepLog(t, dsn)
	ctx, conn, c, note, simple := tr.ctx, tr.conn, tr.conn.PgConn(), tr.note, tr.simple
	var err error
	simple(`CREATE TABLE ret (id integer, name text, price numeric(8,2) DEFAULT 1.25, made date)`)
	stmts := []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO ret (id, name) VALUES ($1, $2) RETURNING *`, []any{"1", "one"}},
		{`INSERT INTO ret (id, name, made) VALUES ($1, $2, $3) RETURNING id, name AS label, price * 2 AS twice, made`, []any{"2", "two", "2024-02-29"}},
		{`INSERT INTO ret SELECT id + 10, name, price, made FROM ret WHERE id = $1 RETURNING id`, []any{"1"}},
		{`UPDATE ret SET price = price + $1 WHERE id = $2 RETURNING *`, []any{"1.5", "2"}},
		{`UPDATE ret SET name = upper(name) WHERE id > $1 RETURNING ret.name, length(name) AS len`, []any{"100"}},
		{`DELETE FROM ret WHERE id = $1 RETURNING id, name, price`, []any{"11"}},
		{`DELETE FROM ret USING (SELECT 2 AS k) s WHERE ret.id = s.k AND ret.name = $1 RETURNING ret.id, s.k`, []any{"nobody"}},
		{`INSERT INTO ret (id) VALUES ($1) RETURNING nosuch`, []any{"5"}},
		{`UPDATE ret SET id = $1 RETURNING count(*)`, []any{"5"}},
		{`INSERT INTO ret (id, name) VALUES ($1, $2)`, []any{"3", "three"}},
	}
	for i, st := range stmts {
		name := fmt.Sprintf("s%d", i)
		sd, err := c.Prepare(ctx, name, st.sql, nil)
		if err != nil {
			note("prepare %s: %s", st.sql, errSuffix(err))
			continue
		}
		var fields []string
		for _, f := range sd.Fields {
			fields = append(fields, fmt.Sprintf("%s:%d", f.Name, f.DataTypeOID))
		}
		note("prepare %s: params %v, columns [%s]", st.sql, sd.ParamOIDs, strings.Join(fields, " "))
		args := make([][]byte, len(st.args))
		for k, a := range st.args {
			args[k] = []byte(a.(string))
		}
		r := c.ExecPrepared(ctx, name, args, nil, nil).Read()
		var rows []string
		for _, row := range r.Rows {
			rows = append(rows, rowText(row))
		}
		note("  execute: %s %s%s", r.CommandTag, strings.Join(rows, " "), errSuffix(r.Err))
	}
	// pgx: the generated key read back
	var id int32
	var name string
	err = conn.QueryRow(ctx, `INSERT INTO ret (id, name) VALUES ($1, $2) RETURNING id, name`, 7, "seven").Scan(&id, &name)
	note("QueryRow: %d %s%s", id, name, errSuffix(err))
	// a pipeline is one transaction: its RETURNING rows do not commit when a later statement fails
	b := &pgconn.Batch{}
	b.ExecParams(`INSERT INTO ret (id, name) VALUES (8, 'eight') RETURNING id`, nil, nil, nil, nil)
	b.ExecParams(`SELECT 1 / (count(*) - count(*))::int FROM ret`, nil, nil, nil, nil)
	rs, err := c.ExecBatch(ctx, b).ReadAll()
	for _, r := range rs {
		var rows []string
		for _, row := range r.Rows {
			rows = append(rows, rowText(row))
		}
		note("batch: %s %s%s", r.CommandTag, strings.Join(rows, " "), errSuffix(r.Err))
	}
	note("batch end%s", errSuffix(err))
	simple(`SELECT count(*) FROM ret WHERE id = 8`)
	// a transaction block sees what its RETURNING statements wrote
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var n int
	err = tx.QueryRow(ctx, `UPDATE ret SET price = 0 WHERE id = $1 RETURNING id`, 7).Scan(&n)
	note("tx update: %d%s", n, errSuffix(err))
	err = tx.QueryRow(ctx, `DELETE FROM ret WHERE price = 0 RETURNING id`).Scan(&n)
	note("tx delete: %d%s", n, errSuffix(err))
	note("tx rollback%s", errSuffix(tx.Rollback(ctx)))
	simple(`SELECT id, name, price, made FROM ret ORDER BY id`)
	return tr.lines
}

// stepLog records what one connection answers, a line per step, to be compared with
// PostgreSQL's transcript of the same steps.
type stepLog struct {
	ctx   context.Context
	conn  *pgx.Conn
	lines []string
}

// startStepLog connects to dsn for a transcript; the connection and its one-minute
// context end with the test.
func startStepLog(t *testing.T, dsn string) *stepLog {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return &stepLog{ctx: ctx, conn: conn}
}

func (tr *stepLog) note(format string, args ...any) {
	tr.lines = append(tr.lines, fmt.Sprintf(format, args...))
}

// simple runs sql through the simple protocol and notes its tags, rows and error.
func (tr *stepLog) simple(sql string) {
	rs, err := tr.conn.PgConn().Exec(tr.ctx, sql).ReadAll()
	var parts []string
	for _, r := range rs {
		parts = append(parts, r.CommandTag.String())
		for _, row := range r.Rows {
			parts = append(parts, rowText(row))
		}
	}
	tr.note("%s -> %s%s", sql, strings.Join(parts, " "), errSuffix(err))
}

func rowText(row [][]byte) string {
	var cells []string
	for _, v := range row {
		if v == nil {
			cells = append(cells, "NULL")
		} else {
			cells = append(cells, string(v))
		}
	}
	return "(" + strings.Join(cells, ",") + ")"
}

// TestReturningMatchesPostgres runs the transcript on PostgreSQL and on lakepg with a SQLite
// and with a PostgreSQL catalog: every line must be the same.
func TestReturningMatchesPostgres(t *testing.T) {
	want := returningTranscript(t, testserver.PostgresDatabase(t, "returning"))
	bin := testserver.Binary(t)
	lite := testserver.Start(t, bin, t.TempDir())
	dir := t.TempDir()
	port := testserver.FreePort(t)
	pgcat := testserver.Launch(t, bin, dir, port, []string{
		"--listen", fmt.Sprintf("127.0.0.1:%d", port),
		"--catalog", testserver.PostgresDatabase(t, "returning_catalog"),
		"--data", filepath.Join(dir, "data"),
	}, nil)
	for _, c := range []struct {
		name string
		srv  *testserver.Server
	}{{"sqlite catalog", lite}, {"postgres catalog", pgcat}} {
		got := returningTranscript(t, c.srv.DSN())
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: transcript differs from PostgreSQL's\nlakepg:\n%s\n\nPostgreSQL:\n%s", c.name, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}
