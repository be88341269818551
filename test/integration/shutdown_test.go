package integration

import (
	"context"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestShutdown sends SIGTERM while a pgx session waits on its connection and a psql
// session sits idle: pgx gets FATAL 57P01, psql reports FATAL 57P01 on its next command,
// and the server exits with status 0. A second server is stopped with SIGINT the same way.
func TestShutdown(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			srv := startServer(t, t.TempDir())
			conn := srv.connect(t, pgx.QueryExecModeCacheStatement)
			mustExec(t, conn, "CREATE TABLE public.alive (id integer)")

			psql := startInteractivePsql(t, srv)
			psql.send(t, "SELECT 1 AS alive;\n")
			psql.waitStdout(t, "(1 row)")

			waitErr := make(chan error, 1)
			go func() { waitErr <- conn.PgConn().WaitForNotification(context.Background()) }()
			time.Sleep(100 * time.Millisecond) // let the session block in its read

			if code := srv.signal(t, sig); code != 0 {
				t.Errorf("lakepg exited with %v after %v, want exit status 0", srv.State(), sig)
			}
			select {
			case err := <-waitErr:
				pe := pgError(t, "the idle pgx session", err)
				if pe.Code != "57P01" || pe.Severity != "FATAL" {
					t.Errorf("idle pgx session got %s %s %q, want FATAL 57P01", pe.Severity, pe.Code, pe.Message)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("the idle pgx session got nothing within 10s of the server exiting")
			}

			psql.send(t, "SELECT 2;\n")
			code, stderr := psql.finish(t)
			if !strings.Contains(stderr, "FATAL:  57P01:") {
				t.Errorf("psql after %v: want FATAL 57P01 on stderr, exit %d, stderr:\n%s", sig, code, stderr)
			}
			if code != 2 {
				t.Errorf("psql after %v: exit %d, want 2 (connection lost)", sig, code)
			}
		})
	}
}

// interactivePsql is a psql process reading commands from a pipe, as a person at a
// terminal would send them one at a time.
type interactivePsql struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *lockedBuffer
	stderr *lockedBuffer
}

func startInteractivePsql(t *testing.T, srv *server) *interactivePsql {
	t.Helper()
	cmd := exec.Command(psqlPath(t), "-X", "-h", "127.0.0.1", "-p", strconv.Itoa(srv.Port), "-U", "test", "-d", "lake",
		"-v", "ON_ERROR_STOP=0", "-v", "VERBOSITY=verbose")
	cmd.Env = psqlEnv()
	p := &interactivePsql{cmd: cmd, stdout: &lockedBuffer{}, stderr: &lockedBuffer{}}
	cmd.Stdout = p.stdout
	cmd.Stderr = p.stderr
	var err error
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting psql: %v", err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	return p
}

func (p *interactivePsql) send(t *testing.T, s string) {
	t.Helper()
	if _, err := io.WriteString(p.stdin, s); err != nil {
		t.Fatalf("writing to psql: %v (stderr: %s)", err, p.stderr.String())
	}
}

func (p *interactivePsql) waitStdout(t *testing.T, want string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(p.stdout.String(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("psql did not print %q within 30s; stdout:\n%s\nstderr:\n%s", want, p.stdout.String(), p.stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// finish closes psql's input and waits for it to exit.
func (p *interactivePsql) finish(t *testing.T) (int, string) {
	t.Helper()
	_ = p.stdin.Close()
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(psqlTimeout):
		_ = p.cmd.Process.Kill()
		<-done
		t.Fatalf("psql did not exit within %v; stderr:\n%s", psqlTimeout, p.stderr.String())
	}
	return p.cmd.ProcessState.ExitCode(), p.stderr.String()
}

// TestConfiguration starts lakepg configured only by environment variables, and then with
// no configuration at all: the default 127.0.0.1:5433 and ./lakehouse, created on first
// start and reused after a restart.
func TestConfiguration(t *testing.T) {
	t.Run("Environment", func(t *testing.T) {
		dir := t.TempDir()
		lake := filepath.Join(dir, "envlake")
		port := freePort(t)
		srv := launch(t, dir, port, nil, []string{
			"LAKEPG_LISTEN=127.0.0.1:" + strconv.Itoa(port),
			"LAKEPG_CATALOG=sqlite:" + filepath.Join(lake, "meta.sqlite"),
			"LAKEPG_DATA=" + filepath.Join(lake, "files"),
			"LAKEPG_LOG_LEVEL=debug",
		})
		writeRows(t, srv)
		srv.stop(t)
		requireFile(t, filepath.Join(lake, "meta.sqlite"))
		requireParquetUnder(t, filepath.Join(lake, "files", "public", "cfg"))
	})

	t.Run("Defaults", func(t *testing.T) {
		if l, err := net.Listen("tcp", "127.0.0.1:5433"); err != nil {
			t.Fatalf("127.0.0.1:5433, lakepg's default address, is taken (%v): stop whatever listens there (a lakepg from `make run`?) and rerun", err)
		} else {
			l.Close()
		}
		dir := t.TempDir()
		srv := launch(t, dir, 5433, nil, nil)
		writeRows(t, srv)
		srv.stop(t)
		requireFile(t, filepath.Join(dir, "lakehouse", "catalog.sqlite"))
		requireParquetUnder(t, filepath.Join(dir, "lakehouse", "data", "public", "cfg"))

		srv = launch(t, dir, 5433, nil, nil)
		srv.expectPsql(t, "SELECT note, count(*), min(id) FROM cfg GROUP BY note ORDER BY note", text(`
 note | count | min $
------+-------+-----$
 file |    11 |   2$
 kept |     1 |   1$
(2 rows)$
$
`))
		srv.stop(t)
	})
}

// writeRows creates public.cfg through the unqualified name (search_path) with one row,
// which the catalog keeps inlined, and then eleven, more than data_inlining_row_limit (10),
// which go to a Parquet file under the data directory.
func writeRows(t *testing.T, srv *server) {
	t.Helper()
	srv.expectPsql(t, "CREATE TABLE cfg (id integer, note text)", "CREATE TABLE\n")
	srv.expectPsql(t, "INSERT INTO cfg VALUES (1, 'kept')", "INSERT 0 1\n")
	srv.expectPsql(t, "INSERT INTO cfg SELECT i, 'file' FROM generate_series(2, 12) i", "INSERT 0 11\n")
	// Table ids: main 0 and public 1 at bootstrap, cfg 2.
	srv.expectPsql(t, "SELECT changes FROM lakepg.snapshots ORDER BY snapshot_id DESC LIMIT 3", text(`
           changes            $
------------------------------$
 inserted_into_table:2$
 inlined_insert:2$
 created_table:"public"."cfg"$
(3 rows)$
$
`))
}

func requireFile(t *testing.T, path string) {
	t.Helper()
	if st, err := os.Stat(path); err != nil || st.Size() == 0 {
		t.Errorf("want a non-empty file at %s: %v", path, err)
	}
}

func requireParquetUnder(t *testing.T, dir string) {
	t.Helper()
	matches, _ := filepath.Glob(filepath.Join(dir, "ducklake-*.parquet"))
	if len(matches) != 1 {
		t.Errorf("want one ducklake-*.parquet data file in %s, found %v", dir, matches)
	}
}
