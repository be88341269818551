package exec

import (
	"context"
	"fmt"
	"math/rand"
	"testing"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

func TestFilterAndLimit(t *testing.T) {
	rng := rand.New(rand.NewSource(4))
	rows := randRows(rng, 5000, 10, 0.2)
	// k < 5 is NULL for NULL keys, which drops the row
	pred := &Cmp{Op: LT, L: col(0, types.Int64T), R: NewConst(ints(types.Int64T, 5))}
	var want []string
	for _, r := range rows {
		if r[0] != nil && r[0].(int64) < 5 {
			want = append(want, fmtRow(r...))
		}
	}
	got := collect(t, &Filter{Env: env, Input: newRowsOp(kst, rows, 999), Pred: pred})
	sameRows(t, "filter", got, want)
	for _, c := range []struct{ off, cnt int64 }{{0, -1}, {0, 0}, {3, 10}, {990, 20}, {4990, 100}, {6000, 5}} {
		l := &Limit{Input: newRowsOp(kst, rows, 999), Offset: c.off, Count: c.cnt}
		got := collect(t, l)
		var want []string
		for i, r := range rows {
			if int64(i) >= c.off && (c.cnt < 0 || int64(i) < c.off+c.cnt) {
				want = append(want, fmtRow(r...))
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("limit %d offset %d: %d rows, want %d", c.cnt, c.off, len(got), len(want))
		}
	}
}

// Limit cuts batches of every storage class, intervals included.
func TestLimitSlicesIntervals(t *testing.T) {
	ts := []types.T{types.Int64T, types.IntervalT}
	var rows [][]any
	for i := 0; i < 3000; i++ {
		var iv any = types.IntervalValue{Months: int32(i % 13), Days: int32(i % 7), Micros: int64(i) * 1000}
		if i%11 == 0 {
			iv = nil
		}
		rows = append(rows, []any{int64(i), iv})
	}
	all := collect(t, newRowsOp(ts, rows, 999))
	for _, c := range []struct{ off, cnt int64 }{{0, 1}, {5, 10}, {990, 20}, {2995, 100}} {
		got := collect(t, &Limit{Input: newRowsOp(ts, rows, 999), Offset: c.off, Count: c.cnt})
		want := all[c.off:min(c.off+c.cnt, int64(len(all)))]
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("limit %d offset %d: got %q, want %q", c.cnt, c.off, got, want)
		}
	}
}

// Stacked filters run as one chain (Filter.fuse): each condition sees only
// the rows the ones below kept — a division guarded by a filter below it
// never divides by zero — and the rows out are those of the filters run
// one by one, in batches where every, some or no row passes.
func TestFilterChain(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	rows := randRows(rng, 7000, 12, 0.15)
	for i := 2000; i < 3000; i++ {
		rows[i][0] = int64(3) // whole batches that every condition keeps
	}
	for i := 4000; i < 5100; i++ {
		rows[i][0] = int64(0) // whole batches that the first condition drops
	}
	zero := NewConst(ints(types.Int64T, 0))
	conds := []Expr{
		&Cmp{Op: NE, L: col(0, types.Int64T), R: zero},
		// 12 / k > 1 raises division by zero where k = 0
		&Cmp{Op: GT, L: div(NewConst(ints(types.Int64T, 12)), col(0, types.Int64T)), R: NewConst(ints(types.Int64T, 1))},
		&Cmp{Op: NE, L: col(1, types.TextT), R: NewConst(texts("s5"))},
		&Cmp{Op: LT, L: col(2, types.Int64T), R: NewConst(ints(types.Int64T, 6500))},
	}
	var want []string
	for _, r := range rows {
		if r[0] != nil && r[0].(int64) != 0 && 12/r[0].(int64) > 1 && r[1] != nil && r[1].(string) != "s5" && r[2].(int64) < 6500 {
			want = append(want, fmtRow(r...))
		}
	}
	for _, size := range []int{999, 1000, 7000} {
		var op Operator = newRowsOp(kst, rows, size)
		for _, c := range conds {
			op = &Filter{Env: env, Input: op, Pred: c}
		}
		got := collect(t, op)
		if f := op.(*Filter); len(f.chain) != len(conds) {
			t.Fatalf("batches of %d: a chain of %d conditions, want %d", size, len(f.chain), len(conds))
		}
		sameRows(t, fmt.Sprintf("filter chain, batches of %d", size), got, want)
	}
	// conditions that cannot raise: the two bounds of id become one range
	// step, and after a few batches the steps go in the order of the rows
	// they keep, the fewest first (k = 5 keeps a twelfth)
	safe := []Expr{
		&Cmp{Op: GE, L: col(2, types.Int64T), R: NewConst(ints(types.Int64T, 100))},
		&Cmp{Op: NE, L: col(1, types.TextT), R: NewConst(texts("s5"))},
		&Cmp{Op: LT, L: col(2, types.Int64T), R: NewConst(ints(types.Int64T, 6900))},
		&Cmp{Op: EQ, L: col(0, types.Int64T), R: NewConst(ints(types.Int64T, 5))},
	}
	want = want[:0]
	for _, r := range rows {
		if id := r[2].(int64); id >= 100 && id < 6900 && r[1] != nil && r[1].(string) != "s5" && r[0] != nil && r[0].(int64) == 5 {
			want = append(want, fmtRow(r...))
		}
	}
	var sop Operator = newRowsOp(kst, rows, 500)
	for _, c := range safe {
		sop = &Filter{Env: env, Input: sop, Pred: c}
	}
	sameRows(t, "a chain reordered", collect(t, sop), want)
	f := sop.(*Filter)
	if len(f.chain) != 3 {
		t.Fatalf("a chain of %d steps, want 3 (the bounds of id in one)", len(f.chain))
	}
	if c, ok := f.chain[0].pred.(*Cmp); !ok || c.Op != EQ {
		t.Errorf("first step %T, want the equality that keeps the fewest rows", f.chain[0].pred)
	}
	// the order matters: the division below its guard raises
	var op Operator = newRowsOp(kst, rows, 1000)
	op = &Filter{Env: env, Input: op, Pred: conds[1]}
	op = &Filter{Env: env, Input: op, Pred: conds[0]}
	if err := Drain(context.Background(), op, func(*vec.Batch) error { return nil }); err == nil {
		t.Fatal("division by zero tested before its guard: no error")
	}
}
