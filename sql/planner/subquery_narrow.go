package planner

import (
	"slices"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/order"
	"github.com/lakepg/lakepg/sql/planner/bind"
	"github.com/lakepg/lakepg/types"
)

// scalarJoinNarrow is scalarJoinGeneral for an outer row wider than what
// the subquery reads of it: only the row's number and the outer columns
// the correlation and the value read go through the join with the inner
// rows and the aggregation per row, and the value meets the whole outer
// row again by its number. The join makes a row per outer row and match,
// so carrying every outer column multiplied the work: a price above the
// average of the cheaper items of its category (item × item on the
// category, 16 M pairs at TPC-DS SF1) grouped all 22 columns of item per
// pair. ok is false when narrowing saves nothing or the value reads the
// outer row in a way this cannot follow; the caller plans it the general
// way then.
func (qc *QueryCtx) scalarJoinNarrow(cur *Source, cr *correlated, sl *pg.SubLink, target *pg.Node, lkeys, rkeys []exec.Expr, extra exec.Expr) (*Source, bool, error) {
	nOuter := len(cur.Sc.Cols)
	read := make([]bool, nOuter)
	note := func(e exec.Expr) {
		exec.MapColumns(e, func(i int) int {
			if i < nOuter {
				read[i] = true
			}
			return i
		})
	}
	for _, k := range lkeys {
		note(k)
	}
	if extra != nil {
		note(extra)
	}
	for _, ref := range columnRefs(target) {
		t, c, ok := refNames(ref)
		if !ok {
			return nil, false, nil
		}
		if cr.inner.Sc.Resolves(t, c) {
			continue
		}
		for i, sc := range cur.Sc.Cols {
			if sc.Name == c && (t == "" || sc.Table == t) {
				read[i] = true
			}
		}
	}
	var cols []int // the outer columns read, in order
	pos := make([]int, nOuter)
	for i, r := range read {
		if r {
			pos[i] = len(cols)
			cols = append(cols, i)
		}
	}
	if len(cols) == nOuter {
		return nil, false, nil
	}
	nc := len(cols)
	// the narrow outer side: the columns read, then the row's number
	mat := &exec.Materialized{Input: &exec.RowNumber{Input: cur.op}}
	narrowExprs := make([]exec.Expr, 0, nc+1)
	narrow := &Scope{}
	for _, i := range cols {
		narrowExprs = append(narrowExprs, &exec.ColRef{Idx: i, T: cur.Sc.Cols[i].T})
		narrow.Cols = append(narrow.Cols, cur.Sc.Cols[i])
	}
	narrowExprs = append(narrowExprs, &exec.ColRef{Idx: nOuter, T: types.Int64T})
	toNarrow := func(e exec.Expr, innerAt int) exec.Expr {
		return exec.MapColumns(e, func(i int) int {
			if i < nOuter {
				return pos[i]
			}
			return i - nOuter + innerAt
		})
	}
	lk := make([]exec.Expr, len(lkeys))
	for i, k := range lkeys {
		lk[i] = toNarrow(k, 0)
	}
	if extra != nil {
		extra = toNarrow(extra, nc+1) // inner after the number
	}
	innerExprs := []exec.Expr{}
	for i, c := range cr.inner.Sc.Cols {
		innerExprs = append(innerExprs, &exec.ColRef{Idx: i, T: c.T})
	}
	innerExprs = append(innerExprs, exec.NewConst(int64Vec(1))) // matched: count(*) counts these
	left := &exec.Project{Env: qc.env, Input: mat.Reader(), Exprs: narrowExprs}
	innerOp := &exec.Project{Env: qc.env, Input: cr.inner.op, Exprs: innerExprs}
	var join exec.Operator
	if len(lk) > 0 {
		join = &exec.HashJoin{Env: qc.env, Left: left, Right: innerOp, LeftKeys: lk, RightKeys: rkeys, Extra: extra, Type: exec.JoinLeft}
	} else {
		join = &exec.NestedLoopJoin{Env: qc.env, Left: left, Right: innerOp, On: extra, Type: exec.JoinLeft}
	}
	// group per outer row (its number), the columns read beside it as keys
	// the value may read, bound as in scalarJoinGeneral
	js := &Scope{Cols: append(slices.Clone(cr.inner.Sc.Cols), ScopeCol{Name: "\x00marker", T: types.Int64T})}
	nJS := len(js.Cols)
	groups := []exec.Expr{&exec.ColRef{Idx: nc, T: types.Int64T}}
	coll := &bind.AggCollector{Groups: []exec.Expr{groups[0]}, GroupKeys: []string{"\x00rn"}, GroupCols: []int{-1}}
	for i, c := range narrow.Cols {
		groups = append(groups, &exec.ColRef{Idx: i, T: c.T})
		coll.Groups = append(coll.Groups, groups[len(groups)-1])
		coll.GroupKeys = append(coll.GroupKeys, "\x00outer"+Itoa(i))
		coll.GroupCols = append(coll.GroupCols, nJS+i)
	}
	pb := &postBinder{Binder: Binder{Sess: qc.s, Env: qc.env, Params: qc.params, Aggs: coll, Qc: qc}, coll: coll, in: innerFirst(js, narrow)}
	val, err := bindScalarValue(pb, target, true)
	if err != nil {
		return nil, false, nil // nothing opened yet: the general way binds it again
	}
	shift := nc + 1
	agg := coll.Plan(qc.env, join, groups, func(e exec.Expr) exec.Expr {
		return exec.MapColumns(e, func(i int) int {
			if i < nJS {
				return i + shift
			}
			return i - nJS
		})
	})
	ng := len(groups)
	perRow := &exec.Project{Env: qc.env, Input: agg, Exprs: []exec.Expr{
		&exec.ColRef{Idx: 0, T: types.Int64T},
		exec.MapColumns(val, func(i int) int { return i + ng - len(coll.Groups) })}}
	// every outer row has its value: the left join kept it
	back := &exec.HashJoin{Env: qc.env, Left: mat.Reader(), Right: perRow,
		LeftKeys: []exec.Expr{&exec.ColRef{Idx: nOuter, T: types.Int64T}}, RightKeys: []exec.Expr{&exec.ColRef{Idx: 0, T: types.Int64T}}, Type: exec.JoinInner}
	var op exec.Operator = &order.Sort{Input: back, Keys: []order.SortKey{{Col: nOuter}}} // the outer rows' order
	outs := make([]exec.Expr, 0, nOuter+1)
	for i, c := range cur.Sc.Cols {
		outs = append(outs, &exec.ColRef{Idx: i, T: c.T})
	}
	outs = append(outs, &exec.ColRef{Idx: nOuter + 2, T: val.Type()})
	op = &exec.Project{Env: qc.env, Input: op, Exprs: outs}
	sc := &Scope{Cols: append(slices.Clone(cur.Sc.Cols), ScopeCol{Name: "\x00sub", T: val.Type()})}
	qc.subCols[sl] = &exec.ColRef{Idx: nOuter, T: val.Type()}
	return &Source{op: op, Sc: sc, scans: append(slices.Clone(cur.scans), cr.inner.scans...), rows: cur.rows}, true, nil
}

