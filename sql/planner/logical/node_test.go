package logical

import (
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
