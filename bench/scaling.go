package bench

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"gonum.org/v1/plot/plotter"
)

// scalePoint is lakepg's TPC-H at one scale factor.
type scalePoint struct {
	sf   float64
	load loadResult
	run  *queryRun
}

func (r *Runner) scalePoint(ctx context.Context, sf float64) (scalePoint, error) {
	if sf == r.cfg.SF {
		// The main lake: the TPC-H section's figures when it ran, else measured here.
		if r.tpchResult == nil {
			if _, err := r.ensureTPCH(ctx, false); err != nil {
				return scalePoint{}, err
			}
			q, err := newPGQuerier(ctx, r.lake.dsn(), false)
			if err != nil {
				return scalePoint{}, err
			}
			runs, err := r.runTPCH(ctx, querySystem{"lakepg", q, r.lake.pids})
			q.close()
			if err != nil {
				return scalePoint{}, err
			}
			r.tpchResult = runs[0]
		}
		return scalePoint{sf: sf, load: r.tpchLoads[0], run: r.tpchResult}, nil
	}
	dataDir, err := r.tpchData(ctx, sf)
	if err != nil {
		return scalePoint{}, err
	}
	dir := filepath.Join(r.work, "lake-sf"+sfName(sf))
	srv, err := r.startLakepg(ctx, "sf"+sfName(sf), dir, nil,
		"--catalog", "sqlite:"+filepath.Join(dir, "catalog.sqlite"), "--data", filepath.Join(dir, "data"))
	if err != nil {
		return scalePoint{}, err
	}
	defer func() {
		srv.stop()
		os.RemoveAll(dir)
	}()
	r.logf("scaling: loading SF%s", sfName(sf))
	lr, err := r.loadLakepgTPCH(ctx, srv, dataDir)
	if err != nil {
		return scalePoint{}, err
	}
	lr.size = dirSize(filepath.Join(dir, "data"))
	q, err := newPGQuerier(ctx, srv.dsn(), false)
	if err != nil {
		return scalePoint{}, err
	}
	defer q.close()
	runs, err := r.runTPCH(ctx, querySystem{"lakepg SF" + sfName(sf), q, srv.pids})
	if err != nil {
		return scalePoint{}, err
	}
	return scalePoint{sf: sf, load: lr, run: runs[0]}, nil
}

func (r *Runner) sectionScaling(ctx context.Context, s *section) error {
	var pts []scalePoint
	for _, sf := range r.cfg.ScalingSF {
		p, err := r.scalePoint(ctx, sf)
		if err != nil {
			return err
		}
		pts = append(pts, p)
	}
	s.printf("**Data size.** lakepg's TPC-H at each scale factor: loading (CREATE TABLE … AS SELECT * FROM read_parquet "+
		"of tpchgen-cli's files), the 22 queries (%d timed runs each, sum and geometric mean of the medians), peak memory "+
		"of the server while loading and while querying.", r.cfg.Runs)
	var rows [][]string
	var sumXY, gmXY, memXY plotter.XYs
	for _, p := range pts {
		sum, gm, _ := p.run.summary(r.cfg.Timeout)
		rows = append(rows, []string{sfName(p.sf), fmtDur(p.load.elapsed), bytesHuman(p.load.size), mib(p.load.peak), sum.String() + " s", gm.String() + " s", mib(p.run.peak)})
		if sum.ok {
			sumXY = append(sumXY, plotter.XY{X: p.sf, Y: sum.v})
			gmXY = append(gmXY, plotter.XY{X: p.sf, Y: gm.v})
		}
		memXY = append(memXY, plotter.XY{X: p.sf, Y: float64(p.run.peak) / (1 << 20)})
	}
	s.table([]string{"scale factor", "load", "lake size", "peak memory, load", "22 queries, sum", "geometric mean", "peak memory, queries"}, rows)
	if len(pts) > 1 {
		path, link := r.chartPath("scaling-time")
		if err := lineChart(path, "Scaling: TPC-H time by scale factor (log-log)", "scale factor", "seconds",
			[]xySeries{{"sum of 22 medians", sumXY}, {"geometric mean", gmXY}}, true, true); err != nil {
			return err
		}
		s.chart(link, "Time by scale factor")
		path, link = r.chartPath("scaling-memory")
		if err := lineChart(path, "Scaling: lakepg peak memory while querying (MiB)", "scale factor", "MiB",
			[]xySeries{{"lakepg", memXY}}, true, false); err != nil {
			return err
		}
		s.chart(link, "Memory by scale factor")
	}
	return r.coresScaling(ctx, s)
}

