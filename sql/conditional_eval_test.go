package sql

import (
	"testing"

	"github.com/lakepg/lakepg/pgerr"
)

// CASE, COALESCE, NULLIF and AND/OR evaluate a branch only for the rows
// that reach it: errors come only from those rows (PostgreSQL 15's answers).
func TestConditionalEvaluation(t *testing.T) {
	s := setup(t)
	must(t, s, `SELECT CASE WHEN x > 0 THEN 10/x ELSE NULL END FROM (VALUES (0),(2)) t(x)`, "NULL", "5")
	must(t, s, `SELECT g, x, CASE WHEN x - 2 <> 0 THEN 6 / (x - 2) END, CASE x - 2 WHEN 0 THEN -1 ELSE 6 / (x - 2) END FROM t ORDER BY g, x`,
		"a|1|-6|-6", "a|3|6|6", "b|2|NULL|-1", "c|NULL|NULL|NULL")
	// the shapes of TPC-DS q53 (a guarded division by an average that may
	// be 0, in WHERE over a window) and q90 (a guarded decimal ratio)
	must(t, s, `SELECT g, CASE WHEN avg(x - 2) > 0 THEN abs(sum(x) - avg(x - 2)) / avg(x - 2) ELSE NULL END FROM t GROUP BY g ORDER BY g`,
		"a|NULL", "b|NULL", "c|NULL")
	must(t, s, `SELECT * FROM (SELECT g, sum(n) AS s, avg(sum(n) - 1.25) OVER (PARTITION BY g) AS a FROM t GROUP BY g, x) tmp
		WHERE CASE WHEN a > 0 THEN CAST(abs(s - a) AS double precision) / a ELSE NULL END > 0.1 ORDER BY g, s`,
		"b|2.50|1.25000000000000000000")
	must(t, s, `SELECT CASE WHEN pmc = 0 THEN NULL ELSE CAST(amc AS decimal(15,4)) / CAST(pmc AS decimal(15,4)) END
		FROM (SELECT count(*) AS amc FROM t WHERE x > 1) a, (SELECT count(*) AS pmc FROM t WHERE x > 5) p`, "NULL")
	must(t, s, `SELECT g, x FROM t WHERE x - 2 <> 0 AND 6 / (x - 2) > 0 ORDER BY g, x`, "a|3")
	must(t, s, `SELECT g, x FROM t WHERE x = 2 OR 6 / (x - 2) < 0 ORDER BY g, x`, "a|1", "b|2")
	must(t, s, `SELECT g, coalesce(n, 10 / (x - 2)), nullif(x, 2), 10 / nullif(x - 2, 0) FROM t ORDER BY g, x`,
		"a|1.25|1|-10", "a|10|3|10", "b|2.50|NULL|NULL", "c|0.10|NULL|NULL")
	must(t, s, `SELECT g, CASE WHEN x <> 2 THEN greatest(1, 6 / (x - 2)) ELSE least(0, x) END FROM t ORDER BY g, x`,
		"a|1", "a|6", "b|0", "c|0")
	must(t, s, `SELECT g, CASE WHEN g = 'b' THEN (x - 2)::text::int WHEN g = 'c' THEN 2147483647 + x ELSE x END FROM t ORDER BY g, x`,
		"a|1", "a|3", "b|0", "c|NULL")
	must(t, s, `SELECT g, CASE WHEN x < 2 THEN x * 2147483647 END, CASE WHEN y < 1 THEN y * 1e308 END FROM t ORDER BY g, x`,
		"a|2147483647|NULL", "a|NULL|NULL", "b|NULL|NULL", "c|NULL|5e+307")
	// an aggregate's arguments (and ORDER BY) only for the rows its FILTER keeps
	must(t, s, `SELECT sum(6 / (x - 2)) FILTER (WHERE x <> 2), count(*) FILTER (WHERE x <> 2 AND 6 / (x - 2) > 0),
		string_agg((6 / (x - 2))::text, ',' ORDER BY 6 / (x - 2)) FILTER (WHERE x <> 2) FROM t`, "0|1|-6,6")
	must(t, s, `SELECT x, sum(6 / (x - 2)) FILTER (WHERE x <> 2) OVER (ORDER BY x) FROM t ORDER BY x`, "1|-6", "2|-6", "3|0", "NULL|0")
	mustFail(t, s, `SELECT sum(6 / (x - 2)) FILTER (WHERE x > 1) FROM t`, pgerr.DivisionByZero)
	// …and still raise for a row that takes the branch
	mustFail(t, s, `SELECT CASE WHEN x > 1 THEN 6 / (x - 2) END FROM t`, pgerr.DivisionByZero)
	mustFail(t, s, `SELECT coalesce(n, 10 / (x - 3)) FROM t`, pgerr.DivisionByZero)
	mustFail(t, s, `SELECT g FROM t WHERE x IS NULL OR 6 / (x - 2) > 0`, pgerr.DivisionByZero)
	mustFail(t, s, `SELECT sum(CASE WHEN x <> 2 THEN 6 / (x - 2) END), count(CASE WHEN x = 2 THEN 1 / (x - 2) END) FROM t`, pgerr.DivisionByZero)
	mustFail(t, s, `SELECT CASE WHEN x > 2 THEN x * 2147483647 END FROM t`, pgerr.NumericValueOutOfRange)
	mustFail(t, s, `SELECT CASE WHEN g <> 'a' THEN g::int END FROM t`, pgerr.InvalidTextRepr)
}

