package concurrency

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/lakepg/lakepg/test/testserver"
)

const (
	// clientsPerServer is the pgx pool size, and the number of clients, of each lakepg.
	clientsPerServer = 8
	// workload is how long everybody writes at once.
	workload = 20 * time.Second
	// duckClient is the client number (and id prefix) of the DuckDB process.
	duckClient = 99
)

var workTables = []string{"t0", "t1", "t2"}

// TestConcurrentWriters: two lakepg servers (8 clients each) and DuckDB write to the same
// three tables at once for 20 s: small (inlined) and large (Parquet) inserts, deletes,
// updates, transaction blocks with reads of their own writes, ALTER TABLE ADD COLUMN, and
// lakepg's merge_adjacent_files (DuckDB's is left out: see duckWorkScript). Each statement
// must commit or answer 40001. Then the catalog must be consistent, both servers and DuckDB
// must read the same rows, and those rows must be exactly what the clients were told they
// committed.
func TestConcurrentWriters(t *testing.T) {
	ext := findDuckExtensions(t)
	l := newLake(t)
	for _, tb := range workTables {
		l.exec(t, 0, fmt.Sprintf("CREATE TABLE %s (id bigint, client integer, v bigint)", tb))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)

	now := time.Now()
	sh := &shared{maxAlters: 6, nextAlter: now.Add(2 * time.Second), nextMerge: now.Add(3 * time.Second)}
	var clients []*pgClient
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
			pc, err := pool.Acquire(ctx)
			if err != nil {
				t.Fatalf("lakepg %d: %v", s, err)
			}
			defer pc.Release()
			id := s*10 + k + 1
			c := &pgClient{id: id, server: s, conn: pc.Conn(), rnd: rand.New(rand.NewPCG(seed, uint64(id))),
				tables: workTables, live: ledger{}, ops: map[string]*opCount{}, shared: sh}
			for _, tb := range workTables {
				c.live[tb] = map[int64]int64{}
			}
			clients = append(clients, c)
		}
	}

	stopWatch := watchConnections(t, ctx, l.dsn)
	start := time.Now()
	deadline := start.Add(workload)
	var wg sync.WaitGroup
	var duck duckWork
	wg.Add(1)
	go func() {
		defer wg.Done()
		runDuck(t, ctx, duckWorkScript, ext, l.attach, map[string]any{
			"seed": seed, "client": duckClient, "tables": workTables, "seconds": workload.Seconds()}, &duck)
	}()
	for _, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.run(ctx, deadline)
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	maxConns := stopWatch()

	// every statement committed or answered 40001
	nerr := 0
	for _, c := range clients {
		for _, e := range c.errs {
			if nerr++; nerr <= 30 {
				t.Errorf("%s", e)
			}
		}
	}
	for _, e := range duck.Errors {
		if nerr++; nerr <= 30 {
			t.Errorf("DuckDB: %s", e)
		}
	}

	snapshots := l.checkCatalog(t)
	report := figures(clients, duck, elapsed, snapshots, maxConns)
	defer func() { testserver.Report(t, "concurrency", report) }()

	// both servers and DuckDB read the same rows, and they are the ledgers' union
	var dr duckRead
	runDuck(t, ctx, duckReadScript, ext, l.attach, map[string]any{"tables": workTables}, &dr)
	for _, tb := range workTables {
		sql := fmt.Sprintf("SELECT * FROM %s ORDER BY id", tb)
		a, b := l.query(t, 0, sql), l.query(t, 1, sql)
		compareRows(t, "lakepg 0 and lakepg 1, table "+tb, a, b)
		d, ok := dr.Tables[tb]
		if !ok {
			t.Errorf("DuckDB did not read table %s", tb)
			continue
		}
		compareRows(t, "lakepg 0 and DuckDB, table "+tb, a, d.rows)
		if d.Count != int64(len(a.Rows)) || d.DistinctRowIDs != d.Count {
			t.Errorf("table %s: DuckDB counts %d rows with %d distinct row ids, lakepg %d rows", tb, d.Count, d.DistinctRowIDs, len(a.Rows))
		}
		want := map[int64]int64{}
		for _, c := range clients {
			for id, v := range c.live[tb] {
				want[id] = v
			}
		}
		for _, iv := range duck.Live[tb] {
			want[iv[0]] = iv[1]
		}
		compareLedger(t, tb, a, want)
	}
	if int64(len(dr.Snapshots)) != snapshots {
		t.Errorf("DuckDB lists %d snapshots, the catalog has %d", len(dr.Snapshots), snapshots)
	}
	for i := range l.servers {
		report += fmt.Sprintf("  lakepg %d's own counters (metrics): %s\n", i, l.commitFigures(i))
	}
	report += fmt.Sprintf("  catalog snapshot rows inserted and rolled back (lost races): %s\n",
		abortedSnapshotInserts(t, l, snapshots))
}

