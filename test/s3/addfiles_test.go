package s3

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/lakepg/lakepg/storage/s3test"
)

// add_data_files on an S3 lake: files already in the bucket, found by a
// glob over hive directories, registered in place (never copied), read by
// lakepg and by DuckDB, and deleted from like any data file.
func TestS3AddDataFiles(t *testing.T) {
	srv := s3test.Shared(t)
	bucket := srv.Bucket(t)
	putObject(t, srv, bucket, "ext/region=eu/a.parquet", parquetBytes(t, 0, 100, 1000))
	putObject(t, srv, bucket, "ext/region=us/b.parquet", parquetBytes(t, 100, 150, 1000))
	putObject(t, srv, bucket, "ext/other/c.parquet", parquetBytes(t, 150, 160, 1000))
	dir := t.TempDir()
	l := startLake(t, srv, bucket, dir)
	c := connect(t, l)
	mustExec(t, c, "CREATE TABLE t (id bigint, b text, region text, missing integer)")
	if e := pgError(t, c, "CALL lakepg.add_data_files('t', 's3://"+bucket+"/ext/none-*.parquet')"); e.Code != "58P01" {
		t.Fatalf("no file matching: %s %s, want 58P01", e.Code, e.Message)
	}
	if e := pgError(t, c, "CALL lakepg.add_data_files('t', 's3://"+bucket+"/ext/region=eu/a.parquet', allow_missing => true)"); e.Code != "42703" || !strings.Contains(e.Message, `"a"`) {
		t.Fatalf("extra column: %s %s, want 42703 naming column a", e.Code, e.Message)
	}
	mustExec(t, c, "CALL lakepg.add_data_files('t', 's3://"+bucket+"/ext/region=*/*.parquet', allow_missing => true, ignore_extra_columns => true)")
	wantRows(t, c, "SELECT region, count(*), sum(id), min(b), count(missing) FROM t GROUP BY 1 ORDER BY 1",
		"eu|100|4950|row 0/0|0", "us|50|6225|row 100/1347|0")
	// registered in place: the lake's own prefix holds no data file
	if keys := listKeys(t, srv, bucket, "lake/"); len(keys) != 0 {
		t.Fatalf("the lake copied files: %v", keys)
	}
	// (small deletes would stay in the catalog as inlined deletes)
	mustExec(t, c, "CALL lakepg.set_option('data_inlining_row_limit', '0')")
	mustExec(t, c, "DELETE FROM t WHERE id % 10 = 0")
	wantRows(t, c, "SELECT count(*), sum(id) FROM t", "135|10125")
	// the delete file went under the lake's table directory
	if keys := listKeys(t, srv, bucket, "lake/"); len(keys) != 2 || !strings.HasSuffix(keys[0], "-delete.parquet") {
		t.Fatalf("delete files in the lake: %v", keys)
	}
	got := duckdbRead(t, srv, filepath.Join(dir, "catalog.sqlite"), "SELECT region, count(*), sum(id) FROM lk.public.t GROUP BY 1 ORDER BY 1")
	if strings.Join(got, ",") != "eu|90|4500,us|45|5625" {
		t.Fatalf("DuckDB reads the registered files: %v", got)
	}

	// a partitioned table: the region directories give the files their
	// partition values, which prune them
	mustExec(t, c, "CREATE TABLE p (id bigint, b text, region text)")
	mustExec(t, c, "ALTER TABLE p SET PARTITIONED BY (region)")
	if e := pgError(t, c, "CALL lakepg.add_data_files('p', 's3://"+bucket+"/ext/other/c.parquet', ignore_extra_columns => true, allow_missing => true)"); e.Code != "22023" || !strings.Contains(e.Message, "region=") {
		t.Fatalf("file outside the partition directories: %s %s, want 22023", e.Code, e.Message)
	}
	mustExec(t, c, "CALL lakepg.add_data_files('p', 's3://"+bucket+"/ext/region=*/*.parquet', ignore_extra_columns => true)")
	wantRows(t, c, "SELECT region, count(*), sum(id) FROM p GROUP BY 1 ORDER BY 1", "eu|100|4950", "us|50|6225")
	plan := strings.Join(rows(t, c, "EXPLAIN SELECT * FROM p WHERE region = 'us'"), "\n")
	if !strings.Contains(plan, "1 pruned (1 by partition values)") {
		t.Fatalf("EXPLAIN on the registered partitioned files:\n%s", plan)
	}
	got = duckdbRead(t, srv, filepath.Join(dir, "catalog.sqlite"), "SELECT region, count(*), sum(id) FROM lk.public.p WHERE region = 'us' GROUP BY 1")
	if strings.Join(got, ",") != "us|50|6225" {
		t.Fatalf("DuckDB reads the registered partitioned files: %v", got)
	}
}
