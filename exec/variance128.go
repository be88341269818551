package exec

import (
	"math"
	"math/bits"
	"strconv"
)

// Variance128 is varScratch.variance for sums that fit int64 (sx, and
// sx2 >= 0) in 128-bit integers, with no big.Int: TPC-DS q39's
// stddev_samp over 90 k groups of a few quantities each spent a fifth of
// its CPU in big.Int arithmetic, in the serial final step. It returns the
// result's magnitude hi·2⁶⁴+lo at scale qs; ok is false when an
// intermediate does not fit, and varScratch.variance takes those.
func Variance128(n, sx, sx2 int64, scale int, sample, stddev bool) (hi, lo uint64, qs int, ok bool) {
	if n <= 0 || sx2 < 0 || sx == -1<<63 {
		return 0, 0, 0, false
	}
	ux := uint64(sx)
	if sx < 0 {
		ux = uint64(-sx)
	}
	// num = n·sx2 − sx², scale 2·scale
	ah, al := bits.Mul64(uint64(n), uint64(sx2))
	bh, bl := bits.Mul64(ux, ux)
	nl, borrow := bits.Sub64(al, bl, 0)
	nh, borrow := bits.Sub64(ah, bh, borrow)
	if borrow != 0 || nh|nl == 0 {
		return 0, 0, 0, true // PostgreSQL prints 0
	}
	m := n
	if sample {
		m = n - 1
	}
	dh, den := bits.Mul64(uint64(n), uint64(m))
	if dh != 0 || den == 0 {
		return 0, 0, 0, false
	}
	var wx, fx int
	if nh == 0 {
		wx, fx = weightAndFirst64(nl, 2*scale) // without printing the digits
	} else {
		var digits [40]byte
		wx, fx = weightAndFirstDigits(appendU128(digits[:0], nh, nl), 2*scale)
	}
	wy, fy := weightAndFirst64(den, 0)
	qs = divScaleOf(wx, fx, 2*scale, wy, fy, 0)
	// num/den at scale qs with one more digit, then rounded half up
	e := qs + 1 - 2*scale
	switch {
	case e >= 0:
		if e > 19 {
			return 0, 0, 0, false
		}
		var over bool
		if nh, nl, over = mul128by64(nh, nl, pow10u64[e]); over {
			return 0, 0, 0, false
		}
	default:
		if -e > 19 {
			return 0, 0, 0, false
		}
		var h uint64
		if h, den = bits.Mul64(den, pow10u64[-e]); h != 0 {
			return 0, 0, 0, false
		}
	}
	qh, ql := div128by64(nh, nl, den)
	qh, ql = round10(qh, ql)
	if !stddev {
		return qh, ql, qs, true
	}
	// the truncated root with one more digit decides the rounding
	p := qs + 2
	var over bool
	for p > 0 && !over {
		k := min(p, 19)
		qh, ql, over = mul128by64(qh, ql, pow10u64[k])
		p -= k
	}
	if over {
		return 0, 0, 0, false
	}
	rh, rl := round10(0, Isqrt128(qh, ql))
	return rh, rl, qs, true
}

// mul128by64 is (hi·2⁶⁴+lo)·m and whether it overflows 128 bits.
func mul128by64(hi, lo, m uint64) (uint64, uint64, bool) {
	h1, l1 := bits.Mul64(lo, m)
	h2, l2 := bits.Mul64(hi, m)
	h, c := bits.Add64(h1, l2, 0)
	return h, l1, h2 != 0 || c != 0
}

// div128by64 is the quotient of hi·2⁶⁴+lo by d > 0: one hardware
// division when the quotient fits a word, as an average's mostly does.
func div128by64(hi, lo, d uint64) (uint64, uint64) {
	if hi < d {
		q, _ := bits.Div64(hi, lo, d)
		return 0, q
	}
	qh, r := bits.Div64(0, hi, d)
	ql, _ := bits.Div64(r, lo, d)
	return qh, ql
}

// round10 is (x + 5) / 10 of x = hi·2⁶⁴+lo; a word divided by the
// constant is a multiplication.
func round10(hi, lo uint64) (uint64, uint64) {
	lo, c := bits.Add64(lo, 5, 0)
	if hi+c == 0 {
		return 0, lo / 10
	}
	return div128by64(hi+c, lo, 10)
}

// appendU128 appends the decimal digits of hi·2⁶⁴+lo.
func appendU128(dst []byte, hi, lo uint64) []byte {
	if hi == 0 {
		return strconv.AppendUint(dst, lo, 10)
	}
	const p19 = 1e19
	var chunks [3]uint64
	n := 0
	for hi|lo != 0 {
		var r uint64
		hi, r = bits.Div64(0, hi, p19)
		lo, r = bits.Div64(r, lo, p19)
		chunks[n] = r
		n++
	}
	dst = strconv.AppendUint(dst, chunks[n-1], 10)
	for k := n - 2; k >= 0; k-- {
		// 19 digits with leading zeros; strconv writes two digits a step
		var w [19]byte
		d := strconv.AppendUint(w[:0], chunks[k], 10)
		for range 19 - len(d) {
			dst = append(dst, '0')
		}
		dst = append(dst, d...)
	}
	return dst
}

// Isqrt128 is the integer square root of hi·2⁶⁴+lo: a float64 guess, one
// Newton step in 128-bit arithmetic, then exact correction. big.Int.Sqrt
// took over half of variance's time (TPC-DS q39: 90 k groups).
func Isqrt128(hi, lo uint64) uint64 {
	if hi == 0 && lo == 0 {
		return 0
	}
	r := uint64(math.MaxUint64)
	if f := math.Sqrt(float64(hi)*0x1p64 + float64(lo)); f < 0x1p64 {
		r = max(uint64(f), 1)
	}
	if hi < r {
		// Newton: (r + n/r) / 2, when n/r fits a word
		q, _ := bits.Div64(hi, lo, r)
		s, c := bits.Add64(r, q, 0)
		r = s>>1 | c<<63
	}
	// r*r <= n < (r+1)*(r+1)
	above := func(r uint64) bool { // r*r > n
		h, l := bits.Mul64(r, r)
		return h > hi || (h == hi && l > lo)
	}
	for above(r) {
		r--
	}
	for r < math.MaxUint64 && !above(r+1) {
		r++
	}
	return r
}
