package bench

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// AllSections are the report's sections in the order they run.
var AllSections = []string{"tpch", "tpcds", "ingest", "wire", "writes", "concurrency", "scaling", "scaleout", "s3", "memory", "catalog"}

// Config is one benchmark run. ConfigFromEnv fills it from the BENCH_* variables that
// `make bench` passes through; the README lists them.
type Config struct {
	Name     string   // report name: bench/results/<date>-<Name>.md
	Sections []string // subset of AllSections, in any order

	SF      float64       // TPC-H and TPC-DS scale factor (BENCH_SF)
	Runs    int           // timed runs per query (BENCH_RUNS)
	Warmup  int           // untimed runs before them (BENCH_WARMUP)
	Timeout time.Duration // per query, every system (BENCH_TIMEOUT)
	Threads int           // lakepg GOMAXPROCS, DuckDB threads, PostgreSQL parallel workers (BENCH_THREADS)

	Rows                  int64         // rows of the ingest and wire table (BENCH_ROWS)
	Writes                int           // single-row INSERTs per system (BENCH_WRITES)
	WriteClients          int           // clients of the concurrent small writes (BENCH_WRITE_CLIENTS)
	WriteTime             time.Duration // 0, or how long those clients write instead (BENCH_WRITE_SECONDS)
	BulkRows              int           // rows of the one-statement INSERTs of the writes section (BENCH_BULK_ROWS)
	Clients               []int         // concurrency levels (BENCH_CLIENTS)
	ConcDuration          time.Duration // per concurrency level (BENCH_CONC_SECONDS)
	ScalingSF             []float64     // TPC-H scale factors of the scaling section (BENCH_SCALING_SF)
	S3Rows                int64         // rows of the 20-column S3 table (BENCH_S3_ROWS)
	MemLimit              int64         // memory limit of the memory section, bytes (BENCH_MEM_LIMIT)
	MemQueries            []string      // words that pick the memory section's queries by name; empty: all (BENCH_MEMORY_QUERIES)
	MemClients            int           // clients sorting at once in the memory section; 0: none (BENCH_MEMORY_CLIENTS)
	MemClientsLimit       int64         // their server's memory limit, bytes (BENCH_MEMORY_CLIENTS_LIMIT)
	CatalogTables         int           // tables of the catalog section (BENCH_CATALOG_TABLES)
	CatalogFiles          int           // data files of its files tables, in all (BENCH_CATALOG_FILES)
	CatalogFilesPerTable  int           // at most this many in each (BENCH_CATALOG_FILES_PER_TABLE; 0: all in one)
	CatalogSQLiteInlining bool          // keep data inlining on for the SQLite catalog (BENCH_CATALOG_SQLITE_INLINING=1)
	CatalogFileListCache  string        // --file-list-cache of its servers (BENCH_CATALOG_FILE_LIST_CACHE; "": the default)
	PGIndexes             bool          // PostgreSQL gets the two indexes of test/tpch (BENCH_PG_INDEXES)

	OutDir   string // where the report goes (BENCH_OUT, default bench/results)
	WorkDir  string // parent of the run's scratch directory (BENCH_WORK, default $TMPDIR)
	CacheDir string // generated TPC-H Parquet, reused across runs (BENCH_CACHE); TPC-DS's is test/tpcds's cache
	Keep     bool   // keep the scratch directory (BENCH_KEEP)

	PGDSN       string // an existing PostgreSQL to use instead of a throwaway cluster
	S3Endpoint  string // an existing S3-compatible server instead of a private versitygw
	S3AccessKey string
	S3SecretKey string
	LakepgBin   string // a built lakepg instead of building ./cmd/lakepg (BENCH_LAKEPG_BIN)
	SharedDir   string // the shared material with tpcds/queries (LAKEPG_SHARED_DIR, as the tests; default: found)

	Command string    // the command line, for the report
	Log     io.Writer // progress; os.Stderr when nil
}

func envString(name, def string) string {
	if v := strings.TrimSpace(os.Getenv(name)); v != "" {
		return v
	}
	return def
}

