package s3

import (
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/lakepg/lakepg/storage/s3test"
)

// TestS3Outage stops the object storage under a running lakepg: reads and
// writes that need it fail with 58030, naming the object and whether reading
// or writing it failed, and commit no snapshot (a small INSERT, inlined into
// the catalog, does not need it), the session survives, and once the storage
// is back the next statements work.
func TestS3Outage(t *testing.T) {
	srv := s3test.Start(t) // private: this test stops it
	bucket := srv.Bucket(t)
	// No memory cache: a repeated read of small files is otherwise served
	// from it without a request, and would not notice the outage.
	l := startLake(t, srv, bucket, t.TempDir(), "--cache-memory", "-1")
	c := connect(t, l)
	mustExec(t, c, "CREATE TABLE t (id integer, v text)")
	mustExec(t, c, "INSERT INTO t SELECT g, 'v' || g::text FROM generate_series(1, 1000) g")
	wantRows(t, c, "SELECT count(*), sum(id) FROM t", "1000|500500")
	snapshots := func(c *pgx.Conn) string { return one(t, c, "SELECT count(*) FROM lakepg.snapshots") }
	before := snapshots(c)

	srv.Stop(t)
	// failed is how the message starts: "could not read file" or, for a
	// write, "could not write file", then the object.
	checkOutage := func(c *pgx.Conn, what, failed, sql string) {
		t.Helper()
		pe := pgError(t, c, sql)
		if pe.Code != "58030" {
			t.Errorf("%s with S3 down: SQLSTATE %s (%s), want 58030", what, pe.Code, pe.Message)
		}
		if !strings.HasPrefix(pe.Message, failed+" \"s3://"+bucket+"/lake/") || !strings.Contains(pe.Message, "unavailable") {
			t.Errorf("%s with S3 down: message %q, want %s naming the object and the outage", what, pe.Message, failed)
		}
		t.Logf("%s with S3 down: %s %s", what, pe.Code, pe.Message)
	}
	const read, write = "could not read file", "could not write file"
	checkOutage(c, "SELECT", read, "SELECT count(*), sum(id) FROM t WHERE v <> ''")
	// The session survives the error.
	wantRows(t, c, "SELECT 1", "1")
	// Eleven rows, more than data_inlining_row_limit (10): the INSERT writes a Parquet file.
	checkOutage(c, "INSERT", write, "INSERT INTO t SELECT g, 'down' FROM generate_series(2001, 2011) g")
	// UPDATE reads the rows it changes first.
	checkOutage(c, "UPDATE", read, "UPDATE t SET v = 'x' WHERE id = 5")
	if got := snapshots(c); got != before {
		t.Fatalf("failed writes committed snapshots: %s, want %s", got, before)
	}
	// A small INSERT is inlined into the catalog: it needs no object storage.
	mustExec(t, c, "INSERT INTO t VALUES (1500, 'inlined')")
	during := snapshots(c)
	if during == before {
		t.Fatalf("the inlined INSERT during the outage committed no snapshot (%s)", during)
	}
	// Another connection sees the same.
	c2 := connect(t, l)
	checkOutage(c2, "SELECT on a new connection", read, "SELECT max(v) FROM t")

	srv.Restart(t)
	wantRows(t, c, "SELECT count(*), sum(id) FROM t", "1001|502000")
	mustExec(t, c, "INSERT INTO t SELECT g, 'back' FROM generate_series(2000, 2010) g")
	wantRows(t, c2, "SELECT count(*), max(id) FROM t", "1012|2010")
	if got := snapshots(c); got == during {
		t.Fatalf("INSERT after the outage committed no snapshot (%s)", got)
	}
	wantRows(t, c, fmt.Sprintf("SELECT count(*) FROM t WHERE v = '%s'", "back"), "11")
}
