package rewrite

import (
	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/lakepg/lakepg/sql/planner/bind"
)

// RejectsNulls reports whether WHERE conjunct c is false or NULL whenever
// the columns it reads that resolves accepts (a side of an outer join) are
// NULL: a comparison, IN, LIKE or IS NOT NULL with a bare column of them
// on one side.
func RejectsNulls(c *pg.Node, resolves func(table, col string) bool) bool {
	var operands []*pg.Node
	switch {
	case c.GetAExpr() != nil:
		a := c.GetAExpr()
		switch a.Kind {
		case pg.A_Expr_Kind_AEXPR_OP:
			op := bind.StrNodes(a.Name)
			if len(op) == 0 || a.Lexpr == nil {
				return false
			}
			switch op[len(op)-1] {
			case "=", "<>", "!=", "<", ">", "<=", ">=", "~~", "!~~", "~~*":
			default:
				return false
			}
			operands = []*pg.Node{a.Lexpr, a.Rexpr}
		case pg.A_Expr_Kind_AEXPR_IN, pg.A_Expr_Kind_AEXPR_LIKE, pg.A_Expr_Kind_AEXPR_ILIKE,
			pg.A_Expr_Kind_AEXPR_BETWEEN, pg.A_Expr_Kind_AEXPR_NOT_BETWEEN:
			operands = []*pg.Node{a.Lexpr}
		default:
			return false
		}
	case c.GetNullTest() != nil:
		nt := c.GetNullTest()
		if nt.Nulltesttype != pg.NullTestType_IS_NOT_NULL {
			return false
		}
		operands = []*pg.Node{nt.Arg}
	default:
		return false
	}
	for _, o := range operands {
		for o.GetTypeCast() != nil {
			o = o.GetTypeCast().Arg
		}
		cr := o.GetColumnRef()
		if cr == nil {
			continue
		}
		if t, col, ok := RefNames(cr); ok && resolves(t, col) {
			return true
		}
	}
	return false
}

// RefNames is the table (empty when unqualified) and column a column
// reference names; ok is false for a * or a malformed reference.
func RefNames(cr *pg.ColumnRef) (string, string, bool) {
	var names []string
	for _, f := range cr.Fields {
		s := f.GetString_()
		if s == nil {
			return "", "", false
		}
		names = append(names, s.Sval)
	}
	switch len(names) {
	case 1:
		return "", names[0], true
	case 0:
		return "", "", false
	}
	return names[len(names)-2], names[len(names)-1], true
}
