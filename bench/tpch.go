package bench

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"time"
)

// qResult is one query on one system.
type qResult struct {
	times   []float64 // seconds of the timed runs
	timeout bool
	err     string
	rows    int
}

func (q qResult) median() bound {
	switch {
	case q.timeout:
		return bound{}
	case q.err != "" || len(q.times) == 0:
		return bound{}
	}
	return bound{v: median(q.times), ok: true}
}

// medianOr is the median, or the timeout as a lower bound.
func (q qResult) medianOr(timeout time.Duration) bound {
	if q.timeout {
		return bound{v: timeout.Seconds(), lower: true, ok: true}
	}
	return q.median()
}

// cell is a table cell: "median (min–max)", "> 60 s" or "error".
func (q qResult) cell(timeout time.Duration) string {
	switch {
	case q.timeout:
		return timeoutLabel(timeout)
	case q.err != "":
		return "error"
	case len(q.times) == 0:
		return "n/a"
	case len(q.times) == 1:
		return secs(q.times[0])
	}
	lo, hi := minMax(q.times)
	return fmt.Sprintf("%s (%s–%s)", secs(median(q.times)), secs(lo), secs(hi))
}

// namedQuery is one query of a benchmark: its name in tables and logs ("Q7") and its text.
type namedQuery struct{ name, sql string }

// queryRun is a list of queries on one system: q[i] is the i-th query of the list.
type queryRun struct {
	system string
	q      []qResult
	peak   int64
	wall   time.Duration
}

// querySystem is one system of an interleaved run.
type querySystem struct {
	name string
	q    querier
	pids func() []int
}

// tpchQueries are the 22 TPC-H queries; their results are at q[n-1].
func tpchQueries() []namedQuery {
	qs := make([]namedQuery, 22)
	for n := 1; n <= 22; n++ {
		qs[n-1] = namedQuery{fmt.Sprintf("Q%d", n), tpchQuery(n)}
	}
	return qs
}

// runTPCH runs the 22 TPC-H queries on every system, interleaved (runQueries).
func (r *Runner) runTPCH(ctx context.Context, systems ...querySystem) ([]*queryRun, error) {
	return r.runQueries(ctx, tpchQueries(), systems...)
}

// runQueries runs the queries on every system, interleaved: query n runs Warmup+Runs
// times in a row on the first system, then on the second, and so on, before query n+1.
// On a shared machine the load changes by the minute, so the systems compared on one
// query see the same conditions. A timeout or an error ends that query's runs on that
// system.
func (r *Runner) runQueries(ctx context.Context, queries []namedQuery, systems ...querySystem) ([]*queryRun, error) {
	runs := make([]*queryRun, len(systems))
	watches := make([]*memWatch, len(systems))
	for i, sys := range systems {
		runs[i] = &queryRun{system: sys.name, q: make([]qResult, len(queries))}
		watches[i] = watchMemory(sys.pids)
		defer watches[i].Close()
		watches[i].Reset()
	}
	for n, qu := range queries {
		for si, sys := range systems {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			res := &runs[si].q[n]
			start := time.Now()
			for i := 0; i < r.cfg.Warmup+r.cfg.Runs; i++ {
				s, rows, err := sys.q.query(ctx, qu.sql, r.cfg.Timeout)
				if errors.Is(err, errTimeout) {
					res.timeout = true
					break
				}
				if err != nil {
					if ctx.Err() != nil {
						return nil, ctx.Err()
					}
					res.err = firstLines(err.Error(), 1)
					r.logf("%s %s: %v", sys.name, qu.name, err)
					break
				}
				res.rows = rows
				if i >= r.cfg.Warmup {
					res.times = append(res.times, s)
				}
			}
			runs[si].wall += time.Since(start)
			r.logf("%s %s %s", sys.name, qu.name, res.cell(r.cfg.Timeout))
		}
	}
	for i := range runs {
		runs[i].peak = watches[i].Peak()
	}
	return runs, nil
}

// sum and geomean of the medians, timeouts counted as the timeout (a lower bound).
func (t *queryRun) summary(timeout time.Duration) (sum, gm bound, n int) {
	var bs []bound
	total, lower, ok := 0.0, false, true
	for i := range t.q {
		b := t.q[i].medianOr(timeout)
		bs = append(bs, b)
		if !b.ok {
			ok = false
			continue
		}
		total += b.v
		lower = lower || b.lower
	}
	gm, n = geomean(bs)
	if !ok {
		return bound{}, gm, n
	}
	return bound{v: total, lower: lower, ok: true}, gm, n
}

