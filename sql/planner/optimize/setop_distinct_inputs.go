package optimize

import "github.com/lakepg/lakepg/sql/planner/logical"

// SetOpDistinctInputs names the rule that makes the inputs of an INTERSECT
// or EXCEPT without ALL distinct first.
const SetOpDistinctInputs = "setop_distinct_inputs"

// setOpDistinctInputs puts a Distinct under each input of an INTERSECT or
// EXCEPT without ALL: only whether a row occurs matters there, so the
// inputs may lose their duplicates first. The aggregation that does it
// runs on all cores over the input's pipeline and leaves the set
// operation, serial or not, with the distinct rows only: in TPC-DS q14
// the three sales joins' 4.3 M rows become a few thousand
// brand/class/category triples. An input already known to be distinct
// (logical.DistinctRows: a SELECT DISTINCT, another set operation without
// ALL) stays as it is.
type setOpDistinctInputs struct{}

func (setOpDistinctInputs) Name() string { return SetOpDistinctInputs }

func (setOpDistinctInputs) Apply(n logical.Node) (logical.Node, int) {
	s, ok := n.(*logical.SetOp)
	if !ok || s.All || s.Kind == logical.Union {
		return n, 0
	}
	l, r, changes := s.Left, s.Right, 0
	if !logical.DistinctRows(l) {
		l, changes = &logical.Distinct{Input: l}, changes+1
	}
	if !logical.DistinctRows(r) {
		r, changes = &logical.Distinct{Input: r}, changes+1
	}
	if changes == 0 {
		return n, 0
	}
	return logical.WithInputs(s, []logical.Node{l, r}), changes
}
