package planner

import (
	"strconv"
	"strings"

	"google.golang.org/protobuf/proto"

	pg "github.com/pganalyze/pg_query_go/v6"
)

// Predicate pushdown into derived tables and WITH queries: a WHERE conjunct
// that reads only the output columns of one subquery in FROM, where those
// columns are plain columns or constants of the subquery (and group keys
// when it groups), is added to the subquery's WHERE with the columns
// replaced by what they stand for, into every branch of a set operation. The
// subquery then scans, joins and groups only the rows the outer query
// keeps (TPC-DS q39 aggregates one month per reference, not twelve; q4's
// and q11's year_total keeps the one year and sale type each reference
// reads). A WITH query referenced several times is materialized once; a
// reference with conjuncts of its own plans its own filtered copy.
//
// Never pushed: into a subquery with LIMIT/OFFSET, DISTINCT ON, window
// functions, grouping sets, or aggregates without GROUP BY; a conjunct
// with a subquery, an aggregate or a volatile function; a column that is
// computed (its value would need the expression evaluated below, which is
// PostgreSQL's choice too but not needed for the cases that matter).

// outColumn is one output column of a subquery: its name and, per branch
// of a set operation (one for a plain SELECT), the expression behind it, or nil
// when a conjunct over it cannot be pushed.
type outColumn struct {
	name  string
	exprs []*pg.Node
}

// subqueryOutputs describes the output columns of sel for pushdown, or
// returns nil when nothing can be pushed into it.
func subqueryOutputs(sel *pg.SelectStmt) []outColumn {
	if sel == nil || sel.LimitCount != nil || sel.LimitOffset != nil || len(sel.ValuesLists) > 0 {
		return nil
	}
	if sel.Op != pg.SetOperation_SETOP_NONE {
		// a filter over the output's values gives the same rows taken
		// before UNION, INTERSECT or EXCEPT as after, with or without ALL:
		// equal rows pass or fail it alike
		if sel.WithClause != nil {
			return nil
		}
		l, r := subqueryOutputs(sel.Larg), subqueryOutputs(sel.Rarg)
		if l == nil || r == nil || len(l) != len(r) {
			return nil
		}
		for i := range l {
			if l[i].exprs == nil || r[i].exprs == nil {
				l[i].exprs = nil
				continue
			}
			l[i].exprs = append(l[i].exprs, r[i].exprs...)
		}
		return l
	}
	for _, d := range sel.DistinctClause {
		if d != nil && d.Node != nil {
			return nil // DISTINCT ON
		}
	}
	grouped := len(sel.GroupClause) > 0
	groupKeys := map[string]bool{}
	for _, g := range sel.GroupClause {
		if g.GetGroupingSet() != nil {
			return nil
		}
		groupKeys[DeparseExpr(g)] = true
	}
	if !grouped && (sel.HavingClause != nil || targetsAggregate(sel)) {
		return nil // one row whatever the input: a filter below would change it
	}
	var out []outColumn
	for pos, t := range sel.TargetList {
		rt := t.GetResTarget()
		if rt == nil {
			return nil
		}
		if cr := rt.Val.GetColumnRef(); cr != nil && cr.Fields[len(cr.Fields)-1].GetAStar() != nil {
			return nil // the names behind * are known only after planning
		}
		if hasWindow(rt.Val) {
			return nil
		}
		c := outColumn{name: TargetName(rt)}
		if plainTarget(rt.Val) {
			key := rt.Val.GetAConst() != nil || groupKeys[DeparseExpr(rt.Val)] || groupKeys[strconv.Itoa(pos+1)]
			if !grouped || key {
				c.exprs = []*pg.Node{rt.Val}
			}
		}
		out = append(out, c)
	}
	return out
}

// targetsAggregate: an aggregate call in sel's SELECT list.
func targetsAggregate(sel *pg.SelectStmt) bool {
	for _, t := range sel.TargetList {
		if rt := t.GetResTarget(); rt != nil && ContainsAgg(rt.Val) {
			return true
		}
	}
	return false
}

// hasWindow: a window function call in n.
func hasWindow(n *pg.Node) bool {
	found := false
	Walk(n, func(x *pg.Node) bool {
		if fc := x.GetFuncCall(); fc != nil && fc.Over != nil {
			found = true
		}
		return !found
	})
	return found
}

// plainTarget: a column, or a constant, possibly cast.
func plainTarget(n *pg.Node) bool {
	for n.GetTypeCast() != nil {
		n = n.GetTypeCast().Arg
	}
	if cr := n.GetColumnRef(); cr != nil {
		return cr.Fields[len(cr.Fields)-1].GetAStar() == nil
	}
	return n.GetAConst() != nil
}

