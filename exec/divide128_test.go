package exec

import (
	"math"
	"math/big"
	"math/bits"
	"math/rand"
	"testing"

	"github.com/lakepg/lakepg/types"
)

// divide128 gives DecimalArith's quotient, digit for digit, wherever it
// answers.
func TestDivide128MatchesDecimalArith(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	answered := 0
	for it := 0; it < 200000; it++ {
		var x int64
		switch it % 4 {
		case 0:
			x = r.Int63n(2000) - 1000
		case 1:
			x = r.Int63n(1 << 40)
		case 2:
			x = -r.Int63()
		default:
			x = r.Int63() >> uint(r.Intn(63))
		}
		sx := r.Intn(7)
		y := 1 + r.Int63n(20)
		if it%5 == 0 {
			y = 1 + r.Int63n(math.MaxInt32)
		}
		neg, hi, lo, qs, ok := Divide128(x, sx, y)
		if !ok {
			continue
		}
		answered++
		wq, wqs, err := DecimalArith('/', big.NewInt(x), sx, big.NewInt(y), 0)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := FormatScaled128(neg, hi, lo, qs), types.FormatBig(wq, wqs); got != want {
			t.Fatalf("%d (scale %d) / %d = %s, want %s", x, sx, y, got, want)
		}
	}
	if answered < 100000 {
		t.Errorf("divide128 answered %d of 200000", answered)
	}
}

func TestIsqrt128(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	check := func(hi, lo uint64) {
		n := new(big.Int).Lsh(new(big.Int).SetUint64(hi), 64)
		n.Or(n, new(big.Int).SetUint64(lo))
		want := new(big.Int).Sqrt(n)
		if got := Isqrt128(hi, lo); want.Cmp(new(big.Int).SetUint64(got)) != 0 {
			t.Fatalf("isqrt(%s) = %d, want %s", n, got, want)
		}
	}
	for _, e := range [][2]uint64{{0, 0}, {0, 1}, {0, 2}, {0, 3}, {0, 4}, {0, math.MaxUint64}, {1, 0},
		{math.MaxUint64, math.MaxUint64}, {math.MaxUint64 - 1, 1}, {math.MaxUint64 >> 1, math.MaxUint64}} {
		check(e[0], e[1])
	}
	for it := 0; it < 200000; it++ {
		hi, lo := r.Uint64()>>uint(r.Intn(64)), r.Uint64()
		if it%3 == 0 {
			hi = 0
		}
		check(hi, lo)
		// perfect squares and their neighbours
		x := r.Uint64() >> uint(r.Intn(64))
		h, l := bits.Mul64(x, x)
		check(h, l)
		if l > 0 {
			check(h, l-1)
		}
	}
}
