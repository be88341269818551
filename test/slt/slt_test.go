package slt

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/lakepg/lakepg/test/testserver"
)

var (
	update   = flag.Bool("update", false, "rewrite baseline.txt with the figures of this run of TestSLT")
	corpus   = flag.String("slt.dir", "", "directory of the select*.test files (default: ../shared/conformance/slt beside the repository)")
	only     = flag.String("slt.files", "", "comma-separated file names to run (default: select1.test … select5.test)")
	timeout  = flag.Duration("slt.timeout", 10*time.Second, "time limit per record (0: none); a record over it counts as timed out and the server is restarted")
	budget   = flag.Duration("slt.budget", 60*time.Second, "time budget per file against lakepg (0: none); records after it are not run")
	examples = flag.Int("slt.examples", 5, "failing records shown per file (the first of each cause)")
)

// The corpus: the five classic files. ~1,800 statements and ~8,900 queries in all.
var corpusFiles = []string{"select1.test", "select2.test", "select3.test", "select4.test", "select5.test"}

func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	testserver.RemoveBinary()
	os.Exit(code)
}

// files is the list of corpus files to run, as paths.
func files(t *testing.T) []string {
	t.Helper()
	dir := *corpus
	if dir == "" {
		shared, err := testserver.SharedDir()
		if err != nil {
			t.Fatal(err)
		}
		dir = filepath.Join(shared, "conformance", "slt")
	}
	names := corpusFiles
	if *only != "" {
		names = strings.Split(*only, ",")
	}
	var paths []string
	for _, n := range names {
		p := filepath.Join(dir, n)
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("sqllogictest corpus file missing (%v): the corpus lives in ../shared/conformance/slt beside the repository, or pass -slt.dir", err)
		}
		paths = append(paths, p)
	}
	return paths
}

func runner(budget time.Duration) *Runner {
	return &Runner{Engine: "postgresql", Timeout: *timeout, Budget: budget, KeepFailures: *examples}
}

// connector connects to dsn with the given run-time parameters (on top of TimeZone UTC).
func connector(dsn string, params map[string]string) func(ctx context.Context) (*pgx.Conn, error) {
	return func(ctx context.Context) (*pgx.Conn, error) {
		cfg, err := pgx.ParseConfig(dsn)
		if err != nil {
			return nil, err
		}
		cfg.RuntimeParams["timezone"] = "UTC"
		cfg.RuntimeParams["application_name"] = "lakepg-slt"
		for k, v := range params {
			cfg.RuntimeParams[k] = v
		}
		return pgx.ConnectConfig(ctx, cfg)
	}
}

// postgresParams make PostgreSQL plan select5's joins of up to 64 ten-row tables with a
// small genetic search: the default search spends ~60 ms planning each of them (45 s for the
// file), the small one ~6 ms, and plans never change results.
var postgresParams = map[string]string{"geqo_pool_size": "10", "geqo_generations": "10"}

// TestSLT runs the corpus against lakepg, one fresh server and lake per file, and compares
// the passing records per file with baseline.txt.
func TestSLT(t *testing.T) {
	paths := files(t)
	var results []FileResult
	for _, p := range paths {
		name := filepath.Base(p)
		res := FileResult{Name: name, Causes: map[string]int{}}
		t.Run(name, func(t *testing.T) {
			recs, err := ParseFile(p)
			if err != nil {
				t.Fatal(err)
			}
			srv := testserver.Start(t, testserver.Binary(t), t.TempDir())
			// A query that multiplies many tables out must fail its record, not the machine.
			srv.LimitMemory(4 << 30)
			db := &PgxDB{
				Connect: func(ctx context.Context) (*pgx.Conn, error) { return connector(srv.DSN(), nil)(ctx) },
				Recover: func(ctx context.Context) error {
					// A record timed out or the server died (crash, watchdog): start it again
					// on the same lake so the records after it still see the tables.
					if why := srv.KilledBy(); why != "" {
						t.Logf("%s: lakepg was killed: %s; restarting", name, why)
					} else if srv.Exited() {
						t.Logf("%s: lakepg exited (%v); restarting", name, srv.State())
					}
					srv.Restart(t)
					return nil
				},
			}
			defer db.Close(context.Background())
			res = runner(*budget).Run(context.Background(), db, name, recs)
		})
		results = append(results, res)
	}
	check(t, "slt-lakepg", "sqllogictest against lakepg", results)
}

// TestSLTPostgres runs the corpus against the real PostgreSQL (a fresh database per file):
// every record that is not skipped for engine postgresql must pass. This proves the runner.
func TestSLTPostgres(t *testing.T) {
	paths := files(t)
	testserver.PostgresDSN(t)
	var results []FileResult
	for _, p := range paths {
		name := filepath.Base(p)
		res := FileResult{Name: name, Causes: map[string]int{}}
		t.Run(name, func(t *testing.T) {
			recs, err := ParseFile(p)
			if err != nil {
				t.Fatal(err)
			}
			dsn := testserver.PostgresDatabase(t, "slt_"+strings.TrimSuffix(name, ".test"))
			db := &PgxDB{Connect: connector(dsn, postgresParams)}
			defer db.Close(context.Background())
			res = runner(0).Run(context.Background(), db, name, recs)
			if res.Passed+res.Skipped != res.Records() {
				t.Errorf("PostgreSQL did not pass %d records of %s; it passes every non-skipped record, so the runner is wrong:\n%s",
					res.Records()-res.Passed-res.Skipped, name, Summary("", []FileResult{res}, *examples))
			}
		})
		results = append(results, res)
	}
	testserver.Report(t, "slt-postgres", Summary("sqllogictest against PostgreSQL (every non-skipped record must pass)", results, *examples))
}

// updateCmd rewrites baseline.txt from a run of every record: a run cut short by the time
// budget would lower the counts and so weaken the check.
const updateCmd = "go test ./test/slt -run 'TestSLT$' -update -slt.budget=0 -timeout=60m"

func check(t *testing.T, report, title string, results []FileResult) {
	t.Helper()
	got, undecided := testserver.Baseline{}, testserver.Baseline{}
	for _, r := range results {
		got[r.Name] = r.Passed
		undecided[r.Name] = r.Undecided()
	}
	lines := testserver.BaselineCheck{
		Path: "baseline.txt",
		Header: []string{
			"sqllogictest records (statements and queries) of each corpus file that lakepg passes.",
			"Checked by TestSLT: fewer passes (counting timed-out and not-run records in favour)",
			"fail the test. Rewrite with all records run, no time budget (~8 minutes):",
			"  " + updateCmd,
		},
		Update:     *update,
		UpdateHint: updateCmd,
	}.Check(t, got, undecided)
	testserver.Report(t, report, Summary(title, results, *examples)+"\n"+strings.Join(lines, "\n")+"\n")
}
