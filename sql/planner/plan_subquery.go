package planner

import (
	"context"
	"maps"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/aggregate"
	"github.com/lakepg/lakepg/exec/order"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/sql/planner/bind"
	"github.com/lakepg/lakepg/sql/planner/logical"
	"github.com/lakepg/lakepg/sql/planner/optree"
	"github.com/lakepg/lakepg/types"
)

// Subqueries are planned as joins, never run per outer row:
//   - EXISTS / NOT EXISTS / IN / NOT IN predicates become semi and anti joins
//     whose keys are the correlated equalities and whose residual holds the
//     other correlated predicates;
//   - a correlated scalar aggregate subquery becomes a grouped derived table
//     (grouped by its correlation keys) left-joined to the outer rows, or, for
//     non-equality correlation, an outer join of numbered outer rows grouped
//     back by row number;
//   - uncorrelated subqueries elsewhere in expressions run once, at planning.

// Standalone plans sel without any outer scope; ok is false when it
// references outer columns (it is correlated).
func (qc *QueryCtx) Standalone(sel *pg.SelectStmt) (*query, bool, error) {
	return qc.standaloneIn(sel, nil)
}

// standaloneIn is standalone for a subquery of a query whose columns are
// sc: under per-key planning (apply_plan.go) those names are not the
// enclosing rows' constants, so a reference to them is a correlation.
func (qc *QueryCtx) standaloneIn(sel *pg.SelectStmt, sc *Scope) (*query, bool, error) {
	sub := *qc
	// the subquery's own correlated subqueries are joined into its plan:
	// their columns must not reach the enclosing query's plan, nor another
	// planning of this subquery (a nested correlation panicked reading a
	// column of a plan it was not in)
	sub.subCols, sub.srfCols = maps.Clone(qc.subCols), maps.Clone(qc.srfCols)
	if sc != nil && len(qc.outer) > 0 {
		sub.outer = append(qc.outer[:len(qc.outer):len(qc.outer)], &outerFrame{sc: sc, barrier: true})
	}
	q, err := sub.PlanSelect(sel)
	if err != nil {
		if pe, ok := pgerr.As(err); ok && (pe.Code == pgerr.UndefinedColumn || (pe.Code == pgerr.UndefinedTable && len(pe.Message) > 7 && pe.Message[:7] == "missing")) {
			return nil, false, nil
		}
		return nil, false, err
	}
	return q, true, nil
}

// correlated splits a correlated subquery: its FROM items joined with the
// predicates that only reference them, and the predicates that reach out.
type correlated struct {
	inner *Source
	outer []*pg.Node
	// cur is the outer side to join with: cur as given, or the numbered
	// outer rows when a function in FROM read them (srf_plan.go)
	cur *Source
}

func (qc *QueryCtx) splitCorrelated(sel *pg.SelectStmt, cur *Source) (*correlated, error) {
	if sel.Op != pg.SetOperation_SETOP_NONE || sel.WithClause != nil || len(sel.ValuesLists) > 0 {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "correlated subqueries with set operations, WITH or VALUES are not supported yet")
	}
	corr := &corrOuter{cur: cur}
	saved := qc.corr
	qc.corr = corr
	items, conj, err := qc.flattenFrom(sel.FromClause, nil)
	qc.corr = saved
	if err != nil {
		return nil, err
	}
	// factored first, so that a correlation repeated in every branch of
	// an OR (TPC-DS q41) is a join key, not a residual over each pair
	conj = qc.factorOr(append(conj, splitAnd(sel.WhereClause)...))
	var inner, outer []*pg.Node
	for _, c := range conj {
		_, out := refItems(c, items)
		if out {
			outer = append(outer, c)
		} else {
			inner = append(inner, c)
		}
	}
	var src *Source
	if len(items) == 0 {
		src = &Source{op: &exec.Values{Env: qc.env, Rows: [][]exec.Expr{{}}}, Sc: &Scope{}, rows: 1}
		src, err = qc.applyConjuncts(src, inner)
	} else {
		src, err = qc.joinItems(items, inner)
	}
	if err != nil {
		return nil, err
	}
	cr := &correlated{inner: src, outer: outer, cur: cur}
	cr.withCorrelation(corr)
	return cr, nil
}

// joinCorrelated binds the correlated predicates between cur (outer) and
// inner: equalities become hash keys, the rest one residual predicate over
// outer ++ inner columns.
func (qc *QueryCtx) joinCorrelated(cur, inner *Source, preds []*pg.Node) ([]exec.Expr, []exec.Expr, exec.Expr, error) {
	var lkeys, rkeys []exec.Expr
	var rest []exec.Expr
	for _, p := range preds {
		if hasSubLink(p) {
			return nil, nil, nil, pgerr.New(pgerr.FeatureNotSupported, "nested correlated subqueries are not supported yet")
		}
		lk, rk, ok, err := qc.correlatedKeys(p, cur.Sc, inner.Sc)
		if err != nil {
			return nil, nil, nil, err
		}
		if ok {
			lkeys, rkeys = append(lkeys, lk), append(rkeys, rk)
			continue
		}
		b := qc.binder()
		e, err := b.Bind(p, innerFirst(inner.Sc, cur.Sc))
		if err != nil {
			return nil, nil, nil, err
		}
		if e, err = b.CoerceBool(e, p, "argument of WHERE"); err != nil {
			return nil, nil, nil, err
		}
		rest = append(rest, remapInnerFirst(e, len(inner.Sc.Cols), len(cur.Sc.Cols)))
	}
	var extra exec.Expr
	if len(rest) == 1 {
		extra = rest[0]
	} else if len(rest) > 1 {
		extra = &exec.Logic{And: true, Args: rest}
	}
	return lkeys, rkeys, extra, nil
}

// innerFirst is the scope a correlated predicate binds in: the subquery's
// own columns shadow the outer ones, as SQL scoping requires.
func innerFirst(inner, outer *Scope) *Scope {
	sc := concatScope(inner, outer)
	sc.Shadow = len(inner.Cols)
	return sc
}