// duckOnLake is DuckDB attached (read-only, ducklake extension) to a lakepg lake with a
// SQLite catalog, reading lakepg's own Parquet files.
func (r *Runner) duckOnLake(ctx context.Context, name, catalog string, threads int) (*duck, error) {
	d, err := r.startDuck(ctx, name, ":memory:", threads, "ducklake", "sqlite")
	if err != nil {
		return nil, err
	}
	for _, st := range []string{
		fmt.Sprintf("ATTACH 'ducklake:sqlite:%s' AS lk (READ_ONLY)", catalog),
		"USE lk.public",
	} {
		r.rep.command("DuckDB: " + st)
		if _, err := d.exec(st, 0, false); err != nil {
			d.close()
			return nil, err
		}
	}
	return d, nil
}

// duckOnParquet is DuckDB with a view per table over the Parquet files <dataDir>/<table>.parquet
// (tpchgen-cli's, dsdgen's).
func (r *Runner) duckOnParquet(ctx context.Context, name, dataDir string, threads int, tables []string) (*duck, error) {
	d, err := r.startDuck(ctx, name, ":memory:", threads)
	if err != nil {
		return nil, err
	}
	for _, t := range tables {
		st := fmt.Sprintf("CREATE VIEW %s AS SELECT * FROM read_parquet('%s')", t, filepath.Join(dataDir, t+".parquet"))
		r.rep.command("DuckDB: " + st)
		if _, err := d.exec(st, 0, false); err != nil {
			d.close()
			return nil, err
		}
	}
	return d, nil
}

func (r *Runner) sectionTPCH(ctx context.Context, s *section) error {
	dataDir, err := r.ensureTPCH(ctx, true)
	if err != nil {
		return err
	}
	lq, err := newPGQuerier(ctx, r.lake.dsn(), false)
	if err != nil {
		return err
	}
	defer lq.close()
	dl, err := r.duckOnLake(ctx, "tpch-lake", filepath.Join(r.lake.dir, "catalog.sqlite"), r.cfg.Threads)
	if err != nil {
		return err
	}
	defer dl.close()
	dp, err := r.duckOnParquet(ctx, "tpch-parquet", dataDir, r.cfg.Threads, tpchTables)
	if err != nil {
		return err
	}
	defer dp.close()
	pq, err := newPGQuerier(ctx, r.pgDB, true)
	if err != nil {
		return err
	}
	defer pq.close()
	runs, err := r.runTPCH(ctx,
		querySystem{"lakepg", lq, r.lake.pids},
		querySystem{"DuckDB (lakepg's files)", duckQuerier{dl}, dl.pids},
		querySystem{"DuckDB (tpchgen Parquet)", duckQuerier{dp}, dp.pids},
		querySystem{"PostgreSQL", pq, r.pg.pids})
	if err != nil {
		return err
	}
	r.tpchResult = runs[0]
	r.writeTPCH(s, dataDir, runs)
	return r.tpchCharts(s, runs)
}

