package sql

import (
	"slices"
	"strings"
	"testing"

	"github.com/lakepg/lakepg/pgerr"
)

// TestSavepoints: ROLLBACK TO discards the rows, files and schema changes
// of the work after the savepoint and keeps what came before; the block
// commits what is left as one snapshot, and no file written after a
// savepoint that was rolled back to survives.
func TestSavepoints(t *testing.T) {
	s := setupFiles(t)
	must(t, s, `BEGIN`)
	must(t, s, `INSERT INTO t (g, x) VALUES ('p', 10)`)
	must(t, s, `SAVEPOINT a`)
	before := dataFiles(t, s)
	must(t, s, `INSERT INTO t (g, x) VALUES ('q', 11)`)
	must(t, s, `UPDATE t SET x = x + 100 WHERE x IN (1, 10)`)
	must(t, s, `DELETE FROM t WHERE x = 2`)
	must(t, s, `CREATE TABLE u (a int)`)
	must(t, s, `INSERT INTO u VALUES (1)`)
	must(t, s, `ALTER TABLE t ADD COLUMN z int`)
	must(t, s, `ALTER TABLE t RENAME COLUMN g TO label`)
	must(t, s, `SELECT label, x, z FROM t WHERE x > 100 ORDER BY x`, "a|101|NULL", "p|110|NULL")
	must(t, s, `ROLLBACK TO SAVEPOINT a`)
	if got := dataFiles(t, s); !slices.Equal(got, before) {
		t.Errorf("ROLLBACK TO left the files written after the savepoint:\nbefore %v\nafter  %v", before, got)
	}
	must(t, s, `SELECT g, x FROM t ORDER BY x`, "a|1", "b|2", "a|3", "p|10", "c|NULL")
	must(t, s, `SELECT count(*) FROM information_schema.tables WHERE table_name = 'u'`, "0")
	must(t, s, `SELECT string_agg(column_name, ',' ORDER BY ordinal_position) FROM information_schema.columns WHERE table_name = 't'`, "g,x,y,n,d")
	mustFail(t, s, `SELECT * FROM u`, pgerr.UndefinedTable)
	must(t, s, `ROLLBACK TO a`)
	// the savepoint stays: more work, rolled back to it once more
	must(t, s, `DELETE FROM t WHERE x = 10`)
	must(t, s, `SELECT count(*) FROM t`, "4")
	must(t, s, `ROLLBACK TO a`)
	must(t, s, `SELECT count(*) FROM t`, "5")
	// work after it that is kept
	must(t, s, `UPDATE t SET x = 20 WHERE x = 10`)
	must(t, s, `CREATE TABLE u (a int, b text)`)
	must(t, s, `INSERT INTO u VALUES (1, 'one')`)
	must(t, s, `RELEASE a`)
	mustFail(t, s, `ROLLBACK TO a`, codeInvalidSavepoint)
	must(t, s, `ROLLBACK`)

	// a failed block is usable again after ROLLBACK TO; COMMIT then commits
	must(t, s, `BEGIN`)
	must(t, s, `INSERT INTO t (g, x) VALUES ('kept', 30)`)
	must(t, s, `SAVEPOINT s1`)
	must(t, s, `INSERT INTO t (g, x) VALUES ('lost', 31)`)
	// rewrites the file the block wrote before the savepoint: that file
	// must survive COMMIT once the rewrite is rolled back
	must(t, s, `UPDATE t SET x = 33 WHERE x = 30`)
	mustFail(t, s, `SELECT 1/0`, pgerr.DivisionByZero)
	if st := s.TxStatus(); st != 'E' {
		t.Fatalf("status after the error %c, want E", st)
	}
	mustFail(t, s, `SAVEPOINT s2`, pgerr.InFailedTransaction)
	mustFail(t, s, `RELEASE s1`, pgerr.InFailedTransaction)
	mustFail(t, s, `ROLLBACK TO nosuch`, codeInvalidSavepoint)
	if st := s.TxStatus(); st != 'E' {
		t.Fatalf("status after ROLLBACK TO an unknown savepoint %c, want E", st)
	}
	if tag := tagOf(t, s, `ROLLBACK TO s1`); tag != "ROLLBACK" {
		t.Errorf("ROLLBACK TO tag %q", tag)
	}
	if st := s.TxStatus(); st != 'T' {
		t.Fatalf("status after ROLLBACK TO %c, want T", st)
	}
	must(t, s, `INSERT INTO t (g, x) VALUES ('after', 32)`)
	must(t, s, `COMMIT`)
	must(t, s, `SELECT g, x FROM t WHERE x >= 30 ORDER BY x`, "kept|30", "after|32")
	must(t, s, `SELECT max(snapshot_id) FROM lakepg.snapshots`, "3")

	// names shadow: the newer of two equal names is found until released
	must(t, s, `BEGIN`)
	must(t, s, `SAVEPOINT x`)
	must(t, s, `INSERT INTO t (g, x) VALUES ('one', 40)`)
	must(t, s, `SAVEPOINT x`)
	must(t, s, `INSERT INTO t (g, x) VALUES ('two', 41)`)
	must(t, s, `SAVEPOINT y`)
	must(t, s, `ROLLBACK TO x`) // the inner x; y is gone
	mustFail(t, s, `RELEASE y`, codeInvalidSavepoint)
	must(t, s, `ROLLBACK TO x`)
	must(t, s, `SELECT g FROM t WHERE x >= 40 ORDER BY x`, "one")
	must(t, s, `RELEASE x`) // the inner x
	must(t, s, `ROLLBACK TO x`)
	must(t, s, `SELECT count(*) FROM t WHERE x >= 40`, "0")
	must(t, s, `INSERT INTO t (g, x) VALUES ('three', 42)`)
	must(t, s, `COMMIT`)
	must(t, s, `SELECT g FROM t WHERE x >= 40`, "three")

	// a savepoint taken before the block's first statement, and a cursor
	// declared after it
	files := dataFiles(t, s)
	must(t, s, `BEGIN`)
	must(t, s, `SAVEPOINT first`)
	must(t, s, `INSERT INTO t (g, x) VALUES ('gone', 50)`)
	must(t, s, `DECLARE c CURSOR FOR SELECT x FROM t`)
	must(t, s, `ROLLBACK TO first`)
	mustFail(t, s, `FETCH c`, pgerr.InvalidCursorName)
	must(t, s, `COMMIT`)
	must(t, s, `SELECT count(*) FROM t WHERE x = 50`, "0")
	if got := dataFiles(t, s); !slices.Equal(got, files) {
		t.Errorf("a rolled-back savepoint left files:\nbefore %v\nafter  %v", files, got)
	}
}

