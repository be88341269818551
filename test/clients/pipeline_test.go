package clients

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/lakepg/lakepg/test/testserver"
)

// pipelineStep is one thing a client does on a fresh connection, then the test counts the
// rows of table p. Statements up to a Sync (extended protocol) or in one Query message
// (simple protocol) are one implicit transaction in PostgreSQL.
type pipelineStep struct {
	name string
	run  func(ctx context.Context, c *pgconn.PgConn) string
}

// simpleQuery sends one Query message and reports the tags and the first error.
func simpleQuery(sql string) func(ctx context.Context, c *pgconn.PgConn) string {
	return func(ctx context.Context, c *pgconn.PgConn) string {
		rs, err := c.Exec(ctx, sql).ReadAll()
		var tags []string
		for _, r := range rs {
			tags = append(tags, r.CommandTag.String())
		}
		return strings.Join(tags, ",") + errSuffix(err)
	}
}

func errSuffix(err error) string {
	if err == nil {
		return ""
	}
	return " ERROR " + sqlstate(err)
}

// batch sends the statements as one pipeline (Parse/Bind/Describe/Execute each, one Sync),
// as pgx batches and JDBC batch execution do.
func batch(sqls ...string) func(ctx context.Context, c *pgconn.PgConn) string {
	return func(ctx context.Context, c *pgconn.PgConn) string {
		b := &pgconn.Batch{}
		for _, q := range sqls {
			b.ExecParams(q, nil, nil, nil, nil)
		}
		rs, err := c.ExecBatch(ctx, b).ReadAll()
		var tags []string
		for _, r := range rs {
			tags = append(tags, r.CommandTag.String()+errSuffix(r.Err))
		}
		return strings.Join(tags, ",") + errSuffix(err)
	}
}

// leaveBeforeSync sends Parse/Bind/Execute of sql and then Terminate, never Sync.
func leaveBeforeSync(sql string) func(ctx context.Context, c *pgconn.PgConn) string {
	return func(ctx context.Context, c *pgconn.PgConn) string {
		fe := c.Frontend()
		fe.Send(&pgproto3.Parse{Query: sql})
		fe.Send(&pgproto3.Bind{})
		fe.Send(&pgproto3.Execute{})
		fe.Send(&pgproto3.Terminate{})
		if err := fe.Flush(); err != nil {
			return "ERROR " + err.Error()
		}
		c.Conn().Close()
		return "left"
	}
}

// The failing statements fail while they run, not while they are planned (PostgreSQL folds
// 1/0 at planning, before it describes the result).
var pipelineSteps = []pipelineStep{
	{"create", simpleQuery(`CREATE TABLE p (x integer)`)},
	{"two inserts then an error in one Query", simpleQuery(`INSERT INTO p VALUES (1); INSERT INTO p VALUES (2); SELECT 1 / (count(*) - count(*)) FROM p`)},
	{"two inserts in one Query", simpleQuery(`INSERT INTO p VALUES (3); INSERT INTO p VALUES (4)`)},
	{"COMMIT inside one Query", simpleQuery(`INSERT INTO p VALUES (5); COMMIT; INSERT INTO p VALUES (6); SELECT 1 / (count(*) - count(*)) FROM p`)},
	{"ROLLBACK inside one Query", simpleQuery(`INSERT INTO p VALUES (7); ROLLBACK; INSERT INTO p VALUES (8)`)},
	{"SAVEPOINT in an implicit transaction", simpleQuery(`INSERT INTO p VALUES (9); SAVEPOINT a`)},
	{"BEGIN turns it into a block, left open", simpleQuery(`INSERT INTO p VALUES (10); BEGIN; INSERT INTO p VALUES (11)`)},
	{"BEGIN … COMMIT in one Query", simpleQuery(`INSERT INTO p VALUES (12); BEGIN; INSERT INTO p VALUES (13); COMMIT`)},
	{"batch with an error last", batch(`INSERT INTO p VALUES (14)`, `UPDATE p SET x = x + 100 WHERE x = 3`, `SELECT 1 / (count(*) - count(*)) FROM p`)},
	{"batch with an error in the middle", batch(`INSERT INTO p VALUES (15)`, `SELECT 1 / (count(*) - count(*)) FROM p`, `INSERT INTO p VALUES (16)`)},
	{"batch that succeeds", batch(`INSERT INTO p VALUES (17)`, `DELETE FROM p WHERE x = 4`, `INSERT INTO p VALUES (18)`)},
	{"batch with DDL", batch(`CREATE TABLE p2 (y integer)`, `INSERT INTO p2 VALUES (1)`, `INSERT INTO p SELECT y + 18 FROM p2`, `DROP TABLE p2`)},
	{"batch with DDL and an error", batch(`CREATE TABLE p3 (y integer)`, `INSERT INTO p3 VALUES (1)`, `INSERT INTO p VALUES (1/0)`)},
	{"single extended INSERT", batch(`INSERT INTO p VALUES (20)`)},
	{"Execute then Terminate without Sync", leaveBeforeSync(`INSERT INTO p VALUES (21)`)},
	{"p3 was never created", simpleQuery(`SELECT * FROM p3`)},
}