// coresScaling compares 1 core with Config.Threads at Config.SF, for lakepg (GOMAXPROCS)
// and DuckDB (threads) on lakepg's files.
func (r *Runner) coresScaling(ctx context.Context, s *section) error {
	n := r.cfg.Threads
	if n < 2 {
		s.printf("\n**Cores.** BENCH_THREADS is 1: no parallel speed-up to show.")
		return nil
	}
	if _, err := r.ensureTPCH(ctx, false); err != nil {
		return err
	}
	// Two fresh servers on the main lake, so that neither carries memory from earlier sections.
	lakeArgs := []string{"--catalog", "sqlite:" + filepath.Join(r.lake.dir, "catalog.sqlite"), "--data", filepath.Join(r.lake.dir, "data")}
	one, err := r.startLakepg(ctx, "1core", filepath.Join(r.work, "lake-1core"), []string{"GOMAXPROCS=1"}, lakeArgs...)
	if err != nil {
		return err
	}
	defer one.stop()
	many, err := r.startLakepg(ctx, fmt.Sprintf("%dcores", n), filepath.Join(r.work, fmt.Sprintf("lake-%dcores", n)), []string{fmt.Sprintf("GOMAXPROCS=%d", n)}, lakeArgs...)
	if err != nil {
		return err
	}
	defer many.stop()
	q1, err := newPGQuerier(ctx, one.dsn(), false)
	if err != nil {
		return err
	}
	defer q1.close()
	qn, err := newPGQuerier(ctx, many.dsn(), false)
	if err != nil {
		return err
	}
	defer qn.close()
	catalog := filepath.Join(r.lake.dir, "catalog.sqlite")
	d1, err := r.duckOnLake(ctx, "threads1", catalog, 1)
	if err != nil {
		return err
	}
	defer d1.close()
	dn, err := r.duckOnLake(ctx, fmt.Sprintf("threads%d", n), catalog, n)
	if err != nil {
		return err
	}
	defer dn.close()
	runs, err := r.runTPCH(ctx,
		querySystem{"lakepg, 1 core", q1, one.pids},
		querySystem{fmt.Sprintf("lakepg, %d cores", n), qn, many.pids},
		querySystem{"DuckDB, 1 thread", duckQuerier{d1}, d1.pids},
		querySystem{fmt.Sprintf("DuckDB, %d threads", n), duckQuerier{dn}, dn.pids})
	if err != nil {
		return err
	}
	l1, all, dq1, dqn := runs[0], runs[1], runs[2], runs[3]
	s.printf("\n**Cores.** TPC-H SF%s on 1 core and on %d: lakepg with GOMAXPROCS=1 against GOMAXPROCS=%d (two fresh servers "+
		"on the same lake), DuckDB (on lakepg's files) with `SET threads` 1 and %d, the four taking turns query by query. "+
		"Speed-up is the 1-core median over the %d-core one; it cannot reach %d when other work shares the cores.", sfName(r.cfg.SF), n, n, n, n, n)
	var rows [][]string
	var su, sd []bound
	spL, spD := series{name: "lakepg"}, series{name: "DuckDB"}
	cats := []string{}
	for i := 1; i <= 22; i++ {
		a, b := ratio(l1.q[i-1].medianOr(r.cfg.Timeout), all.q[i-1].median()), ratio(dq1.q[i-1].medianOr(r.cfg.Timeout), dqn.q[i-1].median())
		su, sd = append(su, a), append(sd, b)
		rows = append(rows, []string{fmt.Sprintf("Q%d", i), l1.q[i-1].cell(r.cfg.Timeout), all.q[i-1].cell(r.cfg.Timeout), a.ratioString(),
			dq1.q[i-1].cell(r.cfg.Timeout), dqn.q[i-1].cell(r.cfg.Timeout), b.ratioString()})
		cats = append(cats, fmt.Sprintf("Q%d", i))
		spL.values = append(spL.values, valueOr(a))
		spD.values = append(spD.values, valueOr(b))
	}
	gl, _ := geomean(su)
	gd, _ := geomean(sd)
	rows = append(rows, []string{"**geometric mean**", "", "", gl.ratioString(), "", "", gd.ratioString()},
		[]string{"**peak memory**", mib(l1.peak), mib(all.peak), "", mib(dq1.peak), mib(dqn.peak), ""})
	s.table([]string{"query", "lakepg 1 core", fmt.Sprintf("lakepg %d cores", n), "lakepg speed-up",
		"DuckDB 1 thread", fmt.Sprintf("DuckDB %d threads", n), "DuckDB speed-up"}, rows)
	path, link := r.chartPath("scaling-cores")
	if err := barChart(path, fmt.Sprintf("Speed-up from 1 to %d cores per TPC-H query (higher is better)", n), "speed-up", cats, []series{spL, spD}, false); err != nil {
		return err
	}
	s.chart(link, "Parallel speed-up")
	return nil
}

func valueOr(b bound) float64 {
	if !b.ok {
		return math.NaN()
	}
	return b.v
}