// remapInnerFirst turns column indexes of (inner ++ outer) into (outer ++ inner).
func remapInnerFirst(e exec.Expr, nInner, nOuter int) exec.Expr {
	return exec.MapColumns(e, func(i int) int {
		if i < nInner {
			return nOuter + i
		}
		return i - nInner
	})
}

// subqueryConjunct applies one WHERE conjunct that contains a subquery.
func (qc *QueryCtx) subqueryConjunct(cur *Source, n *pg.Node) (*Source, error) {
	not := false
	x := n
	if be := x.GetBoolExpr(); be != nil && be.Boolop == pg.BoolExprType_NOT_EXPR {
		not, x = true, be.Args[0]
	}
	if sl := x.GetSubLink(); sl != nil {
		sel := sl.Subselect.GetSelectStmt()
		switch sl.SubLinkType {
		case pg.SubLinkType_EXISTS_SUBLINK:
			if _, ok, err := qc.standaloneIn(sel, cur.Sc); err != nil {
				return nil, err
			} else if !ok && oneRow(sel) {
				if not {
					return qc.filter(cur, &pg.Node{Node: &pg.Node_AConst{AConst: &pg.A_Const{Val: &pg.A_Const_Boolval{Boolval: &pg.Boolean{Boolval: false}}}}})
				}
				return cur, nil
			} else if s2, joins := existsShape(sel, true); !ok && joins {
				mark := qc.subColsMark()
				out, err := qc.existsJoin(cur, s2, nil, not)
				if err == nil || !retryable(err) {
					return out, err
				}
				qc.undoSubCols(mark) // planned per outer key below
			}
		case pg.SubLinkType_ANY_SUBLINK:
			if op := StrNodes(sl.OperName); len(op) == 0 || op[len(op)-1] == "=" {
				mark := qc.subColsMark()
				out, err := qc.inJoin(cur, sl, sel, not)
				if err == nil || !retryable(err) {
					return out, err
				}
				qc.undoSubCols(mark) // planned per outer key below
			}
		}
	}
	// anything else: bind with subqueries resolved (correlated scalar
	// subqueries become joins first, or run per outer key)
	cur, err := qc.prepareScalarSubLinks(cur, n)
	if err != nil {
		return nil, err
	}
	return qc.filter(cur, n)
}

func semiOrAnti(anti bool) logical.JoinKind {
	if anti {
		return logical.AntiJoin
	}
	return logical.SemiJoin
}

// semiAnti joins cur to the rows of subquery inner by kind (semi, anti or
// null-aware anti) on the keys and the residual extra (over cur's columns
// then inner's), as a logical join over both, which the rules over the
// FROM list cur is an item of see (a semi join on an item before the
// join order is chosen: semiJoinsFirst).
func (qc *QueryCtx) semiAnti(cur, inner *Source, lkeys, rkeys []exec.Expr, extra exec.Expr, kind logical.JoinKind) (*Source, error) {
	l, r := itemNode(cur), leafNode(inner)
	// build on the smaller outer side and stream the subquery through it,
	// keeping the outer rows that matched (or never did)
	node := logical.NewOuterJoin(kind, l, r, lkeys, rkeys, extra, kind != logical.AntiNullAwareJoin && cur.rows < inner.rows)
	qc.built[l], qc.built[r] = cur.op, inner.op
	op, err := qc.builder().Build(node)
	if err != nil {
		return nil, err
	}
	return &Source{op: op, Sc: cur.Sc, scans: append(append([]*exec.TableScan{}, cur.scans...), inner.scans...), rows: cur.rows * 0.5,
		node: node, nodeOp: op}, nil
}

// existsJoin plans [NOT] EXISTS (correlated) and, with test set, [NOT] IN.
func (qc *QueryCtx) existsJoin(cur *Source, sel *pg.SelectStmt, test *pg.Node, anti bool) (*Source, error) {
	sel, ok := existsShape(sel, test == nil)
	if !ok {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "correlated EXISTS/IN subqueries with GROUP BY, HAVING, LIMIT or set operations are planned per outer row")
	}
	nCur := len(cur.Sc.Cols)
	cr, err := qc.splitCorrelated(sel, cur)
	if err != nil {
		return nil, err
	}
	cur = cr.cur
	lkeys, rkeys, extra, err := qc.joinCorrelated(cur, cr.inner, cr.outer)
	if err != nil {
		return nil, err
	}
	if row := test.GetRowExpr(); row != nil && !anti {
		// (a, b) IN (SELECT x, y …): one key per column
		if err := rowArity(len(row.Args), len(sel.TargetList)); err != nil {
			return nil, err
		}
		b := qc.binder()
		for i, a := range row.Args {
			l, err := b.Bind(a, cur.Sc)
			if err != nil {
				return nil, err
			}
			r, err := b.Bind(sel.TargetList[i].GetResTarget().Val, cr.inner.Sc)
			if err != nil {
				return nil, err
			}
			lk, rk, err := qc.keyPair(l, r)
			if err != nil {
				return nil, err
			}
			lkeys, rkeys = append(lkeys, lk), append(rkeys, rk)
		}
		test = nil
	}
	if test != nil {
		if len(sel.TargetList) != 1 {
			return nil, pgerr.New(pgerr.SyntaxError, "subquery has too many columns")
		}
		b := qc.binder()
		l, err := b.Bind(test, cur.Sc)
		if err != nil {
			return nil, err
		}
		r, err := b.Bind(sel.TargetList[0].GetResTarget().Val, cr.inner.Sc)
		if err != nil {
			return nil, err
		}
		lk, rk, err := qc.keyPair(l, r)
		if err != nil {
			return nil, err
		}
		if anti {
			// correlated NOT IN: a null-aware anti join on the tested value
			// whose residual, every correlated predicate, picks the inner
			// rows each outer row is compared with (NULLs among them count)
			out, err := qc.semiAnti(cur, cr.inner, []exec.Expr{lk}, []exec.Expr{rk}, correlatedResidual(lkeys, rkeys, extra, len(cur.Sc.Cols)), logical.AntiNullAwareJoin)
			if err == nil && len(cur.Sc.Cols) > nCur {
				out = qc.dropColumn(out, nCur)
			}
			return out, err
		}
		lkeys, rkeys = append(lkeys, lk), append(rkeys, rk)
	}
	out, err := qc.semiAnti(cur, cr.inner, lkeys, rkeys, extra, semiOrAnti(anti))
	if err == nil && len(cur.Sc.Cols) > nCur {
		out = qc.dropColumn(out, nCur)
	}
	return out, err
}

