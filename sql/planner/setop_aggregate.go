package planner

import (
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/aggregate"
	"github.com/lakepg/lakepg/types"
)

// setOpAggregate plans INTERSECT or EXCEPT without ALL as a hash
// aggregation: the rows of both inputs, each tagged with its side (1 left,
// 2 right), grouped by every column. INTERSECT keeps the groups both sides
// reach (least tag below greatest), EXCEPT those only the left reaches
// (greatest tag 1). GROUP BY takes NULLs as equal, as set operations do.
//
// SetOp, which this replaces, keyed each row as text in a Go map that no
// memory account saw and returned its result as one batch; the
// aggregation is vectorised, counted and spills. Its inputs are usually
// distinct already (setOpDistinctInputs), so it sees few rows.
//
// The aggregation keeps a group's first row, which may be the right
// side's. PostgreSQL prints the left side's value, so the rule applies only
// where equal values print alike (oneTextPerValue).
func (qc *QueryCtx) setOpAggregate(lop, rop exec.Operator, ncol int, intersect bool) exec.Operator {
	tagged := func(in exec.Operator, tag int64) exec.Operator {
		exprs := make([]exec.Expr, ncol+1)
		for i, t := range in.Types() {
			exprs[i] = &exec.ColRef{Idx: i, T: t}
		}
		exprs[ncol] = exec.NewConst(int64Vec(tag))
		return &exec.Project{Env: qc.env, Input: in, Exprs: exprs}
	}
	both := &exec.Append{Inputs: []exec.Operator{tagged(lop, 1), tagged(rop, 2)}}
	tagCol := func(i int) exec.Expr { return &exec.ColRef{Idx: i, T: types.Int64T} }
	agg := &aggregate.HashAgg{Input: both, NGroup: ncol, Aggs: []aggregate.Agg{{Kind: aggregate.AggMax, Arg: ncol, In: types.Int64T}}}
	keep := exec.Expr(&exec.Cmp{Op: exec.EQ, L: tagCol(ncol), R: exec.NewConst(int64Vec(1))})
	if intersect {
		agg.Aggs = append([]aggregate.Agg{{Kind: aggregate.AggMin, Arg: ncol, In: types.Int64T}}, agg.Aggs...)
		keep = &exec.Cmp{Op: exec.LT, L: tagCol(ncol), R: tagCol(ncol + 1)}
	}
	cols := make([]exec.Expr, ncol)
	for i, t := range agg.Types()[:ncol] {
		cols[i] = &exec.ColRef{Idx: i, T: t}
	}
	return &exec.Project{Env: qc.env, Input: &exec.Filter{Env: qc.env, Input: agg, Pred: keep}, Exprs: cols}
}

// oneTextPerValue reports whether values of types ts that compare equal
// always print alike: not so for numerics without a scale (1.0 and 1.00),
// floats (0 and -0), intervals ('1 day' and '24 hours') and the composite
// and JSON types.
func oneTextPerValue(ts []types.T) bool {
	for _, t := range ts {
		switch t.Storage() {
		case types.StoreInt, types.StoreBool:
		case types.StoreBytes:
			if t.ID != types.Text && t.ID != types.Bytea && t.ID != types.UUID {
				return false
			}
		default:
			return false
		}
	}
	return true
}
