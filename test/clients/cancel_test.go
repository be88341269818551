package clients

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/lakepg/lakepg/test/testserver"
)

// cancelKinds are statements that each keep one kind of operator busy for many seconds.
var cancelKinds = []struct{ kind, sql string }{
	{"nested-loop join, condition rejects almost every pair", `SELECT count(*) FROM generate_series(1, 100000) a(x), generate_series(1, 100000) b(y) WHERE x + y = 3`},
	{"hash join with many matches", `SELECT count(*) FROM cbig a JOIN cbig b ON a.k = b.k`},
	{"sort", `SELECT s FROM (SELECT a.s || b.s AS s FROM cbig a JOIN cbig b ON a.k = b.k) t ORDER BY s LIMIT 1`},
	{"hash aggregate", `SELECT count(*) FROM (SELECT a.id, b.id, count(*) FROM cbig a JOIN cbig b ON a.k = b.k GROUP BY 1, 2) t`},
	{"window", `SELECT max(r) FROM (SELECT row_number() OVER (PARTITION BY a.k ORDER BY b.s) r FROM cbig a JOIN cbig b ON a.k = b.k) t`},
	{"semi join with a residual condition", `SELECT count(*) FROM cbig a WHERE EXISTS (SELECT 1 FROM cbig b WHERE b.k = a.k AND b.s > a.s || 'zz')`},
	{"recursive CTE", `WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 1000000000) SELECT count(*) FROM r`},
	{"table scan with a filter", `SELECT count(*) FROM cbig a, cbig b WHERE a.s || b.s LIKE '%zzzz%'`},
}

// TestCancelEveryOperator cancels each kind of statement mid-flight with a CancelRequest
// and measures how long it takes to stop. The figures are reported; a bound far above the
// ~100 ms aimed at catches operators that do not look at cancellation at all (such a one
// ran for the rest of its work: seconds to minutes).
func TestCancelEveryOperator(t *testing.T) {
	s := testserver.Start(t, testserver.Binary(t), t.TempDir())
	exec1(t, s.DSN(), `CREATE TABLE cbig AS SELECT g AS id, g % 50 AS k, md5(g::text) AS s FROM generate_series(1, 200000) g`)
	ctx := context.Background()
	var lines []string
	var delays []time.Duration
	for _, kc := range cancelKinds {
		c, err := pgconn.Connect(ctx, s.DSN())
		if err != nil {
			t.Fatal(err)
		}
		rr := c.Exec(ctx, kc.sql)
		time.Sleep(400 * time.Millisecond) // well inside the statement
		start := time.Now()
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		if err := c.CancelRequest(cctx); err != nil {
			t.Errorf("%s: CancelRequest: %v", kc.kind, err)
		}
		cancel()
		_, err = rr.ReadAll()
		d := time.Since(start)
		c.Close(ctx)
		if got := sqlstate(err); !strings.HasPrefix(got, "57014") {
			t.Errorf("%s: got %s, want 57014 (did it finish within 400 ms?)", kc.kind, got)
			continue
		}
		delays = append(delays, d)
		lines = append(lines, fmt.Sprintf("%-55s %6.0f ms", kc.kind, float64(d.Microseconds())/1000))
		if d > 3*time.Second {
			t.Errorf("%s: stopped %v after the CancelRequest", kc.kind, d)
		}
	}
	sort.Slice(delays, func(i, j int) bool { return delays[i] < delays[j] })
	if len(delays) > 0 {
		lines = append(lines, fmt.Sprintf("median %.0f ms, max %.0f ms (CancelRequest to the error, client side)",
			float64(delays[len(delays)/2].Microseconds())/1000, float64(delays[len(delays)-1].Microseconds())/1000))
	}
	testserver.Report(t, "cancel", strings.Join(lines, "\n"))
}

// endlessCSV is a COPY FROM STDIN source that never ends: rows until the
// test stops reading.
type endlessCSV struct{ n int }

func (r *endlessCSV) Read(p []byte) (int, error) {
	w := 0
	for w+64 < len(p) {
		r.n++
		w += copy(p[w:], fmt.Sprintf("%d,row %d\n", r.n, r.n))
	}
	return w, nil
}

// TestCancelCopy cancels COPY both ways mid-flight: COPY TO STDOUT of a
// large query and COPY FROM STDIN of an endless stream. Both answer 57014
// soon after the CancelRequest, nothing of the cancelled COPY FROM is
// visible, and the connection goes on.
func TestCancelCopy(t *testing.T) {
	s := testserver.Start(t, testserver.Binary(t), t.TempDir())
	exec1(t, s.DSN(), `CREATE TABLE cin (id bigint, v text)`)
	ctx := context.Background()
	c, err := pgconn.Connect(ctx, s.DSN())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	var lines []string
	for _, kc := range []struct {
		kind string
		run  func(ctx context.Context) error
	}{
		{"COPY (a cross join) TO STDOUT", func(ctx context.Context) error {
			_, err := c.CopyTo(ctx, io.Discard, `COPY (SELECT a.x, b.y, md5((a.x * b.y)::text) FROM generate_series(1, 100000) a(x), generate_series(1, 100000) b(y)) TO STDOUT`)
			return err
		}},
		{"COPY FROM STDIN of an endless stream", func(ctx context.Context) error {
			_, err := c.CopyFrom(ctx, &endlessCSV{}, `COPY cin FROM STDIN (FORMAT csv)`)
			return err
		}},
	} {
		errc := make(chan error, 1)
		go func() { errc <- kc.run(ctx) }()
		time.Sleep(500 * time.Millisecond) // well inside the COPY
		start := time.Now()
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		if err := c.CancelRequest(cctx); err != nil {
			t.Errorf("%s: CancelRequest: %v", kc.kind, err)
		}
		cancel()
		var err error
		select {
		case err = <-errc:
		case <-time.After(30 * time.Second):
			t.Fatalf("%s: still running 30 s after the CancelRequest", kc.kind)
		}
		d := time.Since(start)
		if got := sqlstate(err); !strings.HasPrefix(got, "57014") {
			t.Errorf("%s: got %s, want 57014", kc.kind, got)
			continue
		}
		lines = append(lines, fmt.Sprintf("%-40s %6.0f ms", kc.kind, float64(d.Microseconds())/1000))
		if d > 3*time.Second {
			t.Errorf("%s: stopped %v after the CancelRequest", kc.kind, d)
		}
	}
	res, err := c.Exec(ctx, `SELECT count(*) FROM cin`).ReadAll()
	if err != nil {
		t.Fatalf("the session after the cancelled COPYs: %v", err)
	}
	if got := string(res[0].Rows[0][0]); got != "0" {
		t.Errorf("the cancelled COPY FROM left %s rows in cin", got)
	}
	testserver.Report(t, "cancel-copy", strings.Join(lines, "\n"))
}
