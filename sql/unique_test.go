package sql

import (
	"fmt"
	"testing"
)

// A load into a keyed table reads only the files whose catalog min/max of
// the key can hold one of the new keys, and only their key columns.
func TestUniqueCheckPrunesFiles(t *testing.T) {
	s := lake(t)
	must(t, s, `CREATE TABLE big (id bigint PRIMARY KEY, pad text)`)
	for f := 0; f < 20; f++ {
		lo := f * 1000
		must(t, s, fmt.Sprintf(`INSERT INTO big SELECT g, 'row ' || g FROM generate_series(%d, %d) g`, lo, lo+999))
	}
	must(t, s, `SELECT count(*), count(DISTINCT id) FROM big`, "20000|20000")
	// 2000 new keys past every file: no file is read
	must(t, s, `INSERT INTO big SELECT g, 'new' FROM generate_series(50000, 51999) g`)
	if st := s.uniqueStats; st.FilesRead != 0 || st.FilesPruned != 20 {
		t.Fatalf("load past every file read %d files, pruned %d", st.FilesRead, st.FilesPruned)
	}
	// a duplicate in the fifth file: that file alone is read
	mustFail(t, s, `INSERT INTO big SELECT g, 'dup' FROM generate_series(60000, 60999) g UNION ALL SELECT 4321, 'dup'`, "23505")
	if st := s.uniqueStats; st.FilesRead != 1 || st.FilesPruned != 20 {
		t.Fatalf("load with one key in range read %d files, pruned %d", st.FilesRead, st.FilesPruned)
	}
	// keys in the gaps between two files' ranges read neither
	must(t, s, `DELETE FROM big WHERE id BETWEEN 7000 AND 7999`)
	must(t, s, `INSERT INTO big VALUES (7500, 'refill')`)
	must(t, s, `SELECT count(*) FROM big`, "21001")
	// NULLs never conflict; duplicates among the new rows are caught
	must(t, s, `CREATE TABLE u2 (a int UNIQUE, b int)`)
	must(t, s, `INSERT INTO u2 VALUES (NULL, 1), (NULL, 2), (1, 3)`)
	mustFail(t, s, `INSERT INTO u2 VALUES (2, 1), (2, 2)`, "23505")
	mustFail(t, s, `INSERT INTO u2 VALUES (1, 9)`, "23505")
	// an UPDATE keeping its keys is not checked; one moving them is
	must(t, s, `UPDATE u2 SET b = b + 1`)
	mustFail(t, s, `UPDATE u2 SET a = 1 WHERE b = 2`, "23505")
	must(t, s, `UPDATE u2 SET a = a + 1 WHERE a = 1`)
	must(t, s, `SELECT a, b FROM u2 ORDER BY b`, "NULL|2", "NULL|3", "2|4")
	// in a block, the block's own rows count
	must(t, s, `BEGIN`)
	must(t, s, `INSERT INTO u2 VALUES (10, 0)`)
	mustFail(t, s, `INSERT INTO u2 VALUES (10, 1)`, "23505")
	must(t, s, `ROLLBACK`)
	must(t, s, `SELECT count(*) FROM u2`, "3")
}