// rowArity checks that a row compared with a subquery's rows has as many
// columns as they do.
func rowArity(row, cols int) error {
	switch {
	case cols > row:
		return pgerr.New(pgerr.SyntaxError, "subquery has too many columns")
	case cols < row:
		return pgerr.New(pgerr.SyntaxError, "subquery has too few columns")
	}
	return nil
}

// correlatedResidual is one predicate over outer ++ inner columns: the
// correlated key equalities and the other correlated predicates.
func correlatedResidual(lkeys, rkeys []exec.Expr, extra exec.Expr, nOuter int) exec.Expr {
	var preds []exec.Expr
	for i := range lkeys {
		rk := exec.MapColumns(rkeys[i], func(c int) int { return c + nOuter })
		preds = append(preds, &exec.Cmp{Op: exec.EQ, L: lkeys[i], R: rk})
	}
	if extra != nil {
		preds = append(preds, extra)
	}
	switch len(preds) {
	case 0:
		return nil
	case 1:
		return preds[0]
	}
	return &exec.Logic{And: true, Args: preds}
}

// keyPair casts two join keys to a common type.
func (qc *QueryCtx) keyPair(l, r exec.Expr) (exec.Expr, exec.Expr, error) {
	b := qc.binder()
	cmp, err := b.BinaryOp("=", l, r, -1)
	if err != nil {
		return nil, nil, err
	}
	c := cmp.(*exec.Cmp)
	if c.L.Type() == c.R.Type() {
		return c.L, c.R, nil
	}
	t := numericKeyType(c.L.Type(), c.R.Type())
	lk, err := b.Cast(c.L, t, false, -1)
	if err != nil {
		return nil, nil, err
	}
	rk, err := b.Cast(c.R, t, false, -1)
	return lk, rk, err
}

// inJoin plans x [NOT] IN (subquery).
func (qc *QueryCtx) inJoin(cur *Source, sl *pg.SubLink, sel *pg.SelectStmt, anti bool) (*Source, error) {
	if sl.Testexpr.GetRowExpr() != nil && anti {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "row-valued NOT IN subqueries are not supported yet")
	}
	q, ok, err := qc.standaloneIn(sel, cur.Sc)
	if err != nil {
		return nil, err
	}
	if !ok {
		if hasSubLink(sl.Testexpr) {
			if cur, err = qc.prepareScalarSubLinks(cur, sl.Testexpr); err != nil {
				return nil, err
			}
		}
		return qc.existsJoin(cur, sel, sl.Testexpr, anti)
	}
	if row := sl.Testexpr.GetRowExpr(); row != nil {
		if err := rowArity(len(row.Args), len(q.Cols)); err != nil {
			q.Op.Close()
			return nil, err
		}
		b := qc.binder()
		inner := &Source{op: q.Op, Sc: &Scope{}, scans: q.scans, rows: qc.planEstimator().N(q.Op)}
		var lkeys, rkeys []exec.Expr
		for i, a := range row.Args {
			l, err := b.Bind(a, cur.Sc)
			if err != nil {
				return nil, err
			}
			lk, rk, err := qc.keyPair(l, &exec.ColRef{Idx: i, T: q.Cols[i].Type})
			if err != nil {
				return nil, err
			}
			lkeys, rkeys = append(lkeys, lk), append(rkeys, rk)
			inner.Sc.Cols = append(inner.Sc.Cols, ScopeCol{Name: q.Cols[i].Name, T: q.Cols[i].Type})
		}
		return qc.semiAnti(cur, inner, lkeys, rkeys, nil, logical.SemiJoin)
	}
	if len(q.Cols) != 1 {
		return nil, ErrAt(pgerr.New(pgerr.SyntaxError, "subquery has too many columns"), sl.Location)
	}
	b := qc.binder()
	l, err := b.Bind(sl.Testexpr, cur.Sc)
	if err != nil {
		return nil, err
	}
	lk, rk, err := qc.keyPair(l, &exec.ColRef{Idx: 0, T: q.Cols[0].Type})
	if err != nil {
		return nil, err
	}
	// the subquery's estimate decides which side the join builds on
	inner := &Source{op: q.Op, Sc: &Scope{Cols: []ScopeCol{{Name: q.Cols[0].Name, T: q.Cols[0].Type}}}, scans: q.scans, rows: qc.planEstimator().N(q.Op)}
	kind := logical.SemiJoin
	if anti {
		kind = logical.AntiNullAwareJoin
	}
	return qc.semiAnti(cur, inner, []exec.Expr{lk}, []exec.Expr{rk}, nil, kind)
}

// prepareScalarSubLinks turns every correlated scalar subquery in n into
// columns joined onto cur, remembered for the binder.
func (qc *QueryCtx) prepareScalarSubLinks(cur *Source, n *pg.Node) (*Source, error) {
	var links []*pg.SubLink
	Walk(n, func(x *pg.Node) bool {
		if sl := x.GetSubLink(); sl != nil {
			switch sl.SubLinkType {
			case pg.SubLinkType_EXPR_SUBLINK, pg.SubLinkType_EXISTS_SUBLINK, pg.SubLinkType_ARRAY_SUBLINK,
				pg.SubLinkType_ANY_SUBLINK, pg.SubLinkType_ALL_SUBLINK:
				links = append(links, sl)
			}
			return false
		}
		return true
	})
	width := len(cur.Sc.Cols)
	for _, sl := range links {
		if _, done := qc.subCols[sl]; done {
			continue
		}
		sel := sl.Subselect.GetSelectStmt()
		// the left operand of IN/ANY/ALL may hold correlated subqueries
		// of its own, prepared first whichever way the right one goes
		if sl.Testexpr != nil && hasSubLink(sl.Testexpr) {
			var err error
			if cur, err = qc.prepareScalarSubLinks(cur, sl.Testexpr); err != nil {
				return nil, err
			}
		}
		if _, ok, err := qc.standaloneIn(sel, cur.Sc); err != nil {
			return nil, err
		} else if ok {
			continue // uncorrelated: the binder runs it once
		}
		mark := qc.subColsMark()
		next, err := qc.scalarSubLinkJoin(cur, sl, sel)
		if err != nil {
			if !retryable(err) {
				return nil, err
			}
			// a shape the joins cannot express: run it per outer key
			qc.undoSubCols(mark)
			if next, err = qc.applyValue(cur, sl, sel); err != nil {
				return nil, err
			}
		}
		cur = next
	}
	// the values joined in are for the binder only, never part of `*`
	return hideFrom(cur, width), nil
}

