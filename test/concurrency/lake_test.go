package concurrency

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/lakepg/lakepg/catalog/catalogtest"
	"github.com/lakepg/lakepg/exec/parquetio"
	"github.com/lakepg/lakepg/test/testserver"
)

func TestMain(m *testing.M) {
	code := m.Run()
	testserver.RemoveBinary()
	os.Exit(code)
}

// lake is one PostgreSQL catalog database and one data directory, served by two lakepg
// processes.
type lake struct {
	dsn     string // the catalog database
	data    string // the shared data directory
	servers [2]*testserver.Server
	metrics [2]string // each server's Prometheus endpoint
	// attach is DuckDB's ATTACH of the same lake as lk, read-write.
	attach string
}

// newLake creates a throwaway catalog database and starts two lakepg servers on it. The
// first start creates the catalog; the second opens the existing one.
func newLake(t *testing.T) *lake {
	t.Helper()
	admin := testserver.PostgresDSN(t) // fails, never skips, without LAKEPG_TEST_PG_DSN
	dsn := catalogtest.NewDatabase(t, admin)
	params, err := catalogtest.Params(dsn)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	l := &lake{dsn: dsn, data: filepath.Join(dir, "data")}
	bin := testserver.Binary(t)
	for i := range l.servers {
		sdir := filepath.Join(dir, fmt.Sprintf("server%d", i))
		if err := os.MkdirAll(sdir, 0o755); err != nil {
			t.Fatal(err)
		}
		ports := testserver.FreePorts(t, 2)
		port := ports[0]
		l.metrics[i] = fmt.Sprintf("127.0.0.1:%d", ports[1])
		l.servers[i] = testserver.Launch(t, bin, sdir, port, []string{
			"--listen", fmt.Sprintf("127.0.0.1:%d", port),
			"--catalog", dsn,
			"--data", l.data,
			"--log-level", "warn",
			"--metrics-listen", l.metrics[i],
		}, nil)
	}
	l.attach = fmt.Sprintf("ATTACH %s AS lk (DATA_PATH %s)",
		sqlString("ducklake:postgres:"+params.Libpq()), sqlString(l.data+"/"))
	return l
}

// exec runs statements on server i with the simple protocol, failing the test on an error.
func (l *lake) exec(t *testing.T, i int, sql string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := pgconn.Connect(ctx, l.servers[i].DSN())
	if err != nil {
		t.Fatalf("connecting to lakepg %d: %v", i, err)
	}
	defer c.Close(context.Background())
	if _, err := c.Exec(ctx, sql).ReadAll(); err != nil {
		t.Fatalf("lakepg %d: %s: %v", i, sql, err)
	}
}

// rows is a query's answer as text: column names and rows with nil for NULL.
type rows struct {
	Columns []string    `json:"columns"`
	Rows    [][]*string `json:"rows"`
	Error   string      `json:"error"`
}

// query runs sql on server i with the simple protocol (text values).
func (l *lake) query(t *testing.T, i int, sql string) rows {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := pgconn.Connect(ctx, l.servers[i].DSN())
	if err != nil {
		t.Fatalf("connecting to lakepg %d: %v", i, err)
	}
	defer c.Close(context.Background())
	rr := c.ExecParams(ctx, sql, nil, nil, nil, nil)
	var out rows
	for _, f := range rr.FieldDescriptions() {
		out.Columns = append(out.Columns, f.Name)
	}
	for rr.NextRow() {
		r := make([]*string, len(rr.Values()))
		for k, v := range rr.Values() {
			if v != nil {
				s := string(v)
				r[k] = &s
			}
		}
		out.Rows = append(out.Rows, r)
	}
	if _, err := rr.Close(); err != nil {
		t.Fatalf("lakepg %d: %s: %v", i, sql, err)
	}
	return out
}

