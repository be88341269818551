package s3

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lakepg/lakepg/storage/s3test"
	"github.com/lakepg/lakepg/test/testserver"
)

// s3Requests reads lakepg's object-storage request counters (the storage
// package's Stats, exported on /metrics) by operation.
func s3Requests(t *testing.T, metricsAddr string) map[string]int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+metricsAddr+"/metrics", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("reading lakepg's metrics: %v", err)
	}
	defer resp.Body.Close()
	out := map[string]int64{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		rest, ok := strings.CutPrefix(line, `lakepg_storage_requests_total{backend="s3",op="`)
		if !ok {
			continue
		}
		op, val, ok := strings.Cut(rest, `"} `)
		if !ok {
			t.Fatalf("metrics line %q", line)
		}
		f, err := strconv.ParseFloat(val, 64)
		if err != nil {
			t.Fatalf("metrics line %q: %v", line, err)
		}
		out[op] = int64(f)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatal("lakepg's /metrics has no lakepg_storage_requests_total for s3")
	}
	return out
}

func sumRequests(m map[string]int64) int64 {
	var n int64
	for _, v := range m {
		n += v
	}
	return n
}

// TestS3ScanRequests counts the object-storage requests of a table scan,
// cold and repeated, with lakepg's own counters: opening a data or delete
// file costs one GET (its tail, with the footer), and once that tail is
// cached a repeated scan sends no request at all, because the catalog's
// file_size_bytes stands in for the server's answer about the file.
func TestS3ScanRequests(t *testing.T) {
	srv := s3test.Shared(t)
	bucket := srv.Bucket(t)
	metrics := fmt.Sprintf("127.0.0.1:%d", testserver.FreePort(t))
	l := startLake(t, srv, bucket, t.TempDir(), "--metrics-listen", metrics)
	c := connect(t, l)
	mustExec(t, c, "CREATE TABLE t (id bigint, v text)")
	// Three data files, each with a delete file.
	for i := 0; i < 3; i++ {
		mustExec(t, c, fmt.Sprintf("INSERT INTO t SELECT g, 'value ' || g::text FROM generate_series(%d, %d) g", i*20000+1, (i+1)*20000))
	}
	mustExec(t, c, "DELETE FROM t WHERE id % 100 = 0")
	objs := listKeys(t, srv, bucket, "lake/")
	var files int
	for _, k := range objs {
		if strings.HasSuffix(k, ".parquet") {
			files++
		}
	}
	if files != 6 {
		t.Fatalf("bucket holds %d Parquet files, want 3 data and 3 delete files: %v", files, objs)
	}
	// A new process: nothing cached, as for the first scan after a start.
	l.Restart(t)
	c = connect(t, l)
	const q = "SELECT count(*), sum(id), max(v) FROM t"
	scan := func() int64 {
		t.Helper()
		before := s3Requests(t, metrics)
		wantRows(t, c, q, "59400|1782000000|value 9999")
		after := s3Requests(t, metrics)
		for op, n := range after {
			after[op] = n - before[op]
		}
		t.Logf("%s: S3 requests %v", q, after)
		return sumRequests(after)
	}
	cold := scan()
	warm := scan()
	t.Logf("object-storage requests of the scan of %d files: cold %d, repeated %d", files, cold, warm)
	if cold < int64(files) {
		t.Fatalf("cold scan of %d files sent %d requests, want at least one per file", files, cold)
	}
	if warm != 0 {
		t.Fatalf("repeated scan sent %d requests, want 0 (footers cached, sizes from the catalog)", warm)
	}
}