// errPerKey: the join rewrites do not plan this subquery's shape.
func errPerKey() error {
	return pgerr.New(pgerr.FeatureNotSupported, "correlated subquery planned per outer row")
}

// scalarSubLinkJoin decorrelates one correlated subquery in an
// expression into a join that adds its value as a column.
func (qc *QueryCtx) scalarSubLinkJoin(cur *Source, sl *pg.SubLink, sel *pg.SelectStmt) (*Source, error) {
	switch sl.SubLinkType {
	case pg.SubLinkType_ARRAY_SUBLINK:
		// ARRAY(subquery): array_agg of the elements in the subquery's
		// order, '{}' when there are none
		if ordered := proto.Clone(sel).(*pg.SelectStmt); len(sel.SortClause) > 0 {
			ordered.SortClause = nil
			if !joinable(ordered) {
				return nil, errPerKey()
			}
		} else if !joinable(sel) {
			return nil, errPerKey()
		}
		if len(sel.TargetList) != 1 {
			return nil, ErrAt(pgerr.New(pgerr.SyntaxError, "subquery must return only one column"), sl.Location)
		}
		elem := sel.TargetList[0].GetResTarget().Val
		agg := &pg.Node{Node: &pg.Node_FuncCall{FuncCall: &pg.FuncCall{Funcname: []*pg.Node{pg.MakeStrNode("array_agg")},
			Args: []*pg.Node{elem}, AggOrder: sel.SortClause, Location: -1}}}
		collected := &pg.SelectStmt{TargetList: []*pg.Node{{Node: &pg.Node_ResTarget{ResTarget: &pg.ResTarget{Val: agg}}}},
			FromClause: sel.FromClause, WhereClause: sel.WhereClause, Op: pg.SetOperation_SETOP_NONE}
		proxy := &pg.SubLink{SubLinkType: pg.SubLinkType_EXPR_SUBLINK, Subselect: &pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: collected}}, Location: sl.Location}
		out, err := qc.scalarJoin(cur, proxy, collected)
		if err != nil {
			return nil, err
		}
		ref := qc.subCols[proxy]
		qc.subCols[sl] = &exec.Coalesce{Args: []exec.Expr{ref, bind.EmptyArray(ref.Type())}, T: ref.Type()}
		return out, nil
	case pg.SubLinkType_EXISTS_SUBLINK:
		s2, ok := existsShape(sel, true)
		if !ok {
			return nil, errPerKey()
		}
		// EXISTS inside an expression: count the matches instead
		counted := &pg.SelectStmt{
			TargetList:  []*pg.Node{{Node: &pg.Node_ResTarget{ResTarget: &pg.ResTarget{Val: &pg.Node{Node: &pg.Node_FuncCall{FuncCall: &pg.FuncCall{Funcname: []*pg.Node{pg.MakeStrNode("count")}, AggStar: true, Location: -1}}}}}}},
			FromClause:  s2.FromClause,
			WhereClause: s2.WhereClause,
			Op:          pg.SetOperation_SETOP_NONE,
		}
		proxy := &pg.SubLink{SubLinkType: pg.SubLinkType_EXPR_SUBLINK, Subselect: &pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: counted}}, Location: sl.Location}
		out, err := qc.scalarJoin(cur, proxy, counted)
		if err != nil {
			return nil, err
		}
		qc.subCols[sl] = &exec.Cmp{Op: exec.GT, L: qc.subCols[proxy], R: exec.NewConst(int64Vec(0))}
		return out, nil
	case pg.SubLinkType_EXPR_SUBLINK:
		if !joinable(sel) {
			return nil, errPerKey()
		}
		return qc.scalarJoin(cur, sl, sel)
	}
	return nil, errPerKey() // ANY / ALL inside an expression
}

