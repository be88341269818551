package exec

import (
	"math"
	"math/big"
	"testing"
)

// TestBitsMul checks the overflow-detecting multiply against big.Int on the
// edges of both of its paths.
func TestBitsMul(t *testing.T) {
	edges := []int64{0, 1, -1, 2, -2, 10, -10, 1 << 31, -(1 << 31), 1<<31 - 1, -(1<<31 - 1),
		1 << 32, -(1 << 32), 3037000499, 3037000500, -3037000500, 1 << 62, -(1 << 62),
		math.MaxInt64, math.MinInt64, math.MaxInt64 / 3, math.MinInt64 / 2, 1e18, -1e18}
	lim := big.NewInt(math.MaxInt64)
	low := big.NewInt(math.MinInt64)
	for _, x := range edges {
		for _, y := range edges {
			want := new(big.Int).Mul(big.NewInt(x), big.NewInt(y))
			fits := want.Cmp(lim) <= 0 && want.Cmp(low) >= 0
			ok, z := BitsMul(x, y)
			if ok != fits || (ok && z != want.Int64()) {
				t.Errorf("bitsMul(%d, %d) = %v, %d; want %v, %s", x, y, ok, z, fits, want)
			}
		}
	}
}

// TestAddScaledAndMulSmall checks the branch-free batch kernels against
// big.Int: when they report success every row is exact, and a row that
// overflows is always reported.
func TestAddScaledAndMulSmall(t *testing.T) {
	vals := []int64{0, 1, -1, 99, -99, 1 << 31, -(1 << 31), 1<<31 - 1, 1 << 40, -(1 << 40), 1<<21 - 1, -(1 << 21), 1 << 22,
		math.MaxInt64 / 100, math.MinInt64 / 100, math.MaxInt64/100 + 1, math.MaxInt64, math.MinInt64}
	lim, low := big.NewInt(math.MaxInt64), big.NewInt(math.MinInt64)
	fits := func(z *big.Int) bool { return z.Cmp(lim) <= 0 && z.Cmp(low) >= 0 }
	for _, ml := range []int64{1, 100} {
		for _, mr := range []int64{1, 10} {
			for _, sub := range []bool{false, true} {
				for _, x := range vals {
					for _, y := range vals {
						a := new(big.Int).Mul(big.NewInt(x), big.NewInt(ml))
						b := new(big.Int).Mul(big.NewInt(y), big.NewInt(mr))
						want := new(big.Int).Add(a, b)
						if sub {
							want.Sub(a, b)
						}
						out := make([]int64, 1)
						ok := addScaled(sub, []int64{x}, []int64{y}, ml, mr, out)
						exact := fits(a) && fits(b) && fits(want)
						if ok && (!exact || out[0] != want.Int64()) {
							t.Errorf("addScaled(sub=%v, %d*%d, %d*%d) = %d, ok; want %s", sub, x, ml, y, mr, out[0], want)
						}
						small := x >= math.MinInt32 && x <= math.MaxInt32 && y >= math.MinInt32 && y <= math.MaxInt32
						if small && exact && !ok && ml == 1 && mr == 1 && x != math.MaxInt64 && y != math.MaxInt64 {
							t.Errorf("addScaled(sub=%v, %d, %d) raised a false alarm on small values", sub, x, y)
						}
					}
				}
			}
		}
	}
	for _, x := range vals {
		for _, y := range vals {
			out := make([]int64, 1)
			ok := mulSmall([]int64{x}, []int64{y}, out)
			small := x >= math.MinInt32 && x <= math.MaxInt32 && y >= math.MinInt32 && y <= math.MaxInt32
			exact := new(big.Int).Mul(big.NewInt(x), big.NewInt(y)).IsInt64()
			if (small && !ok) || (ok && (!exact || out[0] != x*y)) {
				t.Errorf("mulSmall(%d, %d) = %d, %v; want ok=%v", x, y, out[0], ok, small)
			}
		}
	}
}
