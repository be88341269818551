package optimize

import (
	"testing"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/sql/planner/logical"
	"github.com/lakepg/lakepg/types"
)

// referenced names the columns a Project over a window stack reads, by
// the window function computing each (or the base column).
func referenced(p *logical.Project) []string {
	cols := p.Input.Columns()
	var names []string
	for _, e := range p.Exprs {
		names = append(names, cols[e.(*exec.ColRef).Idx].Name)
	}
	return names
}

// window_order stacks the windows whose keys extend others' first, once:
// the select list above still reads each call's result, the partition of
// a window moved above takes the order of the keys below it, the plan it
// was given is unchanged, and a second run changes nothing.
func TestWindowOrderRule(t *testing.T) {
	base := leaf(false, types.Int64T, types.Int64T, types.Int64T)
	// the windows' inputs: a, b, c, then b and a again (another spelling
	// of the same columns)
	pre := logical.NewProject(base, []exec.Expr{
		&exec.ColRef{Idx: 0, T: types.Int64T}, &exec.ColRef{Idx: 1, T: types.Int64T}, &exec.ColRef{Idx: 2, T: types.Int64T},
		&exec.ColRef{Idx: 1, T: types.Int64T}, &exec.ColRef{Idx: 0, T: types.Int64T},
	}, nil)
	call := func(f logical.WinFunc) []logical.WindowCall {
		return []logical.WindowCall{{Func: f, Out: types.Int64T}}
	}
	// count OVER (PARTITION BY a), ntile OVER (PARTITION BY a, b), rank OVER (PARTITION BY b, a ORDER BY c)
	var n logical.Node = logical.NewWindow(pre, []int{0}, nil, call(logical.WinCumeDist), true)
	n = logical.NewWindow(n, []int{0, 1}, nil, call(logical.WinNtile), false)
	n = logical.NewWindow(n, []int{3, 4}, []logical.SortKey{{Col: 2}}, call(logical.WinRank), true)
	var exprs []exec.Expr
	for _, i := range []int{7, 5, 6, 0} {
		exprs = append(exprs, &exec.ColRef{Idx: i, T: types.Int64T})
	}
	top := logical.NewProject(n, exprs, nil)
	before := logical.String(top)
	out, fired := run(t, top)
	if fired[WindowOrder] != 1 {
		t.Fatalf("fired %v, want window_order once", fired)
	}
	want := `Project #5, #7, #6, #0
  Window (PARTITION BY #0) cume_dist() parallel
    Window (PARTITION BY #1, #0) ntile()
      Window (PARTITION BY #3, #4 ORDER BY #2) rank() parallel
        Project #0, #1, #2, #1, #0
          Planned Values (c bigint, c bigint, c bigint)`
	if got := logical.String(out); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if got, was := referenced(out.(*logical.Project)), referenced(top); got[0] != was[0] || got[1] != was[1] || got[2] != was[2] || got[3] != was[3] {
		t.Fatalf("the select list reads %v, it read %v", got, was)
	}
	if logical.String(top) != before {
		t.Fatalf("the input plan changed:\n%s", logical.String(top))
	}
	again, fired := run(t, out)
	if len(fired) != 0 || logical.String(again) != logical.String(out) {
		t.Fatalf("a second run changed the plan (%v)", fired)
	}
	// with the rule off, or without a Project above, the stack stays
	if _, fired := run(t, top, WindowOrder); fired[WindowOrder] != 0 {
		t.Fatal("window_order ran while off")
	}
	if _, fired := run(t, n); fired[WindowOrder] != 0 {
		t.Fatal("window_order reordered a stack without a Project above")
	}
}

type noSubquery struct{}

func (noSubquery) Over(in exec.Operator, _ exec.Expr) exec.Operator { return in }

// A subquery testing a window call's value between the select list and
// the stack reads the call where the rule moved it; its own column stays.
func TestWindowOrderUnderApply(t *testing.T) {
	base := leaf(false, types.Int64T, types.Int64T)
	var n logical.Node = logical.NewWindow(base, []int{0}, nil, []logical.WindowCall{{Func: logical.WinCumeDist, Out: types.Float64T}}, false)
	n = logical.NewWindow(n, []int{0}, []logical.SortKey{{Col: 1}}, []logical.WindowCall{{Func: logical.WinRank, Out: types.Int64T}}, false)
	// cume_dist() = ANY (…), then the select list: rank, cume_dist, the test
	n = logical.NewApply(n, logical.SubAny, noSubquery{}, &exec.ColRef{Idx: 2, T: types.Float64T}, types.BoolT)
	top := logical.NewProject(n, []exec.Expr{&exec.ColRef{Idx: 3, T: types.Int64T}, &exec.ColRef{Idx: 2, T: types.Float64T}, &exec.ColRef{Idx: 4, T: types.BoolT}}, nil)
	out, fired := run(t, top)
	want := `Project #2, #3, #4
  Apply any (boolean) test #3
    Window (PARTITION BY #0) cume_dist()
      Window (PARTITION BY #0 ORDER BY #1) rank()
        Planned Values (c bigint, c bigint)`
	if got := logical.String(out); got != want || fired[WindowOrder] != 1 {
		t.Fatalf("fired %v, got\n%s\nwant\n%s", fired, got, want)
	}
}
