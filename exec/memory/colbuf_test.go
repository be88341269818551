package memory

import (
	"fmt"
	"math"
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

// Integers round-trip through a spill block at every width appendInts
// picks, the extremes of int64 included, with and without NULL masks, and
// contiguous (AppendBlock) or gathered (AppendBlockAt).
func TestSpillBlockInts(t *testing.T) {
	cases := [][]int64{
		{}, {7}, {5, 5, 5}, {-3, 0, 250}, {1000, -1000, 0}, {1 << 20, -(1 << 20), 3},
		{1 << 40, 0, -1}, {math.MinInt64, math.MaxInt64, 0}, {math.MinInt64, math.MinInt64 + 1}, {math.MaxInt64 - 255, math.MaxInt64},
	}
	for _, xs := range cases {
		for _, nulls := range []bool{false, true} {
			v := vec.New(types.Int64T, len(xs))
			v.I64 = append(v.I64, xs...)
			if nulls {
				v.Nulls = make([]bool, len(xs))
				for i := range v.Nulls {
					v.Nulls[i] = i%2 == 1
				}
			}
			cols := []*vec.Vector{v, v}
			idx := make([]int32, len(xs))
			for i := range idx {
				idx[i] = int32(len(xs) - 1 - i)
			}
			blk := AppendBlock(nil, cols, 0, len(xs))
			blk, _ = AppendBlockAt(blk, cols, idx, nil)
			d := NewBlockDecoder([]types.T{types.Int64T, types.Int64T})
			for pass, order := range [][]int32{nil, idx} {
				rest, err := d.Decode(blk)
				if err != nil {
					t.Fatalf("%v: %v", xs, err)
				}
				for c, got := range d.B.Vecs {
					for i := range xs {
						j := i
						if order != nil {
							j = int(order[i])
						}
						if got.I64[i] != xs[j] || got.IsNull(i) != v.IsNull(j) {
							t.Fatalf("%v pass %d column %d row %d: %d (NULL %v), want %d (NULL %v)", xs, pass, c, i, got.I64[i], got.IsNull(i), xs[j], v.IsNull(j))
						}
					}
				}
				blk = rest
			}
			if len(blk) != 0 {
				t.Fatalf("%v: %d bytes left", xs, len(blk))
			}
			// a block cut short is refused, not read past its end
			whole := AppendBlock(nil, cols, 0, len(xs))
			for cut := 1; cut < len(whole); cut++ {
				if _, err := d.Decode(whole[:cut]); err == nil {
					t.Fatalf("%v: block cut to %d of %d bytes decoded", xs, cut, len(whole))
				}
			}
		}
	}
}
