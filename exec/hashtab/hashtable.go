package hashtab

import (
	"math/bits"
	"unsafe"

	"github.com/lakepg/lakepg/exec/memory"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// Hash tables for joins and aggregation: open addressing, power-of-two size,
// linear probing, at most half full, never Go maps (PERFORMANCE.md rule 7:
// 3× faster for group-by, 6× for join build). A slot holds a payload + 1
// (0 = empty): a dense group id for aggregation, the head of a row chain for
// a join build.
//
// i64Table keeps the key inline and hashes it with one multiply — the fast
// path for one integer-stored key (integers, dates, timestamps, scaled
// numerics). hashTable keeps the top half of the 64-bit hash inline and
// compares the key columns themselves only when hashes agree, so composite,
// text, float and dynamic-numeric keys need no byte encoding.

// tableSize is the power-of-two slot count for n entries at load <= 1/2.
func tableSize(n int) int {
	if n < 8 {
		n = 8
	}
	return 1 << bits.Len(uint(2*n-1))
}

// i64Slot keeps a key and its payload together: one cache miss per probe.
type i64Slot struct {
	key int64
	val int32
}

type I64Table struct {
	Slots []i64Slot
	shift uint
	N     int
	// dense holds the key of each id in insertion order when the table
	// assigns dense ids (aggregation).
	Dense []int64
}

func NewI64Table(hint int) *I64Table {
	t := &I64Table{}
	t.alloc(tableSize(hint))
	return t
}

func (t *I64Table) alloc(size int) {
	t.Slots = make([]i64Slot, size)
	memory.TouchPages(t.Slots)
	t.shift = uint(64 - bits.TrailingZeros(uint(size)))
}

// Bytes is the table's footprint for memory accounting.
func (t *I64Table) Bytes() int64 { return int64(len(t.Slots))*16 + int64(cap(t.Dense))*8 }

// slot is Fibonacci hashing: the multiply spreads consecutive keys and the
// top bits index the table.
func (t *I64Table) slot(k int64) int { return int((uint64(k) * memory.HashMul) >> t.shift) }

func (t *I64Table) grow() {
	old := t.Slots
	// a table past a million slots is on its way to many more groups
	// (TPC-H Q18 groups 6 M rows by 1.5 M orders): growing it 4× halves
	// the rehashing and clearing that doubling costs
	factor := 2
	if len(old) >= 1<<20 {
		factor = 4
	}
	t.alloc(factor * len(old))
	mask := len(t.Slots) - 1
	for _, sl := range old {
		if sl.val == 0 {
			continue
		}
		i := t.slot(sl.key)
		for t.Slots[i].val != 0 {
			i = (i + 1) & mask
		}
		t.Slots[i] = sl
	}
}

// GroupIDs sets gids[i] to the dense id of keys[i], adding new keys. Rows
// marked in nulls are skipped (the caller gives them the NULL group).
func (t *I64Table) GroupIDs(keys []int64, nulls []bool, gids []int32) {
	gids = gids[:len(keys)]
	mask := len(t.Slots) - 1
	// rows of one key often come together (a table clustered by it, as
	// lineitem by l_orderkey): the previous row's group needs no probe
	prevK, prevG := int64(0), int32(-1)
	for i, k := range keys {
		if nulls != nil && nulls[i] {
			continue
		}
		if k == prevK && prevG >= 0 {
			gids[i] = prevG
			continue
		}
		if 2*t.N >= len(t.Slots) {
			t.grow()
			mask = len(t.Slots) - 1
		}
		s := t.slot(k)
		for {
			sl := &t.Slots[s&mask]
			if sl.val == 0 {
				id := int32(len(t.Dense))
				sl.key, sl.val = k, id+1
				t.Dense = memory.AppendDoubling(t.Dense, []int64{k})
				t.N++
				gids[i] = id
				break
			}
			if sl.key == k {
				gids[i] = sl.val - 1
				break
			}
			s++
		}
		prevK, prevG = k, gids[i]
	}
}

// Lookup returns the payload of k, or -1.
func (t *I64Table) Lookup(k int64) int32 {
	mask := len(t.Slots) - 1
	s := t.slot(k)
	for {
		sl := &t.Slots[s&mask]
		if sl.val == 0 {
			return -1
		}
		if sl.key == k {
			return sl.val - 1
		}
		s++
	}
}

// Push makes row the payload of k and returns the previous payload (-1
// when k is new): a join build threads each key's rows into a chain.
func (t *I64Table) Push(k int64, row int32) int32 {
	if 2*t.N >= len(t.Slots) {
		t.grow()
	}
	mask := len(t.Slots) - 1
	s := t.slot(k)
	for {
		sl := &t.Slots[s&mask]
		if sl.val == 0 {
			sl.key, sl.val = k, row+1
			t.N++
			return -1
		}
		if sl.key == k {
			old := sl.val - 1
			sl.val = row + 1
			return old
		}
		s++
	}
}

// PushPart lets several goroutines fill a join build's table at once: it
// Pushes, from the last row to the first, the keys whose home slot lies in
// part p of the table's parts equal slot ranges (parts a power of two,
// the table sized for all keys), setting next[r] to what Push returns.
// Rows marked in nulls are passed over. It writes only slots of its own
// range: a row whose probe would run past the range's end goes into over
// instead (all rows of its key, in the order met), for FinishParts. added
// is the keys it added.
func (t *I64Table) PushPart(keys []int64, nulls []bool, next []int32, p, parts int, over []int32) (added int, _ []int32) {
	shift := uint(bits.TrailingZeros(uint(len(t.Slots) / parts)))
	hi := (p + 1) << shift
	// the rows of this part are picked out a block at a time with no
	// branch: skipping the others by a branch mispredicted every other
	// row, and each miss cost the lookups in flight (the inserts are
	// cache misses the core overlaps)
	var blk [256]int32
	for end := len(keys); end > 0; end -= len(blk) {
		start := max(end-len(blk), 0)
		c := 0
		for r := end - 1; r >= start; r-- {
			blk[c] = int32(r)
			in := t.slot(keys[r])>>shift == p
			if nulls != nil {
				in = in && !nulls[r]
			}
			c += b2i(in)
		}
	next:
		for _, r := range blk[:c] {
			k := keys[r]
			for s := t.slot(k); s < hi; s++ {
				sl := &t.Slots[s]
				if sl.val == 0 {
					sl.key, sl.val = k, r+1
					added++
					next[r] = -1
					continue next
				}
				if sl.key == k {
					next[r] = sl.val - 1
					sl.val = r + 1
					continue next
				}
			}
			over = append(over, r)
		}
	}
	return added, over
}

// FinishParts completes a table filled by PushPart: added is the sum of
// the parts' keys, over their lists of rows left out.
func (t *I64Table) FinishParts(keys []int64, next []int32, added int, over [][]int32) {
	t.N = added
	for _, rs := range over {
		for _, r := range rs {
			next[r] = t.Push(keys[r], r)
		}
	}
}

// HashTable is the general table. A slot is one word: the top 32 bits of
// the key's hash (its tag) above the payload + 1 (0 = empty), so a probe
// reads one cache line, and a slot whose hash bits differ is passed over
// without touching the key columns; the caller compares keys only where
// they agree. Past a few hundred thousand keys nearly every probe is a
// cache miss, and hash and payload in separate arrays made it two.
//
// An aggregation's table (GroupIDs, PlaceNew) gives its groups dense ids
// 0..N-1 and starts a key's probe at Home, which is computed from the tag:
// the slots alone hold what growing needs, where a hash kept per group for
// it cost 8 of the ~85 bytes a group of lineitem's 6 M-group GROUP BY
// takes, a tenth more groups held under the same budget. A join build
// (package exec) places its rows by the hash's low bits itself, in a table
// that never grows.
type HashTable struct {
	Slots []uint64
	N     int
	shift uint // 32 - log2(len(Slots)): Home's
	// Tight: memory is short (the aggregation is near its budget, or
	// could not reserve the table's doubling), so the slots fill to 3/4
	// before they double; KeyCols.Tight grows the keys by quarters, or by
	// half at most to what the slots take (growth)
	Tight bool
}

// homeMul is an odd constant (2^32 / golden ratio): multiplying the tag by
// it mixes every tag bit into the product's top bits, which Home keeps.
// A partition's keys share the top bits of their hash (the spill and radix
// partitions pick by them, 4 a level), so the tag's top bits alone would
// crowd a few slots. Keys with equal tags share a home, and their keys are
// compared: with 28 bits left at the first level that is rare, with 20 at
// the third (a table 256 times the budget's partitions down) it is one
// probe in five of a table of 200,000 groups.
const homeMul = 0x9E3779B1

// Home is the slot a key of hash h (or a slot holding it) starts its probe
// at. It depends on the tag alone, so the table grows from its slots: a
// key's home in the doubled table is twice its home here, or one more, and
// reading the old slots in order writes the new ones nearly in order too.
func (t *HashTable) Home(h uint64) uint64 { return uint64(uint32(h>>32)*homeMul) >> t.shift }

func (t *HashTable) alloc(size int) {
	t.Slots = make([]uint64, size)
	memory.TouchPages(t.Slots)
	t.shift = uint(32 - bits.TrailingZeros(uint(size)))
}

// full reports whether n keys are more than the slots take: half of them,
// 3/4 when tight. Linear probing past half full probes further, which a
// table the budget cannot double is better off paying than spilling.
func (t *HashTable) full(n int) bool {
	if t.Tight {
		return 4*n >= 3*len(t.Slots)
	}
	return 2*n >= len(t.Slots)
}

const slotPayload = 1<<32 - 1

// SlotTag is the part of a hash a slot keeps.
func SlotTag(h uint64) uint64 { return h &^ slotPayload }

// SlotVal is a slot's payload + 1 (0: empty).
func SlotVal(sl uint64) int32 { return int32(uint32(sl)) }

func NewHashTable(hint int) *HashTable {
	t := &HashTable{}
	t.alloc(tableSize(hint))
	return t
}

func (t *HashTable) Bytes() int64 { return int64(len(t.Slots)) * 8 }

// grow doubles the table.
func (t *HashTable) grow() { t.rehash(2 * len(t.Slots)) }

// Reserve makes room for n keys in all, growing the table once now rather
// than step by step as they come (a merge that adds another table's
// groups).
func (t *HashTable) Reserve(n int) {
	if size := tableSize(n + 1); size > len(t.Slots) {
		t.rehash(size)
	}
}

// Reserve gives every key column room for n keys in all and returns the
// bytes of capacity added. A merge that adds as many groups again to a
// table near the budget (Tight) would otherwise grow each column by a
// quarter three or four times, copying it, and faulting in fresh pages,
// each time.
func (k *KeyCols) Reserve(n int) int64 {
	var g, d int64
	for c, s := range k.Cols {
		if s.Nulls != nil {
			s.Nulls, d = reserved(s.Nulls, n)
			g += d
		}
		if t := k.Txt[c]; t != nil {
			t.refs, d = reserved(t.refs, n)
			g += d
			continue
		}
		switch s.Type.Storage() {
		case types.StoreInt:
			s.I64, d = reserved(s.I64, n)
		case types.StoreFloat:
			s.F64, d = reserved(s.F64, n)
		case types.StoreBool:
			s.B, d = reserved(s.B, n)
		case types.StoreInterval:
			s.Iv, d = reserved(s.Iv, n)
		default:
			s.S, d = reserved(s.S, n)
		}
		g += d
	}
	return g
}

// reserved returns s with capacity for n in all, exactly, and the bytes of
// capacity added.
func reserved[T any](s []T, n int) ([]T, int64) {
	if n <= cap(s) {
		return s, 0
	}
	g := make([]T, len(s), n)
	copy(g, s)
	var x T
	return g, int64(n-cap(s)) * int64(unsafe.Sizeof(x))
}

// rehash places every group again in a table of size slots, at the home
// of its slot's tag.
func (t *HashTable) rehash(size int) {
	old := t.Slots
	t.alloc(size)
	mask := uint64(size - 1)
	for _, sl := range old {
		if sl == 0 {
			continue
		}
		i := t.Home(sl)
		for t.Slots[i] != 0 {
			i = (i + 1) & mask
		}
		t.Slots[i] = sl
	}
}

// Tags returns the tag of each group id of an aggregation's table, in id
// order, in dst's memory when it is big enough: the hash bits that pick a
// group's home and its partition (the top ones), for moving the group to
// another table.
func (t *HashTable) Tags(dst []uint64) []uint64 {
	dst = memory.ResizeSlice(dst, t.N)
	for _, sl := range t.Slots {
		if sl != 0 {
			dst[SlotVal(sl)-1] = SlotTag(sl)
		}
	}
	return dst
}

// PlaceNew gives the next id to a new key of hash h without looking for an
// equal key: the caller knows it has none (a partition table filled from
// one worker's distinct groups) and stores the key at that id.
func (t *HashTable) PlaceNew(h uint64) int32 {
	if t.full(t.N) {
		t.grow()
	}
	mask := uint64(len(t.Slots) - 1)
	s := t.Home(h)
	for t.Slots[s] != 0 {
		s = (s + 1) & mask
	}
	id := int32(t.N)
	t.Slots[s] = SlotTag(h) | uint64(id+1)
	t.N++
	return id
}

// Find sets ids[i] to the group whose key equals row i of keys (hs[i] its
// hash), or to -1 where t has none, and returns how many it found. It only
// reads t and k (sc is the caller's scratch), so goroutines may look keys
// up in one table side by side (the end of a parallel aggregation,
// exec/aggregate's unionRuns). As GroupIDs does, it takes the home slot's
// group as each row's guess and checks the guesses a key column at a time.
func (t *HashTable) Find(k *KeyCols, keys []*vec.Vector, hs []uint64, ids []int32, sc *FindScratch) int {
	mask := uint64(len(t.Slots) - 1)
	guessed, rest := sc.guessed[:0], sc.rest[:0]
	for i, h := range hs {
		switch sl := t.Slots[t.Home(h)]; {
		case sl == 0:
			ids[i] = -1
		case SlotTag(sl) == SlotTag(h):
			ids[i] = SlotVal(sl) - 1
			guessed = append(guessed, int32(i))
		default:
			rest = append(rest, int32(i))
		}
	}
	var wrong []int32
	sc.live, wrong = k.splitGuesses(guessed, ids, keys, sc.live, sc.wrong)
	found := len(sc.live)
	for _, rows := range [2][]int32{wrong, rest} {
		for _, i := range rows {
			h := hs[i]
			id := int32(-1)
			tag := SlotTag(h)
			for s := t.Home(h); ; s = (s + 1) & mask {
				sl := t.Slots[s]
				if sl == 0 {
					break
				}
				if SlotTag(sl) == tag && k.Equal(int(SlotVal(sl)-1), keys, int(i)) {
					id = SlotVal(sl) - 1
					found++
					break
				}
			}
			ids[i] = id
		}
	}
	sc.guessed, sc.rest, sc.wrong = guessed, rest, wrong
	return found
}

// FindScratch is one goroutine's scratch for Find.
type FindScratch struct {
	guessed, rest, live, wrong []int32
}

// AppendRows stores rows ids of another keyCols' columns as the next keys,
// text shared rather than copied (see keyShare), and returns the bytes added:
// the shared text too, which the other table no longer counts once it is
// split or merged.
func (k *KeyCols) AppendRows(src *KeyCols, ids []int32) int64 {
	var n int64
	for c, s := range k.Cols {
		v := src.Cols[c]
		// the flags first: a column given them now has them for the
		// groups it held before these
		n += k.gatherNulls(c, v.Nulls, ids)
		k.nulls[c] = k.nulls[c] || src.nulls[c]
		if t := k.Txt[c]; t != nil {
			st := src.Txt[c]
			for _, id := range ids {
				t.refs = append(t.refs, t.shared(st, int(id)))
				n += int64(len(st.at(int(id))))
			}
			n += 8 * int64(len(ids))
			continue
		}
		switch s.Type.Storage() {
		case types.StoreInt:
			s.I64 = memory.GatherT(s.I64, v.I64, ids)
			n += 8 * int64(len(ids))
		case types.StoreFloat:
			s.F64 = memory.GatherT(s.F64, v.F64, ids)
			n += 8 * int64(len(ids))
		case types.StoreBool:
			s.B = memory.GatherT(s.B, v.B, ids)
			n += int64(len(ids))
		case types.StoreInterval:
			s.Iv = memory.GatherT(s.Iv, v.Iv, ids)
			n += 16 * int64(len(ids))
		default:
			l := len(s.S)
			s.S = memory.GatherT(s.S, v.S, ids)
			n += 16 * int64(len(ids))
			for _, x := range s.S[l:] {
				n += int64(len(x))
			}
		}
	}
	return n
}

// A key column stores NULL flags only once it holds a NULL: until then its
// Nulls is nil (no NULLs, as in any vector), else as long as the column.
// Keys that are never NULL (lineitem's 6 M groups of three) save a byte a
// key per group, memory a table near its budget holds groups in instead.

// Cap is the keys the columns hold without growing (the first column's
// capacity: the columns grow together).
func (k *KeyCols) Cap() int {
	if t := k.Txt[0]; t != nil {
		return cap(t.refs)
	}
	return k.Cols[0].Cap()
}

// count is the keys column c holds.
func (k *KeyCols) count(c int) int {
	if t := k.Txt[c]; t != nil {
		return len(t.refs)
	}
	return k.Cols[c].Len()
}

// flagNulls gives column c NULL flags, all false, for the keys it holds,
// with the capacity of its values; it returns the bytes.
func (k *KeyCols) flagNulls(c int) int64 {
	s := k.Cols[c]
	if s.Nulls != nil {
		return 0
	}
	n := k.count(c)
	vc := n
	if t := k.Txt[c]; t != nil {
		vc = cap(t.refs)
	} else {
		switch s.Type.Storage() {
		case types.StoreInt:
			vc = cap(s.I64)
		case types.StoreFloat:
			vc = cap(s.F64)
		case types.StoreBool:
			vc = cap(s.B)
		case types.StoreInterval:
			vc = cap(s.Iv)
		default:
			vc = cap(s.S)
		}
	}
	s.Nulls = make([]bool, n, max(vc, n+1, 64))
	return int64(cap(s.Nulls))
}

// gatherNulls appends the NULL flags from[ids] (nil: none) to column c,
// before its values are appended; it returns the bytes added.
func (k *KeyCols) gatherNulls(c int, from []bool, ids []int32) int64 {
	s := k.Cols[c]
	var n int64
	if s.Nulls == nil {
		if !anyNull(from, ids) {
			return 0
		}
		n = k.flagNulls(c)
	}
	if from == nil {
		s.Nulls = append(s.Nulls, make([]bool, len(ids))...)
	} else {
		s.Nulls = memory.GatherT(s.Nulls, from, ids)
	}
	return n + int64(len(ids))
}

// anyNull reports whether a row of rows is NULL in nulls (nil: none).
func anyNull(nulls []bool, rows []int32) bool {
	if nulls == nil {
		return false
	}
	for _, r := range rows {
		if nulls[r] {
			return true
		}
	}
	return false
}

// KeyCols is a set of stored key columns (one row per group) compared
// against the key columns of a batch. A text column's keys are in txt (the
// vector in cols holds only its NULL flags); others are in cols.
type KeyCols struct {
	Cols []*vec.Vector
	Txt  []*textKeys
	// nulls: column c holds a NULL key
	nulls []bool
	// share, when set, says the keys added are another table's (keyShare)
	Share *KeyShare
	// Tight: grow the columns by quarters rather than doubling them
	// (HashTable.Tight), or to slotRoom (growth)
	Tight    bool
	slotRoom int
	// scratch of groupIDs
	guessed, fresh, rest, live, wrong []int32
	view                              []*vec.Vector // colView's
}

// arenaChunk is the size of the chunks text keys are copied into, so that
// keeping a key costs no allocation of its own and does not pin the page
// it came from.
const ArenaChunk = 64 << 10

func NewKeyCols(ts []types.T) *KeyCols {
	k := &KeyCols{Cols: make([]*vec.Vector, len(ts)), Txt: make([]*textKeys, len(ts)),
		nulls: make([]bool, len(ts)), view: make([]*vec.Vector, len(ts))}
	for i, t := range ts {
		if t.Storage() == types.StoreBytes {
			k.Cols[i] = &vec.Vector{Type: t}
			k.Txt[i] = newTextKeys()
		} else {
			k.Cols[i] = vec.New(t, 64)
		}
	}
	return k
}

// Equal compares stored row j with row i of the batch keys, NULL equal NULL.
func (k *KeyCols) Equal(j int, keys []*vec.Vector, i int) bool {
	for c := range k.Cols {
		if !k.colEqual(c, j, keys[c], i) {
			return false
		}
	}
	return true
}

// add stores row i of keys; text is copied so that a key does not pin the
// page it came from. It returns the bytes added: the text, and the capacity
// a column gained when it had to grow.
//
// Columns double when full: with millions of groups append's 1.25× steps
// copied every key column about five times over.
func (k *KeyCols) add(keys []*vec.Vector, i int) int64 {
	var n, g int64
	for c, s := range k.Cols {
		src := keys[c]
		if t := k.Txt[c]; t != nil {
			g = k.growText(c, 1)
			null := src.IsNull(i)
			if null {
				n += k.flagNulls(c)
				t.refs = append(t.refs, 0)
				k.nulls[c] = true
				n += 9
			} else {
				n += k.putText(c, src.S[i], i)
			}
			n += g
			if s.Nulls != nil {
				s.Nulls, g = push(s.Nulls, null, k.growth())
				n += g
			}
			continue
		}
		if src.IsNull(i) {
			n += k.flagNulls(c)
			s.AppendNull()
			k.nulls[c] = true
			n += 9
			continue
		}
		switch s.Type.Storage() {
		case types.StoreInt:
			s.I64, g = push(s.I64, src.I64[i], k.growth())
		case types.StoreFloat:
			s.F64, g = push(s.F64, src.F64[i], k.growth())
		case types.StoreBool:
			s.B, g = push(s.B, src.B[i], k.growth())
		case types.StoreInterval:
			s.Iv, g = push(s.Iv, src.Iv[i], k.growth())
		default:
			// not reached: text columns are in txt
			s.S, g = push(s.S, src.S[i], k.growth())
		}
		n += g
		if s.Nulls != nil {
			s.Nulls, g = push(s.Nulls, false, k.growth())
			n += g
		}
	}
	return n
}

// addRows stores rows of keys as the next keys, as add does for each, a
// column at a time; it returns the bytes added.
func (k *KeyCols) addRows(keys []*vec.Vector, rows []int32) int64 {
	if len(rows) == 0 {
		return 0
	}
	var n, g int64
	for c, s := range k.Cols {
		src := keys[c]
		l := k.count(c)
		if s.Nulls == nil && anyNull(src.Nulls, rows) {
			n += k.flagNulls(c)
		}
		var nulls []bool
		if s.Nulls != nil {
			if src.Nulls == nil {
				s.Nulls, g = grown(s.Nulls, len(rows), k.growth())
				s.Nulls = s.Nulls[:l+len(rows)]
				clear(s.Nulls[l:])
			} else {
				s.Nulls, g = gatherGrow(s.Nulls, src.Nulls, rows, k.growth())
			}
			n += g
			nulls = s.Nulls[l:]
		}
		switch s.Type.Storage() {
		case types.StoreInt:
			s.I64, g = gatherGrow(s.I64, src.I64, rows, k.growth())
			zeroNulls(s.I64[l:], nulls)
		case types.StoreFloat:
			s.F64, g = gatherGrow(s.F64, src.F64, rows, k.growth())
			zeroNulls(s.F64[l:], nulls)
		case types.StoreBool:
			s.B, g = gatherGrow(s.B, src.B, rows, k.growth())
			zeroNulls(s.B[l:], nulls)
		case types.StoreInterval:
			s.Iv, g = gatherGrow(s.Iv, src.Iv, rows, k.growth())
			zeroNulls(s.Iv[l:], nulls)
		default:
			g = k.growText(c, len(rows))
			t := k.Txt[c]
			for j, r := range rows {
				if nulls != nil && nulls[j] {
					t.refs = append(t.refs, 0)
					continue
				}
				n += k.putText(c, src.S[r], int(r))
			}
		}
		n += g
		for _, null := range nulls {
			if null {
				k.nulls[c] = true
				n += 9
			}
		}
	}
	return n
}

// zeroNulls zeroes the values under NULLs, as AppendNull stores them.
func zeroNulls[T any](vals []T, nulls []bool) {
	var zero T
	for j, null := range nulls {
		if null {
			vals[j] = zero
		}
	}
}

// growth is how a per-group array grows: 0, doubling; else, near the
// budget (KeyCols.Tight), by a quarter, or to the keys the table's slots
// take before they double when that is more (the value), at most by half.
// Grown by quarters from where they went tight, lineitem's 16 partition
// tables of ~380,000 groups allocated their key columns about three times
// over on the way, each step a copy into fresh memory; the slots, which
// double, set the groups the table can hold anyway.
type growth int

// growth is how k's arrays grow now.
func (k *KeyCols) growth() growth {
	if !k.Tight {
		return 0
	}
	return growth(max(k.slotRoom, 1))
}

// fit tells k the groups t's slots take before they double, the size its
// columns may grow to in one step when tight.
func (t *HashTable) fit(k *KeyCols) { k.slotRoom = t.room(len(t.Slots)) }

// room is the groups size slots take before they double.
func (t *HashTable) room(size int) int {
	if t.Tight {
		return 3 * size / 4
	}
	return size / 2
}

// newCap is the capacity a per-group array of capacity c grows to when it
// needs room for need, as g says.
func newCap(c, need int, g growth) int {
	if g > 0 {
		return max(c+c/4, 64, need, min(int(g), c+c/2))
	}
	return max(2*c, 64, need)
}

// grown returns s with room for n more, grown as newCap says, and the bytes
// of capacity added.
func grown[T any](s []T, n int, g0 growth) ([]T, int64) {
	if len(s)+n <= cap(s) {
		return s, 0
	}
	c := newCap(cap(s), len(s)+n, g0)
	g := make([]T, len(s), c)
	copy(g, s)
	var x T
	return g, int64(c-cap(s)) * int64(unsafe.Sizeof(x))
}

// gatherGrow appends src's values at idx to dst, growing it as grown does.
func gatherGrow[T any](dst, src []T, idx []int32, g0 growth) ([]T, int64) {
	dst, g := grown(dst, len(idx), g0)
	return memory.GatherT(dst, src, idx), g
}

// push appends x, growing s as newCap says when it is full; it returns the
// bytes of capacity added.
func push[T any](s []T, x T, g0 growth) ([]T, int64) {
	if len(s) < cap(s) {
		return append(s, x), 0
	}
	c := newCap(cap(s), len(s)+1, g0)
	grown := make([]T, len(s), c)
	copy(grown, s)
	return append(grown, x), int64(c-cap(s)) * int64(unsafe.Sizeof(x))
}

// GroupIDs sets gids[i] for every row of the batch keys, adding new groups
// to t and k. hs holds the rows' hashes.
//
// It probes every row first, taking the first slot whose hash tag agrees as
// the row's group, then checks those guesses a key column at a time. Typed
// loops over many rows let the loads of different groups' stored keys
// overlap, where comparing row by row waited for each in turn (TPC-DS q47
// groups 670 k rows by six keys, four of them text). The rare row whose
// guess was wrong (another key with the same tag) probes on row by row.
//
// The keys of the rows that make new groups are stored after the probes, a
// column at a time (addRows): the probes compare no keys, and storing them
// row by row, switching on each column's type, cost as much as the probes.
func (t *HashTable) GroupIDs(k *KeyCols, keys []*vec.Vector, hs []uint64, gids []int32) int64 {
	guessed, fresh, rest := k.guessed[:0], k.fresh[:0], k.rest[:0]
	// Most rows of a table past the caches find their group in its home
	// slot. This loop only reads slots, so the misses of many rows are in
	// flight at once; a row that would probe further or make a new group
	// waits for the loop below. Its guess is the one probe would make:
	// slots are filled, never emptied, so a home slot that agrees now is
	// the first that agrees then.
	for i, h := range hs {
		if sl := t.Slots[t.Home(h)]; sl != 0 && SlotTag(sl) == SlotTag(h) {
			gids[i] = SlotVal(sl) - 1
			guessed = append(guessed, int32(i))
		} else {
			rest = append(rest, int32(i))
		}
	}
	for _, i := range rest {
		id, isNew, _ := t.probe(k, keys, int(i), hs[i], false)
		gids[i] = id
		if isNew {
			fresh = append(fresh, i)
		} else {
			guessed = append(guessed, i)
		}
	}
	k.guessed, k.fresh, k.rest = guessed, fresh, rest
	t.fit(k)
	added := k.addRows(keys, fresh)
	for _, i := range k.wrongGuesses(guessed, gids, keys) {
		g, a := t.groupID(k, keys, int(i), hs[i])
		gids[i] = g
		added += a
	}
	return added
}

// wrongGuesses returns the rows among rows whose key differs from that of
// their group gids[i], comparing a column at a time.
func (k *KeyCols) wrongGuesses(rows, gids []int32, keys []*vec.Vector) []int32 {
	k.live, k.wrong = k.splitGuesses(rows, gids, keys, k.live, k.wrong)
	return k.wrong
}

// splitGuesses is wrongGuesses with the caller's scratch, live and wrong: it
// only reads k. It returns them, wrong holding the rows whose key differs.
func (k *KeyCols) splitGuesses(rows, gids []int32, keys []*vec.Vector, live, wrong []int32) ([]int32, []int32) {
	live = append(live[:0], rows...)
	wrong = wrong[:0]
	for c, s := range k.Cols {
		if len(live) == 0 {
			break
		}
		b := keys[c]
		n := 0
		nullable := b.Nulls != nil || k.nulls[c]
		switch {
		case nullable && s.Type.Storage() == types.StoreInt:
			n, wrong = splitEqualNullable(s.I64, b.I64, s.Nulls, b.Nulls, gids, live, wrong)
		case nullable && k.Txt[c] != nil && !s.Type.DynNumeric():
			n, wrong = splitTextNullable(k.Txt[c], b.S, s.Nulls, b.Nulls, gids, live, wrong)
		case nullable:
			for _, i := range live {
				if k.colEqual(c, int(gids[i]), b, int(i)) {
					live[n] = i
					n++
				} else {
					wrong = append(wrong, i)
				}
			}
		case s.Type.Storage() == types.StoreInt:
			n, wrong = splitEqual(s.I64, b.I64, gids, live, wrong)
		case k.Txt[c] != nil && !s.Type.DynNumeric():
			n, wrong = splitText(k.Txt[c], b.S, gids, live, wrong)
		default:
			for _, i := range live {
				if k.colEqual(c, int(gids[i]), b, int(i)) {
					live[n] = i
					n++
				} else {
					wrong = append(wrong, i)
				}
			}
		}
		live = live[:n]
	}
	return live, wrong
}

// splitEqual keeps at the front of live the rows whose value equals their
// group's stored one, returning how many, and appends the others to wrong.
func splitEqual[T comparable](stored, in []T, gids, live, wrong []int32) (int, []int32) {
	n := 0
	for _, i := range live {
		if stored[gids[i]] == in[i] {
			live[n] = i
			n++
		} else {
			wrong = append(wrong, i)
		}
	}
	return n, wrong
}

// splitEqualNullable is splitEqual where either side may hold NULLs
// (nil: none): NULL equals NULL here, as GROUP BY has it.
func splitEqualNullable[T comparable](stored, in []T, storedNulls, inNulls []bool, gids, live, wrong []int32) (int, []int32) {
	n := 0
	for _, i := range live {
		g := gids[i]
		sn := storedNulls != nil && storedNulls[g]
		bn := inNulls != nil && inNulls[i]
		if sn == bn && (sn || stored[g] == in[i]) {
			live[n] = i
			n++
		} else {
			wrong = append(wrong, i)
		}
	}
	return n, wrong
}

// groupID is the group of row i of keys, whose hash is h, added when new;
// it also returns the key bytes added.
func (t *HashTable) groupID(k *KeyCols, keys []*vec.Vector, i int, h uint64) (int32, int64) {
	id, _, added := t.probe(k, keys, i, h, true)
	return id, added
}

// probe finds the group of row i of keys, whose hash is h: the first slot
// whose tag agrees and, when verify, whose stored key equals the row's, or
// a new group in the first empty slot (isNew). With verify the new group's
// key is stored and added is its bytes; without, the caller stores it
// before any other probe may compare it (groupIDs).
func (t *HashTable) probe(k *KeyCols, keys []*vec.Vector, i int, h uint64, verify bool) (id int32, isNew bool, added int64) {
	if t.full(t.N) {
		t.grow()
	}
	mask := uint64(len(t.Slots) - 1)
	tag := SlotTag(h)
	s := t.Home(h)
	for {
		sl := t.Slots[s]
		if sl == 0 {
			id := int32(t.N)
			t.Slots[s] = tag | uint64(id+1)
			t.N++
			if !verify {
				return id, true, 0
			}
			t.fit(k)
			return id, true, k.add(keys, i)
		}
		if SlotTag(sl) == tag && (!verify || k.Equal(int(SlotVal(sl)-1), keys, i)) {
			return SlotVal(sl) - 1, false, 0
		}
		s = (s + 1) & mask
	}
}

// GrowthAhead is the bytes of capacity the table and k's columns would add
// were n more groups stored: the slots double when n more would pass what
// they take (full), and each per-group array n more would overflow grows as
// newCap says. An aggregation that can spill reserves it before the batch
// goes in, so that a table the budget cannot afford to grow is frozen as it
// is rather than grown and then frozen with its new capacity empty. A
// column's first NULL flags (flagNulls) are not foreseen: a byte a key,
// once.
func (t *HashTable) GrowthAhead(k *KeyCols, n int) int64 {
	var g int64
	size := len(t.Slots)
	if t.full(t.N + n) {
		g += 8 * int64(size)
		size *= 2
	}
	kg := growth(0)
	if k.Tight {
		kg = growth(t.room(size))
	}
	return g + k.growthAhead(n, kg)
}

// GrowthAhead is HashTable.GrowthAhead for the integer table, which grows
// 4× past a million slots.
func (t *I64Table) GrowthAhead(n int) int64 {
	var g int64
	if 2*(t.N+n) >= len(t.Slots) {
		factor := int64(1)
		if len(t.Slots) >= 1<<20 {
			factor = 3
		}
		g += 16 * factor * int64(len(t.Slots))
	}
	return g + growthOf(t.Dense, n, 0)
}

func (k *KeyCols) growthAhead(n int, kg growth) int64 {
	var g int64
	for c, s := range k.Cols {
		if s.Nulls != nil {
			g += growthOf(s.Nulls, n, kg)
		}
		if t := k.Txt[c]; t != nil {
			g += growthOf(t.refs, n, kg)
			continue
		}
		switch s.Type.Storage() {
		case types.StoreInt:
			g += growthOf(s.I64, n, kg)
		case types.StoreFloat:
			g += growthOf(s.F64, n, kg)
		case types.StoreBool:
			g += growthOf(s.B, n, kg)
		case types.StoreInterval:
			g += growthOf(s.Iv, n, kg)
		default:
			g += growthOf(s.S, n, kg)
		}
	}
	return g
}

// growthOf is the bytes s grows by (grown) when n more do not fit.
func growthOf[T any](s []T, n int, g growth) int64 {
	if len(s)+n <= cap(s) {
		return 0
	}
	var x T
	return int64(newCap(cap(s), len(s)+n, g)-cap(s)) * int64(unsafe.Sizeof(x))
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
