package rewrite

import (
	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/lakepg/lakepg/sql/planner/bind"
)

// ImpliedConstants derives, from WHERE conjuncts col = constant and ON
// equalities col = other, the conjuncts other = constant: a row of the
// nullable side of an outer join whose other differs can only meet
// preserved rows that WHERE removes (TPC-DS q78: the year of the store
// sales is the year of the web and catalog sales joined to them).
func ImpliedConstants(on, where []*pg.Node) []*pg.Node {
	consts := map[string]*pg.Node{}
	for _, c := range where {
		if col, k, ok := columnEqualsConstant(c); ok {
			consts[bind.DeparseExpr(col)] = k
		}
	}
	if len(consts) == 0 {
		return nil
	}
	var out []*pg.Node
	for _, q := range on {
		a := q.GetAExpr()
		if !IsEquality(q) || a.Lexpr.GetColumnRef() == nil || a.Rexpr.GetColumnRef() == nil {
			continue
		}
		for _, pair := range [][2]*pg.Node{{a.Lexpr, a.Rexpr}, {a.Rexpr, a.Lexpr}} {
			if k, ok := consts[bind.DeparseExpr(pair[0])]; ok {
				out = append(out, &pg.Node{Node: &pg.Node_AExpr{AExpr: &pg.A_Expr{
					Kind: pg.A_Expr_Kind_AEXPR_OP, Name: a.Name, Lexpr: pair[1], Rexpr: k, Location: -1}}})
			}
		}
	}
	return out
}

// columnEqualsConstant recognises col = constant (either way round; the
// constant possibly cast).
func columnEqualsConstant(c *pg.Node) (col, k *pg.Node, ok bool) {
	if !IsEquality(c) {
		return nil, nil, false
	}
	a := c.GetAExpr()
	isConst := func(n *pg.Node) bool {
		for n.GetTypeCast() != nil {
			n = n.GetTypeCast().Arg
		}
		return n.GetAConst() != nil
	}
	switch {
	case a.Lexpr.GetColumnRef() != nil && isConst(a.Rexpr):
		return a.Lexpr, a.Rexpr, true
	case a.Rexpr.GetColumnRef() != nil && isConst(a.Lexpr):
		return a.Rexpr, a.Lexpr, true
	}
	return nil, nil, false
}

// IsEquality reports a plain "a = b" expression.
func IsEquality(n *pg.Node) bool {
	a := n.GetAExpr()
	if a == nil || a.Kind != pg.A_Expr_Kind_AEXPR_OP || a.Lexpr == nil {
		return false
	}
	names := bind.StrNodes(a.Name)
	return len(names) > 0 && names[len(names)-1] == "="
}
