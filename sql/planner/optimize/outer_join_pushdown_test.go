package optimize

import (
	"testing"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/sql/planner/logical"
	"github.com/lakepg/lakepg/types"
)

// outer_join_pushdown moves each filter over one preserved side onto it
// (the right side's renumbered), past filters it cannot move, and leaves
// FULL joins, the nullable side and filters over both sides alone.
func TestOuterJoinPushdownRule(t *testing.T) {
	l, r := leaf(false, types.Int64T, types.Int64T), leaf(false, types.Int64T, types.Int64T)
	onLeft := &exec.Cmp{Op: exec.EQ, L: col(1), R: intConst(3)}
	onRight := &exec.Cmp{Op: exec.GT, L: col(3), R: intConst(2)}
	both := &exec.Cmp{Op: exec.LT, L: col(1), R: col(3)}
	for _, c := range []struct {
		kind  logical.JoinKind
		preds []exec.Expr
		want  string
		fired int
	}{
		{logical.LeftJoin, []exec.Expr{onLeft, both, onRight}, `Filter (#3 > 2::bigint)
  Filter (#1 < #3)
    left Join hash (#0 = #0)
      Filter (#1 = 3::bigint)
        Planned Values (c bigint, c bigint)
      Planned Values (c bigint, c bigint)`, 1},
		{logical.RightJoin, []exec.Expr{onRight, onLeft}, `Filter (#1 = 3::bigint)
  right Join hash (#0 = #0)
    Planned Values (c bigint, c bigint)
    Filter (#1 > 2::bigint)
      Planned Values (c bigint, c bigint)`, 1},
		{logical.InnerJoin, []exec.Expr{both, onRight, onLeft}, `Filter (#1 < #3)
  Join hash (#0 = #0)
    Filter (#1 = 3::bigint)
      Planned Values (c bigint, c bigint)
    Filter (#1 > 2::bigint)
      Planned Values (c bigint, c bigint)`, 2},
		{logical.FullJoin, []exec.Expr{&exec.IsNull{E: col(1)}}, `Filter IsNull(…)
  full Join hash (#0 = #0)
    Planned Values (c bigint, c bigint)
    Planned Values (c bigint, c bigint)`, 0},
	} {
		var n logical.Node = logical.NewOuterJoin(c.kind, l, r, []exec.Expr{col(0)}, []exec.Expr{col(0)}, nil, false)
		for _, p := range c.preds {
			n = &logical.Filter{Input: n, Pred: p}
		}
		before := logical.String(n)
		out, fired := run(t, n, OuterJoinToInner, OuterJoinToAnti)
		if got := logical.String(out); got != c.want || fired[OuterJoinPushdown] != c.fired {
			t.Errorf("%s\nbecame (%v)\n%s\nwant\n%s", before, fired, got, c.want)
		}
		if logical.String(n) != before {
			t.Errorf("the plan given changed:\n%s", logical.String(n))
		}
		if _, off := run(t, n, OuterJoinToInner, OuterJoinPushdown, OuterJoinToAnti); len(off) != 0 {
			t.Errorf("%s: ran while off: %v", before, off)
		}
	}
}

// The terms of a join's ON condition over a side whose unmatched rows it
// drops filter that side, the right's renumbered; the others stay, and a
// FULL join keeps them all.
func TestOnPushdown(t *testing.T) {
	l, r := leaf(false, types.Int64T, types.Int64T), leaf(false, types.Int64T, types.Int64T)
	onLeft := &exec.Cmp{Op: exec.EQ, L: col(1), R: intConst(3)}
	onRight := &exec.Cmp{Op: exec.GT, L: col(3), R: intConst(2)}
	both := &exec.Cmp{Op: exec.LT, L: col(1), R: col(3)}
	on := &exec.Logic{And: true, Args: []exec.Expr{onLeft, &exec.Logic{And: true, Args: []exec.Expr{both, onRight}}}}
	for _, c := range []struct {
		kind logical.JoinKind
		want string
		n    int
	}{
		{logical.LeftJoin, `left Join hash (#0 = #0) on Logic(…)
  Planned Values (c bigint, c bigint)
  Filter (#1 > 2::bigint)
    Planned Values (c bigint, c bigint)`, 1},
		{logical.RightJoin, `right Join hash (#0 = #0) on Logic(…)
  Filter (#1 = 3::bigint)
    Planned Values (c bigint, c bigint)
  Planned Values (c bigint, c bigint)`, 1},
		{logical.InnerJoin, `Join hash (#0 = #0) on (#1 < #3)
  Filter (#1 = 3::bigint)
    Planned Values (c bigint, c bigint)
  Filter (#1 > 2::bigint)
    Planned Values (c bigint, c bigint)`, 2},
		{logical.FullJoin, `full Join hash (#0 = #0) on Logic(…)
  Planned Values (c bigint, c bigint)
  Planned Values (c bigint, c bigint)`, 0},
	} {
		n := logical.NewOuterJoin(c.kind, l, r, []exec.Expr{col(0)}, []exec.Expr{col(0)}, on, false)
		before := logical.String(n)
		out, fired := run(t, n)
		if got := logical.String(out); got != c.want || fired[OuterJoinPushdown] != c.n || c.n > 0 && len(terms(out.(*logical.Join).On)) != 3-c.n {
			t.Errorf("%s\nbecame (%v)\n%s\nwant\n%s", before, fired, got, c.want)
		}
		if logical.String(n) != before {
			t.Errorf("the plan given changed:\n%s", logical.String(n))
		}
	}
}
