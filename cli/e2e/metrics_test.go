package e2e

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/lakepg/lakepg/test/testserver"
)

// scrape reads the server's /metrics into sample → value.
func scrape(t *testing.T, addr string) map[string]float64 {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("/metrics: %s", resp.Status)
	}
	out := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || line == "" {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatalf("bad sample %q", line)
		}
		out[line[:i]] = v
	}
	return out
}

// TestMetricsAndQueryLog runs a small workload against a server with
// --metrics-listen and checks that the counters move, and that the query
// log has a JSON line per statement (--slow-query-ms 0 logs all at warn).
func TestMetricsAndQueryLog(t *testing.T) {
	dir := t.TempDir()
	port, mport := testserver.FreePort(t), testserver.FreePort(t)
	maddr := fmt.Sprintf("127.0.0.1:%d", mport)
	cfg := writeFile(t, filepath.Join(dir, "lakepg.toml"), fmt.Sprintf("listen = \"127.0.0.1:%d\"\n[metrics]\nlisten = %q\n", port, maddr))
	srv := testserver.Launch(t, testserver.Binary(t), dir, port, []string{
		"serve", "--config", cfg,
		"--catalog", "sqlite:" + filepath.Join(dir, "catalog.sqlite"), "--data", filepath.Join(dir, "data"),
		"--log-format", "json", "--slow-query-ms", "0",
	}, nil)

	// the launcher's readiness probe may still be closing its connection
	before := scrape(t, maddr)
	for wait := time.Now().Add(10 * time.Second); before["lakepg_connections"] != 0 && time.Now().Before(wait); {
		time.Sleep(50 * time.Millisecond)
		before = scrape(t, maddr)
	}
	if before["lakepg_connections"] != 0 {
		t.Fatalf("lakepg_connections = %v before any session", before["lakepg_connections"])
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, srv.DSN())
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"CREATE TABLE t (a int)",
		"INSERT INTO t VALUES (1), (2), (3)",
		"DELETE FROM t WHERE a = 99",
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	var n int
	rows, _ := conn.Query(ctx, "SELECT a FROM t")
	for rows.Next() {
		n++
	}
	if rows.Err() != nil || n != 3 {
		t.Fatalf("select: %d rows, %v", n, rows.Err())
	}
	if _, err := conn.Exec(ctx, "SELECT 1/0"); err == nil {
		t.Fatal("1/0 did not fail")
	}

	during := scrape(t, maddr)
	delta := func(name string) float64 { return during[name] - before[name] }
	if during["lakepg_connections"] < 1 {
		t.Errorf("lakepg_connections = %v with a session open", during["lakepg_connections"])
	}
	if d := delta(`lakepg_queries_total{status="ok"}`); d < 4 {
		t.Errorf("queries ok grew by %v, want >= 4", d)
	}
	if d := delta(`lakepg_queries_total{status="error"}`); d != 1 {
		t.Errorf("queries error grew by %v, want 1", d)
	}
	if d := delta("lakepg_commits_total"); d != 2 {
		t.Errorf("commits grew by %v, want 2 (CREATE, INSERT; a DELETE of nothing commits nothing)", d)
	}
	if d := delta("lakepg_rows_returned_total"); d < 3 {
		t.Errorf("rows returned grew by %v, want >= 3", d)
	}
	if d := delta("lakepg_query_duration_seconds_count"); d < 5 {
		t.Errorf("duration histogram count grew by %v, want >= 5", d)
	}
	if _, ok := during["lakepg_commit_conflicts_total"]; !ok {
		t.Errorf("no lakepg_commit_conflicts_total")
	}

	conn.Close(ctx)
	deadline := time.Now().Add(10 * time.Second)
	for scrape(t, maddr)["lakepg_connections"] != before["lakepg_connections"] {
		if time.Now().After(deadline) {
			t.Fatalf("lakepg_connections did not go back to %v after the session closed", before["lakepg_connections"])
		}
		time.Sleep(50 * time.Millisecond)
	}

	logs := srv.Logs.String()
	for _, want := range []string{
		`"level":"WARN","msg":"statement"`,
		`"statement":"INSERT INTO t VALUES (1), (2), (3)","tag":"INSERT 0 3"`,
		`"statement":"SELECT 1/0","sqlstate":"22012"`,
		`"duration_ms":`,
	} {
		if !strings.Contains(logs, want) {
			t.Errorf("server log lacks %s:\n%s", want, logs)
		}
	}
	srv.Stop(t)
}
