package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/lakepg/lakepg/cli"
)

// observability holds the server's logging and metrics options and, once
// started, the observer the engine adapter reports to.
type observability struct {
	logFormat     *string
	slowQueryMS   *string
	metricsListen *string
}

func addObservabilityFlags(fs *flag.FlagSet) *observability {
	return &observability{
		logFormat:     fs.String("log-format", cli.Env("log-format", "text"), "log format: text or json (env "+cli.EnvName("log-format")+")"),
		slowQueryMS:   fs.String("slow-query-ms", cli.Env("slow-query-ms", "1000"), "statements slower than this many ms are logged at warn, others at debug; -1: never warn (env "+cli.EnvName("slow-query-ms")+")"),
		metricsListen: fs.String("metrics-listen", cli.Env("metrics-listen", ""), "address for the Prometheus /metrics endpoint, e.g. 127.0.0.1:9187; empty: none (env "+cli.EnvName("metrics-listen")+")"),
	}
}

// logger builds the process logger on stderr.
func (o *observability) logger(level slog.Level) (*slog.Logger, error) {
	return cli.NewLogger(os.Stderr, *o.logFormat, level.String())
}

// start registers the metrics and serves them when --metrics-listen is set;
// the returned function stops the endpoint.
func (o *observability) start(log *slog.Logger) (*observer, func(), error) {
	slow, err := cli.ParseSlowQuery(*o.slowQueryMS)
	if err != nil {
		return nil, nil, err
	}
	obs := newObserver(log, slow)
	if *o.metricsListen == "" {
		return obs, func() {}, nil
	}
	ln, err := net.Listen("tcp", *o.metricsListen)
	if err != nil {
		return nil, nil, fmt.Errorf("--metrics-listen: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(obs.reg, promhttp.HandlerOpts{}))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("metrics endpoint stopped", "err", err)
		}
	}()
	log.Info("metrics serving", "listen", ln.Addr().String(), "path", "/metrics")
	return obs, func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	}, nil
}

// observer counts connections and statements and writes the query log. A
// nil observer does nothing, so the adapter needs no checks.
type observer struct {
	qlog cli.QueryLog // the statement line, shared with the embedded shell
	reg  *prometheus.Registry

	connections prometheus.Gauge
	queries     *prometheus.CounterVec
	duration    prometheus.Histogram
	rows        prometheus.Counter
}

func newObserver(log *slog.Logger, slow time.Duration) *observer {
	o := &observer{
		qlog: cli.QueryLog{Log: log, Slow: slow},
		reg:  prometheus.NewRegistry(),
		connections: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "lakepg_connections", Help: "Client sessions currently open.",
		}),
		queries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "lakepg_queries_total", Help: "Statements executed, by outcome (ok or error).",
		}, []string{"status"}),
		duration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "lakepg_query_duration_seconds", Help: "Time from the start of a statement to the end of its result.",
			Buckets: []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60},
		}),
		rows: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "lakepg_rows_returned_total", Help: "Rows sent to clients.",
		}),
	}
	o.queries.WithLabelValues("ok")
	o.queries.WithLabelValues("error")
	o.reg.MustRegister(o.connections, o.queries, o.duration, o.rows, newStorageCollector(),
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return o
}

func (o *observer) connOpened() {
	if o != nil {
		o.connections.Inc()
	}
}

func (o *observer) connClosed() {
	if o != nil {
		o.connections.Dec()
	}
}

// scanStats are what a statement's scans read and skipped.
type scanStats = cli.ScanStats

// statement records one finished statement: rows it returned, what its
// scans read (nil: nothing counted), its command tag or its error.
func (o *observer) statement(user, text string, start time.Time, rows int64, scans scanStats, tag string, err error) {
	if o == nil {
		return
	}
	took := time.Since(start)
	o.duration.Observe(took.Seconds())
	o.rows.Add(float64(rows))
	if err != nil {
		o.queries.WithLabelValues("error").Inc()
	} else {
		o.queries.WithLabelValues("ok").Inc()
	}
	o.qlog.Statement(user, text, took, rows, scans, tag, err)
}
