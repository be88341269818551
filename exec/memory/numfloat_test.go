package memory

import (
	"testing"
)

// canonDecimal gives one text per decimal value: scale, trailing zeros,
// leading zeros, a plus sign, exponents and a negative zero do not matter.
func TestCanonDecimal(t *testing.T) {
	for in, want := range map[string]string{
		"1.50": "1.5", "1.5": "1.5", "-1.500": "-1.5", "-001.50": "-1.5", "0012": "12", "-12": "-12",
		"-0.000": "0", "0": "0", "0.0": "0", "+1.50": "1.5", "1.5e1": "15", "-2.50E-1": "-0.25",
		"100": "100", "100.00": "100", "-100.10": "-100.1", "0.0100": "0.01", "-0.0100": "-0.01", "": "0",
	} {
		if got := CanonDecimal(in); got != want {
			t.Errorf("canonDecimal(%q) = %q, want %q", in, got, want)
		}
	}
}
