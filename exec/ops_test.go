package exec

import (
	"fmt"
	"math/rand"
	"testing"

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
