package s3

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lakepg/lakepg/storage/s3test"
	"github.com/lakepg/lakepg/test/testserver"
)

// TestS3CrossStorageJoin joins, in one statement, a lake table (data in
// the bucket), read_parquet of a local file and read_parquet of an S3 glob.
func TestS3CrossStorageJoin(t *testing.T) {
	srv := s3test.Shared(t)
	bucket := srv.Bucket(t)
	dir := t.TempDir()
	l := startLake(t, srv, bucket, dir)
	c := connect(t, l)

	local := filepath.Join(t.TempDir(), "local.parquet")
	if err := os.WriteFile(local, parquetBytes(t, 0, 50, 1000), 0o644); err != nil {
		t.Fatal(err)
	}
	// Two files under ext/ match the glob; the third is in a sub-folder,
	// which '*' does not cross, and the fourth is not Parquet by name.
	putObject(t, srv, bucket, "ext/part-1.parquet", parquetBytes(t, 0, 20, 1000))
	putObject(t, srv, bucket, "ext/part-2.parquet", parquetBytes(t, 20, 40, 1000))
	putObject(t, srv, bucket, "ext/old/part-0.parquet", parquetBytes(t, 0, 1000, 1000))
	putObject(t, srv, bucket, "ext/notes.txt", []byte("not parquet"))

	mustExec(t, c, "CREATE TABLE t (id bigint, v text)")
	mustExec(t, c, "INSERT INTO t SELECT g, 'lake ' || g::text FROM generate_series(0, 99, 3) g")

	glob := "s3://" + bucket + "/ext/*.parquet"
	wantRows(t, c, fmt.Sprintf("SELECT count(*), sum(id), min(id), max(id) FROM read_parquet('%s')", glob), "40|780|0|39")
	wantRows(t, c, fmt.Sprintf("SELECT count(*) FROM read_parquet('s3://%s/ext/part-2.parquet')", bucket), "20")
	q := fmt.Sprintf(`SELECT t.id, t.v, l.b, r.a
		FROM t
		JOIN read_parquet('%s') l ON l.id = t.id
		JOIN read_parquet('%s') r ON r.id = t.id
		WHERE t.id < 40 AND t.id %% 2 = 1
		ORDER BY t.id`, local, glob)
	var want []string
	for i := 3; i < 40; i += 6 {
		want = append(want, fmt.Sprintf("%d|lake %d|row %d/%d|%d", i, i, i, i*7919%10007, 2*i))
	}
	wantRows(t, c, q, want...)

	// Missing objects and empty globs are PostgreSQL's undefined_file.
	pe := pgError(t, c, fmt.Sprintf("SELECT * FROM read_parquet('s3://%s/ext/none-*.parquet')", bucket))
	if pe.Code != "58P01" || !strings.Contains(pe.Message, "no files match") {
		t.Fatalf("empty glob: %s %s", pe.Code, pe.Message)
	}
	pe = pgError(t, c, fmt.Sprintf("SELECT * FROM read_parquet('s3://%s/ext/missing.parquet')", bucket))
	if pe.Code != "58P01" || !strings.Contains(pe.Message, "missing.parquet") {
		t.Fatalf("missing object: %s %s", pe.Code, pe.Message)
	}
	pe = pgError(t, c, "SELECT * FROM read_parquet('s3://lakepg-no-such-bucket/x.parquet')")
	if pe.Code != "58P01" || !strings.Contains(pe.Message, `bucket "lakepg-no-such-bucket" does not exist`) {
		t.Fatalf("missing bucket: %s %s", pe.Code, pe.Message)
	}
	// The session goes on.
	wantRows(t, c, "SELECT count(*) FROM t", "34")
}

// TestS3ReadParquetFromLocalLake reads S3 objects with read_parquet from a
// lake on local disk, configured by the LAKEPG_S3_* environment only.
func TestS3ReadParquetFromLocalLake(t *testing.T) {
	srv := s3test.Shared(t)
	bucket := srv.Bucket(t)
	putObject(t, srv, bucket, "x/data.parquet", parquetBytes(t, 100, 130, 1000))
	dir := t.TempDir()
	port := testserver.FreePort(t)
	args := []string{
		"--listen", fmt.Sprintf("127.0.0.1:%d", port),
		"--catalog", "sqlite:" + filepath.Join(dir, "catalog.sqlite"),
		"--data", filepath.Join(dir, "data"),
	}
	env := append(srv.Env(), "AWS_PROFILE=", "AWS_SESSION_TOKEN=")
	l := &lake{Server: testserver.Launch(t, testserver.Binary(t), dir, port, args, env)}
	c := connect(t, l)
	// three rows would be inlined into the catalog: this test is about where files go
	mustExec(t, c, "CALL lakepg.set_option('data_inlining_row_limit', '0')")
	mustExec(t, c, "CREATE TABLE t AS SELECT id, b FROM read_parquet('s3://"+bucket+"/x/*.parquet') WHERE id % 10 = 0")
	wantRows(t, c, "SELECT id, b FROM t ORDER BY id", "100|row 100/1347", "110|row 110/481", "120|row 120/9622")
	// The table's data went to the local directory.
	files, err := filepath.Glob(filepath.Join(dir, "data", "public", "t", "*.parquet"))
	if err != nil || len(files) != 1 {
		t.Fatalf("local data files: %v %v", files, err)
	}
}
