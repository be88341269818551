package exec

import (
	"math"
	"math/big"
	"math/bits"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// TestWeightAndFirst64 checks the arithmetic weightAndFirst64 against the
// digits' text at every power of ten, its neighbours and random values.
func TestWeightAndFirst64(t *testing.T) {
	var us []uint64
	for _, p := range pow10u64 {
		us = append(us, p-1, p, p+1, p*2, p*9+p-1)
	}
	us = append(us, math.MaxUint64, math.MaxUint64-1, 1<<63, 1<<53, 1<<53+1)
	r := rand.New(rand.NewPCG(1, 2))
	for range 5000 {
		us = append(us, r.Uint64()>>r.IntN(64))
	}
	for _, u := range us {
		if u == 0 {
			continue
		}
		s := strconv.FormatUint(u, 10)
		if got := decDigits64(u); got != len(s) {
			t.Fatalf("decDigits64(%d) = %d, want %d", u, got, len(s))
		}
		for scale := 0; scale <= 40; scale++ {
			w, f := weightAndFirst64(u, scale)
			ww, wf := weightAndFirstDigits([]byte(s), scale)
			if w != ww || f != wf {
				t.Fatalf("weightAndFirst64(%d, %d) = %d, %d, want %d, %d", u, scale, w, f, ww, wf)
			}
		}
	}
}

// TestAppendU128 checks appendU128 against math/big for values of every
// length, including chunks with leading zeros.
func TestAppendU128(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	check := func(hi, lo uint64) {
		t.Helper()
		want := new(big.Int).Lsh(new(big.Int).SetUint64(hi), 64)
		want.Or(want, new(big.Int).SetUint64(lo))
		if got := string(appendU128([]byte("x"), hi, lo)); got != "x"+want.String() {
			t.Fatalf("appendU128(%d, %d) = %s, want x%s", hi, lo, got, want)
		}
	}
	check(0, 0)
	check(0, math.MaxUint64)
	check(math.MaxUint64, math.MaxUint64)
	check(1, 0)
	for range 20000 {
		check(r.Uint64()>>r.IntN(64), r.Uint64()>>r.IntN(64))
	}
	// 10^19·k + small: the low chunk is mostly zeros
	for k := uint64(1); k < 1000; k++ {
		hi, lo := bits.Mul64(k, 1e19)
		lo += k
		check(hi, lo)
	}
}

// TestTimesOneMatchesExactProduct: x · 1.000 printed from x's text, as the
// exact product prints it, in either operand order; texts that are not
// canonical and factors other than one take exact arithmetic.
func TestTimesOneMatchesExactProduct(t *testing.T) {
	texts := []string{"289.1234567890123", "0", "0.000", "-5.25", "-0.5", "12", "-7", "99999999999999999999999.5",
		"1e3", " 1.5", "-0.000", "00.5", "5.", ".5", "+3", "NaN", "Infinity", "-Infinity"}
	for scale := 0; scale <= 4; scale++ {
		for _, factor := range []int64{types.Pow10(scale), 2 * types.Pow10(scale), -types.Pow10(scale), 0} {
			l := vec.New(types.NumericAnyT, 0)
			r := vec.New(types.NumericT(10, scale), 0)
			for _, s := range texts {
				l.AppendString(s)
				r.AppendInt(factor)
			}
			l.AppendNull()
			r.AppendInt(factor)
			for _, swap := range []bool{false, true} {
				a := &Arith{Op: '*', L: col(0, l.Type), R: col(1, r.Type), T: types.NumericAnyT}
				b := batch(l, r)
				if swap {
					a.L, a.R = col(1, r.Type), col(0, l.Type)
				}
				got, err := a.Eval(env, b)
				if err != nil {
					t.Fatalf("%v", err)
				}
				for i, s := range texts {
					var want string
					switch k := types.NumericSpecial(s); {
					case k != 0:
						continue // NaN and the infinities: specialArith, before timesOne
					default:
						x, sx, err := types.ParseDecimal(s)
						if err != nil {
							t.Fatalf("%q: %v", s, err)
						}
						z, sz, _ := DecimalArith('*', x, sx, big.NewInt(factor), scale)
						want = types.FormatBig(z, sz)
					}
					if got.S[i] != want {
						t.Errorf("%q · %d at scale %d (swap %v) = %q, want %q", s, factor, scale, swap, got.S[i], want)
					}
				}
				for i, s := range texts[:8] {
					// the canonical ones: printed without arithmetic
					if _, _, ok := timesOne(l, r, i); ok != (factor == types.Pow10(scale)) {
						t.Errorf("timesOne(%q, %d at scale %d) ok = %v", s, factor, scale, ok)
					}
				}
				for i := 8; i < len(texts); i++ {
					if _, _, ok := timesOne(l, r, i); ok {
						t.Errorf("timesOne(%q) took a text that is not canonical", texts[i])
					}
				}
				if !got.IsNull(len(texts)) {
					t.Errorf("NULL · 1 is not NULL")
				}
			}
		}
	}
}
