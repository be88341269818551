package sql

import "testing"

// TestModifyPrunesFiles: DELETE and UPDATE with a plain WHERE skip the
// files whose statistics rule the filter out, as a query does. The table
// has 20 real files and 50 registered ones whose files do not exist
// (manyfiles_test.go), so reading any of those fails the statement; the
// rows changed must be the filter's, in whichever of the kept files they
// are (the positions found are by the kept files' order).
func TestModifyPrunesFiles(t *testing.T) {
	s := manyFilesLake(t, 50)
	tag := func(q, want string) {
		t.Helper()
		_, got, err := run(t, s, q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if got != want {
			t.Fatalf("%s: tag %q, want %q", q, got, want)
		}
	}
	tag(`DELETE FROM facts WHERE id BETWEEN 1510 AND 1529`, "DELETE 20")
	tag(`DELETE FROM facts WHERE id IN (250, 260)`, "DELETE 2")
	tag(`UPDATE facts SET v = -1 WHERE id BETWEEN 1790 AND 1809`, "UPDATE 20")
	tag(`DELETE FROM facts WHERE id >= 1990 AND id < 1000000`, "DELETE 10")
	// in a transaction block too, beside rows the block wrote itself
	tag(`BEGIN`, "BEGIN")
	tag(`INSERT INTO facts VALUES (5000, 1), (5001, 2)`, "INSERT 0 2")
	tag(`DELETE FROM facts WHERE id BETWEEN 10 AND 19`, "DELETE 10")
	tag(`DELETE FROM facts WHERE id = 5000`, "DELETE 1")
	tag(`UPDATE facts SET v = 7 WHERE id BETWEEN 20 AND 21`, "UPDATE 2")
	tag(`COMMIT`, "COMMIT")
	// 2000 rows less 42 deleted, 5001 added
	must(t, s, `SELECT count(*), min(id), max(id) FROM facts WHERE id < 1000000`, "1959|0|5001")
	// 1500-1599 less 1510-1529: 0.5 × (154950 − 30390)
	must(t, s, `SELECT count(*), sum(v) FROM facts WHERE id BETWEEN 1500 AND 1599`, "80|62280")
	// 1780-1789 and 1810-1819 as they were, 1790-1809 at -1
	must(t, s, `SELECT count(*), sum(v) FROM facts WHERE id BETWEEN 1780 AND 1819`, "40|17975")
	// 0-9 and 22-29 as they were (22.5 + 102), 20 and 21 at 7
	must(t, s, `SELECT count(*), sum(v) FROM facts WHERE id BETWEEN 0 AND 29`, "20|138.5")
}

// TestModifyWhereRewrites: the WHERE shapes a query prunes with, an OR of
// values or ranges apart, an OR whose branches share a conjunct, ranges
// that join up, a scalar subquery, prune DELETE and UPDATE too (the
// registered files that do not exist fail any statement that reads them),
// and the rows changed are the filter's.
func TestModifyWhereRewrites(t *testing.T) {
	s := manyFilesLake(t, 50)
	tag := func(q, want string) {
		t.Helper()
		_, got, err := run(t, s, q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if got != want {
			t.Fatalf("%s: tag %q, want %q", q, got, want)
		}
	}
	tag(`DELETE FROM facts WHERE id = 250 OR id = 260`, "DELETE 2")
	tag(`DELETE FROM facts WHERE id = 405 OR id = 1405 OR id = 1899`, "DELETE 3")
	tag(`UPDATE facts SET v = -1 WHERE id < 3 OR id > 1996 AND id < 1000000`, "UPDATE 6")
	tag(`UPDATE facts SET v = -2 WHERE (id = 700 AND v > 100) OR (id = 700 AND v < 0)`, "UPDATE 1")
	tag(`DELETE FROM facts WHERE id BETWEEN 800 AND 809 OR id BETWEEN 809 AND 819`, "DELETE 20")
	tag(`DELETE FROM facts WHERE id = (SELECT max(id) - 1000 FROM facts WHERE id < 1000000)`, "DELETE 1") // 999
	tag(`DELETE FROM facts WHERE id = 1000 OR v = 2 AND id = 4`, "DELETE 2")
	tag(`BEGIN`, "BEGIN")
	tag(`INSERT INTO facts VALUES (5000, 1), (5001, 2)`, "INSERT 0 2")
	tag(`DELETE FROM facts WHERE id = 5000 OR id = 1500`, "DELETE 2")
	tag(`UPDATE facts SET v = -9 WHERE id = 5001 OR id BETWEEN 1600 AND 1601`, "UPDATE 3")
	tag(`COMMIT`, "COMMIT")
	// an OR whose branches bound different columns bounds neither: every
	// file is read
	if _, _, err := run(t, s, `DELETE FROM facts WHERE id = 3 OR v = 1000000`); err == nil {
		t.Fatal("a DELETE whose OR prunes nothing read no missing file")
	}
	must(t, s, `SELECT count(*) FROM facts WHERE id IN (250, 260, 405, 1405, 1899, 999, 1000, 4, 1500, 5000) OR id BETWEEN 800 AND 819`, "0")
	must(t, s, `SELECT id, v FROM facts WHERE v < 0 AND id < 1000000 ORDER BY id`,
		"0|-1", "1|-1", "2|-1", "700|-2", "1600|-9", "1601|-9", "1997|-1", "1998|-1", "1999|-1", "5001|-9")
	// 2000 rows less 2+3+20+1+2+1, one added (5001; 5000 deleted)
	must(t, s, `SELECT count(*) FROM facts WHERE id < 1000000`, "1972")
}
