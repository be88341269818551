package sql

import (
	"os"
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

// TestTransactionBlockIsOneSnapshot is also about the files a block writes, replaces and
// leaves behind, and how it deletes from committed files: the committed rows are in a
// Parquet file.
func TestTransactionBlockIsOneSnapshot(t *testing.T) {
	s := setupFiles(t)
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

	// schema changes in a block: later statements see them, COMMIT makes one snapshot
	must(t, s, `BEGIN`)
	must(t, s, `CREATE TABLE u (a int, b text)`)
	must(t, s, `INSERT INTO u VALUES (1, 'one'), (2, 'two')`)
	must(t, s, `ALTER TABLE u ADD COLUMN c int DEFAULT 7`)
	must(t, s, `INSERT INTO u (a, c) VALUES (3, 30)`)
	must(t, s, `ALTER TABLE u RENAME COLUMN b TO label`)
	must(t, s, `UPDATE u SET label = 'uno' WHERE a = 1`)
	must(t, s, `ALTER TABLE t ADD COLUMN z int`)
	must(t, s, `UPDATE t SET z = x + 1 WHERE x = 12`)
	must(t, s, `SELECT a, label, c FROM u ORDER BY a`, "1|uno|7", "2|two|7", "3|NULL|30")
	must(t, s, `SELECT x, z FROM t ORDER BY x`, "12|13", "201|NULL", "1100|NULL")
	must(t, s, `SELECT count(*) FROM information_schema.tables WHERE table_name = 'u'`, "1")
	must(t, s, `COMMIT`)
	must(t, s, `SELECT snapshot_id, changes FROM lakepg.snapshots WHERE snapshot_id > 3`, `4|created_table:"public"."u",inserted_into_table:2,inserted_into_table:3,deleted_from_table:2,altered_table:2`)
	must(t, s, `SELECT a, label, c FROM u ORDER BY a`, "1|uno|7", "2|two|7", "3|NULL|30")
	must(t, s, `SELECT x, z FROM t ORDER BY x`, "12|13", "201|NULL", "1100|NULL")
	must(t, s, `BEGIN`)
	must(t, s, `CREATE TABLE v (a int)`)
	must(t, s, `INSERT INTO v VALUES (1)`)
	must(t, s, `ROLLBACK`)
	mustFail(t, s, `SELECT * FROM v`, pgerr.UndefinedTable)
	files = dataFiles(t, s)

	// a dropped connection rolls back
	must(t, other, `BEGIN`)
	must(t, other, `INSERT INTO t (g, x) VALUES ('gone', 1)`)
	other.Close()
	must(t, s, `SELECT count(*) FROM t WHERE g = 'gone'`, "0")
	must(t, s, `SELECT max(snapshot_id) FROM lakepg.snapshots`, "4")
	if got := dataFiles(t, s); strings.Join(got, "\n") != strings.Join(files, "\n") {
		t.Errorf("a dropped connection left files behind:\nbefore %v\nafter  %v", files, got)
	}
}

// TestTransactionConflict: two blocks delete the same row; the second to
// commit gets 40001, commits nothing and leaves no files. It counts the
// Parquet files writes make, so the committed rows are in one.
func TestTransactionConflict(t *testing.T) {
	s := setupFiles(t)
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

// TestCountFromCatalog: count(*) of a whole table is answered from the
// catalog's row counts, without reading the Parquet files (removed here to
// prove it); with a filter the files are read.
func TestCountFromCatalog(t *testing.T) {
	s := setupFiles(t)
	must(t, s, `DELETE FROM t WHERE x = 1`)
	for _, f := range dataFiles(t, s) {
		if err := os.Remove(f); err != nil {
			t.Fatal(err)
		}
	}
	must(t, s, `SELECT count(*) FROM t`, "3")
	must(t, s, `SELECT count(*), count(*) FROM public.t`, "3|3")
	if _, _, err := run(t, s, `SELECT count(*) FROM t WHERE x > 1`); err == nil {
		t.Fatal("a filtered count read no file")
	}
}
