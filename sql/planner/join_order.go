package planner

import (
	"math"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/sql/joinorder"
	"github.com/lakepg/lakepg/sql/planner/estimate"
)

// Join order: the FROM items and the conjuncts over several of them become
// a joinorder.Graph (rows from the estimator EXPLAIN uses — catalog row
// counts and min/max, no I/O — and each predicate's selectivity), the
// joinorder package picks the tree, and the joins are built from it. The
// written order of FROM items and WHERE conjuncts plays no part unless the
// join_order rule is switched off, which keeps the written order.

// joinEdge is a predicate over two or more items, with the items it
// references as a bit set and its estimated selectivity.
type joinEdge struct {
	p     *pred
	mask  uint64
	sel   float64
	equal bool // an equality between a column of one item and of another: a hash key
	// a, b and their keys' distinct values, for an equality (0: unknown)
	a, b       int
	ndvA, ndvB float64
}

// orderJoins joins items along preds (the unused conjuncts over several
// items) in the cheapest order found; the result's columns are in FROM
// order whatever the join order.
func (qc *QueryCtx) orderJoins(items []*Source, preds []*pred) (*Source, error) {
	n := len(items)
	if n > 64 {
		return nil, pgerr.New(pgerr.ProgramLimitExceeded, "a join of more than 64 FROM items (%d) is not supported", n)
	}
	est := qc.planEstimator()
	g := joinorder.Graph{Rows: make([]float64, n), Names: make([]string, n)}
	for i, it := range items {
		g.Rows[i], g.Names[i] = math.Max(1, est.N(it.op)), it.key()
	}
	var edges []joinEdge
	for _, p := range preds {
		if p.used || len(p.refs) < 2 {
			continue
		}
		e := joinEdge{p: p, sel: 1.0 / 3}
		for i := range p.refs {
			e.mask |= 1 << i
		}
		if len(p.refs) == 2 && isEquality(p.n) {
			a, b := refPair(p.refs)
			lk, rk, ok, err := qc.equiKeys(p.n, items[a].Sc, items[b].Sc)
			if err != nil {
				return nil, err
			}
			if ok {
				e.equal, e.a, e.b = true, a, b
				e.ndvA, e.ndvB = est.ExprColumn(lk, items[a].op).NDV, est.ExprColumn(rk, items[b].op).NDV
				e.sel = equiSelectivity(e.ndvA, e.ndvB, g.Rows[a], g.Rows[b])
				if k := keyDomain(est, lk, items[a].op, rk, items[b].op); k > 0 {
					e.sel = 1 / k
				}
			} else {
				e.sel = 0.1
			}
		}
		edges = append(edges, e)
	}
	compositeKeys(edges, g.Rows)
	for _, e := range edges {
		g.Edges = append(g.Edges, joinorder.Edge{Mask: e.mask, Sel: e.sel, Hash: e.equal})
	}
	tree, how := joinorder.Written(g), "written order"
	if qc.ruleOn(RuleJoinOrder) {
		tree, how = joinorder.Order(g)
	}

	var build func(t *joinorder.Tree) (*Source, error)
	build = func(t *joinorder.Tree) (*Source, error) {
		if t.Rel >= 0 {
			return items[t.Rel], nil
		}
		l, err := build(t.Left)
		if err != nil {
			return nil, err
		}
		r, err := build(t.Right)
		if err != nil {
			return nil, err
		}
		var lkeys, rkeys []exec.Expr
		var extras []*pg.Node
		for _, e := range edges {
			if e.p.used || e.mask&^t.Mask != 0 || e.mask&t.Left.Mask == 0 || e.mask&t.Right.Mask == 0 {
				continue
			}
			e.p.used = true
			if e.equal {
				lk, rk, ok, err := qc.equiKeys(e.p.n, l.Sc, r.Sc)
				if err != nil {
					return nil, err
				}
				if ok {
					lkeys, rkeys = append(lkeys, lk), append(rkeys, rk)
					continue
				}
			}
			extras = append(extras, e.p.n)
		}
		var op exec.Operator
		if len(lkeys) > 0 {
			op = &exec.HashJoin{Env: qc.env, Left: l.op, Right: r.op, LeftKeys: lkeys, RightKeys: rkeys, Type: exec.JoinInner}
		} else {
			op = &exec.NestedLoopJoin{Env: qc.env, Left: l.op, Right: r.op, Type: exec.JoinInner}
		}
		cur := &Source{op: op, Sc: concatScope(l.Sc, r.Sc), scans: append(append([]*exec.TableScan{}, l.scans...), r.scans...), rows: t.Rows}
		for _, x := range extras {
			if cur, err = qc.filter(cur, x); err != nil {
				return nil, err
			}
		}
		cur.rows = t.Rows
		return cur, nil
	}
	cur, err := build(tree)
	if err != nil {
		return nil, err
	}
	if n > 1 {
		qc.joins = append(qc.joins, joinBlock{items: n, how: how, cost: tree.Cost})
		if how != "written order" {
			qc.fired(RuleJoinOrder)
		}
	}
	return qc.inFromOrder(cur, items, tree.Leaves()), nil
}

// refPair is the two item indexes of a two-item reference set, smaller first.
func refPair(refs map[int]bool) (int, int) {
	a, b := -1, -1
	for i := range refs {
		switch {
		case a < 0:
			a = i
		case i < a:
			a, b = i, a
		default:
			b = i
		}
	}
	return a, b
}