// scalarJoin decorrelates one scalar aggregate subquery.
func (qc *QueryCtx) scalarJoin(cur *Source, sl *pg.SubLink, sel *pg.SelectStmt) (*Source, error) {
	if len(sel.TargetList) != 1 {
		return nil, ErrAt(pgerr.New(pgerr.SyntaxError, "subquery must return only one column"), sl.Location)
	}
	target := sel.TargetList[0].GetResTarget().Val
	if len(sel.GroupClause) > 0 || sel.HavingClause != nil || sel.LimitCount != nil || len(sel.SortClause) > 0 {
		return nil, ErrAt(pgerr.New(pgerr.FeatureNotSupported, "correlated scalar subqueries with GROUP BY, HAVING, ORDER BY or LIMIT are not supported yet"), sl.Location)
	}
	cr, err := qc.splitCorrelated(sel, cur)
	if err != nil {
		return nil, err
	}
	cur = cr.cur
	lkeys, rkeys, extra, err := qc.joinCorrelated(cur, cr.inner, cr.outer)
	if err != nil {
		return nil, err
	}
	// a value reading the outer row too is computed per outer row
	if _, readsOuter := refItems(target, []*Source{cr.inner}); extra != nil || len(lkeys) == 0 || readsOuter {
		return qc.scalarJoinGeneral(cur, cr, sl, target, lkeys, rkeys, extra)
	}
	// group the inner rows by their correlation keys, then left-join
	n := len(rkeys)
	coll := &bind.AggCollector{}
	for i, k := range rkeys {
		coll.Groups = append(coll.Groups, k)
		coll.GroupKeys = append(coll.GroupKeys, "\x00key"+Itoa(i))
		coll.GroupCols = append(coll.GroupCols, -1)
	}
	pb := &postBinder{Binder: Binder{Sess: qc.s, Env: qc.env, Params: qc.params, Aggs: coll, Qc: qc}, coll: coll, in: cr.inner.Sc}
	val, err := bindScalarValue(pb, target, false)
	if err != nil {
		return nil, err
	}
	// With fewer outer rows than inner ones, build the join on the outer
	// rows and aggregate only the inner rows whose keys the outer side has.
	var keyFilter *exec.InJoinBuild
	innerOp := cr.inner.op
	if cur.rows <= cr.inner.rows {
		keyFilter = &exec.InJoinBuild{Keys: optree.CloneExprs(rkeys)}
		innerOp = &exec.Filter{Env: qc.env, Input: innerOp, Pred: keyFilter}
	}
	// the aggregation is joined as it is and the subquery's value computed
	// above the join, where the expression holding the subquery reads it:
	// for an outer row without inner rows from what the aggregates give
	// over none (count 0, the others NULL), as PostgreSQL runs the
	// subquery for it, and under a CASE branch only for the rows taking it
	op := coll.Plan(qc.env, innerOp, nil, nil)
	aggs := op.(*aggregate.HashAgg).Aggs
	gkeys := make([]exec.Expr, n)
	for i := range gkeys {
		gkeys[i] = &exec.ColRef{Idx: i, T: rkeys[i].Type()}
	}
	var join exec.Operator = &exec.HashJoin{Env: qc.env, Left: cur.op, Right: op, LeftKeys: lkeys, RightKeys: gkeys, Type: exec.JoinLeft}
	if keyFilter != nil {
		// the same left join with the sides swapped, put back in order
		hj := &exec.HashJoin{Env: qc.env, Left: op, Right: cur.op, LeftKeys: gkeys, RightKeys: lkeys, Type: exec.JoinRight}
		keyFilter.Join = hj
		join = hj
	}
	nc, nd := len(cur.Sc.Cols), n+len(aggs)
	ts := op.Types()
	outs := make([]exec.Expr, 0, nc+nd)
	for i, c := range cur.Sc.Cols {
		k := i
		if keyFilter != nil {
			k += nd
		}
		outs = append(outs, &exec.ColRef{Idx: k, T: c.T})
	}
	for i := range nd {
		k := i
		if keyFilter == nil {
			k += nc
		}
		var e exec.Expr = &exec.ColRef{Idx: k, T: ts[i]}
		if i >= n && (aggs[i-n].Kind == aggregate.AggCount || aggs[i-n].Kind == aggregate.AggCountStar) {
			e = &exec.Coalesce{Args: []exec.Expr{e, exec.NewConst(int64Vec(0))}, T: types.Int64T}
		}
		outs = append(outs, e)
	}
	join = &exec.Project{Env: qc.env, Input: join, Exprs: outs}
	sc := &Scope{Cols: append([]ScopeCol{}, cur.Sc.Cols...)}
	for i := range nd {
		sc.Cols = append(sc.Cols, ScopeCol{Name: "\x00sub", T: ts[i]})
	}
	col := exec.MapColumns(val, func(i int) int { return nc + i })
	qc.subCols[sl] = col
	return &Source{op: join, Sc: sc, scans: append(append([]*exec.TableScan{}, cur.scans...), cr.inner.scans...), rows: cur.rows}, nil
}

// scalarJoinGeneral handles non-equality correlation: number the outer
// rows, left-join them to the inner rows on the correlated predicates, and
// aggregate back per outer row.
func (qc *QueryCtx) scalarJoinGeneral(cur *Source, cr *correlated, sl *pg.SubLink, target *pg.Node, lkeys, rkeys []exec.Expr, extra exec.Expr) (*Source, error) {
	if src, ok, err := qc.scalarJoinNarrow(cur, cr, sl, target, lkeys, rkeys, extra); ok || err != nil {
		return src, err // subquery_narrow.go
	}
	nOuter := len(cur.Sc.Cols)
	numbered := &exec.RowNumber{Input: cur.op}
	// inner rows get a marker so count(*) counts matches only
	innerExprs := []exec.Expr{}
	for i, c := range cr.inner.Sc.Cols {
		innerExprs = append(innerExprs, &exec.ColRef{Idx: i, T: c.T})
	}
	innerExprs = append(innerExprs, exec.NewConst(int64Vec(1)))
	innerOp := &exec.Project{Env: qc.env, Input: cr.inner.op, Exprs: innerExprs}
	// left side is outer ++ rn; shift the residual's inner references by one
	if extra != nil {
		extra = exec.MapColumns(extra, func(i int) int {
			if i >= nOuter {
				return i + 1
			}
			return i
		})
	}
	var join exec.Operator
	if len(lkeys) > 0 {
		join = &exec.HashJoin{Env: qc.env, Left: numbered, Right: innerOp, LeftKeys: lkeys, RightKeys: rkeys, Extra: extra, Type: exec.JoinLeft}
	} else {
		join = &exec.NestedLoopJoin{Env: qc.env, Left: numbered, Right: innerOp, On: extra, Type: exec.JoinLeft}
	}
	// scope of the join output: outer, rn, inner, marker
	js := &Scope{Cols: append([]ScopeCol{}, cr.inner.Sc.Cols...)}
	js.Cols = append(js.Cols, ScopeCol{Name: "\x00marker", T: types.Int64T})
	// group by rn and every outer column (rn makes groups per outer row);
	// the collector knows the outer columns as group keys, so that the
	// value may read them beside its aggregates, as PostgreSQL reads an
	// outer column in an aggregate subquery: a constant of the outer row
	nJS := len(js.Cols)
	var groups []exec.Expr
	groups = append(groups, &exec.ColRef{Idx: nOuter, T: types.Int64T})
	coll := &bind.AggCollector{Groups: []exec.Expr{groups[0]}, GroupKeys: []string{"\x00rn"}, GroupCols: []int{-1}}
	for i, c := range cur.Sc.Cols {
		groups = append(groups, &exec.ColRef{Idx: i, T: c.T})
		coll.Groups = append(coll.Groups, groups[len(groups)-1])
		coll.GroupKeys = append(coll.GroupKeys, "\x00outer"+Itoa(i))
		coll.GroupCols = append(coll.GroupCols, nJS+i) // its place in pb.in
	}
	// the value binds over inner ++ marker, then the outer columns
	pb := &postBinder{Binder: Binder{Sess: qc.s, Env: qc.env, Params: qc.params, Aggs: coll, Qc: qc}, coll: coll, in: innerFirst(js, cur.Sc)}
	val, err := bindScalarValue(pb, target, true)
	if err != nil {
		return nil, err
	}
	shift := nOuter + 1
	ng := len(groups)
	op := coll.Plan(qc.env, join, groups, func(e exec.Expr) exec.Expr {
		return exec.MapColumns(e, func(i int) int {
			if i < nJS {
				return i + shift
			}
			return i - nJS
		})
	})
	// output: outer columns, then the value; val indexes groups(0) as none
	outs := []exec.Expr{}
	for i, c := range cur.Sc.Cols {
		outs = append(outs, &exec.ColRef{Idx: i + 1, T: c.T})
	}
	outs = append(outs, exec.MapColumns(val, func(i int) int { return i + ng - len(coll.Groups) }))
	op = &order.Sort{Input: op, Keys: []order.SortKey{{Col: 0}}} // keep outer row order
	op = &exec.Project{Env: qc.env, Input: op, Exprs: outs}
	sc := &Scope{Cols: append([]ScopeCol{}, cur.Sc.Cols...)}
	sc.Cols = append(sc.Cols, ScopeCol{Name: "\x00sub", T: val.Type()})
	qc.subCols[sl] = &exec.ColRef{Idx: nOuter, T: val.Type()}
	return &Source{op: op, Sc: sc, scans: append(append([]*exec.TableScan{}, cur.scans...), cr.inner.scans...), rows: cur.rows}, nil
}

