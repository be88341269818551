package bench

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strconv"
	"time"
)

// scaleoutServers is how many lakepg servers the scale-out section grows to, and
// scaleoutClients how many TPC-H clients each server gets.
const (
	scaleoutServers = 3
	scaleoutClients = 2
)

// sectionScaleout serves one lake (catalog in PostgreSQL, data in a directory) from 1, 2
// and 3 lakepg servers, each with its own clients running the TPC-H queries, and reports
// the queries per second and the catalog round trips per query (the servers'
// lakepg_catalog_queries_total): how far adding servers goes before the catalog, or the
// machine, is the limit.
func (r *Runner) sectionScaleout(ctx context.Context, s *section) error {
	dataDir, err := r.tpchData(ctx, r.cfg.SF)
	if err != nil {
		return err
	}
	pg, err := r.postgresServer(ctx)
	if err != nil {
		return err
	}
	catalog, err := pg.createDB(ctx, r, "scaleout")
	if err != nil {
		return err
	}
	dir := filepath.Join(r.work, "lake-scaleout")
	data := filepath.Join(dir, "data")
	var servers []*lakepgServer
	var metrics []string
	defer func() {
		for _, sv := range servers {
			sv.stop()
		}
	}()
	for i := 0; i < scaleoutServers; i++ {
		port, err := freePort()
		if err != nil {
			return err
		}
		m := fmt.Sprintf("127.0.0.1:%d", port)
		sv, err := r.startLakepg(ctx, fmt.Sprintf("scaleout-%d", i+1), filepath.Join(dir, fmt.Sprintf("server%d", i+1)), nil,
			"--catalog", catalog, "--data", data, "--metrics-listen", m)
		if err != nil {
			return err
		}
		servers, metrics = append(servers, sv), append(metrics, m)
		if i == 0 {
			r.logf("scaleout: loading TPC-H SF%s into the PostgreSQL-catalog lake", sfName(r.cfg.SF))
			if _, err := r.loadLakepgTPCH(ctx, sv, dataDir); err != nil {
				return err
			}
		}
	}
	pids := func() []int {
		var out []int
		for _, sv := range servers {
			out = append(out, sv.pids()...)
		}
		return out
	}
	type level struct {
		servers   int
		res       concResult
		perQuery  float64
		catalogQ  int64
		catalogPS float64
	}
	var levels []level
	for n := 1; n <= scaleoutServers; n++ {
		var dsns []string
		for _, sv := range servers[:n] {
			dsns = append(dsns, sv.dsn())
		}
		before, err := catalogQueries(metrics[:n])
		if err != nil {
			return err
		}
		r.logf("scaleout: %d servers, %d clients for %s", n, n*scaleoutClients, r.cfg.ConcDuration)
		res := r.runMixOn(ctx, dsns, n*scaleoutClients, r.cfg.ConcDuration, pids)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		after, err := catalogQueries(metrics[:n])
		if err != nil {
			return err
		}
		lv := level{servers: n, res: res, catalogQ: after - before}
		if res.done > 0 {
			lv.perQuery = float64(lv.catalogQ) / float64(res.done)
		}
		lv.catalogPS = float64(lv.catalogQ) / res.elapsed.Seconds()
		levels = append(levels, lv)
	}
	s.printf("One lake, its catalog in PostgreSQL (the run's server) and its data in a local directory, served by 1, 2 "+
		"and %d lakepg servers on this machine, each with %d clients of its own running the 22 TPC-H queries (SF%s) in "+
		"shuffled orders for %s. Catalog round trips are the servers' lakepg_catalog_queries_total over the run; "+
		"all servers share the machine's %d threads, so the figures show what the catalog costs per query rather than "+
		"how a cluster of separate machines scales.",
		scaleoutServers, scaleoutClients, sfName(r.cfg.SF), r.cfg.ConcDuration, r.cfg.Threads)
	var rows [][]string
	var cats []string
	var qps []float64
	for _, lv := range levels {
		q := float64(lv.res.done) / lv.res.elapsed.Seconds()
		errs := fmt.Sprint(lv.res.errors)
		if lv.res.firstErr != "" {
			errs += " (" + lv.res.firstErr + ")"
		}
		rows = append(rows, []string{fmt.Sprint(lv.servers), fmt.Sprint(lv.servers * scaleoutClients), fmt.Sprint(lv.res.done),
			fmt.Sprintf("%.2f", q), secs(percentile(lv.res.lat, 50)) + " s", secs(percentile(lv.res.lat, 95)) + " s",
			fmt.Sprintf("%.1f", lv.perQuery), fmt.Sprintf("%.0f", lv.catalogPS), errs})
		cats = append(cats, fmt.Sprint(lv.servers))
		qps = append(qps, q)
	}
	s.table([]string{"servers", "clients", "queries", "queries/s", "p50", "p95", "catalog round trips per query",
		"catalog round trips/s", "errors"}, rows)
	path, link := r.chartPath("scaleout-qps")
	if err := barChart(path, "Scale-out: TPC-H queries per second by lakepg servers", "queries/s", cats,
		[]series{{name: "lakepg", values: qps}}, false); err != nil {
		return err
	}
	s.chart(link, "Queries per second by servers")
	for _, lv := range levels {
		if lv.res.errors > 0 {
			return fmt.Errorf("scaleout: %d servers: %d queries failed: %s", lv.servers, lv.res.errors, lv.res.firstErr)
		}
		if lv.res.done == 0 {
			return fmt.Errorf("scaleout: %d servers completed no query", lv.servers)
		}
	}
	return nil
}

var catalogQueriesLine = regexp.MustCompile(`(?m)^lakepg_catalog_queries_total (\d+)`)

// catalogQueries sums lakepg_catalog_queries_total over the servers' /metrics.
func catalogQueries(addrs []string) (int64, error) {
	cl := &http.Client{Timeout: 10 * time.Second}
	var sum int64
	for _, a := range addrs {
		resp, err := cl.Get("http://" + a + "/metrics")
		if err != nil {
			return 0, err
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return 0, err
		}
		m := catalogQueriesLine.FindSubmatch(b)
		if m == nil {
			return 0, fmt.Errorf("%s/metrics has no lakepg_catalog_queries_total", a)
		}
		n, _ := strconv.ParseInt(string(m[1]), 10, 64)
		sum += n
	}
	return sum, nil
}
