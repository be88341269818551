package physical

import (
	"reflect"
	"testing"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/aggregate"
	"github.com/lakepg/lakepg/sql/planner/logical"
	"github.com/lakepg/lakepg/types"
)

// Every executor aggregate has its logical one and back, so the planner
// can describe any aggregation it binds.
func TestAggFuncRoundTrip(t *testing.T) {
	for k := aggregate.AggCountStar; k <= aggregate.AggMode; k++ {
		f, ok := AggFunc(k)
		if !ok || aggKinds[f] != k {
			t.Errorf("%s: logical %v (%v) does not map back", k.Name(), f, ok)
		}
	}
}

// An Aggregate becomes the hash aggregate with the same columns, calls
// and grouping sets; its types are those the logical node announced.
func TestBuildAggregate(t *testing.T) {
	ts := []types.T{types.Int64T, types.TextT, types.BoolT}
	in := &logical.Planned{Op: &exec.Values{T: ts}, Cols: []logical.Column{{Type: ts[0]}, {Type: ts[1]}, {Type: ts[2]}}}
	n := logical.NewGroupingSets(in, 1, []logical.Agg{
		{Func: logical.AggCountStar, In: types.Int64T, Out: types.Int64T},
		{Func: logical.AggStringAgg, Arg: 1, Arg2: 1, Filter: 3, In: types.TextT, Out: types.TextT,
			Order: []logical.SortKey{{Col: 0, Desc: true}}},
		{Func: logical.AggMax, Arg: 0, Distinct: true},
	}, [][]int{{0}, {}})
	op, err := Build(nil, n)
	if err != nil {
		t.Fatal(err)
	}
	h, ok := op.(*aggregate.HashAgg)
	if !ok {
		t.Fatalf("built %T", op)
	}
	want := []aggregate.Agg{
		{Kind: aggregate.AggCountStar, In: types.Int64T, Out: types.Int64T},
		{Kind: aggregate.AggStringAgg, Arg: 1, Arg2: 1, Filter: 3, In: types.TextT, Out: types.TextT,
			Order: []aggregate.AggOrder{{Col: 0, Desc: true}}},
		{Kind: aggregate.AggMax, Arg: 0, Distinct: true, In: types.Int64T, Out: types.Int64T},
	}
	if h.NGroup != 1 || !h.GroupingID || !reflect.DeepEqual(h.GroupingSets, [][]int{{0}, {}}) || !reflect.DeepEqual(h.Aggs, want) {
		t.Fatalf("built %+v", h)
	}
	var cols []types.T
	for _, c := range n.Columns() {
		cols = append(cols, c.Type)
	}
	if !reflect.DeepEqual(h.Types(), cols) {
		t.Fatalf("operator types %v, logical %v", h.Types(), cols)
	}
}
