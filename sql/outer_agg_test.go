package sql

import (
	"testing"

	"github.com/lakepg/lakepg/pgerr"
)

// TestOuterLevelAggregates: an aggregate in a subquery over only the
// enclosing query's columns is the enclosing query's (answers as
// PostgreSQL 15 gives them).
func TestOuterLevelAggregates(t *testing.T) {
	s := lake(t)
	must(t, s, `CREATE TABLE t (x integer, g integer)`)
	must(t, s, `INSERT INTO t VALUES (1, 1), (5, 1), (3, 2)`)
	must(t, s, `SELECT (SELECT max(t.x)) FROM t`, "5")
	must(t, s, `SELECT g, (SELECT max(t.x) + count(*)) FROM t GROUP BY g ORDER BY g`, "1|6", "2|4")
	must(t, s, `SELECT g FROM t GROUP BY g HAVING EXISTS (SELECT 1 WHERE max(t.x) > 3)`, "1")
	// t2 hides nothing: t.x is still the outer t's
	must(t, s, `SELECT g, (SELECT count(*) FROM t t2 WHERE t2.g = t.g AND t2.x < max(t.x)) FROM t GROUP BY g ORDER BY g`, "1|1", "2|0")
	// an aggregate over the subquery's own columns stays there
	must(t, s, `SELECT (SELECT max(t.x) FROM t) FROM t ORDER BY 1`, "5", "5", "5")
	must(t, s, `SELECT (SELECT (SELECT max(t.x))) FROM t`, "5")
	mustFail(t, s, `SELECT (SELECT sum(t.x) FROM (VALUES (1), (2)) v(y)) FROM t`, pgerr.CardinalityViolation)
	mustFail(t, s, `SELECT x, (SELECT max(t.x)) FROM t`, pgerr.GroupingError)
	mustFail(t, s, `SELECT * FROM t WHERE x = (SELECT max(t.x))`, pgerr.GroupingError)
	must(t, s, `SELECT x FROM t WHERE x IN (SELECT max(t2.x) FROM t t2)`, "5")
}
