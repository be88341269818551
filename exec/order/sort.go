package order

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"math"
	"slices"
	"strings"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/memory"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// SortKey orders by an input column.
type SortKey struct {
	Col        int
	Desc       bool
	NullsFirst bool
}

// Sort buffers its input and emits it ordered by Keys; ties keep input
// order. With Limit > 0 it keeps only the first Limit rows (top-N, for
// ORDER BY … LIMIT; put OFFSET+COUNT here) in a bounded heap instead of
// buffering everything.
//
// Rows are compared through normalised keys: every row's sort key is
// encoded once into bytes whose memcmp order is the SQL order (NULL
// placement, DESC and NaN included), so a comparison is a uint64 prefix
// compare, rarely a bytes.Compare, and never a per-column type switch or
// interface call.
type Sort struct {
	Input exec.Operator
	Keys  []SortKey
	Limit int64
	Mem   *memory.Memory

	started bool
	data    *memory.ColBuf
	perm    []int32
	pos     int
	out     *memory.ColBuf
	res     memory.Reservation
	enc     KeyEncoder

	// seed, when set, are rows already buffered (and reserved, seedRes)
	// that the sort starts from: a window that outgrew memory hands its
	// buffer over rather than replay it into a sort that would then spill
	// tiny runs while the buffer still held the memory
	Seed    *memory.ColBuf
	SeedRes memory.Reservation

	// external sort (spill.go)
	spilling  bool
	runs      []*sortRun
	heap      []*sortRun
	segs      []memory.Seg // the pieces of the batch mergeNext is making
	writers   []*runWriter
	splitRuns int // times the buffered rows were written as several runs at once
	// mergePasses counts the merges of some runs into one before the last,
	// when the pool had no room for a merge of all
	mergePasses int
	// workers buffer a Parallel input worker by worker (parallel.go)
	workers []*sortWorker
	ahead   *mergeAhead
	// a top-N that outgrew memory sorts everything (topNToSort) and sends
	// its first Limit rows: sent counts them, cut is the last batch's view
	sent    int64
	cut     vec.Batch
	cutVecs []vec.Vector
}

func (s *Sort) Types() []types.T { return s.Input.Types() }
func (s *Sort) Close() error {
	if s.Seed != nil {
		s.SeedRes.Release() // never started
		s.Seed = nil
	}
	s.stopAhead()
	s.res.Release()
	s.closeRuns()
	return s.Input.Close()
}

func (s *Sort) Next(ctx context.Context) (*vec.Batch, error) {
	if !s.started {
		s.started = true
		s.res.Mem = memory.MemFor(ctx, s.Mem)
		s.res.Cap = memory.WorkMemOf(ctx)
		s.data = memory.NewColBuf(s.Input.Types(), vec.BatchSize)
		if s.Seed != nil {
			s.data, s.Seed = s.Seed, nil
			s.res.Reserved, s.res.Used = s.SeedRes.Reserved, s.SeedRes.Used
		}
		var err error
		s.res.Spill = true
		if s.Limit > 0 {
			err = s.topN(ctx)
		} else {
			err = s.sortAll(ctx)
		}
		if err != nil {
			return nil, err
		}
		if s.spilling {
			s.startAhead(ctx)
			return s.limited(s.nextAhead(ctx))
		}
		s.out = memory.NewColBuf(s.Input.Types(), vec.BatchSize)
	} else if s.spilling {
		return s.limited(s.nextAhead(ctx))
	}
	if s.pos >= len(s.perm) {
		s.res.Release()
		return nil, nil
	}
	end := min(s.pos+vec.BatchSize, len(s.perm))
	s.out.Clear()
	for c, v := range s.data.Vecs {
		s.out.Gather(c, v, s.perm[s.pos:end])
	}
	s.out.N = end - s.pos
	s.pos = end
	return &s.out.Batch, nil
}

