package bench

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// concResult is one concurrency level.
type concResult struct {
	clients   int
	done      int
	errors    int
	firstErr  string
	lat       []float64
	elapsed   time.Duration
	cancelled int // queries still running at the end of the grace period
	peak      int64
}

// runMix has n clients run the 22 TPC-H queries, each client in its own shuffled order,
// over and over until the duration is up; queries started before then may finish within
// a grace period as long as the duration, and are counted. qps is over the whole time.
func (r *Runner) runMix(ctx context.Context, dsn string, n int, d time.Duration, pids func() []int) concResult {
	return r.runMixOn(ctx, []string{dsn}, n, d, pids)
}

// runMixOn is runMix with the clients spread over several servers' DSNs, round robin.
func (r *Runner) runMixOn(ctx context.Context, dsns []string, n int, d time.Duration, pids func() []int) concResult {
	mw := watchMemory(pids)
	defer mw.Close()
	mw.Reset()
	res := concResult{clients: n}
	var mu sync.Mutex
	var wg sync.WaitGroup
	start := time.Now()
	stopAt := start.Add(d)
	hard, cancel := context.WithDeadline(ctx, stopAt.Add(d+10*time.Second))
	defer cancel()
	for k := 0; k < n; k++ {
		wg.Add(1)
		go func(k int) {
			defer wg.Done()
			cfg, err := pgx.ParseConfig(dsns[k%len(dsns)])
			if err != nil {
				return
			}
			cfg.DefaultQueryExecMode = pgx.QueryExecModeExec
			c, err := pgx.ConnectConfig(hard, cfg)
			if err != nil {
				mu.Lock()
				res.errors++
				res.firstErr = err.Error()
				mu.Unlock()
				return
			}
			defer c.Close(context.Background())
			order := rand.New(rand.NewSource(int64(k + 1))).Perm(22)
			for i := 0; time.Now().Before(stopAt); i++ {
				q := order[i%22] + 1
				t := time.Now()
				_, err := drain(hard, c, tpchQuery(q))
				el := time.Since(t).Seconds()
				mu.Lock()
				switch {
				case err == nil:
					res.done++
					res.lat = append(res.lat, el)
				case errors.Is(hard.Err(), context.DeadlineExceeded):
					res.cancelled++
				default:
					res.errors++
					if res.firstErr == "" {
						res.firstErr = fmt.Sprintf("Q%d: %s", q, firstLines(err.Error(), 1))
					}
				}
				mu.Unlock()
				if err != nil && c.IsClosed() {
					return
				}
			}
		}(k)
	}
	wg.Wait()
	res.elapsed = time.Since(start)
	res.peak = mw.Peak()
	return res
}

func (r *Runner) sectionConcurrency(ctx context.Context, s *section) error {
	if _, err := r.ensureTPCH(ctx, false); err != nil {
		return err
	}
	var results []concResult
	for _, n := range r.cfg.Clients {
		r.logf("concurrency: %d clients for %s", n, r.cfg.ConcDuration)
		res := r.runMix(ctx, r.lake.dsn(), n, r.cfg.ConcDuration, r.lake.pids)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		results = append(results, res)
	}
	s.printf("1 to %d clients, each on its own connection running the 22 TPC-H queries (SF%s) in its own shuffled order, "+
		"again and again for %s against lakepg; queries still running then may finish within as long again and count. "+
		"Queries per second are completed queries over the whole time; latency is per query, all queries together. "+
		"Errors must be 0; a query cut off after the grace period is listed apart.",
		r.cfg.Clients[len(r.cfg.Clients)-1], sfName(r.cfg.SF), r.cfg.ConcDuration)
	var rows [][]string
	var qps, p95 []float64
	for _, c := range results {
		errs := fmt.Sprint(c.errors)
		if c.firstErr != "" {
			errs += " (" + c.firstErr + ")"
		}
		q := float64(c.done) / c.elapsed.Seconds()
		rows = append(rows, []string{fmt.Sprint(c.clients), fmt.Sprint(c.done), fmtDur(c.elapsed), fmt.Sprintf("%.2f", q),
			secs(percentile(c.lat, 50)) + " s", secs(percentile(c.lat, 95)) + " s", errs, fmt.Sprint(c.cancelled), mib(c.peak)})
		qps, p95 = append(qps, q), append(p95, percentile(c.lat, 95))
	}
	s.table([]string{"clients", "queries", "time", "queries/s", "p50", "p95", "errors", "cut off", "lakepg peak memory"}, rows)
	var cats []string
	for _, c := range results {
		cats = append(cats, fmt.Sprintf("%d", c.clients))
	}
	path, link := r.chartPath("concurrency-qps")
	if err := barChart(path, "Concurrency: TPC-H queries per second by clients", "queries/s", cats, []series{{name: "lakepg", values: qps}}, false); err != nil {
		return err
	}
	s.chart(link, "Queries per second by clients")
	path, link = r.chartPath("concurrency-p95")
	if err := barChart(path, "Concurrency: p95 query latency by clients (seconds)", "seconds", cats, []series{{name: "lakepg", values: p95}}, false); err != nil {
		return err
	}
	s.chart(link, "p95 latency by clients")
	return nil
}
