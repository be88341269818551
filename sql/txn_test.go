package sql

import (
	"strings"
	"testing"

	"github.com/lakepg/lakepg/pgerr"
)

func tagOf(t *testing.T, s *Session, q string) string {
	t.Helper()
	_, tag, err := run(t, s, q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return tag
}

func TestTransactionBlockIsOneSnapshot(t *testing.T) {
	s := setup(t)
	other, err := s.eng.NewSession("other", "lake", map[string]string{"TimeZone": "UTC"})
	if err != nil {
		t.Fatal(err)
	}
	must(t, s, `SELECT max(snapshot_id) FROM lakepg.snapshots`, "2")
	must(t, s, `BEGIN`)
	must(t, s, `INSERT INTO t (g, x) VALUES ('p', 10), ('q', 11)`)
	must(t, s, `INSERT INTO t (g, x) VALUES ('r', 12)`)
	must(t, s, `SELECT count(*) FROM t`, "7")
	must(t, other, `SELECT count(*) FROM t`, "4")
	// a committed row and a row of the block itself, in one statement
	if tag := tagOf(t, s, `DELETE FROM t WHERE x IN (1, 10)`); tag != "DELETE 2" {
		t.Errorf("DELETE tag %q, want DELETE 2", tag)
	}
	if tag := tagOf(t, s, `UPDATE t SET x = x * 100 WHERE x IN (2, 11)`); tag != "UPDATE 2" {
		t.Errorf("UPDATE tag %q, want UPDATE 2", tag)
	}
	// the updated committed row now lives in a file of the block (with its row id)
	must(t, s, `UPDATE t SET x = x + 1 WHERE x = 200`)
	// a second delete from the committed file replaces the block's delete file
	must(t, s, `DELETE FROM t WHERE x = 3`)
	must(t, s, `DELETE FROM t WHERE x IS NULL`)
	must(t, s, `SELECT g, x FROM t ORDER BY x`, "r|12", "b|201", "q|1100")
	must(t, s, `SELECT g, x FROM t WHERE x > 100 ORDER BY x`, "b|201", "q|1100")
	must(t, other, `SELECT count(*) FROM t`, "4")
	must(t, other, `SELECT max(snapshot_id) FROM lakepg.snapshots`, "2")
	must(t, s, `COMMIT`)
	must(t, other, `SELECT g, x FROM t ORDER BY x`, "r|12", "b|201", "q|1100")
	must(t, other, `SELECT snapshot_id, changes FROM lakepg.snapshots WHERE snapshot_id > 2`, "3|inserted_into_table:2,deleted_from_table:2")
	must(t, other, `SELECT count(*) FROM lakepg.at_version('t', 2)`, "4")
	// every file the block wrote and then replaced is gone: what is left is
	// referenced by the catalog (one data file per insert/update survivor, one delete file)
	files := dataFiles(t, s)
	must(t, s, `SELECT count(*) FROM t`, "3")

	// ROLLBACK leaves no snapshot and no file
	must(t, s, `BEGIN`)
	must(t, s, `INSERT INTO t (g, x) VALUES ('z', 99)`)
	must(t, s, `DELETE FROM t WHERE x = 12`)
	must(t, s, `UPDATE t SET g = 'B' WHERE x = 201`)
	must(t, s, `ROLLBACK`)
	must(t, s, `SELECT g, x FROM t ORDER BY x`, "r|12", "b|201", "q|1100")
	must(t, s, `SELECT max(snapshot_id) FROM lakepg.snapshots`, "3")
	if got := dataFiles(t, s); strings.Join(got, "\n") != strings.Join(files, "\n") {
		t.Errorf("ROLLBACK left files behind:\nbefore %v\nafter  %v", files, got)
	}

	// an error aborts the block; COMMIT then rolls back
	must(t, s, `BEGIN`)
	must(t, s, `INSERT INTO t (g, x) VALUES ('y', 98)`)
	mustFail(t, s, `SELECT 1/0`, pgerr.DivisionByZero)
	mustFail(t, s, `SELECT 1`, pgerr.InFailedTransaction)
	must(t, s, `COMMIT`)
	must(t, s, `SELECT count(*) FROM t WHERE x = 98`, "0")

	// schema changes are refused inside a block, clearly
	must(t, s, `BEGIN`)
	mustFail(t, s, `CREATE TABLE u (a int)`, pgerr.FeatureNotSupported)
	must(t, s, `ROLLBACK`)

	// a dropped connection rolls back
	must(t, other, `BEGIN`)
	must(t, other, `INSERT INTO t (g, x) VALUES ('gone', 1)`)
	other.Close()
	must(t, s, `SELECT count(*) FROM t WHERE g = 'gone'`, "0")
	must(t, s, `SELECT max(snapshot_id) FROM lakepg.snapshots`, "3")
	if got := dataFiles(t, s); strings.Join(got, "\n") != strings.Join(files, "\n") {
		t.Errorf("a dropped connection left files behind:\nbefore %v\nafter  %v", files, got)
	}
}

// TestTransactionConflict: two blocks delete the same row; the second to
// commit gets 40001, commits nothing and leaves no files.
func TestTransactionConflict(t *testing.T) {
	s := setup(t)
	other, err := s.eng.NewSession("other", "lake", map[string]string{"TimeZone": "UTC"})
	if err != nil {
		t.Fatal(err)
	}
	files := dataFiles(t, s)
	must(t, s, `BEGIN`)
	must(t, s, `DELETE FROM t WHERE x = 1`)
	must(t, other, `DELETE FROM t WHERE x = 1`)
	_, _, err = run(t, s, `COMMIT`)
	if pgerr.Code(err) != pgerr.SerializationFailure {
		t.Fatalf("COMMIT of a conflicting block: %v, want 40001", err)
	}
	must(t, s, `SELECT max(snapshot_id) FROM lakepg.snapshots`, "3")
	must(t, s, `SELECT count(*) FROM t`, "3")
	// the session goes on, outside a block
	must(t, s, `INSERT INTO t (g, x) VALUES ('after', 5)`)
	if n := len(dataFiles(t, s)); n != len(files)+2 {
		t.Errorf("%d files, want %d (the other session's delete file and the insert)", n, len(files)+2)
	}
}
