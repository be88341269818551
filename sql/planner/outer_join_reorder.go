package planner

import (
	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/lakepg/lakepg/exec"
)

// innerBelowOuter is the rule outer_join_reorder. A FROM list of tables
// and one LEFT JOIN of two tables, (K LEFT JOIN N ON q), C1, …, Ck, is
// planned as ((K, C1, …, Ck) LEFT JOIN N ON q): every row of K × C meets
// the same rows of N through q, which reads only K and N, so the inner
// joins may run first, with WHERE's conditions on K and the Ci pushed
// below the outer join (outer_join_pushdown). TPC-DS q80 joins 2.9 M
// store_sales rows with their returns and only then with the 30 dates
// that keep 2 % of them; q40 and q78 are alike.
//
// It returns the new FROM list, WHERE with the ON conditions of the inner
// joins it flattened, and the FROM items' names in the order written,
// which planFromWhere gives the columns back in. ok is false when FROM has
// another shape: a table name twice, an item other than a table, more than
// one outer join, USING, NATURAL or an alias on the join.
func (qc *QueryCtx) innerBelowOuter(from []*pg.Node, where *pg.Node) (newFrom []*pg.Node, newWhere *pg.Node, names []string, ok bool) {
	if !qc.ruleOn(ruleOuterJoinReorder) {
		return nil, nil, nil, false
	}
	var leaves, quals []*pg.Node
	var flatten func(n *pg.Node)
	flatten = func(n *pg.Node) {
		if j := n.GetJoinExpr(); j != nil && j.Jointype == pg.JoinType_JOIN_INNER && len(j.UsingClause) == 0 && !j.IsNatural && j.Alias == nil {
			quals = append(quals, splitAnd(j.Quals)...)
			flatten(j.Larg)
			flatten(j.Rarg)
			return
		}
		leaves = append(leaves, n)
	}
	for _, n := range from {
		flatten(n)
	}
	var outer *pg.JoinExpr
	var reach [2]string // the names the ON condition reads
	var others []*pg.Node
	seen := map[string]bool{}
	name := func(n *pg.Node) (string, bool) {
		rv := n.GetRangeVar()
		if rv == nil || !rv.Inh {
			return "", false // not a table, or ONLY
		}
		s := rv.Relname
		if rv.Alias != nil {
			if len(rv.Alias.Colnames) > 0 {
				return "", false
			}
			s = rv.Alias.Aliasname
		}
		if seen[s] {
			return "", false
		}
		seen[s] = true
		return s, true
	}
	for _, n := range leaves {
		if j := n.GetJoinExpr(); j != nil && j.Jointype == pg.JoinType_JOIN_LEFT && outer == nil && reorderableOuter(j) {
			k, okK := name(j.Larg)
			nn, okN := name(j.Rarg)
			if !okK || !okN {
				return nil, nil, nil, false
			}
			outer, reach = j, [2]string{k, nn}
			names = append(names, k, nn)
			continue
		}
		s, ok := name(n)
		if !ok {
			return nil, nil, nil, false
		}
		names = append(names, s)
		others = append(others, n)
	}
	if outer == nil || len(others) == 0 {
		return nil, nil, nil, false
	}
	keep := outer.Larg
	for _, c := range others {
		keep = &pg.Node{Node: &pg.Node_JoinExpr{JoinExpr: &pg.JoinExpr{Jointype: pg.JoinType_JOIN_INNER, Larg: keep, Rarg: c}}}
	}
	j := &pg.JoinExpr{Jointype: pg.JoinType_JOIN_LEFT, Larg: keep, Rarg: outer.Rarg, Quals: outer.Quals, Rtindex: outer.Rtindex}
	if qc.onReaches == nil {
		qc.onReaches = map[*pg.JoinExpr][2]string{}
	}
	qc.onReaches[j] = reach
	newWhere = where
	if len(quals) > 0 {
		newWhere = &pg.Node{Node: &pg.Node_BoolExpr{BoolExpr: &pg.BoolExpr{Boolop: pg.BoolExprType_AND_EXPR,
			Args: append(append([]*pg.Node{}, quals...), splitAnd(where)...), Location: -1}}}
	}
	qc.fired(ruleOuterJoinReorder)
	return []*pg.Node{{Node: &pg.Node_JoinExpr{JoinExpr: j}}}, newWhere, names, true
}

// onScope hides, from the ON condition of a join innerBelowOuter made,
// the tables it moved below the join: the condition reads only the two
// tables it was written between, as PostgreSQL resolves it.
func (qc *QueryCtx) onScope(j *pg.JoinExpr, l *Source) *Source {
	reach, ok := qc.onReaches[j]
	if !ok {
		return l
	}
	sc := &Scope{Cols: make([]ScopeCol, len(l.Sc.Cols)), Shadow: l.Sc.Shadow}
	for i, c := range l.Sc.Cols {
		if c.Table != reach[0] && c.Table != reach[1] {
			c.Table, c.Name = "\x00", "\x00"
		}
		sc.Cols[i] = c
	}
	out := *l
	out.Sc = sc
	return &out
}

// onScopeRestored gives the join's output the names onScope hid.
func onScopeRestored(out, l *Source) *Source {
	if out == nil || len(out.Sc.Cols) < len(l.Sc.Cols) {
		return out
	}
	sc := &Scope{Cols: append(append([]ScopeCol{}, l.Sc.Cols...), out.Sc.Cols[len(l.Sc.Cols):]...), Shadow: out.Sc.Shadow}
	o := *out
	o.Sc = sc
	return &o
}

// inNameOrder puts the columns of src, the plan of a FROM list
// innerBelowOuter rewrote, back in the order of the tables as written.
// Columns of no FROM item (those a correlated subquery in WHERE joined
// in) stay after them, in their order, as without the rewrite.
func (qc *QueryCtx) inNameOrder(src *Source, names []string) *Source {
	var exprs []exec.Expr
	sc := &Scope{}
	ts := src.op.Types()
	taken := make([]bool, len(src.Sc.Cols))
	inOrder := true
	take := func(i int) {
		inOrder = inOrder && i == len(exprs)
		taken[i] = true
		exprs = append(exprs, &exec.ColRef{Idx: i, T: ts[i]})
		sc.Cols = append(sc.Cols, src.Sc.Cols[i])
	}
	for _, n := range names {
		for i, c := range src.Sc.Cols {
			if c.Table == n && !taken[i] {
				take(i)
			}
		}
	}
	for i := range src.Sc.Cols {
		if !taken[i] {
			take(i)
		}
	}
	if inOrder {
		return src
	}
	out := *src
	out.op = &exec.Project{Env: qc.env, Input: src.op, Exprs: exprs}
	out.Sc = sc
	return &out
}
