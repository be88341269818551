package bind

import (
	"github.com/lakepg/lakepg/types"
	pg "github.com/pganalyze/pg_query_go/v6"
)

func ContainsAgg(n *pg.Node) bool {
	if n == nil {
		return false
	}
	found := false
	Walk(n, func(x *pg.Node) bool {
		if f := x.GetFuncCall(); f != nil {
			if IsAggregate(FuncName(f)) && f.Over == nil {
				found = true
				return false
			}
		}
		return !found
	})
	return found
}

// Walk visits expression nodes depth-first (not into subqueries, only
// into a subquery test's left operand).
func Walk(n *pg.Node, fn func(*pg.Node) bool) {
	if n == nil || !fn(n) {
		return
	}
	switch x := n.Node.(type) {
	case *pg.Node_AExpr:
		Walk(x.AExpr.Lexpr, fn)
		Walk(x.AExpr.Rexpr, fn)
	case *pg.Node_BoolExpr:
		for _, a := range x.BoolExpr.Args {
			Walk(a, fn)
		}
	case *pg.Node_FuncCall:
		for _, a := range x.FuncCall.Args {
			Walk(a, fn)
		}
	case *pg.Node_TypeCast:
		Walk(x.TypeCast.Arg, fn)
	case *pg.Node_NullTest:
		Walk(x.NullTest.Arg, fn)
	case *pg.Node_List:
		for _, a := range x.List.Items {
			Walk(a, fn)
		}
	case *pg.Node_CaseExpr:
		Walk(x.CaseExpr.Arg, fn)
		for _, a := range x.CaseExpr.Args {
			Walk(a, fn)
		}
		Walk(x.CaseExpr.Defresult, fn)
	case *pg.Node_CaseWhen:
		Walk(x.CaseWhen.Expr, fn)
		Walk(x.CaseWhen.Result, fn)
	case *pg.Node_CoalesceExpr:
		for _, a := range x.CoalesceExpr.Args {
			Walk(a, fn)
		}
	case *pg.Node_BooleanTest:
		Walk(x.BooleanTest.Arg, fn)
	case *pg.Node_AIndirection:
		Walk(x.AIndirection.Arg, fn)
		for _, ind := range x.AIndirection.Indirection {
			if ai := ind.GetAIndices(); ai != nil {
				Walk(ai.Lidx, fn)
				Walk(ai.Uidx, fn)
			}
		}
	case *pg.Node_MinMaxExpr:
		// GREATEST/LEAST: a column or aggregate inside counts (a
		// conjunct over another table's column was placed on one table)
		for _, a := range x.MinMaxExpr.Args {
			Walk(a, fn)
		}
	case *pg.Node_RowExpr:
		for _, a := range x.RowExpr.Args {
			Walk(a, fn)
		}
	case *pg.Node_AArrayExpr:
		for _, a := range x.AArrayExpr.Elements {
			Walk(a, fn)
		}
	case *pg.Node_CollateClause:
		Walk(x.CollateClause.Arg, fn)
	case *pg.Node_NamedArgExpr:
		Walk(x.NamedArgExpr.Arg, fn)
	case *pg.Node_SubLink:
		// the left operand of IN/ANY/ALL belongs to this query level
		// (an aggregate there aggregates this query's rows); the
		// subquery itself does not
		Walk(x.SubLink.Testexpr, fn)
	}
}

func Itoa(i int) string { return string(types.AppendInt(nil, int64(i))) }
