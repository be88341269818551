package s3

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/exec/parquetio"
	"github.com/lakepg/lakepg/storage/s3test"
)

// TestS3DeletionVector: a deletion vector in a Puffin file in the bucket
// (one cumulative vector per snapshot, DuckLake 1.1's layout) in place of a
// Parquet delete file: lakepg reads it through S3 at each snapshot.
func TestS3DeletionVector(t *testing.T) {
	srv := s3test.Shared(t)
	bucket := srv.Bucket(t)
	dir := t.TempDir()
	l := startLake(t, srv, bucket, dir, "--ducklake-version", "1.1")
	c := connect(t, l)
	mustExec(t, c, "CREATE TABLE t (id integer)")
	mustExec(t, c, "INSERT INTO t SELECT g FROM generate_series(1, 5000) g")
	mustExec(t, c, "DELETE FROM t WHERE id % 10 = 0")
	first := one(t, c, "SELECT max(snapshot_id) FROM lakepg.snapshots()")
	mustExec(t, c, "DELETE FROM t WHERE id % 7 = 0")
	wantRows(t, c, "SELECT count(*), sum(id) FROM t", "3857|9642135")

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	db, err := catalog.Open(ctx, "sqlite:"+filepath.Join(dir, "catalog.sqlite"), "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var id, begin, last int64
	var rel string
	if err := db.SQL().QueryRowContext(ctx, `SELECT delete_file_id, path, begin_snapshot FROM ducklake_delete_file WHERE end_snapshot IS NULL`).Scan(&id, &rel, &begin); err != nil {
		t.Fatal(err)
	}
	if err := db.SQL().QueryRowContext(ctx, `SELECT max(snapshot_id) FROM ducklake_snapshot`).Scan(&last); err != nil {
		t.Fatal(err)
	}
	// positions are ids - 1 (one file, in insert order)
	var tens, both []int64
	for i := int64(1); i <= 5000; i++ {
		if i%10 == 0 {
			tens = append(tens, i-1)
		}
		if i%10 == 0 || i%7 == 0 {
			both = append(both, i-1)
		}
	}
	file, footer, err := parquetio.WritePuffin("t.parquet", []parquetio.PuffinBlob{{Snapshot: begin, Positions: tens}, {Snapshot: last, Positions: both}})
	if err != nil {
		t.Fatal(err)
	}
	name := strings.TrimSuffix(rel, ".parquet") + ".puffin"
	putObject(t, srv, bucket, "lake/public/t/"+name, file)
	if _, err := db.SQL().ExecContext(ctx, `UPDATE ducklake_delete_file SET path = ?, format = 'puffin', file_size_bytes = ?, footer_size = ?, encryption_key = NULL WHERE delete_file_id = ?`,
		name, len(file), footer, id); err != nil {
		t.Fatal(err)
	}
	l.Restart(t)
	c = connect(t, l)
	wantRows(t, c, "SELECT count(*), sum(id) FROM t", "3857|9642135")
	mustExec(t, c, "SET lakepg.snapshot = "+first)
	wantRows(t, c, "SELECT count(*), sum(id) FROM t", "4500|11250000")
}
