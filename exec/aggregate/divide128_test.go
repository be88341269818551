package aggregate

import (
	"math/big"
	"math/rand"
	"strings"
	"testing"
)

// compareDecimalText orders decimal texts by value, small or not.
func TestCompareDecimalText(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	gen := func() string {
		digits := 1 + r.Intn(24)
		var b []byte
		if r.Intn(2) == 0 {
			b = append(b, '-')
		}
		for i := 0; i < digits; i++ {
			b = append(b, byte('0'+r.Intn(10)))
		}
		if sc := r.Intn(8); sc > 0 && sc < digits {
			at := len(b) - sc
			b = append(b[:at], append([]byte{'.'}, b[at:]...)...)
		}
		return string(b)
	}
	for it := 0; it < 100000; it++ {
		a, b := gen(), gen()
		if it%7 == 0 {
			b = a + "0" // the same value at another scale, when a has a point
			if !strings.Contains(a, ".") {
				b = a + ".0"
			}
		}
		ra, _ := new(big.Rat).SetString(a)
		rb, _ := new(big.Rat).SetString(b)
		if got, want := compareDecimalText(a, b), ra.Cmp(rb); got != want {
			t.Fatalf("compareDecimalText(%s, %s) = %d, want %d", a, b, got, want)
		}
	}
}