// volatileFuncs are functions whose result may change per call: a conjunct
// calling one is evaluated where it was written.
var volatileFuncs = map[string]bool{
	"random": true, "setseed": true, "nextval": true, "setval": true, "currval": true, "lastval": true,
	"clock_timestamp": true, "timeofday": true, "gen_random_uuid": true, "uuid_generate_v4": true,
	"txid_current": true, "pg_sleep": true,
}

// pushableConjunct reports whether c may move into a subquery whose output
// columns are outs, read under the reference's alias: it reads only those
// columns (each pushable), through expressions exprChildren knows, and
// calls no aggregate, window or volatile function.
func pushableConjunct(c *pg.Node, alias string, outs []outColumn) bool {
	if c == nil {
		return true
	}
	switch x := c.Node.(type) {
	case *pg.Node_ColumnRef:
		_, found := outputFor(x.ColumnRef, alias, outs)
		return found
	case *pg.Node_AConst, *pg.Node_ParamRef:
		return true
	case *pg.Node_FuncCall:
		fc := x.FuncCall
		name := StrNodes(fc.Funcname)
		if fc.Over != nil || fc.AggStar || fc.AggDistinct || fc.AggFilter != nil || len(fc.AggOrder) > 0 ||
			len(name) == 0 || volatileFuncs[strings.ToLower(name[len(name)-1])] || ContainsAgg(c) {
			return false
		}
	}
	kids, ok := exprChildren(c)
	if !ok {
		return false
	}
	for _, k := range kids {
		if !pushableConjunct(k, alias, outs) {
			return false
		}
	}
	return true
}

// exprChildren lists the operands of the expression kinds a pushed-down
// conjunct may hold; ok is false for any other kind.
func exprChildren(n *pg.Node) (kids []*pg.Node, ok bool) {
	switch x := n.Node.(type) {
	case *pg.Node_TypeCast:
		return []*pg.Node{x.TypeCast.Arg}, true
	case *pg.Node_AExpr:
		return []*pg.Node{x.AExpr.Lexpr, x.AExpr.Rexpr}, true
	case *pg.Node_BoolExpr:
		return x.BoolExpr.Args, true
	case *pg.Node_NullTest:
		return []*pg.Node{x.NullTest.Arg}, true
	case *pg.Node_BooleanTest:
		return []*pg.Node{x.BooleanTest.Arg}, true
	case *pg.Node_List:
		return x.List.Items, true
	case *pg.Node_FuncCall:
		return x.FuncCall.Args, true
	case *pg.Node_CaseExpr:
		return append([]*pg.Node{x.CaseExpr.Arg, x.CaseExpr.Defresult}, x.CaseExpr.Args...), true
	case *pg.Node_CaseWhen:
		return []*pg.Node{x.CaseWhen.Expr, x.CaseWhen.Result}, true
	case *pg.Node_CoalesceExpr:
		return x.CoalesceExpr.Args, true
	case *pg.Node_MinMaxExpr:
		return x.MinMaxExpr.Args, true
	}
	return nil, false
}

// outputFor is the output column a reference in a conjunct names: alias.col
// or a bare col that is one output's name (and only one's); found is false
// for anything else, and for an output that cannot take a conjunct.
func outputFor(cr *pg.ColumnRef, alias string, outs []outColumn) (int, bool) {
	names := StrNodes(cr.Fields)
	if len(names) != len(cr.Fields) {
		return 0, false // a star or an indirection
	}
	var col string
	switch len(names) {
	case 1:
		col = names[0]
	case 2:
		if names[0] != alias {
			return 0, false
		}
		col = names[1]
	default:
		return 0, false
	}
	idx := -1
	for i, o := range outs {
		if o.name == col {
			if idx >= 0 {
				return 0, false
			}
			idx = i
		}
	}
	if idx < 0 || outs[idx].exprs == nil {
		return 0, false
	}
	return idx, true
}

// substituteColumns returns a copy of c with every column reference
// replaced by branch's expression of the output it names.
func substituteColumns(c *pg.Node, alias string, outs []outColumn, branch int) *pg.Node {
	c = proto.Clone(c).(*pg.Node)
	var sub func(n *pg.Node)
	sub = func(n *pg.Node) {
		if n == nil {
			return
		}
		if cr := n.GetColumnRef(); cr != nil {
			i, _ := outputFor(cr, alias, outs)
			n.Node = proto.Clone(outs[i].exprs[branch]).(*pg.Node).Node
			return
		}
		kids, _ := exprChildren(n)
		for _, k := range kids {
			sub(k)
		}
	}
	sub(c)
	return c
}

