package optimize

import (
	"testing"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/sql/planner/logical"
	"github.com/lakepg/lakepg/types"
)

// filter_below_project moves a filter reading only copied columns under
// the projection, its columns renumbered to the input's; one reading a
// computed column stays. Over a USING join's projection the outer-join
// rules then reach the join; and a join graph's predicate rejecting the
// copies of a side's columns makes that side's join inner through the
// projection.
func TestFilterBelowProjectRule(t *testing.T) {
	l, r := leaf(false, types.Int64T, types.Int64T), leaf(false, types.Int64T, types.Int64T)
	// a LEFT JOIN USING (c0): the merged key, then both sides' columns
	using := func(k logical.JoinKind) *logical.Project {
		j := logical.NewOuterJoin(k, l, r, []exec.Expr{col(0)}, []exec.Expr{col(0)}, nil, false)
		merged := col(0)
		if k == logical.FullJoin {
			merged = &exec.Coalesce{Args: []exec.Expr{col(0), col(2)}, T: types.Int64T}
		}
		return logical.NewProject(j, []exec.Expr{merged, col(0), col(1), col(2), col(3)}, nil)
	}
	gt := func(i int) exec.Expr { return &exec.Cmp{Op: exec.GT, L: col(i), R: intConst(3)} }
	graph := logical.NewJoinGraph([]logical.Node{using(logical.LeftJoin), leaf(false, types.Int64T)}, []float64{10, 10}, []string{"a", "b"},
		[]logical.JoinPred{{Rels: 3, Hash: true, A: 0, B: 1, KeyA: col(3), KeyB: col(0)}})
	for _, c := range []struct {
		n        logical.Node
		disabled []string
		want     string
	}{
		// WHERE on the right side's copy: below the projection, the join inner
		{&logical.Filter{Input: using(logical.LeftJoin), Pred: gt(4)}, nil, `Project #0, #0, #1, #2, #3
  Join hash (#0 = #0)
    Planned Values (c bigint, c bigint)
    Filter (#1 > 3::bigint)
      Planned Values (c bigint, c bigint)`},
		// the rule alone: the filter renumbered to the join's columns
		{&logical.Filter{Input: using(logical.LeftJoin), Pred: gt(4)}, []string{OuterJoinToInner, OuterJoinPushdown}, `Project #0, #0, #1, #2, #3
  Filter (#3 > 3::bigint)
    left Join hash (#0 = #0)
      Planned Values (c bigint, c bigint)
      Planned Values (c bigint, c bigint)`},
		// FULL JOIN USING's merged key is computed: the filter stays
		{&logical.Filter{Input: using(logical.FullJoin), Pred: gt(0)}, nil, `Filter (#0 > 3::bigint)
  Project Coalesce(…), #0, #1, #2, #3
    full Join hash (#0 = #0)
      Planned Values (c bigint, c bigint)
      Planned Values (c bigint, c bigint)`},
		{&logical.Filter{Input: using(logical.FullJoin), Pred: gt(2)}, nil, `Project Coalesce(…), #0, #1, #2, #3
  left Join hash (#0 = #0)
    Filter (#1 > 3::bigint)
      Planned Values (c bigint, c bigint)
    Planned Values (c bigint, c bigint)`},
		// a join graph's key on the right side's copy rejects its NULLs
		{graph, []string{"join_order"}, `JoinGraph rows (10, 10) on (#3 = #0) sel 0
  Project #0, #0, #1, #2, #3
    Join hash (#0 = #0)
      Planned Values (c bigint, c bigint)
      Planned Values (c bigint, c bigint)
  Planned Values (c bigint)`},
	} {
		before := logical.String(c.n)
		out, fired := run(t, c.n, c.disabled...)
		if got := logical.String(out); got != c.want {
			t.Errorf("%s\nbecame (%v)\n%s\nwant\n%s", before, fired, got, c.want)
		}
		if logical.String(c.n) != before {
			t.Errorf("the plan given changed:\n%s", logical.String(c.n))
		}
	}
	// outer_join_to_inner reads through the projection by itself (as for
	// a join graph's predicates); the filter reaches the right side only
	// by this rule
	if _, off := run(t, &logical.Filter{Input: using(logical.LeftJoin), Pred: gt(4)}, FilterBelowProject); off[OuterJoinPushdown] != 0 {
		t.Errorf("without the rule the filter went below the join: %v", off)
	}
}
