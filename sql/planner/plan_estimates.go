package planner

import (
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/aggregate"
	"github.com/lakepg/lakepg/sql/planner/logical"
	"github.com/lakepg/lakepg/sql/planner/optimize"
	"github.com/lakepg/lakepg/sql/planner/optree"
)

// planEstimates are the planner's estimates of the nodes of a logical plan
// for the rules that weigh them (optimize.Estimates): those of the
// operators it built the nodes into (QueryCtx.built), by the estimator
// join ordering uses. A node not built yet has none.
type planEstimates struct{ qc *QueryCtx }

// estimates are qc's estimates for the rules, nil for a statement only
// described (its plan is not run: no rule need weigh anything).
func (qc *QueryCtx) estimates() optimize.Estimates {
	if qc.DescribeOnly {
		return nil
	}
	return planEstimates{qc}
}

func (e planEstimates) Rows(n logical.Node) (float64, bool) {
	op, ok := e.qc.built[n]
	if !ok {
		return 0, false
	}
	return e.qc.planEstimator().N(op), true
}

func (e planEstimates) Groups(n logical.Node, keys []exec.Expr) (float64, bool) {
	op, ok := e.qc.built[n]
	if !ok {
		return 0, false
	}
	// the estimate of the aggregation that would group them
	agg := &aggregate.HashAgg{Input: &exec.Project{Env: e.qc.env, Input: op, Exprs: keys}, NGroup: len(keys)}
	return e.qc.planEstimator().N(agg), true
}

func (e planEstimates) Distinct(n logical.Node, key exec.Expr) float64 {
	op, ok := e.qc.built[n]
	if !ok {
		return 0
	}
	return e.qc.planEstimator().ExprColumn(key, op).NDV
}

func (e planEstimates) Filtered(n logical.Node) bool {
	op, ok := e.qc.built[n]
	return !ok || filtered(op)
}

// filtered reports whether op's tree filters rows.
func filtered(op exec.Operator) bool {
	if _, ok := op.(*exec.Filter); ok {
		return true
	}
	for _, in := range optree.Inputs(op) {
		if filtered(*in) {
			return true
		}
	}
	return false
}
