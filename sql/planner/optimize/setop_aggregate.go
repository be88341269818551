package optimize

import (
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/sql/planner/logical"
	"github.com/lakepg/lakepg/types"
)

// SetOpAggregate names the rule that plans INTERSECT and EXCEPT without
// ALL as one aggregation.
const SetOpAggregate = "setop_aggregate"

// setOpAggregate plans INTERSECT or EXCEPT without ALL as an aggregation:
// the rows of both inputs, each tagged with its side (1 left, 2 right),
// grouped by every column. INTERSECT keeps the groups both sides reach
// (least tag below greatest), EXCEPT those only the left reaches
// (greatest tag 1). Grouping takes NULLs as equal, as set operations do.
//
// The set operator this replaces keys each row as text in a Go map that no
// memory account sees and returns its result as one batch; the
// aggregation is vectorised, counted and spills. Its inputs are usually
// distinct already (setop_distinct_inputs runs first), so it sees few
// rows.
//
// The aggregation keeps a group's first row, which may be the right
// side's. PostgreSQL prints the left side's value, so the rule applies only
// where equal values print alike (oneTextPerValue).
type setOpAggregate struct{}

func (setOpAggregate) Name() string { return SetOpAggregate }

func (setOpAggregate) Apply(n logical.Node) (logical.Node, int) {
	s, ok := n.(*logical.SetOp)
	if !ok || s.All || s.Kind == logical.Union || !oneTextPerValue(s.Cols) {
		return n, 0
	}
	ncol := len(s.Cols)
	tagged := func(in logical.Node, tag int64) logical.Node {
		exprs := make([]exec.Expr, ncol+1)
		names := make([]string, ncol+1)
		for i, c := range in.Columns() {
			exprs[i], names[i] = &exec.ColRef{Idx: i, T: c.Type}, c.Name
		}
		exprs[ncol], names[ncol] = int64Const(tag), "side"
		return logical.NewProject(in, exprs, names)
	}
	l := tagged(s.Left, 1)
	both := &logical.SetOp{Kind: logical.Union, All: true, Left: l, Right: tagged(s.Right, 2), Cols: l.Columns()}
	tagCol := func(i int) exec.Expr { return &exec.ColRef{Idx: i, T: types.Int64T} }
	aggs := []logical.Agg{{Func: logical.AggMax, Arg: ncol}}
	keep := exec.Expr(&exec.Cmp{Op: exec.EQ, L: tagCol(ncol), R: int64Const(1)})
	if s.Kind == logical.Intersect {
		aggs = []logical.Agg{{Func: logical.AggMin, Arg: ncol}, {Func: logical.AggMax, Arg: ncol}}
		keep = &exec.Cmp{Op: exec.LT, L: tagCol(ncol), R: tagCol(ncol + 1)}
	}
	agg := logical.NewAggregate(both, ncol, aggs)
	cols := make([]exec.Expr, ncol)
	names := make([]string, ncol)
	for i, c := range s.Cols {
		cols[i], names[i] = &exec.ColRef{Idx: i, T: agg.Cols[i].Type}, c.Name
	}
	return logical.NewProject(&logical.Filter{Input: agg, Pred: keep}, cols, names), 1
}

func int64Const(x int64) exec.Expr {
	v := vec.New(types.Int64T, 1)
	v.AppendInt(x)
	return exec.NewConst(v)
}

// oneTextPerValue reports whether values of columns cols that compare
// equal always print alike: not so for numerics without a scale (1.0 and
// 1.00), floats (0 and -0), intervals ('1 day' and '24 hours') and the
// composite and JSON types.
func oneTextPerValue(cols []logical.Column) bool {
	for _, c := range cols {
		switch c.Type.Storage() {
		case types.StoreInt, types.StoreBool:
		case types.StoreBytes:
			if id := c.Type.ID; id != types.Text && id != types.Bytea && id != types.UUID {
				return false
			}
		default:
			return false
		}
	}
	return true
}
