package planner

import (
	"sort"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/sql/planner/logical"
	"github.com/lakepg/lakepg/sql/planner/rewrite"
	"github.com/lakepg/lakepg/types"
)

// splitAnd flattens a WHERE tree into its AND-ed conjuncts.
func splitAnd(n *pg.Node) []*pg.Node { return rewrite.SplitAnd(n) }

func hasSubLink(n *pg.Node) bool {
	found := false
	Walk(n, func(x *pg.Node) bool {
		if x.GetSubLink() != nil {
			found = true
		}
		return !found
	})
	return found
}

// columnRefs lists the column references of n outside subqueries.
func columnRefs(n *pg.Node) []*pg.ColumnRef {
	var out []*pg.ColumnRef
	Walk(n, func(x *pg.Node) bool {
		if cr := x.GetColumnRef(); cr != nil {
			out = append(out, cr)
		}
		return x.GetSubLink() == nil
	})
	return out
}

func refNames(cr *pg.ColumnRef) (string, string, bool) { return rewrite.RefNames(cr) }

// refItems returns which items the column references of n resolve to;
// outer is true when some reference resolves in none of them.
func refItems(n *pg.Node, items []*Source) (map[int]bool, bool) {
	set := map[int]bool{}
	outer := false
	for _, cr := range columnRefs(n) {
		t, c, ok := refNames(cr)
		if !ok {
			continue
		}
		hit := false
		for i, it := range items {
			if it.Sc.Resolves(t, c) {
				set[i] = true
				hit = true
			}
		}
		if !hit {
			outer = true
		}
	}
	return set, outer
}

// flattenFrom plans FROM items; inner and cross joins are flattened into the
// item list with their ON conditions returned as conjuncts so the join order
// is chosen freely; outer joins stay as planned units.
//
// where, when not nil, are the WHERE conjuncts not yet placed: those that
// reference only the preserved side of an outer join are taken from it
// and filter that side before the join (outerJoin).
func (qc *QueryCtx) flattenFrom(from []*pg.Node, where *wherePending) ([]*Source, []*pg.Node, error) {
	var items []*Source
	var conj []*pg.Node
	// the outer query of a correlated subquery reaches only its own FROM
	// items, not subqueries planned while planning them
	corr := qc.corr
	qc.corr = nil
	defer func() { qc.corr = corr }()
	var add func(n *pg.Node) error
	add = func(n *pg.Node) error {
		if j := n.GetJoinExpr(); j != nil && j.Jointype == pg.JoinType_JOIN_INNER && len(j.UsingClause) == 0 && !j.IsNatural {
			if err := add(j.Larg); err != nil {
				return err
			}
			if err := add(j.Rarg); err != nil {
				return err
			}
			conj = append(conj, splitAnd(j.Quals)...)
			return nil
		}
		if j := n.GetJoinExpr(); j != nil && reorderableOuter(j) {
			src, inner, err := qc.outerJoin(j, where)
			if err != nil {
				return err
			}
			if !inner {
				items = append(items, src)
				return nil
			}
			// a WHERE conjunct rejects the NULL rows: an inner join, its
			// sides in FROM order
			conj = append(conj, splitAnd(j.Quals)...)
			if j.Jointype == pg.JoinType_JOIN_RIGHT {
				items = append(items, src)
				return add(j.Rarg)
			}
			if err := add(j.Larg); err != nil {
				return err
			}
			items = append(items, src)
			return nil
		}
		if rs := n.GetRangeSubselect(); rs != nil && rs.Lateral && len(items) > 0 {
			// a LATERAL subquery sees the items before it: join those
			// first, then join the subquery to them
			cur, err := qc.joinItems(items, conj)
			if err != nil {
				return err
			}
			conj = nil
			if cur, err = qc.lateral(cur, rs); err != nil {
				return err
			}
			items = []*Source{cur}
			return nil
		}
		if rf := n.GetRangeFunction(); rf != nil {
			var ok bool
			var err error
			if items, conj, ok, err = qc.fromFunction(rf, items, conj, corr); ok || err != nil {
				return err
			}
		}
		src, pushed, err := qc.planWithPushdown(n, where)
		if err != nil {
			return err
		}
		if !pushed {
			if src, err = qc.planFromItem(n); err != nil {
				return err
			}
		}
		items = append(items, src)
		return nil
	}
	for _, n := range from {
		if err := add(n); err != nil {
			return nil, nil, err
		}
	}
	return items, conj, nil
}

