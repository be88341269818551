package hashtab

import (
	"unsafe"

	"github.com/lakepg/lakepg/exec/memory"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// textKeys is a stored text key column of an aggregation table without Go
// pointers: each key is one word, a chunk index, an offset into the chunk
// and a length (refBits), so comparing a key loads the word and the bytes. Held as a []string, a table of millions of groups was millions of
// pointers the collector traced on every cycle, and, near the memory limit
// where a spilling aggregation lives, cycles come often: the GROUP BY of
// 6 M lineitem keys under 512 MiB spent a quarter of its CPU in marking,
// write barriers and preemption for stack scans. Chunks hold no pointers, so
// marking a table is marking its chunks.
type textKeys struct {
	Chunks [][]byte
	fill   int      // index of the chunk being filled; -1: none
	refs   []uint64 // chunk<<40 | offset<<24 | length (refLenMax: the chunk's)
	// adopted maps another column whose chunks were appended to these
	// (sharing its keys rather than copying them) to the index of its first
	Adopted map[*textKeys]uint64
}

func newTextKeys() *textKeys { return &textKeys{fill: -1} }

// A reference's low 24 bits are the key's length; refLenMax there means a
// key of 16 MiB or more, alone in its chunk, as long as the chunk. The next
// 16 bits are the offset in a chunk (arenaChunk is 64 KiB), the top 24 the
// chunk's index.
const (
	refLenMax = 1<<24 - 1
	refOffMax = 1<<16 - 1
)

// at is key j. The string points into a chunk, which it keeps alive.
func (t *textKeys) at(j int) string {
	r := t.refs[j]
	n := int(r & refLenMax)
	if n == 0 {
		return ""
	}
	c := t.Chunks[r>>40]
	if n == refLenMax {
		n = len(c)
	}
	return unsafe.String(&c[(r>>24)&refOffMax], n)
}

// copyIn stores a copy of s and returns its reference.
func (t *textKeys) copyIn(s string) uint64 {
	if len(s) == 0 {
		return 0
	}
	if len(s) > ArenaChunk/8 {
		t.Chunks = append(t.Chunks, []byte(s))
		return uint64(len(t.Chunks)-1)<<40 | uint64(min(len(s), refLenMax))
	}
	if t.fill < 0 || cap(t.Chunks[t.fill])-len(t.Chunks[t.fill]) < len(s) {
		t.Chunks = append(t.Chunks, make([]byte, 0, ArenaChunk))
		t.fill = len(t.Chunks) - 1
	}
	c := t.Chunks[t.fill]
	off := len(c)
	t.Chunks[t.fill] = append(c, s...)
	return uint64(t.fill)<<40 | uint64(off)<<24 | uint64(len(s))
}

// adopt appends src's chunks to t's, once, and returns the index of the
// first: a reference of src plus that index<<40 is one of t.
func (t *textKeys) adopt(src *textKeys) uint64 {
	if base, ok := t.Adopted[src]; ok {
		return base
	}
	if t.Adopted == nil {
		t.Adopted = map[*textKeys]uint64{}
	}
	base := uint64(len(t.Chunks))
	t.Chunks = append(t.Chunks, src.Chunks...)
	t.Adopted[src] = base
	return base
}

// shared is src's key id as a reference of t (its chunks adopted).
func (t *textKeys) shared(src *textKeys, id int) uint64 {
	r := src.refs[id]
	if r&refLenMax == 0 {
		return 0
	}
	return r + t.adopt(src)<<40
}

// KeyShare says that the keys a table adds are another table's stored keys
// (a merge of two workers' tables), row i of the batch being src's group
// ids[i], or lo+i when ids is nil: their text is shared, not copied.
type KeyShare struct {
	Src *KeyCols
	Lo  int
	Ids []int32
}

func (s *KeyShare) id(i int) int {
	if s.Ids != nil {
		return int(s.Ids[i])
	}
	return s.Lo + i
}

// putText stores row i's text value x of column c, shared or copied; it
// returns the text bytes the table now holds for it. A shared key's bytes
// count too: the table it came from gives its memory back once merged.
func (k *KeyCols) putText(c int, x string, i int) int64 {
	t := k.Txt[c]
	if k.Share != nil {
		t.refs = append(t.refs, t.shared(k.Share.Src.Txt[c], k.Share.id(i)))
		return int64(len(x))
	}
	t.refs = append(t.refs, t.copyIn(x))
	return int64(len(x))
}

// growText makes room for n more keys in text column c, doubling as push
// does; it returns the bytes of capacity added.
func (k *KeyCols) growText(c, n int) int64 {
	t := k.Txt[c]
	var g int64
	t.refs, g = grown(t.refs, n, k.growth())
	return g
}

// ColView is stored key column c's groups [lo, hi) as a vector (text made
// into strings that point into the chunks). It is valid until the next
// colView of the column.
func (k *KeyCols) ColView(c, lo, hi int) *vec.Vector {
	v := k.view[c]
	if v == nil {
		v = &vec.Vector{Type: k.Cols[c].Type}
		k.view[c] = v
	}
	return k.ColViewInto(v, c, lo, hi)
}

// ColViewInto is ColView into v, the caller's: goroutines that each have
// their own v may take views of the keys at once.
func (k *KeyCols) ColViewInto(v *vec.Vector, c, lo, hi int) *vec.Vector {
	s := k.Cols[c]
	t := k.Txt[c]
	if t == nil {
		*v = vec.Vector{Type: s.Type, Nulls: nullsIn(s.Nulls, lo, hi)}
		switch s.Type.Storage() {
		case types.StoreInt:
			v.I64 = s.I64[lo:hi]
		case types.StoreFloat:
			v.F64 = s.F64[lo:hi]
		case types.StoreBool:
			v.B = s.B[lo:hi]
		case types.StoreInterval:
			v.Iv = s.Iv[lo:hi]
		}
		return v
	}
	v.Nulls = nullsIn(s.Nulls, lo, hi)
	v.S = memory.ResizeSlice(v.S, hi-lo)
	for j := range v.S {
		v.S[j] = t.at(lo + j)
	}
	return v
}

// GatherInto appends stored key column c's groups ids to column c of b,
// text through v (scratch of the caller's: several partitions' mergers read
// one worker's table at once).
func (k *KeyCols) GatherInto(b *memory.ColBuf, c int, ids []int32, v *vec.Vector) {
	t := k.Txt[c]
	if t == nil {
		b.Gather(c, k.Cols[c], ids)
		return
	}
	v.Type = k.Cols[c].Type
	v.S = memory.ResizeSlice(v.S, len(ids))
	for j, id := range ids {
		v.S[j] = t.at(int(id))
	}
	if nulls := k.Cols[c].Nulls; nulls != nil {
		v.Nulls = memory.ResizeSlice(v.Nulls, len(ids))
		for j, id := range ids {
			v.Nulls[j] = nulls[id]
		}
	} else {
		v.Nulls = nil
	}
	b.AppendRange(c, v, 0, len(ids))
}

// nullsIn is nulls[lo:hi], nil when the column has no NULL flags.
func nullsIn(nulls []bool, lo, hi int) []bool {
	if nulls == nil {
		return nil
	}
	return nulls[lo:hi]
}

// splitText is splitEqual for a stored text column.
func splitText(t *textKeys, in []string, gids, live, wrong []int32) (int, []int32) {
	n := 0
	for _, i := range live {
		if t.at(int(gids[i])) == in[i] {
			live[n] = i
			n++
		} else {
			wrong = append(wrong, i)
		}
	}
	return n, wrong
}

// splitTextNullable is splitEqualNullable for a stored text column.
func splitTextNullable(t *textKeys, in []string, storedNulls, inNulls []bool, gids, live, wrong []int32) (int, []int32) {
	n := 0
	for _, i := range live {
		g := gids[i]
		sn := storedNulls != nil && storedNulls[g]
		bn := inNulls != nil && inNulls[i]
		if sn == bn && (sn || t.at(int(g)) == in[i]) {
			live[n] = i
			n++
		} else {
			wrong = append(wrong, i)
		}
	}
	return n, wrong
}

// colEqual compares stored key j of column c with row i of b, NULL equal
// NULL.
func (k *KeyCols) colEqual(c, j int, b *vec.Vector, i int) bool {
	t := k.Txt[c]
	if t == nil {
		return memory.NullableEqual(k.Cols[c], j, b, i)
	}
	an, bn := k.Cols[c].IsNull(j), b.IsNull(i)
	if an || bn {
		return an && bn
	}
	x, y := t.at(j), b.S[i]
	if x == y {
		return true
	}
	return b.Type.DynNumeric() && memory.CanonDecimal(x) == memory.CanonDecimal(y)
}
