package aggregate

import (
	"math"
	"math/rand"
	"slices"
	"testing"
)

// TestRadixOrder checks the byte-wise sort of (group, value) pairs against
// a comparison sort by (group, value, row), ascending and descending, over
// narrow, negative and full-width values (the last too wide for one key).
func TestRadixOrder(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for _, c := range []struct {
		name     string
		n        int
		groups   int32
		val      func() int64
		fallback bool
	}{
		{"keys", 5000, 300, func() int64 { return rng.Int63n(10000) }, false},
		{"negative", 3000, 7, func() int64 { return rng.Int63n(200) - 100 }, false},
		{"one group", 1000, 1, func() int64 { return rng.Int63n(5) }, false},
		{"wide", 2000, 50, func() int64 { return rng.Int63n(1<<40) - 1<<39 }, false},
		{"extremes", 2000, 3, func() int64 {
			return []int64{math.MinInt64, math.MaxInt64, 0, -1}[rng.Intn(4)]
		}, true},
	} {
		for _, desc := range []bool{false, true} {
			gids := make([]int32, c.n)
			xs := make([]int64, c.n)
			for i := range xs {
				gids[i], xs[i] = rng.Int31n(c.groups), c.val()
			}
			want := make([]int32, c.n)
			for i := range want {
				want[i] = int32(i)
			}
			slices.SortStableFunc(want, func(a, b int32) int {
				if gids[a] != gids[b] {
					return cmp3(gids[a], gids[b])
				}
				if desc {
					return cmp3(xs[b], xs[a])
				}
				return cmp3(xs[a], xs[b])
			})
			got := make([]int32, c.n)
			if ok := radixOrder(got, gids, xs, desc); ok == c.fallback {
				t.Fatalf("%s desc=%v: radixOrder reported %v", c.name, desc, ok)
			}
			if !c.fallback && !slices.Equal(got, want) {
				t.Fatalf("%s desc=%v: order differs from the comparison sort", c.name, desc)
			}
		}
	}
}
