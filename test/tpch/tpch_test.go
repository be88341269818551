package tpch

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/lakepg/lakepg/test/testserver"
)

var (
	update       = flag.Bool("update", false, "rewrite baseline.txt with the queries passing in this run of TestTPCH")
	dataDir      = flag.String("tpch.dir", "", "TPC-H material (default: ../shared/tpch beside the repository)")
	onlyQueries  = flag.String("tpch.queries", "", "comma-separated query numbers to run, e.g. 1,6,17 (default: all 22)")
	queryTimeout = flag.Duration("tpch.timeout", 30*time.Second, "time limit per query on lakepg; a query over it counts as timed out")
	budget       = flag.Duration("tpch.budget", 3*time.Minute, "time budget for the queries on lakepg (0: none); queries after it are not run")
	pgTimeout    = flag.Duration("tpch.pgtimeout", 5*time.Minute, "time limit per query on PostgreSQL")
	permutations = flag.Int("tpch.permutations", 3, "rewritings of each query whose plan must cost what the written query's does")
)

func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	testserver.RemoveBinary()
	os.Exit(code)
}

// material is the directory of schema.sql, queries/, sf0.1/ and answers/.
func material(t *testing.T) string {
	t.Helper()
	dir := *dataDir
	if dir == "" {
		shared, err := testserver.SharedDir()
		if err != nil {
			t.Fatal(err)
		}
		dir = filepath.Join(shared, "tpch")
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"schema.sql", "queries/q01.sql", "sf0.1/lineitem.parquet", "answers/sf0.1/q01.csv"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			t.Fatalf("TPC-H material missing (%v): it lives in ../shared/tpch beside the repository, or pass -tpch.dir", err)
		}
	}
	return dir
}

// queryNames are q01 … q22, or those of -tpch.queries.
func queryNames(t *testing.T) []string {
	t.Helper()
	var names []string
	if *onlyQueries == "" {
		for i := 1; i <= 22; i++ {
			names = append(names, fmt.Sprintf("q%02d", i))
		}
		return names
	}
	for _, s := range strings.Split(*onlyQueries, ",") {
		var n int
		if _, err := fmt.Sscanf(strings.TrimPrefix(strings.TrimSpace(s), "q"), "%d", &n); err != nil || n < 1 || n > 22 {
			t.Fatalf("-tpch.queries: bad query %q", s)
		}
		names = append(names, fmt.Sprintf("q%02d", n))
	}
	return names
}

// outcome is what one query achieved.
type outcome struct {
	name     string
	status   string // "pass", "FAIL", "timeout", "not run"
	duration time.Duration
	detail   string // the first difference or the error
}

// runQueries runs each query on conn and compares it with its answer; connect gives a new
// connection when a timeout or a crash broke the old one.
func runQueries(t *testing.T, dir string, names []string, conn *pgx.Conn, connect func() *pgx.Conn,
	timeout, budget time.Duration) []outcome {
	t.Helper()
	var out []outcome
	start := time.Now()
	for _, name := range names {
		o := outcome{name: name}
		if budget > 0 && time.Since(start) >= budget {
			o.status = "not run"
			o.detail = fmt.Sprintf("time budget of %v spent", budget)
			out = append(out, o)
			continue
		}
		sqlText, err := os.ReadFile(filepath.Join(dir, "queries", name+".sql"))
		if err != nil {
			t.Fatal(err)
		}
		want, err := ReadAnswer(filepath.Join(dir, "answers", "sf0.1", name+".csv"))
		if err != nil {
			t.Fatal(err)
		}
		if conn == nil || conn.IsClosed() {
			conn = connect()
		}
		sqlStr := strings.TrimSuffix(strings.TrimSpace(string(sqlText)), ";")
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		began := time.Now()
		got, err := func() (*Table, error) {
			rows, err := conn.Query(ctx, sqlStr)
			if err != nil {
				return nil, err
			}
			return Collect(rows)
		}()
		o.duration = time.Since(began)
		timedOut := errors.Is(ctx.Err(), context.DeadlineExceeded)
		cancel()
		switch {
		case err != nil && timedOut:
			o.status, o.detail = "timeout", fmt.Sprintf("no result within %v", timeout)
			_ = conn.Close(context.Background())
			conn = nil
		case err != nil:
			o.status, o.detail = "FAIL", oneLine(err.Error())
		default:
			if d := Compare(got, want); d != "" {
				o.status, o.detail = "FAIL", d
			} else {
				o.status = "pass"
			}
		}
		out = append(out, o)
	}
	if conn != nil {
		_ = conn.Close(context.Background())
	}
	return out
}

func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) > 400 {
		s = s[:400] + "…"
	}
	return s
}

func connectPgx(t *testing.T, dsn string) *pgx.Conn {
	t.Helper()
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.RuntimeParams["timezone"] = "UTC"
	cfg.RuntimeParams["application_name"] = "lakepg-tpch"
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatalf("connecting to %s: %v", dsn, err)
	}
	return conn
}