func (r *Runner) writeTPCH(s *section, dataDir string, runs []*queryRun) {
	to := r.cfg.Timeout
	lk, dl, dp, pr := runs[0], runs[1], runs[2], runs[3]
	s.printf("Scale factor %s, generated by `tpchgen-cli parquet -s %s` (%s). lakepg queries its own lake "+
		"(SQLite catalog, the tables loaded with CREATE TABLE … AS SELECT * FROM read_parquet) through pgx; "+
		"DuckDB runs the same queries twice, once attached to lakepg's lake with its ducklake extension (the very "+
		"Parquet files lakepg reads) and once over tpchgen-cli's Parquet files; PostgreSQL has the same rows in heap "+
		"tables. %d threads each, %d untimed warm-up run(s), then %d timed runs per query: seconds as median (min–max). "+
		"The systems take turns query by query (Q1 on each, then Q2 on each, …), so that a change of load on the "+
		"shared machine hits all of them alike. "+
		"A query stopped by the %s timeout shows as \"%s\" and stops that query's runs. The ratios are lakepg's "+
		"median over the other system's: below 1 lakepg is faster.",
		sfName(r.cfg.SF), sfName(r.cfg.SF), dataDir, r.cfg.Threads, r.cfg.Warmup, r.cfg.Runs, to, timeoutLabel(to))
	s.printf("")
	var rows [][]string
	for _, l := range r.tpchLoads {
		size := "n/a"
		if l.size > 0 {
			size = bytesHuman(l.size)
		}
		rows = append(rows, []string{l.system, l.how, fmtDur(l.elapsed), size, mib(l.peak)})
	}
	s.printf("**Loading.**")
	s.table([]string{"system", "how", "time", "size on disk", "peak memory"}, rows)

	rows = nil
	var rD, rP, rPG []bound
	mismatch := []string{}
	for n := 1; n <= 22; n++ {
		a := lk.q[n-1].median()
		x, y, z := ratio(a, dl.q[n-1].median()), ratio(a, dp.q[n-1].median()), ratio(a, pr.q[n-1].medianOr(to))
		rD, rP, rPG = append(rD, x), append(rP, y), append(rPG, z)
		rows = append(rows, []string{fmt.Sprintf("Q%d", n), lk.q[n-1].cell(to), dl.q[n-1].cell(to), dp.q[n-1].cell(to), pr.q[n-1].cell(to),
			x.ratioString(), y.ratioString(), z.ratioString()})
		var counts []string
		seen := map[int]bool{}
		for _, run := range runs {
			if run.q[n-1].err == "" && !run.q[n-1].timeout && len(run.q[n-1].times) > 0 {
				seen[run.q[n-1].rows] = true
				counts = append(counts, fmt.Sprintf("%s %d", run.system, run.q[n-1].rows))
			}
		}
		if len(seen) > 1 {
			mismatch = append(mismatch, fmt.Sprintf("Q%d (%s)", n, strings.Join(counts, ", ")))
		}
	}
	sums, gms := [4]bound{}, [4]bound{}
	for i, run := range runs {
		sums[i], gms[i], _ = run.summary(to)
	}
	gD, _ := geomean(rD)
	gP, _ := geomean(rP)
	gPG, _ := geomean(rPG)
	rows = append(rows,
		[]string{"**geometric mean**", gms[0].String(), gms[1].String(), gms[2].String(), gms[3].String(), gD.ratioString(), gP.ratioString(), gPG.ratioString()},
		[]string{"**sum**", sums[0].String(), sums[1].String(), sums[2].String(), sums[3].String(),
			ratio(sums[0], sums[1]).ratioString(), ratio(sums[0], sums[2]).ratioString(), ratio(sums[0], sums[3]).ratioString()},
		[]string{"**peak memory**", mib(lk.peak), mib(dl.peak), mib(dp.peak), mib(pr.peak), "", "", ""},
	)
	s.printf("**Queries** (seconds):")
	s.table([]string{"query", "lakepg", "DuckDB, lakepg's files", "DuckDB, tpchgen Parquet", "PostgreSQL",
		"lakepg / DuckDB (lakepg's files)", "lakepg / DuckDB (tpchgen Parquet)", "lakepg / PostgreSQL"}, rows)
	s.printf("Geometric means of the times count a timeout as %s (so they are lower bounds, \"> x\"); those of the ratios "+
		"are over the queries every system answered. Peak memory is that of the server process(es) while the 22 queries ran; "+
		"DuckDB's includes its Python host process.", to)
	var errs []string
	for _, run := range runs {
		for n := 1; n <= 22; n++ {
			if run.q[n-1].err != "" {
				errs = append(errs, fmt.Sprintf("%s Q%d: `%s`", run.system, n, strings.ReplaceAll(run.q[n-1].err, "`", "'")))
			}
		}
	}
	if len(errs) > 0 {
		s.printf("\n**Errors:** %s.", strings.Join(errs, "; "))
	}
	if len(mismatch) > 0 {
		s.printf("\n**Row counts differ:** %s.", strings.Join(mismatch, "; "))
	} else {
		s.printf("\nEvery system that answered a query returned the same number of rows.")
	}
}

func (r *Runner) tpchCharts(s *section, runs []*queryRun) error {
	cats := make([]string, 22)
	for i := range cats {
		cats[i] = fmt.Sprintf("Q%d", i+1)
	}
	var ss []series
	for _, run := range runs {
		v := make([]float64, 22)
		for n := 1; n <= 22; n++ {
			b := run.q[n-1].medianOr(r.cfg.Timeout)
			v[n-1] = math.NaN()
			if b.ok {
				v[n-1] = b.v
			}
		}
		ss = append(ss, series{name: run.system, values: v})
	}
	path, link := r.chartPath("tpch-times")
	if err := barChart(path, fmt.Sprintf("TPC-H SF%s: median seconds per query (log scale; a timeout is drawn at %s)", sfName(r.cfg.SF), r.cfg.Timeout), "seconds", cats, ss, true); err != nil {
		return err
	}
	s.chart(link, "TPC-H times per query")
	rs := []series{{name: "lakepg / DuckDB (lakepg's files)"}, {name: "lakepg / PostgreSQL"}}
	for n := 1; n <= 22; n++ {
		a := runs[0].q[n-1].median()
		for i, other := range []bound{runs[1].q[n-1].median(), runs[3].q[n-1].medianOr(r.cfg.Timeout)} {
			x := ratio(a, other)
			v := math.NaN()
			if x.ok {
				v = x.v
			}
			rs[i].values = append(rs[i].values, v)
		}
	}
	path, link = r.chartPath("tpch-ratios")
	if err := barChart(path, "lakepg's time over the other system's (log scale; below 1: lakepg faster)", "ratio", cats, rs, true); err != nil {
		return err
	}
	s.chart(link, "TPC-H ratios per query")
	return nil
}
