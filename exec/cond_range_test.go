package exec

import (
	"math"
	"testing"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// An AND of two comparisons of one integer column with constants (BETWEEN)
// gives what the two comparisons and their merge give, NULLs included.
func TestLogicConstRange(t *testing.T) {
	batches := condBatches() // z: 10 % NULL
	x, z := &ColRef{0, types.Int64T}, &ColRef{2, types.Int64T}
	cmp := func(op CmpOp, c *ColRef, k int64) Expr { return &Cmp{Op: op, L: c, R: i64Const(k)} }
	bounds := [][2]int64{{-10, 10}, {5, 4}, {math.MinInt64, 0}, {0, math.MaxInt64}, {math.MinInt64, math.MaxInt64}, {50, 50}, {-1000, -999}}
	ops := [][2]CmpOp{{GE, LE}, {GT, LT}, {GE, LT}, {LE, GE}}
	for _, bd := range bounds {
		for _, op := range ops {
			for _, c := range []*ColRef{x, z} {
				fused := &Logic{And: true, Args: []Expr{cmp(op[0], c, bd[0]), cmp(op[1], c, bd[1])}}
				plain := &Logic{And: true, Args: []Expr{cmp(op[0], c, bd[0]), cmp(op[1], c, bd[1])}, rngKnown: true}
				for _, b := range batches[:8] {
					got, err := fused.Eval(nil, b)
					if err != nil {
						t.Fatal(err)
					}
					if fused.rng == nil {
						t.Fatalf("%v %v: not evaluated as a range", op, bd)
					}
					want, err := plain.Eval(nil, b)
					if err != nil {
						t.Fatal(err)
					}
					for i := 0; i < b.N; i++ {
						if got.IsNull(i) != want.IsNull(i) || (!got.IsNull(i) && got.B[i] != want.B[i]) {
							t.Fatalf("col %d %v %v row %d: got %v/%v, want %v/%v", c.Idx, op, bd, i, got.B[i], got.IsNull(i), want.B[i], want.IsNull(i))
						}
					}
				}
			}
		}
	}
	// another column on one side, or another type of constant: not a range
	y := &ColRef{1, types.Int64T}
	if r := rangeOf([]Expr{cmp(GE, x, 1), cmp(LE, y, 5)}); r != nil {
		t.Error("two columns taken as one range")
	}
	d := vec.New(types.Int32T, 1)
	d.AppendInt(3)
	if r := rangeOf([]Expr{cmp(GE, x, 1), &Cmp{Op: LE, L: x, R: NewConst(d)}}); r != nil {
		t.Error("a constant of another type taken as a range bound")
	}
}
