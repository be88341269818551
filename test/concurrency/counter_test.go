package concurrency

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/lakepg/lakepg/test/testserver"
)

// counterTime is how long the clients increment.
const counterTime = 15 * time.Second

// counterClient is one incrementing client; it retries an increment only on 40001.
type counterClient struct {
	server             int
	commits, retries   int
	autocommit, blocks int
	errs               []string
	latencies          []time.Duration // from the first try of an increment to its commit
}

// TestCounterIncrements: clients on both servers (and DuckDB) increment one row of a
// one-row table, with autocommit UPDATEs and inside BEGIN … COMMIT, retrying on 40001 until
// it commits. No increment may be lost or counted twice: at the end n is the number of
// commits the clients were told of, and each made exactly one snapshot.
func TestCounterIncrements(t *testing.T) {
	ext := findDuckExtensions(t)
	l := newLake(t)
	l.exec(t, 0, "CREATE TABLE counter (n bigint)")
	l.exec(t, 0, "INSERT INTO counter VALUES (0)")
	snapsBefore := lastSnapshot(t, l)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)

	var clients []*counterClient
	var wg sync.WaitGroup
	start := time.Now()
	deadline := start.Add(counterTime)
	var duck duckCounter
	wg.Add(1)
	go func() {
		defer wg.Done()
		runDuck(t, ctx, duckCounterScript, ext, l.attach, map[string]any{"seconds": counterTime.Seconds()}, &duck)
	}()
	for s := range l.servers {
		cfg, err := pgxpool.ParseConfig(l.servers[s].DSN())
		if err != nil {
			t.Fatal(err)
		}
		cfg.MaxConns = clientsPerServer
		pool, err := pgxpool.NewWithConfig(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer pool.Close()
		for k := 0; k < clientsPerServer; k++ {
			c := &counterClient{server: s}
			clients = append(clients, c)
			rnd := rand.New(rand.NewPCG(seed, uint64(s*100+k)))
			wg.Add(1)
			go func() {
				defer wg.Done()
				pc, err := pool.Acquire(ctx)
				if err != nil {
					c.errs = append(c.errs, err.Error())
					return
				}
				defer pc.Release()
				for time.Now().Before(deadline) && len(c.errs) == 0 {
					c.increment(ctx, pc.Conn().PgConn(), rnd.IntN(2) == 0, deadline)
				}
			}()
		}
	}
	wg.Wait()
	elapsed := time.Since(start)

	var commits, retries, autocommit, blocks int
	var lat []time.Duration
	for _, c := range clients {
		for _, e := range c.errs {
			t.Errorf("lakepg %d: %s", c.server, e)
		}
		commits += c.commits
		retries += c.retries
		autocommit += c.autocommit
		blocks += c.blocks
		lat = append(lat, c.latencies...)
	}
	for _, e := range duck.Errors {
		t.Errorf("DuckDB: %s", e)
	}
	total := commits + duck.Commits
	for i := range l.servers {
		r := l.query(t, i, "SELECT n, count(*) OVER () FROM counter")
		if len(r.Rows) != 1 || fmtVal(r.Rows[0][0]) != strconv.Itoa(total) {
			t.Errorf("lakepg %d: counter holds %s, want n = %d (one row): the number of increments the clients were told committed (%d by lakepg clients, %d by DuckDB)",
				i, rowsText(r), total, commits, duck.Commits)
		}
	}
	if got := lastSnapshot(t, l) - snapsBefore; got != int64(total) {
		t.Errorf("%d snapshots were made while %d increments committed", got, total)
	}
	snapshots := l.checkCatalog(t)
	secs := elapsed.Seconds()
	p50, p99 := percentile(lat, 50), percentile(lat, 99)
	testserver.Report(t, "concurrency-counter", fmt.Sprintf(
		"counter increments: %d lakepg clients on each of 2 servers + 1 DuckDB process, %.1f s\n"+
			"  lakepg: %d increments committed (%d autocommit, %d in BEGIN … COMMIT), %.1f/s; %d retries after 40001 (%.2f per commit); latency incl. retries p50 %v p99 %v\n"+
			"  DuckDB: %d committed, %d retries after a conflict\n"+
			"  catalog: %d snapshots\n  lakepg 0's own counters (metrics): %s\n  lakepg 1's own counters (metrics): %s\n",
		clientsPerServer, secs, commits, autocommit, blocks, float64(commits)/secs, retries, float64(retries)/float64(max(1, commits)),
		p50.Round(time.Millisecond), p99.Round(time.Millisecond), duck.Commits, duck.Conflicts, snapshots, l.commitFigures(0), l.commitFigures(1)))
}

