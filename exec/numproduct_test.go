package exec

import (
	"math"
	"math/big"
	"math/rand"
	"testing"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// TestAppendScaledLikeFormatScaled checks the batch printer against
// types.FormatScaled on edges and random values at every scale.
func TestAppendScaledLikeFormatScaled(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	vals := []int64{0, 1, -1, 5, -5, 9, 10, -10, 99, 100, -100, 12345, -12345,
		math.MaxInt64, math.MinInt64, math.MinInt64 + 1, 1e18, -1e18}
	for range 2000 {
		vals = append(vals, rng.Int63n(1<<uint(rng.Intn(62)+1))*int64(1-2*rng.Intn(2)))
	}
	for _, x := range vals {
		for sc := 0; sc <= 20; sc++ {
			if got, want := string(AppendScaled([]byte("p"), x, sc)), "p"+types.FormatScaled(x, sc); got != want {
				t.Fatalf("appendScaled(%d, %d) = %q, want %q", x, sc, got, want)
			}
		}
	}
}

// TestUnconstrainedProductOfFixedScale evaluates bigint × numeric(7,2)
// (an unconstrained numeric result) over batches mixing NULLs, products
// that fit int64 and products that overflow it, and checks every value
// against exact arithmetic, also after the next batch reused the scratch.
func TestUnconstrainedProductOfFixedScale(t *testing.T) {
	price := types.NumericT(7, 2)
	l, r := &ColRef{Idx: 0, T: types.Int64T}, &ColRef{Idx: 1, T: price}
	a := &Arith{Op: '*', L: l, R: r, T: types.NumericAnyT}
	rng := rand.New(rand.NewSource(3))
	var kept []*vec.Vector
	var wants [][]string
	for batch := range 5 {
		n := 1 + rng.Intn(300)
		if batch == 0 {
			n = 1
		}
		lv, rv := vec.New(types.Int64T, n), vec.New(price, n)
		want := make([]string, n)
		for i := range n {
			x, y := rng.Int63n(200)-100, rng.Int63n(2000000)-1000000
			switch rng.Intn(6) {
			case 0:
				lv.AppendNull()
				rv.AppendInt(y)
				want[i] = "NULL"
				continue
			case 1:
				x = math.MaxInt64 - rng.Int63n(1000) // overflows int64 unless y is 0, ±1
			case 2:
				y = 0
			}
			lv.AppendInt(x)
			rv.AppendInt(y)
			want[i] = types.FormatBig(new(big.Int).Mul(big.NewInt(x), big.NewInt(y)), 2)
		}
		b := &vec.Batch{Vecs: []*vec.Vector{lv, rv}, N: n}
		out, err := a.Eval(nil, b)
		if err != nil {
			t.Fatal(err)
		}
		// keep a copy of the vector header: the next Eval reuses a's output
		kept = append(kept, &vec.Vector{Type: out.Type, S: append([]string{}, out.S...), Nulls: append([]bool{}, out.Nulls...)})
		wants = append(wants, want)
	}
	for k, v := range kept {
		for i, w := range wants[k] {
			got := "NULL"
			if !v.IsNull(i) {
				got = v.S[i]
			}
			if got != w {
				t.Fatalf("batch %d row %d: %s, want %s", k, i, got, w)
			}
		}
	}
}