// pipelineTranscript runs the steps, each on a new connection, and after each writes what
// it answered and the rows of p.
func pipelineTranscript(t *testing.T, dsn string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out []string
	for _, st := range pipelineSteps {
		c, err := pgconn.Connect(ctx, dsn)
		if err != nil {
			t.Fatalf("connect: %v", err)
		}
		got := st.run(ctx, c)
		c.Close(ctx)
		// the server ends a session whose client left at its own pace
		var rows string
		for range 50 {
			rows = rowsOf(t, ctx, dsn, "p")
			if !strings.Contains(got, "left") || !strings.Contains(rows, "21") {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		out = append(out, fmt.Sprintf("%s: %s → p = %s", st.name, got, rows))
	}
	return out
}

// rowsOf lists column x of table, ordered.
func rowsOf(t *testing.T, ctx context.Context, dsn, table string) string {
	t.Helper()
	c, err := pgconn.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer c.Close(ctx)
	rs, err := c.Exec(ctx, `SELECT x FROM `+table+` ORDER BY x`).ReadAll()
	if err != nil {
		return "ERROR " + sqlstate(err)
	}
	var xs []string
	for _, r := range rs[0].Rows {
		xs = append(xs, string(r[0]))
	}
	return "[" + strings.Join(xs, " ") + "]"
}

// sameAsPostgres runs transcript on a database of the test PostgreSQL and on a new
// lakepg, and wants the same lines; it returns the lakepg server.
func sameAsPostgres(t *testing.T, name string, transcript func(*testing.T, string) []string) *testserver.Server {
	t.Helper()
	want := transcript(t, testserver.PostgresDatabase(t, name))
	srv := testserver.Start(t, testserver.Binary(t), t.TempDir())
	got := transcript(t, srv.DSN())
	if !slices.Equal(got, want) {
		t.Errorf("lakepg and PostgreSQL differ:\nlakepg:\n  %s\nPostgreSQL:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	return srv
}

// TestImplicitTransactionsMatchPostgres: batches in one Query message and pipelines up to a
// Sync commit together or not at all, and a client that leaves before Sync commits
// nothing, on lakepg as on PostgreSQL. A single small INSERT is still inlined into the
// catalog.
func TestImplicitTransactionsMatchPostgres(t *testing.T) {
	srv := sameAsPostgres(t, "pipeline", pipelineTranscript)
	// a single INSERT over the extended protocol commits at once, inlined as ever
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	exec1(t, srv.DSN(), `CREATE TABLE solo (x integer)`)
	c, err := pgconn.Connect(ctx, srv.DSN())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	if _, err := c.ExecParams(ctx, `INSERT INTO solo VALUES ($1)`, [][]byte{[]byte("1")}, nil, nil, nil).Close(); err != nil {
		t.Fatal(err)
	}
	var files []string
	filepath.WalkDir(filepath.Join(srv.Dir, "data"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.Contains(p, "solo") {
			files = append(files, p)
		}
		return nil
	})
	if len(files) != 0 {
		t.Errorf("a single small INSERT wrote %q, want its row inlined", files)
	}
}
