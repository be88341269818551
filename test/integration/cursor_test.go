package integration

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/lakepg/lakepg/test/testserver"
)

// TestCursorsPgx declares cursors and fetches from them with pgx in every query mode, as
// Tableau and psqlODBC do: inside BEGIN ... COMMIT, in batches until a FETCH comes back
// short, WITH HOLD across COMMIT, with parameters.
func TestCursorsPgx(t *testing.T) {
	srv := startServer(t, t.TempDir())
	setup := srv.connect(t, pgx.QueryExecModeSimpleProtocol)
	mustExec(t, setup, "CREATE TABLE cur AS SELECT g AS id, 'name ' || g::text AS name, g * 0.5 AS half FROM generate_series(1, 10000) g")

	for _, mode := range pgxModes {
		t.Run(mode.String(), func(t *testing.T) {
			ctx := testCtx(t)
			conn := srv.connect(t, mode)
			_, err := conn.Exec(ctx, "DECLARE c CURSOR FOR SELECT id FROM cur")
			if pe := pgError(t, "DECLARE outside a transaction", err); pe.Code != "25P01" || pe.Message != "DECLARE CURSOR can only be used in transaction blocks" {
				t.Errorf("DECLARE outside a transaction: %s %q", pe.Code, pe.Message)
			}

			tx, err := conn.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if tag := mustExecTx(t, tx, "DECLARE c NO SCROLL CURSOR WITHOUT HOLD FOR SELECT id, name, half FROM cur WHERE id > $1 ORDER BY id", 10); tag != "DECLARE CURSOR" {
				t.Errorf("DECLARE tag %q", tag)
			}
			next := int64(11)
			batches := 0
			for {
				rows, err := tx.Query(ctx, "FETCH FORWARD 1000 FROM c")
				if err != nil {
					t.Fatal(err)
				}
				n := 0
				for rows.Next() {
					var id int64
					var name string
					var half float64
					if err := rows.Scan(&id, &name, &half); err != nil {
						t.Fatal(err)
					}
					if id != next || name != "name "+strconv.FormatInt(id, 10) || half != float64(id)/2 {
						t.Fatalf("row %d: got %d %q %v", next, id, name, half)
					}
					next++
					n++
				}
				if err := rows.Err(); err != nil {
					t.Fatal(err)
				}
				if want := fmt.Sprintf("FETCH %d", n); rows.CommandTag().String() != want {
					t.Errorf("tag %q, want %q", rows.CommandTag(), want)
				}
				batches++
				if n < 1000 {
					break
				}
			}
			if next != 10001 || batches != 10 {
				t.Errorf("fetched up to %d in %d batches, want 10000 in 10", next-1, batches)
			}
			if tag := mustExecTx(t, tx, "CLOSE c"); tag != "CLOSE CURSOR" {
				t.Errorf("CLOSE tag %q", tag)
			}
			mustExecTx(t, tx, "DECLARE h CURSOR WITH HOLD FOR SELECT id FROM cur WHERE id % 1000 = 0 ORDER BY id")
			mustExecTx(t, tx, "DECLARE gone CURSOR FOR SELECT 1")
			if tag := mustExecTx(t, tx, "MOVE 3 IN h"); tag != "MOVE 3" {
				t.Errorf("MOVE tag %q", tag)
			}
			if err := tx.Commit(ctx); err != nil {
				t.Fatal(err)
			}
			_, err = conn.Exec(ctx, "FETCH gone")
			if pe := pgError(t, "FETCH after COMMIT", err); pe.Code != "34000" {
				t.Errorf("cursor without hold after COMMIT: %s %q, want 34000", pe.Code, pe.Message)
			}
			rows, _ := conn.Query(ctx, "FETCH ALL FROM h")
			ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
			if err != nil || fmt.Sprint(ids) != "[4000 5000 6000 7000 8000 9000 10000]" {
				t.Errorf("WITH HOLD cursor after COMMIT: %v %v", ids, err)
			}
			mustExec(t, conn, "CLOSE ALL")
		})
	}
}

func mustExecTx(t *testing.T, tx pgx.Tx, sql string, args ...any) string {
	t.Helper()
	tag, err := tx.Exec(testCtx(t), sql, args...)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return tag.String()
}