// Constant subexpressions fail while planning, as PostgreSQL folds them,
// unless a constant condition cuts their branch off.
func TestConstantFoldingErrors(t *testing.T) {
	s := setup(t)
	must(t, s, `CREATE TABLE e (x integer)`)
	must(t, s, `SELECT CASE WHEN false THEN 1/0 END, CASE WHEN NULL THEN 1/0 ELSE 0 END, CASE 1 WHEN 2 THEN 1/0 ELSE 0 END`, "NULL|0|0")
	must(t, s, `SELECT CASE WHEN false THEN sqrt(-1) END, CASE WHEN false THEN 'z'::text::int END, coalesce(NULL, 1, 1/0), true OR 1/0 = 1`, "NULL|NULL|1|t")
	must(t, s, `SELECT CASE WHEN 1 = 1 THEN 1 ELSE 1/0 END, CASE WHEN length('abc') = 3 THEN 1 ELSE 1/0 END, 2 > 1 OR 1/0 = 1`, "1|1|t")
	must(t, s, `SELECT g, CASE WHEN false THEN 1/0 WHEN x > 2 THEN 0 END, coalesce(x, 1, 1/0), x > 1 OR true OR 1/0 = 1 FROM t ORDER BY g, x`,
		"a|NULL|1|t", "a|0|3|t", "b|NULL|2|t", "c|NULL|1|t")
	must(t, s, `SELECT CASE WHEN false THEN CASE WHEN x > 0 THEN 1/0 END END FROM e`)
	must(t, s, `SELECT CASE WHEN x > 0 THEN 1 WHEN true THEN 2 ELSE 1/0 END FROM e`)
	must(t, s, `SELECT count(*) FROM (SELECT x, CASE WHEN x > 0 THEN 1/0 END AS b FROM e) s`, "0")
	// a branch whose condition is not constant is folded: the table may be empty
	mustFail(t, s, `SELECT CASE WHEN x > 0 THEN 1/0 END FROM e`, pgerr.DivisionByZero)
	mustFail(t, s, `SELECT CASE WHEN x > 0 THEN 2147483647 + 1 END FROM e`, pgerr.NumericValueOutOfRange)
	mustFail(t, s, `SELECT CASE WHEN x > 0 THEN 'z'::text::int END FROM e`, pgerr.InvalidTextRepr)
	mustFail(t, s, `SELECT CASE WHEN x > 100 THEN sqrt(-1) END FROM t`, "2201F")
	mustFail(t, s, `SELECT CASE WHEN x > 0 THEN 1 ELSE 1/0 END FROM e`, pgerr.DivisionByZero)
	mustFail(t, s, `SELECT 1 FROM e WHERE CASE WHEN x > 0 THEN 1/0 END = 1`, pgerr.DivisionByZero)
	mustFail(t, s, `SELECT x FROM e ORDER BY CASE WHEN x > 0 THEN 1/0 END`, pgerr.DivisionByZero)
	mustFail(t, s, `SELECT coalesce(x, 1/0), x > 0 OR 1/0 = 1 FROM e`, pgerr.DivisionByZero)
	mustFail(t, s, `SELECT 1/0 = 1 AND false`, pgerr.DivisionByZero)
	mustFail(t, s, `SELECT NULL AND 1/0 = 1`, pgerr.DivisionByZero)
	mustFail(t, s, `SELECT nullif(1, 1/0)`, pgerr.DivisionByZero)
	mustFail(t, s, `SELECT CASE WHEN false THEN 'z'::int END`, pgerr.InvalidTextRepr) // a literal: while parsing
	mustFail(t, s, `SELECT sum(x) OVER (ORDER BY x ROWS BETWEEN 'z'::text::int PRECEDING AND CURRENT ROW) FROM t`, pgerr.InvalidTextRepr)
	mustFail(t, s, `SELECT x FROM t WHERE x IN (1, 'z'::text::int)`, pgerr.InvalidTextRepr)
	// UPDATE and DELETE plan their expressions the same way
	must(t, s, `UPDATE t SET x = CASE WHEN x <> 2 THEN x + 0 * (6 / (x - 2)) ELSE x END WHERE x IS NULL OR x = 2 OR 6 / (x - 2) <> 0`)
	mustFail(t, s, `UPDATE t SET x = CASE WHEN x > 100 THEN 1/0 ELSE x END`, pgerr.DivisionByZero)
	mustFail(t, s, `DELETE FROM t WHERE CASE WHEN x > 100 THEN 1/0 END = 1`, pgerr.DivisionByZero)
	must(t, s, `UPDATE t SET x = CASE WHEN false THEN 1/0 ELSE x END WHERE false AND 1/0 = 1`)
	must(t, s, `SELECT g, x FROM t ORDER BY g, x`, "a|1", "a|3", "b|2", "c|NULL")
}
