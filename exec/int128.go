package exec

import (
	"math/big"
	"math/bits"
)

// I128 is a signed 128-bit integer (two's complement), enough for exact
// sums of int64 values: 2^64 rows of the largest bigint cannot overflow it.
// Sums of squares (variance) can, and fall back to big.Int.
type I128 struct {
	hi int64
	Lo uint64
}

func I128of(x int64) I128 { return I128{hi: x >> 63, Lo: uint64(x)} }

// Add returns a+b and whether it overflowed.
func (a I128) Add(b I128) (I128, bool) {
	lo, c := bits.Add64(a.Lo, b.Lo, 0)
	hi := a.hi + b.hi + int64(c)
	// overflow when both operands have the sign the result lacks
	ov := (a.hi >= 0) == (b.hi >= 0) && (hi >= 0) != (a.hi >= 0)
	return I128{hi: hi, Lo: lo}, ov
}

func (a I128) Neg() I128 {
	lo, b := bits.Sub64(0, a.Lo, 0)
	return I128{hi: -a.hi - int64(b), Lo: lo}
}

func (a I128) IsInt64() bool { return a.hi == int64(a.Lo)>>63 }

// Mul64 is the exact 128-bit product of two int64s.
func Mul64(x, y int64) I128 {
	neg := (x < 0) != (y < 0)
	ux, uy := uint64(x), uint64(y)
	if x < 0 {
		ux = -ux
	}
	if y < 0 {
		uy = -uy
	}
	hi, lo := bits.Mul64(ux, uy)
	r := I128{hi: int64(hi), Lo: lo}
	if neg {
		r = r.Neg()
	}
	return r
}

func (a I128) Big() *big.Int { return a.SetBig(new(big.Int), new(big.Int)) }

// SetBig sets z to a, using t as scratch, and returns z.
func (a I128) SetBig(z, t *big.Int) *big.Int {
	if a.hi == 0 && a.Lo < 1<<63 || a.hi == -1 && a.Lo >= 1<<63 {
		return z.SetInt64(int64(a.Lo))
	}
	z.SetInt64(a.hi)
	z.Lsh(z, 64)
	return z.Add(z, t.SetUint64(a.Lo))
}