func (s *Sort) sortAll(ctx context.Context) error {
	if p := s.parallelInput(); p != nil {
		return s.sortParallel(ctx, p)
	}
	err := exec.Drain(ctx, s.Input, func(b *vec.Batch) error {
		return s.buffer(ctx, b, &s.data, &s.res, func() error { return s.spillRun(ctx) })
	})
	if err != nil {
		return err
	}
	if s.spilling {
		return s.startMerge(ctx)
	}
	n := s.data.N
	s.enc.Init(s.Keys, s.data.Vecs)
	s.enc.DropNullMarkers(s.data.Vecs, n)
	s.enc.Encode(s.data.Vecs, n) // reserved with the rows (sortKeyCost)
	s.perm = s.enc.Order(n)
	return nil
}

// SortKeyCost is what sorting rows [0, n) of b will take beside the rows:
// their normalised keys, estimated as keyEncoder writes them, and
// sortRowCost each. A sort reserves it as it buffers, so that the keys of
// a run it spills fit in the memory it holds rather than come on top.
func SortKeyCost(keys []SortKey, b *vec.Batch, n int) int64 {
	if len(keys) == 0 {
		return 0
	}
	cost := int64(n) * SortRowCost
	for _, k := range keys {
		v := b.Vecs[k.Col]
		cost += int64(n) // NULL marker
		switch {
		case v.Type.DynNumeric():
			for _, x := range v.S[:n] {
				cost += int64(len(x)) + 6
			}
		case v.Type.Storage() == types.StoreBytes:
			for _, x := range v.S[:n] {
				cost += int64(len(x)) + 2
			}
		default:
			cost += int64(keyWidth(v.Type)) * int64(n)
		}
	}
	return cost
}