func summary(title string, load []string, out []outcome) string {
	var sb strings.Builder
	sb.WriteString(title + "\n")
	for _, l := range load {
		sb.WriteString("  " + l + "\n")
	}
	passed, total := 0, time.Duration(0)
	for _, o := range out {
		line := fmt.Sprintf("  %s  %-7s %8s", o.name, o.status, o.duration.Round(time.Millisecond))
		if o.detail != "" {
			line += "  " + strings.ReplaceAll(o.detail, "\n", "\n  ")
		}
		sb.WriteString(line + "\n")
		if o.status == "pass" {
			passed++
		}
		total += o.duration
	}
	fmt.Fprintf(&sb, "  %d of %d queries pass; query time %s\n", passed, len(out), total.Round(time.Millisecond))
	return sb.String()
}

// TestTPCH loads SF0.1 into lakepg and runs the queries there; see the package comment.
func TestTPCH(t *testing.T) {
	dir := material(t)
	names := queryNames(t)
	srv := testserver.Start(t, testserver.Binary(t), t.TempDir())
	srv.LimitMemory(6 << 30)

	conn := connectPgx(t, srv.DSN())
	var load []string
	loadStart := time.Now()
	for _, table := range Tables {
		stmt := fmt.Sprintf("CREATE TABLE %s AS SELECT * FROM read_parquet('%s')", table, filepath.Join(dir, "sf0.1", table+".parquet"))
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		began := time.Now()
		_, err := conn.Exec(ctx, stmt)
		cancel()
		if err != nil {
			load = append(load, fmt.Sprintf("load %s FAILED after %s: %s\n    %s", table, time.Since(began).Round(time.Millisecond), oneLine(err.Error()), stmt))
			if conn.IsClosed() {
				if srv.Exited() {
					srv.Restart(t)
				}
				conn = connectPgx(t, srv.DSN())
			}
		}
	}
	load = append(load, fmt.Sprintf("load (CREATE TABLE … AS SELECT * FROM read_parquet(…), 8 tables): %s", time.Since(loadStart).Round(time.Millisecond)))

	out := runQueries(t, dir, names, conn, func() *pgx.Conn {
		// A query timed out or the server died: start it again on the same lake, so that
		// neither a crash nor a query still running holds up the next ones.
		if why := srv.KilledBy(); why != "" {
			t.Logf("lakepg was killed: %s; restarting", why)
		}
		srv.Restart(t)
		return connectPgx(t, srv.DSN())
	}, *queryTimeout, *budget)

	// plans must not depend on how a query is written (the optimizer issue)
	pc := connectPgx(t, srv.DSN())
	var queries []string
	for _, name := range names {
		b, err := os.ReadFile(filepath.Join(dir, "queries", name+".sql"))
		if err != nil {
			t.Fatal(err)
		}
		queries = append(queries, strings.TrimSuffix(strings.TrimSpace(string(b)), ";"))
	}
	began := time.Now()
	n := testserver.CheckPermutedPlans(t, pc, names, queries, *permutations)
	_ = pc.Close(context.Background())
	load = append(load, fmt.Sprintf("permuted plans: %d rewritings (FROM lists, WHERE conjuncts, JOIN sides reordered) planned at the written query's join cost or reported, %s",
		n, time.Since(began).Round(time.Millisecond)))

	passed, undecided := testserver.Baseline{}, testserver.Baseline{}
	for _, o := range out {
		switch o.status {
		case "pass":
			passed[o.name] = 1
		case "timeout", "not run":
			undecided[o.name] = 1
		default:
			passed[o.name] = 0
		}
	}
	lines := testserver.BaselineCheck{
		Path: "baseline.txt",
		Header: []string{
			"TPC-H SF0.1 queries whose lakepg result matches the answer.",
			"Checked by TestTPCH: a listed query that fails is a regression; rewrite with",
			"  go test ./test/tpch -run 'TestTPCH$' -update",
		},
		List:       true,
		Update:     *update,
		UpdateHint: "go test ./test/tpch -run 'TestTPCH$' -update",
	}.Check(t, passed, undecided)
	testserver.Report(t, "tpch-lakepg", summary("TPC-H SF0.1 on lakepg (extended protocol)", load, out)+strings.Join(lines, "\n")+"\n")
}

// TestTPCHPostgres loads SF0.1 into PostgreSQL and requires all queries to match the
// answers: it proves the loader and the comparison.
func TestTPCHPostgres(t *testing.T) {
	dir := material(t)
	names := queryNames(t)
	dsn := testserver.PostgresDatabase(t, "tpch")

	conn := connectPgx(t, dsn)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	began := time.Now()
	err := LoadPostgres(ctx, conn.PgConn(), filepath.Join(dir, "schema.sql"), filepath.Join(dir, "sf0.1"))
	cancel()
	if err != nil {
		t.Fatalf("loading TPC-H SF0.1 into PostgreSQL: %v", err)
	}
	load := []string{fmt.Sprintf("load (schema.sql, COPY from the Parquet files, indexes, ANALYZE): %s", time.Since(began).Round(time.Millisecond))}

	out := runQueries(t, dir, names, conn, func() *pgx.Conn { return connectPgx(t, dsn) }, *pgTimeout, 0)
	for _, o := range out {
		if o.status != "pass" {
			t.Errorf("PostgreSQL %s: %s: %s", o.name, o.status, o.detail)
		}
	}
	testserver.Report(t, "tpch-postgres", summary("TPC-H SF0.1 on PostgreSQL (all must match the answers)", load, out))
}
