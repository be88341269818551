package fn

import (
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// Numeric values arrive in two shapes: fixed scale (t.Scale >= 0, I64 holds
// value·10^scale) and dynamic (t.Scale < 0, S holds decimal text with the
// value's own display scale). Kernels take fast int64 paths on the first and
// go through big.Int otherwise; results are written in whichever shape the
// output vector has. Result scales follow PostgreSQL's numeric.c.

// PostgreSQL's numeric constants.
const (
	minSigDigits    = 16 // NUMERIC_MIN_SIG_DIGITS
	maxDisplayScale = 1000
	decDigits       = 4 // DEC_DIGITS: base-10000 digits
	maxResultScale  = 2000
)

var (
	errNumericOverflow = pgerr.New(pgerr.NumericValueOutOfRange, "value overflows numeric format")
	errDivByZero       = pgerr.New(pgerr.DivisionByZero, "division by zero")
)

var bigTen = big.NewInt(10)

func pow10Big(n int) *big.Int {
	if n <= 18 {
		return big.NewInt(types.Pow10(n))
	}
	return new(big.Int).Exp(bigTen, big.NewInt(int64(n)), nil)
}

// decAt reads row i of a numeric vector as unscaled digits and scale.
func decAt(v *vec.Vector, i int) (*big.Int, int) {
	if v.Type.Scale >= 0 {
		return big.NewInt(v.I64[i]), v.Type.Scale
	}
	d, s, err := types.ParseDecimal(v.S[i])
	if err != nil {
		return new(big.Int), 0
	}
	return d, s
}

// numOut sizes out for numeric results.
func numOut(out *vec.Vector, n int) {
	if out.Type.Scale >= 0 {
		outI64(out, n)
	} else {
		outS(out, n)
	}
}

// putDec writes d·10^-s to row i of a numeric output, rounding to a fixed
// output scale (half away from zero) or printing with scale s.
func putDec(out *vec.Vector, i int, d *big.Int, s int) error {
	if out.Type.Scale < 0 {
		out.S[i] = types.FormatBig(d, s)
		return nil
	}
	r := d
	if s != out.Type.Scale {
		r = types.RescaleBig(d, s, out.Type.Scale)
	}
	if !r.IsInt64() || (out.Type.Precision > 0 && !fitsPrecision(r.Int64(), out.Type.Precision)) {
		return errNumericOverflow
	}
	out.I64[i] = r.Int64()
	return nil
}

func fitsPrecision(v int64, p int) bool {
	if p >= 19 {
		return true
	}
	return v < types.Pow10(p) && v > -types.Pow10(p)
}

// putDecI64 is putDec for a value that fits in an int64.
func putDecI64(out *vec.Vector, i int, v int64, s int) error {
	os := out.Type.Scale
	switch {
	case os < 0:
		out.S[i] = string(types.AppendNumeric(nil, v, s))
		return nil
	case os == s:
		out.I64[i] = v
		return nil
	case os > s && os-s <= 18:
		r, ok := mul64(v, types.Pow10(os-s))
		if !ok {
			return errNumericOverflow
		}
		out.I64[i] = r
		return nil
	}
	return putDec(out, i, big.NewInt(v), s)
}

func mul64(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	c := a * b
	if c/b != a || (a == -1 && b == math.MinInt64) || (b == -1 && a == math.MinInt64) {
		return 0, false
	}
	return c, true
}

// roundHalfAway divides v by m (> 0) rounding half away from zero.
func roundHalfAway(v, m int64) int64 {
	q, r := v/m, v%m
	if r < 0 {
		r = -r
	}
	if r >= m-r { // 2r >= m without overflow
		if v < 0 {
			q--
		} else {
			q++
		}
	}
	return q
}

// roundDec rounds (or truncates) d·10^-s to k digits after the point; the
// result scale is max(k, 0), as PostgreSQL's round/trunc give.
func roundDec(d *big.Int, s, k int, trunc bool) (*big.Int, int) {
	rs := max(k, 0)
	if k >= s {
		return new(big.Int).Mul(d, pow10Big(rs-s)), rs
	}
	m := pow10Big(s - k)
	q, r := new(big.Int).QuoRem(d, m, new(big.Int))
	if !trunc {
		r.Abs(r).Lsh(r, 1)
		if r.Cmp(m) >= 0 {
			if d.Sign() < 0 {
				q.Sub(q, big.NewInt(1))
			} else {
				q.Add(q, big.NewInt(1))
			}
		}
	}
	if k < 0 {
		q.Mul(q, pow10Big(-k))
	}
	return q, rs
}

// nbase describes a decimal as PostgreSQL's NumericVar does: its base-10000
// weight and its first two base-10000 digits (d1 = -1 when there is one).
type nbase struct {
	weight  int
	d0, d1  int
	ndigits int
}

func nbaseOf(d *big.Int, s int) nbase {
	if d.Sign() == 0 {
		return nbase{d1: -1}
	}
	str := new(big.Int).Abs(d).String()
	if s < 0 {
		str += strings.Repeat("0", -s)
		s = 0
	}
	if len(str) <= s {
		str = strings.Repeat("0", s-len(str)+1) + str
	}
	ip, fp := str[:len(str)-s], str[len(str)-s:]
	ip = strings.Repeat("0", (decDigits-len(ip)%decDigits)%decDigits) + ip
	fp += strings.Repeat("0", (decDigits-len(fp)%decDigits)%decDigits)
	all := ip + fp
	weight := len(ip)/decDigits - 1
	for len(all) >= decDigits && all[:decDigits] == "0000" {
		all = all[decDigits:]
		weight--
	}
	for len(all) >= decDigits && all[len(all)-decDigits:] == "0000" {
		all = all[:len(all)-decDigits]
	}
	nb := nbase{weight: weight, d1: -1, ndigits: len(all) / decDigits}
	nb.d0, _ = strconv.Atoi(all[:decDigits])
	if nb.ndigits > 1 {
		nb.d1, _ = strconv.Atoi(all[decDigits : 2*decDigits])
	}
	return nb
}

func decToFloat(d *big.Int, s int) float64 {
	f, _ := strconv.ParseFloat(types.FormatBig(d, s), 64)
	return f
}

// estimateLnDweight is PostgreSQL's estimate_ln_dweight: the decimal weight
// of ln(x), which sets the scale ln, log and power compute to.
func estimateLnDweight(d *big.Int, s int) int {
	if d.Sign() <= 0 {
		return 0
	}
	// 0.9 <= x <= 1.1: ln(x) ≈ x - 1
	x := new(big.Rat).SetFrac(d, pow10Big(max(s, 0)))
	if s < 0 {
		x.SetInt(new(big.Int).Mul(d, pow10Big(-s)))
	}
	if x.Cmp(big.NewRat(9, 10)) >= 0 && x.Cmp(big.NewRat(11, 10)) <= 0 {
		one := types.RescaleBig(big.NewInt(1), 0, s)
		diff := new(big.Int).Sub(d, one)
		if diff.Sign() == 0 {
			return 0
		}
		nb := nbaseOf(diff, s)
		return nb.weight*decDigits + int(math.Log10(float64(nb.d0)))
	}
	nb := nbaseOf(d, s)
	digits := nb.d0
	dweight := nb.weight * decDigits
	if nb.ndigits > 1 {
		digits = digits*10000 + nb.d1
		dweight -= decDigits
	}
	lnv := math.Log(float64(digits)) + float64(dweight)*2.302585092994046
	return int(math.Log10(math.Abs(lnv)))
}

func clampScale(rs int) int { return min(max(rs, 0), maxDisplayScale) }

// precFor is a big.Float precision (bits) comfortably above what rounding
// to rscale digits of a value with the given decimal weight needs.
func precFor(rscale, weight int) uint {
	digits := rscale + max(weight, 0) + 24
	return uint(float64(digits)*3.33) + 64
}

func decToBigFloat(d *big.Int, s int, prec uint) *big.Float {
	f := new(big.Float).SetPrec(prec).SetInt(d)
	if s > 0 {
		f.Quo(f, new(big.Float).SetPrec(prec).SetInt(pow10Big(s)))
	} else if s < 0 {
		f.Mul(f, new(big.Float).SetPrec(prec).SetInt(pow10Big(-s)))
	}
	return f
}

// bigFloatToDec rounds f to rscale decimal places, half away from zero.
func bigFloatToDec(f *big.Float, rscale int) *big.Int {
	prec := max(f.Prec(), uint(rscale)*4+64)
	scaled := new(big.Float).SetPrec(prec).Mul(f, new(big.Float).SetPrec(prec).SetInt(pow10Big(rscale)))
	half := new(big.Float).SetPrec(prec).SetFloat64(0.5)
	if scaled.Sign() < 0 {
		scaled.Sub(scaled, half)
	} else {
		scaled.Add(scaled, half)
	}
	r, _ := scaled.Int(nil)
	return r
}

// bigLn is the natural logarithm of x > 0 at prec bits: x = m·2^e, m pushed
// towards 1 by square roots, then 2·atanh((m-1)/(m+1)).
func bigLn(x *big.Float, prec uint) *big.Float {
	const roots = 8
	wp := prec + 32 + roots
	m := new(big.Float).SetPrec(wp)
	e := x.MantExp(m)
	for k := 0; k < roots; k++ {
		m.Sqrt(m)
	}
	r := atanhSeries(m, wp)
	r.SetMantExp(r, roots+1) // ·2^roots for the roots, ·2 for 2·atanh
	if e != 0 {
		l2 := ln2(wp)
		r.Add(r, l2.Mul(l2, new(big.Float).SetPrec(wp).SetInt64(int64(e))))
	}
	return r.SetPrec(prec)
}

// atanhSeries returns atanh((m-1)/(m+1)) = Σ z^(2k+1)/(2k+1).
func atanhSeries(m *big.Float, wp uint) *big.Float {
	one := new(big.Float).SetPrec(wp).SetInt64(1)
	num := new(big.Float).SetPrec(wp).Sub(m, one)
	den := new(big.Float).SetPrec(wp).Add(m, one)
	z := new(big.Float).SetPrec(wp).Quo(num, den)
	z2 := new(big.Float).SetPrec(wp).Mul(z, z)
	sum := new(big.Float).SetPrec(wp).Set(z)
	term := new(big.Float).SetPrec(wp).Set(z)
	t := new(big.Float).SetPrec(wp)
	for k := int64(3); ; k += 2 {
		term.Mul(term, z2)
		t.Quo(term, new(big.Float).SetPrec(wp).SetInt64(k))
		if t.Sign() == 0 || t.MantExp(nil)-sum.MantExp(nil) < -int(wp) {
			break
		}
		sum.Add(sum, t)
	}
	return sum
}

func ln2(wp uint) *big.Float {
	// ln 2 = 2·atanh(1/3): m = 2 gives z = 1/3
	r := atanhSeries(new(big.Float).SetPrec(wp).SetInt64(2), wp)
	return r.SetMantExp(r, 1)
}

// bigExp is e^x at prec bits: x = n·ln2 + r, then a Taylor series on
// r/2^16 squared back 16 times.
func bigExp(x *big.Float, prec uint) *big.Float {
	const halvings = 16
	wp := prec + 64 + halvings
	l2 := ln2(wp)
	q := new(big.Float).SetPrec(wp).Quo(x, l2)
	nf, _ := q.Float64()
	n := int64(math.Round(nf))
	r := new(big.Float).SetPrec(wp).Sub(x, new(big.Float).SetPrec(wp).Mul(l2, new(big.Float).SetPrec(wp).SetInt64(n)))
	r.SetMantExp(r, -halvings)
	sum := new(big.Float).SetPrec(wp).SetInt64(1)
	term := new(big.Float).SetPrec(wp).SetInt64(1)
	for k := int64(1); ; k++ {
		term.Mul(term, r)
		term.Quo(term, new(big.Float).SetPrec(wp).SetInt64(k))
		if term.Sign() == 0 || term.MantExp(nil) < -int(wp) {
			break
		}
		sum.Add(sum, term)
	}
	for k := 0; k < halvings; k++ {
		sum.Mul(sum, sum)
	}
	sum.SetMantExp(sum, int(n))
	return sum.SetPrec(prec)
}

var (
	errLogZero    = pgerr.New("2201E", "cannot take logarithm of zero")
	errLogNeg     = pgerr.New("2201E", "cannot take logarithm of a negative number")
	errSqrtNeg    = pgerr.New("2201F", "cannot take square root of a negative number")
	errZeroNegPow = pgerr.New("2201F", "zero raised to a negative power is undefined")
	errNegFracPow = pgerr.New("2201F", "a negative number raised to a non-integer power yields a complex result")
)

// decSqrt is numeric sqrt with PostgreSQL's result scale.
func decSqrt(d *big.Int, s int) (*big.Int, int, error) {
	if d.Sign() < 0 {
		return nil, 0, errSqrtNeg
	}
	nb := nbaseOf(d, s)
	sweight := (nb.weight+1)*decDigits/2 - 1
	rs := clampScale(max(minSigDigits-sweight, s))
	// floor(sqrt(d·10^(2(rs+1)-s))) has rs+1 digits after the point; its
	// last digit decides the rounding exactly
	shift := 2*(rs+1) - s
	var n *big.Int
	if shift >= 0 {
		n = new(big.Int).Mul(d, pow10Big(shift))
	} else {
		n = new(big.Int).Quo(d, pow10Big(-shift))
	}
	r := new(big.Int).Sqrt(n)
	q, last := new(big.Int).QuoRem(r, bigTen, new(big.Int))
	if last.Int64() >= 5 {
		q.Add(q, big.NewInt(1))
	}
	return q, rs, nil
}

// decLn is numeric ln with PostgreSQL's result scale.
func decLn(d *big.Int, s int) (*big.Int, int, error) {
	switch d.Sign() {
	case 0:
		return nil, 0, errLogZero
	case -1:
		return nil, 0, errLogNeg
	}
	rs := clampScale(max(minSigDigits-estimateLnDweight(d, s), s))
	x := decToBigFloat(d, s, precFor(rs, 4))
	return bigFloatToDec(bigLn(x, precFor(rs, 4)), rs), rs, nil
}

// decLog is log(base, x) for numerics.
func decLog(b *big.Int, bs int, d *big.Int, s int) (*big.Int, int, error) {
	for _, v := range []*big.Int{b, d} {
		switch v.Sign() {
		case 0:
			return nil, 0, errLogZero
		case -1:
			return nil, 0, errLogNeg
		}
	}
	if b.Cmp(pow10Big(max(bs, 0))) == 0 && bs >= 0 {
		return nil, 0, errDivByZero // ln(1) = 0
	}
	rs := minSigDigits - (estimateLnDweight(d, s) - estimateLnDweight(b, bs))
	rs = clampScale(max(rs, bs, s))
	prec := precFor(rs, 8)
	lb := bigLn(decToBigFloat(b, bs, prec), prec)
	if lb.Sign() == 0 {
		return nil, 0, errDivByZero
	}
	lx := bigLn(decToBigFloat(d, s, prec), prec)
	return bigFloatToDec(new(big.Float).SetPrec(prec).Quo(lx, lb), rs), rs, nil
}

// decExp is numeric exp with PostgreSQL's result scale.
func decExp(d *big.Int, s int) (*big.Int, int, error) {
	val := decToFloat(d, s)
	if val > maxResultScale*3 {
		return nil, 0, errNumericOverflow
	}
	w := val * 0.434294481903252
	w = math.Min(math.Max(w, -maxResultScale), maxResultScale)
	rs := clampScale(max(minSigDigits-int(w), s))
	if val < -maxResultScale*3 {
		return new(big.Int), rs, nil
	}
	prec := precFor(rs, int(w)+1)
	return bigFloatToDec(bigExp(decToBigFloat(d, s, prec), prec), rs), rs, nil
}

// isIntegral reports whether d·10^-s has no fractional part.
func isIntegral(d *big.Int, s int) bool {
	if s <= 0 {
		return true
	}
	return new(big.Int).Rem(d, pow10Big(s)).Sign() == 0
}

// decPow is numeric power with PostgreSQL's power_var result scales.
func decPow(b *big.Int, bs int, e *big.Int, es int) (*big.Int, int, error) {
	if b.Sign() == 0 && e.Sign() < 0 {
		return nil, 0, errZeroNegPow
	}
	if isIntegral(e, es) {
		ei := types.RescaleBig(e, es, 0)
		if ei.IsInt64() && ei.Int64() >= math.MinInt32 && ei.Int64() <= math.MaxInt32 {
			rs := clampScale(max(minSigDigits, bs))
			return decPowInt(b, bs, ei.Int64(), rs)
		}
	}
	if b.Sign() == 0 {
		return new(big.Int), minSigDigits, nil
	}
	neg := false
	if b.Sign() < 0 {
		if !isIntegral(e, es) {
			return nil, 0, errNegFracPow
		}
		ei := types.RescaleBig(e, es, 0)
		neg = ei.Bit(0) == 1
		b = new(big.Int).Neg(b)
	}
	// low-precision estimate of exp·ln(base) for the result weight
	lnb := math.Log(decToFloat(b, bs))
	if math.IsInf(lnb, 0) || math.IsNaN(lnb) {
		lnb = bigLnFloat64(b, bs)
	}
	val := lnb * decToFloat(e, es)
	if math.Abs(val) > maxResultScale*3.01 {
		if val > 0 {
			return nil, 0, errNumericOverflow
		}
		return new(big.Int), maxDisplayScale, nil
	}
	val *= 0.434294481903252
	rs := clampScale(max(minSigDigits-int(val), bs, es))
	prec := precFor(rs, int(val)+1)
	x := bigLn(decToBigFloat(b, bs, prec), prec)
	x.Mul(x, decToBigFloat(e, es, prec))
	r := bigFloatToDec(bigExp(x, prec), rs)
	if neg {
		r.Neg(r)
	}
	return r, rs, nil
}

func bigLnFloat64(d *big.Int, s int) float64 {
	f, _ := bigLn(decToBigFloat(d, s, 128), 128).Float64()
	return f
}

// decPowInt raises to an integer power, exactly when the digits stay
// reasonable, rounding to rs places.
func decPowInt(b *big.Int, bs int, e int64, rs int) (*big.Int, int, error) {
	if e == 0 {
		return pow10Big(rs), rs, nil
	}
	ae := e
	if ae < 0 {
		ae = -ae
	}
	digits := int64(len(new(big.Int).Abs(b).String()))
	if digits*ae > 20000 {
		// too large to compute exactly: go through exp and ln
		neg := b.Sign() < 0 && ae%2 == 1
		ab := new(big.Int).Abs(b)
		lnb := bigLnFloat64(ab, bs)
		w := lnb * float64(e) * 0.434294481903252
		if w > maxResultScale*3 {
			return nil, 0, errNumericOverflow
		}
		if w < -maxResultScale*3 {
			return new(big.Int), rs, nil
		}
		prec := precFor(rs, int(w)+1)
		x := bigLn(decToBigFloat(ab, bs, prec), prec)
		x.Mul(x, new(big.Float).SetPrec(prec).SetInt64(e))
		r := bigFloatToDec(bigExp(x, prec), rs)
		if neg {
			r.Neg(r)
		}
		return r, rs, nil
	}
	p := new(big.Int).Exp(b, big.NewInt(ae), nil)
	ps := bs * int(ae)
	if e > 0 {
		return types.RescaleBig(p, ps, rs), rs, nil
	}
	// 1 / (p·10^-ps) at rs places = 10^(ps+rs) / p, rounded
	num := pow10Big(ps + rs + 1)
	q := new(big.Int).Quo(num, p)
	return types.RescaleBig(q, rs+1, rs), rs, nil
}

// divScale is PostgreSQL's select_div_scale for x / y.
func divScale(x *big.Int, sx int, y *big.Int, sy int) int {
	nx, ny := nbaseOf(x, sx), nbaseOf(y, sy)
	qweight := nx.weight - ny.weight
	if x.Sign() == 0 {
		qweight = -ny.weight
	}
	if nx.d0 <= ny.d0 {
		qweight--
	}
	rs := minSigDigits - qweight*decDigits
	return min(max(rs, sx, sy, 0), maxDisplayScale)
}

// decDiv is numeric division with PostgreSQL's result scale.
func decDiv(x *big.Int, sx int, y *big.Int, sy int) (*big.Int, int, error) {
	if y.Sign() == 0 {
		return nil, 0, errDivByZero
	}
	rs := divScale(x, sx, y, sy)
	// x·10^-sx / (y·10^-sy) at rs+1 places, then rounded to rs
	num := new(big.Int).Mul(x, pow10Big(sy+rs+1))
	den := new(big.Int).Mul(y, pow10Big(sx))
	q := num.Quo(num, den)
	return types.RescaleBig(q, rs+1, rs), rs, nil
}
