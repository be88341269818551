package hashtab

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestPushPartsAsPush: a table filled by PushPart over each part and
// FinishParts holds what Push over every row, last first, makes: the same
// payloads and the same chains, NULL rows left out. Half the keys crowd the
// last slots of the parts, so probes run past a part's end (and past the
// table's end, wrapping) and go through FinishParts.
func TestPushPartsAsPush(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n = 20000
	probe := NewI64Table(n)
	size := len(probe.Slots)
	var edge []int64
	for len(edge) < 300 {
		k := rng.Int64()
		if s := probe.slot(k); (s+1)%(size/4) <= 8 {
			edge = append(edge, k)
		}
	}
	keys := make([]int64, n)
	nulls := make([]bool, n)
	for r := range keys {
		if r%2 == 0 {
			keys[r] = edge[rng.IntN(len(edge))]
		} else {
			keys[r] = rng.Int64N(5000)
		}
		nulls[r] = r%37 == 5
	}
	want := NewI64Table(n)
	wantNext := make([]int32, n)
	for r := n - 1; r >= 0; r-- {
		if !nulls[r] {
			wantNext[r] = want.Push(keys[r], int32(r))
		}
	}
	for _, parts := range []int{1, 2, 4, 8} {
		got := NewI64Table(n)
		next := make([]int32, n)
		added, over, overs := 0, 0, [][]int32(nil)
		for p := range parts {
			a, o := got.PushPart(keys, nulls, next, p, parts, nil)
			added += a
			over += len(o)
			overs = append(overs, o)
		}
		got.FinishParts(keys, next, added, overs)
		if parts > 1 && over == 0 {
			t.Fatalf("%d parts: no probe ran past a part's end", parts)
		}
		if got.N != want.N || !slices.Equal(next, wantNext) {
			t.Fatalf("%d parts: %d keys, want %d; chains equal %v", parts, got.N, want.N, slices.Equal(next, wantNext))
		}
		for r, k := range keys {
			if g, w := got.Lookup(k), want.Lookup(k); g != w {
				t.Fatalf("%d parts: key of row %d heads %d, want %d", parts, r, g, w)
			}
		}
	}
}
