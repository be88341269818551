package exec

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// randDecimalText is numeric text of 1–40 digits at scale 0–20, signed,
// trailing zeros kept, so that some values fit 128 bits and some do not.
func randDecimalText(r *rand.Rand) string {
	n := 1 + r.Intn(40)
	if r.Intn(3) == 0 {
		n = 1 + r.Intn(6)
	}
	var sb strings.Builder
	if r.Intn(2) == 0 {
		sb.WriteByte('-')
	}
	scale := r.Intn(min(n, 20) + 1)
	for k := 0; k < n; k++ {
		if k == n-scale {
			if k == 0 {
				sb.WriteByte('0')
			}
			sb.WriteByte('.')
		}
		sb.WriteByte(byte('0' + r.Intn(10)))
	}
	return sb.String()
}

func numericVector(t types.T, text string) *vec.Vector {
	v := vec.New(t, 1)
	if t.Scale >= 0 {
		m, s, _ := types.ParseDecimal(text)
		v.AppendInt(types.RescaleBig(m, s, t.Scale).Int64())
	} else {
		v.AppendString(text)
	}
	return v
}

// arith128 and cmpDec128 give what the big.Int path gives, digit for
// digit, wherever they answer, and answer for most values that fit.
func TestDec128MatchesBigPath(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	unconstrained := types.T{ID: types.Numeric, Scale: -1}
	fixed := types.T{ID: types.Numeric, Precision: 18, Scale: 2}
	answered := map[ArithOp]int{}
	compared := 0
	for it := 0; it < 200000; it++ {
		a, b := randDecimalText(r), randDecimalText(r)
		l := numericVector(unconstrained, a)
		rt := unconstrained
		if it%3 == 0 {
			// a numeric(18,2) operand, as a column is
			b = types.FormatScaled(r.Int63()>>uint(r.Intn(63))*int64(1-2*r.Intn(2)), 2)
			rt = fixed
		}
		rv := numericVector(rt, b)
		for _, op := range []ArithOp{'*', '+', '-'} {
			got, ok := arith128(op, l, rv, 0)
			if !ok {
				continue
			}
			answered[op]++
			x, sx := NumericValue(l, 0)
			y, sy := NumericValue(rv, 0)
			z, sz, err := DecimalArith(op, x, sx, y, sy)
			if err != nil {
				t.Fatal(err)
			}
			if want := types.FormatBig(z, sz); got.String() != want {
				t.Fatalf("%s %c %s = %s, want %s", a, op, b, got, want)
			}
		}
		x, okX := numeric128(l, 0)
		y, okY := numeric128(rv, 0)
		if !okX || !okY {
			continue
		}
		c, ok := cmpDec128(x, y)
		if !ok {
			continue
		}
		compared++
		bx, sx := NumericValue(l, 0)
		by, sy := NumericValue(rv, 0)
		s := max(sx, sy)
		if want := types.RescaleBig(bx, sx, s).Cmp(types.RescaleBig(by, sy, s)); c != want {
			t.Fatalf("compare %s with %s = %d, want %d", a, b, c, want)
		}
	}
	for _, op := range []ArithOp{'*', '+', '-'} {
		if answered[op] < 20000 {
			t.Errorf("%c answered %d of 200000", op, answered[op])
		}
	}
	if compared < 50000 {
		t.Errorf("compared %d of 200000", compared)
	}
}

// Values at the edges of 128 bits: the largest magnitude parses, one more
// digit does not, and a product that would wrap is refused.
func TestDec128Edges(t *testing.T) {
	max128 := "340282366920938463463374607431768211455"
	d, ok := parseDec128(max128)
	if !ok || d.String() != max128 {
		t.Fatalf("parse max = %v %v", d, ok)
	}
	if _, ok := parseDec128("340282366920938463463374607431768211456"); ok {
		t.Fatal("2^128 parsed")
	}
	if _, ok := d.mul(dec128{lo: 2}); ok {
		t.Fatal("max*2 fitted")
	}
	if _, ok := d.add(dec128{lo: 1}); ok {
		t.Fatal("max+1 fitted")
	}
	for _, bad := range []string{"", "-", "NaN", "Infinity", "1e5", "1.2.3", "--1"} {
		if _, ok := parseDec128(bad); ok {
			t.Errorf("%q parsed", bad)
		}
	}
	z, _ := parseDec128("-0.000")
	if z.neg || z.String() != "0.000" {
		t.Errorf("-0.000 = %v %q", z.neg, z.String())
	}
	n, _ := parseDec128("-1.5")
	p, _ := parseDec128("1.50")
	if s, _ := n.add(p); s.String() != "0.00" || s.neg {
		t.Errorf("-1.5 + 1.50 = %q", s.String())
	}
}
