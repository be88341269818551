package aggregate

import (
	"fmt"
	"testing"

	"github.com/lakepg/lakepg/exec/hashtab"
	"github.com/lakepg/lakepg/exec/memory"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// A table's text keys (chunk references, exec/hashtab/textkeys.go) come back as they
// went in: empty, NULL, longer than a chunk's share, many chunks' worth.
// Merged into another table they are shared (no text bytes counted, the
// other's chunks adopted) and still read the same.
func TestTextKeysStoreAndShare(t *testing.T) {
	ts := []types.T{types.TextT, types.Int64T}
	long := string(make([]byte, hashtab.ArenaChunk)) + "end"
	var want []string
	mk := func(lo, hi int) []*vec.Vector {
		cols := []*vec.Vector{vec.New(ts[0], 0), vec.New(ts[1], 0)}
		for i := lo; i < hi; i++ {
			switch {
			case i%1000 == 7:
				cols[0].AppendNull()
			case i%1000 == 8:
				cols[0].AppendString("")
			case i%1000 == 9:
				cols[0].AppendString(long)
			default:
				cols[0].AppendString(fmt.Sprintf("key %d %0100d", i, i))
			}
			cols[1].AppendInt(int64(i))
		}
		return cols
	}
	text := func(v *vec.Vector, i int) string {
		if v.IsNull(i) {
			return "NULL"
		}
		return v.S[i]
	}
	hashes := func(cols []*vec.Vector) []uint64 {
		hs := make([]uint64, len(cols[1].I64))
		for c, v := range cols {
			memory.HashColumn(hs, v, len(hs), c == 0)
		}
		return hs
	}
	a, b := hashtab.NewHashTable(0), hashtab.NewHashTable(0)
	ka, kb := hashtab.NewKeyCols(ts), hashtab.NewKeyCols(ts)
	in := mk(0, 3000)
	ga := make([]int32, 3000)
	a.GroupIDs(ka, in, hashes(in), ga)
	for i := range ga {
		want = append(want, text(in[0], i))
	}
	// b holds 2000..4999: the merge adds 3000..4999 to a
	inb := mk(2000, 5000)
	gb := make([]int32, 3000)
	b.GroupIDs(kb, inb, hashes(inb), gb)
	for i := 1000; i < 3000; i++ {
		want = append(want, text(inb[0], i))
	}
	sa := &aggSet{htab: a, keys: ka, ngroups: 3000}
	sb := &aggSet{htab: b, keys: kb, ngroups: 3000}
	gmap := make([]int32, 3000)
	chunks := len(ka.Txt[0].Chunks) + len(kb.Txt[0].Chunks)
	var text2 int64 // of the keys the merge adds, which a now counts
	for i := 1000; i < 3000; i++ {
		text2 += int64(len(inb[0].S[i]))
	}
	if added := sa.mergeKeys(sb, gmap); added < text2 {
		t.Errorf("merging counted %d bytes, less than the %d bytes of text added", added, text2)
	}
	if n := len(ka.Txt[0].Chunks); n != chunks {
		t.Errorf("%d chunks after the merge, want %d: the text was copied, not shared", n, chunks)
	}
	if a.N != 5000 {
		t.Fatalf("%d groups after the merge, want 5000", a.N)
	}
	if _, ok := ka.Txt[0].Adopted[kb.Txt[0]]; !ok {
		t.Error("the other table's chunks were not adopted")
	}
	for i, g := range gmap {
		if int(g) != 2000+i {
			t.Fatalf("group %d of b is %d in a, want %d", i, g, 2000+i)
		}
	}
	v := ka.ColView(0, 0, 5000)
	for i, w := range want {
		if got := text(v, i); got != w {
			t.Fatalf("key %d: %.20q, want %.20q", i, got, w)
		}
	}
}

// groupHashes gives each group the hash its key has in a batch as far as
// a split reads it: the top half (the slots' tags) where the partition
// bits are there, the whole hash recomputed from the keys past that.
func TestGroupHashes(t *testing.T) {
	ts := []types.T{types.TextT, types.Int64T}
	const n = 5000
	cols := []*vec.Vector{vec.New(ts[0], n), vec.New(ts[1], n)}
	for i := range n {
		if i%97 == 3 {
			cols[0].AppendNull()
		} else {
			cols[0].AppendString(fmt.Sprint("name ", i%1200))
		}
		cols[1].AppendInt(int64(i % 7))
	}
	hs := make([]uint64, n)
	for c, v := range cols {
		memory.HashColumn(hs, v, n, c == 0)
	}
	tab, keys := hashtab.NewHashTable(0), hashtab.NewKeyCols(ts)
	gids := make([]int32, n)
	tab.GroupIDs(keys, cols, hs, gids)
	s := &aggSet{htab: tab, keys: keys, ngroups: tab.N}
	if s.ngroups < 1000 {
		t.Fatalf("%d groups", s.ngroups)
	}
	for _, level := range []int{0, 6, 7, 15} {
		h := &HashAgg{NGroup: 2, spillLevel: level}
		got := h.groupHashes(s)
		if len(got) != s.ngroups {
			t.Fatalf("level %d: %d hashes for %d groups", level, len(got), s.ngroups)
		}
		shift := h.partShift()
		for i, g := range gids {
			if want := hs[i] >> shift & (aggPartitions - 1); got[g]>>shift&(aggPartitions-1) != want {
				t.Fatalf("level %d: group %d in partition %d, its rows in %d", level, g, got[g]>>shift&(aggPartitions-1), want)
			}
			if hashtab.SlotTag(got[g]) != hashtab.SlotTag(hs[i]) {
				t.Fatalf("level %d: group %d's hash %x, its rows' %x", level, g, got[g], hs[i])
			}
		}
	}
}