// planFromWhere plans FROM and WHERE together: filters pushed to the items
// they reference, a greedy join order over equi-join predicates (the largest
// input probes, smaller ones are built into hash tables), then subquery
// predicates as semi/anti joins.
func (qc *QueryCtx) planFromWhere(from []*pg.Node, where *pg.Node) (*Source, error) {
	if len(from) == 0 {
		src := &Source{op: &exec.Values{Env: qc.env, Rows: [][]exec.Expr{{}}}, Sc: &Scope{}, rows: 1}
		return qc.applyConjuncts(src, splitAnd(where))
	}
	pending := &wherePending{conj: splitAnd(where)}
	items, conj, err := qc.flattenFrom(from, pending)
	if err != nil {
		return nil, err
	}
	conj = append(conj, pending.conj...)
	src, err := qc.joinItems(items, conj)
	if err != nil {
		return nil, err
	}
	if err := qc.checkPushed(pending.pushed, src.Sc); err != nil {
		return nil, err
	}
	return src, nil
}

// factorOr is factorOrs unless the rule is off.
func (qc *QueryCtx) factorOr(conj []*pg.Node) []*pg.Node {
	if !qc.ruleOn(RuleFactorOr) {
		return conj
	}
	out := factorOrs(conj)
	if len(out) != len(conj) {
		qc.fired(RuleFactorOr)
	}
	return out
}

// RewriteWhere is a WHERE condition over one table with the rewrites a
// query makes of its conjuncts (factor_or, then or_ranges), for UPDATE and
// DELETE, which filter their table without planning a query (sql/dml.go):
// their WHERE then prunes and evaluates as a SELECT's does. The parse tree
// is not changed; nil stays nil.
func (qc *QueryCtx) RewriteWhere(where *pg.Node) *pg.Node {
	if where == nil {
		return nil
	}
	conj := qc.factorOr(splitAnd(where))
	for i, c := range conj {
		conj[i] = qc.orRanges(c)
	}
	if len(conj) == 1 {
		return conj[0]
	}
	return &pg.Node{Node: &pg.Node_BoolExpr{BoolExpr: &pg.BoolExpr{Boolop: pg.BoolExprType_AND_EXPR, Args: conj, Location: -1}}}
}

// factorOrs pulls conjuncts common to every branch of an OR out of it:
// (a AND b) OR (a AND c) becomes a AND (b OR c), so a join predicate hidden
// in an OR (TPC-H Q19) can drive a hash join.
func factorOrs(conj []*pg.Node) []*pg.Node {
	var out []*pg.Node
	for _, c := range conj {
		be := c.GetBoolExpr()
		if be == nil || be.Boolop != pg.BoolExprType_OR_EXPR || len(be.Args) < 2 {
			out = append(out, c)
			continue
		}
		branches := make([][]*pg.Node, len(be.Args))
		keys := make([][]string, len(be.Args))
		for i, a := range be.Args {
			branches[i] = splitAnd(a)
			for _, x := range branches[i] {
				keys[i] = append(keys[i], DeparseExpr(x))
			}
		}
		var common []string
		for k, key := range keys[0] {
			inAll := true
			for i := 1; i < len(keys) && inAll; i++ {
				found := false
				for _, other := range keys[i] {
					if other == key {
						found = true
					}
				}
				inAll = found
			}
			if inAll {
				common = append(common, key)
				out = append(out, branches[0][k])
			}
		}
		if len(common) == 0 {
			out = append(out, c)
			continue
		}
		isCommon := func(k string) bool {
			for _, x := range common {
				if x == k {
					return true
				}
			}
			return false
		}
		var rest []*pg.Node
		trivial := false
		for i, br := range branches {
			var left []*pg.Node
			for k, x := range br {
				if !isCommon(keys[i][k]) {
					left = append(left, x)
				}
			}
			switch len(left) {
			case 0:
				trivial = true // this branch is just the common part: the OR holds
			case 1:
				rest = append(rest, left[0])
			default:
				rest = append(rest, &pg.Node{Node: &pg.Node_BoolExpr{BoolExpr: &pg.BoolExpr{Boolop: pg.BoolExprType_AND_EXPR, Args: left, Location: -1}}})
			}
		}
		if !trivial {
			out = append(out, &pg.Node{Node: &pg.Node_BoolExpr{BoolExpr: &pg.BoolExpr{Boolop: pg.BoolExprType_OR_EXPR, Args: rest, Location: be.Location}}})
		}
	}
	return out
}

