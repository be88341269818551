package e2e

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

// TestImportS3 imports a CSV and a Parquet object from a real S3 server
// (versitygw), configured by the same --s3-* flags as an s3:// data path and
// the standard AWS credentials: the CSV is larger than one ranged read, so
// it streams over several; a missing key names its bucket and key and
// commits nothing.
func TestImportS3(t *testing.T) {
	srv := s3test.Shared(t)
	bucket := srv.Bucket(t)
	l := newLake(t)
	put := func(key string, body []byte) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if _, err := srv.Client().PutObject(ctx, &s3.PutObjectInput{Bucket: &bucket, Key: &key, Body: strings.NewReader(string(body))}); err != nil {
			t.Fatal(err)
		}
		return "s3://" + bucket + "/" + key
	}

	// ~11 MiB: two ranged reads of 8 MiB
	const rows = 250000
	var csv strings.Builder
	csv.WriteString("id,name,amount,day\n")
	var sum int64
	for i := 1; i <= rows; i++ {
		fmt.Fprintf(&csv, "%d,customer number %d,%d.25,2024-01-%02d\n", i, i%1000, i%997, i%28+1)
		sum += int64(i % 997)
	}
	csvURL := put("in/orders.csv", []byte(csv.String()))
	pq, err := os.ReadFile(writeParquet(t, filepath.Join(l.dir, "items.parquet"), 1, 150))
	if err != nil {
		t.Fatal(err)
	}
	pqURL := put("in/items.parquet", pq)

	env := srv.Env() // credentials; the endpoint comes from the flags below
	s3flags := []string{"--s3-endpoint", srv.Endpoint, "--s3-path-style", "--s3-region", s3test.Region}
	imp := func(args ...string) result {
		t.Helper()
		a := append(append(append([]string{"import"}, l.args...), s3flags...), args...)
		var creds []string
		for _, kv := range env {
			if strings.HasPrefix(kv, "AWS_") {
				creds = append(creds, kv)
			}
		}
		return runEnv(t, l.dir, creds, "", a...)
	}

	r := imp("--create", "orders", csvURL)
	if r.code != 0 {
		t.Fatalf("import of %s: exit %d\n%s%s", csvURL, r.code, r.stdout, r.stderr)
	}
	size := int64(csv.Len())
	if want := fmt.Sprintf("imported %d rows into orders from 1 CSV file(s) (%.1f MiB)", rows, float64(size)/(1<<20)); !strings.HasPrefix(r.stdout, want) {
		t.Errorf("import said %q, want %q…", r.stdout, want)
	}
	if want := fmt.Sprintf("import: %d rows, %.1f MiB of %.1f MiB (100%%)", rows, float64(size)/(1<<20), float64(size)/(1<<20)); !strings.Contains(r.stderr, want) {
		t.Errorf("progress %q lacks %q", r.stderr, want)
	}
	got := l.sh(t, []string{"--format", "csv"}, "SELECT count(*) AS n, count(DISTINCT name) AS names, sum(amount) AS s, min(day) AS lo, max(day) AS hi FROM orders")
	if want := fmt.Sprintf("n,names,s,lo,hi\n%d,1000,%s,2024-01-01,2024-01-28\n", rows, strconv.FormatFloat(float64(sum)+0.25*rows, 'f', -1, 64)); got != want {
		t.Errorf("orders:\ngot  %q\nwant %q", got, want)
	}

	r = imp("--create", "items", pqURL)
	if r.code != 0 || !strings.HasPrefix(r.stdout, "imported 150 rows into items from 1 Parquet file(s)") {
		t.Fatalf("import of %s: exit %d\n%s%s", pqURL, r.code, r.stdout, r.stderr)
	}
	if got := l.sh(t, []string{"--format", "csv"}, "SELECT count(*) AS n, sum(id) AS s, max(name) AS m FROM items"); got != "n,s,m\n150,11325,name 99\n" {
		t.Errorf("items: %q", got)
	}

	// a missing key, after a good file: nothing is imported
	before := l.snapshotCount(t)
	missing := "s3://" + bucket + "/in/missing.csv"
	r = imp("orders", csvURL, missing)
	if r.code != 1 {
		t.Errorf("import of a missing object: exit %d, want 1\n%s%s", r.code, r.stdout, r.stderr)
	}
	if want := fmt.Sprintf(`no object with key "in/missing.csv" in bucket %q`, bucket); !strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, missing) {
		t.Errorf("error %q does not name the object (%s)", r.stderr, want)
	}
	if after := l.snapshotCount(t); after != before {
		t.Errorf("a failed import changed the snapshot count %s → %s", before, after)
	}
	if got := l.sh(t, []string{"--format", "csv"}, "SELECT count(*) AS n FROM orders"); got != fmt.Sprintf("n\n%d\n", rows) {
		t.Errorf("orders after the failed import: %q", got)
	}
}
