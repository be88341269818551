package memory

import (
	"fmt"
	"testing"
	"time"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// AppendSegs appends what AppendRange piece by piece would: values of every
// storage, NULL masks that some sources have and others not, pieces of one
// row and of many, over several calls into the same buffer.
func TestAppendSegsMatchesAppendRange(t *testing.T) {
	ts := []types.T{types.Int64T, types.Float64T, types.BoolT, types.IntervalT, types.TextT}
	mk := func(seed, n int, nulls bool) *vec.Batch {
		b := vec.NewBatch(ts, n)
		for i := 0; i < n; i++ {
			x := seed*1000 + i
			b.Vecs[0].I64 = append(b.Vecs[0].I64, int64(x))
			b.Vecs[1].F64 = append(b.Vecs[1].F64, float64(x)/3)
			b.Vecs[2].B = append(b.Vecs[2].B, x%3 == 0)
			b.Vecs[3].Iv = append(b.Vecs[3].Iv, types.IntervalValue{Months: int32(x), Days: 2, Micros: int64(x) * 7})
			b.Vecs[4].S = append(b.Vecs[4].S, fmt.Sprint("row ", x))
		}
		if nulls {
			for c, v := range b.Vecs {
				v.Nulls = make([]bool, n)
				for i := range v.Nulls {
					v.Nulls[i] = (i+c)%4 == 1
				}
			}
		}
		b.N = n
		return b
	}
	srcs := []*vec.Batch{mk(1, 50, false), mk(2, 50, true), mk(3, 50, false)}
	var segs []Seg
	for k := 0; k < 60; k++ {
		b := srcs[k%3]
		lo := (k * 7) % 45
		hi := lo + 1 + k%5
		segs = append(segs, Seg{B: b, Lo: int32(lo), Hi: int32(hi)})
	}
	got, want := NewColBuf(ts, 8), NewColBuf(ts, 8)
	// a first call with no NULLs at all, then calls that bring them
	got.AppendSegs(segs[:1])
	got.AppendSegs(segs[1:2])
	got.AppendSegs(segs[2:30])
	got.AppendSegs(nil)
	got.AppendSegs(segs[30:])
	for _, sg := range segs {
		want.AppendBatch(sg.B, int(sg.Lo), int(sg.Hi))
	}
	if got.N != want.N {
		t.Fatalf("N = %d, want %d", got.N, want.N)
	}
	for c := range ts {
		g, w := got.Vecs[c], want.Vecs[c]
		if g.Len() != want.N || len(g.Nulls) != len(w.Nulls) {
			t.Fatalf("column %d: %d values, %d NULL flags; want %d, %d", c, g.Len(), len(g.Nulls), want.N, len(w.Nulls))
		}
		for i := 0; i < want.N; i++ {
			if g.IsNull(i) != w.IsNull(i) {
				t.Fatalf("column %d row %d: NULL %v, want %v", c, i, g.IsNull(i), w.IsNull(i))
			}
			if gs, ws := string(g.AppendText(nil, i, time.UTC)), string(w.AppendText(nil, i, time.UTC)); gs != ws {
				t.Fatalf("column %d row %d: %q, want %q", c, i, gs, ws)
			}
		}
	}
}
