package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/lakepg/lakepg/test/testserver"
)

// statementLine finds the query log's JSON line of statement text.
func statementLine(t *testing.T, logs, text string) map[string]any {
	t.Helper()
	for _, line := range strings.Split(logs, "\n") {
		if !strings.Contains(line, `"msg":"statement"`) {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			continue
		}
		if m["statement"] == text {
			return m
		}
	}
	t.Fatalf("no statement log line for %q in:\n%s", text, logs)
	return nil
}

// TestScanMetricsAndStatementLog: a scan moves the storage counters of
// /metrics; commits and a real write conflict are counted; the statement's
// log line has the bytes it read and the files pruning skipped; and
// `lakepg maintenance --connect` runs (and dry-runs) on the server.
func TestScanMetricsAndStatementLog(t *testing.T) {
	dir := t.TempDir()
	port, mport := testserver.FreePort(t), testserver.FreePort(t)
	maddr := fmt.Sprintf("127.0.0.1:%d", mport)
	srv := testserver.Launch(t, testserver.Binary(t), dir, port, []string{
		"serve", "--listen", fmt.Sprintf("127.0.0.1:%d", port), "--metrics-listen", maddr,
		"--catalog", "sqlite:" + filepath.Join(dir, "catalog.sqlite"), "--data", filepath.Join(dir, "data"),
		"--log-format", "json", "--slow-query-ms", "0",
	}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, srv.DSN())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	must := func(c *pgx.Conn, q string) {
		t.Helper()
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}

	m0 := scrape(t, maddr)
	must(conn, "CREATE TABLE s (a int, b text)")
	// two files of 5000 rows each (too many to inline), far apart in a
	must(conn, "INSERT INTO s SELECT g, repeat('x', 20) FROM generate_series(1, 5000) g")
	must(conn, "INSERT INTO s SELECT g, repeat('y', 20) FROM generate_series(10001, 15000) g")
	m1 := scrape(t, maddr)
	if d := m1["lakepg_commits_total"] - m0["lakepg_commits_total"]; d != 3 {
		t.Errorf("commits grew by %v over CREATE and two INSERTs, want 3", d)
	}

	const pruned = "SELECT sum(a), count(*) FROM s WHERE a > 10000"
	var sum, n int64
	if err := conn.QueryRow(ctx, pruned).Scan(&sum, &n); err != nil || n != 5000 || sum != (10001+15000)*5000/2 {
		t.Fatalf("%s: %d, %d, %v", pruned, sum, n, err)
	}
	const full = "SELECT sum(a) FROM s"
	if err := conn.QueryRow(ctx, full).Scan(&sum); err != nil || sum != 5000*5001/2+(10001+15000)*5000/2 {
		t.Fatalf("%s: %d, %v", full, sum, err)
	}
	m2 := scrape(t, maddr)
	local := `lakepg_storage_read_bytes_total{backend="local"}`
	if d := m2[local] - m1[local]; d <= 0 {
		t.Errorf("%s grew by %v during the scans", local, d)
	}
	if d := m2[`lakepg_storage_requests_total{backend="local",op="read"}`] - m1[`lakepg_storage_requests_total{backend="local",op="read"}`]; d <= 0 {
		t.Errorf("local reads grew by %v during the scans", d)
	}
	for _, name := range []string{`lakepg_storage_read_bytes_total{backend="s3"}`, `lakepg_storage_cache_hits_total{cache="memory"}`,
		`lakepg_storage_cache_hits_total{cache="disk"}`, "lakepg_storage_cache_misses_total", `lakepg_storage_requests_total{backend="s3",op="get"}`,
		"lakepg_commit_retries_total"} {
		if _, ok := m2[name]; !ok {
			t.Errorf("/metrics has no %s", name)
		}
	}

	// the query log: bytes read and files pruned per statement
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(srv.Logs.String(), full) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	logs := srv.Logs.String()
	p := statementLine(t, logs, pruned)
	if p["files_pruned"] != 1.0 {
		t.Errorf("files_pruned of %q = %v, want 1: %v", pruned, p["files_pruned"], p)
	}
	pb, _ := p["bytes_read"].(float64)
	f := statementLine(t, logs, full)
	fb, _ := f["bytes_read"].(float64)
	if pb <= 0 || fb <= pb || f["files_pruned"] != 0.0 {
		t.Errorf("bytes_read: %v for the pruned scan, %v for the full one (want 0 < pruned < full); full scan pruned %v files", pb, fb, f["files_pruned"])
	}
	if _, ok := p["row_groups_pruned"]; !ok {
		t.Errorf("no row_groups_pruned in %v", p)
	}

	// maintenance against the server: the dry run changes nothing, the
	// real run commits one snapshot
	l := lake{dir: dir, args: []string{"--connect", srv.DSN()}}
	requireLines(t, l.maint(t, "merge", "--dry-run"),
		"dry run (connected to postgres://test@127.0.0.1:", "merge_adjacent_files: would merge 2 files into 1", "  public.s: 2 files (10000 rows, ")
	m3 := scrape(t, maddr)
	if d := m3["lakepg_commits_total"] - m2["lakepg_commits_total"]; d != 0 {
		t.Errorf("a dry run committed %v snapshots", d)
	}
	requireLines(t, l.maint(t, "merge"), "merge_adjacent_files: 2 files merged into 1")
	m4 := scrape(t, maddr)
	if d := m4["lakepg_commits_total"] - m3["lakepg_commits_total"]; d != 1 {
		t.Errorf("merging committed %v snapshots, want 1", d)
	}

	// two transaction blocks delete the same row: the second COMMIT fails
	// with 40001, which the conflict counter sees
	other, err := pgx.Connect(ctx, srv.DSN())
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close(ctx)
	must(conn, "BEGIN")
	must(other, "BEGIN")
	must(conn, "DELETE FROM s WHERE a = 7")
	must(other, "DELETE FROM s WHERE a = 7")
	must(conn, "COMMIT")
	if _, err := other.Exec(ctx, "COMMIT"); err == nil || !strings.Contains(err.Error(), "40001") {
		t.Fatalf("second COMMIT: %v, want SQLSTATE 40001", err)
	}
	m5 := scrape(t, maddr)
	if d := m5["lakepg_commit_conflicts_total"] - m4["lakepg_commit_conflicts_total"]; d != 1 {
		t.Errorf("conflicts grew by %v, want 1", d)
	}
	if d := m5["lakepg_commits_total"] - m4["lakepg_commits_total"]; d != 1 {
		t.Errorf("commits grew by %v over one successful and one failed COMMIT, want 1", d)
	}
	srv.Stop(t)
}
