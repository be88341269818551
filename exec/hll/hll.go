// Package hll is a HyperLogLog sketch of the distinct values of a column:
// what the Parquet writer computes per data file and column, what the
// catalog keeps in lakepg_file_column_sketch, and what the planner merges
// into a table's distinct-value estimate. It knows no vectors and no SQL:
// callers hash values (Int, Bytes, Float) and add the hashes.
//
// The format is fixed, since sketches outlive the process that wrote them:
// precision 12 (4,096 registers, a standard error of about 1.6 %), 64-bit
// hashes (integers through a fixed 64-bit mixer of their two's-complement
// value, bytes through XXH64 with seed 0, floats as the integer of their
// bits with -0 and NaN made canonical). A register keeps 1 + the leading
// zeros of the hash bits below the index, so two sketches merge by taking
// each register's maximum, and the merge of the sketches of two sets is
// the sketch of their union.
package hll

import (
	"encoding/binary"
	"errors"
	"math"
	"math/bits"

	"github.com/cespare/xxhash/v2"
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
}

// New returns an empty sketch.
func New() *Sketch { return &Sketch{Regs: make([]uint8, M)} }

// Int is the hash of an integer value (and of a date, timestamp, time or
// decimal stored as a scaled integer): the same value hashes the same
// whatever the column's integer width, so keys of different widths that
// join compare sketches of one domain.
func Int(x int64) uint64 {
	// the finalizer of splitmix64: every input bit reaches every output bit
	z := uint64(x) + 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// Bytes is the hash of a text, bytea, uuid or wide-decimal value.
func Bytes(s string) uint64 { return xxhash.Sum64String(s) }

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
func (s *Sketch) AddInts(xs []int64, skip []bool) {
	regs := s.Regs[:M]
	if skip == nil {
		for _, x := range xs {
			h := Int(x)
			r := uint8(bits.LeadingZeros64(h<<P|1<<(P-1))) + 1
			if p := &regs[h>>q&(M-1)]; r > *p {
				*p = r
			}
		}
		return
	}
	skip = skip[:len(xs)]
	for i, x := range xs {
		if skip[i] {
			continue
		}
		h := Int(x)
		r := uint8(bits.LeadingZeros64(h<<P|1<<(P-1))) + 1
		if p := &regs[h>>q&(M-1)]; r > *p {
			*p = r
		}
	}
}

// AddStrings adds the hashes of xs; skip as for AddInts.
func (s *Sketch) AddStrings(xs []string, skip []bool) {
	regs := s.Regs[:M]
	if skip != nil {
		skip = skip[:len(xs)]
	}
	for i, x := range xs {
		if skip != nil && skip[i] {
			continue
		}
		h := xxhash.Sum64String(x)
		r := uint8(bits.LeadingZeros64(h<<P|1<<(P-1))) + 1
		if p := &regs[h>>q&(M-1)]; r > *p {
			*p = r
		}
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