// equiSelectivity is the fraction of pairs an equality between two items'
// columns keeps: 1 / the larger number of distinct values of the two keys
// (each value of the side with fewer finds its matches among the other's);
// without statistics the larger item stands in for the key's distinct
// values, as for a foreign key into a primary key.
func equiSelectivity(ndvA, ndvB, rowsA, rowsB float64) float64 {
	if d := math.Max(ndvA, ndvB); d > 0 {
		return 1 / d
	}
	return 1 / math.Max(1, math.Max(rowsA, rowsB))
}

// keyDomain is the number of distinct values of the join key on the side
// where the key is unique (a primary key: as many distinct values as its
// table has rows), counted before that side's filters; 0 when neither or
// both sides are such keys. A foreign key then finds its one match among
// them, so the join keeps |L|·|R| / that: the catalog's min/max overstate
// the distinct values of a sparse foreign key (TPC-H's l_orderkey spans
// 1…6 M but holds 1.5 M values, and lineitem ⋈ orders of one year was
// taken for 230,000 rows instead of 910,000). It is at most the foreign
// key's own distinct values where those are known: a fact table's keys
// cover a part of its dimension (TPC-DS store_sales sold on 1,823 of
// date_dim's 73,049 dates), and the dimension's filter picks rows of that
// part (a year of sales), so counting the whole domain took store_sales ⋈
// a year of dates for 5,000 rows instead of 550,000 and built it.
func keyDomain(est *estimate.Estimator, lk exec.Expr, l exec.Operator, rk exec.Expr, r exec.Operator) float64 {
	unique := func(k exec.Expr, op exec.Operator) float64 {
		base := unfiltered(op)
		n := est.N(base)
		if ci := est.ExprColumn(k, base); n > 0 && ci.NDV >= n {
			return ci.NDV
		}
		return 0
	}
	a, b := unique(lk, l), unique(rk, r)
	if (a > 0) == (b > 0) {
		return 0
	}
	d, fk, fop := a, rk, r
	if b > 0 {
		d, fk, fop = b, lk, l
	}
	if ndv := est.ExprColumn(fk, unfiltered(fop)).NDV; ndv > 0 && ndv < d {
		return ndv
	}
	return d
}

// unfiltered is op below its filters.
func unfiltered(op exec.Operator) exec.Operator {
	for {
		f, ok := op.(*exec.Filter)
		if !ok {
			return op
		}
		op = f.Input
	}
}

// compositeKeys gives several equalities between the same two items one
// selectivity, that of the composite key: its distinct values on a side are
// the product of its columns' but at most the side's rows. Multiplying the
// columns' selectivities would take correlated columns for independent
// ones (TPC-H Q9's lineitem joins partsupp on part and supplier: each line
// has its one partsupp row, not 1/10,000 of one).
func compositeKeys(edges []joinEdge, rows []float64) {
	for i := range edges {
		e := &edges[i]
		if !e.equal || e.sel == 1 {
			continue
		}
		ndvA, ndvB, n := estimate.OrRows(e.ndvA, rows[e.a]), estimate.OrRows(e.ndvB, rows[e.b]), 1
		for j := i + 1; j < len(edges); j++ {
			o := &edges[j]
			if o.equal && o.a == e.a && o.b == e.b {
				ndvA, ndvB = ndvA*estimate.OrRows(o.ndvA, rows[e.a]), ndvB*estimate.OrRows(o.ndvB, rows[e.b])
				o.sel, n = 1, n+1
			}
		}
		if n > 1 {
			e.sel = 1 / math.Max(1, math.Max(math.Min(ndvA, rows[e.a]), math.Min(ndvB, rows[e.b])))
		}
	}
}

// inFromOrder puts the columns of a join of items back in the order of
// the items (the FROM order, which `*` and the described row type follow),
// when the join order changed it.
func (qc *QueryCtx) inFromOrder(cur *Source, items []*Source, order []int) *Source {
	inOrder := true
	for k, i := range order {
		inOrder = inOrder && k == i
	}
	if inOrder {
		return cur
	}
	start := make([]int, len(items)) // where item i's columns start in cur
	off := 0
	for _, i := range order {
		start[i] = off
		off += len(items[i].Sc.Cols)
	}
	ts := cur.op.Types()
	var exprs []exec.Expr
	sc := &Scope{}
	for i, it := range items {
		for c := range it.Sc.Cols {
			exprs = append(exprs, &exec.ColRef{Idx: start[i] + c, T: ts[start[i]+c]})
			sc.Cols = append(sc.Cols, cur.Sc.Cols[start[i]+c])
		}
	}
	out := *cur
	out.op = &exec.Project{Env: qc.env, Input: cur.op, Exprs: exprs}
	out.Sc = sc
	return &out
}

// planEstimator is the estimator join ordering uses for this statement:
// catalog figures, no footer read while planning; only a small table
// filtered on text is read, to count it (estimate/estimate_exact.go).
func (qc *QueryCtx) planEstimator() *estimate.Estimator {
	if qc.est == nil {
		qc.est = newEstimator(qc.ctx, qc.s)
		qc.est.CatalogOnly = true
		if !qc.DescribeOnly {
			qc.est.Env = qc.env
		}
	}
	return qc.est
}
