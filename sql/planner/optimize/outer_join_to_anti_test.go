package optimize

import (
	"testing"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/sql/planner/logical"
	"github.com/lakepg/lakepg/types"
)

// outer_join_to_anti takes the IS NULL of a right key column out of the
// filters over a LEFT join, which becomes an anti join under a projection
// adding the NULLs (the join's columns, the same slice); the filters over
// the left side go under the projection and then below the join, the
// others stay above. An IS NULL of a column no key is NULL without, or
// over another kind of join, changes nothing.
func TestOuterJoinToAntiRule(t *testing.T) {
	l, r := leaf(false, types.Int64T, types.Int64T), leaf(false, types.Int64T, types.Int64T)
	rkey := &exec.Cast{E: col(0), To: types.Int64T}
	onLeft := &exec.Cmp{Op: exec.EQ, L: col(1), R: intConst(3)}
	both := &exec.Cmp{Op: exec.LT, L: col(1), R: &exec.Coalesce{Args: []exec.Expr{col(3), intConst(0)}, T: types.Int64T}}
	keyNull, otherNull := &exec.IsNull{E: col(2)}, &exec.IsNull{E: col(3)}
	for _, c := range []struct {
		kind  logical.JoinKind
		preds []exec.Expr
		want  string
	}{
		{logical.LeftJoin, []exec.Expr{both, keyNull, onLeft}, `Filter (#1 < Coalesce(…))
  Project #0 AS c, #1 AS c, NULL::bigint AS c, NULL::bigint AS c
    anti Join hash (#0 = (#0)::bigint) on (#1 < #3)
      Filter (#1 = 3::bigint)
        Planned Values (c bigint, c bigint)
      Planned Values (c bigint, c bigint)`},
		{logical.LeftJoin, []exec.Expr{otherNull}, `Filter IsNull(…)
  left Join hash (#0 = (#0)::bigint) on (#1 < #3)
    Planned Values (c bigint, c bigint)
    Planned Values (c bigint, c bigint)`},
		{logical.RightJoin, []exec.Expr{&exec.IsNull{E: col(0)}}, `Filter IsNull(…)
  right Join hash (#0 = (#0)::bigint) on (#1 < #3)
    Planned Values (c bigint, c bigint)
    Planned Values (c bigint, c bigint)`},
	} {
		on := &exec.Cmp{Op: exec.LT, L: col(1), R: col(3)}
		j := logical.NewOuterJoin(c.kind, l, r, []exec.Expr{col(0)}, []exec.Expr{rkey}, on, true)
		var n logical.Node = j
		for _, p := range c.preds {
			n = &logical.Filter{Input: n, Pred: p}
		}
		before := logical.String(n)
		out, fired := run(t, n, OuterJoinToInner)
		if got := logical.String(out); got != c.want {
			t.Errorf("%s\nbecame (%v)\n%s\nwant\n%s", before, fired, got, c.want)
		}
		if logical.String(n) != before {
			t.Errorf("the plan given changed:\n%s", logical.String(n))
		}
		if f, ok := out.(*logical.Filter); !ok {
			t.Errorf("%s: no filter on top", before)
		} else if p, ok := f.Input.(*logical.Project); ok && &p.Cols[0] != &j.Cols[0] {
			t.Errorf("the projection has columns of its own")
		}
		if _, off := run(t, n, OuterJoinToInner, OuterJoinToAnti, OuterJoinPushdown); len(off) != 0 {
			t.Errorf("%s: ran while off: %v", before, off)
		}
	}
}