// deriveOr finds, for an OR spanning several FROM items, the filter it
// implies on each single item: when every branch has conjuncts on item i
// alone, OR(AND(those conjuncts)) holds for every row that can qualify.
// Filtering the item by it before the join (TPC-H Q19: the part rows of
// the three brands) keeps the original OR as the final check.
func deriveOr(c *pg.Node, items []*Source) []*pg.Node {
	be := c.GetBoolExpr()
	if be == nil || be.Boolop != pg.BoolExprType_OR_EXPR {
		return nil
	}
	var out []*pg.Node
	for i := range items {
		var branches []*pg.Node
		for _, a := range be.Args {
			var mine []*pg.Node
			for _, x := range splitAnd(a) {
				if refs, outer := refItems(x, items); !outer && len(refs) == 1 && refs[i] && !hasSubLink(x) {
					mine = append(mine, x)
				}
			}
			if len(mine) == 0 {
				branches = nil
				break
			}
			if len(mine) == 1 {
				branches = append(branches, mine[0])
			} else {
				branches = append(branches, &pg.Node{Node: &pg.Node_BoolExpr{BoolExpr: &pg.BoolExpr{Boolop: pg.BoolExprType_AND_EXPR, Args: mine, Location: -1}}})
			}
		}
		if len(branches) > 0 {
			out = append(out, &pg.Node{Node: &pg.Node_BoolExpr{BoolExpr: &pg.BoolExpr{Boolop: pg.BoolExprType_OR_EXPR, Args: branches, Location: be.Location}}})
		}
	}
	return out
}

// pred is a WHERE/ON conjunct over the FROM items refs it references.
type pred struct {
	n    *pg.Node
	refs map[int]bool
	used bool
}

