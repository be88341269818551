package s3

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/lakepg/lakepg/storage/s3test"
)

// bigTable fills t with rows of 64 hex characters that neither dictionary
// encoding nor Snappy shrink much: files rows/batches rows each, so a scan
// has several files and row groups to fetch.
func bigTable(t *testing.T, l *lake, rows, files int) {
	t.Helper()
	c := connect(t, l)
	mustExec(t, c, "CREATE TABLE big (id bigint, pad text)")
	per := rows / files
	for i := 0; i < files; i++ {
		mustExec(t, c, fmt.Sprintf("INSERT INTO big SELECT g, md5(g::text) || md5((-g)::text) FROM generate_series(%d, %d) g", i*per+1, (i+1)*per))
	}
}

const bigQuery = "SELECT count(*), sum(id), min(pad), max(pad), sum(length(pad)) FROM big WHERE pad <> ''"

// TestS3StoppedMidScan kills the S3 server while a scan is fetching column
// chunks: the statement fails with 58030 naming the object, the session
// survives, and once the server is back on the same port and directory the
// same session's next scan returns the right rows. The server is private
// (the suite's shared one must not be disturbed), behind a proxy that paces
// its answers so the scan lasts seconds; the kill is of the server, the
// proxy only passes on what the dead server does to the connections. Then
// the same with a cursor whose next FETCH needs what was not read yet.
func TestS3StoppedMidScan(t *testing.T) {
	srv := s3test.Start(t)
	bucket := srv.Bucket(t)
	proxy := startProxy(t, strings.TrimPrefix(srv.Endpoint, "http://"))
	// No memory cache: every scan must fetch from the server.
	dir := t.TempDir()
	l := startLakeOn(t, srv, proxy.Endpoint(), bucket, dir, "sqlite:"+dir+"/catalog.sqlite", "--cache-memory", "-1")
	bigTable(t, l, 600000, 4)
	c := connect(t, l)
	start := proxy.down.Load()
	want := rows(t, c, bigQuery)
	if !strings.HasPrefix(want[0], "600000|180000300000|") {
		t.Fatalf("reference scan: %q", want)
	}
	scanBytes := proxy.down.Load() - start
	t.Logf("a scan fetches %d KiB", scanBytes>>10)

	// Paced to last about ten seconds.
	proxy.setRate(max(scanBytes/10, 1<<20))
	start = proxy.down.Load()
	type result struct {
		rows []string
		err  error
	}
	done := make(chan result, 1)
	go func() {
		r, err := tryRows(c, bigQuery)
		done <- result{r, err}
	}()
	deadline := time.Now().Add(time.Minute)
	for proxy.down.Load()-start < 2<<20 {
		select {
		case r := <-done:
			t.Fatalf("the scan ended before 2 MiB were fetched: %q %v", r.rows, r.err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("the scan fetched less than 2 MiB in a minute")
		}
		time.Sleep(10 * time.Millisecond)
	}
	select {
	case r := <-done:
		t.Fatalf("the scan ended before the server was stopped: %q %v", r.rows, r.err)
	default:
	}
	srv.Stop(t)
	t.Logf("versitygw killed after %d KiB of the scan", (proxy.down.Load()-start)>>10)
	var r result
	select {
	case r = <-done:
	case <-time.After(2 * time.Minute):
		t.Fatal("the scan did not end within 2 minutes of the server's death")
	}
	var pe *pgconn.PgError
	if !errors.As(r.err, &pe) {
		t.Fatalf("scan with the server killed under it: rows %q, error %v; want a server error", r.rows, r.err)
	}
	t.Logf("scan with the server killed under it: %s %s", pe.Code, pe.Message)
	if pe.Code != "58030" {
		t.Errorf("SQLSTATE %s, want 58030 (io_error)", pe.Code)
	}
	if !strings.Contains(pe.Message, "s3://"+bucket+"/lake/public/big/") || !strings.Contains(pe.Message, ".parquet") {
		t.Errorf("message %q does not name the object (bucket %s, key under lake/public/big/)", pe.Message, bucket)
	}
	// The session survives.
	wantRows(t, c, "SELECT 1 + 1", "2")

	srv.Restart(t)
	proxy.setRate(0)
	wantRows(t, c, bigQuery, want...)

	// A cursor suspended mid-scan: its next FETCH needs row groups not read
	// yet, and fails the same way; the transaction is rolled back, and the
	// session works once the server is back.
	mustExec(t, c, "BEGIN")
	mustExec(t, c, "DECLARE cur CURSOR FOR SELECT id, pad FROM big")
	if got := rows(t, c, "FETCH 1000 FROM cur"); len(got) != 1000 {
		t.Fatalf("FETCH 1000: %d rows", len(got))
	}
	srv.Stop(t)
	pe = pgError(t, c, "FETCH ALL FROM cur")
	t.Logf("FETCH with the server stopped: %s %s", pe.Code, pe.Message)
	if pe.Code != "58030" || !strings.Contains(pe.Message, "s3://"+bucket+"/lake/public/big/") {
		t.Errorf("FETCH with the server stopped: %s %q, want 58030 naming the object", pe.Code, pe.Message)
	}
	mustExec(t, c, "ROLLBACK")
	srv.Restart(t)
	wantRows(t, c, bigQuery, want...)
}

// TestS3CancelDuringRead cancels statements blocked in an S3 read (a scan,
// EXPLAIN's footer reads), by statement_timeout and by a cancel request:
// all answer 57014 at once (not
// 58030 after the server finally answers), and the session goes on. The
// server is a private versitygw behind a proxy that holds its answers back.
func TestS3CancelDuringRead(t *testing.T) {
	srv := s3test.Start(t)
	bucket := srv.Bucket(t)
	proxy := startProxy(t, strings.TrimPrefix(srv.Endpoint, "http://"))
	dir := t.TempDir()
	l := startLakeOn(t, srv, proxy.Endpoint(), bucket, dir, "sqlite:"+dir+"/catalog.sqlite", "--cache-memory", "-1")
	c := connect(t, l)
	mustExec(t, c, "CREATE TABLE t (id bigint, v text)")
	mustExec(t, c, "INSERT INTO t SELECT g, 'v' || g::text FROM generate_series(1, 100000) g")
	const q = "SELECT count(*), sum(id), max(v) FROM t"
	const want = "100000|5000050000|v99999"

	// Every answer of the server now waits 20 s.
	const stall = 20 * time.Second
	proxy.setDelay(stall)
	expectCancel := func(what, message string, run func() error) {
		t.Helper()
		started := time.Now()
		err := run()
		took := time.Since(started)
		var pe *pgconn.PgError
		if !errors.As(err, &pe) {
			t.Fatalf("%s: %v, want a server error", what, err)
		}
		t.Logf("%s: %s %s after %v", what, pe.Code, pe.Message, took.Round(time.Millisecond))
		if pe.Code != "57014" || pe.Message != message {
			t.Errorf("%s: %s %q, want 57014 %q", what, pe.Code, pe.Message, message)
		}
		// Not a timing assertion: an uncancelled read would end only when the
		// stalled answer arrives, 20 s later.
		if took >= stall/2 {
			t.Errorf("%s: the statement ended after %v, not when it was cancelled", what, took)
		}
	}

	mustExec(t, c, "SET statement_timeout = '300ms'")
	expectCancel("scan past statement_timeout", "canceling statement due to statement timeout", func() error {
		_, err := tryRows(c, q)
		return err
	})
	mustExec(t, c, "SET statement_timeout = 0")

	cancelled := func(sql string) func() error {
		return func() error {
			go func() {
				time.Sleep(300 * time.Millisecond)
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				if err := c.PgConn().CancelRequest(ctx); err != nil {
					t.Errorf("cancel request: %v", err)
				}
			}()
			_, err := tryRows(c, sql)
			return err
		}
	}
	expectCancel("scan cancelled by a cancel request", "canceling statement due to user request", cancelled(q))
	// EXPLAIN reads the files' footers for its row-group figures.
	expectCancel("EXPLAIN cancelled by a cancel request", "canceling statement due to user request", cancelled("EXPLAIN "+q))

	// The session goes on once the server answers promptly again.
	proxy.setDelay(0)
	wantRows(t, c, q, want)
	if got := listKeys(t, srv, bucket, "lake/public/t/"); len(got) != 1 {
		t.Fatalf("objects of t: %v", got)
	}
}