// ConfigFromEnv reads BENCH_* (and the test harness's LAKEPG_TEST_PG_DSN and
// LAKEPG_TEST_S3_* as fallbacks for BENCH_PG_DSN and BENCH_S3_*) with the defaults of a
// full SF1 run.
func ConfigFromEnv() (Config, error) {
	c := Config{
		Name:                  envString("BENCH_NAME", ""),
		OutDir:                envString("BENCH_OUT", "bench/results"),
		WorkDir:               envString("BENCH_WORK", os.TempDir()),
		CacheDir:              envString("BENCH_CACHE", ""),
		Keep:                  envString("BENCH_KEEP", "") == "1",
		PGIndexes:             envString("BENCH_PG_INDEXES", "") == "1",
		CatalogSQLiteInlining: envString("BENCH_CATALOG_SQLITE_INLINING", "") == "1",
		CatalogFileListCache:  envString("BENCH_CATALOG_FILE_LIST_CACHE", ""),
		PGDSN:                 envString("BENCH_PG_DSN", os.Getenv("LAKEPG_TEST_PG_DSN")),
		S3Endpoint:            envString("BENCH_S3_ENDPOINT", os.Getenv("LAKEPG_TEST_S3_ENDPOINT")),
		S3AccessKey:           envString("BENCH_S3_ACCESS_KEY", os.Getenv("LAKEPG_TEST_S3_ACCESS_KEY")),
		S3SecretKey:           envString("BENCH_S3_SECRET_KEY", os.Getenv("LAKEPG_TEST_S3_SECRET_KEY")),
		LakepgBin:             envString("BENCH_LAKEPG_BIN", ""),
		SharedDir:             envString("LAKEPG_SHARED_DIR", ""),
	}
	var err error
	fail := func(name string, e error) {
		if err == nil && e != nil {
			err = fmt.Errorf("%s=%q: %v", name, os.Getenv(name), e)
		}
	}
	var e error
	c.Sections, e = parseSections(envString("BENCH_SECTIONS", "all"))
	fail("BENCH_SECTIONS", e)
	c.SF, e = strconv.ParseFloat(envString("BENCH_SF", "1"), 64)
	fail("BENCH_SF", e)
	c.Runs, e = strconv.Atoi(envString("BENCH_RUNS", "3"))
	fail("BENCH_RUNS", e)
	c.Warmup, e = strconv.Atoi(envString("BENCH_WARMUP", "1"))
	fail("BENCH_WARMUP", e)
	c.Timeout, e = parseSeconds(envString("BENCH_TIMEOUT", "60"))
	fail("BENCH_TIMEOUT", e)
	c.Threads, e = strconv.Atoi(envString("BENCH_THREADS", strconv.Itoa(runtime.NumCPU())))
	fail("BENCH_THREADS", e)
	c.Rows, e = strconv.ParseInt(envString("BENCH_ROWS", "10000000"), 10, 64)
	fail("BENCH_ROWS", e)
	c.Writes, e = strconv.Atoi(envString("BENCH_WRITES", "1000"))
	fail("BENCH_WRITES", e)
	c.WriteClients, e = strconv.Atoi(envString("BENCH_WRITE_CLIENTS", "4"))
	fail("BENCH_WRITE_CLIENTS", e)
	if v := envString("BENCH_WRITE_SECONDS", ""); v != "" {
		c.WriteTime, e = parseSeconds(v)
		fail("BENCH_WRITE_SECONDS", e)
	}
	c.BulkRows, e = strconv.Atoi(envString("BENCH_BULK_ROWS", "10000"))
	fail("BENCH_BULK_ROWS", e)
	c.MemLimit, e = parseBytes(envString("BENCH_MEM_LIMIT", "512MiB"))
	fail("BENCH_MEM_LIMIT", e)
	for _, w := range strings.Split(envString("BENCH_MEMORY_QUERIES", ""), ",") {
		if w = strings.TrimSpace(w); w != "" {
			c.MemQueries = append(c.MemQueries, w)
		}
	}
	c.MemClients, e = strconv.Atoi(envString("BENCH_MEMORY_CLIENTS", "8"))
	fail("BENCH_MEMORY_CLIENTS", e)
	c.MemClientsLimit, e = parseBytes(envString("BENCH_MEMORY_CLIENTS_LIMIT", "1GiB"))
	fail("BENCH_MEMORY_CLIENTS_LIMIT", e)
	c.Clients, e = parseInts(envString("BENCH_CLIENTS", "1,8,32,64"))
	fail("BENCH_CLIENTS", e)
	c.ConcDuration, e = parseSeconds(envString("BENCH_CONC_SECONDS", "30"))
	fail("BENCH_CONC_SECONDS", e)
	c.ScalingSF, e = parseFloats(envString("BENCH_SCALING_SF", "0.1,"+strconv.FormatFloat(c.SF, 'g', -1, 64)))
	fail("BENCH_SCALING_SF", e)
	c.S3Rows, e = strconv.ParseInt(envString("BENCH_S3_ROWS", "10000000"), 10, 64)
	fail("BENCH_S3_ROWS", e)
	c.CatalogTables, e = strconv.Atoi(envString("BENCH_CATALOG_TABLES", "10000"))
	fail("BENCH_CATALOG_TABLES", e)
	c.CatalogFiles, e = strconv.Atoi(envString("BENCH_CATALOG_FILES", "100000"))
	fail("BENCH_CATALOG_FILES", e)
	c.CatalogFilesPerTable, e = strconv.Atoi(envString("BENCH_CATALOG_FILES_PER_TABLE", "0"))
	fail("BENCH_CATALOG_FILES_PER_TABLE", e)
	if c.CatalogFilesPerTable <= 0 || c.CatalogFilesPerTable > c.CatalogFiles {
		c.CatalogFilesPerTable = c.CatalogFiles
	}
	if err == nil && (c.CatalogTables < 1 || c.CatalogFiles <= 10 || c.CatalogFilesPerTable <= 10) {
		err = fmt.Errorf("BENCH_CATALOG_TABLES must be positive, BENCH_CATALOG_FILES and BENCH_CATALOG_FILES_PER_TABLE above 10")
	}
	return c, err
}