func (qc *QueryCtx) joinItems(items []*Source, conj []*pg.Node) (*Source, error) {
	conj = qc.factorOr(conj)
	var preds []*pred
	var late []*pg.Node
	for _, c := range conj {
		c = qc.orRanges(c)
		if hasSubLink(c) && !qc.constantSubLinks(c) {
			late = append(late, c)
			continue
		}
		refs, _ := refItems(c, items)
		if len(columnRefs(c)) == 0 && qc.ruleOn(ruleConstantFalse) && qc.neverTrue(c) {
			qc.fired(ruleConstantFalse)
			// a constant false conjunct: every item is empty, no join runs
			for i := range items {
				var err error
				if items[i], err = qc.filter(items[i], c); err != nil {
					return nil, err
				}
			}
			continue
		}
		preds = append(preds, &pred{n: c, refs: refs})
		if len(refs) > 1 {
			for _, d := range deriveOr(c, items) {
				d = qc.orRanges(d)
				dr, _ := refItems(d, items)
				preds = append(preds, &pred{n: d, refs: dr})
			}
		}
	}
	// single-item filters go right above their item (and prune its
	// files), one Filter each: a stack narrows the rows the next one
	// evaluates, faster than one conjunction (TPC-H Q6: 109 vs 182 ms);
	// the estimator reads a stack as one conjunction, so the estimate does
	// not depend on the order they are written in. Items to be joined are
	// logical nodes (a lake table's Get, its Filters) built into operators
	// here, once, for the estimates and the subqueries below; the join
	// graph over them, and the SELECT block over the joins, reuse those
	// operators (QueryCtx.built).
	// An explicit JOIN's node stays itself under its filters, a lone item
	// too: the outer-join rules (optimize/outer_join_*.go) rewrite it
	// under them first (optimizeItem), the join graph's predicates after.
	var nodes, joins []logical.Node
	empty := false // an item reads nothing (constant_false)
	pb := qc.builder()
	if len(items) > 1 || items[0].node != nil && items[0].op == items[0].nodeOp {
		nodes, joins = make([]logical.Node, len(items)), make([]logical.Node, len(items))
		for i, it := range items {
			if nodes[i] = itemNode(it); nodes[i] == it.node {
				joins[i] = nodes[i]
				pb.Built[it.node] = it.op // as joinPlanned built it
			}
		}
	}
	for _, p := range preds {
		if len(p.refs) != 1 {
			continue
		}
		for i := range p.refs {
			var err error
			if nodes == nil {
				items[i], err = qc.filter(items[i], p.n)
			} else {
				var pred exec.Expr
				if items[i], pred, err = qc.filtered(items[i], p.n); pred != nil {
					nodes[i] = &logical.Filter{Input: nodes[i], Pred: pred}
				} else if err == nil {
					nodes[i] = itemNode(items[i]) // nothing to read
					empty = true
				}
			}
			if err != nil {
				return nil, err
			}
		}
		p.used = true
	}
	if empty {
		// an inner join with an item that has no rows has none: no item
		// is read (PostgreSQL's planner makes the whole join a dummy
		// relation, so an aggregation on another side never runs)
		for i, it := range items {
			e := *it
			e.op = &exec.Values{Env: qc.env, T: it.op.Types()}
			e.scans, e.Ref, e.rows, e.node, e.nodeOp = nil, nil, 0, nil, nil
			items[i], nodes[i], joins[i] = &e, itemNode(&e), nil
		}
	}
	built := make([]exec.Operator, len(nodes))
	for i := range nodes {
		var err error
		if joins[i] != nil && nodes[i] != joins[i] {
			if nodes[i], err = qc.optimizeItem(nodes[i]); err != nil {
				return nil, err
			}
		}
		if built[i], err = pb.Build(nodes[i]); err != nil {
			return nil, err
		}
		items[i].op, items[i].node, items[i].nodeOp = built[i], nodes[i], built[i]
	}
	if done, err := qc.semiJoinsFirst(items, late); err != nil {
		return nil, err
	} else if done {
		late = nil
	}
	late, err := qc.scalarSubqueriesFirst(items, late) // subquery_narrow.go
	if err != nil {
		return nil, err
	}
	for i := range nodes {
		if items[i].op != built[i] {
			// a semi join on it, as semiAnti built it
			if nodes[i] = itemNode(items[i]); nodes[i] == items[i].node {
				pb.Built[nodes[i]] = items[i].op
			}
		}
	}
	cur := items[0]
	if len(items) > 1 {
		var err error
		if cur, err = qc.orderJoins(items, nodes, preds); err != nil {
			return nil, err
		}
	} else {
		// a lone item's rows are estimated now all the same: the
		// estimator keeps an operator's estimate from the first time it is
		// asked, and what it finds depends on when (TPC-H Q15's WITH query,
		// its aggregation of lineitem read through a MaterializedReader,
		// came out at 1.5 M rows instead of 9,902 when first asked by the
		// join above it, which then turned)
		qc.planEstimator().N(cur.op)
	}
	for _, p := range preds {
		if !p.used {
			var err error
			if cur, err = qc.filter(cur, p.n); err != nil {
				return nil, err
			}
		}
	}
	return qc.applyConjuncts(cur, late)
}

// optimizeItem runs the optimizer's rules over FROM item n, an explicit
// JOIN under the WHERE conditions on it alone, and records the plan for
// EXPLAIN (LOGICAL).
func (qc *QueryCtx) optimizeItem(n logical.Node) (logical.Node, error) {
	n, err := qc.optimizeNode(n)
	if err == nil && qc.s.logicalPlans != nil {
		*qc.s.logicalPlans = append(*qc.s.logicalPlans, logical.String(n))
	}
	return n, err
}

// itemNode is FROM item src as a node of a logical plan: the plan of an
// explicit JOIN (the rules over the FROM list may rewrite it), else
// leafNode.
func itemNode(src *Source) logical.Node {
	if src.node != nil && src.op == src.nodeOp {
		return src.node
	}
	return leafNode(src)
}

