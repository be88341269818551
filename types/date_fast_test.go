package types

import (
	"fmt"
	"testing"
)

// TestParseDateFastMatchesParseDate: for every day from 1000 to 9999 the
// fast path gives what ParseDate gives; what it refuses, it leaves to
// ParseDate.
func TestParseDateFastMatchesParseDate(t *testing.T) {
	for y := 1000; y <= 9999; y += 7 {
		for m := 1; m <= 12; m++ {
			for d := 1; d <= 31; d++ {
				s := fmt.Sprintf("%04d-%02d-%02d", y, m, d)
				want, err := ParseDate(s)
				got, ok := ParseDateFast(s)
				if ok && (err != nil || got != want) {
					t.Fatalf("%s: fast %d, ParseDate %d %v", s, got, want, err)
				}
				if !ok && err == nil {
					t.Fatalf("%s: fast path refused a valid date", s)
				}
			}
		}
	}
	for _, s := range []string{"2023-02-29", "2024-13-01", "2024-00-10", "2024-01-00", "0999-01-01", " 2024-01-01", "2024/01/01", "2024-1-01", "2024-01-01 BC", "+024-01-01", "2024-01-3x"} {
		if _, ok := ParseDateFast(s); ok {
			t.Errorf("%q taken by the fast path", s)
		}
	}
	if d, ok := ParseDateFast("1970-01-01"); !ok || d != 0 {
		t.Errorf("epoch: %d %v", d, ok)
	}
}