// TestSavepointOutsideBlock: outside BEGIN … COMMIT each of the three
// statements fails with PostgreSQL's 25P01 and message.
func TestSavepointOutsideBlock(t *testing.T) {
	s := lake(t)
	for q, msg := range map[string]string{
		`SAVEPOINT a`:             "SAVEPOINT can only be used in transaction blocks",
		`ROLLBACK TO a`:           "ROLLBACK TO SAVEPOINT can only be used in transaction blocks",
		`ROLLBACK TO SAVEPOINT a`: "ROLLBACK TO SAVEPOINT can only be used in transaction blocks",
		`RELEASE a`:               "RELEASE SAVEPOINT can only be used in transaction blocks",
	} {
		_, _, err := run(t, s, q)
		if pgerr.Code(err) != codeNoActiveTx || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: %v, want 25P01 %s", q, err, msg)
		}
		if st := s.TxStatus(); st != 'I' {
			t.Errorf("%s: status %c, want I", q, st)
		}
	}
	must(t, s, `BEGIN`)
	_, _, err := run(t, s, `RELEASE nosuch`)
	if pgerr.Code(err) != codeInvalidSavepoint || !strings.Contains(err.Error(), `savepoint "nosuch" does not exist`) {
		t.Errorf("RELEASE of an unknown savepoint: %v", err)
	}
	if st := s.TxStatus(); st != 'E' {
		t.Errorf("status after a failed RELEASE %c, want E", st)
	}
	must(t, s, `ROLLBACK`)
}

// TestSavepointInlinedRows: deletes and updates of rows the catalog keeps
// inlined are staged too, and ROLLBACK TO takes them back.
func TestSavepointInlinedRows(t *testing.T) {
	s := setup(t)
	must(t, s, `BEGIN`)
	must(t, s, `DELETE FROM t WHERE x = 1`)
	must(t, s, `SAVEPOINT a`)
	must(t, s, `DELETE FROM t WHERE x = 2`)
	must(t, s, `UPDATE t SET g = 'z' WHERE x = 3`)
	must(t, s, `SELECT g, x FROM t ORDER BY x`, "z|3", "c|NULL")
	must(t, s, `ROLLBACK TO a`)
	must(t, s, `SELECT g, x FROM t ORDER BY x`, "b|2", "a|3", "c|NULL")
	must(t, s, `COMMIT`)
	must(t, s, `SELECT g, x FROM t ORDER BY x`, "b|2", "a|3", "c|NULL")
}
