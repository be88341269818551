package planner

import (
	"math"
	"slices"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/sql/joinorder"
	"github.com/lakepg/lakepg/sql/planner/estimate"
	"github.com/lakepg/lakepg/sql/planner/logical"
	"github.com/lakepg/lakepg/sql/planner/optimize"
)

// Join order: the FROM items and the conjuncts over several of them become
// a logical.JoinGraph — the items as logical nodes (joinItems), each
// predicate bound, with the rows of each item from the estimator EXPLAIN
// uses (catalog row counts and min/max, no I/O) and each predicate's
// selectivity — a plan of its own that the optimizer's join_order rule
// (sql/planner/optimize/join_order.go) turns into the cheapest tree of
// joins sql/joinorder finds, and physical planning into hash joins. The
// written order of FROM items and WHERE conjuncts plays no part unless the
// rule is switched off, which keeps the written order.

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
	// the keys (equal) or the predicate, over the columns of all items
	ka, kb, cond exec.Expr
}

// orderJoins joins items, whose logical nodes are nodes (built into their
// operators already: QueryCtx.built), along preds (the unused conjuncts over several items) in the
// cheapest order found; the result's columns are in FROM order whatever
// the join order.
func (qc *QueryCtx) orderJoins(items []*Source, nodes []logical.Node, preds []*pred) (*Source, error) {
	n := len(items)
	if n > 64 {
		return nil, pgerr.New(pgerr.ProgramLimitExceeded, "a join of more than 64 FROM items (%d) is not supported", n)
	}
	est := qc.planEstimator()
	rows, names := make([]float64, n), make([]string, n)
	start := make([]int, n) // where item i's columns start among all items'
	for i, it := range items {
		rows[i], names[i] = math.Max(1, est.N(it.op)), it.key()
		if i > 0 {
			start[i] = start[i-1] + len(items[i-1].Sc.Cols)
		}
	}
	shift := func(e exec.Expr, by int) exec.Expr {
		return exec.MapColumns(e, func(c int) int { return c + by })
	}
	var all *Scope // every item's columns, for predicates that are not keys
	var edges []joinEdge
	for _, p := range preds {
		if p.used || len(p.refs) < 2 {
			continue
		}
		p.used = true // the join holding its items applies it
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
				e.ka, e.kb = shift(lk, start[a]), shift(rk, start[b])
				e.ndvA, e.ndvB = est.ExprColumn(lk, items[a].op).NDV, est.ExprColumn(rk, items[b].op).NDV
				e.sel = estimate.EquiSelectivity(e.ndvA, e.ndvB, rows[a], rows[b])
				if k := est.KeyDomain(lk, items[a].op, rk, items[b].op); k > 0 {
					e.sel = 1 / k
				}
				edges = append(edges, e)
				continue
			}
			e.sel = 0.1
		}
		if all == nil {
			all = &Scope{}
			for _, it := range items {
				all.Cols = append(all.Cols, it.Sc.Cols...)
			}
		}
		var err error
		if e.cond, err = qc.bindWhere(p.n, all); err != nil {
			return nil, err
		}
		edges = append(edges, e)
	}
	compositeKeys(edges, rows)
	jp := make([]logical.JoinPred, len(edges))
	for i, e := range edges {
		jp[i] = logical.JoinPred{Rels: e.mask, Sel: e.sel, Hash: e.equal, A: e.a, B: e.b, KeyA: e.ka, KeyB: e.kb, Cond: e.cond}
	}
	plan, err := qc.optimizeNode(logical.NewJoinGraph(nodes, rows, names, jp))
	if err != nil {
		return nil, err
	}
	how := joinorder.How(n)
	if written := optimize.WrittenOrders(plan); written != plan {
		plan, how = written, "written order"
	}
	if qc.s.logicalPlans != nil {
		*qc.s.logicalPlans = append(*qc.s.logicalPlans, logical.String(plan))
	}
	op, err := qc.builder().Build(plan)
	if err != nil {
		return nil, err
	}
	rowsOut, cost := joinEstimates(plan)
	out := &Source{op: op, Sc: &Scope{}, rows: rowsOut, node: plan, nodeOp: op}
	for _, it := range items {
		out.Sc.Cols = append(out.Sc.Cols, it.Sc.Cols...)
	}
	// the items' scans in the order the plan joins them, then those of
	// the items a rule took apart (outer_join_reorder)
	seen := make([]bool, n)
	var visit func(x logical.Node)
	visit = func(x logical.Node) {
		if i := itemIndex(nodes, x); i >= 0 {
			seen[i] = true
			out.scans = append(out.scans, items[i].scans...)
			return
		}
		for _, in := range x.Inputs() {
			visit(in)
		}
	}
	visit(plan)
	for i, it := range items {
		if !seen[i] {
			out.scans = append(out.scans, it.scans...)
		}
	}
	qc.joins = append(qc.joins, joinBlock{items: n, how: how, cost: cost})
	return out, nil
}

// joinEstimates are the rows out of plan, a join graph's plan after the
// rules, and its estimated cost: the rows of its top join, and the costs
// of the join trees join_order made in it summed (outer_join_reorder
// makes trees below and above an outer join).
func joinEstimates(plan logical.Node) (rows, cost float64) {
	top := plan
	for {
		if p, ok := top.(*logical.Project); ok {
			top = p.Input
		} else if f, ok := top.(*logical.Filter); ok {
			top = f.Input
		} else {
			break
		}
	}
	if j, ok := top.(*logical.Join); ok {
		rows = j.Rows
	}
	return math.Max(1, rows), treesCost(plan)
}

// treesCost sums the costs of the join trees join_order made in n: a
// join with a cost is the root of one, whose cost covers its joins but
// not the trees among its relations.
func treesCost(n logical.Node) float64 {
	j, ok := n.(*logical.Join)
	if !ok || j.Cost == 0 {
		c := 0.0
		for _, in := range n.Inputs() {
			c += treesCost(in)
		}
		return c
	}
	var below func(n logical.Node) float64 // the trees among its relations
	below = func(n logical.Node) float64 {
		if j, ok := n.(*logical.Join); ok && j.Cost > 0 {
			return below(j.Left) + below(j.Right)
		}
		return treesCost(n)
	}
	return j.Cost + below(j.Left) + below(j.Right)
}

// itemIndex is which of a join graph's relations rels leaf l is: one of
// them, or one a rule rewrote in place, keeping its columns (the same
// slice: outer_join_to_inner); -1 for none.
func itemIndex(rels []logical.Node, l logical.Node) int {
	if i := slices.Index(rels, l); i >= 0 {
		return i
	}
	lc := l.Columns()
	for i, r := range rels {
		if c := r.Columns(); len(c) > 0 && len(c) == len(lc) && &c[0] == &lc[0] {
			return i
		}
	}
	return -1
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
