package types

import (
	"math"
	"math/big"
	mbits "math/bits"
	"strconv"
	"strings"
)

// shortestE appends f (finite, non-zero) in exponent form with the fewest
// digits that read back as f, choosing digits as PostgreSQL's Ryu does: a
// candidate exactly halfway between f and a neighbour does not count, even
// though round-half-even would read it back as f. Go's shortest formatting
// accepts that halfway point when f's mantissa is even, so the two differ
// only there; such ties are possible only for integers of 2^53 (2^24 for
// real) and above, whose halfway points can be short decimals.
//
// tie reports that the digits differ from Go's shortest ones.
func shortestE(dst []byte, f float64, bits int) (out []byte, tie bool) {
	start := len(dst)
	dst = strconv.AppendFloat(dst, f, 'e', -1, bits)
	limit, maxDigits := float64(1<<53), 17
	if bits == 32 {
		limit, maxDigits = 1<<24, 9
	}
	if math.Abs(f) < limit {
		return dst, false
	}
	mant, exp := splitE(dst[start:])
	if len(mant) >= maxDigits || !isHalfway(f, mant, exp, bits) {
		return dst, false
	}
	for prec := len(mant); prec < maxDigits; prec++ {
		dst = strconv.AppendFloat(dst[:start], f, 'e', prec, bits)
		m, e := splitE(dst[start:])
		if back, err := strconv.ParseFloat(string(dst[start:]), bits); err == nil && back == f && !isHalfway(f, m, e, bits) {
			return dst, true
		}
	}
	return strconv.AppendFloat(dst[:start], f, 'e', maxDigits-1, bits), true
}

// splitE returns the significant digits (without sign and point) and the
// decimal exponent of the leading digit of an 'e'-formatted number.
func splitE(e []byte) (string, int) {
	s := string(e)
	i := strings.LastIndexByte(s, 'e')
	exp, _ := strconv.Atoi(s[i+1:])
	m := strings.TrimPrefix(s[:i], "-")
	m = strings.Replace(m, ".", "", 1)
	return m, exp
}

// isHalfway reports whether digits×10^(exp-len+1) lies exactly midway
// between f and one of its neighbours.
func isHalfway(f float64, digits string, exp, bitSize int) bool {
	shift := exp - (len(digits) - 1)
	if shift < 0 {
		return false // not an integer, while every halfway point here is half an integer at worst
	}
	// Cheap filter: a halfway point is an odd multiple of half the gap to
	// the neighbour, so its power of two is fixed; digits×10^shift has
	// tz(digits)+shift twos.
	m, err := strconv.ParseUint(digits, 10, 64)
	if err != nil || m == 0 {
		return false
	}
	frac, e := math.Frexp(math.Abs(f))
	sig := 53
	if bitSize == 32 {
		sig = 24
	}
	half := e - sig - 1 // log2 of half the gap above
	twos := mbits.TrailingZeros64(m) + shift
	if twos != half && !(frac == 0.5 && twos == half-1) {
		return false
	}
	d, ok := new(big.Int).SetString(digits, 10)
	if !ok {
		return false
	}
	d.Mul(d, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(shift)), nil))
	if f < 0 {
		d.Neg(d)
	}
	d.Lsh(d, 1)
	var up, down float64
	if bitSize == 32 {
		up = float64(math.Nextafter32(float32(f), float32(math.Inf(1))))
		down = float64(math.Nextafter32(float32(f), float32(math.Inf(-1))))
	} else {
		up, down = math.Nextafter(f, math.Inf(1)), math.Nextafter(f, math.Inf(-1))
	}
	for _, n := range [2]float64{up, down} {
		if math.IsInf(n, 0) {
			continue
		}
		sum := exactInt(f)
		sum.Add(sum, exactInt(n))
		if sum.Cmp(d) == 0 {
			return true
		}
	}
	return false
}

// exactInt converts an integral float to a big.Int without rounding.
func exactInt(f float64) *big.Int {
	i, _ := new(big.Float).SetFloat64(f).Int(nil)
	return i
}

// eToFixed rewrites an 'e'-formatted number in plain positional notation.
func eToFixed(dst []byte, e []byte) []byte {
	neg := len(e) > 0 && e[0] == '-'
	digits, exp := splitE(e)
	if neg {
		dst = append(dst, '-')
	}
	point := exp + 1 // digits before the decimal point
	switch {
	case point <= 0:
		dst = append(dst, "0."...)
		for i := 0; i < -point; i++ {
			dst = append(dst, '0')
		}
		dst = append(dst, digits...)
	case point >= len(digits):
		dst = append(dst, digits...)
		for i := len(digits); i < point; i++ {
			dst = append(dst, '0')
		}
	default:
		dst = append(dst, digits[:point]...)
		dst = append(dst, '.')
		dst = append(dst, digits[point:]...)
	}
	return dst
}
