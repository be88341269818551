package planner

import (
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/aggregate"
)

// setOpDistinctInputs puts a DISTINCT aggregate under each input of an
// INTERSECT or EXCEPT without ALL: only whether a row occurs matters there,
// so the inputs may lose their duplicates first. The aggregate runs on all
// cores over its pipeline (parallelize) and leaves SetOp, which is serial
// and keys rows as text, with the distinct rows only: in TPC-DS q14 the
// three sales joins' 4.3 M rows become a few thousand brand/class/category
// triples. An input that is already distinct stays as it is.
func (qc *QueryCtx) setOpDistinctInputs(in exec.Operator, ncol int) exec.Operator {
	if !qc.ruleOn(ruleSetOpDistinct) || distinctRows(in, ncol) {
		return in
	}
	qc.fired(ruleSetOpDistinct)
	return &aggregate.HashAgg{Input: in, NGroup: ncol}
}

// distinctRows reports whether op's rows of ncol columns are known to be
// distinct: a DISTINCT aggregate over exactly those columns, a set
// operation without ALL, or a projection that only renames or casts their
// columns one to one.
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
