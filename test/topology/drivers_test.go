//go:build linux

package topology

import (
	"context"
	"fmt"
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

// runClient runs a client program and returns its output, failing the test
// when it exits non-zero.
func runClient(t *testing.T, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = os.Environ()
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// ledger parses the "acked ID..." and "rolledback ID..." lines of a client.
func ledger(t *testing.T, out string) (acked, rolled map[int64]bool) {
	t.Helper()
	acked, rolled = map[int64]bool{}, map[int64]bool{}
	found := 0
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || f[0] != "acked" && f[0] != "rolledback" {
			continue
		}
		found++
		m := acked
		if f[0] == "rolledback" {
			m = rolled
		}
		for _, s := range f[1:] {
			id, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				t.Fatalf("bad id %q in %q", s, line)
			}
			m[id] = true
		}
	}
	if found != 2 || len(acked) == 0 {
		t.Fatalf("no ledger in the client's output:\n%s", out)
	}
	return acked, rolled
}

// testDrivers: psycopg 3 and pgJDBC through PgBouncer, each in the pooling
// modes with the settings their documentation gives for PgBouncer; what
// they were told was committed is on both servers, what they rolled back is
// not.
func testDrivers(t *testing.T, c *cluster) {
	exec1(t, c.pool(poolServer1, appUser, appPassword), "CREATE TABLE drv (id bigint, client text)")
	want, gone := map[int64]bool{}, map[int64]bool{}
	add := func(out string) {
		a, r := ledger(t, out)
		for id := range a {
			want[id] = true
		}
		for id := range r {
			gone[id] = true
		}
	}

	if err := exec.Command("python3", "-c", "import psycopg").Run(); err != nil {
		t.Fatal("psycopg 3 is missing: scripts/test.sh installs it (pip install psycopg==3.3.9 psycopg-binary==3.3.9)")
	}
	add(runClient(t, "python3", filepath.Join("testdata", "psycopg_pool.py"),
		c.pool(poolSingle, appUser, appPassword), c.pool(poolTransaction, appUser, appPassword), "1000000"))

	jar := os.Getenv("LAKEPG_TEST_PGJDBC_JAR")
	if jar == "" {
		home, _ := os.UserHomeDir()
		jar = filepath.Join(home, ".m2", "repository", "org", "postgresql", "postgresql", "42.7.14", "postgresql-42.7.14.jar")
	}
	if !fileExists(jar) {
		t.Fatalf("pgJDBC (%s) is missing: scripts/test.sh fetches it", jar)
	}
	if _, err := exec.LookPath("java"); err != nil {
		t.Fatal("java is missing: scripts/test.sh installs it (apt-get install default-jdk-headless)")
	}
	url := func(db string) string {
		return fmt.Sprintf("jdbc:postgresql://127.0.0.1:%d/%s?user=%s&password=%s&sslmode=disable",
			c.bouncer, db, appUser, strings.ReplaceAll(appPassword, " ", "%20"))
	}
	add(runClient(t, "java", "-cp", jar, filepath.Join("testdata", "JdbcPool.java"),
		url(poolSingle), url(poolTransaction), "2000000"))

	for _, p := range []string{poolServer1, poolServer2} {
		checkRows(t, c.pool(p, adminUser, adminPassword), "SELECT id FROM drv", want, gone)
	}
}

// testCancel: a client's cancel request goes to PgBouncer, which passes it
// on with the key of the lakepg session running the client's query, over a
// new connection that its round robin (or HAProxy's) sends to either
// server: the one without the session relays it to its peers (--peers).
// Each time the query ends with 57014 and the client carries on.
func testCancel(t *testing.T, c *cluster) {
	// twice through each balanced pool: round robin sends one of the two
	// cancel connections to the other server
	for _, pool := range []string{poolServer2, poolTransaction, poolTransaction, poolHAProxy, poolHAProxy} {
		ctx := context.Background()
		conn, err := connect(ctx, c.pool(pool, appUser, appPassword), &modeExec)
		must(t, "connect", err)
		go func() {
			time.Sleep(300 * time.Millisecond)
			cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			_ = conn.PgConn().CancelRequest(cctx)
		}()
		start := time.Now()
		qctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		var n int64
		err = conn.QueryRow(qctx, "SELECT count(*) FROM generate_series(1, 100000) a, generate_series(1, 100000) b").Scan(&n)
		cancel()
		if sqlState(err) != "57014" {
			t.Errorf("%s: a cancelled query: %v (count %d) after %v, want SQLSTATE 57014", pool, err, n, time.Since(start))
			conn.Close(ctx)
			continue
		}
		want(t, conn, "SELECT count(*) FROM kv", int64(4))
		conn.Close(ctx)
	}
}

// testFailover: with server 2 stopped, HAProxy's health check takes it out
// and the next transactions through the pool behind HAProxy all run on
// server 1. (PgBouncer's own host list, as its documentation says, has no
// such check: its round-robin pools would keep trying the stopped server.)
func testFailover(t *testing.T, c *cluster) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	exec1(t, c.pool(poolServer1, appUser, appPassword), "CREATE TABLE fo (id int)")
	c.lakepgs[1].stop()
	// HAProxy checks every 200 ms and takes a server out at the first failure
	time.Sleep(time.Second)
	for i := 0; i < 20; i++ {
		conn, err := connect(ctx, c.pool(poolHAProxy, appUser, appPassword), &modeExec)
		must(t, fmt.Sprintf("connection %d through HAProxy", i), err)
		err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, "INSERT INTO fo VALUES ($1)", i); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, "INSERT INTO fo VALUES ($1)", 100+i)
			return err
		})
		must(t, fmt.Sprintf("transaction %d through HAProxy with server 2 down", i), err)
		want(t, conn, "SELECT count(*) FROM fo", int64(2*(i+1)))
		conn.Close(ctx)
	}
}