// countStarToMarker rewrites count(*) to count of the inner marker column,
// and makes every other aggregate skip the row an outer row without
// matches brings (array_agg would collect its NULL).
func countStarToMarker(n *pg.Node) *pg.Node {
	c := proto.Clone(n).(*pg.Node)
	marker := ColRefNode(ScopeCol{Name: "\x00marker"})
	Walk(c, func(x *pg.Node) bool {
		f := x.GetFuncCall()
		switch {
		case f == nil || f.Over != nil || !bind.IsAggregate(FuncName(f)):
		case f.AggStar && FuncName(f) == "count":
			f.AggStar = false
			f.Args = []*pg.Node{marker}
		default:
			matched := &pg.Node{Node: &pg.Node_NullTest{NullTest: &pg.NullTest{Arg: marker, Nulltesttype: pg.NullTestType_IS_NOT_NULL, Location: -1}}}
			if f.AggFilter != nil {
				matched = &pg.Node{Node: &pg.Node_BoolExpr{BoolExpr: &pg.BoolExpr{Boolop: pg.BoolExprType_AND_EXPR, Args: []*pg.Node{matched, f.AggFilter}, Location: -1}}}
			}
			f.AggFilter = matched
		}
		return true
	})
	return c
}

func int64Vec(x int64) *vec.Vector {
	v := vec.New(types.Int64T, 1)
	v.AppendInt(x)
	return v
}

// runSubquery runs an uncorrelated subquery at planning time, planned as a
// top-level query is: reading only the columns it needs, on all cores.
// (It may fill a WITH query the statement reads again: TPC-H Q15's max
// over its CTE ran on one core and read every column of lineitem.)
func (qc *QueryCtx) runSubquery(q *query) (*vec.Batch, error) {
	q.Op, _ = optree.PruneColumns(q.Op, optree.All(len(q.Cols)))
	qc.dynamicFilters(q.Op)
	qc.s.minMaxFromStats(q.Op)
	if qc.chains == nil {
		qc.chains = map[*exec.Parallel]exec.Operator{}
	}
	q.Op = optree.Parallelize(q.Op, qc.chains)
	defer q.Op.Close()
	out := vec.NewBatch(opTypes(q), 1)
	err := exec.Drain(context.WithoutCancel(qc.ctx), q.Op, func(b *vec.Batch) error {
		for c, v := range b.Vecs {
			for i := 0; i < b.N; i++ {
				out.Vecs[c].AppendFrom(v, i)
			}
		}
		out.N += b.N
		return nil
	})
	return out, err
}

func opTypes(q *query) []types.T {
	ts := make([]types.T, len(q.Cols))
	for i, c := range q.Cols {
		ts[i] = c.Type
	}
	return ts
}

