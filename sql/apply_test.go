package sql

import (
	"math"
	"strings"
	"testing"

	"github.com/lakepg/lakepg/sql/planner"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

func empDept(t *testing.T, s *Session) {
	t.Helper()
	must(t, s, `CREATE TABLE emp (id integer, name text, dept integer, boss integer, salary numeric(8,2))`)
	must(t, s, `CREATE TABLE dept (id integer, dname text, city text)`)
	must(t, s, `INSERT INTO emp VALUES (1, 'ann', 10, NULL, 5000), (2, 'bob', 10, 1, 4000), (3, 'cid', 20, 1, 4500),
		(4, 'dan', NULL, 2, 3000), (5, 'eve', 30, 3, 3500), (6, 'fay', 20, 3, NULL)`)
	must(t, s, `INSERT INTO dept VALUES (10, 'sales', 'paris'), (20, 'dev', 'berlin'), (40, 'ops', 'paris'), (NULL, 'ghost', NULL)`)
}

// Correlated subqueries the join rewrites cannot express run per outer key
// (planner/apply.go). Expected rows are PostgreSQL 15's answers, on inlined rows
// and on Parquet files.
func TestCorrelatedPerOuterKey(t *testing.T) {
	for _, files := range []bool{false, true} {
		s := lake(t)
		if files {
			must(t, s, `CALL lakepg.set_option('data_inlining_row_limit', '0')`)
		}
		empDept(t, s)
		// LATERAL with ORDER BY … LIMIT, LEFT JOIN LATERAL … ON true
		must(t, s, `SELECT d.dname, e.name FROM dept d LEFT JOIN LATERAL (SELECT name FROM emp WHERE emp.dept = d.id ORDER BY salary DESC NULLS LAST LIMIT 1) e ON true ORDER BY d.dname`,
			"dev|cid", "ghost|NULL", "ops|NULL", "sales|ann")
		// LATERAL aggregates: one row per outer row, also without matches
		must(t, s, `SELECT d.dname, x.n, x.top FROM dept d, LATERAL (SELECT count(*) AS n, max(salary) AS top FROM emp WHERE emp.dept = d.id) x ORDER BY d.dname`,
			"dev|2|4500.00", "ghost|0|NULL", "ops|0|NULL", "sales|2|5000.00")
		// the ON condition filters the subquery's rows, reading both sides
		must(t, s, `SELECT d.dname, e.name FROM dept d LEFT JOIN LATERAL (SELECT name, salary FROM emp WHERE emp.dept = d.id ORDER BY salary DESC LIMIT 2) e ON e.salary > 4000 ORDER BY 1, 2`,
			"dev|cid", "ghost|NULL", "ops|NULL", "sales|ann")
		// scalar subqueries with ORDER BY … LIMIT 1, also inside CASE
		must(t, s, `SELECT e.name, (SELECT x.name FROM emp x WHERE x.dept = e.dept AND x.id <> e.id ORDER BY x.salary DESC NULLS LAST LIMIT 1) FROM emp e ORDER BY e.id`,
			"ann|bob", "bob|ann", "cid|fay", "dan|NULL", "eve|NULL", "fay|cid")
		must(t, s, `SELECT e.name, CASE WHEN e.salary > 4000 THEN (SELECT d.dname FROM dept d WHERE d.id = e.dept ORDER BY d.city LIMIT 1) END FROM emp e ORDER BY e.id`,
			"ann|sales", "bob|NULL", "cid|dev", "dan|NULL", "eve|NULL", "fay|NULL")
		// in the ON condition of an outer join, over the side it reads
		must(t, s, `SELECT e.name, d.dname FROM emp e LEFT JOIN dept d ON d.id = (SELECT max(x.dept) FROM emp x WHERE x.boss = e.id) ORDER BY e.id`,
			"ann|dev", "bob|NULL", "cid|NULL", "dan|NULL", "eve|NULL", "fay|NULL")
		// above an aggregation, reading the group keys
		must(t, s, `SELECT dept, (SELECT name FROM emp x WHERE x.dept = emp.dept ORDER BY salary LIMIT 1), count(*) FROM emp GROUP BY dept ORDER BY dept`,
			"10|bob|2", "20|cid|2", "30|eve|1", "NULL|NULL|1")
		mustFail(t, s, `SELECT dept, (SELECT count(*) FROM emp x WHERE x.id = emp.id) FROM emp GROUP BY dept`, pgerr.GroupingError)
		// inside aggregate arguments: per input row of the aggregation
		must(t, s, `SELECT dept, sum((SELECT x.salary FROM emp x WHERE x.id = emp.boss ORDER BY 1 LIMIT 1)) FROM emp GROUP BY dept ORDER BY dept`,
			"10|5000.00", "20|9500.00", "30|4500.00", "NULL|4000.00")
		// a LIMIT inside a FROM subquery, a correlated IN nested deeper
		must(t, s, `SELECT id, (SELECT count(*) FROM (SELECT x.id FROM emp x WHERE x.id < e.id ORDER BY x.id DESC LIMIT 2) s), (SELECT sum(x.id) FROM emp x WHERE x.dept IN (SELECT y.dept FROM emp y WHERE y.boss = e.id)) FROM emp e ORDER BY id`,
			"1|0|12", "2|1|NULL", "3|2|14", "4|2|NULL", "5|2|NULL", "6|2|NULL")
		// a WITH query read twice by every key's plan
		must(t, s, `WITH c AS (SELECT dept, salary FROM emp) SELECT d.dname, (SELECT max(x.salary) FROM c x JOIN c y ON x.dept = y.dept WHERE x.dept = d.id LIMIT 1) FROM dept d ORDER BY 1`,
			"dev|4500.00", "ghost|NULL", "ops|NULL", "sales|5000.00")
		// ARRAY, EXISTS and ANY of shapes the joins do not plan
		must(t, s, `SELECT id, ARRAY(SELECT x.id FROM emp x WHERE x.boss = e.id ORDER BY x.id DESC LIMIT 2), EXISTS (SELECT 1 FROM emp x WHERE x.boss = e.id GROUP BY x.dept HAVING count(*) > 1), e.dept = ANY (SELECT x.dept FROM emp x WHERE x.boss = e.boss AND x.id <> e.id) FROM emp e ORDER BY id`,
			"1|{3,2}|f|f", "2|{4}|f|f", "3|{6,5}|f|f", "4|{}|f|f", "5|{}|f|f", "6|{}|f|f")
		// the joined-in values are not columns of *
		must(t, s, `SELECT * FROM emp e WHERE salary >= (SELECT max(x.salary) FROM emp x WHERE x.id <> e.id AND x.dept = e.dept) ORDER BY id`,
			"1|ann|10|NULL|5000.00")
		// a volatile subquery runs for every outer row, even with equal keys
		must(t, s, `SELECT count(DISTINCT r) FROM (SELECT (SELECT random() + 0 * x.id FROM emp x WHERE x.id = e.id % 2 + 1 ORDER BY 1 LIMIT 1) AS r FROM emp e) s`, "6")
		mustFail(t, s, `SELECT id, (SELECT x.id FROM emp x WHERE x.boss = e.id ORDER BY x.id) FROM emp e`, pgerr.CardinalityViolation)
		mustFail(t, s, `SELECT id, (SELECT x.id, x.name FROM emp x WHERE x.boss = e.id LIMIT 1) FROM emp e`, pgerr.SyntaxError)
		mustFail(t, s, `SELECT id, (SELECT x.nosuch FROM emp x WHERE x.boss = e.id LIMIT 1) FROM emp e`, pgerr.UndefinedColumn)
	}
}

// Parameters reach the subquery's per-key plans; inside a transaction block
// they read the block's own writes.
func TestPerOuterKeyParamsAndBlocks(t *testing.T) {
	s := lake(t)
	empDept(t, s)
	rows, _, err := run(t, s, `SELECT d.dname, (SELECT name FROM emp WHERE emp.dept = d.id AND salary > $1 ORDER BY salary LIMIT 1) FROM dept d ORDER BY 1`, "4000")
	if err != nil || strings.Join(rows, ",") != "dev|cid,ghost|NULL,ops|NULL,sales|ann" {
		t.Fatalf("got %q, %v", rows, err)
	}
	must(t, s, `BEGIN`)
	must(t, s, `INSERT INTO emp VALUES (7, 'gus', 40, 1, 4100)`)
	must(t, s, `SELECT d.dname, x.name FROM dept d, LATERAL (SELECT name FROM emp WHERE emp.dept = d.id ORDER BY salary DESC NULLS LAST LIMIT 1) x ORDER BY 1`,
		"dev|cid", "ops|gus", "sales|ann")
	must(t, s, `ROLLBACK`)
}

// The cache keeps the most recently used keys within its byte budget.
func TestApplyCacheEvicts(t *testing.T) {
	var c planner.ApplyCache
	big := func(tag string) *planner.ApplyEntry {
		v := vec.New(types.TextT, 1)
		v.AppendString(strings.Repeat(tag, 8))
		return &planner.ApplyEntry{Val: v, Bytes: planner.ApplyCacheBytes / 3}
	}
	c.Put("a", big("a"))
	c.Put("b", big("b"))
	if _, ok := c.Get("a"); !ok {
		t.Fatal("a evicted too early")
	}
	c.Put("c", big("c")) // evicts b, the least recently used
	if _, ok := c.Get("b"); ok {
		t.Fatal("b kept beyond the budget")
	}
	for _, k := range []string{"a", "c"} {
		if e, ok := c.Get(k); !ok || e.Val.S[0] != strings.Repeat(k, 8) {
			t.Fatalf("%s: lost or wrong", k)
		}
	}
	if c.Bytes > planner.ApplyCacheBytes {
		t.Fatalf("cache holds %d bytes, budget %d", c.Bytes, planner.ApplyCacheBytes)
	}
	c.Put("huge", &planner.ApplyEntry{Bytes: planner.ApplyCacheBytes + 1})
	if _, ok := c.Get("huge"); ok {
		t.Fatal("an entry over the whole budget was kept")
	}
}

// Keys compare values as stored: NULL, 0 and -0 are three keys, and
// text values of different lengths never run together.
func TestApplyKeys(t *testing.T) {
	v := vec.New(types.Float64T, 3)
	v.AppendNull()
	v.AppendFloat(0)
	v.AppendFloat(math.Copysign(0, -1))
	w := vec.New(types.Float64T, 1)
	w.AppendFloat(0)
	null, zero, neg := string(planner.AppendKey(nil, v, 0)), string(planner.AppendKey(nil, v, 1)), string(planner.AppendKey(nil, v, 2))
	if zero == null || zero == neg || zero != string(planner.AppendKey(nil, w, 0)) {
		t.Fatalf("keys: null %q zero %q -0 %q", null, zero, neg)
	}
	s := vec.New(types.TextT, 2)
	s.AppendString("ab")
	s.AppendString("a")
	if string(planner.AppendKey(planner.AppendKey(nil, s, 1), s, 1)) == string(planner.AppendKey(nil, s, 0)) {
		t.Fatal("text keys run together")
	}
}
