package aggregate

import (
	"fmt"
	"slices"
	"testing"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// TestUnionRunsLikeOneTable checks the end of a parallel aggregation whose
// workers' tables stayed whole (unionRuns): the groups, their results and
// their order must be those of one table fed every worker's rows in turn,
// whether a later table is kept as a run of its own (few groups shared)
// or placed in the first (many shared), with two and three workers, a
// third worker's groups held by the first table, by the second's live
// groups, or by its dead ones.
func TestUnionRunsLikeOneTable(t *testing.T) {
	ts := []types.T{types.Int64T, types.TextT, types.Int64T, types.TextT}
	// worker w's rows: keys (k, "t"+k%7) for its groups, NULL text keys for
	// k%97 == 0, x = k*w+1, s the text of a row
	rowsOf := func(keys []int) *vec.Batch {
		b := vec.NewBatch(ts, len(keys))
		for i, k := range keys {
			b.Vecs[0].AppendInt(int64(k))
			if k%97 == 0 {
				b.Vecs[1].AppendNull()
			} else {
				b.Vecs[1].AppendString(fmt.Sprintf("t%d", k%7))
			}
			b.Vecs[2].AppendInt(int64(k*(i%5) + 1))
			b.Vecs[3].AppendString(fmt.Sprintf("s%d", (k+i)%11))
		}
		b.N = len(keys)
		return b
	}
	span := func(lo, hi int) []int {
		var ks []int
		for k := lo; k < hi; k++ {
			ks = append(ks, k, k) // two rows a group
		}
		return ks
	}
	cat := func(kss ...[]int) []int { return slices.Concat(kss...) }
	cases := []struct {
		name    string
		workers [][]int
		kept    int // runs left to emit
	}{
		{"two, few shared", [][]int{span(0, 10000), cat(span(9700, 10000), span(20000, 30000))}, 2},
		{"two, many shared", [][]int{span(0, 10000), cat(span(5000, 10000), span(20000, 25000))}, 1},
		{"two, none shared", [][]int{span(0, 6000), span(6000, 9000)}, 2},
		{"two, all shared", [][]int{span(0, 9000), span(0, 9000)}, 1},
		{"three, few shared", [][]int{span(0, 10000), cat(span(9800, 10000), span(20000, 30000)),
			cat(span(9900, 10000), span(20000, 20300), span(40000, 50000))}, 3},
		{"three, the third many shared", [][]int{span(0, 10000), cat(span(9800, 10000), span(20000, 30000)),
			cat(span(9900, 10000), span(22000, 30000), span(40000, 42000))}, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mk := func() *HashAgg {
				h := &HashAgg{Input: newRowsOp(ts, nil, 0), NGroup: 2, Aggs: []Agg{
					{Kind: AggCountStar, Out: types.Int64T}, mkAgg(t, AggSum, 2, types.Int64T),
					mkAgg(t, AggMin, 3, types.TextT), mkAgg(t, AggAvg, 2, types.Int64T)}}
				h.started = true
				return h
			}
			feed := func(h *HashAgg, r *aggRun, keys []int) {
				for lo := 0; lo < len(keys); lo += vec.BatchSize {
					if err := r.consume(rowsOf(keys[lo:min(lo+vec.BatchSize, len(keys))])); err != nil {
						t.Fatal(err)
					}
				}
			}
			one := mk()
			r, err := one.newRun()
			if err != nil {
				t.Fatal(err)
			}
			for _, keys := range c.workers {
				feed(one, r, keys)
			}
			one.run = r
			if err := one.finish(); err != nil {
				t.Fatal(err)
			}
			want := runAgg(t, one)

			h := mk()
			runs := make([]*aggRun, len(c.workers))
			for w, keys := range c.workers {
				if runs[w], err = h.newRun(); err != nil {
					t.Fatal(err)
				}
				feed(h, runs[w], keys)
			}
			if err := h.unionRuns(runs); err != nil {
				t.Fatal(err)
			}
			if got := max(len(h.runs), 1); got != c.kept {
				t.Errorf("%d runs kept, want %d", got, c.kept)
			}
			if err := h.finish(); err != nil {
				t.Fatal(err)
			}
			got := runAgg(t, h)
			if len(got) != len(want) {
				t.Fatalf("%d groups, want %d", len(got), len(want))
			}
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("group %d: %s, want %s", i, got[i], want[i])
				}
			}
		})
	}
}
