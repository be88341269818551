package exec

import (
	"testing"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// TestNumericVsConstantMatchesExactComparison: a numeric(15,2) column
// compared with an unconstrained numeric constant (reduced once to an
// integer bound) gives what the exact per-row comparison gives, for every
// operator, on both sides, with constants between, on and far beyond the
// column's values.
func TestNumericVsConstantMatchesExactComparison(t *testing.T) {
	col := types.NumericT(15, 2)
	xs := []int64{-100000, -1001, -1000, -999, -1, 0, 1, 999, 1000, 1001, 123456, 999999999999999}
	x := vec.New(col, len(xs))
	for _, v := range xs {
		x.AppendInt(v)
	}
	x.AppendNull()
	b := &vec.Batch{Vecs: []*vec.Vector{x}, N: x.Len()}
	consts := []string{"0", "10", "10.000", "9.995", "-9.995", "-10", "10.01", "-10.01", "4998.123456789012345678",
		"0.001", "-0.001", "1e30", "-1e30", "99999999999999999999.5", "1234.56"}
	for _, k := range consts {
		kv := vec.New(types.NumericT(-1, -1), 1)
		kv.AppendString(k)
		if !kv.Type.DynNumeric() {
			t.Fatalf("constant type %v is not unconstrained numeric", kv.Type)
		}
		for _, op := range []CmpOp{EQ, NE, LT, LE, GT, GE} {
			for _, constLeft := range []bool{false, true} {
				c := &Cmp{Op: op, L: &ColRef{Idx: 0, T: col}, R: NewConst(kv)}
				if constLeft {
					c = &Cmp{Op: op, L: NewConst(kv), R: &ColRef{Idx: 0, T: col}}
				}
				got, err := c.Eval(&Env{}, b)
				if err != nil {
					t.Fatal(err)
				}
				if c.nc == nil {
					t.Fatalf("%s %v: the constant was not reduced", k, op)
				}
				for i := 0; i < b.N; i++ {
					if x.IsNull(i) {
						if !got.IsNull(i) {
							t.Errorf("NULL %v %s is not NULL", op, k)
						}
						continue
					}
					want := CompareNumeric(x, i, kv, 0)
					if constLeft {
						want = -want
					}
					if got.IsNull(i) || got.B[i] != cmpResult(op, want) {
						t.Errorf("%d (scale 2) %v %s (const left %v): got %v", xs[i], op, k, constLeft, got.B[i])
					}
				}
			}
		}
	}
}
