package integration

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/lakepg/lakepg/test/testserver"
)

const (
	psqlTimeout = 2 * time.Minute
	testTimeout = 10 * time.Minute
)

// server is one running lakepg process on a loopback port (test/testserver starts, watches
// and stops it; the methods here are the psql and pgx helpers of this package).
type server struct {
	*testserver.Server
}

// startServer starts lakepg on a free loopback port with its lake in dir
// (catalog dir/catalog.sqlite, data files under dir/data), configured by flags, and waits
// until it accepts PostgreSQL connections.
func startServer(t *testing.T, dir string) *server {
	t.Helper()
	return &server{testserver.Start(t, lakepgBin, dir)}
}

// launch starts the binary with args and extra environment in dir and waits until a
// PostgreSQL start-up on port succeeds. The process is killed at the end of the test if it
// is still running, and its output is logged when the test failed.
func launch(t *testing.T, dir string, port int, args, env []string) *server {
	t.Helper()
	return &server{testserver.Launch(t, lakepgBin, dir, port, args, env)}
}

// signal sends sig and waits for the process to exit; it returns the exit code
// (-1 when a signal killed it).
func (s *server) signal(t *testing.T, sig os.Signal) int {
	t.Helper()
	return s.Signal(t, sig)
}

// stop shuts the server down with SIGTERM and requires exit status 0.
func (s *server) stop(t *testing.T) {
	t.Helper()
	s.Stop(t)
}

func (s *server) addr() string { return s.Addr() }

// dsn is a pgx/libpq connection string for user "test", database "lake".
func (s *server) dsn() string { return s.DSN() }

func freePort(t *testing.T) int {
	t.Helper()
	return testserver.FreePort(t)
}

// cleanEnv is the test process environment without PostgreSQL client and lakepg settings,
// so a developer's shell cannot change what the tests see.
func cleanEnv() []string { return testserver.CleanEnv() }

// ---- psql ----

type psqlResult struct {
	stdout, stderr string
	code           int
}

func psqlPath(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("psql")
	if err != nil {
		t.Fatalf("psql is not installed (Debian package postgresql-client); scripts/test.sh installs it: %v", err)
	}
	return p
}

// psql runs `psql -X -h 127.0.0.1 -p PORT -U test -d lake -v ON_ERROR_STOP=0
// -v VERBOSITY=verbose ARGS...` with TimeZone UTC and UTF8 client encoding. VERBOSITY=verbose
// makes psql print the SQLSTATE of every error ("ERROR:  42P01: ...").
func (s *server) psql(t *testing.T, args ...string) psqlResult {
	t.Helper()
	base := []string{"-X", "-h", "127.0.0.1", "-p", strconv.Itoa(s.Port), "-U", "test", "-d", "lake",
		"-v", "ON_ERROR_STOP=0", "-v", "VERBOSITY=verbose"}
	ctx, cancel := context.WithTimeout(context.Background(), psqlTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, psqlPath(t), append(base, args...)...)
	cmd.Env = psqlEnv()
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	err := cmd.Run()
	res := psqlResult{stdout: stdout.String(), stderr: stderr.String()}
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ctx.Err() != nil {
			t.Fatalf("psql %q: %v (stderr: %s)", args, err, stderr.String())
		}
		res.code = ee.ExitCode()
	}
	return res
}

func psqlEnv() []string {
	return append(cleanEnv(), "PGTZ=UTC", "PGCLIENTENCODING=UTF8", "PGCONNECT_TIMEOUT=10")
}

// psqlC runs one `-c` command.
func (s *server) psqlC(t *testing.T, sql string) psqlResult {
	t.Helper()
	return s.psql(t, "-c", sql)
}

// psqlScript writes script to a file and runs it with -f: psql sends each statement on its
// own, prints every result and command tag to stdout and every error to stderr prefixed
// with "psql:FILE:LINE: ".
func (s *server) psqlScript(t *testing.T, script string) psqlResult {
	t.Helper()
	f := filepath.Join(t.TempDir(), "script.sql")
	if err := os.WriteFile(f, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	return s.psql(t, "-f", f)
}

// mustPsql runs one -c command that must succeed without any message on stderr and returns
// its stdout.
func (s *server) mustPsql(t *testing.T, sql string) string {
	t.Helper()
	r := s.psqlC(t, sql)
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("psql -c %q: exit %d\nstderr:\n%s\nstdout:\n%s", sql, r.code, r.stderr, r.stdout)
	}
	return r.stdout
}

