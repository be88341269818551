package exec

import (
	"cmp"
	"math/big"
	"regexp"
	"strings"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// CmpOp is a comparison.
type CmpOp byte

const (
	EQ CmpOp = iota
	NE
	LT
	LE
	GT
	GE
)

// Cmp compares two inputs of the same type (the binder casts them).
type Cmp struct {
	Op   CmpOp
	L, R Expr
	out  *vec.Vector
	nc   *numConst
}

func (c *Cmp) Type() types.T { return types.BoolT }

func cmpResult(op CmpOp, c int) bool {
	switch op {
	case EQ:
		return c == 0
	case NE:
		return c != 0
	case LT:
		return c < 0
	case LE:
		return c <= 0
	case GT:
		return c > 0
	}
	return c >= 0
}

// compareOrdered sets res[i] = x[i] op y[i], one loop per operator so
// that each loop is a plain typed comparison (instantiated per type).
func compareOrdered[T cmp.Ordered](op CmpOp, x, y []T, res []bool) {
	y, res = y[:len(x)], res[:len(x)]
	switch op {
	case EQ:
		for i := range x {
			res[i] = x[i] == y[i]
		}
	case NE:
		for i := range x {
			res[i] = x[i] != y[i]
		}
	case LT:
		for i := range x {
			res[i] = x[i] < y[i]
		}
	case LE:
		for i := range x {
			res[i] = x[i] <= y[i]
		}
	case GT:
		for i := range x {
			res[i] = x[i] > y[i]
		}
	default:
		for i := range x {
			res[i] = x[i] >= y[i]
		}
	}
}

func (c *Cmp) Eval(env *Env, b *vec.Batch) (*vec.Vector, error) {
	l, err := c.L.Eval(env, b)
	if err != nil {
		return nil, err
	}
	r, err := c.R.Eval(env, b)
	if err != nil {
		return nil, err
	}
	n := b.N
	out := outVec(&c.out, types.BoolT, n)
	out.B = out.B[:n]
	res := out.B
	switch {
	case l.Type.ID == types.Numeric && r.Type.ID == types.Numeric && l.Type.Scale >= 0 && r.Type.Scale >= 0 && l.Type.Scale != r.Type.Scale:
		// scaled integers at different scales: bring the smaller scale up
		ml, mr := int64(1), int64(1)
		if l.Type.Scale < r.Type.Scale {
			ml = types.Pow10(r.Type.Scale - l.Type.Scale)
		} else {
			mr = types.Pow10(l.Type.Scale - r.Type.Scale)
		}
		x, y := l.I64[:n], r.I64[:n]
		for i := range res {
			okx, a := BitsMul(x[i], ml)
			oky, b := BitsMul(y[i], mr)
			if !okx || !oky {
				res[i] = cmpResult(c.Op, CompareNumeric(l, i, r, i))
				continue
			}
			switch {
			case a < b:
				res[i] = cmpResult(c.Op, -1)
			case a > b:
				res[i] = cmpResult(c.Op, 1)
			default:
				res[i] = cmpResult(c.Op, 0)
			}
		}
	case c.numericVsConst(l, r, res):
	case l.Type.DynNumeric() || r.Type.DynNumeric() || (l.Type.ID == types.Numeric && l.Type.Scale != r.Type.Scale):
		for i := 0; i < n; i++ {
			if l.IsNull(i) || r.IsNull(i) {
				continue
			}
			res[i] = cmpResult(c.Op, CompareNumeric(l, i, r, i))
		}
	case l.Type.Storage() == types.StoreInt:
		compareOrdered(c.Op, l.I64[:n], r.I64[:n], res)
	case l.Type.Storage() == types.StoreFloat:
		x, y := l.F64[:n], r.F64[:n]
		for i := range res {
			res[i] = cmpResult(c.Op, CompareFloat(x[i], y[i]))
		}
	case l.Type.Storage() == types.StoreBool:
		x, y := l.B[:n], r.B[:n]
		for i := range res {
			res[i] = cmpResult(c.Op, CompareBool(x[i], y[i]))
		}
	case l.Type.Storage() == types.StoreInterval:
		x, y := l.Iv[:n], r.Iv[:n]
		for i := range res {
			res[i] = cmpResult(c.Op, types.CompareInterval(x[i], y[i]))
		}
	default:
		// byte order (C collation): Go's string operators compare bytes
		compareOrdered(c.Op, l.S[:n], r.S[:n], res)
	}
	out.Nulls = mergeNulls(n, l, r)
	return out, nil
}

// numConst is a comparison of a fixed-scale numeric with an unconstrained
// numeric constant (an avg() from a subquery, say), reduced once to an
// integer comparison at the column's scale; the constant's text would
// otherwise be parsed into a big.Int for every row.
type numConst struct {
	k      *vec.Vector // the constant it was made for
	scale  int
	op     CmpOp
	bound  int64
	always int8 // 1: every row compares true, -1: false, 0: compare with bound
}

// numericVsConst evaluates the comparison into res when one side is a
// fixed-scale numeric and the other an unconstrained numeric constant.
func (c *Cmp) numericVsConst(l, r *vec.Vector, res []bool) bool {
	x, op, k := l, c.Op, c.R
	if l.Type.DynNumeric() {
		x, op, k = r, c.Op.Flipped(), c.L
	}
	kc, ok := k.(*Const)
	if !ok || x.Type.ID != types.Numeric || x.Type.Scale < 0 || !kc.V.Type.DynNumeric() || kc.V.IsNull(0) || kc.V.NumericSpecial(0) != 0 {
		return false
	}
	nc := c.nc
	if nc == nil || nc.k != kc.V || nc.scale != x.Type.Scale || nc.op != op {
		if nc, ok = newNumConst(kc.V, x.Type.Scale, op); !ok {
			return false
		}
		c.nc = nc
	}
	switch nc.always {
	case 1, -1:
		for i := range res {
			res[i] = nc.always > 0
		}
	default:
		compareScalar(nc.op, x.I64[:len(res)], nc.bound, res)
	}
	return true
}

// newNumConst turns "x op k" over integers x at scale s into "x op' bound":
// k·10^s is rounded down or up as the operator needs, since x is whole.
func newNumConst(k *vec.Vector, s int, op CmpOp) (*numConst, bool) {
	d, ds, err := types.ParseDecimal(k.S[0])
	if err != nil {
		return nil, false
	}
	nc := &numConst{k: k, scale: s, op: op}
	var floor, ceil big.Int
	if ds <= s {
		floor.Mul(d, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(s-ds)), nil))
		ceil.Set(&floor)
	} else {
		var rem big.Int
		floor.DivMod(d, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(ds-s)), nil), &rem) // Euclidean: rounds down
		ceil.Set(&floor)
		if rem.Sign() != 0 {
			ceil.Add(&ceil, big.NewInt(1))
		}
	}
	exact := floor.Cmp(&ceil) == 0
	// x op b for whole x, with b clamped to int64: out of range means every
	// row compares the same way
	set := func(b *big.Int, below, above int8) {
		switch {
		case !b.IsInt64() && b.Sign() < 0:
			nc.always = below
		case !b.IsInt64():
			nc.always = above
		default:
			nc.bound = b.Int64()
		}
	}
	switch op {
	case GT: // x > k  ⟺  x > floor
		set(&floor, 1, -1)
	case LE: // x <= k ⟺  x <= floor
		set(&floor, -1, 1)
	case GE: // x >= k ⟺  x >= ceil
		set(&ceil, 1, -1)
	case LT: // x < k  ⟺  x < ceil
		set(&ceil, -1, 1)
	case EQ:
		if !exact {
			nc.always = -1
		} else {
			set(&floor, -1, -1)
		}
	case NE:
		if !exact {
			nc.always = 1
		} else {
			set(&floor, 1, 1)
		}
	}
	return nc, true
}