// BindSubLink binds a subquery inside an expression for b: a prepared
// correlated join column, or an uncorrelated subquery run once.
func (qc *QueryCtx) BindSubLink(b *Binder, sl *pg.SubLink, sc *Scope) (exec.Expr, error) {
	if e, ok := qc.subCols[sl]; ok {
		return e, nil
	}
	if g := qc.shared[sl]; g != nil {
		if e, ok, err := qc.sharedScalar(g, sl, sc); err != nil || ok {
			return e, err
		}
	}
	sel := sl.Subselect.GetSelectStmt()
	q, ok, err := qc.standaloneIn(sel, sc)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, ErrAt(pgerr.New(pgerr.FeatureNotSupported, "correlated subqueries are not supported in this position yet"), sl.Location)
	}
	switch sl.SubLinkType {
	case pg.SubLinkType_EXPR_SUBLINK:
		if len(q.Cols) != 1 {
			q.Op.Close()
			return nil, ErrAt(pgerr.New(pgerr.SyntaxError, "subquery must return only one column"), sl.Location)
		}
		t := q.Cols[0].Type
		if t.ID == types.Unknown {
			t = types.TextT
		}
		if qc.DescribeOnly {
			q.Op.Close()
			return exec.NullConst(t), nil
		}
		// what folding the subquery's constants raises, PostgreSQL raises
		// while planning it; what running it on its data raises, only if
		// its value is needed
		if err := optree.FoldErrors(qc.env, q.Op); err != nil {
			q.Op.Close()
			return nil, err
		}
		rows, err := qc.runSubquery(q)
		if err != nil {
			if c := pgerr.Code(err); strings.HasPrefix(c, "22") || c == pgerr.CardinalityViolation {
				return &exec.SubqueryError{T: t, Err: err}, nil
			}
			return nil, err
		}
		if rows.N > 1 {
			return &exec.SubqueryError{T: t, Err: pgerr.New(pgerr.CardinalityViolation, "more than one row returned by a subquery used as an expression")}, nil
		}
		if rows.N == 0 {
			return exec.NullConst(t), nil
		}
		return exec.ParamConst(rows.Vecs[0]), nil
	case pg.SubLinkType_ARRAY_SUBLINK:
		if len(q.Cols) != 1 {
			q.Op.Close()
			return nil, ErrAt(pgerr.New(pgerr.SyntaxError, "subquery must return only one column"), sl.Location)
		}
		et := q.Cols[0].Type
		if et.ID == types.Unknown {
			et = types.TextT
		}
		if et.ID == types.Array {
			q.Op.Close()
			return nil, ErrAt(pgerr.New(pgerr.FeatureNotSupported, "ARRAY(subquery) over arrays (multidimensional arrays) is not supported"), sl.Location)
		}
		at := types.ArrayOf(et)
		if qc.DescribeOnly {
			q.Op.Close()
			return exec.NullConst(at), nil
		}
		rows, err := qc.runSubquery(q)
		if err != nil {
			return nil, err
		}
		val := bind.ArrayOfRows(rows, at)
		return bind.ConstOf(at, func(v *vec.Vector) { v.AppendString(val) }), nil
	case pg.SubLinkType_EXISTS_SUBLINK:
		if qc.DescribeOnly {
			q.Op.Close()
			return exec.NewConst(bind.BoolVec(false)), nil
		}
		rows, err := qc.runSubquery(&query{Op: &exec.Limit{Input: q.Op, Count: 1}, Cols: q.Cols})
		if err != nil {
			return nil, err
		}
		return exec.NewConst(bind.BoolVec(rows.N > 0)), nil
	case pg.SubLinkType_ANY_SUBLINK, pg.SubLinkType_ALL_SUBLINK:
		if len(q.Cols) != 1 {
			q.Op.Close()
			return nil, ErrAt(pgerr.New(pgerr.SyntaxError, "subquery has too many columns"), sl.Location)
		}
		op := "="
		if names := StrNodes(sl.OperName); len(names) > 0 {
			op = names[len(names)-1]
		}
		left, err := b.Bind(sl.Testexpr, sc)
		if err != nil {
			return nil, err
		}
		var rows *vec.Batch
		if qc.DescribeOnly {
			q.Op.Close()
			rows = vec.NewBatch(opTypes(q), 0)
		} else if rows, err = qc.runSubquery(q); err != nil {
			return nil, err
		}
		// x op ANY(set) is an OR of comparisons; ALL an AND (NULLs as SQL says)
		var terms []exec.Expr
		for i := 0; i < rows.N; i++ {
			c, err := b.BinaryOp(op, left, exec.ParamConst(vec.Constant(rows.Vecs[0], i, 1)), sl.Location)
			if err != nil {
				return nil, err
			}
			terms = append(terms, c)
		}
		all := sl.SubLinkType == pg.SubLinkType_ALL_SUBLINK
		if len(terms) == 0 {
			return exec.NewConst(bind.BoolVec(all)), nil
		}
		return &exec.Logic{And: all, Args: terms}, nil
	}
	return nil, ErrAt(pgerr.New(pgerr.FeatureNotSupported, "this kind of subquery is not supported yet"), sl.Location)
}

// correlatedKeys recognises "a = b" where one side reads only the
// subquery's columns and the other only outer ones (names resolving in the
// subquery belong to it, as SQL scoping says).
func (qc *QueryCtx) correlatedKeys(n *pg.Node, outer, inner *Scope) (exec.Expr, exec.Expr, bool, error) {
	if !isEquality(n) {
		return nil, nil, false, nil
	}
	a := n.GetAExpr()
	side := func(x *pg.Node) int { // 1 inner, 2 outer, 0 neither/mixed
		crs := columnRefs(x)
		if len(crs) == 0 || hasSubLink(x) {
			return 0
		}
		s := -1
		for _, cr := range crs {
			t, c, ok := refNames(cr)
			if !ok {
				return 0
			}
			k := 0
			switch {
			case inner.Resolves(t, c):
				k = 1
			case outer.Resolves(t, c):
				k = 2
			}
			if k == 0 || (s >= 0 && s != k) {
				return 0
			}
			s = k
		}
		return s
	}
	lx, rx := a.Lexpr, a.Rexpr
	switch {
	case side(lx) == 2 && side(rx) == 1:
	case side(lx) == 1 && side(rx) == 2:
		lx, rx = rx, lx
	default:
		return nil, nil, false, nil
	}
	b := qc.binder()
	le, err := b.Bind(lx, outer)
	if err != nil {
		return nil, nil, false, err
	}
	re, err := b.Bind(rx, inner)
	if err != nil {
		return nil, nil, false, err
	}
	lk, rk, err := qc.keyPair(le, re)
	if err != nil {
		return nil, nil, false, err
	}
	return lk, rk, true, nil
}

