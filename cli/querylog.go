package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"
)

// The statement line of the query log is written here for both the server
// (cmd/lakepg, after each statement a client ran) and the embedded shell,
// so the two cannot drift apart: cli is the one package both import.

// ScanStats are what a statement's scans read and skipped
// (exec.QueryStats).
type ScanStats interface {
	BytesRead() int64
	FilesPruned() int64
	RowGroupsPruned() int64
	PagesSkipped() int64
}

// QueryLog writes one line per finished statement: at warn when it took at
// least Slow, else at debug.
type QueryLog struct {
	Log  *slog.Logger
	Slow time.Duration // negative: never warn
}

// Statement logs one finished statement: rows it returned, what its scans
// read (nil: nothing counted), its command tag or its error.
func (q *QueryLog) Statement(user, text string, took time.Duration, rows int64, scans ScanStats, tag string, err error) {
	if q == nil || q.Log == nil {
		return
	}
	level := slog.LevelDebug
	if q.Slow >= 0 && took >= q.Slow {
		level = slog.LevelWarn
	}
	if !q.Log.Enabled(context.Background(), level) {
		return
	}
	attrs := []slog.Attr{
		slog.String("user", user),
		slog.Float64("duration_ms", float64(took.Microseconds())/1000),
		slog.Int64("rows", rows),
	}
	if scans != nil {
		attrs = append(attrs,
			slog.Int64("bytes_read", scans.BytesRead()),
			slog.Int64("files_pruned", scans.FilesPruned()),
			slog.Int64("row_groups_pruned", scans.RowGroupsPruned()),
			slog.Int64("pages_skipped", scans.PagesSkipped()))
	}
	attrs = append(attrs, slog.String("statement", truncateText(text, 1000)))
	if err != nil {
		attrs = append(attrs, slog.String("sqlstate", SQLState(err)), slog.String("error", err.Error()))
	} else {
		attrs = append(attrs, slog.String("tag", tag))
	}
	q.Log.LogAttrs(context.Background(), level, "statement", attrs...)
}

func truncateText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// NewLogger is the process logger on w: format text or json, at level
// (debug, info, warn or error).
func NewLogger(w io.Writer, format, level string) (*slog.Logger, error) {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("--log-level: %w", err)
	}
	opts := &slog.HandlerOptions{Level: lv}
	switch strings.ToLower(format) {
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, fmt.Errorf("--log-format %q: want text or json", format)
}

// ParseSlowQuery reads --slow-query-ms: a whole number of milliseconds, or
// a negative one for "never warn".
func ParseSlowQuery(ms string) (time.Duration, error) {
	n, err := strconv.Atoi(ms)
	if err != nil {
		return 0, fmt.Errorf("--slow-query-ms %q: want a whole number of milliseconds", ms)
	}
	if n < 0 {
		return -1, nil
	}
	return time.Duration(n) * time.Millisecond, nil
}

// logFlags are the query log options of the embedded shell, the server's
// --log-level, --log-format and --slow-query-ms.
type logFlags struct {
	level, format, slow *string
}

func addLogFlags(fs *flag.FlagSet) logFlags {
	return logFlags{
		level:  fs.String("log-level", Env("log-level", "info"), "embedded: log at this level (debug, info, warn, error) to stderr; statements are logged at debug, slow ones at warn (env "+EnvName("log-level")+")"),
		format: fs.String("log-format", Env("log-format", "text"), "embedded: log format, text or json (env "+EnvName("log-format")+")"),
		slow:   fs.String("slow-query-ms", Env("slow-query-ms", "1000"), "embedded: statements slower than this many ms are logged at warn, others at debug; -1: never warn (env "+EnvName("slow-query-ms")+")"),
	}
}

// queryLog is the statement log the flags ask for, nil when none of them
// was given (on the command line, in the environment or the config file):
// a shell logs nothing unless asked to.
func (lf logFlags) queryLog(fs *flag.FlagSet, w io.Writer) (*QueryLog, error) {
	set := false
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "log-level", "log-format", "slow-query-ms":
			set = true
		}
	})
	for _, name := range []string{"log-level", "log-format", "slow-query-ms"} {
		if _, ok := os.LookupEnv(EnvName(name)); ok {
			set = true
		}
	}
	if !set {
		return nil, nil
	}
	log, err := NewLogger(w, *lf.format, *lf.level)
	if err != nil {
		return nil, err
	}
	slow, err := ParseSlowQuery(*lf.slow)
	if err != nil {
		return nil, err
	}
	return &QueryLog{Log: log, Slow: slow}, nil
}