// Flipped is the operator with its operands swapped: a < b is b > a.
func (op CmpOp) Flipped() CmpOp {
	switch op {
	case LT:
		return GT
	case LE:
		return GE
	case GT:
		return LT
	case GE:
		return LE
	}
	return op
}

// compareScalar sets res[i] = x[i] op y.
func compareScalar[T cmp.Ordered](op CmpOp, x []T, y T, res []bool) {
	res = res[:len(x)]
	switch op {
	case EQ:
		for i := range x {
			res[i] = x[i] == y
		}
	case NE:
		for i := range x {
			res[i] = x[i] != y
		}
	case LT:
		for i := range x {
			res[i] = x[i] < y
		}
	case LE:
		for i := range x {
			res[i] = x[i] <= y
		}
	case GT:
		for i := range x {
			res[i] = x[i] > y
		}
	default:
		for i := range x {
			res[i] = x[i] >= y
		}
	}
}

// CompareFloat orders floats as PostgreSQL does: NaN above everything, equal to itself.
func CompareFloat(x, y float64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	case x == y:
		return 0
	}
	xn, yn := x != x, y != y
	switch {
	case xn && yn:
		return 0
	case xn:
		return 1
	}
	return -1
}

func CompareBool(x, y bool) int {
	switch {
	case x == y:
		return 0
	case !x:
		return -1
	}
	return 1
}

