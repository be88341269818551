package optree

import (
	"context"
	"slices"
	"testing"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/aggregate"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// rows made while planning are narrowed to the columns read above them; a
// lazy batch makes only those, also when pruned twice (a subquery's plan
// is pruned, then the statement's).
func TestPruneBatchSource(t *testing.T) {
	ts := []types.T{types.Int64T, types.TextT, types.Int64T, types.TextT}
	full := func(need []bool) *vec.Batch {
		b := &vec.Batch{N: 2}
		for i, typ := range ts {
			if need != nil && !need[i] {
				continue
			}
			v := vec.New(typ, 2)
			for r := 0; r < 2; r++ {
				if typ.ID == types.Text {
					v.AppendString(string(rune('a'+i)) + string(rune('0'+r)))
				} else {
					v.AppendInt(int64(10*i + r))
				}
			}
			b.Vecs = append(b.Vecs, v)
		}
		return b
	}
	var asked [][]bool
	lazy := &exec.BatchSource{T: ts, Lazy: &exec.LazyBatch{N: 2, Make: func(need []bool) (*vec.Batch, error) {
		asked = append(asked, need)
		return full(need), nil
	}}}
	plain := &exec.BatchSource{B: full(nil), T: ts}
	for _, src := range []*exec.BatchSource{plain, lazy} {
		asked = nil
		// keep columns 1 and 3, then of those the second (column 3)
		op, m := PruneColumns(src, []bool{false, true, false, true})
		if want := []int{-1, 0, -1, 1}; !slices.Equal(m, want) {
			t.Fatalf("first map %v, want %v", m, want)
		}
		op, m = PruneColumns(op, []bool{false, true})
		if want := []int{-1, 0}; !slices.Equal(m, want) {
			t.Fatalf("second map %v, want %v", m, want)
		}
		b, err := op.Next(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(op.Types()) != 1 || len(b.Vecs) != 1 || b.N != 2 || b.Vecs[0].S[0] != "d0" || b.Vecs[0].S[1] != "d1" {
			t.Fatalf("pruned twice: %d types, batch %+v", len(op.Types()), b.Vecs)
		}
		if src.Lazy != nil && (len(asked) != 1 || !slices.Equal(asked[0], []bool{false, false, false, true})) {
			t.Fatalf("Make asked for %v, want column 3 alone", asked)
		}
		// the source's own batch is untouched: a correlated subplan re-emits it
		if src.B != nil && len(src.B.Vecs) != len(ts) {
			t.Fatalf("the source's batch lost columns: %d", len(src.B.Vecs))
		}
		// nothing needed: one column is kept for the row count
		op, m = PruneColumns(&exec.BatchSource{B: src.B, T: ts, Lazy: src.Lazy}, make([]bool, len(ts)))
		if len(op.Types()) != 1 || m[0] != 0 {
			t.Fatalf("nothing needed: %d columns, map %v", len(op.Types()), m)
		}
	}
}

// An aggregation's input columns that only aggregates nothing reads take
// become NULL (not computed, not folded); group keys, the arguments,
// FILTER and ORDER BY columns of the aggregates read, and a delimiter,
// stay; count(*) reads no argument.
func TestUnreadAggregateInputs(t *testing.T) {
	col := func(i int) exec.Expr { return &exec.ColRef{Idx: i, T: types.Int64T} }
	pre := &exec.Project{Input: &exec.Values{T: []types.T{types.Int64T, types.Int64T, types.Int64T, types.BoolT, types.Int64T, types.TextT}},
		Exprs: []exec.Expr{col(0), col(1), col(2), &exec.ColRef{Idx: 3, T: types.BoolT}, col(4), &exec.ColRef{Idx: 5, T: types.TextT}}}
	agg := &aggregate.HashAgg{Input: pre, NGroup: 1, Aggs: []aggregate.Agg{
		{Kind: aggregate.AggSum, Arg: 1},                             // read
		{Kind: aggregate.AggMax, Arg: 2},                             // not read
		{Kind: aggregate.AggCount, Arg: 4, Filter: 4},                // not read: its FILTER column 3 goes too
		{Kind: aggregate.AggCountStar},                               // read: marks nothing
		{Kind: aggregate.AggStringAgg, Arg: 5, Arg2: 5, Desc: false}, // not read, but its delimiter column stays
	}}
	PruneColumns(agg, []bool{true, true, false, false, true, false})
	var got []bool
	for _, e := range pre.Exprs {
		c, ok := e.(*exec.Const)
		got = append(got, ok && c.V.IsNull(0))
	}
	if want := []bool{false, false, true, true, true, false}; !slices.Equal(got, want) {
		t.Errorf("NULL input columns %v, want %v", got, want)
	}
}
