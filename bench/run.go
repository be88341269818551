package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// tools are the programs the run found or installed.
type tools struct {
	duckdb, tpchgen, pgBin, psql, versitygw, lakepg string
}

// Runner carries one run: its scratch directory, the servers shared by several sections
// and what earlier sections left for later ones.
type Runner struct {
	cfg        Config
	work       string // scratch directory of this run
	base       string // report path without extension: <OutDir>/<date>-<name>
	rep        *report
	tools      tools
	aptUpdated bool
	log        io.Writer

	pg   *postgres     // the PostgreSQL server, started on first use
	pgDB string        // its database holding the benchmark's tables
	lake *lakepgServer // the main lake (SQLite catalog): TPC-H at Config.SF and the ingest tables

	tpchLake   bool         // TPC-H loaded into lake
	tpchPG     bool         // and into PostgreSQL
	tpchLoads  []loadResult // load times of both
	tpchResult *queryRun    // lakepg's TPC-H at Config.SF, for scaling
	tpcdsLake  bool         // TPC-DS loaded into lake (schema tpcds)
	tpcdsLoad  loadResult   // and how long that took
	ingest     *ingestTables
}

// Run runs the configured sections and writes the report; it returns the report's path.
// A section that fails is reported as such in the file, the others still run, and the
// error names every failed section.
func Run(ctx context.Context, cfg Config) (string, error) {
	if cfg.Log == nil {
		cfg.Log = os.Stderr
	}
	if cfg.Runs < 1 || cfg.SF <= 0 || cfg.Threads < 1 || cfg.Timeout <= 0 {
		return "", fmt.Errorf("bench: runs, scale factor, threads and timeout must be positive")
	}
	if cfg.Name == "" {
		cfg.Name = "sf" + sfName(cfg.SF)
	}
	if cfg.CacheDir == "" {
		d, err := os.UserCacheDir()
		if err != nil {
			d = os.TempDir()
		}
		cfg.CacheDir = filepath.Join(d, "lakepg-bench")
	}
	started := time.Now()
	if err := os.MkdirAll(cfg.OutDir, 0o755); err != nil {
		return "", err
	}
	if err := os.MkdirAll(cfg.WorkDir, 0o755); err != nil {
		return "", err
	}
	work, err := os.MkdirTemp(cfg.WorkDir, "lakepg-bench-")
	if err != nil {
		return "", err
	}
	// PostgreSQL runs as the postgres user, which must reach its directory.
	_ = os.Chmod(work, 0o755)
	r := &Runner{
		cfg:  cfg,
		work: work,
		base: filepath.Join(cfg.OutDir, started.Format("2006-01-02")+"-"+cfg.Name),
		rep:  &report{},
		log:  cfg.Log,
	}
	m := readMachine()
	_, loadStart := loadAvg()
	lw := watchLoad()
	r.settings()

	var failed []string
	for _, key := range AllSections {
		if !cfg.has(key) {
			continue
		}
		s := &section{key: key, title: sectionTitles[key]}
		r.rep.sections = append(r.rep.sections, s)
		r.logf("section %s", key)
		t := time.Now()
		s.err = r.runSection(ctx, key, s)
		s.elapsed = time.Since(t)
		if s.err != nil {
			r.logf("section %s failed: %v", key, s.err)
			failed = append(failed, key+": "+firstLines(s.err.Error(), 3))
		}
		if ctx.Err() != nil {
			break
		}
	}
	r.close()
	_, loadEnd := loadAvg()
	md := r.rep.markdown("lakepg benchmarks: "+cfg.Name+", "+started.Format("2006-01-02"), cfg, m, started, time.Now(), loadStart, loadEnd, lw.summary())
	path := r.base + ".md"
	if err := os.WriteFile(path, []byte(md), 0o644); err != nil {
		return "", err
	}
	if !cfg.Keep {
		os.RemoveAll(work)
	} else {
		r.logf("kept the scratch directory %s", work)
	}
	if len(failed) > 0 {
		return path, errors.New("bench: sections failed:\n" + strings.Join(failed, "\n"))
	}
	return path, nil
}

var sectionTitles = map[string]string{
	"tpch":        "TPC-H",
	"tpcds":       "TPC-DS",
	"ingest":      "Ingest",
	"wire":        "Wire: streaming rows to a client",
	"writes":      "Small writes",
	"concurrency": "Concurrency",
	"scaling":     "Scaling",
	"scaleout":    "Scale-out: several lakepg servers on one PostgreSQL catalog",
	"s3":          "S3: a scan of two columns out of twenty",
	"memory":      "Memory: big operators under a memory limit",
	"catalog":     "Catalog at scale: thousands of tables, a table of 100,000 files",
}

