// Package hll is a HyperLogLog sketch of the distinct values of a column:
// what the Parquet writer computes per data file and column, what the
// catalog keeps in lakepg_file_column_sketch, and what the planner merges
// into a table's distinct-value estimate. It knows no vectors and no SQL:
// callers hash values (Int, Bytes, Float) and add the hashes.
//
// The format is fixed, since sketches outlive the process that wrote them:
// precision 12 (4,096 registers, a standard error of about 1.6 %), 64-bit
// hashes (integers through a fixed 64-bit mixer of their two's-complement
// value; strings through 128-bit products of their bytes folded to 64
// bits, 16 bytes at a time; floats as the integer of their bits with -0
// and NaN made canonical). A register keeps 1 + the leading
// zeros of the hash bits below the index, so two sketches merge by taking
// each register's maximum, and the merge of the sketches of two sets is
// the sketch of their union.
package hll

import (
	"encoding/binary"
	"errors"
	"math"
	"math/bits"
	"unsafe"
)

// P is the precision: the sketch has 2^P registers.
const P = 12

// M is the number of registers.
const M = 1 << P

// q is the number of hash bits a register's value is taken from.
const q = 64 - P

// Sketch is a dense HyperLogLog sketch. The zero value is not usable; use
// New.
type Sketch struct {
	Regs []uint8 // M registers, each 0 … q+1

	// seen holds integers AddInts added lately, at their low bits
	// (entry i starts as i+1, which is not a value of that slot); retry
	// counts the calls left before AddInts tries it again.
	seen  *[seenSize]int64
	retry int
}

const seenSize = 1024

// New returns an empty sketch.
func New() *Sketch { return &Sketch{Regs: make([]uint8, M)} }

// Int is the hash of an integer value (and of a date, timestamp, time or
// decimal stored as a scaled integer): the same value hashes the same
// whatever the column's integer width, so keys of different widths that
// join compare sketches of one domain.
func Int(x int64) uint64 {
	// two 128-bit products, each folded to 64 bits: every input bit reaches
	// the high output bits the register index and value come from (one
	// product was not enough: consecutive integers came out correlated)
	hi, lo := bits.Mul64(uint64(x)^0x9e3779b97f4a7c15, 0xbf58476d1ce4e5b9)
	hi, lo = bits.Mul64(hi^lo, 0x8ebc6af09c88c6e3)
	return hi ^ lo
}

// Bytes is the hash of a text, bytea, uuid or wide-decimal value.
func Bytes(s string) uint64 {
	if len(s) > 16 {
		return long(s)
	}
	return short(s)
}

// short hashes a string of at most 16 bytes without a call: its bytes as
// two overlapping little-endian words (so every byte counts once or twice
// and the length tells the overlaps apart), mixed by a 128-bit product.
// Most text keys are this short, and XXH64 spent more on the call and its
// setup than on their bytes.
func short(s string) uint64 {
	n := len(s)
	var a, b uint64
	switch {
	case n >= 8:
		a = le64(s)
		b = le64(s[n-8:])
	case n >= 4:
		a = uint64(le32(s))
		b = uint64(le32(s[n-4:]))
	case n > 0:
		a = uint64(s[0])<<16 | uint64(s[n>>1])<<8 | uint64(s[n-1])
	}
	hi, lo := bits.Mul64(a^0xa0761d6478bd642f, b^0xe7037ed1a0b428db^uint64(n))
	hi, lo = bits.Mul64(hi^lo, 0x8ebc6af09c88c6e3)
	return hi ^ lo
}

// long hashes a string of more than 16 bytes: each 16 bytes mixed into
// the state by a 128-bit product, the last 16 (overlapping) and the
// length at the end. About twice as fast as XXH64 on comment-sized text,
// which was the largest part of sketching a table like TPC-H lineitem.
func long(s string) uint64 {
	n := len(s)
	h := uint64(n) * 0x9e3779b97f4a7c15
	t := s
	for len(t) > 16 {
		hi, lo := bits.Mul64(le64(t)^0xa0761d6478bd642f, le64(t[8:])^h^0xe7037ed1a0b428db)
		h = hi ^ lo
		t = t[16:]
	}
	hi, lo := bits.Mul64(le64(s[n-16:])^0x8ebc6af09c88c6e3^h, le64(s[n-8:])^0x589965cc75374cc3)
	hi, lo = bits.Mul64(hi^lo, 0x1d8e4e27c47d124f)
	return hi ^ lo
}

