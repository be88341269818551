package bench

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// memoryQueries are the big operators of issue 18 on lineitem: an
// aggregation of about as many groups as rows, a sort of every column, a
// DISTINCT of nearly as many rows, a hash join whose build side is all of
// lineitem, and window functions over its rows partitioned by supplier and
// over all of them as one partition. The aggregation and the DISTINCT are
// wrapped in a count so that the client receives one row; the sort sends all
// its rows, as a sort has to (a count over it would let DuckDB drop it).
var memoryQueries = []namedQuery{
	{"group by 3 keys", "SELECT count(*), sum(c) FROM (SELECT l_orderkey, l_partkey, l_comment, count(*) AS c FROM lineitem GROUP BY l_orderkey, l_partkey, l_comment) s"},
	{"order by, all columns", "SELECT * FROM lineitem ORDER BY l_comment, l_orderkey"},
	{"distinct", "SELECT count(*) FROM (SELECT DISTINCT l_comment, l_suppkey FROM lineitem) s"},
	{"hash join, lineitem with itself", "SELECT count(*), sum(b.l_quantity) FROM lineitem a JOIN lineitem b ON a.l_orderkey = b.l_orderkey AND a.l_linenumber = b.l_linenumber AND a.l_comment = b.l_comment"},
	{"window, 10 000 partitions", "SELECT count(*), sum(rn), sum(s) FROM (SELECT row_number() OVER w AS rn, sum(l_quantity) OVER (w ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS s FROM lineitem WINDOW w AS (PARTITION BY l_suppkey ORDER BY l_comment, l_orderkey, l_linenumber)) x"},
	{"window, one partition", "SELECT count(*), sum(rn), sum(s), sum(r) FROM (SELECT row_number() OVER w AS rn, sum(l_quantity) OVER (w ROWS BETWEEN 2 PRECEDING AND 2 FOLLOWING) AS s, rank() OVER (ORDER BY l_shipdate) AS r FROM lineitem WINDOW w AS (ORDER BY l_comment, l_orderkey, l_linenumber)) x"},
}

// sectionMemory runs memoryQueries on a lakepg with --memory-limit and on
// DuckDB (over the same Parquet files tpchgen-cli wrote) with memory_limit
// set to the same size, one query at a time, sampling each server's memory.
func (r *Runner) sectionMemory(ctx context.Context, s *section) error {
	dataDir, err := r.ensureTPCH(ctx, false)
	if err != nil {
		return err
	}
	lim := r.cfg.MemLimit
	if lim < 1<<20 {
		lim = 512 << 20
	}
	limit := strconv.FormatInt(lim>>20, 10) + "MiB"
	dir := filepath.Join(r.work, "lake-memory")
	srv, err := r.startLakepg(ctx, "memory", dir, nil,
		"--catalog", "sqlite:"+filepath.Join(r.lake.dir, "catalog.sqlite"), "--data", filepath.Join(r.lake.dir, "data"),
		"--memory-limit", limit, "--temp-dir", filepath.Join(dir, "tmp"))
	if err != nil {
		return err
	}
	defer srv.stop()
	lq, err := newPGQuerier(ctx, srv.dsn(), false)
	if err != nil {
		return err
	}
	defer lq.close()
	dk, err := r.duckOnParquet(ctx, "memory", dataDir, r.cfg.Threads, tpchTables)
	if err != nil {
		return err
	}
	defer dk.close()
	for _, st := range []string{
		fmt.Sprintf("SET memory_limit = '%s'", limit),
		fmt.Sprintf("SET temp_directory = '%s'", filepath.Join(r.work, "duck-memory-tmp")),
	} {
		r.rep.command("DuckDB: " + st)
		if _, err := dk.exec(st, 0, false); err != nil {
			return err
		}
	}
	type result struct {
		secs, cpu float64 // the fastest timed run's
		first     float64 // the first run's: the server's heap still to grow
		rows      int
		peak      int64
		err       error
	}
	runOnce := func(q querier, pids func() []int, sql string, x *result) (float64, error) {
		w := watchMemory(pids)
		defer w.Close()
		w.Reset()
		c0 := cpuSeconds(pids())
		secs, rows, err := q.query(ctx, sql, r.cfg.Timeout)
		c1 := cpuSeconds(pids())
		x.peak = max(x.peak, w.Peak())
		if err == nil {
			x.rows = rows
			if x.first == 0 {
				x.first = secs
			}
		}
		return c1 - c0, err
	}
	show := func(x result) []string {
		if x.err != nil {
			return []string{"error: " + x.err.Error(), "", "", mib(x.peak)}
		}
		return []string{secs(x.secs) + " s", fmt.Sprintf("%.2f s", x.cpu), fmt.Sprint(x.rows), mib(x.peak)}
	}
	var rows [][]string
	queries := r.memoryQueries()
	if len(queries) > 0 {
		runs := max(r.cfg.Runs, 1)
		for _, q := range queries {
			r.logf("memory: %s", q.name)
			// the systems take turns run by run; the first runs are
			// warm-up (BENCH_WARMUP), reported apart as the first run
			var res [2]result
			for i := range res {
				res[i].secs, res[i].cpu = math.Inf(1), math.Inf(1)
			}
			for k := 0; k < r.cfg.Warmup+runs; k++ {
				for i, sys := range []struct {
					q    querier
					pids func() []int
				}{{lq, srv.pids}, {duckQuerier{dk}, dk.pids}} {
					x := &res[i]
					if x.err != nil {
						continue
					}
					t0 := time.Now()
					cpu, err := runOnce(sys.q, sys.pids, q.sql, x)
					if err != nil {
						x.err = err
						continue
					}
					if secs := time.Since(t0).Seconds(); k >= r.cfg.Warmup && secs < x.secs {
						x.secs, x.cpu = secs, cpu
					}
				}
			}
			l, d := res[0], res[1]
			ratio, first := "", ""
			if l.err == nil && d.err == nil && d.secs > 0 {
				ratio = fmt.Sprintf("%.2f×", l.secs/d.secs)
				first = fmt.Sprintf("%s s / %s s (%.2f×)", secs(l.first), secs(d.first), l.first/d.first)
			}
			rows = append(rows, append(append(append([]string{q.name}, show(l)...), show(d)...), ratio, first))
		}
		s.printf("**Big operators under %s.** lakepg with `--memory-limit %s` (spill files in a scratch directory), "+
			"DuckDB over tpchgen-cli's Parquet files with `SET memory_limit = '%s'` and a temp directory; the two take turns, "+
			"%d warm-up and %d timed runs of each query each, and the fastest timed run is shown with the server's CPU in it "+
			"(user+sys from /proc). The first run of each query is shown apart: for the first query both servers have just started, their heaps yet to grow. "+
			"Peak memory is the proportional set size of the server's processes, sampled every 50 ms, over all the runs.\n",
			limit, limit, limit, r.cfg.Warmup, runs)
		for _, q := range queries {
			s.printf("- %s: `%s`", q.name, q.sql)
		}
		s.table([]string{"query", "lakepg", "CPU", "rows", "lakepg peak", "DuckDB", "CPU", "rows", "DuckDB peak", "lakepg/DuckDB", "first run"}, rows)
	}
	if r.memoryTPCHWanted() {
		r.memoryTPCH(ctx, s, limit, lq, srv.pids, dk)
	}
	if r.cfg.MemClients > 0 {
		return r.concurrentSorts(ctx, s)
	}
	return nil
}

