package optimize

import (
	"testing"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/sql/planner/logical"
	"github.com/lakepg/lakepg/types"
)

func intConst(v int64) exec.Expr {
	c := vec.New(types.Int64T, 1)
	c.AppendInt(v)
	return exec.NewConst(c)
}

func col(i int) exec.Expr { return &exec.ColRef{Idx: i, T: types.Int64T} }

// outer_join_to_inner turns each side a filter over the join rejects
// NULL rows of into a side the join need not fill with NULLs, through a
// stack of filters, and leaves the join alone otherwise.
func TestOuterJoinToInnerRule(t *testing.T) {
	l, r := leaf(false, types.Int64T, types.Int64T), leaf(false, types.Int64T, types.Int64T)
	on := &exec.Cmp{Op: exec.LT, L: col(1), R: col(3)}
	join := func(k logical.JoinKind) *logical.Join {
		return logical.NewOuterJoin(k, l, r, []exec.Expr{col(0)}, []exec.Expr{col(0)}, on, true)
	}
	onLeft := &exec.Cmp{Op: exec.EQ, L: col(1), R: intConst(3)}
	onRight := &exec.Cmp{Op: exec.GT, L: &exec.Arith{Op: '+', L: col(3), R: intConst(1), T: types.Int64T}, R: intConst(2)}
	neither := &exec.IsNull{E: col(2)}
	for _, c := range []struct {
		kind  logical.JoinKind
		preds []exec.Expr
		want  logical.JoinKind
		fired int
	}{
		{logical.FullJoin, []exec.Expr{onLeft}, logical.LeftJoin, 1},
		{logical.FullJoin, []exec.Expr{onRight}, logical.RightJoin, 1},
		{logical.FullJoin, []exec.Expr{onLeft, neither, onRight}, logical.InnerJoin, 2},
		{logical.LeftJoin, []exec.Expr{onLeft}, logical.LeftJoin, 0},
		{logical.LeftJoin, []exec.Expr{neither, onRight}, logical.InnerJoin, 1},
		{logical.RightJoin, []exec.Expr{&exec.Logic{And: true, Args: []exec.Expr{neither, onLeft}}}, logical.InnerJoin, 1},
		{logical.FullJoin, []exec.Expr{&exec.Logic{Args: []exec.Expr{onLeft, onRight}}}, logical.FullJoin, 0},
		{logical.FullJoin, []exec.Expr{neither}, logical.FullJoin, 0},
	} {
		var n logical.Node = join(c.kind)
		for _, p := range c.preds {
			n = &logical.Filter{Input: n, Pred: p}
		}
		before := logical.String(n)
		out, fired := run(t, n, OuterJoinPushdown, OuterJoinToAnti) // which would move the filters, and take the IS NULL
		if fired[OuterJoinToInner] != c.fired {
			t.Errorf("%s: fired %v, want %d", before, fired, c.fired)
		}
		in := out
		for k := len(c.preds) - 1; k >= 0; k-- {
			f, ok := in.(*logical.Filter)
			if !ok || f.Pred != c.preds[k] {
				t.Fatalf("%s: the filters became\n%s", before, logical.String(out))
			}
			in = f.Input
		}
		j := in.(*logical.Join)
		if j.Kind != c.want || j.On != on || !j.LeftSmall || len(j.LeftKeys) != 1 {
			t.Errorf("%s: became\n%s", before, logical.String(out))
		}
		if logical.String(n) != before {
			t.Errorf("the plan given changed:\n%s", logical.String(n))
		}
		if _, again := run(t, out, OuterJoinPushdown, OuterJoinToAnti); again[OuterJoinToInner] != 0 {
			t.Errorf("%s: a second run changed it again", before)
		}
		if _, off := run(t, n, OuterJoinToInner, OuterJoinPushdown, OuterJoinToAnti); len(off) != 0 {
			t.Errorf("%s: ran while off", before)
		}
	}
}

