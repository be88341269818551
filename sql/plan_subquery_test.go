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

// TestNestedCorrelationInUncorrelatedSubquery: a subquery correlated with
// an enclosing subquery (not the outermost query) is planned with that
// subquery; it panicked (XX000, index out of range) when the enclosing
// subquery was planned a second time. Answers as PostgreSQL 15 gives them.
func TestNestedCorrelationInUncorrelatedSubquery(t *testing.T) {
	s := lake(t)
	must(t, s, `CREATE TABLE t0 (id integer)`)
	must(t, s, `CREATE TABLE t1 (id integer, b_d2 date)`)
	nested := `SELECT (SELECT (SELECT 0 AS c0 FROM t1 AS a18 WHERE (0 = a17.id)) AS c0 FROM t1 AS a17) AS c0 FROM (SELECT true AS c0 FROM t0 AS a5) AS a10`
	must(t, s, nested)
	having := `SELECT 'a'::text AS c0 HAVING EXISTS (SELECT 1 AS c0 FROM t1 AS a2 WHERE (0 > ALL (SELECT a2.id AS c0)))`
	must(t, s, having)
	in := `SELECT (CAST('-99999' AS numeric) IN (SELECT 0 AS c0 FROM t1 AS a3 WHERE (DATE '2000-01-01' >= ANY (SELECT DATE '2000-01-01' AS c0 FROM t1 AS a6 WHERE (DATE '2000-01-01' = a3.b_d2))))) AS c0 FROM t1 AS a1`
	must(t, s, in)
	must(t, s, `INSERT INTO t0 VALUES (1), (2)`)
	must(t, s, `INSERT INTO t1 VALUES (0, '2000-01-01'), (5, NULL)`)
	mustFail(t, s, nested, "21000")
	must(t, s, having)
	must(t, s, in, "f", "f")
	must(t, s, `SELECT (SELECT (SELECT max(a18.id) FROM t1 AS a18 WHERE a18.id > a17.id) FROM t1 AS a17 WHERE a17.id = 0) FROM t0`, "5", "5")
}

// TestBetweenSymmetric: BETWEEN SYMMETRIC takes the bounds in either order,
// NOT BETWEEN SYMMETRIC is its negation, NULLs as PostgreSQL 15 answers.
func TestBetweenSymmetric(t *testing.T) {
	s := lake(t)
	must(t, s, `SELECT 0 BETWEEN SYMMETRIC 0 AND 0, 5 BETWEEN SYMMETRIC 10 AND 1, 5 BETWEEN 10 AND 1, 11 BETWEEN SYMMETRIC 10 AND 1`, "t|t|f|f")
	must(t, s, `SELECT 5 NOT BETWEEN SYMMETRIC 10 AND 1, 11 NOT BETWEEN SYMMETRIC 10 AND 1, 5 BETWEEN SYMMETRIC NULL AND 1, 5 BETWEEN SYMMETRIC NULL AND 6`, "f|t|NULL|NULL")
	must(t, s, `SELECT count(*) FROM generate_series(1, 20) g(x) WHERE x BETWEEN SYMMETRIC 15 AND 5`, "11")
}

// TestLeastGreatestReachColumnsAndAggregates: columns and aggregates inside
// GREATEST/LEAST count where the planner looks for them: a condition over
// another table's column is a join condition, an aggregate groups the query.
func TestLeastGreatestReachColumnsAndAggregates(t *testing.T) {
	s := lake(t)
	must(t, s, `CREATE TABLE t1 (id integer)`)
	must(t, s, `INSERT INTO t1 VALUES (1), (5), (9)`)
	must(t, s, `SELECT count(*) FROM (t1 AS a5 CROSS JOIN t1 AS a7) WHERE (a5.id >= GREATEST((-100), a7.id))`, "6")
	must(t, s, `SELECT count(*) FROM t1 AS a5 JOIN t1 AS a7 ON a5.id < LEAST(a7.id, 6)`, "3")
	must(t, s, `SELECT GREATEST(max(id), 3), LEAST(min(id), 0) FROM t1`, "9|0")
	must(t, s, `SELECT id % 2, GREATEST(count(*), 2) FROM t1 GROUP BY id % 2`, "1|3")
}

// TestInListWiderConstant: an integer compared by IN with a bigint outside
// the integer range compares as bigint (PostgreSQL: false, not 22003); an
// untyped literal that is no integer is still 22P02.
func TestInListWiderConstant(t *testing.T) {
	s := lake(t)
	must(t, s, `SELECT (0 IN ('-9223372036854775808'::bigint)), (5 IN (5::bigint, 9223372036854775807)), (5 NOT IN (3000000000::bigint))`, "f|t|t")
	mustFail(t, s, `SELECT 0 IN ('abc')`, "22P02")
}

// TestNullComparisonsGroupTogether: NULLs from comparisons with a typed
// NULL form one group in GROUP BY, DISTINCT, UNION and INTERSECT, whatever
// value the comparison left under them (they formed two).
func TestNullComparisonsGroupTogether(t *testing.T) {
	s := lake(t)
	must(t, s, `CREATE TABLE t1 (id integer, b_n1 numeric(3,3))`)
	must(t, s, `SET lakepg.data_inlining_row_limit = 10`)
	must(t, s, `INSERT INTO t1 VALUES (2, NULL), (1, 0.500), (3, 0.250)`)
	must(t, s, `RESET lakepg.data_inlining_row_limit`)
	must(t, s, `SELECT DISTINCT (a1.b_n1 = CAST(NULL AS integer)) AS c0 FROM t1 AS a1`, "NULL")
	must(t, s, `SELECT (b_n1 = CAST(NULL AS integer)) AS c0, count(*) FROM t1 GROUP BY 1`, "NULL|3")
	must(t, s, `SELECT count(*) FROM (SELECT (b_n1 = CAST(NULL AS integer)) FROM t1 UNION SELECT (id = CAST(NULL AS integer)) FROM t1) u`, "1")
	must(t, s, `SELECT (b_n1 > CAST(NULL AS numeric)), id % 1, count(*) FROM t1 GROUP BY 1, 2`, "NULL|0|3")
}
