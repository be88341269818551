package exec

import (
	"math/big"
	"math/rand"
	"strings"
	"testing"
)

// TestCmpDecimalTextMatchesBigRat checks the digit comparison against
// exact rationals on random decimal texts with leading and trailing
// zeros, signs and zeros of every form.
func TestCmpDecimalTextMatchesBigRat(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	digits := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteByte(byte('0' + rng.Intn(10)))
		}
		return b.String()
	}
	gen := func() string {
		s := ""
		switch rng.Intn(4) {
		case 0:
			s = "-"
		case 1:
			s = "+"
		}
		in := digits(rng.Intn(5))
		if rng.Intn(3) == 0 {
			in = strings.Repeat("0", rng.Intn(3)) + in
		}
		if rng.Intn(2) == 0 {
			return s + in + "." + digits(rng.Intn(6))
		}
		if in == "" {
			in = "0"
		}
		return s + in
	}
	fixed := []string{"0", "-0", "+0", "0.000", "-0.0", ".5", "-.5", "5.", "007.10", "7.1", "-7.100", "10", "9.99999999999999999999", "123456789012345678901234567890.5"}
	vals := append([]string(nil), fixed...)
	for range 3000 {
		vals = append(vals, gen())
	}
	rat := func(s string) *big.Rat {
		r, ok := new(big.Rat).SetString(strings.TrimSuffix(s, "."))
		if !ok {
			t.Fatalf("test value %q", s)
		}
		return r
	}
	for k := range 20000 {
		a, b := vals[rng.Intn(len(vals))], vals[rng.Intn(len(vals))]
		if k < len(fixed)*len(fixed) {
			a, b = fixed[k/len(fixed)], fixed[k%len(fixed)]
		}
		if noDigits(a) || noDigits(b) {
			continue
		}
		got, ok := cmpDecimalText(a, b)
		if !ok {
			t.Fatalf("cmpDecimalText(%q, %q) not ok", a, b)
		}
		if want := rat(a).Cmp(rat(b)); got != want {
			t.Fatalf("cmpDecimalText(%q, %q) = %d, want %d", a, b, got, want)
		}
	}
	for _, bad := range []string{"", "-", ".", "NaN", "Infinity", "-Infinity", "1e5", "1.2.3", "12a"} {
		if _, ok := cmpDecimalText(bad, "1"); ok {
			t.Errorf("cmpDecimalText(%q, 1) ok", bad)
		}
	}
}

func noDigits(s string) bool { return strings.Trim(s, "+-.") == "" }
