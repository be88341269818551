package exec

import (
	"math/bits"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// dec128 is a decimal whose digits fit a 128-bit magnitude: a sign, the
// magnitude hi·2⁶⁴+lo and a scale. Unconstrained numerics (an average, a
// constant times it) are text; their products, sums and comparisons go
// through dec128 instead of a big.Int per row when the digits fit
// (TPC-DS q65 compares 180 k revenues with 0.1 × an average). An
// operation that does not fit reports false and the caller takes the
// big.Int path.
type dec128 struct {
	neg    bool
	hi, lo uint64
	scale  int
}

// numeric128 reads row i of a numeric vector.
func numeric128(v *vec.Vector, i int) (dec128, bool) {
	if v.Type.Scale >= 0 {
		x := v.I64[i]
		u := uint64(x)
		if x < 0 {
			u = -u
		}
		return dec128{neg: x < 0, lo: u, scale: v.Type.Scale}, true
	}
	return parseDec128(v.S[i])
}

// parseDec128 parses numeric text as PostgreSQL prints it: a sign, digits
// and a point; the scale is the digits after the point, trailing zeros
// included (numeric's display scale). NaN, infinities and exponents are
// not for it.
func parseDec128(s string) (dec128, bool) {
	var d dec128
	i := 0
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		d.neg, i = s[i] == '-', i+1
	}
	digits, dot := 0, -1
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			hi, lo, ok := mul128(d.hi, d.lo, 0, 10)
			if !ok {
				return dec128{}, false
			}
			var carry uint64
			d.lo, carry = bits.Add64(lo, uint64(c-'0'), 0)
			if d.hi, carry = bits.Add64(hi, 0, carry); carry != 0 {
				return dec128{}, false
			}
			digits++
		case c == '.' && dot < 0:
			dot = digits
		default:
			return dec128{}, false
		}
	}
	if digits == 0 {
		return dec128{}, false
	}
	if dot >= 0 {
		d.scale = digits - dot
	}
	d.neg = d.neg && d.hi|d.lo != 0
	return d, true
}

// mul128 is the 128-bit product of two 128-bit magnitudes; ok is false
// when it does not fit.
func mul128(ah, al, bh, bl uint64) (hi, lo uint64, ok bool) {
	if ah != 0 && bh != 0 {
		return 0, 0, false
	}
	if bh != 0 {
		ah, al, bh, bl = bh, bl, ah, al
	}
	// (ah·2⁶⁴ + al)·bl: ah·bl must fit the high word beside al·bl's carry
	h1, l1 := bits.Mul64(ah, bl)
	if h1 != 0 {
		return 0, 0, false
	}
	hi, lo = bits.Mul64(al, bl)
	hi, c := bits.Add64(hi, l1, 0)
	return hi, lo, c == 0
}

// pow10x128 multiplies a magnitude by 10^k.
func pow10x128(hi, lo uint64, k int) (uint64, uint64, bool) {
	for k > 0 {
		step := min(k, 18)
		var ok bool
		if hi, lo, ok = mul128(hi, lo, 0, uint64(types.Pow10(step))); !ok {
			return 0, 0, false
		}
		k -= step
	}
	return hi, lo, true
}

// rescale brings d to scale s ≥ d.scale.
func (d dec128) rescale(s int) (dec128, bool) {
	hi, lo, ok := pow10x128(d.hi, d.lo, s-d.scale)
	return dec128{neg: d.neg, hi: hi, lo: lo, scale: s}, ok
}

// cmpMagnitude compares the magnitudes of two decimals at one scale.
func cmpMagnitude(a, b dec128) int {
	switch {
	case a.hi != b.hi:
		if a.hi < b.hi {
			return -1
		}
		return 1
	case a.lo != b.lo:
		if a.lo < b.lo {
			return -1
		}
		return 1
	}
	return 0
}

// cmpDec128 compares a and b as numbers.
func cmpDec128(a, b dec128) (int, bool) {
	s := max(a.scale, b.scale)
	a, okA := a.rescale(s)
	b, okB := b.rescale(s)
	if !okA || !okB {
		return 0, false
	}
	switch {
	case a.neg && !b.neg:
		return -1, true
	case !a.neg && b.neg:
		return 1, true
	case a.neg:
		return -cmpMagnitude(a, b), true
	}
	return cmpMagnitude(a, b), true
}

// mul is a·b at the sum of the scales, as numeric_mul keeps them.
func (d dec128) mul(e dec128) (dec128, bool) {
	hi, lo, ok := mul128(d.hi, d.lo, e.hi, e.lo)
	return dec128{neg: d.neg != e.neg && hi|lo != 0, hi: hi, lo: lo, scale: d.scale + e.scale}, ok
}

// add is d+e at the larger scale.
func (d dec128) add(e dec128) (dec128, bool) {
	s := max(d.scale, e.scale)
	d, okD := d.rescale(s)
	e, okE := e.rescale(s)
	if !okD || !okE {
		return dec128{}, false
	}
	if d.neg == e.neg {
		lo, c := bits.Add64(d.lo, e.lo, 0)
		hi, c := bits.Add64(d.hi, e.hi, c)
		return dec128{neg: d.neg, hi: hi, lo: lo, scale: s}, c == 0
	}
	if cmpMagnitude(d, e) < 0 {
		d, e = e, d
	}
	lo, b := bits.Sub64(d.lo, e.lo, 0)
	hi, _ := bits.Sub64(d.hi, e.hi, b)
	return dec128{neg: d.neg && hi|lo != 0, hi: hi, lo: lo, scale: s}, true
}

func (d dec128) String() string {
	return FormatScaled128(d.neg, d.hi, d.lo, d.scale)
}

// arith128 is row i of l op r for +, - and * when the operands and the
// result fit dec128.
func arith128(op ArithOp, l, r *vec.Vector, i int) (dec128, bool) {
	x, ok := numeric128(l, i)
	if !ok {
		return dec128{}, false
	}
	y, ok := numeric128(r, i)
	if !ok {
		return dec128{}, false
	}
	switch op {
	case '*':
		return x.mul(y)
	case '-':
		y.neg = !y.neg && y.hi|y.lo != 0
	}
	return x.add(y)
}
