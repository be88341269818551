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
	if h.Partial != nil {
		t.Fatalf("a final aggregation built partial")
	}
	// a partial Aggregate (eager_aggregation's) is a hash aggregate that
	// may pass its rows through
	p := logical.NewAggregate(in, 1, []logical.Agg{{Func: logical.AggCountStar, Out: types.Int64T}})
	p.Partial = true
	if op, err = Build(nil, p); err != nil {
		t.Fatal(err)
	}
	if h := op.(*aggregate.HashAgg); h.Partial == nil {
		t.Fatalf("a partial Aggregate built without Partial")
	}
}

// A Join with keys is a hash join of its sides, one without a nested
// loop, each filter a Filter above it in order; a Builder with Built
// gives a node built before its operators again (a join graph's items,
// built before their joins), and a Get its scan.
func TestBuildJoin(t *testing.T) {
	ts := []types.T{types.Int64T, types.TextT}
	cols := []logical.Column{{Name: "k", Type: ts[0]}, {Name: "v", Type: ts[1]}}
	scan := &exec.TableScan{Label: "public.t"}
	get := &logical.Get{Scan: scan, Cols: cols}
	vals := &exec.Values{T: ts}
	left := &logical.Filter{Input: &logical.Planned{Op: vals, Cols: cols}, Pred: &exec.Const{}}
	b := &Builder{Built: map[logical.Node]exec.Operator{}}
	lop, err := b.Build(left)
	if err != nil {
		t.Fatal(err)
	}
	key := func(i int) []exec.Expr { return []exec.Expr{&exec.ColRef{Idx: i, T: ts[0]}} }
	f1, f2 := &exec.Cmp{Op: exec.LT, L: &exec.ColRef{Idx: 1, T: ts[1]}, R: &exec.ColRef{Idx: 3, T: ts[1]}}, &exec.Const{}
	op, err := b.Build(logical.NewJoin(left, get, key(0), key(0), []exec.Expr{f1, f2}, 10, 20))
	if err != nil {
		t.Fatal(err)
	}
	outer, ok := op.(*exec.Filter)
	if !ok || outer.Pred != f2 {
		t.Fatalf("got %T, want the last filter on top", op)
	}
	inner, ok := outer.Input.(*exec.Filter)
	if !ok || inner.Pred != f1 {
		t.Fatalf("got %T under the last filter, want the first", outer.Input)
	}
	hj, ok := inner.Input.(*exec.HashJoin)
	if !ok || hj.Left != lop || hj.Right != scan || hj.Type != exec.JoinInner || len(hj.LeftKeys) != 1 {
		t.Fatalf("got %T %+v, want an inner hash join of the left input built before and the scan", inner.Input, inner.Input)
	}
	op, err = b.Build(logical.NewJoin(get, left, nil, nil, nil, 10, 20))
	if err != nil {
		t.Fatal(err)
	}
	if nl, ok := op.(*exec.NestedLoopJoin); !ok || nl.Left != scan || nl.Right != lop || nl.On != nil {
		t.Fatalf("got %T, want a nested loop of the scan and the left input built before", op)
	}
	if _, err := b.Build(logical.NewJoinGraph([]logical.Node{get, left}, []float64{1, 1}, []string{"a", "b"}, nil)); err == nil {
		t.Fatal("a join graph built without its order")
	}
}

