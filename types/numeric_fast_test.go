package types

import (
	"fmt"
	"math/rand"
	"testing"
)

// The fast path answers exactly what ParseNumeric answers, or declines.
func TestParseNumericFastAgreesWithParseNumeric(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	cases := []string{"0", "-0", "+0", ".5", "5.", "-.5", "0.005", "0.015", "-0.015", "12.345", "99.995", "-99.995",
		"999999999999999999", "0000000000000000000001.5", "1e3", " 1", "1 ", "", "+", "-", ".", "1.2.3", "NaN", "12a",
		"123456789012345678.9", "0.000000000000000000001"}
	for range 20000 {
		ip := fmt.Sprint(rng.Int63n(1 << uint(rng.Intn(62)+1)))
		s := ip
		if rng.Intn(2) == 0 {
			f := fmt.Sprintf("%06d", rng.Int63n(1000000))
			s += "." + f[:rng.Intn(6)+1]
		}
		if rng.Intn(3) == 0 {
			s = "-" + s
		}
		cases = append(cases, s)
	}
	for _, s := range cases {
		for _, ps := range [][2]int{{18, 0}, {12, 2}, {10, 4}, {5, 5}, {18, 6}, {3, 1}} {
			fast, ok := ParseNumericFast(s, ps[0], ps[1])
			slow, err := ParseNumeric(s, ps[0], ps[1])
			if ok && (err != nil || fast != slow) {
				t.Fatalf("%q numeric(%d,%d): fast %d, general %d %v", s, ps[0], ps[1], fast, slow, err)
			}
		}
	}
	// the fast path takes the plain forms COPY sees
	for _, s := range []string{"12.34", "-7", "0.5", "123456.78"} {
		if _, ok := ParseNumericFast(s, 12, 2); !ok {
			t.Errorf("%q declined", s)
		}
	}
}
