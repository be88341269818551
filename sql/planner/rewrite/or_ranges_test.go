package rewrite

import (
	"strings"
	"testing"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/lakepg/lakepg/sql/planner/bind"
)

// TestMergeOrRanges: ORs of ranges of one column that touch or overlap
// become one range; gaps, other columns, non-constant bounds and other
// shapes stay as written.
func TestMergeOrRanges(t *testing.T) {
	for _, tc := range []struct{ where, want string }{
		{"p BETWEEN 100.00 AND 150.00 OR p BETWEEN 50.00 AND 100.00 OR p BETWEEN 150.00 AND 200.00", "p BETWEEN 50.00 AND 200.00"},
		{"p BETWEEN 0 AND 2000 OR p BETWEEN 150 AND 3000 OR p BETWEEN 50 AND 25000", "p BETWEEN 0 AND 25000"},
		{"p < 5 OR p >= 5", ""},                         // everything but NULL: left alone
		{"p < 5 OR p > 5", ""},                          // a gap at 5
		{"p <= 5 OR p > 5 AND p < 9", "p < 9"},          // (-inf,5] ∪ (5,9)
		{"p > 1 AND p <= 3 OR p = 3 OR 4 > p", "p < 4"}, // constant on the left too
		{"p BETWEEN 1 AND 2 OR p BETWEEN 3 AND 4", ""},  // a gap between 2 and 3
		{"p BETWEEN 1 AND 2 OR q BETWEEN 2 AND 4", ""},  // two columns
		{"p BETWEEN 1 AND 2 OR p BETWEEN q AND 4", ""},  // a bound that is not a constant
		{"p = 1 OR p = 1", "p BETWEEN 1 AND 1"},
		{"p > 10 OR p >= 10", "p >= 10"},
		{"p > 3 AND p < 2 OR p BETWEEN 5 AND 6", "p BETWEEN 5 AND 6"}, // an empty branch adds nothing
		{"p > 3 AND p < 2 OR p > 7 AND p < 7", ""},                    // all empty
		{"p BETWEEN -5 AND -1 OR p BETWEEN -1.5 AND 3", "p BETWEEN -5 AND 3"},
		{"t.p > 1 OR t.p > 2", "t.p > 1"},
		{"p NOT BETWEEN 1 AND 2 OR p BETWEEN 1 AND 2", ""},
	} {
		tree, err := pg.Parse("SELECT 1 FROM t WHERE " + tc.where)
		if err != nil {
			t.Fatal(err)
		}
		w := tree.Stmts[0].Stmt.GetSelectStmt().WhereClause
		got := ""
		if m, ok := MergeOrRanges(w); ok {
			got = strings.TrimPrefix(bind.DeparseExpr(m), "SELECT ")
		}
		if got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.where, got, tc.want)
		}
	}
}
