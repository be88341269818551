package fn

import (
	"cmp"
	"math"
	"math/big"
	"math/rand/v2"
	"strings"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

var (
	int2T    = types.Int16T
	float4T  = types.Float32T
	float8T  = types.Float64T
	numericT = types.NumericAnyT
)

// sameScale keeps a numeric argument's scale but drops its precision, as
// PostgreSQL's numeric functions return unconstrained numeric.
func sameScale(a []types.T) types.T { return types.T{ID: types.Numeric, Scale: a[0].Scale} }

// scaleZero is numeric scale 0 for fixed-scale input, dynamic otherwise
// (a dynamic numeric can hold more digits than an int64).
func scaleZero(a []types.T) types.T {
	if a[0].Scale < 0 {
		return numericT
	}
	return types.T{ID: types.Numeric, Scale: 0}
}

func init() {
	for _, t := range []types.T{int2T, int4T, int8T} {
		reg("abs", strict(kAbsInt, t, t))
		regPrefix("@", strict(kAbsInt, t, t))
	}
	for _, t := range []types.T{float4T, float8T} {
		reg("abs", strict(kAbsFloat, t, t))
		regPrefix("@", strict(kAbsFloat, t, t))
	}
	reg("abs", &Overload{Args: []types.T{numericT}, Ret: sameScale, Strict: true, Kernel: kAbsNumeric})
	regPrefix("@", &Overload{Args: []types.T{numericT}, Ret: sameScale, Strict: true, Kernel: kAbsNumeric})

	reg("sign", strict(floatKernel(fopSign), float8T, float8T))
	// sign of an unconstrained numeric may be NaN, which scale 0 cannot hold
	reg("sign", &Overload{Args: []types.T{numericT}, Ret: func(args []types.T) types.T {
		if args[0].DynNumeric() {
			return numericT
		}
		return types.T{ID: types.Numeric, Scale: 0}
	}, Strict: true, Kernel: kSignNumeric})

	reg("round", strict(floatKernel(fopRound), float8T, float8T))
	reg("round", &Overload{Args: []types.T{numericT}, Ret: scaleZero, Strict: true, Kernel: roundKernel(false)})
	reg("round", &Overload{Args: []types.T{numericT, int4T}, Ret: ret(numericT), RetConst: roundRetConst, Strict: true, Kernel: roundKernel(false)})
	reg("trunc", strict(floatKernel(fopTrunc), float8T, float8T))
	reg("trunc", &Overload{Args: []types.T{numericT}, Ret: scaleZero, Strict: true, Kernel: roundKernel(true)})
	reg("trunc", &Overload{Args: []types.T{numericT, int4T}, Ret: ret(numericT), RetConst: roundRetConst, Strict: true, Kernel: roundKernel(true)})
	for _, name := range []string{"ceil", "ceiling"} {
		reg(name, strict(floatKernel(fopCeil), float8T, float8T))
		reg(name, &Overload{Args: []types.T{numericT}, Ret: scaleZero, Strict: true, Kernel: ceilFloorKernel(true)})
	}
	reg("floor", strict(floatKernel(fopFloor), float8T, float8T))
	reg("floor", &Overload{Args: []types.T{numericT}, Ret: scaleZero, Strict: true, Kernel: ceilFloorKernel(false)})

	for _, t := range []types.T{int2T, int4T, int8T} {
		reg("mod", strict(kModInt, t, t, t))
	}
	reg("mod", &Overload{Args: []types.T{numericT, numericT}, Ret: modRet, Strict: true, Kernel: kModNumeric})
	reg("div", &Overload{Args: []types.T{numericT, numericT}, Ret: ret(numericT), Strict: true, Kernel: kDivNumeric})
	for _, t := range []types.T{int4T, int8T} {
		reg("gcd", strict(gcdKernel(false), t, t, t))
		reg("lcm", strict(gcdKernel(true), t, t, t))
	}

	for _, name := range []string{"power", "pow"} {
		reg(name, strict(kPowFloat, float8T, float8T, float8T))
		reg(name, strict(kPowNumeric, numericT, numericT, numericT))
	}
	regOp("^", strict(kPowFloat, float8T, float8T, float8T))
	regOp("^", strict(kPowNumeric, numericT, numericT, numericT))

	reg("sqrt", strict(kSqrtFloat, float8T, float8T))
	reg("sqrt", strict(decUnary(decSqrt), numericT, numericT))
	regPrefix("|/", strict(kSqrtFloat, float8T, float8T))
	reg("cbrt", strict(floatKernel(fopCbrt), float8T, float8T))
	regPrefix("||/", strict(floatKernel(fopCbrt), float8T, float8T))
	reg("exp", strict(kExpFloat, float8T, float8T))
	reg("exp", strict(decUnary(decExp), numericT, numericT))
	reg("ln", strict(logKernel(false), float8T, float8T))
	reg("ln", strict(decUnary(decLn), numericT, numericT))
	for _, name := range []string{"log", "log10"} {
		reg(name, strict(logKernel(true), float8T, float8T))
		reg(name, strict(decUnary(decLog10), numericT, numericT))
	}
	reg("log", strict(kLogNumeric, numericT, numericT, numericT))
	reg("pi", &Overload{Ret: ret(float8T), Kernel: kPi})
	reg("degrees", strict(floatKernel(fopDegrees), float8T, float8T))
	reg("radians", strict(floatKernel(fopRadians), float8T, float8T))
	reg("random", &Overload{Ret: ret(float8T), Volatile: true, Kernel: kRandom})
	reg("width_bucket", strict(kWidthBucketFloat, int4T, float8T, float8T, float8T, int4T))
	reg("width_bucket", strict(kWidthBucketNumeric, int4T, numericT, numericT, numericT, int4T))
	reg("scale", strict(kScale, int4T, numericT))
	reg("trim_scale", &Overload{Args: []types.T{numericT}, Ret: ret(numericT), Strict: true, Kernel: kTrimScale})
}

// radiansPerDegree is PostgreSQL's RADIANS_PER_DEGREE.
const radiansPerDegree = 0.0174532925199432957692

var (
	errOverflowF  = pgerr.New(pgerr.NumericValueOutOfRange, "value out of range: overflow")
	errUnderflowF = pgerr.New(pgerr.NumericValueOutOfRange, "value out of range: underflow")
)

func fSign(x float64) float64 {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}

// fop names an infallible float8 function; floatKernel has one loop per
// function so no row goes through a function value.
type fop uint8

const (
	fopSign fop = iota
	fopRound
	fopTrunc
	fopCeil
	fopFloor
	fopCbrt
	fopDegrees
	fopRadians
)

func floatKernel(op fop) Kernel {
	return func(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
		src := a[0].F64[:n]
		dst := outF64(out, n)[:len(src)]
		switch op {
		case fopSign:
			for i, x := range src {
				dst[i] = fSign(x)
			}
		case fopRound:
			for i, x := range src {
				dst[i] = math.RoundToEven(x) // rint: PostgreSQL rounds float halves to even
			}
		case fopTrunc:
			for i, x := range src {
				dst[i] = math.Trunc(x)
			}
		case fopCeil:
			for i, x := range src {
				dst[i] = math.Ceil(x)
			}
		case fopFloor:
			for i, x := range src {
				dst[i] = math.Floor(x)
			}
		case fopCbrt:
			for i, x := range src {
				dst[i] = math.Cbrt(x)
			}
		case fopDegrees:
			for i, x := range src {
				dst[i] = x / radiansPerDegree
			}
		case fopRadians:
			for i, x := range src {
				dst[i] = x * radiansPerDegree
			}
		}
		return nil
	}
}

func intOutOfRange(t types.T) error {
	return pgerr.New(pgerr.NumericValueOutOfRange, "%s out of range", t)
}

func intMin(t types.T) int64 {
	switch t.ID {
	case types.Int16:
		return math.MinInt16
	case types.Int32:
		return math.MinInt32
	}
	return math.MinInt64
}

func kAbsInt(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	src := a[0].I64[:n]
	dst := outI64(out, n)
	lo := intMin(a[0].Type)
	nl := out.Nulls
	for i, x := range src {
		if x < 0 {
			if x == lo && !isNull(nl, i) {
				return intOutOfRange(out.Type)
			}
			x = -x
		}
		dst[i] = x
	}
	return nil
}

func kAbsFloat(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	src := a[0].F64[:n]
	dst := outF64(out, n)
	for i, x := range src {
		dst[i] = math.Abs(x)
	}
	return nil
}

func kAbsNumeric(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	in := a[0]
	if in.Type.Scale >= 0 && out.Type.Scale == in.Type.Scale {
		src := in.I64[:n]
		dst := outI64(out, n)
		for i, x := range src {
			if x < 0 {
				x = -x
			}
			dst[i] = x
		}
		return nil
	}
	numOut(out, n)
	nl := out.Nulls
	for i := 0; i < n; i++ {
		if isNull(nl, i) {
			continue
		}
		if in.Type.Scale < 0 && out.Type.Scale < 0 && plainDecimal(in.S[i]) {
			// the text the big.Int path prints is the input's without its
			// sign: no parse and format per row (TPC-DS q47/q57's
			// ABS(sum_sales - avg_monthly_sales) over 50 k rows)
			out.S[i] = strings.TrimPrefix(in.S[i], "-")
			continue
		}
		d, s := decAt(in, i)
		if err := putDec(out, i, d.Abs(d), s); err != nil {
			return err
		}
	}
	return nil
}

func kSignNumeric(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	in := a[0]
	numOut(out, n)
	nl := out.Nulls
	for i := 0; i < n; i++ {
		if isNull(nl, i) {
			continue
		}
		var sg int64
		if in.Type.Scale >= 0 {
			x := in.I64[i]
			sg = int64(fSign(float64(x)))
		} else {
			d, _ := decAt(in, i)
			sg = int64(d.Sign())
		}
		if err := putDecI64(out, i, sg, 0); err != nil {
			return err
		}
	}
	return nil
}

// roundRetConst narrows round(x, k) / trunc(x, k) with a constant k to a
// fixed scale when x is fixed-scale and k does not widen it (so the value
// still fits an int64).
func roundRetConst(args []types.T, consts []*vec.Vector) types.T {
	if len(consts) < 2 || consts[1] == nil || consts[1].IsNull(0) || args[0].Scale < 0 {
		return numericT
	}
	k := int(consts[1].I64[0])
	if k > args[0].Scale {
		return numericT
	}
	return types.T{ID: types.Numeric, Scale: max(k, 0)}
}

// roundKernel is round/trunc(numeric[, k]) with result scale max(k, 0).
func roundKernel(trunc bool) Kernel {
	return func(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
		in := a[0]
		numOut(out, n)
		nl := out.Nulls
		for i := 0; i < n; i++ {
			if isNull(nl, i) {
				continue
			}
			k := int64(0)
			if len(a) > 1 {
				k = a[1].I64[i]
			}
			// PostgreSQL clamps the requested scale to the representable range
			k = min(max(k, -maxResultScale), maxResultScale)
			if s := in.Type.Scale; s >= 0 && s-int(k) <= 18 {
				x := in.I64[i]
				if int(k) >= s {
					// nothing to round; only the display scale grows
					if out.Type.Scale >= 0 {
						if err := putDecI64(out, i, x, s); err != nil {
							return err
						}
					} else {
						d, rs := roundDec(big.NewInt(x), s, int(k), trunc)
						out.S[i] = types.FormatBig(d, rs)
					}
					continue
				}
				m := types.Pow10(s - int(k))
				var q int64
				if trunc {
					q = x / m
				} else {
					q = roundHalfAway(x, m)
				}
				if k < 0 {
					p, ok := mul64(q, types.Pow10(int(-k)))
					if !ok {
						return errNumericOverflow
					}
					q = p
				}
				if err := putDecI64(out, i, q, int(max(k, 0))); err != nil {
					return err
				}
				continue
			}
			d, s := decAt(in, i)
			r, rs := roundDec(d, s, int(k), trunc)
			if err := putDec(out, i, r, rs); err != nil {
				return err
			}
		}
		return nil
	}
}

func ceilFloorKernel(ceil bool) Kernel {
	return func(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
		in := a[0]
		numOut(out, n)
		nl := out.Nulls
		for i := 0; i < n; i++ {
			if isNull(nl, i) {
				continue
			}
			if s := in.Type.Scale; s >= 0 && out.Type.Scale >= 0 {
				x, m := in.I64[i], types.Pow10(s)
				q := x / m
				if r := x % m; r != 0 {
					if ceil && x > 0 {
						q++
					} else if !ceil && x < 0 {
						q--
					}
				}
				out.I64[i] = q
				continue
			}
			d, s := decAt(in, i)
			q, r := new(big.Int).QuoRem(d, pow10Big(max(s, 0)), new(big.Int))
			if r.Sign() != 0 {
				if ceil && d.Sign() > 0 {
					q.Add(q, big.NewInt(1))
				} else if !ceil && d.Sign() < 0 {
					q.Sub(q, big.NewInt(1))
				}
			}
			if err := putDec(out, i, q, 0); err != nil {
				return err
			}
		}
		return nil
	}
}

func kModInt(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	x, y := a[0].I64[:n], a[1].I64[:n]
	dst := outI64(out, n)
	nl := out.Nulls
	for i := range dst {
		switch y[i] {
		case 0:
			if !isNull(nl, i) {
				return errDivByZero
			}
		case -1:
			dst[i] = 0 // avoids the MinInt64 % -1 trap; the answer is 0 anyway
		default:
			dst[i] = x[i] % y[i]
		}
	}
	return nil
}

func modRet(a []types.T) types.T {
	if a[0].Scale < 0 || a[1].Scale < 0 {
		return numericT
	}
	return types.T{ID: types.Numeric, Scale: max(a[0].Scale, a[1].Scale)}
}

func kModNumeric(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	numOut(out, n)
	nl := out.Nulls
	for i := 0; i < n; i++ {
		if isNull(nl, i) {
			continue
		}
		x, sx := decAt(a[0], i)
		y, sy := decAt(a[1], i)
		if y.Sign() == 0 {
			return errDivByZero
		}
		s := max(sx, sy)
		x, y = types.RescaleBig(x, sx, s), types.RescaleBig(y, sy, s)
		if err := putDec(out, i, new(big.Int).Rem(x, y), s); err != nil {
			return err
		}
	}
	return nil
}

func kDivNumeric(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	numOut(out, n)
	nl := out.Nulls
	for i := 0; i < n; i++ {
		if isNull(nl, i) {
			continue
		}
		x, sx := decAt(a[0], i)
		y, sy := decAt(a[1], i)
		if y.Sign() == 0 {
			return errDivByZero
		}
		s := max(sx, sy)
		x, y = types.RescaleBig(x, sx, s), types.RescaleBig(y, sy, s)
		if err := putDec(out, i, new(big.Int).Quo(x, y), 0); err != nil {
			return err
		}
	}
	return nil
}

func gcd64(a, b uint64) uint64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func abs64u(x int64) uint64 {
	if x < 0 {
		return uint64(-x) // MinInt64 wraps to 1<<63, which is its magnitude
	}
	return uint64(x)
}

func gcdKernel(lcm bool) Kernel {
	return func(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
		x, y := a[0].I64[:n], a[1].I64[:n]
		dst := outI64(out, n)
		nl := out.Nulls
		lo := intMin(a[0].Type)
		hi := uint64(-(lo + 1))
		for i := range dst {
			if isNull(nl, i) {
				continue
			}
			g := gcd64(abs64u(x[i]), abs64u(y[i]))
			if !lcm {
				if g > hi {
					return intOutOfRange(out.Type)
				}
				dst[i] = int64(g)
				continue
			}
			if x[i] == 0 || y[i] == 0 {
				dst[i] = 0
				continue
			}
			q := abs64u(x[i]) / g
			l := q * abs64u(y[i])
			if q != 0 && (l/q != abs64u(y[i]) || l > hi) {
				return intOutOfRange(out.Type)
			}
			dst[i] = int64(l)
		}
		return nil
	}
}

// powFloat is PostgreSQL's dpow with its POSIX special cases and errors.
func powFloat(x, y float64) (float64, error) {
	if math.IsNaN(x) {
		if math.IsNaN(y) || y != 0 {
			return math.NaN(), nil
		}
		return 1, nil
	}
	if math.IsNaN(y) {
		if x != 1 {
			return math.NaN(), nil
		}
		return 1, nil
	}
	if x == 0 && y < 0 {
		return 0, errZeroNegPow
	}
	if x < 0 && math.Floor(y) != y {
		return 0, errNegFracPow
	}
	if math.IsInf(y, 0) || math.IsInf(x, 0) {
		return math.Pow(x, y), nil
	}
	r := math.Pow(x, y)
	if math.IsInf(r, 0) {
		return 0, errOverflowF
	}
	if r == 0 && x != 0 {
		return 0, errUnderflowF
	}
	return r, nil
}

func kPowFloat(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	x, y := a[0].F64[:n], a[1].F64[:n]
	dst := outF64(out, n)
	nl := out.Nulls
	for i := range dst {
		if isNull(nl, i) {
			continue
		}
		r, err := powFloat(x[i], y[i])
		if err != nil {
			return err
		}
		dst[i] = r
	}
	return nil
}

func kPowNumeric(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	numOut(out, n)
	nl := out.Nulls
	for i := 0; i < n; i++ {
		if isNull(nl, i) {
			continue
		}
		b, bs := decAt(a[0], i)
		e, es := decAt(a[1], i)
		r, rs, err := decPow(b, bs, e, es)
		if err != nil {
			return err
		}
		if err := putDec(out, i, r, rs); err != nil {
			return err
		}
	}
	return nil
}

func kSqrtFloat(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	src := a[0].F64[:n]
	dst := outF64(out, n)
	nl := out.Nulls
	for i, x := range src {
		if x < 0 && !isNull(nl, i) {
			return errSqrtNeg
		}
		dst[i] = math.Sqrt(x)
	}
	return nil
}

func kExpFloat(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	src := a[0].F64[:n]
	dst := outF64(out, n)
	nl := out.Nulls
	for i, x := range src {
		switch {
		case math.IsNaN(x):
			dst[i] = x
		case math.IsInf(x, 1):
			dst[i] = x
		case math.IsInf(x, -1):
			dst[i] = 0
		default:
			r := math.Exp(x)
			if !isNull(nl, i) {
				if math.IsInf(r, 0) {
					return errOverflowF
				}
				if r == 0 {
					return errUnderflowF
				}
			}
			dst[i] = r
		}
	}
	return nil
}

// logKernel is ln (base10 false) or log10 over float8.
func logKernel(base10 bool) Kernel {
	return func(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
		src := a[0].F64[:n]
		dst := outF64(out, n)[:len(src)]
		nl := out.Nulls
		for i, x := range src {
			if x <= 0 && !isNull(nl, i) {
				if x == 0 {
					return errLogZero
				}
				return errLogNeg
			}
			if base10 {
				dst[i] = math.Log10(x)
			} else {
				dst[i] = math.Log(x)
			}
		}
		return nil
	}
}

// decUnary applies a numeric function with its own result scale.
func decUnary(f func(*big.Int, int) (*big.Int, int, error)) Kernel {
	return func(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
		numOut(out, n)
		nl := out.Nulls
		for i := 0; i < n; i++ {
			if isNull(nl, i) {
				continue
			}
			d, s := decAt(a[0], i)
			r, rs, err := f(d, s)
			if err != nil {
				return err
			}
			if err := putDec(out, i, r, rs); err != nil {
				return err
			}
		}
		return nil
	}
}

func decLog10(d *big.Int, s int) (*big.Int, int, error) { return decLog(big.NewInt(10), 0, d, s) }

func kLogNumeric(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	numOut(out, n)
	nl := out.Nulls
	for i := 0; i < n; i++ {
		if isNull(nl, i) {
			continue
		}
		b, bs := decAt(a[0], i)
		d, s := decAt(a[1], i)
		r, rs, err := decLog(b, bs, d, s)
		if err != nil {
			return err
		}
		if err := putDec(out, i, r, rs); err != nil {
			return err
		}
	}
	return nil
}

func kPi(_ *Ctx, out *vec.Vector, _ []*vec.Vector, n int) error {
	dst := outF64(out, n)
	for i := range dst {
		dst[i] = math.Pi
	}
	return nil
}

func kRandom(_ *Ctx, out *vec.Vector, _ []*vec.Vector, n int) error {
	dst := outF64(out, n)
	for i := range dst {
		dst[i] = rand.Float64()
	}
	return nil
}

const codeWidthBucket = "2201G"

func kWidthBucketFloat(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	op, b1, b2, cnt := a[0].F64[:n], a[1].F64[:n], a[2].F64[:n], a[3].I64[:n]
	dst := outI64(out, n)
	nl := out.Nulls
	for i := range dst {
		if isNull(nl, i) {
			continue
		}
		x, lo, hi, c := op[i], b1[i], b2[i], cnt[i]
		if c <= 0 {
			return pgerr.New(codeWidthBucket, "count must be greater than zero")
		}
		if math.IsNaN(x) || math.IsNaN(lo) || math.IsNaN(hi) {
			return pgerr.New(codeWidthBucket, "operand, lower bound, and upper bound cannot be NaN")
		}
		if math.IsInf(lo, 0) || math.IsInf(hi, 0) {
			return pgerr.New(codeWidthBucket, "lower and upper bounds must be finite")
		}
		var r int64
		switch {
		case lo < hi:
			switch {
			case x < lo:
				r = 0
			case x >= hi:
				r = c + 1
			default:
				var q float64
				if !math.IsInf(hi-lo, 0) {
					q = float64(c) * ((x - lo) / (hi - lo))
				} else {
					q = float64(c) * ((x/2 - lo/2) / (hi/2 - lo/2))
				}
				r = min(int64(q), c-1) + 1
			}
		case lo > hi:
			switch {
			case x > lo:
				r = 0
			case x <= hi:
				r = c + 1
			default:
				var q float64
				if !math.IsInf(lo-hi, 0) {
					q = float64(c) * ((lo - x) / (lo - hi))
				} else {
					q = float64(c) * ((lo/2 - x/2) / (lo/2 - hi/2))
				}
				r = min(int64(q), c-1) + 1
			}
		default:
			return pgerr.New(codeWidthBucket, "lower bound cannot equal upper bound")
		}
		if r > math.MaxInt32 {
			return intOutOfRange(int4T)
		}
		dst[i] = r
	}
	return nil
}

func kWidthBucketNumeric(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	dst := outI64(out, n)
	nl := out.Nulls
	for i := range dst {
		if isNull(nl, i) {
			continue
		}
		rat := func(v *vec.Vector) *big.Rat {
			d, s := decAt(v, i)
			return new(big.Rat).SetFrac(d, pow10Big(max(s, 0)))
		}
		x, lo, hi, c := rat(a[0]), rat(a[1]), rat(a[2]), a[3].I64[i]
		if c <= 0 {
			return pgerr.New(codeWidthBucket, "count must be greater than zero")
		}
		var r int64
		switch lo.Cmp(hi) {
		case -1:
			switch {
			case x.Cmp(lo) < 0:
				r = 0
			case x.Cmp(hi) >= 0:
				r = c + 1
			default:
				q := new(big.Rat).Sub(x, lo)
				q.Mul(q, new(big.Rat).SetInt64(c))
				q.Quo(q, new(big.Rat).Sub(hi, lo))
				r = new(big.Int).Quo(q.Num(), q.Denom()).Int64() + 1
			}
		case 1:
			switch {
			case x.Cmp(lo) > 0:
				r = 0
			case x.Cmp(hi) <= 0:
				r = c + 1
			default:
				q := new(big.Rat).Sub(lo, x)
				q.Mul(q, new(big.Rat).SetInt64(c))
				q.Quo(q, new(big.Rat).Sub(lo, hi))
				r = new(big.Int).Quo(q.Num(), q.Denom()).Int64() + 1
			}
		default:
			return pgerr.New(codeWidthBucket, "lower bound cannot equal upper bound")
		}
		if r > math.MaxInt32 {
			return intOutOfRange(int4T)
		}
		dst[i] = r
	}
	return nil
}

func kScale(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	dst := outI64(out, n)
	in := a[0]
	for i := range dst {
		if in.Type.Scale >= 0 {
			dst[i] = int64(in.Type.Scale)
			continue
		}
		s := in.S[i]
		if k := strings.IndexByte(s, '.'); k >= 0 {
			dst[i] = int64(len(s) - k - 1)
		}
	}
	return nil
}

func kTrimScale(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	numOut(out, n)
	nl := out.Nulls
	for i := 0; i < n; i++ {
		if isNull(nl, i) {
			continue
		}
		d, s := decAt(a[0], i)
		for s > 0 {
			q, r := new(big.Int).QuoRem(d, bigTen, new(big.Int))
			if r.Sign() != 0 {
				break
			}
			d, s = q, s-1
		}
		if err := putDec(out, i, d, s); err != nil {
			return err
		}
	}
	return nil
}

// resolveMinMax resolves greatest/least: every argument is cast to the
// common type, which is also the result.
func resolveMinMax(name string, args []types.T) (*Overload, []types.T, types.T, error) {
	if len(args) == 0 {
		e := pgerr.New(codeUndefined, "function %s() does not exist", name)
		e.Hint = "No function matches the given name and argument types. You might need to add explicit type casts."
		return nil, nil, types.T{}, e
	}
	t, err := CommonType(args, strings.ToUpper(name))
	if err != nil {
		return nil, nil, types.T{}, err
	}
	casts := make([]types.T, len(args))
	params := make([]types.T, len(args))
	for i := range casts {
		casts[i], params[i] = t, t
	}
	o := &Overload{Name: name, Args: params, Ret: ret(t), Kernel: minMaxKernel(name == "greatest")}
	return o, casts, t, nil
}

// minMaxKernel keeps, per row, the largest (or smallest) non-NULL argument;
// all NULL gives NULL. Every argument has the result type (the binder casts
// them), so integers, floats and strings compare in typed loops.
func minMaxKernel(greatest bool) Kernel {
	want := -1
	if greatest {
		want = 1
	}
	return func(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
		fillZero(out, n)
		best := make([]int32, n) // index of the winning argument, -1 none
		for i := range best {
			best[i] = -1
		}
		t := out.Type
		for k, v := range a {
			kk := int32(k)
			switch {
			case t.Storage() == types.StoreInt && !t.DynNumeric():
				x := v.I64[:n]
				for i := range best {
					if !v.IsNull(i) && (best[i] < 0 || cmp3(x[i], a[best[i]].I64[i]) == want) {
						best[i] = kk
					}
				}
			case t.Storage() == types.StoreFloat:
				x := v.F64[:n]
				for i := range best {
					if !v.IsNull(i) && (best[i] < 0 || compareFloat(x[i], a[best[i]].F64[i]) == want) {
						best[i] = kk
					}
				}
			case t.Storage() == types.StoreBytes && t.ID != types.Numeric:
				x := v.S[:n]
				for i := range best {
					if !v.IsNull(i) && (best[i] < 0 || strings.Compare(x[i], a[best[i]].S[i]) == want) {
						best[i] = kk
					}
				}
			default:
				for i := range best {
					if !v.IsNull(i) && (best[i] < 0 || compareRows(v, i, a[best[i]], i) == want) {
						best[i] = kk
					}
				}
			}
		}
		for i, k := range best {
			if k < 0 {
				setNull(out, i, n)
				continue
			}
			copyRow(out, i, a[k], i)
		}
		return nil
	}
}

// compareRows orders two non-NULL values of one type family.
func compareRows(x *vec.Vector, i int, y *vec.Vector, j int) int {
	switch x.Type.Storage() {
	case types.StoreInt:
		if x.Type.ID == types.Numeric && x.Type.Scale != y.Type.Scale {
			break
		}
		return cmp3(x.I64[i], y.I64[j])
	case types.StoreFloat:
		return compareFloat(x.F64[i], y.F64[j])
	case types.StoreBool:
		return cmp3(b2i(x.B[i]), b2i(y.B[j]))
	case types.StoreInterval:
		return types.CompareInterval(x.Iv[i], y.Iv[j])
	default:
		if x.Type.ID != types.Numeric {
			return strings.Compare(x.S[i], y.S[j])
		}
	}
	// -Infinity, the numbers, Infinity, then NaN (equal to itself), as
	// cmp_numerics has it
	if xk, yk := x.NumericSpecial(i), y.NumericSpecial(j); xk != 0 || yk != 0 {
		return cmp.Compare(xk, yk)
	}
	dx, sx := decAt(x, i)
	dy, sy := decAt(y, j)
	s := max(sx, sy)
	return types.RescaleBig(dx, sx, s).Cmp(types.RescaleBig(dy, sy, s))
}

func cmp3[T int64 | float64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// compareFloat orders NaN above every number and equal to itself.
func compareFloat(x, y float64) int {
	xn, yn := x != x, y != y
	switch {
	case xn && yn:
		return 0
	case xn:
		return 1
	case yn:
		return -1
	}
	return cmp3(x, y)
}

func copyRow(out *vec.Vector, i int, src *vec.Vector, j int) {
	switch out.Type.Storage() {
	case types.StoreInt:
		out.I64[i] = src.I64[j]
	case types.StoreFloat:
		out.F64[i] = src.F64[j]
	case types.StoreBool:
		out.B[i] = src.B[j]
	case types.StoreInterval:
		out.Iv[i] = src.Iv[j]
	default:
		out.S[i] = src.S[j]
	}
}

// plainDecimal reports decimal text as numeric output prints it:
// [-]digits[.digits] with no leading zero but a lone one before the point.
func plainDecimal(s string) bool {
	if strings.HasPrefix(s, "-") {
		s = s[1:]
	}
	intPart, frac, hasDot := strings.Cut(s, ".")
	if intPart == "" || len(intPart) > 1 && intPart[0] == '0' || hasDot && frac == "" {
		return false
	}
	for _, part := range []string{intPart, frac} {
		for i := 0; i < len(part); i++ {
			if part[i] < '0' || part[i] > '9' {
				return false
			}
		}
	}
	return true
}
