package pgdiff

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/lakepg/lakepg/test/testserver"
)

var (
	update    = flag.Bool("update", false, "rewrite baseline.txt with the figures of this run")
	only      = flag.String("pgdiff.files", "", "comma-separated script names to run (default: all of testdata/*.sql)")
	timeout   = flag.Duration("pgdiff.timeout", 10*time.Second, "time limit per statement on lakepg; a statement over it counts as timed out")
	examples  = flag.Int("pgdiff.examples", 3, "differing statements shown per file (the first of each cause)")
	allDiffs  = flag.Bool("pgdiff.all", false, "show every differing statement (up to -pgdiff.examples per file), not only the first of each cause")
	catalogDB = flag.String("pgdiff.catalog", "sqlite", "lakepg's catalog database: sqlite, or postgres for a fresh database of the test PostgreSQL per script")
)

func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	testserver.RemoveBinary()
	os.Exit(code)
}

// fileResult is what one script achieved.
type fileResult struct {
	name                                   string
	passed, differed, timedOut, statements int
	corpus                                 []string // corpus errors: @error marks that PostgreSQL contradicts
	diffs                                  []string // the first differing statement of each cause, rendered
	causes                                 map[string]int
	duration                               time.Duration
}

func scripts(t *testing.T) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", "*.sql"))
	if err != nil {
		t.Fatal(err)
	}
	if *only != "" {
		paths = nil
		for _, n := range strings.Split(*only, ",") {
			paths = append(paths, filepath.Join("testdata", strings.TrimSuffix(n, ".sql")+".sql"))
		}
	}
	if len(paths) == 0 {
		t.Fatal("no scripts in testdata/")
	}
	return paths
}

// connect opens a simple-protocol connection with TimeZone UTC (scripts change it with SET).
func connect(ctx context.Context, dsn string) (*pgconn.PgConn, error) {
	cfg, err := pgconn.ParseConfig(dsn)
	if err != nil {
		return nil, err
	}
	cfg.RuntimeParams["timezone"] = "UTC"
	cfg.RuntimeParams["application_name"] = "lakepg-pgdiff"
	return pgconn.ConnectConfig(ctx, cfg)
}

// TestPGDiff runs every script on lakepg and PostgreSQL and compares each statement's outcome.
func TestPGDiff(t *testing.T) {
	testserver.PostgresDSN(t)
	var results []*fileResult
	for _, path := range scripts(t) {
		name := strings.TrimSuffix(filepath.Base(path), ".sql")
		res := &fileResult{name: name, causes: map[string]int{}}
		results = append(results, res)
		t.Run(name, func(t *testing.T) { runScript(t, path, res) })
	}

	passed, undecided := testserver.Baseline{}, testserver.Baseline{}
	for _, r := range results {
		passed[r.name] = r.passed
		undecided[r.name] = r.timedOut
	}
	lines := testserver.BaselineCheck{
		Path: "baseline.txt",
		Header: []string{
			"Statements of each testdata script whose outcome on lakepg equals PostgreSQL's.",
			"Checked by TestPGDiff: fewer fail the test; rewrite with",
			"  go test ./test/pgdiff -update",
		},
		Update:     *update,
		UpdateHint: "go test ./test/pgdiff -update",
	}.Check(t, passed, undecided)
	report := "pgdiff"
	if *catalogDB != "sqlite" {
		report += "-" + *catalogDB + "-catalog"
	}
	testserver.Report(t, report, summary(results)+"\n"+strings.Join(lines, "\n")+"\n")
}

func runScript(t *testing.T, path string, res *fileResult) {
	began := time.Now()
	defer func() { res.duration = time.Since(began) }()
	stmts, err := ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	res.statements = len(stmts)
	ctx := context.Background()

	pgDSN := testserver.PostgresDatabase(t, "pgdiff_"+res.name)
	pg, err := connect(ctx, pgDSN)
	if err != nil {
		t.Fatalf("connecting to PostgreSQL: %v", err)
	}
	defer pg.Close(ctx)

	srv := startLakepg(t, res.name)
	srv.LimitMemory(4 << 30)
	var lk *pgconn.PgConn
	defer func() {
		if lk != nil {
			lk.Close(ctx)
		}
	}()

	for _, st := range stmts {
		// PostgreSQL first: it defines the expected outcome.
		pctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
		want := Run(pctx, pg, st.SQL, st.RowSort)
		cancel()
		if want.Err != nil {
			t.Fatalf("%s:%d: PostgreSQL did not answer: %v\n%s", path, st.Line, want.Err, st.SQL)
		}
		isErr := strings.HasPrefix(want.Text, "ERROR ")
		if isErr != st.ExpectError {
			mark := "is not marked"
			if st.ExpectError {
				mark = "is marked"
			}
			msg := fmt.Sprintf("%s:%d: PostgreSQL gives %s but the statement %s -- @error: fix the corpus\n    %s",
				path, st.Line, oneLine(want.Text+" "+want.Message), mark, st.SQL)
			res.corpus = append(res.corpus, msg)
			t.Error(msg)
		}

		if lk == nil || lk.IsClosed() {
			if lk != nil {
				// The previous statement broke the connection (a timeout or a crash): start
				// the server again on the same lake. Session settings are lost.
				srv.Restart(t)
			}
			if lk, err = connect(ctx, srv.DSN()); err != nil {
				t.Fatalf("connecting to lakepg: %v", err)
			}
		}
		lctx, cancel := context.WithTimeout(ctx, *timeout)
		got := Run(lctx, lk, st.SQL, st.RowSort)
		timedOut := lctx.Err() != nil
		cancel()
		switch {
		case got.Err != nil && timedOut:
			res.timedOut++
			res.note("timeout", path, st, fmt.Sprintf("lakepg timed out after %v", *timeout), want.Text)
			lk.Close(ctx)
		case got.Err != nil:
			res.differed++
			cause := "connection lost"
			if why := srv.KilledBy(); why != "" {
				cause = "killed: " + why
			}
			res.note(cause, path, st, cause+": "+oneLine(got.Err.Error()), want.Text)
			lk.Close(ctx)
		case got.Text == want.Text:
			res.passed++
		default:
			res.differed++
			g := got.Text
			if got.Message != "" {
				g += " (" + got.Message + ")"
			}
			res.note(difference(got, want), path, st, g, want.Text)
		}
	}
}