// smallNumeric is row i of a numeric vector as a scaled int64 when it fits
// one: a fixed-scale value as it is stored, an unconstrained one's text
// without its trailing fractional zeros (avg's "523.1250000000000000" is
// 523125 at scale 3); ok is false for anything longer, and for NaN.
func smallNumeric(v *vec.Vector, i int) (m int64, scale int, ok bool) {
	if v.Type.Scale >= 0 {
		return v.I64[i], v.Type.Scale, true
	}
	t := v.S[i]
	if strings.IndexByte(t, '.') >= 0 {
		t = strings.TrimRight(t, "0")
		t = strings.TrimSuffix(t, ".")
	}
	return types.ParseDecimalSmall(t)
}

// cmpDecimalText compares two plain decimal texts ([-|+]digits[.digits],
// leading and trailing zeros allowed) by their digits: the longer integer
// part (without leading zeros) is the larger magnitude, else the first
// digit that differs, the shorter fraction read with zeros after it. ok is
// false for anything else (NaN, infinities, exponents), which the caller
// compares the general way.
func cmpDecimalText(a, b string) (c int, ok bool) {
	na, ia, fa, ok := splitDecimalText(a)
	if !ok {
		return 0, false
	}
	nb, ib, fb, ok := splitDecimalText(b)
	if !ok {
		return 0, false
	}
	za, zb := ia == "" && allZeros(fa), ib == "" && allZeros(fb)
	switch {
	case za && zb:
		return 0, true
	case za:
		if nb {
			return 1, true
		}
		return -1, true
	case zb:
		if na {
			return -1, true
		}
		return 1, true
	case na != nb:
		if na {
			return -1, true
		}
		return 1, true
	}
	// same sign, both nonzero: compare magnitudes
	m := cmp.Compare(len(ia), len(ib))
	if m == 0 {
		m = strings.Compare(ia, ib)
	}
	if m == 0 {
		k := min(len(fa), len(fb))
		m = strings.Compare(fa[:k], fb[:k])
		if m == 0 {
			switch {
			case !allZeros(fa[k:]):
				m = 1
			case !allZeros(fb[k:]):
				m = -1
			}
		}
	}
	if na {
		m = -m
	}
	return m, true
}

// splitDecimalText splits plain decimal text into its sign, its integer
// digits without leading zeros and its fraction digits.
func splitDecimalText(t string) (neg bool, intPart, frac string, ok bool) {
	if t != "" && (t[0] == '-' || t[0] == '+') {
		neg, t = t[0] == '-', t[1:]
	}
	if t == "" {
		return false, "", "", false
	}
	intPart = t
	if dot := strings.IndexByte(t, '.'); dot >= 0 {
		intPart, frac = t[:dot], t[dot+1:]
		if intPart == "" && frac == "" {
			return false, "", "", false
		}
	}
	if !allDigits(intPart) || !allDigits(frac) {
		return false, "", "", false
	}
	for intPart != "" && intPart[0] == '0' {
		intPart = intPart[1:]
	}
	return neg, intPart, frac, true
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func allZeros(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] != '0' {
			return false
		}
	}
	return true
}

// numericSign is the sign (-1, 0, 1) of row i of a numeric vector; ok is
// false for NaN, the infinities and text that is not plain decimal.
func numericSign(v *vec.Vector, i int) (int, bool) {
	if v.Type.Scale >= 0 {
		return cmp.Compare(v.I64[i], 0), true
	}
	t := v.S[i]
	sign, j := 1, 0
	if j < len(t) && t[j] == '-' {
		sign, j = -1, 1
	}
	digits := false
	for ; j < len(t); j++ {
		switch c := t[j]; {
		case c >= '1' && c <= '9':
			// a nonzero digit: the rest only needs to be decimal
			for _, c := range []byte(t[j+1:]) {
				if (c < '0' || c > '9') && c != '.' {
					return 0, false
				}
			}
			return sign, true
		case c == '0':
			digits = true
		case c != '.':
			return 0, false
		}
	}
	return 0, digits
}

