package optimize

import (
	"testing"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/sql/planner/logical"
	"github.com/lakepg/lakepg/types"
)

// joinGraph is week (10 rows: wk, name), fact (1,000,000 rows: dk, wk,
// qty) and dim (100 rows: dk, kind), written in that order: fact.wk =
// week.wk and fact.dk = dim.dk as hash keys, and week.name < dim.kind
// over the two small relations.
func joinGraph() *logical.JoinGraph {
	i64, text := types.Int64T, types.TextT
	col := func(i int, t types.T) exec.Expr { return &exec.ColRef{Idx: i, T: t} }
	rel := func(names []string, ts ...types.T) logical.Node {
		p := leaf(false, ts...)
		for i := range p.Cols {
			p.Cols[i].Name = names[i]
		}
		return p
	}
	week := rel([]string{"wk", "name"}, i64, text)
	fact := rel([]string{"dk", "wk", "qty"}, i64, i64, i64)
	dim := rel([]string{"dk", "kind"}, i64, text)
	// the graph's columns: week 0-1, fact 2-4, dim 5-6
	preds := []logical.JoinPred{
		{Rels: 0b011, Sel: 0.1, Hash: true, A: 1, B: 0, KeyA: col(3, i64), KeyB: col(0, i64)},
		{Rels: 0b110, Sel: 0.01, Hash: true, A: 1, B: 2, KeyA: col(2, i64), KeyB: col(5, i64)},
		{Rels: 0b101, Sel: 1.0 / 3, Cond: &exec.Cmp{Op: exec.LT, L: col(1, text), R: col(6, text)}},
	}
	return logical.NewJoinGraph([]logical.Node{week, fact, dim}, []float64{10, 1e6, 100}, []string{"week", "fact", "dim"}, preds)
}

// join_order has the large relation probe one hash table of the two small
// ones (joined by their condition, 1,000 pairs), on both keys, each on the
// side holding its column, and gives the columns back in the written
// order; switched off, the relations join as written, left-deep.
func TestJoinOrderRule(t *testing.T) {
	g := joinGraph()
	if got, want := logical.String(g), `JoinGraph rows (10, 1e+06, 100) on (#3 = #0) sel 0.1, (#2 = #5) sel 0.01, (#1 < #6) sel 0.333
  Planned Values (wk bigint, name text)
  Planned Values (dk bigint, wk bigint, qty bigint)
  Planned Values (dk bigint, kind text)`; got != want {
		t.Fatalf("graph printed\n%s\nwant\n%s", got, want)
	}
	out, fired := run(t, g)
	if fired["join_order"] != 1 {
		t.Fatalf("fired %v, want join_order once", fired)
	}
	want := `Project #5 AS wk, #6 AS name, #0 AS dk, #1 AS wk, #2 AS qty, #3 AS dk, #4 AS kind
  Join hash (#1 = #2, #0 = #0) rows 3.333e+05
    Planned Values (dk bigint, wk bigint, qty bigint)
    Join nested loop filter (#3 < #1) rows 333.3
      Planned Values (dk bigint, kind text)
      Planned Values (wk bigint, name text)`
	if got := logical.String(out); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	for i, c := range out.Columns() {
		if c.Type != g.Cols[i].Type {
			t.Fatalf("column %d is %s, want %s", i, c.Type, g.Cols[i].Type)
		}
	}

	out, fired = run(t, joinGraph(), "join_order")
	if len(fired) != 0 {
		t.Fatalf("fired %v with join_order off", fired)
	}
	if _, ok := out.(*logical.JoinGraph); !ok {
		t.Fatalf("join_order off changed the graph:\n%s", logical.String(out))
	}
	want = `Join hash (#2 = #0) filter (#1 < #6) rows 3.333e+05
  Join hash (#0 = #1) rows 1e+06
    Planned Values (wk bigint, name text)
    Planned Values (dk bigint, wk bigint, qty bigint)
  Planned Values (dk bigint, kind text)`
	if got := logical.String(WrittenOrder(out.(*logical.JoinGraph))); got != want {
		t.Fatalf("written order\n%s\nwant\n%s", got, want)
	}
}