// concurrentSorts runs the sort of every lineitem column from
// BENCH_MEMORY_CLIENTS clients at once on a lakepg under
// BENCH_MEMORY_CLIENTS_LIMIT (issue 18: eight such sorts under 1 GiB all
// finish, none fails, memory bounded): each client's time and rows, and the
// server's peak memory while it ran.
func (r *Runner) concurrentSorts(ctx context.Context, s *section) error {
	limit := strconv.FormatInt(r.cfg.MemClientsLimit>>20, 10) + "MiB"
	dir := filepath.Join(r.work, "lake-memory-clients")
	srv, err := r.startLakepg(ctx, "memory-clients", dir, nil,
		"--catalog", "sqlite:"+filepath.Join(r.lake.dir, "catalog.sqlite"), "--data", filepath.Join(r.lake.dir, "data"),
		"--memory-limit", limit, "--temp-dir", filepath.Join(dir, "tmp"), "--max-active-queries", "0")
	if err != nil {
		return err
	}
	defer srv.stop()
	var sql string
	for _, q := range memoryQueries {
		if strings.HasPrefix(q.name, "order by") {
			sql = q.sql
		}
	}
	n := r.cfg.MemClients
	qs := make([]*pgQuerier, n)
	for i := range qs {
		if qs[i], err = newPGQuerier(ctx, srv.dsn(), false); err != nil {
			return err
		}
		defer qs[i].close()
	}
	type result struct {
		secs float64
		rows int
		peak int64
		err  error
	}
	res := make([]result, n)
	all := watchMemory(srv.pids)
	all.Reset()
	r.logf("memory: %d clients sorting at once under %s", n, limit)
	start := time.Now()
	var wg sync.WaitGroup
	for i := range qs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := watchMemory(srv.pids)
			defer w.Close()
			secs, rows, err := qs[i].query(ctx, sql, r.cfg.Timeout)
			res[i] = result{secs, rows, w.Peak(), err}
		}()
	}
	wg.Wait()
	wall := time.Since(start).Seconds()
	peak := all.Peak()
	all.Close()
	var rows [][]string
	failed := 0
	for i, x := range res {
		row := []string{strconv.Itoa(i + 1), secs(x.secs) + " s", fmt.Sprint(x.rows), mib(x.peak), ""}
		if x.err != nil {
			failed++
			row[1], row[4] = "", x.err.Error()
		}
		rows = append(rows, row)
	}
	s.printf("**%d clients sorting at once under %s.** Each client runs `%s` on its own connection, all started together, "+
		"on a lakepg with `--memory-limit %s` and no admission limit (`--max-active-queries 0`), so every sort holds memory at once. "+
		"A client's peak is the server's memory (sampled every 50 ms, and its high-water mark) while that client's query ran. "+
		"All done in %s s; %d failed; server peak %s.\n", n, limit, sql, limit, secs(wall), failed, mib(peak))
	s.table([]string{"client", "time", "rows", "server peak while it ran", "error"}, rows)
	return nil
}

// memoryQueries are the queries BENCH_MEMORY_QUERIES picks: those whose name
// contains one of its words, so that one operator can be measured again
// without the others (all when unset).
func (r *Runner) memoryQueries() []namedQuery {
	if len(r.cfg.MemQueries) == 0 {
		return memoryQueries
	}
	var out []namedQuery
	for _, q := range memoryQueries {
		for _, w := range r.cfg.MemQueries {
			if strings.Contains(q.name, w) {
				out = append(out, q)
				break
			}
		}
	}
	return out
}