// checkCatalog checks the catalog database itself: snapshot ids 0..n without a gap, one
// snapshot_changes row per snapshot, and `lakepg check` (every data and delete file the
// catalog references exists with its recorded size and row count, and no file under the
// data path is unreferenced). It returns the number of snapshots.
func (l *lake) checkCatalog(t *testing.T) int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := pgx.Connect(ctx, l.dsn)
	if err != nil {
		t.Fatalf("connecting to the catalog database: %v", err)
	}
	defer c.Close(context.Background())
	var n, lo, hi, changes int64
	if err := c.QueryRow(ctx, `SELECT count(*), min(snapshot_id), max(snapshot_id) FROM ducklake_snapshot`).Scan(&n, &lo, &hi); err != nil {
		t.Fatalf("reading ducklake_snapshot: %v", err)
	}
	if lo != 0 || hi != n-1 {
		t.Errorf("catalog: %d snapshots with ids %d..%d, want 0..%d without gaps", n, lo, hi, n-1)
	}
	if err := c.QueryRow(ctx, `SELECT count(*) FROM ducklake_snapshot_changes`).Scan(&changes); err != nil {
		t.Fatalf("reading ducklake_snapshot_changes: %v", err)
	}
	if changes != n {
		t.Errorf("catalog: %d snapshot_changes rows for %d snapshots", changes, n)
	}
	// schema_version and the id counters never go backwards
	var bad int64
	if err := c.QueryRow(ctx, `SELECT count(*) FROM (
		SELECT schema_version < lag(schema_version) OVER w AS sv, next_catalog_id < lag(next_catalog_id) OVER w AS nc,
			next_file_id < lag(next_file_id) OVER w AS nf
		FROM ducklake_snapshot WINDOW w AS (ORDER BY snapshot_id)) x WHERE sv OR nc OR nf`).Scan(&bad); err != nil {
		t.Fatalf("reading ducklake_snapshot: %v", err)
	}
	if bad != 0 {
		t.Errorf("catalog: %d snapshots whose schema_version, next_catalog_id or next_file_id went backwards", bad)
	}
	// a data file id is handed out once
	if err := c.QueryRow(ctx, `SELECT count(*) FROM (SELECT data_file_id FROM ducklake_data_file
		GROUP BY data_file_id HAVING count(*) > 1) x`).Scan(&bad); err != nil {
		t.Fatalf("reading ducklake_data_file: %v", err)
	}
	if bad != 0 {
		t.Errorf("catalog: %d data file ids used by more than one file", bad)
	}
	// DuckDB 1.5.5 leaves the files of a commit that lost to a conflict behind; lakepg must
	// not. Those orphans must then go with delete_orphaned_files.
	out, problems := l.lakepgCheck(t, ctx)
	var duckOrphans int
	for _, p := range problems {
		path, ok := strings.CutPrefix(p, "orphan: ")
		if ok {
			path, _, _ = strings.Cut(path, " (")
		}
		if ok && strings.HasPrefix(writtenBy(t, path), "DuckDB") {
			duckOrphans++
			continue
		}
		if ok {
			p += " (written by " + writtenBy(t, path) + ")"
		}
		t.Errorf("lakepg check: %s", p)
	}
	if duckOrphans > 0 {
		t.Logf("lakepg check: %d files DuckDB wrote for commits that failed are referenced by no catalog row; removing them with delete_orphaned_files", duckOrphans)
		l.exec(t, 0, "CALL lakepg.delete_orphaned_files(cleanup_all => true)")
		if out, problems = l.lakepgCheck(t, ctx); len(problems) > 0 {
			t.Errorf("lakepg check after delete_orphaned_files: %s", strings.Join(problems, "\n"))
		}
	}
	t.Logf("lakepg check: %s", out)
	return n
}

// commitFigures reads server i's commit counters from its metrics endpoint: snapshots
// written, commits refused with 40001, and attempts retried after losing the race for the
// next snapshot.
func (l *lake) commitFigures(i int) string {
	resp, err := http.Get("http://" + l.metrics[i] + "/metrics")
	if err != nil {
		return "metrics: " + err.Error()
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return "metrics: " + err.Error()
	}
	vals := map[string]string{}
	for _, line := range strings.Split(string(body), "\n") {
		if f := strings.Fields(line); len(f) == 2 {
			vals[f[0]] = f[1]
		}
	}
	get := func(name string) string {
		if v, ok := vals[name]; ok {
			return v
		}
		return "?"
	}
	return fmt.Sprintf("%s commits, %s conflicts, %s retries, %s commits in %s groups", get("lakepg_commits_total"), get("lakepg_commit_conflicts_total"),
		get("lakepg_commit_retries_total"), get("lakepg_grouped_commits_total"), get("lakepg_commit_groups_total"))
}

// lakepgCheck runs `lakepg check` on the lake and returns its summary line and the
// problems it printed.
func (l *lake) lakepgCheck(t *testing.T, ctx context.Context) (string, []string) {
	t.Helper()
	cmd := exec.CommandContext(ctx, l.servers[0].Bin, "check", "--catalog", l.dsn, "--data", l.data)
	cmd.Env = testserver.CleanEnv()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("lakepg check: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	summary := lines[len(lines)-1]
	if !strings.HasPrefix(summary, "checked ") {
		t.Fatalf("lakepg check: %v\n%s%s", err, out, stderr.String())
	}
	if err != nil && len(lines) == 1 {
		t.Errorf("lakepg check: %v\n%s%s", err, out, stderr.String())
	}
	return summary, lines[:len(lines)-1]
}

// writtenBy is the created_by of a Parquet file's footer.
func writtenBy(t *testing.T, path string) string {
	f, err := os.Open(path)
	if err != nil {
		return err.Error()
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err.Error()
	}
	pf, err := parquetio.Open(f, st.Size())
	if err != nil {
		return err.Error()
	}
	return pf.CreatedBy()
}

func sqlString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
