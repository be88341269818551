package sql

import "testing"

// TestJoinedModifyOfBlockRows: UPDATE … FROM and correlated subqueries in UPDATE and
// DELETE change rows the block itself wrote (staged files rewritten) and committed rows
// (delete files) in one statement, and see the table as it was before the statement. The
// answers are PostgreSQL 15's for the same statements.
func TestJoinedModifyOfBlockRows(t *testing.T) {
	s := lake(t)
	must(t, s, `CREATE TABLE t AS SELECT g AS id, g * 10 AS v FROM generate_series(1, 2000) g`)
	must(t, s, `CREATE TABLE u AS SELECT g AS id, g AS w FROM generate_series(1, 4000, 3) g`)
	must(t, s, `BEGIN`)
	must(t, s, `INSERT INTO t SELECT g, g * 10 FROM generate_series(2001, 4000) g`)
	must(t, s, `UPDATE t SET v = 1 WHERE id % 1000 = 0`) // a file with new versions of committed rows
	if tag := tagOf(t, s, `UPDATE t SET v = u.w + t.v FROM u WHERE u.id = t.id`); tag != "UPDATE 1334" {
		t.Errorf("UPDATE … FROM tag %q, want UPDATE 1334", tag)
	}
	must(t, s, `SELECT count(*), sum(v) FROM t`, "4000|82588671")
	// a correlated subquery over the table itself sees it as it was before the statement
	if tag := tagOf(t, s, `DELETE FROM t WHERE v > (SELECT avg(v) FROM t t2 WHERE t2.id % 7 = t.id % 7)`); tag != "DELETE 1995" {
		t.Errorf("DELETE tag %q, want DELETE 1995", tag)
	}
	must(t, s, `SELECT count(*), min(id), max(id) FROM t`, "2005|1|4000")
	must(t, s, `SAVEPOINT a`)
	must(t, s, `UPDATE t SET v = (SELECT max(w) FROM u WHERE u.id = t.id) WHERE id > 1990`)
	must(t, s, `SELECT id, v FROM t WHERE id BETWEEN 1995 AND 2004 ORDER BY id`, "1995|NULL", "1997|NULL", "1998|NULL", "2000|NULL", "2001|NULL", "2003|NULL", "2004|NULL")
	must(t, s, `SELECT count(*), sum(v) FROM t`, "2005|19656842")
	must(t, s, `ROLLBACK TO a`)
	must(t, s, `SELECT count(*), sum(v) FROM t`, "2005|20671255")
	must(t, s, `COMMIT`)
	must(t, s, `SELECT count(*), sum(v) FROM t`, "2005|20671255")
}
