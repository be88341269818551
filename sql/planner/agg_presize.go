package planner

import (
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/aggregate"
	"github.com/lakepg/lakepg/sql/planner/optree"
	"github.com/lakepg/lakepg/types"
)

// presizeAggregations sizes the tables of each aggregation by integer
// keys expected to make many groups for half its estimate (at most
// maxPresizedGroups), so that they do not grow to it by doubling from a
// few slots: TPC-DS q97's tables of 550,000 (customer, item) groups
// placed every group again about twice on the way, a sixth of its CPU.
func (qc *QueryCtx) presizeAggregations(op exec.Operator) {
	est := qc.planEstimator()
	optree.EachOnce(op, func(op exec.Operator) {
		if agg, ok := op.(*aggregate.HashAgg); ok && agg.NGroup > 0 && agg.GroupingSets == nil && agg.Partial == nil && agg.SizeHint == 0 && intKeys(agg) {
			// half the estimate: the last doubling, if the groups come,
			// is left to make, and an overestimate holds half as much
			// (TPC-H Q3's 11,620 groups were estimated at many more)
			if n := est.N(agg) / 2; n >= minPresizedGroups {
				agg.SizeHint = int(min(n, maxPresizedGroups))
			}
		}
	})
}

// intKeys reports an aggregation grouping by integer-stored keys alone:
// its slots are cheap, and its estimate counts distinct keys (text keys,
// a product of names, was several times the groups TPC-DS q67 made, and
// the presized table cost more than the doubling it saved).
func intKeys(agg *aggregate.HashAgg) bool {
	for _, t := range agg.Input.Types()[:agg.NGroup] {
		if t.Storage() != types.StoreInt {
			return false
		}
	}
	return true
}

// minPresizedGroups and maxPresizedGroups bound the groups an aggregation
// is presized for: below, doubling costs little; above, an overestimate
// would hold memory the groups never fill.
const (
	minPresizedGroups = 1 << 14
	maxPresizedGroups = 1 << 20
)
