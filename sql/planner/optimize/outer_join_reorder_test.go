package optimize

import (
	"testing"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/sql/planner/logical"
	"github.com/lakepg/lakepg/types"
)

// outerGraph is week (10 rows: wk, name), fact LEFT JOIN ret ON fact.qty
// = ret.id (fact: dk, wk, qty, 1,000,000 rows; ret: id, reason, 1,000)
// and dim (100 rows: dk, kind), with fact.wk = week.wk and the predicate
// between the join and dim given.
func outerGraph(dimPred logical.JoinPred) *logical.JoinGraph {
	i64, text := types.Int64T, types.TextT
	rel := func(ts ...types.T) logical.Node { return leaf(false, ts...) }
	j := logical.NewOuterJoin(logical.LeftJoin, rel(i64, i64, i64), rel(i64, i64), []exec.Expr{col(2)}, []exec.Expr{col(0)}, nil, false)
	j.LeftRows, j.RightRows = 1e6, 1000
	// the graph's columns: week 0-1, fact 2-4, ret 5-6, dim 7-8
	preds := []logical.JoinPred{{Rels: 0b011, Sel: 0.1, Hash: true, A: 1, B: 0, KeyA: col(3), KeyB: col(0)}, dimPred}
	return logical.NewJoinGraph([]logical.Node{rel(i64, text), j, rel(i64, text)}, []float64{10, 1e6, 100}, []string{"week", "j", "dim"}, preds)
}

// outer_join_reorder joins week and dim to fact below the LEFT join when
// their predicates read fact alone; a predicate reading ret keeps dim
// above it, in a graph of its own. The columns come back in the graph's
// order, the given plan is left as it was, and a second run changes
// nothing.
func TestOuterJoinReorderRule(t *testing.T) {
	onFact := logical.JoinPred{Rels: 0b110, Sel: 0.01, Hash: true, A: 1, B: 2, KeyA: col(2), KeyB: col(7)}
	onRet := logical.JoinPred{Rels: 0b110, Sel: 0.01, Cond: &exec.Cmp{Op: exec.LT,
		L: &exec.Coalesce{Args: []exec.Expr{col(6), intConst(0)}, T: types.Int64T}, R: col(7)}}
	for _, c := range []struct {
		pred logical.JoinPred
		want string
	}{
		{onFact, `Project #3 AS c, #4 AS c, #0 AS c, #1 AS c, #2 AS c, #7 AS c, #8 AS c, #5 AS c, #6 AS c
  left Join hash (#2 = #0) rows 1e+06
    JoinGraph rows (1e+06, 10, 100) on (#1 = #3) sel 0.1, (#0 = #5) sel 0.01
      Planned Values (c bigint, c bigint, c bigint)
      Planned Values (c bigint, c text)
      Planned Values (c bigint, c text)
    Planned Values (c bigint, c bigint)`},
		{onRet, `Project #3 AS c, #4 AS c, #0 AS c, #1 AS c, #2 AS c, #5 AS c, #6 AS c, #7 AS c, #8 AS c
  JoinGraph rows (1e+06, 100) on (Coalesce(…) < #7) sel 0.01
    left Join hash (#2 = #0) rows 1e+06
      JoinGraph rows (1e+06, 10) on (#1 = #3) sel 0.1
        Planned Values (c bigint, c bigint, c bigint)
        Planned Values (c bigint, c text)
      Planned Values (c bigint, c bigint)
    Planned Values (c bigint, c text)`},
	} {
		g := outerGraph(c.pred)
		before := logical.String(g)
		out, fired := run(t, g, "join_order")
		if got := logical.String(out); got != c.want {
			t.Errorf("%s\nbecame (%v)\n%s\nwant\n%s", before, fired, got, c.want)
		}
		if logical.String(g) != before {
			t.Errorf("the plan given changed:\n%s", logical.String(g))
		}
		if _, again := run(t, out, "join_order"); len(again) != 0 {
			t.Errorf("a second run fired %v", again)
		}
		if _, off := run(t, g, "join_order", OuterJoinReorder); len(off) != 0 {
			t.Errorf("ran while off: %v", off)
		}
	}
}
