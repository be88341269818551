package concurrency

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/lakepg/lakepg/test/testserver"
)

// TestCatalogGrowth creates tables (CREATE TABLE and a 3-row INSERT each) on one
// server with a SQLite catalog and reports the rate per step of LAKEPG_GROWTH_STEP
// tables up to LAKEPG_GROWTH_TABLES (default 60 in steps of 20), and the median
// latency of a point read of one table at the end. Every table must hold its 3 rows.
func TestCatalogGrowth(t *testing.T) {
	total, step := 60, 20
	if v := os.Getenv("LAKEPG_GROWTH_TABLES"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("LAKEPG_GROWTH_TABLES=%q", v)
		}
		total = n
	}
	if v := os.Getenv("LAKEPG_GROWTH_STEP"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("LAKEPG_GROWTH_STEP=%q", v)
		}
		step = n
	}
	s := testserver.Start(t, testserver.Binary(t), t.TempDir())
	ctx := context.Background()
	conn, err := pgconn.Connect(ctx, s.DSN())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	exec := func(q string) [][][]byte {
		t.Helper()
		res, err := conn.Exec(ctx, q).ReadAll()
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return res[len(res)-1].Rows
	}
	var lines []string
	start := time.Now()
	for i := 0; i < total; i++ {
		exec(fmt.Sprintf("CREATE TABLE g%d (id bigint, v varchar)", i))
		exec(fmt.Sprintf("INSERT INTO g%d VALUES (1, 'a'), (2, 'b'), (3, 'c')", i))
		if (i+1)%step == 0 || i+1 == total {
			el := time.Since(start)
			n := (i % step) + 1
			lines = append(lines, fmt.Sprintf("tables %d..%d: %.1f tables/s (load %s)", i+2-n, i+1, float64(n)/el.Seconds(), loadAvg()))
			start = time.Now()
		}
	}
	// every table holds its rows: a sample of them, the first and the last
	for _, i := range []int{0, total / 2, total - 1} {
		rows := exec(fmt.Sprintf("SELECT count(*), sum(id) FROM g%d", i))
		if got := string(rows[0][0]) + "|" + string(rows[0][1]); got != "3|6" {
			t.Fatalf("g%d: %s, want 3|6", i, got)
		}
	}
	var lat []time.Duration
	for k := 0; k < 50; k++ {
		t0 := time.Now()
		rows := exec(fmt.Sprintf("SELECT v FROM g%d WHERE id = 2", (k*7919)%total))
		lat = append(lat, time.Since(t0))
		if len(rows) != 1 || string(rows[0][0]) != "b" {
			t.Fatalf("point read: %q", rows)
		}
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	lines = append(lines, fmt.Sprintf("point read of one table at %d tables: median %s, p90 %s (load %s)",
		total, lat[len(lat)/2].Round(10*time.Microsecond), lat[len(lat)*9/10].Round(10*time.Microsecond), loadAvg()))
	testserver.Report(t, "catalog-growth-sqlite", strings.Join(lines, "\n"))
}
