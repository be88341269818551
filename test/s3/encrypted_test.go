package s3

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/lakepg/lakepg/storage/s3test"
)

// TestS3EncryptedLake: an encrypted lake (--encrypted) whose files live in a
// bucket: every object is encrypted Parquet, lakepg reads its own data and
// delete files back through S3, and DuckDB with httpfs reads the same rows.
func TestS3EncryptedLake(t *testing.T) {
	srv := s3test.Shared(t)
	bucket := srv.Bucket(t)
	dir := t.TempDir()
	l := startLake(t, srv, bucket, dir, "--encrypted")
	c := connect(t, l)
	mustExec(t, c, "CREATE TABLE t (id integer, name text, score double precision)")
	mustExec(t, c, "INSERT INTO t SELECT g, 'name ' || (g % 17)::text, g * 1.5 FROM generate_series(1, 5000) g")
	mustExec(t, c, "DELETE FROM t WHERE id % 10 = 0")
	mustExec(t, c, "DELETE FROM t WHERE id % 7 = 0")
	wantRows(t, c, "SELECT count(*), sum(id), min(name), max(score) FROM t", "3857|9642135|name 0|7498.5")

	objs := listKeys(t, srv, bucket, "lake/")
	var data, deletes int
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, k := range objs {
		if !strings.HasSuffix(k, ".parquet") {
			continue
		}
		if strings.HasSuffix(k, "-delete.parquet") {
			deletes++
		} else {
			data++
		}
		o, err := srv.Client().GetObject(ctx, &s3.GetObjectInput{Bucket: &bucket, Key: &k})
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(o.Body)
		o.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if len(b) < 8 || string(b[:4]) != "PARE" || string(b[len(b)-4:]) != "PARE" {
			t.Fatalf("object %s is not encrypted Parquet", k)
		}
	}
	if data != 1 || deletes < 1 {
		t.Fatalf("bucket holds %d data and %d delete files: %v", data, deletes, objs)
	}

	want := rows(t, c, "SELECT id, name, score FROM t ORDER BY id")
	got := duckdbRead(t, srv, filepath.Join(dir, "catalog.sqlite"),
		"SELECT id::VARCHAR, name, score::VARCHAR FROM lk.public.t ORDER BY id")
	if len(got) != len(want) || len(want) != 3857 {
		t.Fatalf("DuckDB reads %d rows, lakepg %d", len(got), len(want))
	}
	for i := range want {
		if !sameRow(got[i], want[i]) {
			t.Fatalf("row %d: DuckDB %q, lakepg %q", i, got[i], want[i])
		}
	}
}