// leafNode is FROM item src as a leaf of a logical plan: a lake table's
// Get, or the operators planned for it.
func leafNode(src *Source) logical.Node {
	cols := make([]logical.Column, len(src.Sc.Cols))
	for i, c := range src.Sc.Cols {
		cols[i] = logical.Column{Name: c.Name, Type: c.T}
	}
	if scan, ok := src.op.(*exec.TableScan); ok {
		g := &logical.Get{Scan: scan, Cols: cols}
		if ref := src.Ref; ref != nil && ref.Scan == scan {
			g.Prune = func(pred exec.Expr) { PushFilters(ref, pred) }
		}
		return g
	}
	p := plannedOp(src.op)
	for i := range min(len(p.Cols), len(cols)) {
		p.Cols[i].Name = cols[i].Name
	}
	return p
}

// key names a FROM item by the tables and columns it reads, to break ties
// between items alike in size and selectivity the same way however the
// query lists them.
func (src *Source) key() string {
	var sb strings.Builder
	for _, c := range src.Sc.Cols {
		sb.WriteString(c.Table)
		sb.WriteByte('.')
		sb.WriteString(c.Name)
		sb.WriteByte(',')
	}
	return sb.String()
}

// semiJoinsFirst applies the subquery conjuncts late to the FROM items
// before they are joined, when each is an uncorrelated [NOT] IN over one
// item, like any other filter on that item (TPC-H Q18: the 57 big orders
// meet lineitem, not the 6 M joined rows); done reports that it did. Only
// when every subquery conjunct is such an IN, and only with joins to save:
// the planning of the others (decorrelation with run-time join filters)
// expects base items under them.
func (qc *QueryCtx) semiJoinsFirst(items []*Source, late []*pg.Node) (done bool, err error) {
	if len(items) < 2 || len(late) == 0 {
		return false, nil
	}
	target := make([]int, len(late))
	for k, c := range late {
		i, ok := earlySemiJoinItem(c, items)
		if !ok {
			return false, nil
		}
		target[k] = i
	}
	// planning a subquery leaves traces in qc: only now that every shape
	// qualifies is each checked to be uncorrelated
	for _, c := range late {
		if _, ok, err := qc.Standalone(innerSubLink(c).Subselect.GetSelectStmt()); err != nil || !ok {
			return false, nil
		}
	}
	for k, c := range late {
		i := target[k]
		src, err := qc.subqueryConjunct(items[i], c)
		if err != nil {
			return false, err
		}
		items[i] = src
	}
	return true, nil
}

// earlySemiJoinItem reports the one FROM item a [NOT] IN conjunct c
// depends on, so that it can filter that item before the joins; false for
// any other conjunct, and for an IN whose subquery is not plain (joins,
// derived tables, subqueries of its own). The caller still checks that the subquery is uncorrelated (a
// correlated one reads columns of items that are joined later).
func earlySemiJoinItem(c *pg.Node, items []*Source) (int, bool) {
	sl := innerSubLink(c)
	// an uncorrelated EXISTS reads no item: only IN has a side to filter
	if sl == nil || sl.SubLinkType != pg.SubLinkType_ANY_SUBLINK || sl.Testexpr == nil {
		return 0, false
	}
	if op := StrNodes(sl.OperName); len(op) > 0 && op[len(op)-1] != "=" {
		return 0, false
	}
	if !plainSubquery(sl.Subselect.GetSelectStmt()) {
		return 0, false
	}
	refs, outer := refItems(sl.Testexpr, items)
	if outer || len(refs) != 1 {
		return 0, false
	}
	for i := range refs {
		return i, true
	}
	return 0, false
}

// plainSubquery is true for a SELECT over base tables without WITH, set
// operations or subqueries outside its WHERE. A subquery in the WHERE is
// planned with it (TPC-DS q58: the dates of the week of one date), and the
// caller's standalone check sees any correlation it has.
func plainSubquery(sel *pg.SelectStmt) bool {
	if sel == nil || sel.Op != pg.SetOperation_SETOP_NONE || sel.WithClause != nil || len(sel.ValuesLists) > 0 {
		return false
	}
	for _, f := range sel.FromClause {
		if f.GetRangeVar() == nil {
			return false
		}
	}
	for _, t := range sel.TargetList {
		if hasSubLink(t) || (t.GetResTarget() != nil && hasSubLink(t.GetResTarget().Val)) {
			return false
		}
	}
	for _, g := range sel.GroupClause {
		if hasSubLink(g) {
			return false
		}
	}
	return !hasSubLink(sel.HavingClause)
}

