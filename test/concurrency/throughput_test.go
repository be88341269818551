package concurrency

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/lakepg/lakepg/test/testserver"
)

// throughputSettings are the clients and the duration of the single-row INSERT load:
// short by default (the test is about losing nothing), longer for a measurement with
// LAKEPG_COMMIT_CLIENTS and LAKEPG_COMMIT_SECONDS.
func throughputSettings(t *testing.T) (clients int, d time.Duration) {
	clients, d = 4, 2*time.Second
	if v := os.Getenv("LAKEPG_COMMIT_CLIENTS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("LAKEPG_COMMIT_CLIENTS=%q", v)
		}
		clients = n
	}
	if v := os.Getenv("LAKEPG_COMMIT_SECONDS"); v != "" {
		n, err := strconv.ParseFloat(v, 64)
		if err != nil || n <= 0 {
			t.Fatalf("LAKEPG_COMMIT_SECONDS=%q", v)
		}
		d = time.Duration(n * float64(time.Second))
	}
	return clients, d
}

// insertLoad runs clients single-row autocommit INSERTs into t (id bigint, c int) for d,
// spread over the servers' DSNs round robin, and checks at the end that the table holds
// exactly the acknowledged rows, each once. It returns the figures as a line of text.
func insertLoad(t *testing.T, dsns []string, clients int, d time.Duration) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d+2*time.Minute)
	defer cancel()
	setup, err := pgconn.Connect(ctx, dsns[0])
	if err != nil {
		t.Fatal(err)
	}
	defer setup.Close(ctx)
	if _, err := setup.Exec(ctx, "CREATE TABLE t (id bigint, c int)").ReadAll(); err != nil {
		t.Fatal(err)
	}

	type result struct {
		acked     []int64
		latencies []time.Duration
		err       error
	}
	results := make([]result, clients)
	var wg sync.WaitGroup
	start := time.Now()
	deadline := start.Add(d)
	for i := 0; i < clients; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			r := &results[i]
			conn, err := pgconn.Connect(ctx, dsns[i%len(dsns)])
			if err != nil {
				r.err = err
				return
			}
			defer conn.Close(context.Background())
			for n := int64(0); time.Now().Before(deadline); n++ {
				id := int64(i)*1_000_000_000 + n
				t0 := time.Now()
				_, err := conn.Exec(ctx, fmt.Sprintf("INSERT INTO t VALUES (%d, %d)", id, i)).ReadAll()
				if err != nil {
					// an autocommit INSERT never conflicts with another insert: any
					// error is a failure, and the row must then not be there
					r.err = fmt.Errorf("client %d insert %d: %w", i, id, err)
					return
				}
				r.latencies = append(r.latencies, time.Since(t0))
				r.acked = append(r.acked, id)
			}
		}(i)
	}
	wg.Wait()
	elapsed := time.Since(start)

	want := map[int64]bool{}
	var lat []time.Duration
	for i, r := range results {
		if r.err != nil {
			t.Errorf("client %d: %v", i, r.err)
		}
		for _, id := range r.acked {
			want[id] = true
		}
		lat = append(lat, r.latencies...)
	}
	// every server must see every row: read the count and the ids on each
	for s, dsn := range dsns {
		conn, err := pgconn.Connect(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		res, err := conn.Exec(ctx, "SELECT id FROM t").ReadAll()
		conn.Close(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got := map[int64]int{}
		for _, row := range res[0].Rows {
			id, err := strconv.ParseInt(string(row[0]), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			got[id]++
		}
		lost, dup, extra := 0, 0, 0
		for id := range want {
			if got[id] == 0 {
				lost++
			}
		}
		for id, n := range got {
			if n > 1 {
				dup++
			}
			if !want[id] {
				extra++ // a failed (unacknowledged) insert that committed anyway
			}
		}
		if lost != 0 || dup != 0 || extra != 0 || len(res[0].Rows) != len(want) {
			t.Errorf("server %d: %d rows for %d acknowledged inserts: %d lost, %d duplicated, %d not acknowledged", s, len(res[0].Rows), len(want), lost, dup, extra)
		}
	}
	if len(want) == 0 {
		t.Fatal("no insert was acknowledged")
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	return fmt.Sprintf("%d clients, %d servers, %.1fs: %d commits, %.0f commits/s, p50 %s, p99 %s, max %s, 0 lost (load %s)",
		clients, len(dsns), elapsed.Seconds(), len(want), float64(len(want))/elapsed.Seconds(),
		percentile(lat, 50).Round(10*time.Microsecond), percentile(lat, 99).Round(10*time.Microsecond),
		lat[len(lat)-1].Round(10*time.Microsecond), loadAvg())
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil || len(b) < 4 {
		return "?"
	}
	var f [3]string
	n, _ := fmt.Sscan(string(b), &f[0], &f[1], &f[2])
	if n < 1 {
		return "?"
	}
	return f[0]
}

// TestCommitThroughputPostgres: clients of single-row autocommit INSERTs on two servers of
// one PostgreSQL catalog; every acknowledged insert is there once, on both servers, and
// nothing else is.
func TestCommitThroughputPostgres(t *testing.T) {
	clients, d := throughputSettings(t)
	l := newLake(t)
	line := insertLoad(t, []string{l.servers[0].DSN(), l.servers[1].DSN()}, clients, d)
	t.Logf("postgres catalog: %s; %s", line, l.commitFigures(0))
	testserver.Report(t, "commit-throughput-postgres", line)
}

// TestCommitThroughputSQLite: the same load on one server with a SQLite catalog.
func TestCommitThroughputSQLite(t *testing.T) {
	clients, d := throughputSettings(t)
	s := testserver.Start(t, testserver.Binary(t), t.TempDir())
	line := insertLoad(t, []string{s.DSN()}, clients, d)
	t.Logf("sqlite catalog: %s", line)
	testserver.Report(t, "commit-throughput-sqlite", line)
}
