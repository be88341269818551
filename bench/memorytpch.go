package bench

import (
	"context"
	"fmt"
	"math"
	"strings"
)

// memoryTPCHWanted reports whether BENCH_MEMORY_QUERIES picks the 22 TPC-H
// queries under the limit (a word contained in "tpch"; all when unset).
func (r *Runner) memoryTPCHWanted() bool {
	if len(r.cfg.MemQueries) == 0 {
		return true
	}
	for _, w := range r.cfg.MemQueries {
		if strings.Contains("tpch", w) {
			return true
		}
	}
	return false
}

// tpchUnderLimit is one query of memoryTPCH on one system: its fastest run's
// wall and process CPU, and the most memory any run held.
type tpchUnderLimit struct {
	secs, cpu float64
	rows      int
	peak      int64
	err       error
}

// memoryTPCH runs the 22 TPC-H queries on the memory-limited lakepg and on
// DuckDB with the same memory_limit, taking turns run by run (lakepg, DuckDB,
// lakepg, …). Beside wall time it reports each server's CPU (user+sys from
// /proc/PID/stat): on a machine shared with other work, wall time measures
// the load as much as the query, and CPU does not.
func (r *Runner) memoryTPCH(ctx context.Context, s *section, limit string, lq querier, lpids func() []int, dk *duck) {
	_, loadStart := loadAvg()
	systems := []struct {
		q    querier
		pids func() []int
	}{{lq, lpids}, {duckQuerier{dk}, dk.pids}}
	runs := max(r.cfg.Runs, 1)
	var rows [][]string
	var wallR, cpuR []bound
	var sums [2][2]float64
	failed := 0
	for n := 1; n <= 22; n++ {
		var res [2]tpchUnderLimit
		for i := range res {
			res[i].secs, res[i].cpu = math.Inf(1), math.Inf(1)
		}
		for k := 0; k < runs; k++ {
			for i, sys := range systems {
				if res[i].err != nil {
					continue
				}
				w := watchMemory(sys.pids)
				w.Reset()
				c0 := cpuSeconds(sys.pids())
				secs, nrows, err := sys.q.query(ctx, tpchQuery(n), r.cfg.Timeout)
				c1 := cpuSeconds(sys.pids())
				res[i].peak = max(res[i].peak, w.Peak())
				w.Close()
				if err != nil {
					res[i].err = err
					continue
				}
				if secs < res[i].secs {
					res[i].secs, res[i].cpu, res[i].rows = secs, c1-c0, nrows
				}
			}
		}
		r.logf("memory: TPC-H Q%d", n)
		row := []string{fmt.Sprintf("Q%d", n)}
		for i := range res {
			if res[i].err != nil {
				failed++
				row = append(row, "error: "+firstLines(res[i].err.Error(), 1), "", "", mib(res[i].peak))
				continue
			}
			sums[i][0] += res[i].secs
			sums[i][1] += res[i].cpu
			row = append(row, secs(res[i].secs)+" s", fmt.Sprintf("%.2f s", res[i].cpu), fmt.Sprint(res[i].rows), mib(res[i].peak))
		}
		wr, cr := bound{}, bound{}
		if res[0].err == nil && res[1].err == nil {
			wr = ratio(bound{v: res[0].secs, ok: true}, bound{v: res[1].secs, ok: true})
			cr = ratio(bound{v: res[0].cpu, ok: true}, bound{v: res[1].cpu, ok: true})
			if res[0].rows != res[1].rows {
				row[0] += " (row counts differ)"
			}
		}
		wallR, cpuR = append(wallR, wr), append(cpuR, cr)
		rows = append(rows, append(row, wr.ratioString(), cr.ratioString()))
	}
	_, loadEnd := loadAvg()
	gw, nw := geomean(wallR)
	gc, _ := geomean(cpuR)
	rows = append(rows, []string{"**geometric mean of the ratios**", "", "", "", "", "", "", "", "",
		gw.ratioString() + fmt.Sprintf(" (%d queries)", nw), gc.ratioString()},
		[]string{"**sum**", secs(sums[0][0]) + " s", fmt.Sprintf("%.1f s", sums[0][1]), "", "",
			secs(sums[1][0]) + " s", fmt.Sprintf("%.1f s", sums[1][1]), "", "", "", ""})
	s.printf("\n**TPC-H SF%s under %s.** The 22 queries on the same lakepg (`--memory-limit %s`) and on DuckDB over "+
		"tpchgen-cli's Parquet files with `SET memory_limit = '%s'`, %d thread(s) each, the systems taking turns run by run; "+
		"%d run(s) each, the fastest shown with the CPU (user+sys of the server's processes, from /proc) it took; "+
		"peak memory is the most any run held. %d failed. Load average %s at the start, %s at the end.\n",
		sfName(r.cfg.SF), limit, limit, limit, r.cfg.Threads, runs, failed, loadStart, loadEnd)
	s.table([]string{"query", "lakepg", "lakepg CPU", "rows", "lakepg peak", "DuckDB", "DuckDB CPU", "rows", "DuckDB peak",
		"lakepg/DuckDB", "lakepg/DuckDB, CPU"}, rows)
}