// scalarSubqueriesFirst applies each WHERE conjunct over one FROM item
// that compares it with a correlated scalar subquery reading only that
// item's columns to the item before the joins (rule
// correlated_subquery_first), as semiJoinsFirst does for IN: the item's
// rows the condition drops then drop out of the joins' key filters too.
// TPC-DS q6 keeps the items priced above 1.2 times their category's
// average before store_sales meets item, not the month's sales of every
// item. It returns the conjuncts left for after the joins.
func (qc *QueryCtx) scalarSubqueriesFirst(items []*Source, late []*pg.Node) ([]*pg.Node, error) {
	if len(items) < 2 || !qc.ruleOn(ruleSubqueryFirst) {
		return late, nil
	}
	est := qc.planEstimator()
	var rest []*pg.Node
	for _, c := range late {
		i, ok := qc.oneItemScalar(c, items)
		// only for an item smaller than another: the largest is better
		// met by the joins first, whose key filters shrink what the
		// subquery's decorrelated aggregation reads (TPC-H Q17's part
		// averages over the lineitem rows of the parts kept)
		bigger := false
		for j, it := range items {
			bigger = bigger || ok && j != i && est.N(it.op) > est.N(items[i].op)
		}
		if !bigger {
			rest = append(rest, c)
			continue
		}
		src, err := qc.subqueryConjunct(items[i], c)
		if err != nil {
			return nil, err
		}
		items[i] = src
		qc.fired(ruleSubqueryFirst)
	}
	return rest, nil
}

// oneItemScalar reports the FROM item a conjunct reads when it reads one,
// holds exactly one scalar subquery, and that subquery's references to
// enclosing queries are qualified columns of that item alone (a name of
// the subquery's own FROM is its own; an unqualified one could be either).
func (qc *QueryCtx) oneItemScalar(c *pg.Node, items []*Source) (int, bool) {
	var subs []*pg.SubLink
	Walk(c, func(x *pg.Node) bool {
		if sl := x.GetSubLink(); sl != nil {
			subs = append(subs, sl)
			return false
		}
		return true
	})
	if len(subs) != 1 || subs[0].SubLinkType != pg.SubLinkType_EXPR_SUBLINK {
		return 0, false
	}
	refs, outer := refItems(c, items)
	if outer || len(refs) != 1 {
		return 0, false
	}
	item := -1
	for i := range refs {
		item = i
	}
	sel := subs[0].Subselect.GetSelectStmt()
	if sel == nil || sel.WithClause != nil || sel.Op != pg.SetOperation_SETOP_NONE {
		return 0, false
	}
	own := map[string]bool{}
	for _, f := range sel.FromClause {
		rv := f.GetRangeVar()
		if rv == nil {
			return 0, false
		}
		if rv.Alias != nil {
			own[rv.Alias.Aliasname] = true // the alias hides the table's name
		} else {
			own[rv.Relname] = true
		}
	}
	correlated, ok := false, true
	EachMessage(sel.ProtoReflect(), func(m protoreflect.Message) {
		cr, isRef := m.Interface().(*pg.ColumnRef)
		if !isRef || !ok {
			return
		}
		t, name, named := refNames(cr)
		switch {
		case !named:
			ok = false
		case t == "" || own[t]:
			// the subquery's own column, unless another item has the name
			for j, it := range items {
				if t == "" && j != item && it.Sc.Resolves("", name) {
					ok = false
				}
			}
		case items[item].Sc.Resolves(t, name):
			correlated = true
			for j, it := range items {
				if j != item && it.Sc.Resolves(t, name) {
					ok = false
				}
			}
		default:
			ok = false
		}
	})
	return item, ok && correlated
}