// TestBinaryCursorSimpleProtocol fetches from a BINARY cursor in the simple protocol: the
// rows arrive in binary format and pgx decodes them from the RowDescription's format codes.
func TestBinaryCursorSimpleProtocol(t *testing.T) {
	srv := startServer(t, t.TempDir())
	conn := srv.connect(t, pgx.QueryExecModeSimpleProtocol)
	ctx := testCtx(t)
	mustExec(t, conn, "CREATE TABLE bc (i integer, t text, ts timestamp, n numeric(10,2))")
	mustExec(t, conn, "INSERT INTO bc VALUES (1, 'one', '2024-02-29 12:34:56.5', 12.50), (2, NULL, NULL, -0.01)")
	mustExec(t, conn, "DECLARE b BINARY CURSOR WITH HOLD FOR SELECT i, t, ts, n::text FROM bc ORDER BY i")
	rows, err := conn.Query(ctx, "FETCH 2 FROM b")
	if err != nil {
		t.Fatal(err)
	}
	for _, fd := range rows.FieldDescriptions() {
		if fd.Format != 1 {
			t.Errorf("column %s has format %d, want 1 (binary)", fd.Name, fd.Format)
		}
	}
	var got []string
	for rows.Next() {
		var i int32
		var s, n *string
		var ts *time.Time
		if err := rows.Scan(&i, &s, &ts, &n); err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%d %v %v %v", i, deref(s), ts, deref(n)))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	want := []string{"1 one 2024-02-29 12:34:56.5 +0000 UTC 12.50", "2 <nil> <nil> -0.01"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("binary FETCH:\n got  %q\n want %q", got, want)
	}
}

func deref(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}

// cursorScript exercises DECLARE, FETCH, MOVE and CLOSE the way psql users and psql's own
// FETCH_COUNT do; lakepg must print exactly what PostgreSQL prints.
const cursorScript = `CREATE TABLE cur AS SELECT g AS id, 'name ' || g::text AS name FROM generate_series(1, 2000) g;
DECLARE c CURSOR FOR SELECT 1;
BEGIN;
DECLARE c NO SCROLL CURSOR FOR SELECT id, name FROM cur WHERE id % 7 = 0 ORDER BY id;
FETCH 3 FROM c;
FETCH FORWARD 2 IN c;
MOVE 10 IN c;
FETCH NEXT FROM c;
FETCH ABSOLUTE 100 FROM c;
FETCH RELATIVE 3 FROM c;
MOVE FORWARD ALL IN c;
FETCH c;
FETCH 5 c;
CLOSE c;
DECLARE h CURSOR WITH HOLD FOR SELECT count(*), sum(id) FROM cur;
DECLARE c2 CURSOR FOR SELECT id FROM cur ORDER BY id DESC;
FETCH 2 FROM c2;
COMMIT;
FETCH c2;
FETCH ALL FROM h;
FETCH ALL FROM h;
CLOSE h;
CLOSE h;
BEGIN;
DECLARE r CURSOR WITH HOLD FOR SELECT 1;
ROLLBACK;
FETCH r;
BEGIN;
DECLARE a CURSOR FOR SELECT 1;
DECLARE a CURSOR FOR SELECT 2;
ROLLBACK;
CLOSE ALL;
\set FETCH_COUNT 100
SELECT id, name FROM cur WHERE id > 1750 ORDER BY id;
SELECT count(*) FROM cur;
`

// TestCursorsPsqlMatchPostgres runs cursorScript with psql against lakepg and PostgreSQL.
func TestCursorsPsqlMatchPostgres(t *testing.T) {
	pgDSN := testserver.PostgresDatabase(t, "cursors")
	srv := startServer(t, t.TempDir())
	f := filepath.Join(t.TempDir(), "cursors.sql")
	if err := os.WriteFile(f, []byte(cursorScript), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (string, string) {
		cmd := exec.Command(psqlPath(t), append([]string{"-X", "-v", "VERBOSITY=sqlstate", "-f", f}, args...)...)
		cmd.Env = psqlEnv()
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("psql: %v\n%s", err, stderr.String())
		}
		return stdout.String(), stderr.String()
	}
	wantOut, wantErr := run("-d", pgDSN)
	gotOut, gotErr := run("-h", "127.0.0.1", "-p", strconv.Itoa(srv.Port), "-U", "test", "-d", "lake")
	checkText(t, "psql cursor script (stdout)", gotOut, wantOut)
	checkText(t, "psql cursor script (stderr)", gotErr, wantErr)
}
