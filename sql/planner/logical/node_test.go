package logical

import (
	"fmt"
	"testing"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/types"
)

func leaf(distinct bool) *Planned {
	ts := []types.T{types.Int64T, types.TextT}
	return &Planned{Op: &exec.Values{T: ts}, Cols: []Column{{"a", ts[0]}, {"b", ts[1]}}, Distinct: distinct}
}

func TestDistinctRows(t *testing.T) {
	ident := func(in Node) Node {
		return NewProject(in, []exec.Expr{&exec.ColRef{Idx: 0, T: types.Int64T}, &exec.ColRef{Idx: 1, T: types.TextT}}, []string{"x", "y"})
	}
	swapped := NewProject(leaf(true), []exec.Expr{&exec.ColRef{Idx: 1, T: types.TextT}, &exec.ColRef{Idx: 0, T: types.Int64T}}, nil)
	dropped := NewProject(leaf(true), []exec.Expr{&exec.ColRef{Idx: 0, T: types.Int64T}}, nil)
	for _, c := range []struct {
		n    Node
		want bool
	}{
		{leaf(false), false},
		{leaf(true), true},
		{&Distinct{Input: leaf(false)}, true},
		{ident(&Distinct{Input: leaf(false)}), true},
		{ident(leaf(false)), false},
		{swapped, false}, // distinct still, but not seen as such: only identity projections are
		{dropped, false},
		{&Limit{Input: &Sort{Input: leaf(true), Keys: []SortKey{{Col: 0}}}, Count: 3}, true},
		{&SetOp{Kind: Union, Left: leaf(false), Right: leaf(false), Cols: leaf(false).Cols}, true},
		{&SetOp{Kind: Union, All: true, Left: leaf(true), Right: leaf(true), Cols: leaf(false).Cols}, false},
		{NewAggregate(leaf(false), 1, nil), true},
		{NewAggregate(leaf(false), 1, []Agg{{Func: AggMax, Arg: 1}}), false},
		{&DistinctOn{Input: leaf(false), Keys: []int{0}}, false},
		// over grouping sets the same keys come once per set
		{NewGroupingSets(leaf(false), 2, nil, [][]int{{0, 1}, {0}}), false},
		{&Filter{Input: NewAggregate(leaf(false), 2, nil), Pred: exec.NullConst(types.BoolT)}, true},
	} {
		if got := DistinctRows(c.n); got != c.want {
			t.Errorf("DistinctRows of\n%s\n= %v, want %v", String(c.n), got, c.want)
		}
	}
}

// WithInputs copies: the node it was given keeps its inputs.
func TestWithInputs(t *testing.T) {
	l, r := leaf(false), leaf(true)
	s := &SetOp{Kind: Except, Left: l, Right: r, Cols: l.Cols}
	c := WithInputs(s, []Node{r, l}).(*SetOp)
	if s.Left != l || s.Right != r || c.Left != r || c.Right != l || c.Kind != Except {
		t.Fatal("WithInputs changed its argument or lost the node's fields")
	}
}

func TestString(t *testing.T) {
	agg := NewAggregate(leaf(false), 1, []Agg{{Func: AggMin, Arg: 0}})
	n := &Limit{Input: &Sort{Input: &Filter{Input: agg, Pred: &exec.Cmp{Op: exec.GE, L: &exec.ColRef{Idx: 1, T: types.Int64T}, R: exec.NullConst(types.Int64T)}},
		Keys: []SortKey{{Col: 0, Desc: true, NullsFirst: true}, {Col: 1, NullsFirst: true}, {Col: 1, Desc: true}}}, Count: -1, Offset: 2, TieKeys: []int{0}}
	want := `Limit ALL OFFSET 2 WITH TIES (#0)
  Sort #0 DESC, #1 NULLS FIRST, #1 DESC NULLS LAST
    Filter (#1 >= NULL::bigint)
      Aggregate group by (#0) min(#0)
        Planned Values (a bigint, b text)`
	if got := String(n); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

// Aggregate prints its calls in SQL's shape over input columns, and its
// columns follow the aggregates' result types.
func TestAggregateString(t *testing.T) {
	ts := []types.T{types.Int64T, types.TextT, types.BoolT, types.Float64T}
	in := &Planned{Op: &exec.Values{T: ts}, Cols: []Column{{"a", ts[0]}, {"b", ts[1]}, {"c", ts[2]}, {"d", ts[3]}}}
	agg := NewGroupingSets(in, 1, []Agg{
		{Func: AggCountStar, Out: types.Int64T},
		{Func: AggSum, Arg: 0, Distinct: true, Filter: 3, Out: types.NumericT(10, 2)},
		{Func: AggStringAgg, Arg: 1, Arg2: 1, Order: []SortKey{{Col: 0, Desc: true, NullsFirst: true}}, Out: types.TextT},
		{Func: AggPercentileDisc, Arg: 0, Arg2: 3, Desc: true},
		{Func: AggMode, Arg: 1},
	}, [][]int{{0}, {}})
	want := "Aggregate group by (#0) sets ((#0), ()) count(*), sum(DISTINCT #0) FILTER (#2), " +
		"string_agg(#1, #1 ORDER BY #0 DESC), percentile_disc(#3) WITHIN GROUP (ORDER BY #0 DESC), mode() WITHIN GROUP (ORDER BY #1)\n" +
		"  Planned Values (a bigint, b text, c boolean, d double precision)"
	if got := String(agg); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	var got []string
	for _, c := range agg.Columns() {
		got = append(got, c.Name+" "+c.Type.String())
	}
	if want := "[a bigint count bigint sum numeric(10,2) string_agg text percentile_disc bigint mode text grouping integer]"; fmt.Sprint(got) != want {
		t.Fatalf("columns %v, want %s", got, want)
	}
}

// A Window's columns are its input's and one per call, named after the
// function; an Apply's its input's and its value; WithInputs keeps their
// fields.
func TestWindowAndApplyColumns(t *testing.T) {
	in := leaf(false)
	w := NewWindow(in, []int{1}, []SortKey{{Col: 0}}, []WindowCall{
		{Func: WinRank, Out: types.Int64T},
		{Func: WinAgg, Agg: Agg{Func: AggSum, Arg: 0}, Out: types.NumericAnyT},
	}, true)
	a := NewApply(w, SubAny, nil, &exec.ColRef{Idx: 2, T: types.Int64T}, types.BoolT)
	var got []string
	for _, c := range a.Columns() {
		got = append(got, c.Name+" "+c.Type.String())
	}
	if want := "[a bigint b text rank bigint sum numeric any boolean]"; fmt.Sprint(got) != want {
		t.Fatalf("columns %v, want %s", got, want)
	}
	c := WithInputs(a, []Node{leaf(true)}).(*Apply)
	if c.Input == a.Input || c.Kind != SubAny || c.Test != a.Test || a.Input != Node(w) {
		t.Fatal("WithInputs changed its argument or lost the Apply's fields")
	}
	cw := WithInputs(w, []Node{leaf(true)}).(*Window)
	if !cw.Parallel || len(cw.Calls) != 2 || w.Input != Node(in) {
		t.Fatal("WithInputs changed its argument or lost the Window's fields")
	}
	want := "Apply any (boolean) test #2\n  Window (PARTITION BY #1 ORDER BY #0) rank(), sum(#0) parallel\n    Planned Values (a bigint, b text)"
	if s := String(a); s != want {
		t.Fatalf("got\n%s\nwant\n%s", s, want)
	}
}
