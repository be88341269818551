package planner

import (
	"google.golang.org/protobuf/reflect/protoreflect"

	pg "github.com/pganalyze/pg_query_go/v6"
)

// The cte_shared_filter rule: a WITH query that several references read,
// each with WHERE conjuncts of its own, is run once with the disjunction of
// those conjuncts pushed into it, and each reference filters the shared
// rows by its own. Planning a filtered copy per reference (what
// subquery_pushdown does alone) scans the tables once per reference: TPC-DS
// q31 reads store_sales and web_sales three times each, a quarter per
// reference, where one scan of the three quarters does. A reference
// without a conjunct of its own, or one that is not a plain FROM item,
// keeps the copies.

// refConjuncts are one reference's WHERE conjuncts over the WITH query's
// output columns, read under the reference's alias.
type refConjuncts struct {
	alias string
	outs  []outColumn
	conj  []*pg.Node
}

// sharedBody is the WITH query cte runs once for all its references: its
// SELECT with the disjunction of the references' conjuncts pushed in, or
// nil when a reference has none (or the rule is off).
func (qc *QueryCtx) sharedBody(cte *CteDef) *pg.SelectStmt {
	if cte.sharedDone {
		return cte.shared
	}
	cte.sharedDone = true
	sel := cte.Query.GetSelectStmt()
	if !qc.ruleOn(ruleCTESharedFilter) || !cte.runOnce() || cte.Recursive || cte.Materialized || cte.Written != nil || sel == nil {
		return nil
	}
	outs := subqueryOutputs(sel)
	if outs == nil {
		return nil
	}
	renameOutputs(outs, cte.Colps)
	var groups []refConjuncts
	ok := true
	for _, scope := range cte.scopes {
		EachMessage(scope, func(m protoreflect.Message) { // sql/views.go
			s, isSelect := m.Interface().(*pg.SelectStmt)
			if !isSelect {
				return
			}
			if s.WithClause != nil {
				for _, c := range s.WithClause.Ctes {
					if c.GetCommonTableExpr().GetCtename() == cte.Name {
						ok = false // shadowed: its references are another query's
					}
				}
			}
			for _, item := range s.FromClause {
				rv := item.GetRangeVar()
				if rv == nil || rv.Schemaname != "" || rv.Relname != cte.Name {
					continue
				}
				alias, refOuts := cte.Name, append([]outColumn(nil), outs...)
				if rv.Alias != nil {
					alias = rv.Alias.Aliasname
					renameOutputs(refOuts, StrNodes(rv.Alias.Colnames))
				}
				g := refConjuncts{alias: alias, outs: refOuts}
				for _, c := range splitAnd(s.WhereClause) {
					if !hasSubLink(c) && len(columnRefs(c)) > 0 && pushableConjunct(c, alias, refOuts) {
						g.conj = append(g.conj, c)
					}
				}
				groups = append(groups, g)
			}
		})
	}
	if !ok || len(groups) != cte.refs || len(groups) < 2 {
		return nil // a reference inside a JOIN, or in a shadowing scope
	}
	for _, g := range groups {
		if len(g.conj) == 0 {
			return nil
		}
	}
	cte.shared = withDisjunction(sel, groups)
	return cte.shared
}

// withDisjunction returns a copy of sel with, in the WHERE of each branch,
// the OR over groups of the AND of each group's conjuncts, their columns
// replaced by that branch's expressions.
func withDisjunction(sel *pg.SelectStmt, groups []refConjuncts) *pg.SelectStmt {
	return withBranchConditions(sel, func(branch int) []*pg.Node {
		var ors []*pg.Node
		for _, g := range groups {
			var ands []*pg.Node
			for _, c := range g.conj {
				ands = append(ands, substituteColumns(c, g.alias, g.outs, branch))
			}
			ors = append(ors, boolNode(pg.BoolExprType_AND_EXPR, ands))
		}
		return []*pg.Node{boolNode(pg.BoolExprType_OR_EXPR, ors)}
	})
}

// boolNode is AND or OR over args, or the one arg alone.
func boolNode(op pg.BoolExprType, args []*pg.Node) *pg.Node {
	if len(args) == 1 {
		return args[0]
	}
	return &pg.Node{Node: &pg.Node_BoolExpr{BoolExpr: &pg.BoolExpr{Boolop: op, Args: args, Location: -1}}}
}
