package fn

import (
	"math"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
)

// The trigonometric functions of double precision (PostgreSQL's dsin and
// friends): NaN in gives NaN out; an argument outside the function's domain
// (infinity for sin, |x| > 1 for asin) is 22003 "input is out of range".
func init() {
	unary := map[string]func(float64) (float64, bool){
		"sin":  func(x float64) (float64, bool) { return math.Sin(x), !math.IsInf(x, 0) },
		"cos":  func(x float64) (float64, bool) { return math.Cos(x), !math.IsInf(x, 0) },
		"tan":  func(x float64) (float64, bool) { return math.Tan(x), !math.IsInf(x, 0) },
		"cot":  func(x float64) (float64, bool) { return 1 / math.Tan(x), !math.IsInf(x, 0) },
		"asin": func(x float64) (float64, bool) { return math.Asin(x), math.IsNaN(x) || x >= -1 && x <= 1 },
		"acos": func(x float64) (float64, bool) { return math.Acos(x), math.IsNaN(x) || x >= -1 && x <= 1 },
		"atan": func(x float64) (float64, bool) { return math.Atan(x), true },
		"sinh": func(x float64) (float64, bool) { return math.Sinh(x), true },
		"cosh": func(x float64) (float64, bool) { return math.Cosh(x), true },
		"tanh": func(x float64) (float64, bool) { return math.Tanh(x), true },
	}
	for name, f := range unary {
		reg(name, strict(trigKernel(f), float8T, float8T))
	}
	reg("atan2", strict(kAtan2, float8T, float8T, float8T))
}

var errTrigRange = pgerr.New(pgerr.NumericValueOutOfRange, "input is out of range")

func trigKernel(f func(float64) (float64, bool)) Kernel {
	return func(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
		src := a[0].F64[:n]
		dst := outF64(out, n)
		nl := out.Nulls
		for i, x := range src {
			r, ok := f(x)
			if !ok && !isNull(nl, i) {
				return errTrigRange
			}
			dst[i] = r
		}
		return nil
	}
}

func kAtan2(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	y, x := a[0].F64[:n], a[1].F64[:n]
	dst := outF64(out, n)
	for i := range dst {
		dst[i] = math.Atan2(y[i], x[i])
	}
	return nil
}
