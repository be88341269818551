package s3

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/lakepg/lakepg/storage/s3test"
)

// TestS3LakeCycle runs a table's whole life on a lake in a bucket, then has
// DuckDB read the same lake.
func TestS3LakeCycle(t *testing.T) {
	srv := s3test.Shared(t)
	bucket := srv.Bucket(t)
	dir := t.TempDir()
	l := startLake(t, srv, bucket, dir)
	c := connect(t, l)

	snaps := func() int {
		var n int
		fmt.Sscan(one(t, c, "SELECT count(*) FROM lakepg.snapshots"), &n)
		return n
	}
	start := snaps()
	mustExec(t, c, "CREATE TABLE t (id integer, name text, score double precision)")
	mustExec(t, c, "INSERT INTO t SELECT g, 'name ' || g::text, g * 1.5 FROM generate_series(1, 5000) g")
	afterInsert := start + 1 // snapshot id of the INSERT (ids start at 0)
	wantRows(t, c, "SELECT count(*), sum(id), min(name), max(score) FROM t", "5000|12502500|name 1|7500")
	mustExec(t, c, "DELETE FROM t WHERE id % 10 = 0")
	mustExec(t, c, "UPDATE t SET name = 'updated', score = -1 WHERE id <= 3")
	wantRows(t, c, "SELECT id, name, score FROM t WHERE id <= 5 OR id BETWEEN 9 AND 11 ORDER BY id",
		"1|updated|-1", "2|updated|-1", "3|updated|-1", "4|name 4|6", "5|name 5|7.5", "9|name 9|13.5", "11|name 11|16.5")
	wantRows(t, c, "SELECT count(*), sum(id) FROM t", "4500|11250000")
	// Time travel: the table as the INSERT left it.
	wantRows(t, c, fmt.Sprintf("SELECT count(*), sum(id), min(name) FROM lakepg.at_version('t', %d)", afterInsert), "5000|12502500|name 1")
	wantRows(t, c, fmt.Sprintf("SELECT name FROM lakepg.at_version('t', %d) WHERE id = 2", afterInsert), "name 2")
	mustExec(t, c, "ALTER TABLE t ADD COLUMN tag text DEFAULT 'old'")
	mustExec(t, c, "INSERT INTO t VALUES (6000, 'late', 1, 'new')")
	wantRows(t, c, "SELECT id, name, tag FROM t WHERE id IN (1, 4, 6000) ORDER BY id", "1|updated|old", "4|name 4|old", "6000|late|new")
	if got := snaps() - start; got != 6 {
		t.Fatalf("%d snapshots committed, want 6", got)
	}

	// The data files are objects under the lake's prefix; nothing went to
	// the local disk beside the catalog.
	objs := listKeys(t, srv, bucket, "lake/")
	var data, deletes int
	for _, k := range objs {
		switch {
		case strings.HasSuffix(k, "-delete.parquet"):
			deletes++
		case strings.HasSuffix(k, ".parquet"):
			data++
		}
		if !strings.HasPrefix(k, "lake/public/t/") {
			t.Errorf("object %s outside the table's folder", k)
		}
	}
	// Files: the 5000-row INSERT and the DELETE of 500 rows; the UPDATE of three rows
	// (their deletions and new versions) and the one-row INSERT are inlined into the
	// catalog (at most data_inlining_row_limit, 10, rows each), as DuckDB does.
	if data != 1 || deletes != 1 {
		t.Fatalf("bucket holds %d data and %d delete files: %v", data, deletes, objs)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.IsDir() {
			t.Errorf("lakepg created a local directory %s for an S3 lake", e.Name())
		}
	}

	// DuckDB with its ducklake and httpfs extensions reads the same lake.
	want := rows(t, c, "SELECT id, name, score, tag FROM t ORDER BY id")
	got := duckdbRead(t, srv, filepath.Join(dir, "catalog.sqlite"),
		"SELECT id::VARCHAR, name, score::VARCHAR, tag FROM lk.public.t ORDER BY id")
	if len(got) != len(want) {
		t.Fatalf("DuckDB reads %d rows, lakepg %d", len(got), len(want))
	}
	for i := range want {
		if !sameRow(got[i], want[i]) {
			t.Fatalf("row %d: DuckDB %q, lakepg %q", i, got[i], want[i])
		}
	}
	old := duckdbRead(t, srv, filepath.Join(dir, "catalog.sqlite"),
		fmt.Sprintf("SELECT count(*)::VARCHAR, sum(id)::VARCHAR FROM lk.public.t AT (VERSION => %d)", afterInsert))
	if len(old) != 1 || old[0] != "5000|12502500" {
		t.Fatalf("DuckDB at version %d: %q", afterInsert, old)
	}
	t.Logf("DuckDB read %d rows of the S3 lake, equal to lakepg's", len(got))
}

// sameRow compares rows cell by cell, numbers by value: DuckDB prints the
// double -1 as "-1.0", PostgreSQL as "-1".
func sameRow(a, b string) bool {
	ac, bc := strings.Split(a, "|"), strings.Split(b, "|")
	if len(ac) != len(bc) {
		return false
	}
	for i := range ac {
		if ac[i] == bc[i] {
			continue
		}
		x, err1 := strconv.ParseFloat(ac[i], 64)
		y, err2 := strconv.ParseFloat(bc[i], 64)
		if err1 != nil || err2 != nil || x != y {
			return false
		}
	}
	return true
}

func listKeys(t *testing.T, srv *s3test.Server, bucket, prefix string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var keys []string
	pages := s3.NewListObjectsV2Paginator(srv.Client(), &s3.ListObjectsV2Input{Bucket: &bucket, Prefix: &prefix})
	for pages.HasMorePages() {
		p, err := pages.NextPage(ctx)
		if err != nil {
			t.Fatalf("listing %s/%s: %v", bucket, prefix, err)
		}
		for _, o := range p.Contents {
			keys = append(keys, *o.Key)
		}
	}
	return keys
}