// RejectsNulls says yes only for predicates that are false or NULL on a
// row whose columns in range are NULL, whatever the others hold: each
// shape is evaluated on such rows to confirm it.
func TestRejectsNulls(t *testing.T) {
	pat := vec.New(types.TextT, 1)
	pat.AppendString("a%")
	list := vec.New(types.Int64T, 2)
	list.AppendInt(1)
	list.AppendInt(2)
	text := &exec.Cast{E: col(2), To: types.TextT}
	for _, c := range []struct {
		p    exec.Expr
		want bool
	}{
		{&exec.Cmp{Op: exec.EQ, L: col(2), R: col(0)}, true},
		{&exec.Cmp{Op: exec.NE, L: &exec.Neg{E: col(3)}, R: col(0)}, true},
		{&exec.IsNull{E: col(2), Not: true}, true},
		{&exec.IsNull{E: col(2)}, false},
		{&exec.Not{E: &exec.Cmp{Op: exec.EQ, L: col(2), R: intConst(1)}}, true},
		{&exec.Like{E: text, Pattern: exec.NewConst(pat)}, true},
		{&exec.InList{E: col(3), List: list}, true},
		{&exec.InList{E: col(3), List: list, Not: true}, true},
		{&exec.Logic{And: true, Args: []exec.Expr{&exec.IsNull{E: col(0)}, &exec.Cmp{Op: exec.LT, L: col(2), R: col(1)}}}, true},
		{&exec.Logic{Args: []exec.Expr{&exec.IsNull{E: col(0)}, &exec.Cmp{Op: exec.LT, L: col(2), R: col(1)}}}, false},
		{&exec.Logic{Args: []exec.Expr{&exec.Cmp{Op: exec.GT, L: col(3), R: col(0)}, &exec.Cmp{Op: exec.LT, L: col(2), R: col(1)}}}, true},
		{&exec.Cmp{Op: exec.EQ, L: col(0), R: intConst(1)}, false},
		{&exec.Coalesce{Args: []exec.Expr{&exec.Cmp{Op: exec.EQ, L: col(2), R: col(0)}, &exec.Cmp{Op: exec.EQ, L: col(0), R: col(0)}}, T: types.BoolT}, false},
	} {
		got := RejectsNulls(c.p, 2, 4)
		if got != c.want {
			t.Errorf("%s: %v, want %v", logical.Expr(c.p), got, c.want)
		}
		if !got {
			continue
		}
		// columns 2 and 3 NULL, 0 and 1 each of NULL, 0, 1
		b := &vec.Batch{N: 9, Vecs: make([]*vec.Vector, 4)}
		for k := range b.Vecs {
			b.Vecs[k] = vec.New(types.Int64T, 9)
		}
		for i := range 9 {
			for k, v := range []int{i % 3, i / 3} {
				if v == 0 {
					b.Vecs[k].AppendNull()
				} else {
					b.Vecs[k].AppendInt(int64(v - 1))
				}
			}
			b.Vecs[2].AppendNull()
			b.Vecs[3].AppendNull()
		}
		v, err := c.p.Eval(&exec.Env{}, b)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 9 {
			if !v.IsNull(i) && v.B[i] {
				t.Errorf("%s: true on row %d", logical.Expr(c.p), i)
			}
		}
	}
}

// In a join graph, a predicate over an outer join among its relations
// rejects that join's NULL rows as a filter would: the relation becomes
// the simplified join under its filters, its columns the same slice (by
// which the planner finds it), and join order builds the tree over it.
func TestOuterJoinToInnerInGraph(t *testing.T) {
	l, r, other := leaf(false, types.Int64T, types.Int64T), leaf(false, types.Int64T, types.Int64T), leaf(false, types.Int64T)
	full := logical.NewOuterJoin(logical.FullJoin, l, r, []exec.Expr{col(0)}, []exec.Expr{col(0)}, nil, false)
	rel := &logical.Filter{Input: full, Pred: &exec.IsNull{E: col(2)}}
	for _, c := range []struct {
		pred logical.JoinPred
		want logical.JoinKind
	}{
		{logical.JoinPred{Rels: 3, Sel: 0.1, Hash: true, A: 1, B: 0, KeyA: col(4), KeyB: col(0)}, logical.RightJoin},
		{logical.JoinPred{Rels: 3, Sel: 0.1, Cond: &exec.Cmp{Op: exec.LT, L: col(1), R: col(0)}}, logical.LeftJoin},
		{logical.JoinPred{Rels: 3, Sel: 0.1, Cond: &exec.Logic{Args: []exec.Expr{&exec.IsNull{E: col(3)}, &exec.Cmp{Op: exec.LT, L: col(1), R: col(4)}}}}, logical.FullJoin},
	} {
		g := logical.NewJoinGraph([]logical.Node{other, rel}, []float64{10, 100}, []string{"o", "j"}, []logical.JoinPred{c.pred})
		out, fired := run(t, g, OuterJoinPushdown, OuterJoinToAnti, "join_order")
		og := out.(*logical.JoinGraph)
		f, ok := og.Rels[1].(*logical.Filter)
		if !ok || f.Pred != rel.Pred {
			t.Fatalf("the relation became\n%s", logical.String(og.Rels[1]))
		}
		j := f.Input.(*logical.Join)
		if j.Kind != c.want || (fired[OuterJoinToInner] > 0) != (c.want != logical.FullJoin) {
			t.Errorf("%s: kind %d (fired %v), want %d", logical.String(g), j.Kind, fired, c.want)
		}
		if &j.Cols[0] != &full.Cols[0] || og.Rels[0] != other {
			t.Errorf("the relations' columns or the others changed")
		}
	}
}
