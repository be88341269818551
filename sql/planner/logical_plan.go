package planner

import (
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/aggregate"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/sql/planner/bind"
	"github.com/lakepg/lakepg/sql/planner/estimate"
	"github.com/lakepg/lakepg/sql/planner/logical"
	"github.com/lakepg/lakepg/sql/planner/optimize"
	"github.com/lakepg/lakepg/sql/planner/physical"
	pg "github.com/pganalyze/pg_query_go/v6"
)

// The parts of a query planned as a logical plan (sql/planner/logical) so
// far: set operations, the aggregation of a SELECT block (GROUP BY,
// grouping sets, aggregates, HAVING) with the correlated subqueries over
// its groups (logical.Apply nodes: lateSubLinks.nodes), its windows
// (window_plan.go) with the correlated subqueries testing a window call's
// value (Apply nodes again), its tail (select list, DISTINCT, ORDER BY,
// LIMIT) and the ORDER BY / LIMIT of a set operation or a VALUES list;
// and, as plans of their own, the inner joins of each FROM list
// (join_order.go: a JoinGraph the join_order rule orders, built into
// operators at once, since what follows a FROM list in the planner —
// subqueries in WHERE, GROUP BY before a join, dynamic filters — still
// works on operators).
// Their plan is built here and in select.go, rewritten by the
// optimizer's rules (sql/planner/optimize) and turned into operators by
// physical planning (sql/planner/physical) where a caller needs operators
// (PlanSelect): once per query, whatever the number of set operations
// nested in it. The rest of a SELECT block is planned into operators and
// enters as a Planned leaf.

// logicalQuery is a query planned as a logical plan, before the rules:
// the plan, its columns as the planner describes them (with their origins
// and record fields, which the plan's columns do not carry) and the table
// scans under it.
type logicalQuery struct {
	node  logical.Node
	cols  []Column
	scans []*exec.TableScan
}

// selectNode plans sel (no WITH clause) as a logical plan: a set
// operation, a VALUES list or a SELECT block.
func (qc *QueryCtx) selectNode(sel *pg.SelectStmt) (*logicalQuery, error) {
	if sel.Op != pg.SetOperation_SETOP_NONE {
		return qc.setOpNode(sel)
	}
	if len(sel.ValuesLists) > 0 {
		q, err := qc.s.planValues(qc.binder(), sel.ValuesLists)
		if err != nil {
			return nil, err
		}
		lq := &logicalQuery{node: plannedOp(q.Op), cols: q.Cols, scans: q.scans}
		for i := range lq.cols {
			lq.node.(*logical.Planned).Cols[i].Name = lq.cols[i].Name
		}
		return qc.orderLimitNode(sel, lq)
	}
	return qc.s.planSimple(qc, sel)
}

// inputNode is an input of a set operation: its logical plan, or with a
// WITH clause of its own (whose names its planning sees) its operators as
// a Planned leaf.
func (qc *QueryCtx) inputNode(sel *pg.SelectStmt) (*logicalQuery, error) {
	if sel.WithClause == nil {
		return qc.selectNode(sel)
	}
	q, err := qc.PlanSelect(sel)
	if err != nil {
		return nil, err
	}
	n := plannedOp(q.Op)
	for i := range q.Cols {
		n.Cols[i].Name = q.Cols[i].Name
	}
	return &logicalQuery{node: n, cols: q.Cols, scans: q.scans}, nil
}

// plannedOp is the leaf of a logical plan holding operators op, its
// columns unnamed.
func plannedOp(op exec.Operator) *logical.Planned {
	ts := op.Types()
	cols := make([]logical.Column, len(ts))
	for i, t := range ts {
		cols[i].Type = t
	}
	return &logical.Planned{Op: op, Cols: cols, Distinct: distinctRows(op, len(cols))}
}

// physicalQuery runs the rules over logical plan lq and plans its
// operators.
func (qc *QueryCtx) physicalQuery(lq *logicalQuery) (*query, error) {
	n, err := qc.optimizeNode(lq.node)
	if err != nil {
		return nil, err
	}
	if qc.s.logicalPlans != nil {
		*qc.s.logicalPlans = append(*qc.s.logicalPlans, logical.String(n))
	}
	op, err := qc.builder().Build(n)
	if err != nil {
		return nil, err
	}
	qc.keepEstimates(n)
	return &query{Op: op, Cols: lq.cols, scans: lq.scans, node: n}, nil
}