// lateral joins a LATERAL subquery to the FROM items before it (cur): its
// correlated predicates become join keys and residual, its select list is
// computed over both sides.
func (qc *QueryCtx) lateral(cur *Source, rs *pg.RangeSubselect) (*Source, error) {
	sel := rs.Subquery.GetSelectStmt()
	alias, colAliases := "", []string(nil)
	if rs.Alias != nil {
		alias, colAliases = rs.Alias.Aliasname, StrNodes(rs.Alias.Colnames)
	}
	if q, ok, err := qc.standaloneIn(sel, cur.Sc); err != nil {
		return nil, err
	} else if ok {
		right, err := querySource(q, alias, colAliases)
		if err != nil {
			return nil, err
		}
		op := &exec.NestedLoopJoin{Env: qc.env, Left: cur.op, Right: right.op, Type: exec.JoinInner}
		return &Source{op: op, Sc: concatScope(cur.Sc, right.Sc), scans: append(cur.scans, right.scans...), rows: cur.rows * right.rows}, nil
	}
	perKey := !joinable(sel)
	for _, t := range sel.TargetList {
		if ContainsAgg(t.GetResTarget().Val) {
			perKey = true // one row for every outer row, even without matches
		}
	}
	if !perKey {
		mark := qc.subColsMark()
		out, err := qc.lateralJoin(cur, sel, alias, colAliases)
		if err == nil || !retryable(err) {
			return out, err
		}
		qc.undoSubCols(mark)
	}
	return qc.applyRows(cur, sel, rs.Alias, nil, false)
}

// lateralJoin decorrelates a LATERAL subquery without aggregates,
// grouping or limits into a join.
func (qc *QueryCtx) lateralJoin(cur *Source, sel *pg.SelectStmt, alias string, colAliases []string) (*Source, error) {
	nCur := len(cur.Sc.Cols)
	cr, err := qc.splitCorrelated(sel, cur)
	if err != nil {
		return nil, err
	}
	cur = cr.cur
	lkeys, rkeys, extra, err := qc.joinCorrelated(cur, cr.inner, cr.outer)
	if err != nil {
		return nil, err
	}
	var join exec.Operator
	if len(lkeys) > 0 {
		join = &exec.HashJoin{Env: qc.env, Left: cur.op, Right: cr.inner.op, LeftKeys: lkeys, RightKeys: rkeys, Extra: extra, Type: exec.JoinInner}
	} else {
		join = &exec.NestedLoopJoin{Env: qc.env, Left: cur.op, Right: cr.inner.op, On: extra, Type: exec.JoinInner}
	}
	nOuter, nInner := len(cur.Sc.Cols), len(cr.inner.Sc.Cols)
	outs := make([]exec.Expr, 0, nOuter+len(sel.TargetList))
	for i, c := range cur.Sc.Cols {
		outs = append(outs, &exec.ColRef{Idx: i, T: c.T})
	}
	sc := &Scope{Cols: append([]ScopeCol{}, cur.Sc.Cols...)}
	b := qc.binder()
	both := innerFirst(cr.inner.Sc, cur.Sc)
	for _, t := range sel.TargetList {
		rt := t.GetResTarget()
		if c := rt.Val.GetColumnRef(); c != nil && c.Fields[len(c.Fields)-1].GetAStar() != nil {
			for i, ic := range cr.inner.Sc.Cols {
				outs = append(outs, &exec.ColRef{Idx: nOuter + i, T: ic.T})
				sc.Cols = append(sc.Cols, ScopeCol{Table: alias, Name: ic.Name, T: ic.T})
			}
			continue
		}
		e, err := b.Bind(rt.Val, both)
		if err != nil {
			return nil, err
		}
		if e.Type().ID == types.Unknown {
			if e, err = b.Cast(e, types.TextT, false, -1); err != nil {
				return nil, err
			}
		}
		outs = append(outs, remapInnerFirst(e, nInner, nOuter))
		sc.Cols = append(sc.Cols, ScopeCol{Table: alias, Name: TargetName(rt), T: e.Type()})
	}
	lat := &Scope{Cols: sc.Cols[nOuter:]}
	if err := renameCols(lat, colAliases, alias); err != nil {
		return nil, err
	}
	op := &exec.Project{Env: qc.env, Input: join, Exprs: outs}
	out := &Source{op: op, Sc: sc, scans: append(append([]*exec.TableScan{}, cur.scans...), cr.inner.scans...), rows: cur.rows}
	if nOuter > nCur {
		out = qc.dropColumn(out, nCur)
	}
	return out, nil
}

// bindScalarValue binds the value of a correlated scalar subquery over its
// matching inner rows, grouped per outer row. An aggregate target binds as
// is; any other target must see at most one row (21000 otherwise, as
// PostgreSQL says), so it becomes that row's value through min() with a
// count check. marker: count(*) must count matched rows only.
func bindScalarValue(pb *postBinder, target *pg.Node, marker bool) (exec.Expr, error) {
	fix := func(n *pg.Node) *pg.Node {
		if marker {
			return countStarToMarker(n)
		}
		return n
	}
	if ContainsAgg(target) {
		return pb.BindPost(fix(target))
	}
	call := func(name string, args []*pg.Node, star bool) *pg.Node {
		return &pg.Node{Node: &pg.Node_FuncCall{FuncCall: &pg.FuncCall{Funcname: []*pg.Node{pg.MakeStrNode(name)}, Args: args, AggStar: star, Location: -1}}}
	}
	v, err := pb.BindPost(call("min", []*pg.Node{target}, false))
	if err != nil {
		return nil, err
	}
	n, err := pb.BindPost(fix(call("count", nil, true)))
	if err != nil {
		return nil, err
	}
	check := func(out *vec.Vector, a []*vec.Vector, i int) error {
		if a[0].I64[i] > 1 {
			return pgerr.New(pgerr.CardinalityViolation, "more than one row returned by a subquery used as an expression")
		}
		// no matched row: NULL, even for a target that is a constant (the
		// outer join's unmatched row still carries it)
		if a[0].I64[i] == 0 || a[1].IsNull(i) {
			out.AppendNull()
		} else {
			out.AppendFrom(a[1], i)
		}
		return nil
	}
	// not strict: the value may be NULL while the count is not
	return &exec.Func{Name: "scalar_subquery", Args: []exec.Expr{n, v}, T: v.Type(), Fn: check, NonStrict: true}, nil
}