// difference classifies how got differs from want: lakepg's error, a missing error, or
// which part of the result differs.
func difference(got, want Outcome) string {
	switch {
	case strings.HasPrefix(got.Text, "ERROR "):
		return strings.TrimPrefix(got.Text, "ERROR ") + " " + got.Message
	case strings.HasPrefix(want.Text, "ERROR "):
		return "no error; PostgreSQL gives " + strings.TrimPrefix(want.Text, "ERROR ")
	}
	gl, wl := strings.Split(got.Text, "\n"), strings.Split(want.Text, "\n")
	switch {
	case len(gl) == 1 || len(wl) == 1:
		return "different command tag or result"
	case gl[0] != wl[0]:
		return "different column names"
	case len(gl) != len(wl):
		return "different row count"
	default:
		return "different values"
	}
}

// note counts a differing statement under its cause and keeps a rendering of the first one
// of each cause for the report.
func (r *fileResult) note(cause, path string, st Stmt, got, want string) {
	r.causes[cause]++
	if (r.causes[cause] > 1 && !*allDiffs) || len(r.diffs) >= *examples {
		return
	}
	r.diffs = append(r.diffs, fmt.Sprintf("[%s]\n%s:%d:\n    %s\n  lakepg:\n%s\n  PostgreSQL:\n%s",
		oneLine(cause), filepath.Base(path), st.Line, strings.ReplaceAll(st.SQL, "\n", "\n    "), indent(got), indent(want)))
}

func indent(s string) string {
	return "    " + strings.ReplaceAll(s, "\n", "\n    ")
}

func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

func summary(results []*fileResult) string {
	var sb strings.Builder
	sb.WriteString("PostgreSQL differential tests: statements whose outcome on lakepg equals PostgreSQL's\n")
	tw := tabwriter.NewWriter(&sb, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "script\tstatements\tsame\tdifferent\ttimed out\ttime\t")
	var tot fileResult
	causes := map[string]int{}
	for _, r := range results {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%s\t\n", r.name, r.statements, r.passed, r.differed, r.timedOut, r.duration.Round(100*time.Millisecond))
		tot.statements += r.statements
		tot.passed += r.passed
		tot.differed += r.differed
		tot.timedOut += r.timedOut
		tot.duration += r.duration
		for c, n := range r.causes {
			causes[c] += n
		}
	}
	fmt.Fprintf(tw, "total\t%d\t%d\t%d\t%d\t%s\t\n", tot.statements, tot.passed, tot.differed, tot.timedOut, tot.duration.Round(100*time.Millisecond))
	tw.Flush()
	for _, r := range results {
		for _, c := range r.corpus {
			sb.WriteString("\nCORPUS ERROR " + c + "\n")
		}
	}
	if len(causes) > 0 {
		keys := make([]string, 0, len(causes))
		for c := range causes {
			keys = append(keys, c)
		}
		sort.Slice(keys, func(i, j int) bool {
			if causes[keys[i]] != causes[keys[j]] {
				return causes[keys[i]] > causes[keys[j]]
			}
			return keys[i] < keys[j]
		})
		if len(keys) > 20 {
			keys = keys[:20]
		}
		sb.WriteString("\ndifferences by cause (lakepg's error, or what differs), most frequent first:\n")
		for _, c := range keys {
			fmt.Fprintf(&sb, "  %5d  %s\n", causes[c], oneLine(c))
		}
	}
	for _, r := range results {
		if len(r.diffs) == 0 {
			continue
		}
		fmt.Fprintf(&sb, "\nfirst difference of each cause in %s.sql:\n", r.name)
		for _, d := range r.diffs {
			sb.WriteString(d + "\n")
		}
	}
	return sb.String()
}

// startLakepg starts lakepg for one script on the catalog -pgdiff.catalog names.
func startLakepg(t *testing.T, script string) *testserver.Server {
	dir := t.TempDir()
	switch *catalogDB {
	case "sqlite":
		return testserver.Start(t, testserver.Binary(t), dir)
	case "postgres":
		port := testserver.FreePort(t)
		args := []string{"--listen", fmt.Sprintf("127.0.0.1:%d", port),
			"--catalog", testserver.PostgresDatabase(t, "pgdiff_catalog_"+script),
			"--data", filepath.Join(dir, "data"), "--log-level", "info"}
		return testserver.Launch(t, testserver.Binary(t), dir, port, args, nil)
	}
	t.Fatalf("-pgdiff.catalog %q: want sqlite or postgres", *catalogDB)
	return nil
}
