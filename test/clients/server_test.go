package clients

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/lakepg/lakepg/test/testserver"
)

// slowQuery runs for many seconds on lakepg unless cancelled.
const slowQuery = "SELECT count(*) FROM generate_series(1, 3000000) a, generate_series(1, 1000) b"

func connect(t *testing.T, dsn string) *pgx.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

func sqlstate(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code + " " + pe.Message
	}
	return fmt.Sprint(err)
}

// TestStatementTimeout: statement_timeout (also from the startup options)
// cancels a running statement with 57014 and the session goes on.
func TestStatementTimeout(t *testing.T) {
	s := lakeServer(t)
	c := connect(t, s.DSN()+"&options=-c%20statement_timeout%3D250")
	ctx := context.Background()
	var v string
	if err := c.QueryRow(ctx, "SHOW statement_timeout").Scan(&v); err != nil || v != "250ms" {
		t.Fatalf("SHOW statement_timeout = %q, %v; want 250ms", v, err)
	}
	start := time.Now()
	_, err := c.Exec(ctx, slowQuery)
	if got := sqlstate(err); got != "57014 canceling statement due to statement timeout" {
		t.Fatalf("slow query: %s", got)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the timeout took %v", d)
	}
	if _, err := c.Exec(ctx, "SET statement_timeout = '1min'"); err != nil {
		t.Fatal(err)
	}
	if err := c.QueryRow(ctx, "SHOW statement_timeout").Scan(&v); err != nil || v != "1min" {
		t.Fatalf("SHOW statement_timeout = %q, %v; want 1min", v, err)
	}
	var n int64
	if err := c.QueryRow(ctx, "SELECT count(*) FROM sales.orders").Scan(&n); err != nil || n != 2 {
		t.Fatalf("after the timeout: %d, %v", n, err)
	}
	if _, err := c.Exec(ctx, "SET statement_timeout = 'soon'"); sqlstate(err)[:5] != "22023" {
		t.Errorf("bad value: %s", sqlstate(err))
	}
}

// TestCancelRequest: a CancelRequest (pgx sends one when the context ends)
// cancels the running statement with 57014; the session goes on.
func TestCancelRequest(t *testing.T) {
	s := lakeServer(t)
	c := connect(t, s.DSN())
	pc := c.PgConn()
	ctx := context.Background()
	go func() {
		time.Sleep(300 * time.Millisecond)
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		if err := pc.CancelRequest(cctx); err != nil {
			t.Errorf("CancelRequest: %v", err)
		}
	}()
	_, err := pc.Exec(ctx, slowQuery).ReadAll()
	if got := sqlstate(err); got != "57014 canceling statement due to user request" {
		t.Fatalf("cancelled query: %s", got)
	}
	var one int
	if err := c.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("after cancel: %v", err)
	}
}

// TestCancelAndTerminateBackend: pg_cancel_backend cancels another
// session's statement (57014); pg_terminate_backend ends the session with
// FATAL 57P01; both answer false, with a warning, for an unknown pid.
func TestCancelAndTerminateBackend(t *testing.T) {
	s := lakeServer(t)
	victim, admin := connect(t, s.DSN()), connect(t, s.DSN())
	ctx := context.Background()
	var pid int32
	if err := victim.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&pid); err != nil {
		t.Fatal(err)
	}
	signal := func(fn string) {
		time.Sleep(300 * time.Millisecond)
		var ok bool
		if err := admin.QueryRow(ctx, "SELECT "+fn+"($1)", pid).Scan(&ok); err != nil || !ok {
			t.Errorf("%s(%d) = %v, %v", fn, pid, ok, err)
		}
	}
	// admin is used again only after the signalling goroutine is done with it
	done := make(chan struct{})
	go func() { signal("pg_cancel_backend"); close(done) }()
	_, err := victim.Exec(ctx, slowQuery)
	<-done
	if got := sqlstate(err); got != "57014 canceling statement due to user request" {
		t.Fatalf("after pg_cancel_backend: %s", got)
	}
	var ok bool
	if err := admin.QueryRow(ctx, "SELECT pg_cancel_backend(1)").Scan(&ok); err != nil || ok {
		t.Errorf("pg_cancel_backend(1) = %v, %v; want false", ok, err)
	}
	done = make(chan struct{})
	go func() { signal("pg_terminate_backend"); close(done) }()
	_, err = victim.Exec(ctx, slowQuery)
	<-done
	if got := sqlstate(err); got != "57P01 terminating connection due to administrator command" {
		t.Fatalf("after pg_terminate_backend: %s", got)
	}
	if !victim.IsClosed() {
		if err := victim.Ping(ctx); err == nil {
			t.Fatal("the terminated session still answers")
		}
	}
	// The session leaves pg_stat_activity once its connection has closed.
	for i := 0; ; i++ {
		var n int
		if err := admin.QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE pid = $1", pid).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
		if i > 50 {
			t.Fatal("pg_stat_activity still lists the terminated session")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestMaxConnections: beyond --max-connections a login gets FATAL 53300;
// a slot freed by a disconnect is taken again.
func TestMaxConnections(t *testing.T) {
	dir := t.TempDir()
	port := testserver.FreePort(t)
	s := testserver.Launch(t, testserver.Binary(t), dir, port, []string{
		"--listen", "127.0.0.1:" + strconv.Itoa(port), "--catalog", "sqlite:" + dir + "/catalog.sqlite",
		"--data", dir + "/data", "--max-connections", "2"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// Launch's readiness probe has disconnected, but its session may not be
	// gone yet: retry while the server is still full.
	connectRetry := func() *pgx.Conn {
		for i := 0; ; i++ {
			c, err := pgx.Connect(ctx, s.DSN())
			if err == nil {
				return c
			}
			if i > 50 {
				t.Fatal(err)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	first := connectRetry()
	defer first.Close(ctx)
	second := connectRetry()
	_, err := pgx.Connect(ctx, s.DSN())
	if got := sqlstate(err); got != "53300 sorry, too many clients already" {
		t.Fatalf("third connection: %s", got)
	}
	second.Close(ctx)
	connectRetry().Close(ctx)
}
