package planner

import (
	"strings"
	"testing"

	pg "github.com/pganalyze/pg_query_go/v6"
)

// TestRewriteWhere: UPDATE's and DELETE's WHERE gets the query path's
// conjunct rewrites, factor_or then or_ranges, each unless disabled, and
// the parse tree given is left as it was.
func TestRewriteWhere(t *testing.T) {
	for _, tc := range []struct{ where, disabled, want string }{
		{"id BETWEEN 1 AND 5 OR id BETWEEN 5 AND 10", "", "id BETWEEN 1 AND 10"},
		{"id BETWEEN 1 AND 5 OR id BETWEEN 5 AND 10", "or_ranges", "id BETWEEN 1 AND 5 OR id BETWEEN 5 AND 10"},
		{"(id = 3 AND v > 0) OR (id = 3 AND v < 0)", "", "id = 3 AND (v > 0 OR v < 0)"},
		{"(id = 3 AND v > 0) OR (id = 3 AND v < 0)", "factor_or", "(id = 3 AND v > 0) OR (id = 3 AND v < 0)"},
		// factored first, then the branches left merge
		{"(k = 1 AND id < 5) OR (k = 1 AND id BETWEEN 5 AND 9)", "", "k = 1 AND id <= 9"},
		{"s = 'a' AND (id = 1 OR id = 2)", "", "s = 'a' AND (id = 1 OR id = 2)"}, // points apart: pruning reads the OR (sql/pruning)
		{"id = 250 OR id = 260", "", "id = 250 OR id = 260"},
		{"v > 0", "", "v > 0"},
	} {
		tree, err := pg.Parse("DELETE FROM t WHERE " + tc.where)
		if err != nil {
			t.Fatal(err)
		}
		w := tree.Stmts[0].Stmt.GetDeleteStmt().WhereClause
		before := DeparseExpr(w)
		qc := &QueryCtx{s: &Session{Settings: map[string]string{"lakepg.disabled_rules": tc.disabled}}}
		got := strings.TrimPrefix(DeparseExpr(qc.RewriteWhere(w)), "SELECT ")
		if got != tc.want {
			t.Errorf("%s (disabled %q):\n got %q\nwant %q", tc.where, tc.disabled, got, tc.want)
		}
		if DeparseExpr(w) != before {
			t.Errorf("%s: the parse tree changed to %q", tc.where, DeparseExpr(w))
		}
	}
	if (&QueryCtx{s: &Session{}}).RewriteWhere(nil) != nil {
		t.Error("no WHERE became one")
	}
}