// withConjuncts returns a copy of sel with conj added to the WHERE of each
// branch, its columns replaced by that branch's expressions.
func withConjuncts(sel *pg.SelectStmt, conj []*pg.Node, alias string, outs []outColumn) *pg.SelectStmt {
	return withBranchConditions(sel, func(branch int) []*pg.Node {
		var args []*pg.Node
		for _, c := range conj {
			args = append(args, substituteColumns(c, alias, outs, branch))
		}
		return args
	})
}

// withBranchConditions returns a copy of sel with conds(branch) ANDed to
// the WHERE of each branch of its set operations, numbered left to right.
func withBranchConditions(sel *pg.SelectStmt, conds func(branch int) []*pg.Node) *pg.SelectStmt {
	out := proto.Clone(sel).(*pg.SelectStmt)
	branch := 0
	var add func(s *pg.SelectStmt)
	add = func(s *pg.SelectStmt) {
		if s.Op != pg.SetOperation_SETOP_NONE {
			add(s.Larg)
			add(s.Rarg)
			return
		}
		s.WhereClause = boolNode(pg.BoolExprType_AND_EXPR, append(splitAnd(s.WhereClause), conds(branch)...))
		branch++
	}
	add(out)
	return out
}

// planWithPushdown plans FROM entry n, a derived table or a reference to a
// WITH query, with the WHERE conjuncts it can take; ok is false when n is
// neither or no conjunct applies (the caller plans it as usual).
func (qc *QueryCtx) planWithPushdown(n *pg.Node, where *wherePending) (src *Source, ok bool, err error) {
	if where == nil || len(where.conj) == 0 || !qc.ruleOn(RuleSubqueryPushdown) {
		return nil, false, nil
	}
	var sel *pg.SelectStmt
	var alias string
	var colAliases []string
	var cte *CteDef
	switch {
	case n.GetRangeSubselect() != nil:
		rs := n.GetRangeSubselect()
		if rs.Lateral || rs.Alias == nil {
			return nil, false, nil
		}
		sel, alias, colAliases = rs.Subquery.GetSelectStmt(), rs.Alias.Aliasname, StrNodes(rs.Alias.Colnames)
	case n.GetRangeVar() != nil:
		rv := n.GetRangeVar()
		if rv.Schemaname != "" {
			return nil, false, nil
		}
		if cte = qc.lookupCTE(rv.Relname); cte == nil || cte.Recursive || cte.work != nil || cte.Materialized {
			return nil, false, nil
		}
		sel, alias = cte.Query.GetSelectStmt(), rv.Relname
		if rv.Alias != nil {
			alias, colAliases = rv.Alias.Aliasname, StrNodes(rv.Alias.Colnames)
		}
	default:
		return nil, false, nil
	}
	outs := subqueryOutputs(sel)
	if outs == nil {
		return nil, false, nil
	}
	if cte != nil {
		renameOutputs(outs, cte.Colps)
	}
	renameOutputs(outs, colAliases)
	var take, rest []*pg.Node
	for _, c := range where.conj {
		if !hasSubLink(c) && len(columnRefs(c)) > 0 && pushableConjunct(c, alias, outs) {
			take = append(take, c)
		} else {
			rest = append(rest, c)
		}
	}
	if len(take) == 0 {
		return nil, false, nil
	}
	where.conj = rest
	where.pushed = append(where.pushed, take...)
	if cte != nil && cte.runOnce() && !qc.DescribeOnly && qc.sharedBody(cte) != nil {
		// one run for every reference, each filtering the shared rows by
		// its own conjuncts (cte_filter.go)
		qc.fired(ruleCTESharedFilter)
		if src, err = qc.cteSource(cte, alias, colAliases, n.GetRangeVar().Location); err != nil {
			return nil, true, err
		}
		for _, c := range take {
			if src, err = qc.filter(src, c); err != nil {
				return nil, true, err
			}
		}
		return src, true, nil
	}
	qc.fired(RuleSubqueryPushdown)
	filtered := withConjuncts(sel, take, alias, outs)
	if cte != nil {
		own := *cte
		own.Query = &pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: filtered}}
		own.refs, own.mat, own.matQ = 1, nil, nil
		rv := n.GetRangeVar()
		src, err = qc.cteSource(&own, alias, colAliases, rv.Location)
		return src, true, err
	}
	q, err := qc.PlanSelect(filtered)
	if err != nil {
		return nil, true, err
	}
	src, err = querySource(q, alias, colAliases)
	return src, true, err
}

// renameOutputs applies column aliases to the first outputs.
func renameOutputs(outs []outColumn, names []string) {
	for i, name := range names {
		if i < len(outs) {
			outs[i].name = name
		}
	}
}