// psqlValue runs one command with -At (unaligned, tuples only) that must succeed and
// returns its output without the final newline.
func (s *server) psqlValue(t *testing.T, sql string) string {
	t.Helper()
	r := s.psql(t, "-At", "-c", sql)
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("psql -At -c %q: exit %d\nstderr:\n%s", sql, r.code, r.stderr)
	}
	return strings.TrimSuffix(r.stdout, "\n")
}

// expectPsql runs one -c command that must succeed and print exactly want.
func (s *server) expectPsql(t *testing.T, sql, want string) {
	t.Helper()
	checkText(t, "psql -c "+strconv.Quote(sql), s.mustPsql(t, sql), want)
}

// expectPsqlError runs one -c command that must fail with SQLSTATE code.
func (s *server) expectPsqlError(t *testing.T, sql, code string) psqlResult {
	t.Helper()
	r := s.psqlC(t, sql)
	if r.code == 0 || !strings.Contains(r.stderr, "ERROR:  "+code+":") {
		t.Errorf("psql -c %q: want an ERROR with SQLSTATE %s; exit %d\nstderr:\n%s\nstdout:\n%s",
			sql, code, r.code, r.stderr, r.stdout)
	}
	return r
}

// ---- pgx ----

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	t.Cleanup(cancel)
	return ctx
}

// connect opens a pgx connection (TimeZone UTC) that uses mode by default and is closed at
// the end of the test.
func (s *server) connect(t *testing.T, mode pgx.QueryExecMode) *pgx.Conn {
	t.Helper()
	cfg, err := pgx.ParseConfig(s.dsn())
	if err != nil {
		t.Fatal(err)
	}
	cfg.DefaultQueryExecMode = mode
	cfg.RuntimeParams["timezone"] = "UTC"
	cfg.RuntimeParams["application_name"] = "lakepg-integration"
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatalf("pgx connect to %s (%v): %v", s.addr(), mode, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = conn.Close(ctx)
	})
	return conn
}

// pgxModes are the query modes every protocol test runs in: the simple protocol, pgx's
// default extended protocol (named prepared statements, binary formats where pgx knows the
// type) and the extended protocol with unnamed statements and text formats.
var pgxModes = []pgx.QueryExecMode{
	pgx.QueryExecModeSimpleProtocol,
	pgx.QueryExecModeCacheStatement,
	pgx.QueryExecModeExec,
}

func mustExec(t *testing.T, conn *pgx.Conn, sql string, args ...any) pgconn.CommandTag {
	t.Helper()
	tag, err := conn.Exec(testCtx(t), sql, args...)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return tag
}

// queryInt runs a query that returns one integer.
func queryInt(t *testing.T, conn *pgx.Conn, sql string, args ...any) int64 {
	t.Helper()
	var n int64
	if err := conn.QueryRow(testCtx(t), sql, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

// snapshotCount is the number of rows in lakepg.snapshots.
func snapshotCount(t *testing.T, conn *pgx.Conn) int64 {
	t.Helper()
	return queryInt(t, conn, "SELECT count(*) FROM lakepg.snapshots")
}

// pgError returns err as a *pgconn.PgError or fails the test.
func pgError(t *testing.T, what string, err error) *pgconn.PgError {
	t.Helper()
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		t.Fatalf("%s: want a PostgreSQL error, got %v", what, err)
	}
	return pe
}

// ---- text comparison ----

// text turns an expected-output literal into the exact text: the literal starts with a
// newline (dropped), and each line may end in a '$' marker (dropped), so that trailing
// blanks of psql's aligned output stay visible in the source, as with `cat -A`.
func text(s string) string {
	s = strings.TrimPrefix(s, "\n")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "$")
	}
	return strings.Join(lines, "\n")
}

// checkText reports a mismatch with both texts shown line by line with '$' at each end
// of line, and the first differing line.
func checkText(t *testing.T, what, got, want string) {
	t.Helper()
	if got == want {
		return
	}
	gl, wl := strings.Split(got, "\n"), strings.Split(want, "\n")
	first := 0
	for first < len(gl) && first < len(wl) && gl[first] == wl[first] {
		first++
	}
	t.Errorf("%s: output differs from line %d\n--- got:\n%s\n--- want:\n%s", what, first+1, showEOL(got), showEOL(want))
}

func showEOL(s string) string {
	return strings.ReplaceAll(s, "\n", "$\n")
}

// ---- process output ----

type lockedBuffer = testserver.LockedBuffer