// An outer join is the hash join of its kind with its ON condition
// evaluated in the join, a nested loop without keys; a LEFT join of a
// smaller left side is a RIGHT join of the sides swapped, its condition's
// columns and the output's put back in order.
func TestBuildOuterJoin(t *testing.T) {
	ts := []types.T{types.Int64T, types.TextT}
	cols := []logical.Column{{Name: "k", Type: ts[0]}, {Name: "v", Type: ts[1]}}
	l, r := &logical.Planned{Op: &exec.Values{T: ts}, Cols: cols}, &logical.Planned{Op: &exec.Values{T: ts}, Cols: cols}
	key := []exec.Expr{&exec.ColRef{Idx: 0, T: ts[0]}}
	on := &exec.Cmp{Op: exec.LT, L: &exec.ColRef{Idx: 1, T: ts[1]}, R: &exec.ColRef{Idx: 3, T: ts[1]}}
	for _, c := range []struct {
		kind logical.JoinKind
		typ  exec.JoinType
	}{{logical.LeftJoin, exec.JoinLeft}, {logical.RightJoin, exec.JoinRight}, {logical.FullJoin, exec.JoinFull}, {logical.InnerJoin, exec.JoinInner}} {
		op, err := Build(nil, logical.NewOuterJoin(c.kind, l, r, key, key, on, false))
		if err != nil {
			t.Fatal(err)
		}
		if hj, ok := op.(*exec.HashJoin); !ok || hj.Type != c.typ || hj.Extra != on || hj.Left != l.Op || hj.Right != r.Op {
			t.Errorf("kind %d: got %T %+v", c.kind, op, op)
		}
		op, err = Build(nil, logical.NewOuterJoin(c.kind, l, r, nil, nil, on, true))
		if err != nil {
			t.Fatal(err)
		}
		if nl, ok := op.(*exec.NestedLoopJoin); !ok || nl.Type != c.typ || nl.On != on {
			t.Errorf("kind %d without keys: got %T %+v", c.kind, op, op)
		}
	}
	op, err := Build(nil, logical.NewOuterJoin(logical.LeftJoin, l, r, key, key, on, true))
	if err != nil {
		t.Fatal(err)
	}
	p, ok := op.(*exec.Project)
	if !ok {
		t.Fatalf("got %T, want the columns put back in order", op)
	}
	hj, ok := p.Input.(*exec.HashJoin)
	if !ok || hj.Type != exec.JoinRight || hj.Left != r.Op || hj.Right != l.Op {
		t.Fatalf("got %T %+v, want a right join of the sides swapped", p.Input, p.Input)
	}
	if got := logical.Expr(hj.Extra); got != "(#3 < #1)" {
		t.Errorf("the condition over the swapped sides is %s", got)
	}
	for i, e := range p.Exprs {
		if want := (i + 2) % 4; e.(*exec.ColRef).Idx != want {
			t.Errorf("output column %d reads %d, want %d", i, e.(*exec.ColRef).Idx, want)
		}
	}
}

// A semi or anti join builds on the side it keeps rows of when LeftSmall
// says that side is the smaller (the right semi or anti hash join, sides
// swapped), else on its right side; a null-aware anti join always builds
// on the right, whose NULL keys decide; without keys it is a nested loop.
func TestBuildSemiAnti(t *testing.T) {
	ts := []types.T{types.Int64T}
	cols := []logical.Column{{Name: "k", Type: ts[0]}}
	l, r := &logical.Planned{Op: &exec.Values{T: ts}, Cols: cols}, &logical.Planned{Op: &exec.Values{T: ts}, Cols: cols}
	key := []exec.Expr{&exec.ColRef{Idx: 0, T: ts[0]}}
	for _, c := range []struct {
		kind      logical.JoinKind
		leftSmall bool
		keys      []exec.Expr
		want      exec.JoinType
		swapped   bool
	}{
		{logical.SemiJoin, false, key, exec.JoinSemi, false},
		{logical.SemiJoin, true, key, exec.JoinRightSemi, true},
		{logical.AntiJoin, true, key, exec.JoinRightAnti, true},
		{logical.AntiNullAwareJoin, false, key, exec.JoinAntiNullAware, false},
	} {
		n := logical.NewOuterJoin(c.kind, l, r, c.keys, c.keys, nil, c.leftSmall)
		if len(n.Columns()) != 1 {
			t.Errorf("%v: %d columns, want the left side's", c.kind, len(n.Columns()))
		}
		op, err := Build(nil, n)
		if err != nil {
			t.Fatal(err)
		}
		hj, ok := op.(*exec.HashJoin)
		if !ok || hj.Type != c.want || (hj.Left == l.Op) == c.swapped {
			t.Errorf("kind %d leftSmall %v: built %#v, want a %s hash join (sides swapped: %v)", c.kind, c.leftSmall, op, c.want, c.swapped)
		}
	}
	op, err := Build(nil, logical.NewOuterJoin(logical.SemiJoin, l, r, nil, nil, &exec.Const{}, true))
	if nl, ok := op.(*exec.NestedLoopJoin); err != nil || !ok || nl.Type != exec.JoinSemi {
		t.Errorf("semi join without keys: built %T (%v)", op, err)
	}
}