func parseSections(s string) ([]string, error) {
	if s == "all" {
		return append([]string(nil), AllSections...), nil
	}
	var out []string
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		ok := false
		for _, a := range AllSections {
			ok = ok || a == f
		}
		if !ok {
			return nil, fmt.Errorf("unknown section %q (sections: all or %s)", f, strings.Join(AllSections, ","))
		}
		out = append(out, f)
	}
	return out, nil
}

func parseSeconds(s string) (time.Duration, error) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f <= 0 {
		return 0, fmt.Errorf("want a positive number of seconds")
	}
	return time.Duration(f * float64(time.Second)), nil
}

func parseInts(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("want positive integers separated by commas")
		}
		out = append(out, n)
	}
	return out, nil
}

func parseFloats(s string) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("want positive numbers separated by commas")
		}
		dup := false
		for _, o := range out {
			dup = dup || o == n
		}
		if !dup {
			out = append(out, n)
		}
	}
	return out, nil
}

// has reports whether the run includes section s.
func (c Config) has(s string) bool {
	for _, x := range c.Sections {
		if x == s {
			return true
		}
	}
	return false
}

// sfName is a scale factor as file names and headings show it: 1, 0.1, 0.01, 10.
func sfName(sf float64) string { return strconv.FormatFloat(sf, 'g', -1, 64) }

// parseBytes reads a size such as 512MiB, 2GB or 1048576 (the benchmark
// imports no lakepg package, so it reads sizes itself).
func parseBytes(v string) (int64, error) {
	s := strings.TrimSpace(v)
	i := len(s)
	for i > 0 && (s[i-1] < '0' || s[i-1] > '9') {
		i--
	}
	n, err := strconv.ParseFloat(strings.TrimSpace(s[:i]), 64)
	mult, ok := map[string]float64{"": 1, "b": 1, "kib": 1 << 10, "kb": 1e3, "mib": 1 << 20, "mb": 1e6, "gib": 1 << 30, "gb": 1e9}[strings.ToLower(strings.TrimSpace(s[i:]))]
	if err != nil || n < 0 || !ok {
		return 0, fmt.Errorf("bad size %q: want a byte count such as 512MiB or 2GB", v)
	}
	return int64(n * mult), nil
}
