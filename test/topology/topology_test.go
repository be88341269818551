//go:build linux

package topology

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// workload is how long each concurrent part writes: short by default (the
// tests are about losing nothing), longer with LAKEPG_TOPOLOGY_SECONDS.
func workload(t *testing.T) time.Duration {
	t.Helper()
	d := 3 * time.Second
	if v := os.Getenv("LAKEPG_TOPOLOGY_SECONDS"); v != "" {
		n, err := strconv.ParseFloat(v, 64)
		if err != nil || n <= 0 {
			t.Fatalf("LAKEPG_TOPOLOGY_SECONDS=%q", v)
		}
		d = time.Duration(n * float64(time.Second))
	}
	return d
}

var (
	modeExec   = pgx.QueryExecModeExec
	modeSimple = pgx.QueryExecModeSimpleProtocol
)

// TestScaleOut runs every part on one cluster; the HAProxy fail-over, which
// stops a server, comes last.
func TestScaleOut(t *testing.T) {
	c := newCluster(t)
	t.Run("CrossServer", func(t *testing.T) { testCrossServer(t, c) })
	t.Run("SessionReset", func(t *testing.T) { testSessionReset(t, c) })
	t.Run("PoolModes", func(t *testing.T) { testPoolModes(t, c) })
	t.Run("Transfers", func(t *testing.T) { testTransfers(t, c) })
	t.Run("Drivers", func(t *testing.T) { testDrivers(t, c) })
	t.Run("Cancel", func(t *testing.T) { testCancel(t, c) })
	t.Run("HAProxyFailover", func(t *testing.T) { testFailover(t, c) })
}

func must(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

func want[T comparable](t *testing.T, conn *pgx.Conn, sql string, w T, args ...any) {
	t.Helper()
	var got T
	if err := conn.QueryRow(context.Background(), sql, args...).Scan(&got); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	if got != w {
		t.Fatalf("%s: got %v, want %v", sql, got, w)
	}
}

// testCrossServer: rows, DDL and commits made through server 1 are seen
// through server 2 at once, and the other way round; an open transaction's
// rows are not.
func testCrossServer(t *testing.T, c *cluster) {
	ctx := context.Background()
	// server 1 in session pooling with pgx's default cached, named prepared
	// statements; server 2 in transaction pooling with unnamed statements
	a, err := connect(ctx, c.pool(poolServer1, appUser, appPassword), nil)
	must(t, "connect through "+poolServer1, err)
	defer a.Close(ctx)
	b, err := connect(ctx, c.pool(poolServer2, appUser, appPassword), &modeExec)
	must(t, "connect through "+poolServer2, err)
	defer b.Close(ctx)

	_, err = a.Exec(ctx, "CREATE TABLE kv (k int, v text)")
	must(t, "server 1: CREATE TABLE", err)
	_, err = a.Exec(ctx, "INSERT INTO kv VALUES ($1, $2)", 1, "one")
	must(t, "server 1: INSERT", err)
	want(t, b, "SELECT v FROM kv WHERE k = $1", "one", 1)
	_, err = b.Exec(ctx, "INSERT INTO kv VALUES ($1, $2)", 2, "two")
	must(t, "server 2: INSERT", err)
	want(t, a, "SELECT string_agg(v, ',' ORDER BY k) FROM kv", "one,two")

	// a column added through server 2 is there for server 1's next statement
	_, err = b.Exec(ctx, "ALTER TABLE kv ADD COLUMN w int")
	must(t, "server 2: ALTER TABLE", err)
	_, err = a.Exec(ctx, "INSERT INTO kv VALUES ($1, $2, $3)", 3, "three", 33)
	must(t, "server 1: INSERT with the new column", err)
	want(t, b, "SELECT sum(w)::bigint FROM kv", int64(33))

	// a transaction through server 1: invisible to server 2 until COMMIT
	tx, err := a.Begin(ctx)
	must(t, "server 1: BEGIN", err)
	_, err = tx.Exec(ctx, "INSERT INTO kv VALUES ($1, $2, $3)", 4, "four", 44)
	must(t, "server 1: INSERT in a transaction", err)
	want(t, b, "SELECT count(*) FROM kv", int64(3))
	must(t, "server 1: COMMIT", tx.Commit(ctx))
	want(t, b, "SELECT count(*) FROM kv", int64(4))
	// and a rolled-back one never shows
	tx, err = b.Begin(ctx)
	must(t, "server 2: BEGIN", err)
	_, err = tx.Exec(ctx, "DELETE FROM kv WHERE k < $1", 3)
	must(t, "server 2: DELETE in a transaction", err)
	want(t, a, "SELECT count(*) FROM kv", int64(4))
	must(t, "server 2: ROLLBACK", tx.Rollback(ctx))
	want(t, a, "SELECT string_agg(v, ',' ORDER BY k) FROM kv", "one,two,three,four")
}

// testSessionReset: PgBouncer's server_reset_query (DISCARD ALL) gives the
// next client of a session pool a clean lakepg session: the previous
// client's prepared statements, settings, temporary tables and held
// cursors are gone, and a setting PgBouncer tracks through ParameterStatus
// is put back for the next client.
func testSessionReset(t *testing.T, c *cluster) {
	ctx := context.Background()
	dsn := c.pool(poolSingle, appUser, appPassword)
	first, err := connect(ctx, dsn, nil)
	must(t, "connect", err)
	var pid int32
	// pgx names the prepared statement after the query: the next client's
	// PREPARE of the same query fails with 42P05 unless it was dropped
	must(t, "first client", first.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&pid))
	for _, s := range []string{
		"SET search_path TO pg_catalog",
		"SET extra_float_digits TO 0",
		"SET TimeZone TO 'Asia/Tokyo'",
		"CREATE TEMP TABLE scratch (a int)",
		"DECLARE held CURSOR WITH HOLD FOR SELECT 1",
	} {
		_, err := first.Exec(ctx, s)
		must(t, "first client: "+s, err)
	}
	first.Close(ctx)

	second, err := connect(ctx, dsn, nil)
	must(t, "connect again", err)
	defer second.Close(ctx)
	var pid2 int32
	must(t, "second client", second.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&pid2))
	if pid2 != pid {
		t.Fatalf("the second client got lakepg session %d, not the first one's %d: the pool holds one server connection", pid2, pid)
	}
	want(t, second, "SHOW search_path", `"$user", public`)
	want(t, second, "SHOW extra_float_digits", "1")
	want(t, second, "SHOW TimeZone", "UTC")
	want(t, second, "SELECT count(*) FROM pg_class WHERE relname = 'scratch'", int64(0))
	want(t, second, "SELECT count(*) FROM pg_cursors", int64(0))
}
