package exec

import (
	"cmp"
	"math"
	"math/big"
	"math/bits"
	"strconv"
	"strings"
	"time"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// Env carries what expressions need from the session.
type Env struct {
	Loc *time.Location
	Now time.Time // statement start, for now()/current_timestamp
	// DateOrder is DateStyle's field order for reading dates such as
	// '1/2/2024' (zero: MDY, PostgreSQL's default).
	DateOrder types.DateOrder
}

// Expr is a scalar expression evaluated a whole batch at a time. The result
// has b.N rows and may alias an input vector: callers must not modify it.
type Expr interface {
	Type() types.T
	Eval(env *Env, b *vec.Batch) (*vec.Vector, error)
}

// ColRef reads input column Idx.
type ColRef struct {
	Idx int
	T   types.T
}

func (c *ColRef) Type() types.T { return c.T }
func (c *ColRef) Eval(_ *Env, b *vec.Batch) (*vec.Vector, error) {
	return b.Vecs[c.Idx], nil
}

// Const is a literal; V holds one row.
type Const struct {
	V *vec.Vector
	// Param marks an uncorrelated subquery's value, computed before the
	// statement runs: PostgreSQL's planner sees a parameter there, which
	// it does not fold, so an error of an expression over it waits for a
	// row (FoldError).
	Param bool
	full  *vec.Vector // V repeated for a whole batch
	view  vec.Vector  // full's first viewN rows
	viewN int
}

// NewConst wraps a one-row vector.
func NewConst(v *vec.Vector) *Const { return &Const{V: v} }

// ParamConst wraps a subquery's one-row value (see Const.Param).
func ParamConst(v *vec.Vector) *Const { return &Const{V: v, Param: true} }

// SubqueryError stands for the value of an uncorrelated subquery whose
// run, while planning, failed on its data: evaluating it fails with that
// error, so a statement that never needs the value (no rows, a CASE branch
// or COALESCE argument not reached) does not fail, as PostgreSQL runs an
// InitPlan only when its value is first needed.
type SubqueryError struct {
	T   types.T
	Err error
}

func (e *SubqueryError) Type() types.T { return e.T }
func (e *SubqueryError) Eval(_ *Env, b *vec.Batch) (*vec.Vector, error) {
	if b.N == 0 {
		return vec.New(e.T, 0), nil
	}
	return nil, e.Err
}

// MapColumns: it reads no column.
func (e *SubqueryError) MapColumns(func(int) int) Expr { return e }

// NullConst is a typed NULL.
func NullConst(t types.T) *Const {
	v := vec.New(t, 1)
	v.AppendNull()
	return &Const{V: v}
}

func (c *Const) Type() types.T { return c.V.Type }
func (c *Const) Eval(_ *Env, b *vec.Batch) (*vec.Vector, error) {
	if b.N == 1 {
		// one row (a VALUES list, a parameter): the value itself, not a
		// batch-sized repetition built for each of thousands of constants
		return c.V, nil
	}
	// Filtered batches and the rows reaching a CASE branch come in every
	// size: build the repeated value once and hand out prefixes of it,
	// through one reused header (re-pointing it is like any expression
	// overwriting its output buffer on the next evaluation)
	if c.full == nil || c.full.Len() < b.N {
		c.full = vec.Constant(c.V, 0, max(b.N, vec.BatchSize))
		c.viewN = -1
	}
	if c.viewN != b.N {
		c.full.SliceInto(&c.view, 0, b.N)
		c.viewN = b.N
	}
	return &c.view, nil
}

// IsNull reports whether the constant is NULL.
func (c *Const) IsNull() bool { return c.V.IsNull(0) }

func mergeNulls(n int, vs ...*vec.Vector) []bool {
	var out []bool
	for _, v := range vs {
		if v.Nulls == nil {
			continue
		}
		if out == nil {
			out = make([]bool, n)
		}
		for i, x := range v.Nulls[:n] {
			out[i] = out[i] || x
		}
	}
	return out
}

// ArithOp is + - * / %.
type ArithOp byte

// Arith applies an arithmetic operator; both inputs already have the
// operator's input type (the binder inserts casts), T is the result type.
type Arith struct {
	Op   ArithOp
	L, R Expr
	T    types.T
	out  *vec.Vector
	// scratch of the unconstrained product of fixed-scale operands
	textBuf  []byte
	textEnds []int
}

func (a *Arith) Type() types.T { return a.T }

var (
	errDivZero = pgerr.New(pgerr.DivisionByZero, "division by zero")
)

func Overflow(t types.T) error {
	return pgerr.New(pgerr.NumericValueOutOfRange, "%s out of range", t.String())
}

func (a *Arith) Eval(env *Env, b *vec.Batch) (*vec.Vector, error) {
	l, err := a.L.Eval(env, b)
	if err != nil {
		return nil, err
	}
	r, err := a.R.Eval(env, b)
	if err != nil {
		return nil, err
	}
	n := b.N
	out := outVec(&a.out, a.T, n)
	nulls := mergeNulls(n, l, r)
	switch {
	case a.T.IsInteger():
		out.I64 = out.I64[:n]
		lo, hi := intRange(a.T)
		for i := 0; i < n; i++ {
			if nulls != nil && nulls[i] {
				continue
			}
			x, y := l.I64[i], r.I64[i]
			var z int64
			switch a.Op {
			case '+':
				z = x + y
				if (z > x) != (y > 0) {
					return nil, Overflow(a.T)
				}
			case '-':
				z = x - y
				if (z < x) != (y > 0) {
					return nil, Overflow(a.T)
				}
			case '*':
				if x != 0 && y != 0 {
					hiw, low := BitsMul(x, y)
					if !hiw {
						return nil, Overflow(a.T)
					}
					z = low
				}
			case '/':
				if y == 0 {
					return nil, errDivZero
				}
				if x == math.MinInt64 && y == -1 {
					return nil, Overflow(a.T)
				}
				z = x / y
			case '%':
				if y == 0 {
					return nil, errDivZero
				}
				if y == -1 {
					z = 0
				} else {
					z = x % y
				}
			}
			if z < lo || z > hi {
				return nil, Overflow(a.T)
			}
			out.I64[i] = z
		}
	case a.T.IsFloat():
		out.F64 = out.F64[:n]
		for i := 0; i < n; i++ {
			if nulls != nil && nulls[i] {
				continue
			}
			x, y := l.F64[i], r.F64[i]
			var z float64
			switch a.Op {
			case '+':
				z = x + y
			case '-':
				z = x - y
			case '*':
				z = x * y
			case '/':
				if y == 0 {
					return nil, errDivZero
				}
				z = x / y
			case '%':
				if y == 0 {
					return nil, errDivZero
				}
				z = math.Mod(x, y)
			}
			if a.T.ID == types.Float32 {
				z = float64(float32(z))
			}
			if math.IsInf(z, 0) && !math.IsInf(x, 0) && !math.IsInf(y, 0) {
				return nil, pgerr.New(pgerr.NumericValueOutOfRange, "value out of range: overflow")
			}
			// a product or quotient of non-zero finite values that rounds
			// to zero is an underflow in PostgreSQL (float8_mul, float8_div)
			if z == 0 && x != 0 && (a.Op == '*' && y != 0 || a.Op == '/' && !math.IsInf(y, 0)) {
				return nil, pgerr.New(pgerr.NumericValueOutOfRange, "value out of range: underflow")
			}
			out.F64[i] = z
		}
	case a.T.ID == types.Numeric:
		return a.evalNumeric(l, r, n, nulls, out)
	default:
		return nil, pgerr.New(pgerr.UndefinedFunction, "operator does not exist for type %s", a.T)
	}
	out.Nulls = nulls
	return out, nil
}

func intRange(t types.T) (int64, int64) {
	switch t.ID {
	case types.Int16:
		return math.MinInt16, math.MaxInt16
	case types.Int32:
		return math.MinInt32, math.MaxInt32
	}
	return math.MinInt64, math.MaxInt64
}

// BitsMul multiplies with overflow detection. Operands that both fit in 32
// bits cannot overflow, which covers nearly every decimal product in
// practice and costs two compares; the rest check the 128-bit product
// rather than dividing (a division per row was 16 % of TPC-H Q1).
func BitsMul(x, y int64) (bool, int64) {
	if uint64(x)+1<<31 < 1<<32 && uint64(y)+1<<31 < 1<<32 {
		return true, x * y
	}
	ux, uy := uint64(x), uint64(y)
	if x < 0 {
		ux = -ux
	}
	if y < 0 {
		uy = -uy
	}
	hi, lo := bits.Mul64(ux, uy)
	if hi != 0 {
		return false, 0
	}
	if (x < 0) != (y < 0) {
		if lo > 1<<63 {
			return false, 0
		}
		return true, int64(-lo)
	}
	if lo >= 1<<63 {
		return false, 0
	}
	return true, int64(lo)
}

// addScaled sets out[i] = xs[i]*ml ± ys[i]*mr without a branch per row and
// reports whether no row overflowed; false may also be a false alarm
// (garbage in a NULL's slot), after which the caller checks row by row.
func addScaled(sub bool, xs, ys []int64, ml, mr int64, out []int64) bool {
	// x*m cannot overflow when x is within ±MaxInt64/m: in unsigned
	// arithmetic x+lim lands in [0, 2·lim] exactly then.
	limL, limR := uint64(math.MaxInt64/ml), uint64(math.MaxInt64/mr)
	spanL, spanR := 2*limL, 2*limR
	ys, out = ys[:len(xs)], out[:len(xs)]
	var bad int64 // its sign bit is set once a sum overflows
	inRange := true
	if sub {
		for i, x := range xs {
			y := ys[i]
			if uint64(x)+limL > spanL || uint64(y)+limR > spanR {
				inRange = false
			}
			a, b := x*ml, y*mr
			z := a - b
			bad |= (a ^ b) & (a ^ z)
			out[i] = z
		}
	} else {
		for i, x := range xs {
			y := ys[i]
			if uint64(x)+limL > spanL || uint64(y)+limR > spanR {
				inRange = false
			}
			a, b := x*ml, y*mr
			z := a + b
			bad |= (a ^ z) & (b ^ z)
			out[i] = z
		}
	}
	return inRange && bad >= 0
}

// mulSmall sets out[i] = xs[i]*ys[i] and reports whether the operands'
// magnitudes were small enough together that no product can have
// overflowed: below 2^a and 2^b with a+b <= 62. Both under 32 bits was
// the test before, and failed TPC-H Q1's price × (1 - discount) × (1 +
// tax), whose scale-4 left factor passes 2^32, row by row.
func mulSmall(xs, ys, out []int64) bool {
	ys, out = ys[:len(xs)], out[:len(xs)]
	var mx, my uint64 // |x| - 1 for negative x: the same bit length bound
	for i, x := range xs {
		y := ys[i]
		mx |= uint64(x ^ x>>63)
		my |= uint64(y ^ y>>63)
		out[i] = x * y
	}
	return bits.Len64(mx)+bits.Len64(my) <= 62
}

// specialArith is numeric arithmetic where an operand is NaN or an
// infinity (lk, rk as NumericSpecialAt): the result's kind, 0 for the
// number 0, as numeric.c's add/sub/mul/div/mod have it.
func specialArith(op ArithOp, lk, rk int, l, r *vec.Vector, i int) (int, error) {
	if lk == 2 || rk == 2 {
		return 2, nil // NaN in, NaN out, even NaN / 0
	}
	sign := func(v *vec.Vector, k int) int {
		if k != 0 {
			return k
		}
		if v.Type.Scale >= 0 {
			return cmp.Compare(v.I64[i], 0)
		}
		d, _ := NumericValue(v, i)
		return d.Sign()
	}
	ls, rs := sign(l, lk), sign(r, rk)
	switch op {
	case '+', '-':
		if op == '-' {
			rk = -rk
		}
		switch {
		case lk != 0 && rk != 0 && lk != rk:
			return 2, nil // Infinity - Infinity
		case lk != 0:
			return lk, nil
		}
		return rk, nil
	case '*':
		if ls == 0 || rs == 0 {
			return 2, nil // Infinity * 0
		}
		return ls * rs, nil
	case '/':
		switch {
		case lk != 0 && rk != 0:
			return 2, nil
		case lk != 0 && rs == 0:
			return 0, pgerr.New(pgerr.DivisionByZero, "division by zero")
		case lk != 0:
			return ls * rs, nil
		}
		return 0, nil // a number over an infinity
	case '%':
		if lk != 0 {
			if rs == 0 {
				return 0, pgerr.New(pgerr.DivisionByZero, "division by zero")
			}
			return 2, nil
		}
		return 3, nil // the left operand itself
	}
	return 0, pgerr.New(pgerr.FeatureNotSupported, "operator %c of an infinite numeric is not supported", op)
}

// NumericIsNaN reports a NaN numeric (only unconstrained numerics hold one).
func NumericIsNaN(v *vec.Vector, i int) bool {
	return v.Type.Scale < 0 && v.S[i] == types.NumericNaN
}

// NumericValue reads row i of a numeric vector as an exact decimal (not
// NaN: callers check NumericIsNaN first).
func NumericValue(v *vec.Vector, i int) (*big.Int, int) {
	if v.Type.Scale < 0 {
		d, s, _ := types.ParseDecimal(v.S[i])
		return d, s
	}
	return big.NewInt(v.I64[i]), v.Type.Scale
}

// evalNumeric computes exact decimal arithmetic with PostgreSQL's result scales.
func (a *Arith) evalNumeric(l, r *vec.Vector, n int, nulls []bool, out *vec.Vector) (*vec.Vector, error) {
	fixed := a.T.Scale >= 0 && l.Type.Scale >= 0 && r.Type.Scale >= 0 && a.Op != '/'
	if fixed && (a.Op == '+' || a.Op == '-') {
		// fast path: scaled int64 add/sub at the common scale
		out.I64 = out.I64[:n]
		ml, mr := types.Pow10(a.T.Scale-l.Type.Scale), types.Pow10(a.T.Scale-r.Type.Scale)
		if addScaled(a.Op == '-', l.I64[:n], r.I64[:n], ml, mr, out.I64) {
			out.Nulls = nulls
			return out, nil
		}
		// some row may overflow (or a NULL's slot holds garbage): row by row
		for i := 0; i < n; i++ {
			if nulls != nil && nulls[i] {
				continue
			}
			okl, x := BitsMul(l.I64[i], ml)
			okr, y := BitsMul(r.I64[i], mr)
			if !okl || !okr {
				return nil, Overflow(a.T)
			}
			var z int64
			if a.Op == '+' {
				z = x + y
				if (z > x) != (y > 0) {
					return nil, Overflow(a.T)
				}
			} else {
				z = x - y
				if (z < x) != (y > 0) {
					return nil, Overflow(a.T)
				}
			}
			out.I64[i] = z
		}
		out.Nulls = nulls
		return out, nil
	}
	if a.Op == '*' && a.T.Scale >= 0 && l.Type.Scale >= 0 && r.Type.Scale >= 0 && a.T.Scale == l.Type.Scale+r.Type.Scale {
		// fast path: the product of scaled int64s is the scaled result;
		// rows that overflow int64 go through exact arithmetic below
		out.I64 = out.I64[:n]
		xs, ys := l.I64[:n], r.I64[:n]
		slow := false
		if !mulSmall(xs, ys, out.I64) {
			for i := range xs {
				ok, z := BitsMul(xs[i], ys[i])
				if !ok {
					slow = true
					break
				}
				out.I64[i] = z
			}
		}
		if !slow {
			if nulls != nil {
				for i, isNull := range nulls {
					if isNull {
						out.I64[i] = 0
					}
				}
			}
			out.Nulls = nulls
			return out, nil
		}
		out.I64 = out.I64[:0]
	}
	if a.Op == '*' && a.T.Scale < 0 && l.Type.Scale >= 0 && r.Type.Scale >= 0 &&
		l.Type.Storage() == types.StoreInt && r.Type.Storage() == types.StoreInt {
		// an unconstrained product of fixed-scale operands (int ×
		// numeric(7,2)): scaled int64s multiplied and printed directly,
		// rows that overflow int64 through exact arithmetic
		sc := l.Type.Scale + r.Type.Scale
		// the batch's texts are printed into one buffer and become one
		// string that the values slice (one allocation per batch, not two
		// per row); ends[i] is where row i's text ends, -1 for a row left
		// to exact arithmetic
		buf, ends := a.textBuf[:0], a.textEnds[:0]
		for i := 0; i < n; i++ {
			if nulls == nil || !nulls[i] {
				if ok, z := BitsMul(l.I64[i], r.I64[i]); ok {
					buf = AppendScaled(buf, z, sc)
					ends = append(ends, len(buf))
					continue
				}
			}
			ends = append(ends, -1)
		}
		a.textBuf, a.textEnds = buf, ends
		all, start := string(buf), 0
		for i := 0; i < n; i++ {
			if nulls != nil && nulls[i] {
				out.AppendNull()
				continue
			}
			if e := ends[i]; e >= 0 {
				out.AppendString(all[start:e])
				start = e
				continue
			}
			z, sz, err := DecimalArith('*', big.NewInt(l.I64[i]), l.Type.Scale, big.NewInt(r.I64[i]), r.Type.Scale)
			if err != nil {
				return nil, err
			}
			out.AppendString(types.FormatBig(z, sz))
		}
		return out, nil
	}
	var chunks vec.TextChunks
	var txt []byte
	for i := 0; i < n; i++ {
		if nulls != nil && nulls[i] {
			out.AppendNull()
			continue
		}
		if lk, rk := l.NumericSpecial(i), r.NumericSpecial(i); lk != 0 || rk != 0 {
			k, err := specialArith(a.Op, lk, rk, l, r, i)
			if err != nil {
				return nil, err
			}
			switch {
			case (k == 0 || k == 3) && a.T.Scale >= 0:
				x, sx := NumericValue(l, i) // a number % an infinity, or over one: 0
				if k == 0 {
					x = new(big.Int)
				}
				out.AppendInt(types.RescaleBig(x, sx, a.T.Scale).Int64())
			case k == 0:
				out.AppendString("0")
			case k == 3 && l.Type.Scale >= 0:
				out.AppendString(types.FormatScaled(l.I64[i], l.Type.Scale))
			case k == 3:
				out.AppendString(l.S[i])
			default:
				if err := appendNumericSpecial(out, types.NumericSpecialText(k)); err != nil {
					return nil, err
				}
			}
			continue
		}
		if a.Op == '*' && a.T.Scale < 0 {
			if t, k, ok := timesOne(l, r, i); ok {
				txt = appendScaleZeros(append(txt[:0], t...), t, k)
				out.AppendString(chunks.String(txt))
				continue
			}
		}
		if a.T.Scale < 0 && (a.Op == '*' || a.Op == '+' || a.Op == '-') {
			if z, ok := arith128(a.Op, l, r, i); ok {
				txt = AppendScaled128(txt[:0], z.neg, z.hi, z.lo, z.scale)
				out.AppendString(chunks.String(txt))
				continue
			}
		}
		x, sx := NumericValue(l, i)
		y, sy := NumericValue(r, i)
		z, sz, err := DecimalArith(a.Op, x, sx, y, sy)
		if err != nil {
			return nil, err
		}
		if a.T.Scale >= 0 {
			v := types.RescaleBig(z, sz, a.T.Scale)
			if !v.IsInt64() {
				return nil, Overflow(a.T)
			}
			out.AppendInt(v.Int64())
		} else {
			out.AppendString(types.FormatBig(z, sz))
		}
	}
	return out, nil
}

// timesOne is for x · 1.000 (TPC-DS q39 scales a standard deviation so):
// when row i of one side is the fixed-scale numeric 1 at scale k and the
// other side's is canonical decimal text t, the product is t with k more
// fractional zeros, which is what numeric_mul prints, so the text needs no
// parsing and printing again.
func timesOne(l, r *vec.Vector, i int) (t string, k int, ok bool) {
	if l.Type.Scale >= 0 {
		l, r = r, l
	}
	if l.Type.Scale >= 0 || r.Type.Scale < 0 || r.Type.Scale > 18 || r.I64[i] != types.Pow10(r.Type.Scale) {
		return "", 0, false
	}
	t = l.S[i]
	if !canonicalDecimal(t) {
		return "", 0, false
	}
	return t, r.Type.Scale, true
}

// canonicalDecimal reports text as numeric_out prints a finite value:
// [-]digits[.digits], no leading zero but a lone one, no negative zero.
func canonicalDecimal(t string) bool {
	j := 0
	if j < len(t) && t[j] == '-' {
		j++
	}
	start, dot, nonzero := j, -1, false
	for ; j < len(t); j++ {
		switch c := t[j]; {
		case c == '.' && dot < 0 && j > start:
			dot = j
		case c >= '1' && c <= '9':
			nonzero = true
		case c != '0':
			return false
		}
	}
	intEnd := len(t)
	if dot >= 0 {
		intEnd = dot
	}
	switch {
	case intEnd == start, dot == len(t)-1:
		return false // no integer digits, or a point with none after it
	case t[start] == '0' && intEnd-start > 1:
		return false
	case start == 1 && !nonzero:
		return false
	}
	return true
}

// appendScaleZeros appends k fractional zeros to dst, which ends with the
// decimal text t, adding the point when t has none.
func appendScaleZeros(dst []byte, t string, k int) []byte {
	if k == 0 {
		return dst
	}
	if strings.IndexByte(t, '.') < 0 {
		dst = append(dst, '.')
	}
	for range k {
		dst = append(dst, '0')
	}
	return dst
}

// DecimalArith is exact decimal arithmetic with PostgreSQL's result scales:
// +,- keep the larger scale, * adds scales, / uses select_div_scale.
func DecimalArith(op ArithOp, x *big.Int, sx int, y *big.Int, sy int) (*big.Int, int, error) {
	switch op {
	case '+', '-':
		s := max(sx, sy)
		x, y = types.RescaleBig(x, sx, s), types.RescaleBig(y, sy, s)
		if op == '+' {
			return x.Add(x, y), s, nil
		}
		return x.Sub(x, y), s, nil
	case '*':
		return new(big.Int).Mul(x, y), sx + sy, nil
	case '/', '%':
		if y.Sign() == 0 {
			return nil, 0, errDivZero
		}
		if op == '%' {
			s := max(sx, sy)
			x, y = types.RescaleBig(x, sx, s), types.RescaleBig(y, sy, s)
			return new(big.Int).Rem(x, y), s, nil
		}
		rs := DivScale(x, sx, y, sy)
		// q = x/10^sx / (y/10^sy) at scale rs = x*10^(sy+rs) / (y*10^sx), rounded
		num := new(big.Int).Mul(x, types.BigPow10(sy+rs+1))
		den := new(big.Int).Mul(y, types.BigPow10(sx))
		q := num.Quo(num, den)
		return types.RescaleBig(q, rs+1, rs), rs, nil
	}
	return nil, 0, pgerr.New(pgerr.Internal, "bad decimal op")
}

// DivScale mirrors PostgreSQL's select_div_scale: at least 16 significant
// digits, at least the inputs' scales, at most 1000.
func DivScale(x *big.Int, sx int, y *big.Int, sy int) int {
	wx, fx := weightAndFirst(x, sx)
	wy, fy := weightAndFirst(y, sy)
	return divScaleOf(wx, fx, sx, wy, fy, sy)
}

// divScale64 is DivScale of two positive int64s.
func divScale64(x uint64, sx int, y uint64, sy int) int {
	wx, fx := weightAndFirst64(x, sx)
	wy, fy := weightAndFirst64(y, sy)
	return divScaleOf(wx, fx, sx, wy, fy, sy)
}

// divScaleOf is select_div_scale from the operands' base-10000 weights,
// first digits and scales.
func divScaleOf(wx, fx, sx, wy, fy, sy int) int {
	qweight := wx - wy
	if fx <= fy {
		qweight--
	}
	return min(max(16-qweight*4, sx, sy, 0), 1000)
}

// Divide128 is x/y for x at scale sx and y > 0 an integer, at PostgreSQL's
// division scale, rounded half away from zero as numeric_div does, in
// 128-bit arithmetic: an average of integers without a big.Int (TPC-DS
// q39 averages 90 k groups). The quotient's magnitude is hi·2⁶⁴+lo at
// scale qs. ok is false when x·10^(qs−sx+1) does not fit; DecimalArith
// takes those.
func Divide128(x int64, sx int, y int64) (neg bool, hi, lo uint64, qs int, ok bool) {
	if y <= 0 || x == 0 || x == math.MinInt64 {
		return false, 0, 0, 0, false
	}
	ux, uy := uint64(x), uint64(y)
	if x < 0 {
		ux = uint64(-x)
	}
	qs = divScale64(ux, sx, uy, 0)
	e := qs - sx + 1 // one digit more decides the rounding
	if e < 0 || e > 19 {
		return false, 0, 0, 0, false
	}
	p := uint64(types.Pow10(min(e, 18)))
	if e == 19 {
		p *= 10
	}
	nh, nl := bits.Mul64(ux, p)
	hi, lo = div128by64(nh, nl, uy)
	hi, lo = round10(hi, lo)
	return x < 0 && (hi|lo) != 0, hi, lo, qs, true
}

// FormatScaled128 is FormatScaled of the 128-bit magnitude hi·2⁶⁴+lo.
func FormatScaled128(neg bool, hi, lo uint64, scale int) string {
	var out [80]byte
	return string(AppendScaled128(out[:0], neg, hi, lo, scale))
}

// AppendScaled128 appends FormatScaled128(neg, hi, lo, scale) to dst.
func AppendScaled128(dst []byte, neg bool, hi, lo uint64, scale int) []byte {
	var buf [64]byte
	return types.AppendDigits(dst, neg, appendU128(buf[:0], hi, lo), scale)
}

// weightAndFirst returns the base-10000 weight of a decimal and its first
// base-10000 digit, as PostgreSQL's NumericVar stores them.
func weightAndFirst(v *big.Int, scale int) (int, int) {
	if v.Sign() == 0 {
		return 0, 0
	}
	if v.IsInt64() {
		// most values: their digits without a big.Int's String
		x := v.Int64()
		u := uint64(x)
		if x < 0 {
			u = -u
		}
		return weightAndFirst64(u, scale)
	}
	return weightAndFirstDigits([]byte(new(big.Int).Abs(v).String()), scale)
}

// weightAndFirst64 is weightAndFirst of u > 0 at scale, from the digit
// count and a division instead of the digits' text: an average of
// integers asks it twice per group (TPC-DS q39: 90 k groups).
func weightAndFirst64(u uint64, scale int) (int, int) {
	nd := decDigits64(u)
	intDigits := nd - scale
	w := (intDigits - 1) / 4
	if intDigits <= 0 {
		w = -((-intDigits)/4 + 1)
	}
	// lead (1…4) digits of u fall into the base-10000 digit at weight w
	lead := intDigits - 4*w
	if lead <= nd {
		return w, int(u / pow10u64[nd-lead])
	}
	return w, int(u * pow10u64[lead-nd])
}

// decDigits64 is the number of decimal digits of u > 0.
func decDigits64(u uint64) int {
	// 1233/4096 is just below log10(2): t is the digit count or one less
	t := bits.Len64(u) * 1233 >> 12
	if u >= pow10u64[t] {
		return t + 1
	}
	return t
}

// weightAndFirstDigits is weightAndFirst of the decimal digits s at scale.
func weightAndFirstDigits(s []byte, scale int) (int, int) {
	intDigits := len(s) - scale // digits before the point (may be <= 0)
	// weight w: value in [10000^w, 10000^(w+1))
	var w int
	if intDigits > 0 {
		w = (intDigits - 1) / 4
	} else {
		w = -((-intDigits)/4 + 1)
	}
	// first base-10000 digit: the group of digits at position w
	// digits positioned relative to the point: group covers 10^(4w)..10^(4w+3)
	lead := intDigits - 4*w // number of digits of s falling into group w and above
	var first int
	if lead >= 0 {
		end := min(lead, len(s))
		for _, c := range s[:end] {
			first = first*10 + int(c-'0')
		}
		for k := end; k < lead; k++ {
			first *= 10
		}
	}
	return w, first
}

// Neg is unary minus.
type Neg struct{ E Expr }

func (e *Neg) Type() types.T { return e.E.Type() }
func (e *Neg) Eval(env *Env, b *vec.Batch) (*vec.Vector, error) {
	x, err := e.E.Eval(env, b)
	if err != nil {
		return nil, err
	}
	out := vec.New(x.Type, b.N)
	switch {
	case x.Type.Storage() == types.StoreInt:
		lo, _ := intRange(x.Type)
		for i, v := range x.I64[:b.N] {
			if v == lo && x.Type.IsInteger() && !x.IsNull(i) {
				return nil, Overflow(x.Type)
			}
			out.I64 = append(out.I64, -v)
		}
	case x.Type.Storage() == types.StoreFloat:
		for _, v := range x.F64[:b.N] {
			out.F64 = append(out.F64, -v)
		}
	case x.Type.DynNumeric():
		for i, s := range x.S[:b.N] {
			if x.IsNull(i) || s == "" {
				out.S = append(out.S, s)
			} else if s[0] == '-' {
				out.S = append(out.S, s[1:])
			} else if s == "0" || s == types.NumericNaN || isZeroDecimal(s) {
				out.S = append(out.S, s)
			} else {
				out.S = append(out.S, "-"+s)
			}
		}
	default:
		return nil, pgerr.New(pgerr.UndefinedFunction, "operator does not exist: - %s", x.Type)
	}
	out.Nulls = x.Nulls
	return out, nil
}

func isZeroDecimal(s string) bool {
	for _, c := range s {
		if c != '0' && c != '.' {
			return false
		}
	}
	return true
}

// outVec returns the expression's output vector for a batch of n rows,
// reusing the one from the previous batch (PERFORMANCE.md: no allocation per
// batch). It comes back empty, with zeroed capacity, so kernels that skip
// NULL rows leave zero values there. A result is valid until the same
// expression is evaluated again, which the batch contract already implies.
func outVec(slot **vec.Vector, t types.T, n int) *vec.Vector {
	v := *slot
	if v == nil || v.Type != t || cap(v.I64)+cap(v.F64)+cap(v.B)+cap(v.S)+cap(v.Iv) < n {
		v = vec.New(t, max(n, vec.BatchSize))
		*slot = v
		return v
	}
	v.Reset()
	switch t.Storage() {
	case types.StoreInt:
		clear(v.I64[:n])
	case types.StoreFloat:
		clear(v.F64[:n])
	case types.StoreBool:
		clear(v.B[:n])
	case types.StoreBytes:
		clear(v.S[:n])
	}
	return v
}

// AppendScaled appends v·10^-scale as decimal text.
func AppendScaled(dst []byte, v int64, scale int) []byte {
	if scale <= 0 {
		return strconv.AppendInt(dst, v, 10)
	}
	u := uint64(v)
	if v < 0 {
		u = -u
		dst = append(dst, '-')
	}
	start := len(dst)
	dst = strconv.AppendUint(dst, u, 10)
	if digits := len(dst) - start; digits <= scale {
		pad := scale - digits + 1
		dst = append(dst, make([]byte, pad)...)
		copy(dst[start+pad:], dst[start:start+digits])
		for i := start; i < start+pad; i++ {
			dst[i] = '0'
		}
	}
	dst = append(dst, 0)
	p := len(dst) - 1 - scale
	copy(dst[p+1:], dst[p:len(dst)-1])
	dst[p] = '.'
	return dst
}