// watchConnections samples the catalog database's sessions every 250 ms; the returned
// function stops and answers the most seen at once.
func watchConnections(t *testing.T, ctx context.Context, dsn string) func() int {
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("connecting to the catalog database: %v", err)
	}
	done := make(chan struct{})
	result := make(chan int)
	go func() {
		defer c.Close(context.Background())
		most := 0
		tick := time.NewTicker(250 * time.Millisecond)
		defer tick.Stop()
		for {
			var n int
			if err := c.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()`).Scan(&n); err == nil && n > most {
				most = n
			}
			select {
			case <-done:
				result <- most
				return
			case <-tick.C:
			}
		}
	}()
	return func() int { close(done); return <-result }
}

// abortedSnapshotInserts stops the servers (so that their catalog sessions end and flush
// their statistics) and answers how many ducklake_snapshot rows were inserted beyond the
// committed ones: the commit attempts that lost the race on the snapshot id, or were
// refused after inserting it, and were retried or answered 40001.
func abortedSnapshotInserts(t *testing.T, l *lake, snapshots int64) string {
	for _, s := range l.servers {
		s.Stop(t)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := pgx.Connect(ctx, l.dsn)
	if err != nil {
		return err.Error()
	}
	defer c.Close(context.Background())
	var ins int64
	// statistics arrive within a second or so of the sessions' end
	for i := 0; i < 20; i++ {
		if err := c.QueryRow(ctx, `SELECT n_tup_ins FROM pg_stat_user_tables WHERE relname = 'ducklake_snapshot'`).Scan(&ins); err != nil {
			return err.Error()
		}
		if ins >= snapshots {
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	return strconv.FormatInt(ins-snapshots, 10)
}

func figures(clients []*pgClient, duck duckWork, elapsed time.Duration, snapshots int64, maxConns int) string {
	kinds := map[string]*opCount{}
	var commits, conflicts [3]int // lakepg 0, lakepg 1, DuckDB
	for _, c := range clients {
		for k, o := range c.ops {
			if kinds[k] == nil {
				kinds[k] = &opCount{}
			}
			kinds[k].ok += o.ok
			kinds[k].conflicts += o.conflicts
			if k != "read" {
				commits[c.server] += o.ok
				conflicts[c.server] += o.conflicts
			}
		}
	}
	commits[2], conflicts[2] = duck.Commits, duck.Conflicts
	var b strings.Builder
	secs := elapsed.Seconds()
	fmt.Fprintf(&b, "concurrent writers: %d lakepg clients on each of 2 servers + 1 DuckDB process, %.1f s\n", clientsPerServer, secs)
	for i, name := range []string{"lakepg 0", "lakepg 1", "DuckDB"} {
		fmt.Fprintf(&b, "  %-9s %6d writes succeeded (%.1f/s), %6d refused with 40001 (%.0f%%)\n", name, commits[i], float64(commits[i])/secs,
			conflicts[i], 100*float64(conflicts[i])/float64(max(1, commits[i]+conflicts[i])))
	}
	fmt.Fprintf(&b, "  snapshots in the catalog: %d (%.1f/s); most catalog sessions at once: %d\n", snapshots, float64(snapshots)/secs, maxConns)
	var names []string
	for k := range kinds {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		fmt.Fprintf(&b, "  lakepg %-22s %6d ok %6d 40001\n", k, kinds[k].ok, kinds[k].conflicts)
	}
	names = names[:0]
	for k := range duck.Ops {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		fmt.Fprintf(&b, "  DuckDB %-22s %6d ok %6d conflicts\n", k, duck.Ops[k][0], duck.Ops[k][1])
	}
	for m, n := range duck.ConflictMessages {
		fmt.Fprintf(&b, "  DuckDB refusal %dx: %s\n", n, m)
	}
	return b.String()
}

func fmtVal(v *string) string {
	if v == nil {
		return "NULL"
	}
	return *v
}

func fmtRow(r []*string) string {
	parts := make([]string, len(r))
	for i, v := range r {
		parts[i] = fmtVal(v)
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// compareRows requires the same columns and the same rows in the same order.
func compareRows(t *testing.T, label string, a, b rows) {
	t.Helper()
	if strings.Join(a.Columns, ",") != strings.Join(b.Columns, ",") {
		t.Errorf("%s: columns differ: %v and %v", label, a.Columns, b.Columns)
		return
	}
	n := min(len(a.Rows), len(b.Rows))
	for i := 0; i < n; i++ {
		if fmtRow(a.Rows[i]) != fmtRow(b.Rows[i]) {
			t.Errorf("%s: row %d (ORDER BY id) differs: %s and %s", label, i+1, fmtRow(a.Rows[i]), fmtRow(b.Rows[i]))
			return
		}
	}
	if len(a.Rows) != len(b.Rows) {
		t.Errorf("%s: %d and %d rows", label, len(a.Rows), len(b.Rows))
	}
}

// compareLedger requires a table's (id, v) to be exactly the acknowledged writes.
func compareLedger(t *testing.T, table string, got rows, want map[int64]int64) {
	t.Helper()
	idCol, vCol := -1, -1
	for i, c := range got.Columns {
		switch c {
		case "id":
			idCol = i
		case "v":
			vCol = i
		}
	}
	if idCol < 0 || vCol < 0 {
		t.Fatalf("table %s: columns %v lack id or v", table, got.Columns)
	}
	seen := map[int64]bool{}
	var lost, extra, wrong, dup []string
	for _, r := range got.Rows {
		id, err1 := strconv.ParseInt(fmtVal(r[idCol]), 10, 64)
		v, err2 := strconv.ParseInt(fmtVal(r[vCol]), 10, 64)
		if err1 != nil || err2 != nil {
			t.Errorf("table %s: row %s is not (id, v) integers", table, fmtRow(r))
			continue
		}
		if seen[id] {
			dup = append(dup, strconv.FormatInt(id, 10))
		}
		seen[id] = true
		w, ok := want[id]
		switch {
		case !ok:
			extra = append(extra, fmt.Sprintf("%d (v %d)", id, v))
		case w != v:
			wrong = append(wrong, fmt.Sprintf("%d (v %d, acknowledged %d)", id, v, w))
		}
	}
	for id, v := range want {
		if !seen[id] {
			lost = append(lost, fmt.Sprintf("%d (v %d)", id, v))
		}
	}
	for _, p := range []struct {
		what string
		ids  []string
	}{
		{"acknowledged rows missing", lost},
		{"rows nobody was told were committed (or were acknowledged deleted)", extra},
		{"rows whose v is not the acknowledged one", wrong},
		{"ids present twice", dup},
	} {
		if len(p.ids) > 0 {
			sort.Strings(p.ids)
			t.Errorf("table %s: %d %s: %s", table, len(p.ids), p.what, strings.Join(p.ids[:min(len(p.ids), 12)], ", "))
		}
	}
	t.Logf("table %s: %d rows, %d in the ledgers", table, len(got.Rows), len(want))
}
