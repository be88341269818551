package optimize

import (
	"fmt"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/sql/planner/logical"
)

// Rule is one rewrite of the logical plan.
type Rule interface {
	// Name is the rule's name in lakepg.disabled_rules and EXPLAIN.
	Name() string
	// Apply rewrites node n, whose inputs are rewritten already, and
	// returns the result and the number of changes (0: n unchanged). It
	// must not modify n: nodes may be shared.
	Apply(n logical.Node) (logical.Node, int)
}

// Rules are the rules in the order the driver runs them. Order matters:
// filter_below_project brings filters down to the joins under USING's
// projections for the outer-join rules; outer_join_to_inner meets the
// explicit JOINs of FROM items under their filters, which the planner
// optimizes as plans of their own, and makes
// LEFT joins that outer_join_to_anti may make anti joins and sides
// preserved that outer_join_pushdown then moves filters onto;
// outer_join_reorder takes the LEFT and anti joins those leave among a
// join graph's relations apart into join graphs below and above them
// (after them, so that it meets outer joins made inner as inner and
// filters moved onto K already, not left above the join it builds);
// join_order then meets only join graphs, those of FROM lists, which the
// planner optimizes as plans of their own, and those
// outer_join_reorder made, innermost first; eager_aggregation meets the
// joins join_order chose under a block's aggregation;
// setop_distinct_inputs sees the set operations before setop_aggregate
// turns them into an aggregation. window_order rewrites window stacks,
// which no other rule touches.
var Rules = []Rule{filterBelowProject{}, outerJoinToInner{}, outerJoinToAnti{}, outerJoinPushdown{}, outerJoinReorder{}, joinOrder{}, eagerAggregation{}, setOpDistinctInputs{}, setOpAggregate{}, windowOrder{}}

// Estimates are the planner's estimates of the nodes of the plan being
// optimized. ok is false where it has none.
type Estimates interface {
	// Rows is the estimated rows of n.
	Rows(n logical.Node) (rows float64, ok bool)
	// Groups is the estimated groups of n's rows grouped by keys, each
	// over n's columns.
	Groups(n logical.Node, keys []exec.Expr) (groups float64, ok bool)
	// Distinct is the estimated distinct values of key, over n's
	// columns, in n's rows: 0 when unknown.
	Distinct(n logical.Node, key exec.Expr) float64
	// Filtered reports whether n's subtree drops rows by a predicate (a
	// filter anywhere in it); true when unknown.
	Filtered(n logical.Node) bool
}

// estimating is a rule that weighs the planner's estimates: the driver
// gives it those of the plan it optimizes.
type estimating interface {
	withEstimates(Estimates) Rule
}

// maxPasses bounds a rule's passes over one plan: rules reach their fixed
// point in one or two; more means two rewrites undoing each other.
const maxPasses = 8

// Optimize runs the rules on(name) allows over plan n, calling fired
// with each rule's changes, and returns the rewritten plan. est are the
// planner's estimates of n's nodes (nil: none, and the rules that weigh
// them leave the plan as it is).
func Optimize(n logical.Node, est Estimates, on func(rule string) bool, fired func(rule string, changes int)) (logical.Node, error) {
	for _, r := range Rules {
		if !on(r.Name()) {
			continue
		}
		if e, ok := r.(estimating); ok {
			r = e.withEstimates(est)
		}
		for pass := 0; ; pass++ {
			if pass == maxPasses {
				return nil, pgerr.New(pgerr.Internal, "rule %s does not reach a fixed point", r.Name())
			}
			out, changes, err := apply(r, n)
			if err != nil {
				return nil, err
			}
			n = out
			if changes == 0 {
				break
			}
			fired(r.Name(), changes)
		}
	}
	return n, nil
}

// apply runs rule r over plan n bottom-up.
func apply(r Rule, n logical.Node) (logical.Node, int, error) {
	total := 0
	ins := n.Inputs()
	var newIns []logical.Node
	for i, in := range ins {
		out, k, err := apply(r, in)
		if err != nil {
			return nil, 0, err
		}
		if out != in {
			if newIns == nil {
				newIns = append([]logical.Node{}, ins...)
			}
			newIns[i] = out
		}
		total += k
	}
	if newIns != nil {
		n = logical.WithInputs(n, newIns)
	}
	out, k := r.Apply(n)
	if k > 0 {
		if err := sameTypes(n, out); err != nil {
			return nil, 0, pgerr.New(pgerr.Internal, "rule %s: %v", r.Name(), err)
		}
	}
	return out, total + k, nil
}

// sameTypes checks that a rewrite kept a node's column types.
func sameTypes(before, after logical.Node) error {
	b, a := before.Columns(), after.Columns()
	if len(b) != len(a) {
		return fmt.Errorf("%d columns became %d", len(b), len(a))
	}
	for i := range b {
		if b[i].Type != a[i].Type {
			return fmt.Errorf("column %d of type %s became %s", i+1, b[i].Type, a[i].Type)
		}
	}
	return nil
}