// topN keeps the Limit smallest rows in a max-heap over (key, arrival).
func (s *Sort) topN(ctx context.Context) error {
	limit := int(min(s.Limit, math.MaxInt32))
	var heap []int32 // slots, largest first
	var keys [][]byte
	var seq []int64
	var arrived int64
	inited := false
	less := func(a, b int32) bool { // slot a orders before slot b
		if c := bytes.Compare(keys[a], keys[b]); c != 0 {
			return c < 0
		}
		return seq[a] < seq[b]
	}
	down := func(i int) {
		for {
			l := 2*i + 1
			if l >= len(heap) {
				return
			}
			m := l
			if r := l + 1; r < len(heap) && less(heap[l], heap[r]) {
				m = r
			}
			if !less(heap[i], heap[m]) {
				return
			}
			heap[i], heap[m] = heap[m], heap[i]
			i = m
		}
	}
	up := func(i int) {
		for i > 0 {
			p := (i - 1) / 2
			if !less(heap[p], heap[i]) {
				return
			}
			heap[i], heap[p] = heap[p], heap[i]
			i = p
		}
	}
	// full: the heap outgrew the budget and went to a run; the rest of
	// the input is sorted (topNToSort)
	full := false
	err := exec.Drain(ctx, s.Input, func(b *vec.Batch) error {
		if err := memory.ErrCanceled(ctx); err != nil {
			return err
		}
		if full {
			return s.buffer(ctx, b, &s.data, &s.res, func() error { return s.spillRun(ctx) })
		}
		over := false
		grow := func(n int64) error {
			err := s.res.Grow(n)
			if err != nil && pgerr.Code(err) == memory.OutOfMemory {
				// the batch is finished in the heap, past the budget
				over, err = true, nil
			}
			return err
		}
		if !inited {
			s.enc.Init(s.Keys, b.Vecs)
			inited = true
		}
		s.enc.Encode(b.Vecs, b.N)
		for i := 0; i < b.N; i++ {
			k := s.enc.key(i)
			arrived++
			if len(heap) < limit {
				slot := int32(s.data.N)
				s.data.AppendBatch(b, i, i+1)
				keys = append(keys, append([]byte(nil), k...))
				seq = append(seq, arrived)
				heap = append(heap, slot)
				up(len(heap) - 1)
				if over {
					continue // not counted: the heap goes to disk after this batch
				}
				if err := grow(memory.BatchBytes(b, i, i+1) + int64(len(k)) + 40); err != nil {
					return err
				}
				continue
			}
			top := heap[0]
			if bytes.Compare(k, keys[top]) >= 0 {
				continue // not better than the worst kept row (ties keep the earlier)
			}
			old := len(keys[top])
			for c, v := range b.Vecs {
				s.data.Set(c, int(top), v, i)
			}
			keys[top] = append(keys[top][:0], k...)
			seq[top] = arrived
			if d := len(k) - old; d > 0 && !over {
				if err := grow(int64(d)); err != nil {
					return err
				}
			}
			down(0)
		}
		if over {
			full = true
			return s.topNToSort(ctx, heap, keys, seq)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if full {
		return s.startMerge(ctx)
	}
	s.perm = heap
	slices.SortFunc(s.perm, func(a, b int32) int {
		if c := bytes.Compare(keys[a], keys[b]); c != 0 {
			return c
		}
		return cmp.Compare(seq[a], seq[b])
	})
	return nil
}

// KeyEncoder builds normalised sort keys. For each key column it writes a
// NULL marker byte when the column has NULLs (NULLS LAST: 0 valid, 1 NULL;
// NULLS FIRST the reverse), then, for non-NULL values, bytes that compare
// like the values — inverted for DESC:
//
//	integer-stored   8 bytes big-endian with the sign bit flipped
//	float            8 bytes: IEEE bits, sign-flipped or inverted; -0 = 0, NaN above all
//	bool             1 byte
//	interval         16 bytes: the span in days, then the microseconds left
//	text, bytea      bytes with 0x00 escaped as 0x00 0xFF, ended by 0x00 0x00
//	dynamic numeric  sign class, decimal exponent, digits, 0x00 (sign-inverted)
type KeyEncoder struct {
	keys     []SortKey
	nullable []bool
	fixed    bool // every key has a fixed width <= 8 bytes in total: prefix decides
	Arena    []byte
	off      []int
	cur      []int
	scratch  []byte
}

func (e *KeyEncoder) Init(keys []SortKey, cols []*vec.Vector) {
	e.keys = keys
	e.nullable = make([]bool, len(keys))
	width := 0
	e.fixed = true
	for i, k := range keys {
		v := cols[k.Col]
		// a column that has no NULL mask in the first data seen may get
		// NULLs later (top-N): keep the marker for every column then
		e.nullable[i] = true
		if w := keyWidth(v.Type); w == 0 {
			e.fixed = false
		} else {
			width += w + 1
		}
	}
	if width > 8 {
		e.fixed = false
	}
}

// DropNullMarkers omits the marker of columns without NULLs (full sort,
// where all data is known before encoding).
func (e *KeyEncoder) DropNullMarkers(cols []*vec.Vector, n int) {
	width := 0
	for i, k := range e.keys {
		v := cols[k.Col]
		e.nullable[i] = false
		if v.Nulls != nil {
			for _, null := range v.Nulls[:n] {
				if null {
					e.nullable[i] = true
					break
				}
			}
		}
		m := 0
		if e.nullable[i] {
			m = 1
		}
		if w := keyWidth(v.Type); w == 0 {
			width += 100
		} else {
			width += w + m
		}
	}
	e.fixed = width <= 8
}

// keyWidth is the encoded width of a fixed-width key type (0: variable).
func keyWidth(t types.T) int {
	switch {
	case t.DynNumeric() || t.Storage() == types.StoreBytes:
		return 0
	case t.Storage() == types.StoreBool:
		return 1
	case t.Storage() == types.StoreInterval:
		return 16
	}
	return 8
}

func (e *KeyEncoder) key(i int) []byte { return e.Arena[e.off[i]:e.off[i+1]] }

// Encode writes the keys of rows [0, n) of cols, column by column.
func (e *KeyEncoder) Encode(cols []*vec.Vector, n int) {
	e.off = memory.ResizeInts(e.off, n+1)
	lens := memory.ResizeInts(e.cur, n)
	clear(lens)
	for ki, k := range e.keys {
		v := cols[k.Col]
		nullable := e.nullable[ki]
		switch {
		case v.Type.DynNumeric():
			for i := 0; i < n; i++ {
				if !v.IsNull(i) {
					e.scratch = appendDecimalKey(e.scratch[:0], v.S[i])
					lens[i] += len(e.scratch)
				}
			}
		case v.Type.Storage() == types.StoreBytes:
			for i, s := range v.S[:n] {
				lens[i] += len(s) + 2 + strings.Count(s, "\x00")
			}
		default:
			w := keyWidth(v.Type)
			for i := range lens {
				lens[i] += w
			}
		}
		if nullable {
			// a NULL is its marker alone: take back the value's width
			w := keyWidth(v.Type)
			for i := range lens {
				lens[i]++
				if v.IsNull(i) && !v.Type.DynNumeric() {
					if v.Type.Storage() == types.StoreBytes {
						lens[i] -= len(v.S[i]) + 2 + strings.Count(v.S[i], "\x00")
					} else {
						lens[i] -= w
					}
				}
			}
		}
	}
	total := 0
	for i, l := range lens {
		e.off[i] = total
		total += l
	}
	e.off[n] = total
	if cap(e.Arena) < total {
		e.Arena = make([]byte, total, total+total/4)
	}
	e.Arena = e.Arena[:total]
	cur := lens // reuse as write cursors
	copy(cur, e.off[:n])
	a := e.Arena
	for ki, k := range e.keys {
		v := cols[k.Col]
		var inv byte
		if k.Desc {
			inv = 0xff
		}
		nullable := e.nullable[ki]
		var nullMark, validMark byte = 1, 0
		if k.NullsFirst {
			nullMark, validMark = 0, 1
		}
		for i := 0; i < n; i++ {
			p := cur[i]
			if nullable {
				if v.IsNull(i) {
					a[p] = nullMark
					cur[i] = p + 1
					continue
				}
				a[p] = validMark
				p++
			} else if v.IsNull(i) {
				continue
			}
			switch {
			case v.Type.DynNumeric():
				e.scratch = appendDecimalKey(e.scratch[:0], v.S[i])
				for _, c := range e.scratch {
					a[p] = c ^ inv
					p++
				}
			case v.Type.Storage() == types.StoreBytes:
				s := v.S[i]
				for j := 0; j < len(s); j++ {
					c := s[j]
					a[p] = c ^ inv
					p++
					if c == 0 {
						a[p] = 0xff ^ inv
						p++
					}
				}
				a[p], a[p+1] = inv, inv
				p += 2
			case v.Type.Storage() == types.StoreBool:
				var c byte
				if v.B[i] {
					c = 1
				}
				a[p] = c ^ inv
				p++
			case v.Type.Storage() == types.StoreFloat:
				binary.BigEndian.PutUint64(a[p:], floatSortBits(v.F64[i])^uint64(int64(int8(inv))))
				p += 8
			case v.Type.Storage() == types.StoreInterval:
				// PostgreSQL orders intervals by their span (a month is 30 days)
				d, us := v.Iv[i].Span()
				binary.BigEndian.PutUint64(a[p:], (uint64(d)^(1<<63))^uint64(int64(int8(inv))))
				binary.BigEndian.PutUint64(a[p+8:], (uint64(us)^(1<<63))^uint64(int64(int8(inv))))
				p += 16
			default:
				binary.BigEndian.PutUint64(a[p:], (uint64(v.I64[i])^(1<<63))^uint64(int64(int8(inv))))
				p += 8
			}
			cur[i] = p
		}
	}
	e.cur = cur
}

// floatSortBits maps a float to bits whose unsigned order is PostgreSQL's
// float order.
func floatSortBits(x float64) uint64 {
	if x == 0 {
		x = 0
	}
	if x != x {
		return math.MaxUint64
	}
	b := math.Float64bits(x)
	if b>>63 != 0 {
		return ^b
	}
	return b | 1<<63
}

// appendDecimalKey encodes decimal text so byte order is numeric order:
// class (0 -Infinity, 1 negative, 2 zero, 3 positive, 4 Infinity, 5 NaN
// or unparsable), then for nonzero
// values the exponent (digits before the point of 0.d1d2… form) biased into
// 4 bytes and the significant digits ended by 0x00 — all inverted when
// negative.
func appendDecimalKey(dst []byte, s string) []byte {
	switch types.NumericSpecial(s) {
	case -1:
		return append(dst, 0)
	case 1:
		return append(dst, 4)
	case 2:
		return append(dst, 5)
	}
	t := strings.TrimSpace(s)
	neg := false
	if t != "" && (t[0] == '-' || t[0] == '+') {
		neg = t[0] == '-'
		t = t[1:]
	}
	intPart, frac := t, ""
	if i := strings.IndexByte(t, '.'); i >= 0 {
		intPart, frac = t[:i], t[i+1:]
	}
	if !decimalDigits(intPart) || !decimalDigits(frac) {
		// exponent notation or junk: exact but slow
		d, sc, err := types.ParseDecimal(s)
		if err != nil {
			return append(dst, 5)
		}
		d, sc = memory.TrimDecimal(d, sc)
		return appendDecimalKey(dst, types.FormatBig(d, sc))
	}
	intPart = strings.TrimLeft(intPart, "0")
	frac = strings.TrimRight(frac, "0")
	exp := len(intPart)
	if intPart == "" {
		lead := len(frac) - len(strings.TrimLeft(frac, "0"))
		frac = frac[lead:]
		exp = -lead
	}
	if intPart == "" && frac == "" {
		return append(dst, 2)
	}
	var inv byte
	class := byte(3)
	if neg {
		inv, class = 0xff, 1
	}
	dst = append(dst, class)
	e := uint32(int32(exp)) ^ (1 << 31)
	dst = append(dst, byte(e>>24)^inv, byte(e>>16)^inv, byte(e>>8)^inv, byte(e)^inv)
	// the digits, integer part then fraction, without joining them first:
	// a sort or window over a computed numeric encodes every row's value
	for _, part := range [2]string{intPart, frac} {
		for i := 0; i < len(part); i++ {
			dst = append(dst, part[i]^inv)
		}
	}
	return append(dst, inv)
}

// decimalDigits reports whether s is only the digits 0-9 (exponents and
// junk take appendDecimalKey's exact path).
func decimalDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// sortRowCost is what ordering costs a row beside its key bytes: the key's
// offset, two sortEnts (the radix sort's scratch) and the permutation.
const SortRowCost = 8 + 2*16 + 4

// sortEnt is one row being ordered: 8 bytes of its key from the current
// depth on, how many key bytes are left from there (9: more than the 8), and
// the row.
type sortEnt struct {
	prefix uint64
	idx    int32
	tail   uint8
}

func cmpSortEnt(x, y sortEnt) int {
	if x.prefix != y.prefix {
		if x.prefix < y.prefix {
			return -1
		}
		return 1
	}
	if x.tail != y.tail {
		return cmp.Compare(x.tail, y.tail)
	}
	return cmp.Compare(x.idx, y.idx)
}

// chunk returns the 8 key bytes of k at byte depth d (zero-padded) and how
// many bytes k has from there on, capped at 9.
func sortChunk(k []byte, d int) (uint64, uint8) {
	k = k[d:]
	if len(k) >= 8 {
		return binary.BigEndian.Uint64(k), uint8(min(len(k), 9))
	}
	var p uint64
	for j, c := range k {
		p |= uint64(c) << (56 - 8*j)
	}
	return p, uint8(len(k))
}

// Order returns the row permutation that sorts the encoded keys, stable.
//
// Rows are ordered 8 key bytes at a time, compared as integers: rows that
// tie on their first 8 bytes and go on are ordered by the next 8, and so on
// (a multikey sort). Keys with long common prefixes — a window's partition
// key before its order key, strings sharing their first letters — then
// never go through a byte-by-byte comparison. Equal (chunk, length) means a
// shorter key is a prefix of the longer one, which byte order puts first.
func (e *KeyEncoder) Order(n int) []int32 {
	ents := make([]sortEnt, n)
	a, off := e.Arena, e.off
	for i := range ents {
		p, t := sortChunk(a[off[i]:off[i+1]], 0)
		ents[i] = sortEnt{prefix: p, idx: int32(i), tail: t}
	}
	sortEnts(ents)
	type span struct{ lo, hi, depth int }
	var todo []span
	findTies := func(lo, hi, depth int) {
		for i := lo; i < hi; {
			j := i + 1
			if ents[i].tail == 9 {
				for j < hi && ents[j].prefix == ents[i].prefix && ents[j].tail == 9 {
					j++
				}
				if j-i > 1 {
					todo = append(todo, span{i, j, depth + 8})
				}
			}
			i = j
		}
	}
	findTies(0, n, 0)
	for len(todo) > 0 {
		sp := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		run := ents[sp.lo:sp.hi]
		for i := range run {
			x := run[i].idx
			run[i].prefix, run[i].tail = sortChunk(a[off[x]:off[x+1]], sp.depth)
		}
		sortEnts(run)
		findTies(sp.lo, sp.hi, sp.depth)
	}
	perm := make([]int32, n)
	for i, en := range ents {
		perm[i] = en.idx
	}
	return perm
}

// sortEnts sorts by (prefix, tail, idx): a radix sort on the prefix for
// many rows — it is stable and the rows come in idx order, so only runs of
// equal prefix need ordering by tail afterwards — pdqsort for few.
func sortEnts(ents []sortEnt) {
	if len(ents) < 4096 {
		slices.SortFunc(ents, cmpSortEnt)
		return
	}
	tmp := make([]sortEnt, len(ents))
	src, dst := ents, tmp
	var counts [256]int
	for shift := uint(0); shift < 64; shift += 8 {
		clear(counts[:])
		for i := range src {
			counts[byte(src[i].prefix>>shift)]++
		}
		if counts[byte(src[0].prefix>>shift)] == len(src) {
			continue // every row has this byte alike
		}
		sum := 0
		for b, c := range counts {
			counts[b] = sum
			sum += c
		}
		for i := range src {
			b := byte(src[i].prefix >> shift)
			dst[counts[b]] = src[i]
			counts[b]++
		}
		src, dst = dst, src
	}
	if &src[0] != &ents[0] {
		copy(ents, src)
	}
	for i := 0; i < len(ents); {
		j := i + 1
		mixed := false
		for j < len(ents) && ents[j].prefix == ents[i].prefix {
			mixed = mixed || ents[j].tail != ents[i].tail
			j++
		}
		if mixed {
			slices.SortStableFunc(ents[i:j], func(x, y sortEnt) int { return cmp.Compare(x.tail, y.tail) })
		}
		i = j
	}
}

// CompareKeys compares rows i and j of b under keys. NULLs sort as larger
// than every value unless NullsFirst, as in PostgreSQL.
func CompareKeys(b *vec.Batch, keys []SortKey, i, j int) int {
	for _, k := range keys {
		v := b.Vecs[k.Col]
		ni, nj := v.IsNull(i), v.IsNull(j)
		var c int
		switch {
		case ni && nj:
			c = 0
		case ni || nj:
			c = 1
			if nj {
				c = -1
			}
			if k.NullsFirst {
				c = -c
			}
			if c != 0 {
				return c
			}
		default:
			c = exec.CompareRows(v, i, v, j)
			if k.Desc {
				c = -c
			}
		}
		if c != 0 {
			return c
		}
	}
	return 0
}

// InOrder reports whether the n encoded keys are already in ascending
// order.
func (e *KeyEncoder) InOrder(n int) bool {
	for i := 1; i < n; i++ {
		if bytes.Compare(e.key(i-1), e.key(i)) > 0 {
			return false
		}
	}
	return true
}
