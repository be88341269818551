package exec

import (
	"unsafe"

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
	chunks [][]byte
	fill   int      // index of the chunk being filled; -1: none
	refs   []uint64 // chunk<<40 | offset<<24 | length (refLenMax: the chunk's)
	// adopted maps another column whose chunks were appended to these
	// (sharing its keys rather than copying them) to the index of its first
	adopted map[*textKeys]uint64
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
	c := t.chunks[r>>40]
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
	if len(s) > arenaChunk/8 {
		t.chunks = append(t.chunks, []byte(s))
		return uint64(len(t.chunks)-1)<<40 | uint64(min(len(s), refLenMax))
	}
	if t.fill < 0 || cap(t.chunks[t.fill])-len(t.chunks[t.fill]) < len(s) {
		t.chunks = append(t.chunks, make([]byte, 0, arenaChunk))
		t.fill = len(t.chunks) - 1
	}
	c := t.chunks[t.fill]
	off := len(c)
	t.chunks[t.fill] = append(c, s...)
	return uint64(t.fill)<<40 | uint64(off)<<24 | uint64(len(s))
}

// adopt appends src's chunks to t's, once, and returns the index of the
// first: a reference of src plus that index<<40 is one of t.
func (t *textKeys) adopt(src *textKeys) uint64 {
	if base, ok := t.adopted[src]; ok {
		return base
	}
	if t.adopted == nil {
		t.adopted = map[*textKeys]uint64{}
	}
	base := uint64(len(t.chunks))
	t.chunks = append(t.chunks, src.chunks...)
	t.adopted[src] = base
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

// keyShare says that the keys a table adds are another table's stored keys
// (a merge of two workers' tables), row i of the batch being src's group
// ids[i], or lo+i when ids is nil: their text is shared, not copied.
type keyShare struct {
	src *keyCols
	lo  int
	ids []int32
}

func (s *keyShare) id(i int) int {
	if s.ids != nil {
		return int(s.ids[i])
	}
	return s.lo + i
}

// putText stores row i's text value x of column c, shared or copied; it
// returns the text bytes the table now holds for it. A shared key's bytes
// count too: the table it came from gives its memory back once merged.
func (k *keyCols) putText(c int, x string, i int) int64 {
	t := k.txt[c]
	if k.share != nil {
		t.refs = append(t.refs, t.shared(k.share.src.txt[c], k.share.id(i)))
		return int64(len(x))
	}
	t.refs = append(t.refs, t.copyIn(x))
	return int64(len(x))
}

// growText makes room for n more keys in text column c, doubling as push
// does; it returns the bytes of capacity added.
func (k *keyCols) growText(c, n int) int64 {
	t := k.txt[c]
	var g int64
	t.refs, g = grown(t.refs, n)
	return g
}

// colView is stored key column c's groups [lo, hi) as a vector (text made
// into strings that point into the chunks). It is valid until the next
// colView of the column.
func (k *keyCols) colView(c, lo, hi int) *vec.Vector {
	s := k.cols[c]
	v := k.view[c]
	if v == nil {
		v = &vec.Vector{Type: s.Type}
		k.view[c] = v
	}
	t := k.txt[c]
	if t == nil {
		*v = vec.Vector{Type: s.Type, Nulls: s.Nulls[lo:hi]}
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
	v.Nulls = s.Nulls[lo:hi]
	v.S = resizeSlice(v.S, hi-lo)
	for j := range v.S {
		v.S[j] = t.at(lo + j)
	}
	return v
}

// gatherInto appends stored key column c's groups ids to column c of b,
// text through v (scratch of the caller's: several partitions' mergers read
// one worker's table at once).
func (k *keyCols) gatherInto(b *colBuf, c int, ids []int32, v *vec.Vector) {
	t := k.txt[c]
	if t == nil {
		b.gather(c, k.cols[c], ids)
		return
	}
	v.Type = k.cols[c].Type
	v.S = resizeSlice(v.S, len(ids))
	v.Nulls = resizeSlice(v.Nulls, len(ids))
	for j, id := range ids {
		v.S[j] = t.at(int(id))
		v.Nulls[j] = k.cols[c].Nulls[id]
	}
	b.appendRange(c, v, 0, len(ids))
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
		sn := storedNulls[g]
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
func (k *keyCols) colEqual(c, j int, b *vec.Vector, i int) bool {
	t := k.txt[c]
	if t == nil {
		return nullableEqual(k.cols[c], j, b, i)
	}
	an, bn := k.cols[c].Nulls[j], b.IsNull(i)
	if an || bn {
		return an && bn
	}
	x, y := t.at(j), b.S[i]
	if x == y {
		return true
	}
	return b.Type.DynNumeric() && canonDecimal(x) == canonDecimal(y)
}
