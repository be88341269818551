package exec

import (
	"math/big"
	"math/bits"
)

// i128 is a signed 128-bit integer (two's complement), enough for exact
// sums of int64 values: 2^64 rows of the largest bigint cannot overflow it.
// Sums of squares (variance) can, and fall back to big.Int.
type i128 struct {
	hi int64
	lo uint64
}

func i128of(x int64) i128 { return i128{hi: x >> 63, lo: uint64(x)} }

// add returns a+b and whether it overflowed.
func (a i128) add(b i128) (i128, bool) {
	lo, c := bits.Add64(a.lo, b.lo, 0)
	hi := a.hi + b.hi + int64(c)
	// overflow when both operands have the sign the result lacks
	ov := (a.hi >= 0) == (b.hi >= 0) && (hi >= 0) != (a.hi >= 0)
	return i128{hi: hi, lo: lo}, ov
}

func (a i128) neg() i128 {
	lo, b := bits.Sub64(0, a.lo, 0)
	return i128{hi: -a.hi - int64(b), lo: lo}
}

func (a i128) isInt64() bool { return a.hi == int64(a.lo)>>63 }

// mul64 is the exact 128-bit product of two int64s.
func mul64(x, y int64) i128 {
	neg := (x < 0) != (y < 0)
	ux, uy := uint64(x), uint64(y)
	if x < 0 {
		ux = -ux
	}
	if y < 0 {
		uy = -uy
	}
	hi, lo := bits.Mul64(ux, uy)
	r := i128{hi: int64(hi), lo: lo}
	if neg {
		r = r.neg()
	}
	return r
}

func (a i128) big() *big.Int { return a.setBig(new(big.Int), new(big.Int)) }

// setBig sets z to a, using t as scratch, and returns z.
func (a i128) setBig(z, t *big.Int) *big.Int {
	if a.hi == 0 && a.lo < 1<<63 || a.hi == -1 && a.lo >= 1<<63 {
		return z.SetInt64(int64(a.lo))
	}
	z.SetInt64(a.hi)
	z.Lsh(z, 64)
	return z.Add(z, t.SetUint64(a.lo))
}
