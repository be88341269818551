package exec

import (
	"math/big"
	"testing"
	"time"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

var env = &Env{Loc: time.UTC, Now: time.Now()}

func batch(vs ...*vec.Vector) *vec.Batch { return &vec.Batch{Vecs: vs, N: vs[0].Len()} }

func TestIntegerOverflowAndDivision(t *testing.T) {
	b := batch(ints(types.Int32T, 2147483647, 10), ints(types.Int32T, 1, 0))
	_, err := (&Arith{Op: '+', L: &ColRef{0, types.Int32T}, R: &ColRef{1, types.Int32T}, T: types.Int32T}).Eval(env, batch(ints(types.Int32T, 2147483647), ints(types.Int32T, 1)))
	if pgerr.Code(err) != pgerr.NumericValueOutOfRange {
		t.Errorf("int4 overflow: %v", err)
	}
	_, err = (&Arith{Op: '/', L: &ColRef{0, types.Int32T}, R: &ColRef{1, types.Int32T}, T: types.Int32T}).Eval(env, b)
	if pgerr.Code(err) != pgerr.DivisionByZero {
		t.Errorf("division by zero: %v", err)
	}
	v, err := (&Arith{Op: '/', L: &ColRef{0, types.Int32T}, R: &ColRef{1, types.Int32T}, T: types.Int32T}).Eval(env, batch(ints(types.Int32T, 7, -7), ints(types.Int32T, 2, 2)))
	if err != nil || v.I64[0] != 3 || v.I64[1] != -3 {
		t.Errorf("integer division truncates: %v %v", v.I64, err)
	}
}

func TestDivScaleLikePostgres(t *testing.T) {
	cases := []struct {
		x, y int64
		want string
	}{{3, 2, "1.5000000000000000"}, {350, 2, "175.0000000000000000"}, {123456, 1, "123456.000000000000"}, {1, 3, "0.33333333333333333333"}, {2, 3, "0.66666666666666666667"}}
	for _, c := range cases {
		q, s, err := DecimalArith('/', big.NewInt(c.x), 0, big.NewInt(c.y), 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := types.FormatBig(q, s); got != c.want {
			t.Errorf("%d/%d = %s, want %s", c.x, c.y, got, c.want)
		}
	}
}

func TestLike(t *testing.T) {
	s := texts("alice", "bob", "Al%")
	res, err := (&Like{E: &ColRef{0, types.TextT}, Pattern: NewConst(texts("al%"))}).Eval(env, batch(s))
	if err != nil || !res.B[0] || res.B[1] || res.B[2] {
		t.Errorf("LIKE: %v %v", res.B, err)
	}
	res, _ = (&Like{E: &ColRef{0, types.TextT}, Pattern: NewConst(texts("AL%")), Fold: true}).Eval(env, batch(s))
	if !res.B[0] || !res.B[2] {
		t.Errorf("ILIKE: %v", res.B)
	}
}

func TestThreeValuedLogic(t *testing.T) {
	tr, fa, nu := vec.New(types.BoolT, 1), vec.New(types.BoolT, 1), vec.New(types.BoolT, 1)
	tr.AppendBool(true)
	fa.AppendBool(false)
	nu.AppendNull()
	eval := func(and bool, a, b *vec.Vector) string {
		v, _ := (&Logic{And: and, Args: []Expr{NewConst(a), NewConst(b)}}).Eval(env, &vec.Batch{N: 1})
		if v.IsNull(0) {
			return "null"
		}
		if v.B[0] {
			return "true"
		}
		return "false"
	}
	if eval(true, nu, fa) != "false" || eval(true, nu, tr) != "null" || eval(false, nu, tr) != "true" || eval(false, nu, fa) != "null" {
		t.Error("three-valued logic is wrong")
	}
}

func TestCasts(t *testing.T) {
	v, err := CastVector(env, texts("12", "x"), 1, types.Int32T, false)
	if err != nil || v.I64[0] != 12 {
		t.Fatalf("text->int: %v", err)
	}
	if _, err := CastVector(env, texts("x"), 1, types.Int32T, false); pgerr.Code(err) != pgerr.InvalidTextRepr {
		t.Errorf("bad int literal: %v", err)
	}
	if _, err := CastVector(env, ints(types.Int64T, 1<<40), 1, types.Int32T, false); pgerr.Code(err) != pgerr.NumericValueOutOfRange {
		t.Errorf("int8->int4 overflow: %v", err)
	}
	vc := types.VarcharT
	vc.Width = 3
	if _, err := CastVector(env, texts("abcd"), 1, vc, true); pgerr.Code(err) != pgerr.StringDataRightTrunc {
		t.Errorf("varchar(3) assignment: %v", err)
	}
	if v, _ := CastVector(env, texts("abcd"), 1, vc, false); v.S[0] != "abc" {
		t.Errorf("varchar(3) explicit cast truncates: %q", v.S[0])
	}
	// numeric to float reads the numeric's text, as PostgreSQL does
	fixed := vec.New(types.NumericT(10, 2), 2)
	fixed.AppendInt(-550)
	fixed.AppendInt(12345678)
	free := vec.New(types.NumericAnyT, 3)
	free.AppendString("5.5000000000000000")
	free.AppendString("1e3")
	free.AppendString(" 0.1 ")
	for _, c := range []struct {
		in   *vec.Vector
		to   types.T
		want []float64
	}{
		{fixed, types.Float64T, []float64{-5.5, 123456.78}},
		{free, types.Float64T, []float64{5.5, 1000, 0.1}},
		{free, types.Float32T, []float64{5.5, 1000, float64(float32(0.1))}},
	} {
		got, err := CastVector(env, c.in, len(c.want), c.to, false)
		if err != nil {
			t.Fatalf("numeric -> %s: %v", c.to, err)
		}
		for i, w := range c.want {
			if got.F64[i] != w {
				t.Errorf("numeric %d -> %s = %v, want %v", i, c.to, got.F64[i], w)
			}
		}
	}
	huge := vec.New(types.NumericAnyT, 1)
	huge.AppendString("1e400")
	if _, err := CastVector(env, huge, 1, types.Float64T, false); pgerr.Code(err) != pgerr.NumericValueOutOfRange {
		t.Errorf("1e400::numeric::float8: %v, want 22003", err)
	}
	f := vec.New(types.Float64T, 1)
	f.AppendFloat(2.5)
	if v, _ := CastVector(env, f, 1, types.Int32T, false); v.I64[0] != 2 {
		t.Errorf("2.5::int = %d, want 2 (round half even)", v.I64[0])
	}
}

func TestLikeLiteralMatcherAgreesWithRegexp(t *testing.T) {
	pats := []string{"%", "", "a", "a%", "%a", "%a%", "a%b", "%special%requests%", "ab%cd%ef", "%x%x%", "abc", "a%a", "%%", "a%%b"}
	strs := []string{"", "a", "b", "ab", "ba", "aab", "special requests", "a special x requests b", "abXcdYef", "abcdef", "xx", "x", "aba", "abc", "abcd", "aa"}
	for _, p := range pats {
		lit, ok := likeLiterals(p)
		if !ok {
			t.Fatalf("%q should be literal", p)
		}
		re, _ := likeRegexp(p, false)
		for _, s := range strs {
			if got, want := lit.match(s), re.MatchString(s); got != want {
				t.Errorf("%q LIKE %q: literal matcher %v, regexp %v", s, p, got, want)
			}
		}
	}
}

func TestCompareNumericText(t *testing.T) {
	free := vec.New(types.NumericAnyT, 0)
	for _, s := range []string{"523.1250000000000000", "523.125", "-0.000", "0", "100.00", "100", "1e2", "NaN", "99999999999999999999.5", "0.000000000000000000001", " 1.5", "-5.25", "-0.5", "0.0", "-1e-2", "+7", "0e5", "-00.10"} {
		free.AppendString(s)
	}
	fixed := vec.New(types.NumericT(10, 2), 0)
	fixed.AppendInt(52313) // 523.13
	fixed.AppendInt(10000) // 100.00
	fixed.AppendInt(0)
	fixed.AppendInt(-1)
	// every comparison agrees with the exact one on big integers
	exact := func(l *vec.Vector, i int, r *vec.Vector, j int) int {
		ln, rn := NumericIsNaN(l, i), NumericIsNaN(r, j)
		switch {
		case ln && rn:
			return 0
		case ln:
			return 1
		case rn:
			return -1
		}
		x, xs := NumericValue(l, i)
		y, ys := NumericValue(r, j)
		s := max(xs, ys)
		return types.RescaleBig(x, xs, s).Cmp(types.RescaleBig(y, ys, s))
	}
	vs := []*vec.Vector{free, fixed}
	for _, l := range vs {
		for _, r := range vs {
			for i := 0; i < len(l.I64)+len(l.S); i++ {
				for j := 0; j < len(r.I64)+len(r.S); j++ {
					if got, want := CompareNumeric(l, i, r, j), exact(l, i, r, j); got != want {
						t.Errorf("CompareNumeric(%s row %d, %s row %d) = %d, want %d", l.Type, i, r.Type, j, got, want)
					}
				}
			}
		}
	}
}