func le64(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

func le32(s string) uint32 {
	_ = s[3]
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}

// Float is the hash of a float value; -0 is 0 and every NaN is one value,
// as PostgreSQL compares them.
func Float(f float64) uint64 {
	switch {
	case f == 0:
		f = 0
	case f != f:
		f = math.NaN()
	}
	return Int(int64(math.Float64bits(f)))
}

// Add adds a hash.
func (s *Sketch) Add(h uint64) {
	i := h >> q
	r := uint8(bits.LeadingZeros64(h<<P|1<<(P-1))) + 1
	if r > s.Regs[i] {
		s.Regs[i] = r
	}
}

// AddInts adds the hashes of xs; skip, when not nil, marks values left out
// (NULLs). It is the writer's loop: one call per column chunk.
//
// A column of few values (quantities, flags, line numbers) or of runs
// (clustered keys) finds most values in seen and adds them for a
// comparison each, a quarter of hashing them; where values mostly miss
// (dates in random order, wide keys), the unpredictable branch costs
// twice the hash, so the cache is used only while it hits at least 3 in 4
// values of a call, and tried again every 16 calls.
func (s *Sketch) AddInts(xs []int64, skip []bool) {
	if skip != nil {
		s.addIntsSkip(xs, skip[:len(xs)])
		return
	}
	regs := s.Regs[:M]
	if s.retry > 0 {
		s.retry--
		for _, x := range xs {
			h := Int(x)
			r := uint8(bits.LeadingZeros64(h<<P|1<<(P-1))) + 1
			p := &regs[h>>q&(M-1)]
			*p = max(*p, r)
		}
		return
	}
	if s.seen == nil {
		s.seen = new([seenSize]int64)
		for i := range s.seen {
			s.seen[i] = int64(i + 1)
		}
	}
	seen := s.seen
	misses := 0
	for _, x := range xs {
		c := &seen[x&(seenSize-1)]
		if *c == x {
			continue
		}
		*c = x
		misses++
		h := Int(x)
		r := uint8(bits.LeadingZeros64(h<<P|1<<(P-1))) + 1
		p := &regs[h>>q&(M-1)]
		*p = max(*p, r)
	}
	if misses*4 > len(xs) {
		s.retry = 16
	}
}

func (s *Sketch) addIntsSkip(xs []int64, skip []bool) {
	regs := s.Regs[:M]
	for i, x := range xs {
		if skip[i] {
			continue
		}
		h := Int(x)
		r := uint8(bits.LeadingZeros64(h<<P|1<<(P-1))) + 1
		p := &regs[h>>q&(M-1)]
		*p = max(*p, r)
	}
}

// AddStrings adds the hashes of xs; skip as for AddInts.
//
// Strings decoded from a dictionary-encoded Parquet page (most text
// columns of few values) share the dictionary's bytes: a value seen
// earlier in the same call at the same address and length is the same
// value and adds nothing, for a comparison instead of a hash. Addresses
// are compared within one call only, where the vector's bytes cannot be
// reused for other values. (Comparing each string's bytes with the one
// before cost more than it saved.)
func (s *Sketch) AddStrings(xs []string, skip []bool) {
	regs := s.Regs[:M]
	if skip != nil {
		skip = skip[:len(xs)]
	}
	var seen [256]struct {
		p  *byte
		n1 int // length + 1: the zero entry matches no string
	}
	for i, x := range xs {
		if skip != nil && skip[i] {
			continue
		}
		p := unsafe.StringData(x)
		a := uintptr(unsafe.Pointer(p))
		e := &seen[(a^a>>8^uintptr(len(x)))&255]
		if e.p == p && e.n1 == len(x)+1 {
			continue
		}
		e.p, e.n1 = p, len(x)+1
		var h uint64
		if len(x) <= 16 {
			h = short(x)
		} else {
			h = long(x)
		}
		r := uint8(bits.LeadingZeros64(h<<P|1<<(P-1))) + 1
		p2 := &regs[h>>q&(M-1)]
		*p2 = max(*p2, r)
	}
}

// AddFloats adds the hashes of xs; skip as for AddInts.
func (s *Sketch) AddFloats(xs []float64, skip []bool) {
	if skip != nil {
		skip = skip[:len(xs)]
	}
	for i, x := range xs {
		if skip != nil && skip[i] {
			continue
		}
		s.Add(Float(x))
	}
}

// Merge makes s the sketch of the union of its set and o's.
func (s *Sketch) Merge(o *Sketch) {
	a, b := s.Regs[:M], o.Regs[:M]
	for i, r := range b {
		if r > a[i] {
			a[i] = r
		}
	}
}

// Empty reports whether nothing was added.
func (s *Sketch) Empty() bool {
	for _, r := range s.Regs {
		if r != 0 {
			return false
		}
	}
	return true
}

// Estimate is the estimated number of distinct values added, by Ertl's
// improved raw estimator ("New cardinality estimation algorithms for
// HyperLogLog sketches", 2017, eq. 10). It needs no empirical bias tables
// and holds its error from 0 to billions, so there is no switch to linear
// counting at small counts to tune.
func (s *Sketch) Estimate() float64 {
	var c [q + 2]int
	for _, r := range s.Regs {
		c[r]++
	}
	const m = float64(M)
	z := m * tau(1-float64(c[q+1])/m)
	for k := q; k >= 1; k-- {
		z = 0.5 * (z + float64(c[k]))
	}
	z += m * sigma(float64(c[0])/m)
	const alphaInf = 0.5 / math.Ln2
	return alphaInf * m * m / z
}

// sigma is σ(x) = x + Σ_{k≥1} x^(2^k) 2^(k-1), for the registers still 0.
func sigma(x float64) float64 {
	if x == 1 {
		return math.Inf(1)
	}
	y, z := 1.0, x
	for {
		x *= x
		prev := z
		z += x * y
		y += y
		if z == prev {
			return z
		}
	}
}

// tau is τ(x) = (1 − x − Σ_{k≥1} (1 − x^(2^−k))² 2^−k) / 3, for the
// registers at their maximum.
func tau(x float64) float64 {
	if x == 0 || x == 1 {
		return 0
	}
	y, z := 1.0, 1-x
	for {
		x = math.Sqrt(x)
		prev := z
		y *= 0.5
		z -= (1 - x) * (1 - x) * y
		if z == prev {
			return z / 3
		}
	}
}

// The serialized form: a version byte (1), the precision, then either the
// registers packed six bits each (kind 0, 3,072 bytes) or, when shorter,
// the count of non-zero registers and each as the uvarint delta of
// index<<6|value from the one before (kind 1: a file of a few hundred
// distinct values costs a few hundred bytes).
const (
	version     = 1
	kindDense   = 0
	kindSparse  = 1
	denseBytes  = M * 6 / 8
	headerBytes = 3
)

// ErrFormat is returned for bytes that are not a sketch of this format.
var ErrFormat = errors.New("hll: not a sketch of this format")

// Marshal serializes s compactly.
func (s *Sketch) Marshal() []byte {
	n := 0
	for _, r := range s.Regs {
		if r != 0 {
			n++
		}
	}
	// a sparse entry takes 1–3 bytes; decide on the worst case
	if n*3+binary.MaxVarintLen32 < denseBytes {
		out := make([]byte, headerBytes, headerBytes+binary.MaxVarintLen32+n*3)
		out[0], out[1], out[2] = version, P, kindSparse
		out = binary.AppendUvarint(out, uint64(n))
		prev := uint64(0)
		for i, r := range s.Regs {
			if r != 0 {
				v := uint64(i)<<6 | uint64(r)
				out = binary.AppendUvarint(out, v-prev)
				prev = v
			}
		}
		return out
	}
	out := make([]byte, headerBytes+denseBytes)
	out[0], out[1], out[2] = version, P, kindDense
	d := out[headerBytes:]
	for i := 0; i < M; i += 4 {
		a, b, c, e := s.Regs[i], s.Regs[i+1], s.Regs[i+2], s.Regs[i+3]
		w := uint32(a)<<18 | uint32(b)<<12 | uint32(c)<<6 | uint32(e)
		j := i / 4 * 3
		d[j], d[j+1], d[j+2] = byte(w>>16), byte(w>>8), byte(w)
	}
	return out
}

// Unmarshal reads a serialized sketch.
func Unmarshal(b []byte) (*Sketch, error) {
	if len(b) < headerBytes || b[0] != version || b[1] != P {
		return nil, ErrFormat
	}
	s := New()
	d := b[headerBytes:]
	switch b[2] {
	case kindDense:
		if len(d) != denseBytes {
			return nil, ErrFormat
		}
		for i := 0; i < M; i += 4 {
			j := i / 4 * 3
			w := uint32(d[j])<<16 | uint32(d[j+1])<<8 | uint32(d[j+2])
			s.Regs[i], s.Regs[i+1], s.Regs[i+2], s.Regs[i+3] = uint8(w>>18&63), uint8(w>>12&63), uint8(w>>6&63), uint8(w&63)
		}
	case kindSparse:
		n, k := binary.Uvarint(d)
		if k <= 0 || n > M {
			return nil, ErrFormat
		}
		d = d[k:]
		v := uint64(0)
		for ; n > 0; n-- {
			delta, k := binary.Uvarint(d)
			if k <= 0 {
				return nil, ErrFormat
			}
			d, v = d[k:], v+delta
			i := v >> 6
			if i >= M {
				return nil, ErrFormat
			}
			s.Regs[i] = uint8(v & 63)
		}
		if len(d) != 0 {
			return nil, ErrFormat
		}
	default:
		return nil, ErrFormat
	}
	for _, r := range s.Regs {
		if r > q+1 {
			return nil, ErrFormat
		}
	}
	return s, nil
}