func (r *Runner) runSection(ctx context.Context, key string, s *section) (err error) {
	defer func() {
		if p := recover(); p != nil {
			buf := make([]byte, 8<<10)
			buf = buf[:runtime.Stack(buf, false)]
			err = fmt.Errorf("panic: %v\n%s", p, buf)
		}
	}()
	switch key {
	case "tpch":
		return r.sectionTPCH(ctx, s)
	case "tpcds":
		return r.sectionTPCDS(ctx, s)
	case "ingest":
		return r.sectionIngest(ctx, s)
	case "wire":
		return r.sectionWire(ctx, s)
	case "writes":
		return r.sectionWrites(ctx, s)
	case "concurrency":
		return r.sectionConcurrency(ctx, s)
	case "scaling":
		return r.sectionScaling(ctx, s)
	case "scaleout":
		return r.sectionScaleout(ctx, s) // scaleout.go
	case "s3":
		return r.sectionS3(ctx, s)
	case "memory":
		return r.sectionMemory(ctx, s)
	case "catalog":
		return r.sectionCatalog(ctx, s) // catalogscale.go
	}
	return fmt.Errorf("unknown section %q", key)
}

func (r *Runner) settings() {
	c := r.cfg
	r.rep.setting("sections", strings.Join(c.Sections, ", "))
	r.rep.setting("TPC-H and TPC-DS scale factor (BENCH_SF)", sfName(c.SF))
	r.rep.setting("timed runs per query (BENCH_RUNS), untimed warm-up runs (BENCH_WARMUP)", fmt.Sprintf("%d, %d", c.Runs, c.Warmup))
	r.rep.setting("per-query timeout (BENCH_TIMEOUT)", c.Timeout.String())
	r.rep.setting("threads (BENCH_THREADS): lakepg GOMAXPROCS, DuckDB threads, PostgreSQL max_parallel_workers_per_gather", fmt.Sprint(c.Threads))
	if c.has("ingest") || c.has("wire") {
		r.rep.setting("rows of the ingest and wire table (BENCH_ROWS)", fmt.Sprint(c.Rows))
	}
	if c.has("writes") {
		r.rep.setting("single-row INSERTs per system (BENCH_WRITES), concurrent writers (BENCH_WRITE_CLIENTS)", fmt.Sprintf("%d, %d", c.Writes, c.WriteClients))
		if c.WriteTime > 0 {
			r.rep.setting("seconds the concurrent writers write (BENCH_WRITE_SECONDS)", c.WriteTime.String())
		}
		r.rep.setting("rows of the one-statement INSERTs (BENCH_BULK_ROWS)", fmt.Sprint(c.BulkRows))
	}
	if c.has("concurrency") {
		r.rep.setting("clients (BENCH_CLIENTS), seconds per level (BENCH_CONC_SECONDS)", fmt.Sprintf("%s, %s", joinInts(c.Clients), c.ConcDuration))
	}
	if c.has("scaling") {
		var sfs []string
		for _, f := range c.ScalingSF {
			sfs = append(sfs, sfName(f))
		}
		r.rep.setting("scale factors of the scaling section (BENCH_SCALING_SF)", strings.Join(sfs, ", "))
	}
	if c.has("s3") {
		r.rep.setting("rows of the S3 table (BENCH_S3_ROWS)", fmt.Sprint(c.S3Rows))
	}
	if c.has("catalog") {
		r.rep.setting("tables (BENCH_CATALOG_TABLES) and data files (BENCH_CATALOG_FILES) of the catalog section", fmt.Sprintf("%d, %d", c.CatalogTables, c.CatalogFiles))
		if c.CatalogFilesPerTable < c.CatalogFiles {
			r.rep.setting("data files per files table (BENCH_CATALOG_FILES_PER_TABLE)", fmt.Sprint(c.CatalogFilesPerTable))
		}
		if c.CatalogFileListCache != "" {
			r.rep.setting("--file-list-cache of the catalog section's servers (BENCH_CATALOG_FILE_LIST_CACHE)", c.CatalogFileListCache)
		}
	}
	if c.has("memory") {
		r.rep.setting("memory limit of the memory section (BENCH_MEM_LIMIT)", mib(c.MemLimit))
		if len(c.MemQueries) > 0 {
			r.rep.setting("memory section queries (BENCH_MEMORY_QUERIES)", strings.Join(c.MemQueries, ", "))
		}
	}
}

func joinInts(xs []int) string {
	var s []string
	for _, x := range xs {
		s = append(s, fmt.Sprint(x))
	}
	return strings.Join(s, ",")
}

func (r *Runner) logf(format string, args ...any) {
	fmt.Fprintf(r.log, "%s bench: %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}

// close stops the shared servers.
func (r *Runner) close() {
	if r.lake != nil {
		r.lake.stop()
	}
	if r.pg != nil {
		r.pg.close(r)
	}
}

// chartPath is the file of a chart beside the report, and the name the report links.
func (r *Runner) chartPath(name string) (path, link string) {
	path = r.base + "-" + name + ".png"
	return path, filepath.Base(path)
}
