package exec

import (
	"math"
	"math/rand"
	"strconv"
	"strings"
	"testing"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// The integer conversion gives strconv.ParseFloat's correctly rounded
// result bit for bit: random mantissas of every length at every scale,
// values just around halfway points between floats, and texts with
// trailing zeros and leading fractional zeros; texts it cannot take
// (too many digits, exponents, specials) say so.
func TestDecimalFloat64MatchesParseFloat(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	check := func(txt string) {
		t.Helper()
		want, err := strconv.ParseFloat(txt, 64)
		if err != nil {
			t.Fatalf("%q: %v", txt, err)
		}
		got, ok := decimalFloat64(txt)
		if !ok {
			return
		}
		if math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("%q: got %v (%x), want %v (%x)", txt, got, math.Float64bits(got), want, math.Float64bits(want))
		}
	}
	taken := 0
	for iter := 0; iter < 300000; iter++ {
		nd := 1 + rng.Intn(19)
		var sb strings.Builder
		if rng.Intn(2) == 0 {
			sb.WriteByte('-')
		}
		digits := make([]byte, nd)
		for j := range digits {
			digits[j] = byte('0' + rng.Intn(10))
		}
		s := rng.Intn(nd + 3)
		if s > nd {
			// leading fractional zeros
			sb.WriteString("0.")
			sb.WriteString(strings.Repeat("0", s-nd))
			sb.Write(digits)
		} else if s == 0 {
			sb.Write(digits)
		} else {
			sb.Write(digits[:nd-s])
			if nd == s {
				sb.WriteByte('0')
			}
			sb.WriteByte('.')
			sb.Write(digits[nd-s:])
		}
		if rng.Intn(4) == 0 {
			sb.WriteString(strings.Repeat("0", rng.Intn(6)))
		}
		txt := sb.String()
		if _, ok := decimalFloat64(txt); ok {
			taken++
		}
		check(txt)
	}
	if taken < 200000 {
		t.Fatalf("only %d of 300000 texts converted without strconv", taken)
	}
	// halfway points: m·2^e with a 54-bit m is exactly between two floats;
	// printed exactly when short enough, and one unit off either way
	for iter := 0; iter < 20000; iter++ {
		m := uint64(1)<<53 | rng.Uint64()&(1<<53-1)
		for e := 0; e <= 8; e++ {
			// m / 2^e has e fractional digits
			num := m * pow10u64[e] >> e
			if m*pow10u64[e]>>e<<e != m*pow10u64[e] || m > math.MaxUint64/pow10u64[e] {
				continue
			}
			txt := strconv.FormatUint(num, 10)
			if e > 0 && len(txt) > e {
				txt = txt[:len(txt)-e] + "." + txt[len(txt)-e:]
			}
			check(txt)
		}
		check(strconv.FormatUint(m, 10))
		check(strconv.FormatUint(m+1, 10))
		check(strconv.FormatUint(m-1, 10))
		check(strconv.FormatUint(m<<10|1<<9, 10))
		check(strconv.FormatUint(m<<10|1<<9+1, 10))
	}
	for _, txt := range []string{"0", "-0", "0.000", "5.", ".5", "1", "9999999999999999999", "0.0000000000000000001", "18446744073709551615", "1.7976931348623157"} {
		check(txt)
	}
	for _, txt := range []string{"12345678901234567890", "0.00000000000000000001", "1e5", "NaN", "Infinity", "", "-", ".", "1.2.3", "12a"} {
		if _, ok := decimalFloat64(txt); ok {
			t.Errorf("%q: converted, want the text way", txt)
		}
	}
}

// CAST(numeric AS float8) over a vector: unconstrained values (special
// ones, NULLs, long ones going the text way) and fixed-scale ones give what
// castOne gives row by row.
func TestNumericToFloat64Vector(t *testing.T) {
	dyn := vec.New(types.NumericAnyT, 0)
	for _, s := range []string{"1.5", "NaN", "-Infinity", "501.4071146245059289", "123456789012345678901234.5678", "291.367500088653000", "0.000"} {
		dyn.AppendString(s)
	}
	dyn.AppendNull()
	fixed := vec.New(types.NumericT(18, 4), 0)
	for _, x := range []int64{0, -1, 12345, math.MaxInt64, math.MinInt64 + 1} {
		fixed.AppendInt(x)
	}
	fixed.AppendNull()
	for _, v := range []*vec.Vector{dyn, fixed} {
		got, err := CastVector(env, v, v.Len(), types.Float64T, false)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < v.Len(); i++ {
			want := vec.New(types.Float64T, 1)
			if v.IsNull(i) {
				want.AppendNull()
			} else if err := castOne(env, v, i, want, false); err != nil {
				t.Fatal(err)
			}
			if got.IsNull(i) != want.IsNull(0) || !got.IsNull(i) && math.Float64bits(got.F64[i]) != math.Float64bits(want.F64[0]) {
				t.Errorf("%s row %d: got %s, want %s", v.Type, i, show(got, v.Len()), show(want, 1))
			}
		}
	}
}
