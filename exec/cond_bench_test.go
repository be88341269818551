package exec

import (
	"math/rand"
	"testing"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// condRows is the benchmark's input: 1M rows in 2048-row batches of x, y
// (bigint, x in [-1000, 1000) but never 0, y in [1, 100]) and z (bigint,
// 10 % NULL): no row raises, so the figures compare with evaluating every
// branch on every row.
const condRows = 1 << 20

func condBatches() []*vec.Batch {
	r := rand.New(rand.NewSource(1))
	var out []*vec.Batch
	for done := 0; done < condRows; done += vec.BatchSize {
		x, y, z := vec.New(types.Int64T, vec.BatchSize), vec.New(types.Int64T, vec.BatchSize), vec.New(types.Int64T, vec.BatchSize)
		for i := 0; i < vec.BatchSize; i++ {
			xi := r.Int63n(2000) - 1000
			if xi == 0 {
				xi = 1
			}
			x.AppendInt(xi)
			y.AppendInt(r.Int63n(100) + 1)
			if r.Intn(10) == 0 {
				z.AppendNull()
			} else {
				z.AppendInt(r.Int63n(100))
			}
		}
		out = append(out, &vec.Batch{Vecs: []*vec.Vector{x, y, z}, N: vec.BatchSize})
	}
	return out
}

func i64Const(x int64) *Const {
	v := vec.New(types.Int64T, 1)
	v.AppendInt(x)
	return NewConst(v)
}

// BenchmarkCase evaluates conditional expressions over 1M rows and reports
// ns/row: branches that may raise (arithmetic, evaluated only on the rows
// that take them), branches that cannot, one branch taken by every row,
// COALESCE and AND.
func BenchmarkCase(b *testing.B) {
	batches := condBatches()
	x, y, z := &ColRef{0, types.Int64T}, &ColRef{1, types.Int64T}, &ColRef{2, types.Int64T}
	arith := func(op ArithOp, l, r Expr) Expr { return &Arith{Op: op, L: l, R: r, T: types.Int64T} }
	cases := []struct {
		name string
		e    func() Expr
	}{
		{"arith-2-branches", func() Expr { // CASE WHEN x > 0 THEN x * 2 ELSE y - x END
			return &Case{When: []Expr{&Cmp{Op: GT, L: x, R: i64Const(0)}}, Then: []Expr{arith('*', x, i64Const(2))}, Else: arith('-', y, x), T: types.Int64T}
		}},
		{"guarded-division", func() Expr { // CASE WHEN x > 0 THEN y / x ELSE NULL END
			return &Case{When: []Expr{&Cmp{Op: GT, L: x, R: i64Const(0)}}, Then: []Expr{arith('/', y, x)}, Else: NullConst(types.Int64T), T: types.Int64T}
		}},
		{"columns-3-branches", func() Expr { // CASE WHEN x > 500 THEN x WHEN x > 0 THEN y ELSE z END
			return &Case{When: []Expr{&Cmp{Op: GT, L: x, R: i64Const(500)}, &Cmp{Op: GT, L: x, R: i64Const(0)}}, Then: []Expr{x, y}, Else: z, T: types.Int64T}
		}},
		{"one-branch-taken", func() Expr { // CASE WHEN y > 0 THEN x * 2 ELSE y - x END
			return &Case{When: []Expr{&Cmp{Op: GT, L: y, R: i64Const(0)}}, Then: []Expr{arith('*', x, i64Const(2))}, Else: arith('-', y, x), T: types.Int64T}
		}},
		{"coalesce", func() Expr { // coalesce(z, x + 1)
			return &Coalesce{Args: []Expr{z, arith('+', x, i64Const(1))}, T: types.Int64T}
		}},
		{"and-comparisons", func() Expr { // x > 0 AND y > 50 AND z IS NOT NULL
			return &Logic{And: true, Args: []Expr{&Cmp{Op: GT, L: x, R: i64Const(0)}, &Cmp{Op: GT, L: y, R: i64Const(50)}, &IsNull{E: z, Not: true}}}
		}},
		{"or-comparisons", func() Expr { // x > 500 OR y < 10 OR z = 7
			return &Logic{Args: []Expr{&Cmp{Op: GT, L: x, R: i64Const(500)}, &Cmp{Op: LT, L: y, R: i64Const(10)}, &Cmp{Op: EQ, L: z, R: i64Const(7)}}}
		}},
		{"and", func() Expr { // x > 0 AND y / x > 0
			return &Logic{And: true, Args: []Expr{&Cmp{Op: GT, L: x, R: i64Const(0)}, &Cmp{Op: GT, L: arith('/', y, x), R: i64Const(0)}}}
		}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			e := c.e()
			b.ReportAllocs()
			for b.Loop() {
				for _, bt := range batches {
					if _, err := e.Eval(env, bt); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/condRows, "ns/row")
		})
	}
}
