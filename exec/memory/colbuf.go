package memory

import (
	"context"
	"math"
	"math/big"
	"math/bits"
	"strings"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// ColBuf is a batch an operator owns and refills: its output batch, or a
// buffer it accumulates rows in (sort, hash build, window partitions).
//
// vec.Vector.Reset drops the NULL mask so that "no NULLs" stays nil, which
// would make every batch with a NULL allocate a fresh mask. colBuf keeps the
// dropped mask aside and hands it back the next time a NULL appears, so a
// steady-state operator allocates nothing per batch (PERFORMANCE.md rule 2).
type ColBuf struct {
	vec.Batch
	Spare [][]bool
}

func NewColBuf(ts []types.T, capacity int) *ColBuf {
	c := &ColBuf{Batch: vec.Batch{Vecs: make([]*vec.Vector, len(ts))}, Spare: make([][]bool, len(ts))}
	for i, t := range ts {
		c.Vecs[i] = vec.New(t, capacity)
	}
	return c
}

// Clear empties every column, keeping buffers and NULL masks for reuse.
func (c *ColBuf) Clear() {
	for i, v := range c.Vecs {
		if v.Nulls != nil {
			c.Spare[i] = v.Nulls[:0]
			v.Nulls = nil
		}
		v.I64, v.F64, v.B, v.S, v.Iv = v.I64[:0], v.F64[:0], v.B[:0], v.S[:0], v.Iv[:0]
	}
	c.N = 0
}

// Nulls makes column i carry a NULL mask as long as its values, reusing the
// spare mask when there is one.
func (c *ColBuf) Nulls(i int) {
	v := c.Vecs[i]
	if v.Nulls != nil {
		return
	}
	n := v.Len()
	m := c.Spare[i][:0]
	c.Spare[i] = nil
	if m == nil || cap(m) < n {
		m = make([]bool, n, max(2*n, vec.BatchSize))
	} else {
		m = m[:n]
		clear(m)
	}
	v.Nulls = m
}

// Truncate keeps rows [0, n).
func (c *ColBuf) Truncate(n int) {
	for _, v := range c.Vecs {
		switch v.Type.Storage() {
		case types.StoreInt:
			v.I64 = v.I64[:n]
		case types.StoreFloat:
			v.F64 = v.F64[:n]
		case types.StoreBool:
			v.B = v.B[:n]
		case types.StoreInterval:
			v.Iv = v.Iv[:n]
		default:
			clear(v.S[n:]) // the text of the rows let go
			v.S = v.S[:n]
		}
		if v.Nulls != nil {
			v.Nulls = v.Nulls[:n]
		}
	}
	c.N = n
}

// Keep keeps only the rows at keep, in ascending order, moving them to the
// front of every column.
func (c *ColBuf) Keep(keep []int32) {
	for _, v := range c.Vecs {
		n := len(v.S)
		v.Keep(keep)
		clear(v.S[len(v.S):n]) // the text of the rows let go
	}
	c.N = len(keep)
}

// AppendRange appends rows [lo, hi) of src to column i.
func (c *ColBuf) AppendRange(i int, src *vec.Vector, lo, hi int) {
	v := c.Vecs[i]
	if src.Nulls != nil {
		c.Nulls(i)
	}
	switch v.Type.Storage() {
	case types.StoreInt:
		v.I64 = AppendDoubling(v.I64, src.I64[lo:hi])
	case types.StoreFloat:
		v.F64 = AppendDoubling(v.F64, src.F64[lo:hi])
	case types.StoreBool:
		v.B = AppendDoubling(v.B, src.B[lo:hi])
	case types.StoreInterval:
		v.Iv = AppendDoubling(v.Iv, src.Iv[lo:hi])
	default:
		v.S = AppendDoubling(v.S, src.S[lo:hi])
	}
	if v.Nulls != nil {
		if src.Nulls != nil {
			v.Nulls = append(v.Nulls, src.Nulls[lo:hi]...)
		} else {
			v.Nulls = appendFalse(v.Nulls, hi-lo)
		}
	}
}

// AppendDoubling appends src to dst, doubling dst's capacity when it is
// full: a buffer that grows batch by batch to millions of rows (a join's
// build side) is copied about once in all, where append's 1.25× steps for
// large slices copy it four times over.
func AppendDoubling[T any](dst, src []T) []T {
	return append(Grow(dst, len(src)), src...)
}

// AppendBatch appends rows [lo, hi) of every column of b.
func (c *ColBuf) AppendBatch(b *vec.Batch, lo, hi int) {
	for i, v := range b.Vecs {
		c.AppendRange(i, v, lo, hi)
	}
	c.N += hi - lo
}

func appendFalse(m []bool, n int) []bool {
	for ; n > 0; n-- {
		m = append(m, false)
	}
	return m
}

func GatherT[T any](dst, src []T, idx []int32) []T {
	for _, i := range idx {
		dst = append(dst, src[i])
	}
	return dst
}

// Gather appends the rows of src at idx to column i.
func (c *ColBuf) Gather(i int, src *vec.Vector, idx []int32) {
	v := c.Vecs[i]
	if src.Nulls != nil {
		c.Nulls(i)
	}
	switch v.Type.Storage() {
	case types.StoreInt:
		v.I64 = GatherT(v.I64, src.I64, idx)
	case types.StoreFloat:
		v.F64 = GatherT(v.F64, src.F64, idx)
	case types.StoreBool:
		v.B = GatherT(v.B, src.B, idx)
	case types.StoreInterval:
		v.Iv = GatherT(v.Iv, src.Iv, idx)
	default:
		v.S = GatherT(v.S, src.S, idx)
	}
	if v.Nulls == nil {
		return
	}
	if src.Nulls != nil {
		v.Nulls = GatherT(v.Nulls, src.Nulls, idx)
	} else {
		v.Nulls = appendFalse(v.Nulls, len(idx))
	}
}

// Seg is rows [Lo, Hi) of a batch: one piece of a merge's output.
type Seg struct {
	B      *vec.Batch
	Lo, Hi int32
}

// AppendSegs appends the rows of segs, in order, to every column. A merge
// of interleaved runs takes a row or two from each input in turn: copying
// a column at a time over typed slices costs a copy per piece, where
// AppendRange per piece and column costs a call and a dispatch each.
func (c *ColBuf) AppendSegs(segs []Seg) {
	n := 0
	for _, sg := range segs {
		n += int(sg.Hi - sg.Lo)
	}
	if n == 0 {
		return
	}
	for i, v := range c.Vecs {
		nulls := v.Nulls != nil
		for _, sg := range segs {
			if sg.B.Vecs[i].Nulls != nil {
				nulls = true
				break
			}
		}
		if nulls {
			c.Nulls(i)
			for _, sg := range segs {
				if src := sg.B.Vecs[i]; src.Nulls != nil {
					v.Nulls = append(v.Nulls, src.Nulls[sg.Lo:sg.Hi]...)
				} else {
					v.Nulls = appendFalse(v.Nulls, int(sg.Hi-sg.Lo))
				}
			}
		}
		switch v.Type.Storage() {
		case types.StoreInt:
			d := Grow(v.I64, n)
			for _, sg := range segs {
				if src := sg.B.Vecs[i].I64; sg.Hi-sg.Lo == 1 {
					d = append(d, src[sg.Lo])
				} else {
					d = append(d, src[sg.Lo:sg.Hi]...)
				}
			}
			v.I64 = d
		case types.StoreFloat:
			d := Grow(v.F64, n)
			for _, sg := range segs {
				d = append(d, sg.B.Vecs[i].F64[sg.Lo:sg.Hi]...)
			}
			v.F64 = d
		case types.StoreBool:
			d := Grow(v.B, n)
			for _, sg := range segs {
				d = append(d, sg.B.Vecs[i].B[sg.Lo:sg.Hi]...)
			}
			v.B = d
		case types.StoreInterval:
			d := Grow(v.Iv, n)
			for _, sg := range segs {
				d = append(d, sg.B.Vecs[i].Iv[sg.Lo:sg.Hi]...)
			}
			v.Iv = d
		default:
			d := Grow(v.S, n)
			for _, sg := range segs {
				if src := sg.B.Vecs[i].S; sg.Hi-sg.Lo == 1 {
					d = append(d, src[sg.Lo])
				} else {
					d = append(d, src[sg.Lo:sg.Hi]...)
				}
			}
			v.S = d
		}
	}
	c.N += n
}

// Grow makes room for n more elements in s, doubling its capacity if it
// has to grow. (slices.Grow, tried instead, made the 6 M-row sort under
// 512 MiB take 9.6 s instead of 4.9 s and peak 763 MiB instead of 572.)
func Grow[T any](s []T, n int) []T {
	if cap(s)-len(s) >= n {
		return s
	}
	g := make([]T, len(s), max(2*cap(s), len(s)+n))
	copy(g, s)
	return g
}

// AppendNulls appends n NULLs to column i.
func (c *ColBuf) AppendNulls(i, n int) {
	c.Nulls(i)
	v := c.Vecs[i]
	for k := 0; k < n; k++ {
		switch v.Type.Storage() {
		case types.StoreInt:
			v.I64 = append(v.I64, 0)
		case types.StoreFloat:
			v.F64 = append(v.F64, 0)
		case types.StoreBool:
			v.B = append(v.B, false)
		case types.StoreInterval:
			v.Iv = append(v.Iv, types.IntervalValue{})
		default:
			v.S = append(v.S, "")
		}
		v.Nulls = append(v.Nulls, true)
	}
}

// setRow overwrites row g of dst (which has a NULL mask) with row i of src.
func setRow(dst *vec.Vector, g int, src *vec.Vector, i int) {
	if src.IsNull(i) {
		dst.Nulls[g] = true
		switch dst.Type.Storage() {
		case types.StoreInt:
			dst.I64[g] = 0
		case types.StoreFloat:
			dst.F64[g] = 0
		case types.StoreBool:
			dst.B[g] = false
		case types.StoreInterval:
			dst.Iv[g] = types.IntervalValue{}
		default:
			dst.S[g] = ""
		}
		return
	}
	switch dst.Type.Storage() {
	case types.StoreInt:
		dst.I64[g] = src.I64[i]
	case types.StoreFloat:
		dst.F64[g] = src.F64[i]
	case types.StoreBool:
		dst.B[g] = src.B[i]
	case types.StoreInterval:
		dst.Iv[g] = src.Iv[i]
	default:
		dst.S[g] = src.S[i]
	}
	if dst.Nulls != nil {
		dst.Nulls[g] = false
	}
}

// VecBytes estimates the memory rows [lo, hi) of v hold, for accounting.
func VecBytes(v *vec.Vector, lo, hi int) int64 {
	n := int64(hi - lo)
	var b int64
	switch v.Type.Storage() {
	case types.StoreInt, types.StoreFloat:
		b = 8 * n
	case types.StoreBool:
		b = n
	case types.StoreInterval:
		b = 16 * n
	default:
		b = 16 * n
		for _, s := range v.S[lo:hi] {
			b += int64(len(s))
		}
	}
	if v.Nulls != nil {
		b += n
	}
	return b
}

func BatchBytes(b *vec.Batch, lo, hi int) int64 {
	var n int64
	for _, v := range b.Vecs {
		n += VecBytes(v, lo, hi)
	}
	return n
}

// RowsEqual reports whether row i of a equals row j of b as SQL grouping and
// joining see it (both non-NULL, same storage): NaN equals NaN, -0 equals 0,
// and numerics compare by value whatever their scale.
func RowsEqual(a *vec.Vector, i int, b *vec.Vector, j int) bool {
	switch a.Type.Storage() {
	case types.StoreInt:
		return a.I64[i] == b.I64[j]
	case types.StoreFloat:
		x, y := a.F64[i], b.F64[j]
		return x == y || (x != x && y != y)
	case types.StoreBool:
		return a.B[i] == b.B[j]
	case types.StoreInterval:
		return types.CompareInterval(a.Iv[i], b.Iv[j]) == 0
	}
	x, y := a.S[i], b.S[j]
	if x == y {
		return true
	}
	if a.Type.DynNumeric() {
		return CanonDecimal(x) == CanonDecimal(y)
	}
	return false
}

// NullableEqual is rowsEqual where two NULLs are equal (GROUP BY, DISTINCT).
func NullableEqual(a *vec.Vector, i int, b *vec.Vector, j int) bool {
	an, bn := a.IsNull(i), b.IsNull(j)
	if an || bn {
		return an && bn
	}
	return RowsEqual(a, i, b, j)
}

// CanonDecimal gives equal text to equal decimal values of any scale, for
// hashing and comparing dynamic numerics ("1.50" and "1.5" are one group).
func CanonDecimal(s string) string {
	// one pass finds both what rules the fast path out and the point
	// (strings.IndexAny was most of a window's peer test over a sum in
	// TPC-DS q67), and a negative value without leading zeros is a prefix
	// of s, not a new string
	plain, dot := len(s) == 0 || s[0] != '+', false
	for i := 0; i < len(s) && plain; i++ {
		switch s[i] {
		case 'e', 'E', ' ':
			plain = false
		case '.':
			dot = true
		}
	}
	if plain {
		// fast path: plain text from our own formatting
		t := s
		if dot {
			t = strings.TrimRight(t, "0")
			t = strings.TrimSuffix(t, ".")
		}
		neg := strings.HasPrefix(t, "-")
		if neg {
			t = t[1:]
		}
		zeros := false
		for len(t) > 1 && t[0] == '0' && t[1] != '.' {
			t, zeros = t[1:], true
		}
		if t == "0" || t == "" {
			return "0"
		}
		switch {
		case neg && !zeros:
			return s[:1+len(t)]
		case neg:
			return "-" + t
		}
		return t
	}
	d, sc, err := types.ParseDecimal(s)
	if err != nil {
		return s
	}
	d, sc = TrimDecimal(d, sc)
	return types.FormatBig(d, sc)
}

// Hashing. Keys are hashed a column at a time into a per-row uint64, so the
// type switch runs once per column per batch, never per row.

const HashMul = 0x9E3779B97F4A7C15

// fmix64 is a 64-bit finaliser: every input bit affects every output bit,
// so the table can index with the low bits.
func fmix64(h uint64) uint64 {
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}

const nullHash = 0x5bd1e9955bd1e995

// HashColumn mixes rows [0, n) of v into hs. first starts the hashes.
func HashColumn(hs []uint64, v *vec.Vector, n int, first bool) {
	hs = hs[:n]
	if first {
		for i := range hs {
			hs[i] = HashMul
		}
	}
	// a NULL's hash must not depend on what its slot holds (a comparison
	// with a NULL leaves either value under it): NULL rows hash from the
	// columns before this one only, which the value loops overwrite
	var nullRows []int32
	var before []uint64
	if v.Nulls != nil {
		for i, isNull := range v.Nulls[:n] {
			if isNull {
				nullRows, before = append(nullRows, int32(i)), append(before, hs[i])
			}
		}
	}
	switch v.Type.Storage() {
	case types.StoreInt:
		xs := v.I64[:n]
		for i, x := range xs {
			hs[i] = fmix64(hs[i]*31 ^ uint64(x))
		}
	case types.StoreFloat:
		xs := v.F64[:n]
		for i, x := range xs {
			hs[i] = fmix64(hs[i]*31 ^ FloatKeyBits(x))
		}
	case types.StoreBool:
		xs := v.B[:n]
		for i, x := range xs {
			k := uint64(1)
			if x {
				k = 2
			}
			hs[i] = fmix64(hs[i]*31 ^ k)
		}
	case types.StoreInterval:
		// equal intervals (1 mon = 30 days) have equal spans
		for i, x := range v.Iv[:n] {
			d, us := x.Span()
			hs[i] = fmix64(fmix64(hs[i]*31^uint64(d))*31 ^ uint64(us))
		}
	default:
		xs := v.S[:n]
		dyn := v.Type.DynNumeric()
		for i, x := range xs {
			if dyn {
				x = CanonDecimal(x)
			}
			hs[i] = fmix64(hs[i]*31 ^ strHash(x))
		}
	}
	for k, i := range nullRows {
		hs[i] = fmix64(before[k] ^ nullHash)
	}
}

// FloatKeyBits maps equal floats (as PostgreSQL compares them) to equal bits.
func FloatKeyBits(x float64) uint64 {
	if x == 0 {
		return 0
	}
	if x != x {
		return 0x7ff8000000000001
	}
	return math.Float64bits(x)
}

// strHash hashes a string a 16-byte step at a time, each step one 128-bit
// multiply of its two words (folded), and the last bytes as one overlapping
// load rather than a loop over them: deterministic across workers and runs,
// and no longer a chain of a multiply per 8 bytes and a mispredicted loop
// per tail. TPC-H Q10 groups by four text columns up to 117 bytes, and
// hashing them was a tenth of its CPU.
func strHash(s string) uint64 {
	const (
		k1 = 0xa0761d6478bd642f
		k2 = 0xe7037ed1a0b428db
		p  = 1099511628211
	)
	n := len(s)
	h := (uint64(14695981039346656037) ^ uint64(n)) * k1 // the length spread, not beside the bytes
	switch {
	case n > 16:
		t := s
		for len(t) > 16 {
			hi, lo := bits.Mul64(le64(t)^h^k1, le64(t[8:])^k2)
			h = hi ^ lo
			t = t[16:]
		}
		hi, lo := bits.Mul64(le64(s[n-16:])^h^k1, le64(s[n-8:])^k2)
		h = hi ^ lo
	case n >= 8:
		hi, lo := bits.Mul64(le64(s)^h^k1, le64(s[n-8:])^k2)
		h = hi ^ lo
	case n >= 4:
		h = (h ^ (uint64(le32(s)) | uint64(le32(s[n-4:]))<<32)) * p
	case n > 0:
		h = (h ^ (uint64(s[0]) | uint64(s[n/2])<<8 | uint64(s[n-1])<<16)) * p
	}
	return fmix64(h)
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

// ErrCanceled is what every operator returns once the query's context ends.
func ErrCanceled(ctx context.Context) error {
	if ctx.Err() != nil {
		return pgerr.New(pgerr.QueryCanceled, "canceling statement due to user request")
	}
	return nil
}

// Set overwrites row g of column c with row i of src.
func (c *ColBuf) Set(col, g int, src *vec.Vector, i int) {
	if src.IsNull(i) {
		c.Nulls(col)
	}
	setRow(c.Vecs[col], g, src, i)
}

func TrimDecimal(d *big.Int, s int) (*big.Int, int) {
	ten := big.NewInt(10)
	m := new(big.Int)
	for s > 0 {
		q, r := new(big.Int).QuoRem(d, ten, m)
		if r.Sign() != 0 {
			break
		}
		d = q
		s--
	}
	return d, s
}

// AppendCost is the memory appending rows [0, n) of b to c takes: the text
// the rows hold, plus the capacity each column slice adds when append has
// to grow it (appendDoubling doubles it). Charging capacity rather than
// length is what keeps a sort's real footprint within its reservation: the
// step from a full 256 MiB slice to a 512 MiB one is reserved before it is
// taken, so a sort that cannot afford it spills first.
func AppendCost(c *ColBuf, b *vec.Batch, n int) int64 {
	var cost int64
	for i, v := range c.Vecs {
		src := b.Vecs[i]
		var l, cp, size int
		switch v.Type.Storage() {
		case types.StoreInt:
			l, cp, size = len(v.I64), cap(v.I64), 8
		case types.StoreFloat:
			l, cp, size = len(v.F64), cap(v.F64), 8
		case types.StoreBool:
			l, cp, size = len(v.B), cap(v.B), 1
		case types.StoreInterval:
			l, cp, size = len(v.Iv), cap(v.Iv), 16
		default:
			l, cp, size = len(v.S), cap(v.S), 16
			for _, s := range src.S[:n] {
				cost += int64(len(s))
			}
		}
		if cp-l < n {
			cost += int64(max(2*cp, l+n)-cp) * int64(size)
		}
		if src.Nulls != nil || v.Nulls != nil {
			cost += int64(n) // the NULL mask grows by append's own steps: about a byte a row
		}
	}
	return cost
}

// VecCapBytes is the memory v's slices hold, by capacity, and its text.
func VecCapBytes(v *vec.Vector) int64 {
	n := int64(cap(v.I64))*8 + int64(cap(v.F64))*8 + int64(cap(v.B)) + int64(cap(v.Iv))*16 + int64(cap(v.S))*16 + int64(cap(v.Nulls))
	for _, s := range v.S {
		n += int64(len(s))
	}
	return n
}
