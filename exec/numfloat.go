package exec

import (
	"math"
	"math/bits"
)

// Numeric to float8 without text. PostgreSQL converts a numeric to float8
// by printing it and reading the text back (numeric_float8 → float8in), a
// correctly rounded conversion; lakepg did the same with strconv.ParseFloat,
// whose general path (20-digit averages, trailing zeros past 2^53) was a
// fifth of TPC-DS q39 (CAST(stdev AS DOUBLE PRECISION) / mean over 90 k
// groups). Here a value of at most 19 significant digits and scale of at
// most 19 — m·10^-s with m < 2^64 — is divided in 128-bit integers and
// rounded half to even once, which is the same correctly rounded result;
// anything else goes the text way.

// pow10u64 is 10^n for 0 <= n <= 19.
var pow10u64 = func() (p [20]uint64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return
}()

// ScaledFloat64 returns the float64 nearest to ±m·10^-s (ties to even) for
// s <= 19.
func ScaledFloat64(neg bool, m uint64, s int) float64 {
	if m == 0 {
		if neg {
			return math.Copysign(0, -1) // as strconv reads "-0"
		}
		return 0
	}
	if m < 1<<53 {
		// both m and 10^s (s <= 19 < 23) are exact doubles, and one IEEE
		// division rounds their exact quotient to nearest, ties to even
		f := float64(m) / float64(pow10u64[s])
		if neg {
			f = -f
		}
		return f
	}
	d := pow10u64[s]
	// shift m left so that the quotient has at least 55 bits: 53 kept, a
	// rounding bit, and below them the remainder decides ties
	bm, bd := bits.Len64(m), bits.Len64(d)
	k := max(0, 55+bd-bm)
	var hi, lo uint64
	if k >= 64 {
		hi, lo = m<<(k-64), 0
	} else if k > 0 {
		hi, lo = m>>(64-k), m<<k
	} else {
		hi, lo = 0, m
	}
	q, r := bits.Div64(hi, lo, d) // hi < d: the quotient fits
	drop := bits.Len64(q) - 53
	mant := q >> drop
	rest := q & (1<<drop - 1)
	half := uint64(1) << (drop - 1)
	if rest > half || rest == half && (r != 0 || mant&1 == 1) {
		mant++
		if mant == 1<<53 {
			mant >>= 1
			drop++
		}
	}
	f := math.Ldexp(float64(mant), drop-k)
	if neg {
		f = -f
	}
	return f
}

// decimalFloat64 reads plain decimal text ([-]digits[.digits]) as
// ScaledFloat64 does; ok is false for more than 19 significant digits, a
// scale above 19 once trailing zeros are dropped, or other text.
func decimalFloat64(txt string) (f float64, ok bool) {
	i, neg := 0, false
	if i < len(txt) && (txt[i] == '-' || txt[i] == '+') {
		neg, i = txt[i] == '-', i+1
	}
	end := len(txt)
	dot := -1
	for j := i; j < end; j++ {
		if txt[j] == '.' {
			dot = j
			break
		}
	}
	if dot >= 0 {
		// trailing zeros of the fraction change nothing
		for end > dot+1 && txt[end-1] == '0' {
			end--
		}
		if end == dot+1 {
			end = dot
		}
	}
	if i == end || i == dot && end <= dot {
		return 0, false
	}
	var m uint64
	digits, scale := 0, 0
	for j := i; j < end; j++ {
		c := txt[j]
		if j == dot {
			continue
		}
		if c < '0' || c > '9' {
			return 0, false
		}
		if dot >= 0 && j > dot {
			scale++
		}
		if digits == 0 && c == '0' {
			continue
		}
		digits++
		if digits > 19 {
			return 0, false
		}
		m = m*10 + uint64(c-'0')
	}
	if scale > 19 {
		return 0, false
	}
	return ScaledFloat64(neg, m, scale), true
}
