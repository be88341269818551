package hashtab

import (
	"math/bits"
	"strings"
	"unsafe"

	"github.com/lakepg/lakepg/exec/memory"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// KeyPacker is a front cache for GROUP BY keys of several columns that are
// short text values (TPC-H Q1's returnflag and linestatus, status codes),
// text of few distinct values (warehouse, store and category names) or
// small non-negative integers (TPC-DS's surrogate keys, months, years): a
// row whose key columns all fit packs into one int64 and finds its group
// with one multiply and one compare in an i64Table, instead of hashing the
// columns and comparing them value by value in the general table, one
// cache miss per key column. Each of the k columns gets 64/k bits: text its
// bytes and a length byte, or for a longer value the marker byte dictCode
// and the value's number in the column's dictionary; an integer its value
// + 1 (0 is NULL). The cache maps a packed key to the general table's group
// id, so a row that does not fit (a negative or large number, a long text
// once its column's dictionary is full) simply takes the general path and
// both agree: a value keeps its number for the packer's life.
//
// Five to eight columns (TPC-DS q47's category, brand, store, company, year
// and month) do not fit 64/k bits each. Such a packer is wide: every text
// value packs as its dictionary number + 1 and every integer as value + 1,
// each column in as many bits as the first batch needs with room to spare
// (widths, chosen by the first pack), and a later value past its column's
// width takes the general path like any row that does not fit.
type KeyPacker struct {
	bits   uint // bits per column
	wide   bool
	widths []uint // per column, a wide packer's, once chosen
	text   []bool
	dicts  []textDict // per column; used by text columns only
	cache  *I64Table
	packed []int64
	fits   []bool
	misses []int32
	fresh  []int32 // rows that start groups (newGroups)
	// through is the groups of the general table when all of them came
	// through this packer; -1 once some did not (GroupIDs)
	through int
	off     bool // stopped: most rows did not fit, or most missed the cache
	// rows and hits count the rows looked up and found, until the packer
	// decides whether it pays: with nearly as many groups as rows (TPC-DS
	// q97 groups 550 k sales by customer and item) almost every row misses,
	// and a miss costs the general table's work plus the cache's
	rows, hits int
}

// dictCode is the length byte that marks a dictionary number: inline text
// has at most 7 bytes, so its length byte is 1 to 8.
const dictCode = 0xff

// maxDict bounds a text column's dictionary: past it a new value does not
// pack. Names of warehouses, stores, categories and brands fit; a column
// with more distinct values than this mostly misses the cache anyway.
const maxDict = 4096

// textDict numbers a text key column's long values in order of first sight.
type textDict struct {
	codes  map[string]uint64
	values []string // by number: the dictionary's copies
	// recent caches numbered values by where the row's bytes are: a
	// joined dimension's name, or a Parquet dictionary's value, is the
	// same string in every row that has it, so most rows find their value
	// here with one compare of the bytes instead of hashing them for the
	// map. An entry keeps the dictionary's own copy, so the compare is by
	// content and stays right whatever becomes of the row's bytes.
	recent [64]struct {
		s    string
		code uint64
	}
	bytes int64
}

// code returns x's number, giving it the next one while there is room
// (limit numbers in all).
func (d *textDict) code(x string, limit uint64) (uint64, bool) {
	slot := &d.recent[uintptr(unsafe.Pointer(unsafe.StringData(x)))>>3%uintptr(len(d.recent))]
	if d.codes != nil && slot.s == x {
		return slot.code, true
	}
	c, ok := d.codes[x]
	if !ok {
		n := uint64(len(d.codes))
		if n >= limit {
			return 0, false
		}
		if d.codes == nil {
			d.codes = map[string]uint64{}
		}
		x = strings.Clone(x) // the batch's bytes are reused
		c = n
		d.codes[x] = c
		d.bytes += int64(len(x)) + 64
		d.values = append(d.values, x)
	}
	slot.s, slot.code = d.values[c], c
	return c, true
}

// judgeRows is the rows after which a packer that found fewer than half of
// them in its cache stops.
const judgeRows = 1 << 16

// judgeEarly is the rows after which a packer that found fewer than one in
// eight of them in its cache stops: until then every new group costs the
// cache's insert, and its doubling, besides the general table's. TPC-DS
// q97's and q78's aggregations, nearly a group a row, spent some 10% of
// their server CPU so. Judging them all at this point by half cost TPC-DS
// q47 and q57 a tenth (their rows meet their groups again later).
const judgeEarly = 1 << 14

// NewKeyPacker returns a packer for key columns of types ts, or nil when
// they cannot pack (a type other than plain text or an integer-stored one,
// or too many columns).
func NewKeyPacker(ts []types.T) *KeyPacker {
	if len(ts) == 0 || len(ts) > 8 {
		return nil
	}
	p := &KeyPacker{bits: uint(64 / len(ts)), wide: len(ts) > 4, cache: NewI64Table(64), dicts: make([]textDict, len(ts))}
	for _, t := range ts {
		switch {
		case t.DynNumeric():
			return nil
		case t.Storage() == types.StoreBytes && t.ID == types.Text:
			p.text = append(p.text, true)
		case t.Storage() == types.StoreInt:
			p.text = append(p.text, false)
		default:
			return nil
		}
	}
	return p
}

func (p *KeyPacker) Bytes() int64 {
	b := p.cache.Bytes()
	for _, d := range p.dicts {
		b += d.bytes
	}
	return b
}

// pack computes the packed key of every row of keys; fits[i] says whether
// row i packed. It returns how many rows did.
func (p *KeyPacker) pack(keys []*vec.Vector, n int) int {
	if cap(p.packed) < n {
		p.packed = make([]int64, n, max(n, vec.BatchSize))
		p.fits = make([]bool, n, max(n, vec.BatchSize))
	}
	p.packed, p.fits = p.packed[:n], p.fits[:n]
	for i := range p.fits {
		p.fits[i] = true
		p.packed[i] = 0
	}
	if p.wide {
		return p.packWide(keys, n)
	}
	width := int(p.bits/8) - 1 // text bytes beside the length byte
	// the largest integer code; below 2^62 so that code+1 cannot overflow
	limit := int64(1)<<min(p.bits, 62) - 1
	// dictionary numbers take the bits beside the length byte
	dictLimit := min(uint64(1)<<min(p.bits-8, 62), maxDict)
	for c, v := range keys {
		if p.text[c] {
			d := &p.dicts[c]
			for i, x := range v.S[:n] {
				var k uint64
				switch {
				case v.Nulls != nil && v.Nulls[i]:
					// length byte 0: NULL
				case len(x) == 1:
					// one-letter codes (TPC-H Q1's flag and status)
					// without the loop's exit mispredicted
					k = 2 | uint64(x[0])<<8
				case len(x) > width:
					if code, ok := d.code(x, dictLimit); ok {
						k = dictCode | code<<8
					} else {
						p.fits[i] = false
					}
				default:
					k = uint64(len(x) + 1)
					for j := 0; j < len(x); j++ {
						k |= uint64(x[j]) << (8 * (j + 1))
					}
				}
				p.packed[i] = int64(uint64(p.packed[i])<<p.bits | k)
			}
			continue
		}
		for i, x := range v.I64[:n] {
			var k uint64
			switch {
			case v.Nulls != nil && v.Nulls[i]:
				// 0: NULL
			case x < 0 || x >= limit:
				p.fits[i] = false
			default:
				k = uint64(x + 1)
			}
			p.packed[i] = int64(uint64(p.packed[i])<<p.bits | k)
		}
	}
	return p.fitted()
}

// fitted counts the rows the last pack packed.
func (p *KeyPacker) fitted() int {
	fit := 0
	for _, f := range p.fits {
		if f {
			fit++
		}
	}
	return fit
}

// packWide is pack for a wide packer: dictionary numbers and integers,
// each column in its own width.
func (p *KeyPacker) packWide(keys []*vec.Vector, n int) int {
	if p.widths == nil && !p.chooseWidths(keys, n) {
		return 0
	}
	for c, v := range keys {
		w := p.widths[c]
		limit := uint64(1)<<w - 1 // the largest value+1 or number+1
		if p.text[c] {
			d := &p.dicts[c]
			for i, x := range v.S[:n] {
				var k uint64
				if v.Nulls == nil || !v.Nulls[i] {
					if code, ok := d.code(x, min(limit, maxDict)); ok {
						k = code + 1
					} else {
						p.fits[i] = false
					}
				}
				p.packed[i] = int64(uint64(p.packed[i])<<w | k)
			}
			continue
		}
		for i, x := range v.I64[:n] {
			var k uint64
			switch {
			case v.Nulls != nil && v.Nulls[i]:
			case x < 0 || uint64(x) >= limit:
				p.fits[i] = false
			default:
				k = uint64(x + 1)
			}
			p.packed[i] = int64(uint64(p.packed[i])<<w | k)
		}
	}
	return p.fitted()
}

// chooseWidths gives each column of a wide packer the bits the first
// batch needs with room for four times as many texts or an integer four
// times as large, or less room when the columns would not fit 64 bits
// with it; false when they do not fit even so.
func (p *KeyPacker) chooseWidths(keys []*vec.Vector, n int) bool {
	need := make([]uint, len(keys))
	for c, v := range keys {
		var top uint64 // the largest value+1 or number+1 to hold
		if p.text[c] {
			d := &p.dicts[c]
			for i, x := range v.S[:n] {
				if v.Nulls == nil || !v.Nulls[i] {
					if _, ok := d.code(x, maxDict); !ok {
						return false
					}
				}
			}
			top = uint64(len(d.values))
		} else {
			for i, x := range v.I64[:n] {
				if v.Nulls == nil || !v.Nulls[i] {
					if x < 0 || x >= 1<<40 {
						return false
					}
					top = max(top, uint64(x)+1)
				}
			}
		}
		need[c] = uint(bits.Len64(top))
	}
	for _, room := range []uint{2, 1, 0} {
		total := uint(0)
		for _, w := range need {
			total += max(w+room, 1)
		}
		if total <= 64 {
			p.widths = make([]uint, len(need))
			for c, w := range need {
				p.widths[c] = max(w+room, 1)
			}
			return true
		}
	}
	return false
}

// GroupIDs assigns the groups of the batch's rows through the cache, the
// general table (t, k, with the rows' hashes computed only when some row
// missed the cache, unless hashed says hs holds them already) taking the
// misses. It reports false, doing nothing,
// when the packer is off.
func (p *KeyPacker) GroupIDs(t *HashTable, k *KeyCols, keys []*vec.Vector, n int, hs []uint64, hashed bool, gids []int32) (handled bool, added int64) {
	if p == nil || p.off {
		return false, 0
	}
	if fit := p.pack(keys, n); fit < n/2 {
		p.off = true
		return false, 0
	}
	p.misses = p.misses[:0]
	for i, f := range p.fits {
		if f {
			if g := p.cache.Lookup(p.packed[i]); g >= 0 {
				gids[i] = g
				continue
			}
		}
		p.misses = append(p.misses, int32(i))
	}
	if p.rows < judgeRows {
		p.rows += n
		p.hits += n - len(p.misses)
		if p.rows >= judgeRows && 2*p.hits < p.rows || p.rows >= judgeEarly && 8*p.hits < p.rows {
			// the general table holds every group the cache maps, so
			// the rows from now on find theirs there
			p.off = true
		}
	}
	// every group of t came through this packer (none from a merge or
	// another table), so a row that fits and is not in the cache starts a
	// group: only a row that does not fit looks in t, and it cannot meet a
	// group of rows that fit
	whole := p.through == t.N
	if len(p.misses) == 0 {
		return true, 0
	}
	for c, v := range keys {
		if hashed {
			break
		}
		memory.HashColumn(hs, v, n, c == 0)
	}
	if whole {
		added = p.newGroups(t, k, keys, hs, gids)
		p.through = t.N
		return true, added
	}
	p.through = -1
	if 2*len(p.misses) > n {
		// most rows missed (new groups, or a packer about to be judged
		// off): the general table's batched lookup takes the whole batch,
		// the rows the cache found included — it holds their groups under
		// the same ids. Row by row, a miss cost several times a batched
		// row (TPC-DS q87's EXCEPT of distinct names and dates)
		added = t.GroupIDs(k, keys, hs, gids)
		for _, i := range p.misses {
			if p.fits[i] {
				p.cache.Push(p.packed[i], gids[i])
			}
		}
		return true, added
	}
	for _, i := range p.misses {
		g, a := t.groupID(k, keys, int(i), hs[i])
		gids[i] = g
		added += a
		if p.fits[i] {
			p.cache.Push(p.packed[i], g)
		}
	}
	return true, added
}

// newGroups gives the rows that missed the cache their groups when t holds
// only groups that came through the packer: a row that fits starts a group
// unless a row before it in the batch did (placed in t without comparing
// keys, its key stored with the batch's others), a row that does not fit
// finds or starts its group in t. It returns the bytes of keys added.
func (p *KeyPacker) newGroups(t *HashTable, k *KeyCols, keys []*vec.Vector, hs []uint64, gids []int32) (added int64) {
	p.fresh = p.fresh[:0]
	for _, i := range p.misses {
		if !p.fits[i] {
			if len(p.fresh) > 0 {
				// t's keys are stored in id order
				t.fit(k)
				added += k.addRows(keys, p.fresh)
				p.fresh = p.fresh[:0]
			}
			g, a := t.groupID(k, keys, int(i), hs[i])
			gids[i], added = g, added+a
			continue
		}
		if g := p.cache.Lookup(p.packed[i]); g >= 0 {
			gids[i] = g
			continue
		}
		g := t.PlaceNew(hs[i])
		p.cache.Push(p.packed[i], g)
		gids[i] = g
		p.fresh = append(p.fresh, i)
	}
	t.fit(k)
	return added + k.addRows(keys, p.fresh)
}
