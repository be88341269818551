package exec

import (
	"fmt"
	"math/bits"
	"math/rand"
	"slices"
	"testing"

	"github.com/lakepg/lakepg/exec/hashtab"
	"github.com/lakepg/lakepg/exec/memory"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// TestParallelIndex: a build side indexed by several goroutines (a shared
// build) has the same chains, NULL rows and lookups as one indexed by the
// caller alone, for each kind of index: direct, integer table (with and
// without its key filter, keys crowding the ends of the goroutines' slot
// ranges) and the general table (two keys, one text).
func TestParallelIndex(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	const n = 3 * parIndexRows
	ints := func(gen func(r int) int64, nullEvery int) *vec.Vector {
		v := vec.New(types.Int64T, n)
		v.I64 = v.I64[:n]
		for r := range n {
			v.I64[r] = gen(r)
			if nullEvery > 0 && r%nullEvery == 3 {
				if v.Nulls == nil {
					v.Nulls = make([]bool, n)
				}
				v.Nulls[r] = true
			}
		}
		return v
	}
	texts := func(gen func(r int) string) *vec.Vector {
		v := vec.New(types.TextT, n)
		v.S = v.S[:n]
		for r := range n {
			v.S[r] = gen(r)
		}
		return v
	}
	// edge returns keys whose first slot in a table of `slots` lies just
	// before the end of one of the four quarters: with par 2 or 4, their
	// probes run past a goroutine's range
	slots := uint64(hashtabSize(n))
	nearEdge := func(s uint64) bool { return (s+1)%(slots/4) <= 6 }
	var edgeInts []int64
	for len(edgeInts) < 400 {
		k := rng.Int63n(1 << 40)
		if nearEdge((uint64(k) * memory.HashMul) >> (64 - uint(bits.TrailingZeros64(slots)))) {
			edgeInts = append(edgeInts, k)
		}
	}
	var edgeA []int64
	var edgeB []string
	for len(edgeA) < 400 {
		a, b := vec.New(types.Int64T, 1), vec.New(types.TextT, 1)
		a.I64, b.S = append(a.I64, rng.Int63n(1<<40)), append(b.S, fmt.Sprint(rng.Intn(1000)))
		h := make([]uint64, 1)
		memory.HashColumn(h, a, 1, true)
		memory.HashColumn(h, b, 1, false)
		if nearEdge(h[0] & (slots - 1)) {
			edgeA, edgeB = append(edgeA, a.I64[0]), append(edgeB, b.S[0])
		}
	}
	pick := make([]int, n) // row r takes edge key pick[r]%400 when it is even
	for r := range pick {
		pick[r] = rng.Intn(1600)
	}
	cases := []struct {
		name   string
		keys   []*vec.Vector
		direct bool
		filter bool
	}{
		{"direct", []*vec.Vector{ints(func(r int) int64 { return int64(rng.Intn(n)) + 1000 }, 0)}, true, false},
		{"direct nulls", []*vec.Vector{ints(func(r int) int64 { return int64(rng.Intn(n / 3)) }, 7)}, true, false},
		{"int table", []*vec.Vector{ints(func(r int) int64 { return rng.Int63n(1 << 40) }, 0)}, false, true},
		{"int table dups nulls", []*vec.Vector{ints(func(r int) int64 { return rng.Int63n(n/4) * 1000 }, 11)}, false, true},
		{"int table at the edges", []*vec.Vector{ints(func(r int) int64 {
			if pick[r]%2 == 0 {
				return edgeInts[pick[r]%400]
			}
			return rng.Int63n(1 << 40)
		}, 0)}, false, true},
		{"hash two keys", []*vec.Vector{
			ints(func(r int) int64 { return rng.Int63n(n / 2) }, 13),
			texts(func(r int) string { return fmt.Sprint("k", rng.Intn(3)) }),
		}, false, true},
		{"hash at the edges", []*vec.Vector{
			ints(func(r int) int64 {
				if pick[r]%2 == 0 {
					return edgeA[pick[r]%400]
				}
				return rng.Int63n(1 << 40)
			}, 0),
			texts(func(r int) string {
				if pick[r]%2 == 0 {
					return edgeB[pick[r]%400]
				}
				return fmt.Sprint(rng.Intn(1000))
			}),
		}, false, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			build := func(par int) *joinBuild {
				jb := &joinBuild{bkeys: c.keys, next: make([]int32, n)}
				jb.res.Mem = memory.NewMemory(nil, 0)
				if err := jb.index(n, par); err != nil {
					t.Fatal(err)
				}
				return jb
			}
			one := build(1)
			if (one.direct != nil) != c.direct || (one.filter != nil) != c.filter {
				t.Fatalf("direct %v filter %v, the case wants %v %v", one.direct != nil, one.filter != nil, c.direct, c.filter)
			}
			heads := func(jb *joinBuild) []int32 {
				h := make([]int32, 0, n)
				for lo := 0; lo < n; lo += vec.BatchSize {
					hi := min(lo+vec.BatchSize, n)
					pk := make([]*vec.Vector, len(c.keys))
					for i, k := range c.keys {
						pk[i] = k.Slice(lo, hi)
					}
					out := make([]int32, hi-lo)
					jb.lookup(pk, hi-lo, out, nil, func(int) {})
					h = append(h, out...)
				}
				return h
			}
			want := heads(one)
			for _, par := range []int{2, 4} {
				got := build(par)
				if !slices.Equal(got.next, one.next) {
					t.Fatalf("par %d: chains differ", par)
				}
				if !slices.Equal(got.nullKey, one.nullKey) {
					t.Fatalf("par %d: NULL-key rows %v, want %v", par, got.nullKey, one.nullKey)
				}
				if got.itab != nil && got.itab.N != one.itab.N || got.htab != nil && got.htab.N != one.htab.N {
					t.Fatalf("par %d: key counts differ", par)
				}
				if got.filter != nil && !slices.Equal(got.filter.words, one.filter.words) {
					t.Fatalf("par %d: key filters differ", par)
				}
				if h := heads(got); !slices.Equal(h, want) {
					t.Fatalf("par %d: lookups differ", par)
				}
			}
			// every non-NULL row is reached from its key's head
			for r, h := range want {
				if h < 0 {
					continue
				}
				for h >= 0 && int(h) != r {
					h = one.next[h]
				}
				if int(h) != r {
					t.Fatalf("row %d is not on its key's chain", r)
				}
			}
		})
	}
}

// hashtabSize is the slot count of a join table for n rows.
func hashtabSize(n int) int { return len(hashtab.NewHashTable(n).Slots) }
