package clients

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/lakepg/lakepg/test/testserver"
)

// upsertTranscript drives INSERT … ON CONFLICT and MERGE as drivers do: prepared
// statements (the parameter types and RETURNING columns of Describe), pgx's QueryRow
// reading back a generated id, pipelines (one transaction up to Sync: a later failure
// undoes an earlier upsert) and a transaction block.
func upsertTranscript(t *testing.T, dsn string) []string {
	t.Helper()
	tr := startStepLog(t, dsn)
	ctx, conn, c, note, simple := tr.ctx, tr.conn, tr.conn.PgConn(), tr.note, tr.simple
	var err error
	simple(`CREATE TABLE acct (id serial PRIMARY KEY, email text UNIQUE, visits integer NOT NULL DEFAULT 1, note text)`)
	stmts := []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO acct (email) VALUES ($1) ON CONFLICT (email) DO UPDATE SET visits = acct.visits + $2 RETURNING id, visits`, []any{"a@x", "1"}},
		{`INSERT INTO acct (email) VALUES ($1) ON CONFLICT (email) DO UPDATE SET visits = acct.visits + $2 RETURNING id, visits`, []any{"a@x", "5"}},
		{`INSERT INTO acct (email, note) VALUES ($1, $2) ON CONFLICT DO NOTHING`, []any{"a@x", "dup"}},
		{`INSERT INTO acct (email, note) VALUES ($1, $2) ON CONFLICT (email) DO UPDATE SET note = excluded.note WHERE acct.visits > $3 RETURNING email, note`, []any{"a@x", "busy", "3"}},
		{`MERGE INTO acct a USING (SELECT $1::text AS email, $2::int AS v) s ON a.email = s.email WHEN MATCHED THEN UPDATE SET visits = s.v WHEN NOT MATCHED THEN INSERT (email, visits) VALUES (s.email, s.v)`, []any{"b@x", "9"}},
		{`MERGE INTO acct a USING (SELECT $1::text AS email) s ON a.email = s.email WHEN MATCHED THEN DELETE`, []any{"b@x"}},
		{`INSERT INTO acct (email) VALUES ($1), ($1) ON CONFLICT (email) DO UPDATE SET visits = 0`, []any{"c@x"}},
	}
	for i, st := range stmts {
		name := fmt.Sprintf("u%d", i)
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
	var id, visits int32
	err = conn.QueryRow(ctx, `INSERT INTO acct (email) VALUES ($1) ON CONFLICT (email) DO UPDATE SET visits = acct.visits + 1 RETURNING id, visits`, "d@x").Scan(&id, &visits)
	note("QueryRow: %d %d%s", id, visits, errSuffix(err))
	// a pipeline is one transaction: the upsert and the merge are undone by the failure after them
	b := &pgconn.Batch{}
	b.ExecParams(`INSERT INTO acct (email) VALUES ('e@x'), ('a@x') ON CONFLICT (email) DO UPDATE SET visits = 100`, nil, nil, nil, nil)
	b.ExecParams(`MERGE INTO acct USING (VALUES ('d@x')) s(email) ON acct.email = s.email WHEN MATCHED THEN DELETE`, nil, nil, nil, nil)
	b.ExecParams(`SELECT 1 / (count(*) - count(*))::int FROM acct`, nil, nil, nil, nil)
	rs, err := c.ExecBatch(ctx, b).ReadAll()
	for _, r := range rs {
		note("batch: %s%s", r.CommandTag, errSuffix(r.Err))
	}
	note("batch end%s", errSuffix(err))
	// and committed together when none fails
	b = &pgconn.Batch{}
	b.ExecParams(`INSERT INTO acct (email) VALUES ('f@x') ON CONFLICT DO NOTHING`, nil, nil, nil, nil)
	b.ExecParams(`INSERT INTO acct (email) VALUES ('f@x') ON CONFLICT (email) DO UPDATE SET visits = acct.visits + 1`, nil, nil, nil, nil)
	b.ExecParams(`MERGE INTO acct USING (VALUES ('a@x'), ('h@x')) s(email) ON acct.email = s.email WHEN MATCHED THEN UPDATE SET note = 'merged' WHEN NOT MATCHED THEN INSERT (email) VALUES (s.email)`, nil, nil, nil, nil)
	b.ExecParams(`MERGE INTO acct USING (VALUES ('f@x')) s(email) ON acct.email = s.email WHEN MATCHED THEN UPDATE SET note = 'merged too'`, nil, nil, nil, nil)
	rs, err = c.ExecBatch(ctx, b).ReadAll()
	for _, r := range rs {
		note("batch: %s%s", r.CommandTag, errSuffix(r.Err))
	}
	note("batch end%s", errSuffix(err))
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, err = tx.Exec(ctx, `INSERT INTO acct (email) VALUES ('g@x') ON CONFLICT (email) DO NOTHING`)
	note("tx insert%s", errSuffix(err))
	err = tx.QueryRow(ctx, `INSERT INTO acct (email) VALUES ('g@x') ON CONFLICT (email) DO UPDATE SET visits = 7 RETURNING visits`).Scan(&visits)
	note("tx upsert: %d%s", visits, errSuffix(err))
	note("tx commit%s", errSuffix(tx.Commit(ctx)))
	simple(`SELECT id, email, visits, note FROM acct ORDER BY id`)
	return tr.lines
}

// TestUpsertMatchesPostgres runs the transcript on PostgreSQL and on lakepg with a SQLite
// and with a PostgreSQL catalog: every line must be the same.
func TestUpsertMatchesPostgres(t *testing.T) {
	want := upsertTranscript(t, testserver.PostgresDatabase(t, "upsert"))
	bin := testserver.Binary(t)
	lite := testserver.Start(t, bin, t.TempDir())
	dir := t.TempDir()
	port := testserver.FreePort(t)
	pgcat := testserver.Launch(t, bin, dir, port, []string{
		"--listen", fmt.Sprintf("127.0.0.1:%d", port),
		"--catalog", testserver.PostgresDatabase(t, "upsert_catalog"),
		"--data", filepath.Join(dir, "data"),
	}, nil)
	for _, c := range []struct {
		name string
		srv  *testserver.Server
	}{{"sqlite catalog", lite}, {"postgres catalog", pgcat}} {
		got := upsertTranscript(t, c.srv.DSN())
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: transcript differs from PostgreSQL's\nlakepg:\n%s\n\nPostgreSQL:\n%s", c.name, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}
