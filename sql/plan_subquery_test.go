package sql

import (
	"testing"

	"github.com/lakepg/lakepg/pgerr"
)

// Expected rows are PostgreSQL 15's answers to the same statements.
func TestCorrelatedNotInAndRowIn(t *testing.T) {
	s := lake(t)
	must(t, s, `CREATE TABLE a2 (id integer, v integer)`)
	must(t, s, `CREATE TABLE b2 (id integer, v integer)`)
	must(t, s, `INSERT INTO a2 VALUES (1, 10), (2, NULL), (3, 30), (4, 40), (5, 50)`)
	must(t, s, `INSERT INTO b2 VALUES (1, 10), (3, NULL), (3, 31), (4, 41), (6, 60)`)
	// a NULL among the inner rows of one outer row makes its NOT IN unknown
	must(t, s, `SELECT id FROM a2 WHERE v NOT IN (SELECT v FROM b2 WHERE b2.id = a2.id) ORDER BY id`, "2", "4", "5")
	must(t, s, `SELECT id FROM a2 WHERE v NOT IN (SELECT v FROM b2 WHERE b2.id = a2.id AND b2.v > a2.v) ORDER BY id`, "1", "2", "3", "4", "5")
	must(t, s, `SELECT id FROM a2 WHERE (id, v) IN (SELECT id, v FROM b2) ORDER BY id`, "1")
	must(t, s, `SELECT id FROM a2 WHERE (id, v + 1) IN (SELECT id, v FROM b2 WHERE b2.id = a2.id) ORDER BY id`, "3", "4")
	mustFail(t, s, `SELECT id FROM a2 WHERE (id, v) IN (SELECT id FROM b2)`, pgerr.SyntaxError)
	// a constant target of a correlated subquery without a match is NULL
	must(t, s, `SELECT id, (SELECT 1 WHERE a2.id = 2) FROM a2 WHERE id < 4 ORDER BY id`, "1|NULL", "2|1", "3|NULL")
}