// innerSubLink is the SubLink of c or of NOT c, or nil.
func innerSubLink(c *pg.Node) *pg.SubLink {
	if be := c.GetBoolExpr(); be != nil && be.Boolop == pg.BoolExprType_NOT_EXPR && len(be.Args) == 1 {
		c = be.Args[0]
	}
	return c.GetSubLink()
}

func concatScope(a, b *Scope) *Scope {
	return &Scope{Cols: append(append([]ScopeCol{}, a.Cols...), b.Cols...)}
}

func isEquality(n *pg.Node) bool { return rewrite.IsEquality(n) }

// equiKeys recognises "l = r" where one side resolves in ls only and the
// other in rs only, returning both bound and cast to a common type.
func (qc *QueryCtx) equiKeys(n *pg.Node, ls, rs *Scope) (exec.Expr, exec.Expr, bool, error) {
	if !isEquality(n) {
		return nil, nil, false, nil
	}
	a := n.GetAExpr()
	only := func(x *pg.Node, sc *Scope) bool {
		crs := columnRefs(x)
		if len(crs) == 0 || hasSubLink(x) {
			return false
		}
		for _, cr := range crs {
			t, c, ok := refNames(cr)
			if !ok || !sc.Resolves(t, c) {
				return false
			}
		}
		return true
	}
	lx, rx := a.Lexpr, a.Rexpr
	switch {
	case only(lx, ls) && only(rx, rs) && !only(lx, rs) && !only(rx, ls):
	case only(rx, ls) && only(lx, rs) && !only(rx, rs) && !only(lx, ls):
		lx, rx = rx, lx
	default:
		return nil, nil, false, nil
	}
	b := qc.binder()
	le, err := b.Bind(lx, ls)
	if err != nil {
		return nil, nil, false, err
	}
	re, err := b.Bind(rx, rs)
	if err != nil {
		return nil, nil, false, err
	}
	cmp, err := b.BinaryOp("=", le, re, a.Location)
	if err != nil {
		return nil, nil, false, err
	}
	c, ok := cmp.(*exec.Cmp)
	if !ok {
		return nil, nil, false, nil
	}
	// the comparison may have cast its sides; hash keys must share a type
	lt, rt := c.L.Type(), c.R.Type()
	if lt != rt {
		if lt.ID != types.Numeric || rt.ID != types.Numeric {
			return nil, nil, false, nil
		}
		t := numericKeyType(lt, rt)
		l2, err := b.Cast(c.L, t, false, -1)
		if err != nil {
			return nil, nil, false, err
		}
		r2, err := b.Cast(c.R, t, false, -1)
		if err != nil {
			return nil, nil, false, err
		}
		return l2, r2, true, nil
	}
	return c.L, c.R, true, nil
}

// numericKeyType is the type two numeric join keys are hashed as: a
// scaled int64 when both sides' digits fit one (bigint is numeric(19,0),
// so with a fraction it does not), else exact text.
func numericKeyType(lt, rt types.T) types.T {
	if lt.Scale >= 0 && rt.Scale >= 0 && lt.Precision > 0 && rt.Precision > 0 {
		scale := max(lt.Scale, rt.Scale)
		if max(lt.Precision-lt.Scale, rt.Precision-rt.Scale)+scale <= 18 {
			return types.T{ID: types.Numeric, Precision: 18, Scale: scale}
		}
	}
	return types.NumericAnyT
}

// filter binds a predicate over src and filters it, pruning files of a
// single base table by it.
func (qc *QueryCtx) filter(src *Source, n *pg.Node) (*Source, error) {
	out, pred, err := qc.filtered(src, n)
	if err != nil || pred == nil {
		return out, err
	}
	out.op = &exec.Filter{Env: qc.env, Input: src.op, Pred: pred}
	// the filter as a node over src's, built already: filtered has pruned
	// src's files by pred, which building a Filter over a Get would again
	out.node, out.nodeOp = &logical.Filter{Input: itemNode(src), Pred: pred}, out.op
	qc.built[out.node] = out.op
	return out, nil
}

