package physical

import (
	"reflect"
	"runtime"
	"testing"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/aggregate"
	"github.com/lakepg/lakepg/exec/order"
	"github.com/lakepg/lakepg/sql/planner/logical"
	"github.com/lakepg/lakepg/types"
)

// Every executor window function, frame mode, bound and exclusion has its
// logical one and back: the planner describes any window it binds, and
// physical planning builds the window it was given.
func TestWindowFuncRoundTrip(t *testing.T) {
	frames := []aggregate.Frame{{}}
	for m := aggregate.FrameRange; m <= aggregate.FrameGroups; m++ {
		for b := aggregate.BoundUnboundedPreceding; b <= aggregate.BoundUnboundedFollowing; b++ {
			for x := aggregate.ExcludeNoOthers; x <= aggregate.ExcludeTies; x++ {
				frames = append(frames, aggregate.Frame{Mode: m, Exclude: x,
					Start: aggregate.FrameBound{Kind: b, Offset: 3, OffsetF: 0.5, OffsetIv: types.IntervalValue{Days: 2}},
					End:   aggregate.FrameBound{Kind: aggregate.BoundUnboundedFollowing - b}})
			}
		}
	}
	for k := aggregate.WinRowNumber; k <= aggregate.WinAgg; k++ {
		for _, fr := range frames {
			f := aggregate.WindowFunc{Kind: k, Args: []int{1, 2}, Frame: fr}
			if k == aggregate.WinAgg {
				f.Args = nil
				f.Agg = aggregate.Agg{Kind: aggregate.AggSum, Arg: 2, Filter: 1, In: types.Int64T, Out: types.NumericAnyT}
			}
			c, err := LogicalWindowCall(f, types.Int64T)
			if err != nil {
				t.Fatal(err)
			}
			back, err := WindowFunc(c)
			if err != nil || !reflect.DeepEqual(back, f) {
				t.Fatalf("%+v became %+v and %+v (%v)", f, c, back, err)
			}
		}
	}
}

// A Window becomes the executor's window over the same columns, dealt to
// every core when it is Parallel; its types are those the logical node
// announced.
func TestBuildWindow(t *testing.T) {
	ts := []types.T{types.Int64T, types.TextT, types.Int32T}
	in := &logical.Planned{Op: &exec.Values{T: ts}, Cols: []logical.Column{{Type: ts[0]}, {Type: ts[1]}, {Type: ts[2]}}}
	calls := []logical.WindowCall{
		{Func: logical.WinRank, Out: types.Int64T},
		{Func: logical.WinLag, Args: []int{1}, Out: types.TextT},
		{Func: logical.WinAgg, Agg: logical.Agg{Func: logical.AggMax, Arg: 2, In: types.Int32T, Out: types.Int32T},
			Frame: logical.Frame{Mode: logical.FrameRows, Start: logical.FrameBound{Kind: logical.BoundPreceding, Offset: 2}, End: logical.FrameBound{Kind: logical.BoundCurrentRow}}, Out: types.Int32T},
	}
	for _, parallel := range []bool{false, true} {
		n := logical.NewWindow(in, []int{1}, []logical.SortKey{{Col: 0, Desc: true, NullsFirst: true}}, calls, parallel)
		op, err := Build(nil, n)
		if err != nil {
			t.Fatal(err)
		}
		w, ok := op.(*aggregate.Window)
		if !ok {
			t.Fatalf("built %T", op)
		}
		workers := 0
		if parallel {
			workers = runtime.GOMAXPROCS(0)
		}
		if !reflect.DeepEqual(w.PartitionBy, []int{1}) || !reflect.DeepEqual(w.OrderBy, []order.SortKey{{Col: 0, Desc: true, NullsFirst: true}}) ||
			len(w.Funcs) != 3 || w.Funcs[2].Agg.Kind != aggregate.AggMax || w.Funcs[2].Frame.Start.Offset != 2 || w.Workers != workers {
			t.Fatalf("built %+v", w)
		}
		var cols []types.T
		for _, c := range n.Columns() {
			cols = append(cols, c.Type)
		}
		if !reflect.DeepEqual(w.Types(), cols) {
			t.Fatalf("operator types %v, logical %v", w.Types(), cols)
		}
	}
}

type overRecorder struct{ in exec.Operator }

func (o *overRecorder) Over(in exec.Operator, _ exec.Expr) exec.Operator {
	o.in = in
	return &exec.Limit{Input: in, Count: -1}
}

// An Apply's subquery goes over the operators of its input, as planned.
func TestBuildApply(t *testing.T) {
	in := &logical.Planned{Op: &exec.Values{T: []types.T{types.Int64T}}, Cols: []logical.Column{{Type: types.Int64T}}}
	sub := &overRecorder{}
	n := logical.NewApply(logical.NewProject(in, []exec.Expr{&exec.ColRef{Idx: 0, T: types.Int64T}}, nil), logical.SubExists, sub, nil, types.BoolT)
	op, err := Build(nil, n)
	if err != nil {
		t.Fatal(err)
	}
	if p, ok := sub.in.(*exec.Project); !ok || p.Input != in.Op || op.(*exec.Limit).Input != sub.in {
		t.Fatalf("built %T over %T", op, sub.in)
	}
	if got := logical.String(n); got != "Apply exists (boolean)\n  Project #0\n    Planned Values (bigint)" {
		t.Fatalf("printed %q", got)
	}
}
