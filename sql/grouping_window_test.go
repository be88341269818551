package sql

import "testing"

// GROUPING() may appear in a window's PARTITION BY and ORDER BY and in a
// window function's arguments over GROUP BY ROLLUP, as TPC-DS q70 and q86
// use it (PostgreSQL's answers).
func TestGroupingInWindow(t *testing.T) {
	s := setup(t)
	must(t, s, `SELECT g, x, grouping(g)+grouping(x) AS lochierarchy,
		rank() OVER (PARTITION BY grouping(g)+grouping(x), CASE WHEN grouping(x) = 0 THEN g END ORDER BY sum(y) DESC NULLS LAST) AS r
		FROM t GROUP BY ROLLUP(g, x) ORDER BY lochierarchy DESC, g, r`,
		"NULL|NULL|2|1",
		"a|NULL|1|1", "b|NULL|1|3", "c|NULL|1|2",
		"a|3|0|1", "a|1|0|2", "b|2|0|1", "c|NULL|0|1")
	must(t, s, `SELECT g, grouping(g), sum(x), rank() OVER (ORDER BY grouping(g), sum(x)),
		sum(grouping(g)) OVER (), first_value(grouping(g)*10) OVER (ORDER BY g NULLS FIRST)
		FROM t GROUP BY ROLLUP(g) ORDER BY g`,
		"a|0|4|2|1|10", "b|0|2|1|1|10", "c|0|NULL|3|1|10", "NULL|1|6|4|1|10")
}