// CompareNumeric compares two numeric values of possibly different scales.
func CompareNumeric(l *vec.Vector, i int, r *vec.Vector, j int) int {
	if l.Type.Scale >= 0 && l.Type.Scale == r.Type.Scale {
		x, y := l.I64[i], r.I64[j]
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	}
	// different signs, or both zero, decide without reading the digits:
	// TPC-DS q39's CASE mean WHEN 0 compares 90 k averages with zero
	if sl, ok := numericSign(l, i); ok {
		if sr, ok := numericSign(r, j); ok && (sl != sr || sl == 0) {
			return cmp.Compare(sl, sr)
		}
	}
	if l.Type.Scale < 0 && r.Type.Scale < 0 {
		// both text: compare the digits where they stand, without reading
		// them into numbers (TPC-DS q1 compares each return's sum with
		// a 20-digit average of its store's)
		if c, ok := cmpDecimalText(l.S[i], r.S[j]); ok {
			return c
		}
	}
	a, as, okA := smallNumeric(l, i)
	b, bs, okB := smallNumeric(r, j)
	if okA && okB {
		ok1, ok2 := true, true
		if as < bs {
			ok1, a = BitsMul(a, types.Pow10(bs-as))
		} else {
			ok2, b = BitsMul(b, types.Pow10(as-bs))
		}
		if ok1 && ok2 {
			switch {
			case a < b:
				return -1
			case a > b:
				return 1
			}
			return 0
		}
	}
	// -Infinity, the numbers, Infinity, then NaN (equal to itself), as
	// cmp_numerics has it
	if lk, rk := l.NumericSpecial(i), r.NumericSpecial(j); lk != 0 || rk != 0 {
		return cmp.Compare(lk, rk)
	}
	if a, ok := numeric128(l, i); ok {
		if b, ok := numeric128(r, j); ok {
			if c, ok := cmpDec128(a, b); ok {
				return c
			}
		}
	}
	x, sx := NumericValue(l, i)
	y, sy := NumericValue(r, j)
	s := max(sx, sy)
	return types.RescaleBig(x, sx, s).Cmp(types.RescaleBig(y, sy, s))
}

// CompareRows compares row i of a with row j of b (same type, non-NULL).
func CompareRows(a *vec.Vector, i int, b *vec.Vector, j int) int {
	switch {
	case a.Type.ID == types.Numeric:
		return CompareNumeric(a, i, b, j)
	case a.Type.Storage() == types.StoreInt:
		x, y := a.I64[i], b.I64[j]
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	case a.Type.Storage() == types.StoreFloat:
		return CompareFloat(a.F64[i], b.F64[j])
	case a.Type.Storage() == types.StoreBool:
		return CompareBool(a.B[i], b.B[j])
	case a.Type.Storage() == types.StoreInterval:
		return types.CompareInterval(a.Iv[i], b.Iv[j])
	}
	return strings.Compare(a.S[i], b.S[j])
}

// Not negates a boolean.
type Not struct {
	E   Expr
	out *vec.Vector
}

func (e *Not) Type() types.T { return types.BoolT }
func (e *Not) Eval(env *Env, b *vec.Batch) (*vec.Vector, error) {
	v, err := e.E.Eval(env, b)
	if err != nil {
		return nil, err
	}
	n := b.N
	out := outVec(&e.out, types.BoolT, n)
	out.B = out.B[:n]
	for i, x := range v.B[:n] {
		out.B[i] = !x
	}
	out.Nulls = v.Nulls
	return out, nil
}

// IsNull is IS [NOT] NULL.
type IsNull struct {
	E   Expr
	Not bool
	out *vec.Vector
}

func (e *IsNull) Type() types.T { return types.BoolT }
func (e *IsNull) Eval(env *Env, b *vec.Batch) (*vec.Vector, error) {
	v, err := e.E.Eval(env, b)
	if err != nil {
		return nil, err
	}
	n := b.N
	out := outVec(&e.out, types.BoolT, n)
	out.B = out.B[:n]
	if v.Nulls == nil {
		for i := range out.B {
			out.B[i] = e.Not
		}
		return out, nil
	}
	for i, isNull := range v.Nulls[:n] {
		out.B[i] = isNull != e.Not
	}
	return out, nil
}

// Like is [NOT] LIKE / ILIKE with a pattern evaluated per batch (constant
// patterns compile once).
type Like struct {
	E, Pattern Expr
	Not, Fold  bool
	re         *regexp.Regexp
	lit        *likeLits // patterns of literals and % only: substring search
	pat        string
}

// likeLits is a LIKE pattern made of literal segments separated by %:
// matched with substring search instead of a regular expression.
type likeLits struct {
	segs             []string
	anchorL, anchorR bool // the pattern does not start / end with %
}

