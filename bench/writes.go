package bench

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

const smallWriteTable = "CREATE TABLE small_writes (id bigint, v text, at timestamptz)"
const smallWrite = "INSERT INTO small_writes VALUES ($1, $2, now())"

// writeResult is one system's single-row INSERTs: one client in a row, then several at once.
type writeResult struct {
	system     string
	lat        []float64 // seconds per INSERT of the single client
	seqTime    time.Duration
	conc       int // INSERTs by the concurrent clients
	concErrors int
	concTime   time.Duration
	firstErr   string
	peak       int64
}

func (r *Runner) smallWrites(ctx context.Context, system, dsn string, pids func() []int) (writeResult, error) {
	res := writeResult{system: system}
	if err := execSQL(ctx, dsn, "DROP TABLE IF EXISTS small_writes", smallWriteTable); err != nil {
		return res, fmt.Errorf("%s: %w", system, err)
	}
	mw := watchMemory(pids)
	defer mw.Close()
	mw.Reset()
	connect := func() (*pgx.Conn, error) {
		cfg, err := pgx.ParseConfig(dsn)
		if err != nil {
			return nil, err
		}
		cfg.DefaultQueryExecMode = pgx.QueryExecModeExec
		return pgx.ConnectConfig(ctx, cfg)
	}
	c, err := connect()
	if err != nil {
		return res, err
	}
	start := time.Now()
	for i := 0; i < r.cfg.Writes; i++ {
		t := time.Now()
		if _, err := c.Exec(ctx, smallWrite, int64(i), fmt.Sprintf("value %d", i)); err != nil {
			c.Close(ctx)
			return res, fmt.Errorf("%s: INSERT %d: %w", system, i, err)
		}
		res.lat = append(res.lat, time.Since(t).Seconds())
	}
	res.seqTime = time.Since(start)
	c.Close(ctx)

	clients := max(1, r.cfg.WriteClients)
	per := max(1, r.cfg.Writes/clients)
	var deadline time.Time // with BENCH_WRITE_SECONDS the clients write until then instead
	var wg sync.WaitGroup
	var mu sync.Mutex
	start = time.Now()
	if r.cfg.WriteTime > 0 {
		deadline = start.Add(r.cfg.WriteTime)
	}
	for k := 0; k < clients; k++ {
		wg.Add(1)
		go func(k int) {
			defer wg.Done()
			c, err := connect()
			if err != nil {
				mu.Lock()
				res.concErrors += per
				res.firstErr = err.Error()
				mu.Unlock()
				return
			}
			defer c.Close(context.Background())
			for i := 0; ; i++ {
				if deadline.IsZero() && i == per || !deadline.IsZero() && !time.Now().Before(deadline) {
					return
				}
				// ids of one client stay apart from the others' for any count
				id := int64(r.cfg.Writes) + int64(i)*int64(clients) + int64(k)
				_, err := c.Exec(ctx, smallWrite, id, "concurrent")
				mu.Lock()
				if err != nil {
					res.concErrors++
					if res.firstErr == "" {
						res.firstErr = err.Error()
					}
				} else {
					res.conc++
				}
				mu.Unlock()
			}
		}(k)
	}
	wg.Wait()
	res.concTime = time.Since(start)
	res.peak = mw.Peak()
	return res, nil
}

func (r *Runner) sectionWrites(ctx context.Context, s *section) error {
	lake, err := r.mainLake(ctx)
	if err != nil {
		return err
	}
	pg, err := r.postgresServer(ctx)
	if err != nil {
		return err
	}
	catDSN, err := pg.createDB(ctx, r, "lakecat")
	if err != nil {
		return err
	}
	dir := filepath.Join(r.work, "lake-pgcatalog")
	pgLake, err := r.startLakepg(ctx, "pgcatalog", dir, nil, "--catalog", catDSN, "--data", filepath.Join(dir, "data"))
	if err != nil {
		return err
	}
	defer pgLake.stop()

	var results []writeResult
	var bulk []bulkResult
	for _, t := range []struct {
		name, dsn string
		pids      func() []int
	}{
		{"lakepg, SQLite catalog", lake.dsn(), lake.pids},
		{"lakepg, PostgreSQL catalog", pgLake.dsn(), pgLake.pids},
		{"PostgreSQL", r.pgDB, pg.pids},
	} {
		r.logf("small writes: %s", t.name)
		res, err := r.smallWrites(ctx, t.name, t.dsn, t.pids)
		if err != nil {
			return err
		}
		results = append(results, res)
		r.logf("bulk writes: %s", t.name)
		b, err := r.bulkWrites(ctx, t.name, t.dsn)
		if err != nil {
			return err
		}
		bulk = append(bulk, b)
	}
	r.rep.command("each system: " + smallWriteTable + "; then " + smallWrite + " in autocommit, one statement per round trip")
	each := fmt.Sprintf("%d INSERTs each", max(1, r.cfg.Writes/max(1, r.cfg.WriteClients)))
	if r.cfg.WriteTime > 0 {
		each = "INSERTs for " + r.cfg.WriteTime.String()
	}
	s.printf("Single-row `%s` in autocommit: each is one commit (for lakepg one DuckLake snapshot, its row in a small "+
		"Parquet file or inlined in the catalog; for PostgreSQL one WAL flush). First %d INSERTs by one client in a row (latency per statement, commits/s = "+
		"statements over the elapsed time), then %d clients at once, %s into the same table (lakepg retries "+
		"a commit that raced another; an error is a failed statement). The PostgreSQL catalog of lakepg and the PostgreSQL "+
		"of the comparison are the same server.", smallWrite, r.cfg.Writes, r.cfg.WriteClients, each)
	var rows [][]string
	var p50s, p99s, cps, ccps []float64
	for _, w := range results {
		p50, p99 := percentile(w.lat, 50)*1000, percentile(w.lat, 99)*1000
		c1 := float64(len(w.lat)) / w.seqTime.Seconds()
		cn := float64(w.conc) / w.concTime.Seconds()
		errs := fmt.Sprint(w.concErrors)
		if w.firstErr != "" {
			errs += " (" + firstLines(w.firstErr, 1) + ")"
		}
		rows = append(rows, []string{w.system, fmt.Sprintf("%.2f ms", p50), fmt.Sprintf("%.2f ms", p99),
			fmt.Sprintf("%.0f", c1), fmt.Sprintf("%.0f", cn), errs, mib(w.peak)})
		p50s, p99s, cps, ccps = append(p50s, p50), append(p99s, p99), append(cps, c1), append(ccps, cn)
	}
	s.table([]string{"system", "p50 latency", "p99 latency", "commits/s, 1 client", fmt.Sprintf("commits/s, %d clients", r.cfg.WriteClients), "errors", "server peak memory"}, rows)
	var names []string
	for _, w := range results {
		names = append(names, w.system)
	}
	path, link := r.chartPath("writes")
	if err := barChart(path, "Small writes: single-row INSERT latency (lower is better)", "milliseconds", names,
		[]series{{name: "p50", values: p50s}, {name: "p99", values: p99s}}, false); err != nil {
		return err
	}
	s.chart(link, "INSERT latency")
	path, link = r.chartPath("writes-commits")
	if err := barChart(path, "Small writes: commits per second (higher is better)", "commits/s", names,
		[]series{{name: "1 client", values: cps}, {name: fmt.Sprintf("%d clients", r.cfg.WriteClients), values: ccps}}, false); err != nil {
		return err
	}
	s.chart(link, "Commits per second")
	r.printBulk(s, bulk)
	return nil
}