// keepEstimates gives the operators of plan n's aggregations the
// estimates they had before a rule rewrote what is under them
// (logical.Aggregate.Rows): a WITH query or derived table whose
// aggregation eager_aggregation split is joined in the order it would be
// without the rule.
func (qc *QueryCtx) keepEstimates(n logical.Node) {
	if a, ok := n.(*logical.Aggregate); ok && a.Rows > 0 {
		if op, ok := qc.built[a]; ok {
			qc.planEstimator().Rows[op] = estimate.Estimate{Rows: a.Rows, How: "groups estimated before eager aggregation"}
			qc.kept[op] = true
		}
	}
	for _, in := range n.Inputs() {
		qc.keepEstimates(in)
	}
}

// forgetKeptEstimates lets the estimator estimate the aggregations
// keepEstimates gave estimates again, over the partial aggregations under
// them, once the joins are planned: presizing sizes an aggregation's
// tables by the groups it is estimated to meet there.
func (qc *QueryCtx) forgetKeptEstimates() {
	for op := range qc.kept {
		delete(qc.planEstimator().Rows, op)
	}
}

// optimizeNode runs the optimizer's rules over plan n, counting their
// changes.
func (qc *QueryCtx) optimizeNode(n logical.Node) (logical.Node, error) {
	return optimize.Optimize(n, qc.estimates(), qc.ruleOn, func(rule string, changes int) {
		for range changes {
			qc.fired(rule)
		}
	})
}

// distinctRows reports whether op's rows of ncol columns are known to be
// distinct: a DISTINCT aggregate over exactly those columns, a set
// operation without ALL, or a projection that only renames or casts their
// columns one to one. It is what a Planned leaf tells the rules
// (logical.Planned.Distinct) until the operators it reads are logical
// nodes too.
func distinctRows(op exec.Operator, ncol int) bool {
	switch o := op.(type) {
	case *aggregate.HashAgg:
		return len(o.Aggs) == 0 && o.GroupingSets == nil && !o.GroupingID && o.NGroup == ncol
	case *exec.SetOp:
		return !o.All
	case *exec.Project:
		if len(o.Exprs) != ncol || len(o.Input.Types()) != ncol {
			return false
		}
		for i, e := range o.Exprs {
			if c, ok := e.(*exec.ColRef); !ok || c.Idx != i {
				return false
			}
		}
		return distinctRows(o.Input, ncol)
	}
	return false
}

// aggregateNode is the aggregation coll collected (GROUP BY, grouping
// sets, the aggregate calls) over in: a Project of the group keys and the
// aggregates' inputs, the Aggregate, and over grouping sets a Project of
// all its columns (which physical planning keeps as the operators always
// had it). It sets coll.Gid, the grouping id column, for grouping sets.
func (qc *QueryCtx) aggregateNode(coll *bind.AggCollector, in logical.Node) (logical.Node, error) {
	pre, ngroup, aggs := coll.Parts(nil, nil)
	las := make([]logical.Agg, len(aggs))
	for i, a := range aggs {
		f, ok := physical.AggFunc(a.Kind)
		if !ok {
			return nil, pgerr.New(pgerr.Internal, "no logical aggregate for %s", a.Kind.Name())
		}
		las[i] = logical.Agg{Func: f, Arg: a.Arg, Arg2: a.Arg2, Distinct: a.Distinct, Filter: a.Filter,
			Desc: a.Desc, In: a.In, Out: a.Out}
		if a.Order != nil {
			las[i].Order = make([]logical.SortKey, len(a.Order))
			for k, o := range a.Order {
				las[i].Order[k] = logical.SortKey{Col: o.Col, Desc: o.Desc, NullsFirst: o.NullsFirst}
			}
		}
	}
	agg := logical.NewGroupingSets(logical.NewProject(in, pre, nil), ngroup, las, coll.Sets)
	if coll.Sets == nil {
		return agg, nil
	}
	cols := agg.Columns()
	all := make([]exec.Expr, len(cols))
	for i, c := range cols {
		all[i] = &exec.ColRef{Idx: i, T: c.Type}
	}
	coll.Gid = all[len(all)-1].(*exec.ColRef)
	return logical.NewProject(agg, all, nil), nil
}
