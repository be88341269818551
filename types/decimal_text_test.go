package types

import (
	"math/big"
	"math/rand"
	"testing"
)

func TestFormatScaledLikeFormatBig(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	vals := []int64{0, 1, -1, 9, 10, -10, 123, -123, 1 << 62, -(1 << 62), 1<<63 - 1, -1 << 63}
	for i := 0; i < 2000; i++ {
		vals = append(vals, rng.Int63n(1e12)-5e11)
	}
	for _, x := range vals {
		for _, sc := range []int{0, 1, 2, 3, 5, 12, 20} {
			v := big.NewInt(x)
			s := new(big.Int).Abs(v).String()
			if sc > 0 {
				for len(s) <= sc {
					s = "0" + s
				}
				s = s[:len(s)-sc] + "." + s[len(s)-sc:]
			}
			if x < 0 {
				s = "-" + s
			}
			if got := FormatScaled(x, sc); got != s {
				t.Fatalf("FormatScaled(%d, %d) = %q, want %q", x, sc, got, s)
			}
		}
	}
}

func TestParseDecimalDigits(t *testing.T) {
	for _, c := range []struct {
		in    string
		want  string
		scale int
	}{
		{"0", "0", 0}, {"-0.50", "-50", 2}, {"123456789012345678", "123456789012345678", 0},
		{"1234567890123456789", "1234567890123456789", 0}, {"99999999999999999999.5", "999999999999999999995", 1},
		{"1.5e3", "1500", 0}, {"+.25", "25", 2}, {"7.", "7", 0}, {" 42 ", "42", 0},
	} {
		d, sc, err := ParseDecimal(c.in)
		if err != nil || d.String() != c.want || sc != c.scale {
			t.Errorf("ParseDecimal(%q) = %v, %d, %v; want %s, %d", c.in, d, sc, err, c.want, c.scale)
		}
	}
	for _, bad := range []string{"", ".", "1.2.3", "1x", "--1", "e5"} {
		if _, _, err := ParseDecimal(bad); err == nil {
			t.Errorf("ParseDecimal(%q) succeeded", bad)
		}
	}
}

func TestParseDecimalSmallAgreesWithParseDecimal(t *testing.T) {
	for _, in := range []string{"0", "-0", "12.50", "-7.125", "+3", "999999999999999999", "0.000000000000000001",
		"1234567890123456789", "1e5", " 1", "1.2.3", "", "-", ".", "5.", ".5"} {
		m, sc, ok := ParseDecimalSmall(in)
		d, dsc, err := ParseDecimal(in)
		if !ok {
			continue // ParseDecimal decides
		}
		if err != nil || d.Int64() != m || dsc != sc {
			t.Errorf("ParseDecimalSmall(%q) = %d, %d; ParseDecimal %v, %d, %v", in, m, sc, d, dsc, err)
		}
	}
	if _, _, ok := ParseDecimalSmall("1234567890123456789"); ok {
		t.Error("19 digits taken by ParseDecimalSmall")
	}
}
