package bench

import (
	"context"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// testLog sends the run's progress to the test log.
type testLog struct{ t *testing.T }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// TestBenchTiny runs every section at TPC-H and TPC-DS SF0.01 with one run and short durations, to
// prove that `make bench` works end to end: real lakepg, DuckDB, PostgreSQL and S3 server,
// a report with every section and readable charts. It asserts no time.
func TestBenchTiny(t *testing.T) {
	pgDSN := os.Getenv("LAKEPG_TEST_PG_DSN")
	if pgDSN == "" && os.Getenv("LAKEPG_TEST_REQUIRE_PG") == "1" {
		t.Fatal("LAKEPG_TEST_REQUIRE_PG=1 but LAKEPG_TEST_PG_DSN is not set: scripts/test.sh failed to start PostgreSQL")
	}
	out := t.TempDir()
	cfg := Config{
		Name:          "ci",
		Sections:      AllSections,
		SF:            0.01,
		Runs:          1,
		Timeout:       20 * time.Second,
		Threads:       2,
		Rows:          20000,
		Writes:        20,
		WriteClients:  2,
		WriteTime:     time.Second,
		BulkRows:      200,
		Clients:       []int{1, 8, 32, 64},
		ConcDuration:  500 * time.Millisecond,
		ScalingSF:     []float64{0.01},
		S3Rows:        20000,
		MemLimit:      16 << 20,
		CatalogTables: 20,
		CatalogFiles:  200,
		// two files tables, so that the split is exercised
		CatalogFilesPerTable: 100,
		// Without indexes PostgreSQL needs half a minute for Q20 even at SF0.01.
		PGIndexes:   true,
		OutDir:      out,
		WorkDir:     t.TempDir(),
		CacheDir:    t.TempDir(),
		PGDSN:       pgDSN,
		S3Endpoint:  os.Getenv("LAKEPG_TEST_S3_ENDPOINT"),
		S3AccessKey: os.Getenv("LAKEPG_TEST_S3_ACCESS_KEY"),
		S3SecretKey: os.Getenv("LAKEPG_TEST_S3_SECRET_KEY"),
		LakepgBin:   os.Getenv("LAKEPG_TEST_BIN"),
		Command:     "go test ./bench -run TestBenchTiny",
		Log:         testLog{t},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	path, err := Run(ctx, cfg)
	if err != nil {
		if b, rerr := os.ReadFile(path); rerr == nil {
			t.Logf("report:\n%s", b)
		}
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	md := string(b)
	if !strings.HasPrefix(filepath.Base(path), time.Now().Format("2006-01")) || !strings.HasSuffix(path, "-ci.md") {
		t.Errorf("report file %s, want <date>-ci.md", path)
	}
	for _, want := range []string{
		"## Machine", "| cores | ", "## Versions", "| lakepg | lakepg ", "| DuckDB | 1.5.5", "| PostgreSQL | PostgreSQL ",
		"| tpchgen-cli | ", "## Commands",
		"## Memory: big operators under a memory limit", "| group by 3 keys | ", "| distinct | ",
		"## TPC-H", "| Q1 | ", "| Q22 | ", "**geometric mean**", "**peak memory**",
		"Every system that answered a query returned the same number of rows.",
		"## TPC-DS", "| Q1 | ", "| Q99 | ", "- queries answered by both: ",
		"lakepg and DuckDB returned the same number of rows for every query both answered.",
		"## Ingest", "| COPY | lakepg | ", "| COPY | PostgreSQL | ", "| COPY | DuckDB | ", "| CTAS | lakepg | ", "| CTAS | DuckDB | ",
		"## Wire", "| lakepg | binary, pgx | 20000 | ", "| PostgreSQL | text, psql | 20000 | ",
		"## Small writes", "| lakepg, SQLite catalog | ", "| lakepg, PostgreSQL catalog | ", "INSERT … VALUES, 200 rows",
		"## Concurrency", "| 64 | ",
		"## Scaling", "| 0.01 | ", "lakepg speed-up",
		"## Catalog at scale", "| sqlite (inlining off) | ", "| postgres | ", "| 3 / 97 |", "200 files in 2 files tables",
		"## S3", "| lakepg | S3 | ", "| DuckDB (httpfs) | S3 | ", "Every system returned sum(c03) = ",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if strings.Contains(md, "Section failed") {
		t.Errorf("a section failed:\n%s", md)
	}
	// lakepg answered every query: its cell is a number, not "error" or a timeout.
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "| Q") && strings.Count(line, "|") == 9 {
			cells := strings.Split(line, "|")
			if c := strings.TrimSpace(cells[2]); c == "error" || strings.HasPrefix(c, ">") || c == "n/a" {
				t.Errorf("lakepg did not answer: %s", line)
			}
		}
	}
	// Every chart the report links exists and is a PNG of a sensible size.
	links := 0
	for _, line := range strings.Split(md, "\n") {
		if !strings.HasPrefix(line, "![") {
			continue
		}
		links++
		name := line[strings.Index(line, "(")+1 : len(line)-1]
		f, err := os.Open(filepath.Join(out, name))
		if err != nil {
			t.Errorf("chart %s: %v", name, err)
			continue
		}
		c, err := png.DecodeConfig(f)
		f.Close()
		if err != nil || c.Width < 300 || c.Height < 200 {
			t.Errorf("chart %s: %dx%d, %v", name, c.Width, c.Height, err)
		}
	}
	if links < 10 {
		t.Errorf("the report links %d charts, want one or two per section (at least 10)", links)
	}
}
