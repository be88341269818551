package sql

import (
	"testing"

	"github.com/lakepg/lakepg/pgerr"
)

// dmlJoinTables makes t (target) and u (source of new values). With files,
// t has three data files (one per INSERT), so that a WHERE pruning files
// leaves the scan a different file list than the table's.
func dmlJoinTables(t *testing.T, files bool) *Session {
	t.Helper()
	s := lake(t)
	if files {
		must(t, s, `CALL lakepg.set_option('data_inlining_row_limit', '0')`)
	}
	must(t, s, `CREATE TABLE t (k integer, x integer, note text)`)
	must(t, s, `INSERT INTO t VALUES (1, 0, 'a'), (2, 0, 'b')`)
	must(t, s, `INSERT INTO t VALUES (3, 0, 'c'), (NULL, 0, 'n')`)
	must(t, s, `INSERT INTO t VALUES (10, 0, 'j'), (11, 0, 'k')`)
	must(t, s, `CREATE TABLE u (k integer, y integer)`)
	must(t, s, `INSERT INTO u VALUES (1, 10), (1, 20), (2, 5), (4, 7), (10, 1), (11, 2), (11, 3)`)
	return s
}

func TestUpdateCorrelatedSubquery(t *testing.T) {
	for _, files := range []bool{false, true} {
		s := dmlJoinTables(t, files)
		// no matching row gives NULL, as PostgreSQL's subplan does
		must(t, s, `UPDATE t SET x = (SELECT max(y) FROM u WHERE u.k = t.k)`)
		must(t, s, `SELECT k, x FROM t ORDER BY k`, "1|20", "2|5", "3|NULL", "10|1", "11|3", "NULL|NULL")
		// count(*) of no rows is 0; only the rows WHERE keeps change
		must(t, s, `UPDATE t SET x = (SELECT count(*) FROM u WHERE u.k = t.k), note = note || '!' WHERE k >= 3`)
		must(t, s, `SELECT k, x, note FROM t ORDER BY k`, "1|20|a", "2|5|b", "3|0|c!", "10|1|j!", "11|2|k!", "NULL|NULL|n")
		// correlated subqueries in WHERE too, and an alias
		must(t, s, `UPDATE t AS tt SET x = -1 WHERE EXISTS (SELECT 1 FROM u WHERE u.k = tt.k AND u.y > 9)`)
		must(t, s, `SELECT k, x FROM t ORDER BY k`, "1|-1", "2|5", "3|0", "10|1", "11|2", "NULL|NULL")
		mustFail(t, s, `UPDATE t SET x = (SELECT y FROM u WHERE u.k = t.k)`, pgerr.CardinalityViolation)
		mustFail(t, s, `UPDATE t SET x = max(k)`, pgerr.GroupingError)
		// DELETE with a correlated subquery plans the same way
		must(t, s, `DELETE FROM t WHERE NOT EXISTS (SELECT 1 FROM u WHERE u.k = t.k)`)
		must(t, s, `SELECT k FROM t ORDER BY k`, "1", "2", "10", "11")
	}
}

func TestUpdateFrom(t *testing.T) {
	for _, files := range []bool{false, true} {
		s := dmlJoinTables(t, files)
		// k = 1 joins two rows of u, k = 11 too: each target row changes once
		_, tag, err := run(t, s, `UPDATE t SET x = u.y + t.k, note = 'from' FROM u WHERE u.k = t.k AND t.k >= 10`)
		if err != nil || tag != "UPDATE 2" {
			t.Fatalf("UPDATE … FROM: %q, %v", tag, err)
		}
		rows, _, err := run(t, s, `SELECT k, x, note FROM t ORDER BY k`)
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"1|0|a", "2|0|b", "3|0|c", "10|11|from"}
		for i, w := range want {
			if rows[i] != w {
				t.Fatalf("row %d = %q, want %q (all: %q)", i, rows[i], w, rows)
			}
		}
		if rows[4] != "11|13|from" && rows[4] != "11|14|from" {
			t.Fatalf("k = 11 took %q, want one of u's rows", rows[4])
		}
		// FROM with a subquery and an expression over both sides
		must(t, s, `UPDATE t SET x = t.x + s.total FROM (SELECT k, sum(y) AS total FROM u GROUP BY k) s WHERE s.k = t.k AND t.k < 3`)
		must(t, s, `SELECT k, x FROM t WHERE k < 3 ORDER BY k`, "1|30", "2|5")
		must(t, s, `SELECT count(*) FROM t`, "6")
	}
}