// increment adds one to the counter, retrying on 40001 until it commits or the deadline
// passes (an increment cut off by the deadline was refused, so it does not count).
func (c *counterClient) increment(ctx context.Context, conn *pgconn.PgConn, block bool, deadline time.Time) {
	start := time.Now()
	for time.Now().Before(deadline) {
		var err error
		if block {
			err = c.blockIncrement(ctx, conn)
		} else {
			var res []*pgconn.Result
			res, err = conn.Exec(ctx, "UPDATE counter SET n = n + 1").ReadAll()
			if err == nil && (len(res) != 1 || res[0].CommandTag.String() != "UPDATE 1") {
				c.errs = append(c.errs, fmt.Sprintf("UPDATE counter SET n = n + 1: %d results, want one UPDATE 1", len(res)))
				return
			}
		}
		var pe *pgconn.PgError
		switch {
		case err == nil:
			c.commits++
			if block {
				c.blocks++
			} else {
				c.autocommit++
			}
			c.latencies = append(c.latencies, time.Since(start))
			return
		case errors.As(err, &pe) && pe.Code == serializationFailure:
			c.retries++
		default:
			c.errs = append(c.errs, fmt.Sprintf("increment (block %v): %v", block, err))
			return
		}
	}
}

// blockIncrement is BEGIN; SELECT n; UPDATE … n + 1; SELECT n; COMMIT: the block must read
// its own update. An error rolls the block back and is returned.
func (c *counterClient) blockIncrement(ctx context.Context, conn *pgconn.PgConn) (err error) {
	defer func() {
		if err != nil && conn.TxStatus() != 'I' {
			if _, rerr := conn.Exec(ctx, "ROLLBACK").ReadAll(); rerr != nil {
				c.errs = append(c.errs, "ROLLBACK: "+rerr.Error())
			}
		}
	}()
	read := func() (int64, error) {
		res, err := conn.Exec(ctx, "SELECT n FROM counter").ReadAll()
		if err != nil {
			return 0, err
		}
		if len(res) != 1 || len(res[0].Rows) != 1 {
			return 0, fmt.Errorf("SELECT n FROM counter: %d rows", len(res[0].Rows))
		}
		return strconv.ParseInt(string(res[0].Rows[0][0]), 10, 64)
	}
	if _, err := conn.Exec(ctx, "BEGIN").ReadAll(); err != nil {
		return err
	}
	before, err := read()
	if err != nil {
		return err
	}
	res, err := conn.Exec(ctx, "UPDATE counter SET n = n + 1").ReadAll()
	if err != nil {
		return err
	}
	if res[0].CommandTag.String() != "UPDATE 1" {
		c.errs = append(c.errs, fmt.Sprintf("UPDATE counter SET n = n + 1 in a block: %s, want UPDATE 1", res[0].CommandTag))
	}
	after, err := read()
	if err != nil {
		return err
	}
	if after != before+1 {
		c.errs = append(c.errs, fmt.Sprintf("in a block, n was %d and is %d after n = n + 1", before, after))
	}
	_, err = conn.Exec(ctx, "COMMIT").ReadAll()
	return err
}

// duckCounterScript increments the counter from DuckDB until the time is up, retrying an
// increment refused as a conflict.
const duckCounterScript = duckPrelude + `
deadline = time.monotonic() + inp["seconds"]
st = {"commits": 0, "conflicts": 0, "errors": []}
while time.monotonic() < deadline and not st["errors"]:
    try:
        r = c.execute("UPDATE lk.public.counter SET n = n + 1").fetchall()
    except duckdb.Error as e:
        if conflict(e):
            st["conflicts"] += 1
            continue
        st["errors"].append("%s: %s" % (type(e).__name__, e))
        break
    if r != [(1,)]:
        st["errors"].append("UPDATE answered %r, want [(1,)]" % (r,))
    st["commits"] += 1
json.dump(st, sys.stdout)
`

type duckCounter struct {
	Commits   int      `json:"commits"`
	Conflicts int      `json:"conflicts"`
	Errors    []string `json:"errors"`
}

func lastSnapshot(t *testing.T, l *lake) int64 {
	t.Helper()
	r := l.query(t, 0, "SELECT max(snapshot_id) FROM lakepg.snapshots()")
	if len(r.Rows) != 1 {
		t.Fatalf("lakepg.snapshots(): %s", rowsText(r))
	}
	n, err := strconv.ParseInt(fmtVal(r.Rows[0][0]), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func rowsText(r rows) string {
	parts := make([]string, len(r.Rows))
	for i, row := range r.Rows {
		parts[i] = fmtRow(row)
	}
	return "[" + strings.Join(parts, " ") + "]"
}

func percentile(d []time.Duration, p int) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[(len(s)-1)*p/100]
}
