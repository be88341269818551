// Command lakepg serves a DuckLake lakehouse over the PostgreSQL protocol.
// With no arguments it serves the embedded default: a SQLite catalog at
// ./lakehouse/catalog.sqlite and data files under ./lakehouse/data/.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/cli"
	"github.com/lakepg/lakepg/sql"
	"github.com/lakepg/lakepg/storage"
	"github.com/lakepg/lakepg/wire"
)

// Version is lakepg's release.
const Version = "0.1.0"

func env(name, def string) string {
	if v, ok := os.LookupEnv(name); ok {
		return v
	}
	return def
}

func main() {
	args := os.Args[1:]
	if len(args) > 0 && args[0] == "serve" {
		args = args[1:]
	} else if len(args) > 0 && cli.IsCommand(args[0]) {
		os.Exit(cli.Run(args, cli.Info{Version: Version}))
	}
	if err := run(args); err != nil {
		fmt.Fprintln(os.Stderr, "lakepg:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("lakepg", flag.ContinueOnError)
	listen := fs.String("listen", env("LAKEPG_LISTEN", "127.0.0.1:5433"), "address to serve the PostgreSQL protocol on (env LAKEPG_LISTEN)")
	catDSN := fs.String("catalog", env("LAKEPG_CATALOG", "sqlite:lakehouse/catalog.sqlite"), "DuckLake catalog: sqlite:PATH or a postgres:// DSN (env LAKEPG_CATALOG)")
	catSchema := fs.String("catalog-schema", env("LAKEPG_CATALOG_SCHEMA", ""), "PostgreSQL schema of the catalog tables, DuckDB's METADATA_SCHEMA; default public (env LAKEPG_CATALOG_SCHEMA)")
	dlVersion := fs.String("ducklake-version", env("LAKEPG_DUCKLAKE_VERSION", ""), "DuckLake format version of a new lake: 1.0 (the default; DuckDB 1.5 reads it) or 1.1 (DuckDB 2.0); an existing lake keeps its own, see 'lakepg migrate' (env LAKEPG_DUCKLAKE_VERSION)")
	encrypted := fs.Bool("encrypted", env("LAKEPG_ENCRYPTED", "") == "true", "create a new lake encrypted, as DuckDB's ENCRYPTED: every data and delete file gets its own key, kept in the catalog (env LAKEPG_ENCRYPTED=true)")
	data := fs.String("data", env("LAKEPG_DATA", "lakehouse/data"), "data directory or s3://bucket/prefix (env LAKEPG_DATA)")
	level := fs.String("log-level", env("LAKEPG_LOG_LEVEL", "info"), "debug, info, warn or error (env LAKEPG_LOG_LEVEL)")
	maxConns := fs.String("max-connections", env("LAKEPG_MAX_CONNECTIONS", "100"), "most client sessions at once; beyond it FATAL 53300, 0 = no limit (env LAKEPG_MAX_CONNECTIONS)")
	maxActive := fs.String("max-active-queries", env("LAKEPG_MAX_ACTIVE_QUERIES", strconv.Itoa(sql.DefaultActiveQueries())), "most statements computing on lake data at once, the others wait their turn; 0 = no limit (env LAKEPG_MAX_ACTIVE_QUERIES)")
	peers := fs.String("peers", env("LAKEPG_PEERS", ""), "comma-separated host:port of the other lakepg servers of the lake, to which cancel requests for sessions not on this server are relayed (env LAKEPG_PEERS)")
	storeOpts := storage.RegisterFlags(fs) // --s3-*, --cache-*
	obsFlags := addObservabilityFlags(fs)
	secFlags := addSecurityFlags(fs)
	memFlags := addMemoryFlags(fs)
	if err := cli.ParseFlags(fs, args, true); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		if fs.Arg(0) == "version" {
			fmt.Println("lakepg", Version)
			return nil
		}
		return fmt.Errorf("unknown command %q", fs.Arg(0))
	}
	maxSessions, err := strconv.Atoi(*maxConns)
	if err != nil || maxSessions < 0 {
		return fmt.Errorf("--max-connections %q: want a whole number of sessions, 0 for no limit", *maxConns)
	}
	activeQueries, err := strconv.Atoi(*maxActive)
	if err != nil || activeQueries < 0 {
		return fmt.Errorf("--max-active-queries %q: want a whole number of statements, 0 for no limit", *maxActive)
	}
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(*level)); err != nil {
		return fmt.Errorf("--log-level: %w", err)
	}
	log, err := obsFlags.logger(lv)
	if err != nil {
		return err
	}
	slog.SetDefault(log)
	memLimit, err := memFlags.apply()
	if err != nil {
		return err
	}
	fileLists, err := memFlags.fileListCache()
	if err != nil {
		return err
	}

	if _, _, err := net.SplitHostPort(*listen); err != nil {
		return fmt.Errorf("--listen: %w", err)
	}
	var peerAddrs []string
	for _, p := range strings.Split(*peers, ",") {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		if _, _, err := net.SplitHostPort(p); err != nil {
			return fmt.Errorf("--peers %q: %w", p, err)
		}
		peerAddrs = append(peerAddrs, p)
	}
	tlsCfg, err := secFlags.tlsConfig(log)
	if err != nil {
		return err
	}

	dataPath := *data
	if !strings.Contains(dataPath, "://") {
		abs, err := filepath.Abs(dataPath)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(abs, 0o755); err != nil {
			return fmt.Errorf("create data directory: %w", err)
		}
		dataPath = abs + "/"
	}
	if p, ok := strings.CutPrefix(*catDSN, "sqlite:"); ok {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fmt.Errorf("create catalog directory: %w", err)
		}
	}
	ctx := context.Background()
	db, err := catalog.OpenWithOptions(ctx, *catDSN, dataPath, catalog.Options{Schema: *catSchema, Encrypted: *encrypted, Format: *dlVersion,
		FileCacheBytes: fileLists})
	if err != nil {
		return err
	}
	defer db.Close()
	if added, err := db.IndexesAdded(); len(added) > 0 || err != nil {
		// a catalog DuckDB or an older lakepg made: lakepg's indexes are
		// added once; without them the catalog works, more slowly
		if len(added) > 0 {
			log.Info("catalog indexes added", "indexes", strings.Join(added, ", "))
		}
		if err != nil {
			log.Warn("catalog indexes not added; the catalog works without them, more slowly as it grows", "err", err)
		}
	}
	store, err := storage.ForDataPath(db.DataPath(), *storeOpts)
	if err != nil {
		return err
	}
	eng := sql.NewEngine(db, store, log)
	eng.Admission = sql.NewAdmission(activeQueries)
	if err := secFlags.prepare(ctx, eng, *listen, log); err != nil {
		return err
	}
	obs, stopMetrics, err := obsFlags.start(log)
	if err != nil {
		return err
	}
	defer stopMetrics()
	obs.watchAdmission(eng.Admission)
	wopts := wire.Options{Logger: log, ServerVersion: sql.ServerVersion + " (lakepg " + Version + ")", MaxConnections: maxSessions, CancelPeers: peerAddrs}
	secFlags.apply(&wopts, tlsCfg)
	srv := wire.New(wireEngine{eng: eng, obs: obs}, wopts)
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return err
	}
	log.Info("lakepg serving", "listen", ln.Addr().String(), "catalog", catalog.RedactDSN(*catDSN), "data", db.DataPath(), "ducklake_format", db.Format(), "version", Version,
		"memory_limit", memLimit, "temp_dir", *memFlags.tempDir)

	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case sig := <-sigs:
		log.Info("shutting down", "signal", sig.String())
		sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		done := make(chan error, 1)
		go func() {
			err := srv.Shutdown(sctx)
			eng.WaitWrites()
			done <- err
		}()
		select {
		case err := <-done:
			if err != nil && !errors.Is(err, context.DeadlineExceeded) {
				return err
			}
		case <-time.After(20 * time.Second):
			// a statement that ignores cancellation must not keep the process alive;
			// commits are atomic in the catalog, so nothing half-written survives
			log.Error("shutdown: statements still running after 20s; exiting anyway")
		}
		return nil
	case err := <-done:
		return err
	}
}