// likeLiterals splits a pattern without _ or escapes into its segments.
func likeLiterals(p string) (*likeLits, bool) {
	if strings.ContainsAny(p, "_\\") {
		return nil, false
	}
	l := &likeLits{anchorL: !strings.HasPrefix(p, "%"), anchorR: !strings.HasSuffix(p, "%")}
	for _, s := range strings.Split(p, "%") {
		if s != "" {
			l.segs = append(l.segs, s)
		}
	}
	return l, true
}

func (l *likeLits) match(s string) bool {
	segs := l.segs
	if len(segs) == 0 {
		return !l.anchorL || s == "" // "" matches only ""; "%" matches all
	}
	if l.anchorL {
		if !strings.HasPrefix(s, segs[0]) {
			return false
		}
		if len(segs) == 1 && l.anchorR {
			return len(s) == len(segs[0])
		}
		s = s[len(segs[0]):]
		segs = segs[1:]
	}
	last := ""
	if l.anchorR && len(segs) > 0 {
		last = segs[len(segs)-1]
		segs = segs[:len(segs)-1]
	}
	for _, seg := range segs {
		k := strings.Index(s, seg)
		if k < 0 {
			return false
		}
		s = s[k+len(seg):]
	}
	if l.anchorR {
		return strings.HasSuffix(s, last)
	}
	return true
}

func (e *Like) Type() types.T { return types.BoolT }

func likeRegexp(p string, fold bool) (*regexp.Regexp, error) {
	var sb strings.Builder
	if fold {
		sb.WriteString("(?is)^")
	} else {
		sb.WriteString("(?s)^")
	}
	// by runes: a multi-byte character is one literal, and _ one character
	rs := []rune(p)
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		switch c {
		case '%':
			sb.WriteString(".*")
		case '_':
			sb.WriteString(".")
		case '\\':
			if i+1 >= len(rs) {
				return nil, pgerr.New("22025", "LIKE pattern must not end with escape character")
			}
			i++
			sb.WriteString(regexp.QuoteMeta(string(rs[i])))
		default:
			sb.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	sb.WriteString("$")
	return regexp.Compile(sb.String())
}

func (e *Like) Eval(env *Env, b *vec.Batch) (*vec.Vector, error) {
	v, err := e.E.Eval(env, b)
	if err != nil {
		return nil, err
	}
	p, err := e.Pattern.Eval(env, b)
	if err != nil {
		return nil, err
	}
	out := vec.New(types.BoolT, b.N)
	out.B = out.B[:b.N]
	for i := 0; i < b.N; i++ {
		if v.IsNull(i) || p.IsNull(i) {
			continue
		}
		if (e.re == nil && e.lit == nil) || e.pat != p.S[i] {
			e.pat = p.S[i]
			e.re, e.lit = nil, nil
			if lit, ok := likeLiterals(p.S[i]); ok && !e.Fold {
				e.lit = lit
			} else {
				re, err := likeRegexp(p.S[i], e.Fold)
				if err != nil {
					return nil, err
				}
				e.re = re
			}
		}
		if e.lit != nil {
			out.B[i] = e.lit.match(v.S[i]) != e.Not
		} else {
			out.B[i] = e.re.MatchString(v.S[i]) != e.Not
		}
	}
	out.Nulls = mergeNulls(b.N, v, p)
	return out, nil
}

// Func is a scalar function applied row by row on non-NULL inputs (strict).
type Func struct {
	Name string
	Args []Expr
	T    types.T
	Fn   func(out *vec.Vector, args []*vec.Vector, i int) error
	// NonStrict passes rows with NULL arguments to Fn too.
	NonStrict bool
}

func (e *Func) Type() types.T { return e.T }
func (e *Func) Eval(env *Env, b *vec.Batch) (*vec.Vector, error) {
	vs := make([]*vec.Vector, len(e.Args))
	for k, a := range e.Args {
		v, err := a.Eval(env, b)
		if err != nil {
			return nil, err
		}
		vs[k] = v
	}
	out := vec.New(e.T, b.N)
	for i := 0; i < b.N; i++ {
		null := false
		for _, v := range vs {
			if v.IsNull(i) && !e.NonStrict {
				null = true
				break
			}
		}
		if null {
			out.AppendNull()
			continue
		}
		if err := e.Fn(out, vs, i); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Concat is the || operator on text.
func Concat(out *vec.Vector, a []*vec.Vector, i int) error {
	out.AppendString(a[0].S[i] + a[1].S[i])
	return nil
}
