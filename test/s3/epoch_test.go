package s3

import (
	"strings"
	"testing"

	"github.com/lakepg/lakepg/storage/s3test"
)

// TestS3EpochPartitions: a DuckLake 1.1 lake on S3 partitioned by
// epoch_month and epoch_day puts its files under epoch_month=…/epoch_day=…
// keys (values before 1970 negative) and prunes by them.
func TestS3EpochPartitions(t *testing.T) {
	srv := s3test.Shared(t)
	bucket := srv.Bucket(t)
	l := startLake(t, srv, bucket, t.TempDir(), "--ducklake-version", "1.1")
	c := connect(t, l)
	mustExec(t, c, "CALL lakepg.set_option('data_inlining_row_limit', '0')")
	mustExec(t, c, "CREATE TABLE e (id integer, ts timestamp)")
	mustExec(t, c, "ALTER TABLE e SET PARTITIONED BY (epoch_month(ts), epoch_day(ts))")
	mustExec(t, c, "INSERT INTO e SELECT i, TIMESTAMP '1969-12-30 12:00' + i * interval '6 hours' FROM generate_series(0, 19) i")
	keys := listKeys(t, srv, bucket, "lake/")
	var dirs []string
	for _, k := range keys {
		if i := strings.Index(k, "epoch_month="); i >= 0 {
			dirs = append(dirs, k[i:strings.LastIndex(k, "/")])
		}
	}
	if got := strings.Join(dirs, ","); got != "epoch_month=-1/epoch_day=-1,epoch_month=-1/epoch_day=-2,epoch_month=0/epoch_day=0,epoch_month=0/epoch_day=1,epoch_month=0/epoch_day=2,epoch_month=0/epoch_day=3" {
		t.Fatalf("partition directories: %s (keys %v)", got, keys)
	}
	wantRows(t, c, "SELECT count(*), min(id), max(id) FROM e WHERE ts >= '1970-01-02' AND ts < '1970-01-03'", "4|10|13")
	plan := strings.Join(rows(t, c, "EXPLAIN SELECT * FROM e WHERE ts >= '1970-01-02' AND ts < '1970-01-03'"), "\n")
	if !strings.Contains(plan, "5 pruned (5 by partition values)") {
		t.Fatalf("EXPLAIN:\n%s", plan)
	}
}
