package s3

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/lakepg/lakepg/storage/s3test"
	"github.com/lakepg/lakepg/test/testserver"
)

func TestMain(m *testing.M) {
	code := m.Run()
	testserver.RemoveBinary()
	os.Exit(code)
}

// lake is a lakepg process serving a lake whose data lives in a bucket.
type lake struct {
	*testserver.Server
	s3     *s3test.Server
	bucket string
	data   string // s3://bucket/lake/
}

// startLake starts the built lakepg with --data s3://bucket/lake and a
// SQLite catalog in dir, configured for srv by flags (endpoint, path style)
// and the standard AWS credential variables; extra flags follow.
func startLake(t *testing.T, srv *s3test.Server, bucket, dir string, extra ...string) *lake {
	t.Helper()
	return startLakeOn(t, srv, srv.Endpoint, bucket, dir, "sqlite:"+filepath.Join(dir, "catalog.sqlite"), extra...)
}

// startLakeOn is startLake with the catalog and the S3 endpoint given: a
// PostgreSQL catalog, or a proxy in front of srv.
func startLakeOn(t *testing.T, srv *s3test.Server, endpoint, bucket, dir, catalog string, extra ...string) *lake {
	t.Helper()
	port := testserver.FreePort(t)
	args := []string{
		"--listen", fmt.Sprintf("127.0.0.1:%d", port),
		"--catalog", catalog,
		"--data", "s3://" + bucket + "/lake",
		"--s3-endpoint", endpoint, "--s3-path-style", "--s3-region", s3test.Region,
		"--log-level", "info",
	}
	args = append(args, extra...)
	env := []string{
		"AWS_ACCESS_KEY_ID=" + srv.AccessKey, "AWS_SECRET_ACCESS_KEY=" + srv.SecretKey,
		"AWS_EC2_METADATA_DISABLED=true", "AWS_PROFILE=", "AWS_SESSION_TOKEN=",
	}
	s := testserver.Launch(t, testserver.Binary(t), dir, port, args, env)
	return &lake{Server: s, s3: srv, bucket: bucket, data: "s3://" + bucket + "/lake/"}
}

func connect(t *testing.T, l *lake) *pgx.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, l.DSN())
	if err != nil {
		t.Fatalf("connecting to lakepg: %v", err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

func mustExec(t *testing.T, c *pgx.Conn, sql string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if _, err := c.Exec(ctx, sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// rows runs a query and returns its rows as text, NULL as "NULL", cells
// joined by '|'.
func rows(t *testing.T, c *pgx.Conn, sql string) []string {
	t.Helper()
	out, err := tryRows(c, sql)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return out
}

func tryRows(c *pgx.Conn, sql string) ([]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	r, err := c.Query(ctx, sql, pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var out []string
	for r.Next() {
		vals := r.RawValues()
		cells := make([]string, len(vals))
		for i, v := range vals {
			if v == nil {
				cells[i] = "NULL"
			} else {
				cells[i] = string(v)
			}
		}
		out = append(out, strings.Join(cells, "|"))
	}
	return out, r.Err()
}

func one(t *testing.T, c *pgx.Conn, sql string) string {
	t.Helper()
	r := rows(t, c, sql)
	if len(r) != 1 {
		t.Fatalf("%s: %d rows, want 1", sql, len(r))
	}
	return r[0]
}

func wantRows(t *testing.T, c *pgx.Conn, sql string, want ...string) {
	t.Helper()
	got := rows(t, c, sql)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("%s:\n got %q\nwant %q", sql, got, want)
	}
}

// pgError returns the server's error for sql, failing the test when it
// succeeds.
func pgError(t *testing.T, c *pgx.Conn, sql string) *pgconn.PgError {
	t.Helper()
	_, err := tryRows(c, sql)
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		t.Fatalf("%s: got %v, want a server error", sql, err)
	}
	return pe
}