// filtered is src as predicate n filters it, but for its operators: n
// bound over it (pred), its files pruned by it and its rows estimated. A
// constant false or NULL reads nothing of src (a UNION ALL branch whose
// constant column a pushed-down conjunct rules out): out's operator is
// then empty, pred nil.
func (qc *QueryCtx) filtered(src *Source, n *pg.Node) (out *Source, pred exec.Expr, err error) {
	if pred, err = qc.bindWhere(n, src.Sc); err != nil {
		return nil, nil, err
	}
	o := *src
	if qc.ruleOn(ruleConstantFalse) && exec.NeverTrue(qc.env, pred) {
		qc.fired(ruleConstantFalse)
		o.op = &exec.Values{Env: qc.env, T: src.op.Types()}
		o.scans, o.Ref, o.rows = nil, nil, 0
		return &o, nil, nil
	}
	if src.Ref != nil {
		PushFilters(src.Ref, pred)
	}
	o.rows = src.rows * 0.3
	return &o, pred, nil
}

// bindWhere binds WHERE conjunct n over sc.
func (qc *QueryCtx) bindWhere(n *pg.Node, sc *Scope) (exec.Expr, error) {
	b := qc.binder()
	b.NoAggMsg = "aggregate functions are not allowed in WHERE"
	pred, err := b.Bind(n, sc)
	if err != nil {
		return nil, err
	}
	return b.CoerceBool(pred, n, "argument of WHERE")
}

// constantSubLinks reports a conjunct whose subqueries are all scalar and
// uncorrelated: each is run once while planning and becomes a constant,
// so the conjunct filters its one table like any other (TPC-DS q6:
// d_month_seq = (SELECT DISTINCT d_month_seq …) filtered the join of five
// tables instead of date_dim, whose files it prunes).
func (qc *QueryCtx) constantSubLinks(c *pg.Node) bool {
	var subs []*pg.SubLink
	Walk(c, func(x *pg.Node) bool {
		if sl := x.GetSubLink(); sl != nil {
			subs = append(subs, sl)
		}
		return true
	})
	for _, sl := range subs {
		if sl.SubLinkType != pg.SubLinkType_EXPR_SUBLINK {
			return false
		}
		if _, ok, err := qc.Standalone(sl.Subselect.GetSelectStmt()); err != nil || !ok {
			return false
		}
	}
	return len(subs) > 0
}

// neverTrue reports a conjunct without columns that is a constant false
// or NULL.
func (qc *QueryCtx) neverTrue(n *pg.Node) bool {
	b := qc.binder()
	e, err := b.Bind(n, &Scope{})
	return err == nil && exec.NeverTrue(qc.env, e)
}

// applyConjuncts applies predicates that contain subqueries.
func (qc *QueryCtx) applyConjuncts(cur *Source, conj []*pg.Node) (*Source, error) {
	for _, c := range subqueryConjunctOrder(conj) {
		var err error
		if cur, err = qc.subqueryConjunct(cur, c); err != nil {
			return nil, err
		}
	}
	return cur, nil
}

// subqueryConjunctOrder is the order conditions with subqueries are
// applied in, whatever order they are written in: IN/ANY (a semi join,
// usually the cheapest filter) first, then EXISTS, then the rest (scalar
// subqueries compared, ALL), each kind by its text. TPC-H q20 written with
// its two conditions swapped planned the correlated sum before the IN
// and cost four times as much.
func subqueryConjunctOrder(conj []*pg.Node) []*pg.Node {
	if len(conj) < 2 {
		return conj
	}
	kind := func(c *pg.Node) int {
		if sl := innerSubLink(c); sl != nil {
			switch sl.SubLinkType {
			case pg.SubLinkType_ANY_SUBLINK:
				return 0
			case pg.SubLinkType_EXISTS_SUBLINK:
				return 1
			}
		}
		return 2
	}
	type keyed struct {
		c    *pg.Node
		kind int
		text string
	}
	ks := make([]keyed, len(conj))
	for i, c := range conj {
		ks[i] = keyed{c, kind(c), DeparseExpr(c)}
	}
	sort.SliceStable(ks, func(i, j int) bool {
		if ks[i].kind != ks[j].kind {
			return ks[i].kind < ks[j].kind
		}
		return ks[i].text < ks[j].text
	})
	out := make([]*pg.Node, len(ks))
	for i, k := range ks {
		out[i] = k.c
	}
	return out
}
