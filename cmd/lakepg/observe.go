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
	"strconv"
	"strings"
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
	opts := &slog.HandlerOptions{Level: level}
	switch strings.ToLower(*o.logFormat) {
	case "text":
		return slog.New(slog.NewTextHandler(os.Stderr, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(os.Stderr, opts)), nil
	}
	return nil, fmt.Errorf("--log-format %q: want text or json", *o.logFormat)
}

// start registers the metrics and serves them when --metrics-listen is set;
// the returned function stops the endpoint.
func (o *observability) start(log *slog.Logger) (*observer, func(), error) {
	ms, err := strconv.Atoi(*o.slowQueryMS)
	if err != nil {
		return nil, nil, fmt.Errorf("--slow-query-ms %q: want a whole number of milliseconds", *o.slowQueryMS)
	}
	obs := newObserver(log, time.Duration(ms)*time.Millisecond)
	if ms < 0 {
		obs.slow = -1
	}
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
	log  *slog.Logger
	slow time.Duration // -1: never warn
	reg  *prometheus.Registry

	connections prometheus.Gauge
	queries     *prometheus.CounterVec
	duration    prometheus.Histogram
	rows        prometheus.Counter
}

func newObserver(log *slog.Logger, slow time.Duration) *observer {
	o := &observer{
		log:  log,
		slow: slow,
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

// scanStats are what a statement's scans read and skipped
// (exec.QueryStats).
type scanStats interface {
	BytesRead() int64
	FilesPruned() int64
	RowGroupsPruned() int64
}

// statement records one finished statement: rows it returned, what its
// scans read (nil: nothing counted), its command tag or its error.
func (o *observer) statement(user, text string, start time.Time, rows int64, scans scanStats, tag string, err error) {
	if o == nil {
		return
	}
	took := time.Since(start)
	o.duration.Observe(took.Seconds())
	o.rows.Add(float64(rows))
	attrs := []slog.Attr{
		slog.String("user", user),
		slog.Float64("duration_ms", float64(took.Microseconds())/1000),
		slog.Int64("rows", rows),
	}
	if scans != nil {
		attrs = append(attrs,
			slog.Int64("bytes_read", scans.BytesRead()),
			slog.Int64("files_pruned", scans.FilesPruned()),
			slog.Int64("row_groups_pruned", scans.RowGroupsPruned()))
	}
	attrs = append(attrs, slog.String("statement", truncateText(text, 1000)))
	if err != nil {
		o.queries.WithLabelValues("error").Inc()
		attrs = append(attrs, slog.String("sqlstate", cli.SQLState(err)), slog.String("error", err.Error()))
	} else {
		o.queries.WithLabelValues("ok").Inc()
		attrs = append(attrs, slog.String("tag", tag))
	}
	level := slog.LevelDebug
	if o.slow >= 0 && took >= o.slow {
		level = slog.LevelWarn
	}
	o.log.LogAttrs(context.Background(), level, "statement", attrs...)
}

func truncateText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
