package types

import (
	"encoding/hex"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/lakepg/lakepg/pgerr"
)

// Dates are days since 1970-01-01; timestamps are microseconds since
// 1970-01-01 00:00:00 UTC: the Parquet and DuckLake conventions, so scans
// need no conversion.

var pow10 = [...]int64{1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000,
	1000000000, 10000000000, 100000000000, 1000000000000, 10000000000000,
	100000000000000, 1000000000000000, 10000000000000000, 100000000000000000,
	1000000000000000000}

// Pow10 returns 10^n for 0 <= n <= 18.
func Pow10(n int) int64 { return pow10[n] }

// AppendInt formats an integer.
func AppendInt(dst []byte, v int64) []byte { return strconv.AppendInt(dst, v, 10) }

// AppendFloat formats a float as PostgreSQL does with extra_float_digits = 1
// (the default since PostgreSQL 12): the shortest exact representation, in
// exponent form when the decimal exponent is below -4 or at least the type's
// digit count (15 for double precision, 6 for real).
func AppendFloat(dst []byte, f float64, bits int) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, "NaN"...)
	case math.IsInf(f, 1):
		return append(dst, "Infinity"...)
	case math.IsInf(f, -1):
		return append(dst, "-Infinity"...)
	case f == 0:
		if math.Signbit(f) {
			return append(dst, "-0"...)
		}
		return append(dst, '0')
	}
	digits := 15
	if bits == 32 {
		digits = 6
	}
	var buf [32]byte
	e, tie := shortestE(buf[:0], f, bits)
	exp := eExponent(e)
	switch {
	case exp < -4 || exp >= digits:
		return append(dst, e...)
	case tie:
		return eToFixed(dst, e)
	}
	return strconv.AppendFloat(dst, f, 'f', -1, bits)
}

// eExponent reads the exponent of an 'e'-formatted number (-1.2345e+07).
func eExponent(e []byte) int {
	i := len(e) - 1
	for i > 0 && e[i] != 'e' {
		i--
	}
	exp := 0
	for _, c := range e[i+2:] {
		exp = exp*10 + int(c-'0')
	}
	if e[i+1] == '-' {
		return -exp
	}
	return exp
}

// AppendNumeric formats a scaled integer with scale digits after the point.
// It allocates nothing: a result of millions of rows formats a numeric
// column once per row.
func AppendNumeric(dst []byte, v int64, scale int) []byte {
	if scale <= 0 {
		return strconv.AppendInt(dst, v, 10)
	}
	neg := v < 0
	u := uint64(v)
	if neg {
		u = uint64(-v)
		dst = append(dst, '-')
	}
	var buf [24]byte
	s := strconv.AppendUint(buf[:0], u, 10)
	if len(s) <= scale {
		dst = append(dst, '0', '.')
		for i := len(s); i < scale; i++ {
			dst = append(dst, '0')
		}
		return append(dst, s...)
	}
	dst = append(dst, s[:len(s)-scale]...)
	dst = append(dst, '.')
	return append(dst, s[len(s)-scale:]...)
}

// AppendBool formats t/f.
func AppendBool(dst []byte, b bool) []byte {
	if b {
		return append(dst, 't')
	}
	return append(dst, 'f')
}

// AppendBytea formats bytea in PostgreSQL's default hex output.
func AppendBytea(dst []byte, b string) []byte {
	dst = append(dst, '\\', 'x')
	return hex.AppendEncode(dst, []byte(b))
}

// AppendUUID formats 16 raw bytes as a canonical uuid.
func AppendUUID(dst []byte, b string) []byte {
	var buf [36]byte
	hex.Encode(buf[0:8], []byte(b[0:4]))
	buf[8] = '-'
	hex.Encode(buf[9:13], []byte(b[4:6]))
	buf[13] = '-'
	hex.Encode(buf[14:18], []byte(b[6:8]))
	buf[18] = '-'
	hex.Encode(buf[19:23], []byte(b[8:10]))
	buf[23] = '-'
	hex.Encode(buf[24:], []byte(b[10:16]))
	return append(dst, buf[:]...)
}

// AppendDate formats days since the epoch as ISO.
func AppendDate(dst []byte, days int64) []byte {
	switch days {
	case DateInfinity:
		return append(dst, "infinity"...)
	case DateNegInfinity:
		return append(dst, "-infinity"...)
	}
	if y, m, d := civilDate(days); y >= 1 && y <= 9999 {
		return append(dst, byte('0'+y/1000), byte('0'+y/100%10), byte('0'+y/10%10), byte('0'+y%10), '-',
			byte('0'+m/10), byte('0'+m%10), '-', byte('0'+d/10), byte('0'+d%10))
	}
	t := time.Unix(days*86400, 0).UTC()
	return appendYMD(dst, t)
}

// civilDate is the proleptic Gregorian year, month and day of a count of
// days since 1970-01-01, by integer arithmetic on 400-year eras (what
// time.Time.Date computes, without building a Time per value).
func civilDate(days int64) (y, m, d int64) {
	z := days + 719468 // days since 0000-03-01
	era := z / 146097
	if z < 0 && z%146097 != 0 {
		era--
	}
	doe := z - era*146097                                  // [0, 146096]
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365 // [0, 399]
	doy := doe - (365*yoe + yoe/4 - yoe/100)               // [0, 365], from March 1
	mp := (5*doy + 2) / 153                                // [0, 11], March = 0
	d = doy - (153*mp+2)/5 + 1
	m = mp + 3
	if m > 12 {
		m -= 12
	}
	y = yoe + era*400
	if m <= 2 {
		y++
	}
	return y, m, d
}

func appendYMD(dst []byte, t time.Time) []byte {
	y, m, d := t.Date()
	bc := y <= 0
	if bc {
		y = 1 - y
	}
	dst = appendPad(dst, y, 4)
	dst = append(dst, '-')
	dst = appendPad(dst, int(m), 2)
	dst = append(dst, '-')
	dst = appendPad(dst, d, 2)
	if bc {
		// caller appends the time first for timestamps; dates end here.
		dst = append(dst, " BC"...)
	}
	return dst
}

func appendPad(dst []byte, v, width int) []byte {
	switch {
	case width == 2 && v >= 0 && v < 100:
		return append(dst, byte('0'+v/10), byte('0'+v%10))
	case width == 4 && v >= 0 && v < 10000:
		return append(dst, byte('0'+v/1000), byte('0'+v/100%10), byte('0'+v/10%10), byte('0'+v%10))
	}
	var buf [20]byte
	s := strconv.AppendInt(buf[:0], int64(v), 10)
	for i := len(s); i < width; i++ {
		dst = append(dst, '0')
	}
	return append(dst, s...)
}

func appendClock(dst []byte, t time.Time) []byte {
	h, mi, s := t.Clock()
	dst = appendPad(dst, h, 2)
	dst = append(dst, ':')
	dst = appendPad(dst, mi, 2)
	dst = append(dst, ':')
	dst = appendPad(dst, s, 2)
	if us := t.Nanosecond() / 1000; us != 0 {
		f := []byte(strconv.Itoa(us + 1000000)[1:])
		for len(f) > 0 && f[len(f)-1] == '0' {
			f = f[:len(f)-1]
		}
		dst = append(dst, '.')
		dst = append(dst, f...)
	}
	return dst
}

// MicrosToTime converts epoch microseconds to a time in loc.
func MicrosToTime(us int64, loc *time.Location) time.Time {
	return time.UnixMicro(us).In(loc)
}

// AppendTimestamp formats a timestamp without time zone.
func AppendTimestamp(dst []byte, us int64) []byte {
	return appendTS(dst, MicrosToTime(us, time.UTC), false)
}

// AppendTimestamptz formats a timestamp with time zone in loc, as
// PostgreSQL's ISO DateStyle does (offset +HH, +HH:MM when not whole hours).
func AppendTimestamptz(dst []byte, us int64, loc *time.Location) []byte {
	return appendTS(dst, MicrosToTime(us, loc), true)
}

func appendTS(dst []byte, t time.Time, zone bool) []byte {
	y := t.Year()
	bc := y <= 0
	if bc {
		t = t.AddDate(1-2*y, 0, 0) // show the year number, mark BC below
	}
	d := appendYMD(nil, t)
	dst = append(dst, d...)
	dst = append(dst, ' ')
	dst = appendClock(dst, t)
	if zone {
		_, off := t.Zone()
		sign := byte('+')
		if off < 0 {
			sign = '-'
			off = -off
		}
		dst = append(dst, sign)
		dst = appendPad(dst, off/3600, 2)
		if m := (off % 3600) / 60; m != 0 || off%60 != 0 {
			dst = append(dst, ':')
			dst = appendPad(dst, m, 2)
			if s := off % 60; s != 0 {
				dst = append(dst, ':')
				dst = appendPad(dst, s, 2)
			}
		}
	}
	if bc {
		dst = append(dst, " BC"...)
	}
	return dst
}

func invalid(t string, s string) *pgerr.Error {
	return pgerr.New(pgerr.InvalidTextRepr, "invalid input syntax for type %s: \"%s\"", t, s)
}

func outOfRange(t string, s string) *pgerr.Error {
	return pgerr.New(pgerr.NumericValueOutOfRange, "value \"%s\" is out of range for type %s", s, t)
}

// ParseInt parses an integer literal for a type of the given bit size.
func ParseInt(s string, bits int) (int64, error) {
	t := strings.TrimSpace(s)
	v, err := strconv.ParseInt(t, 10, bits)
	if err != nil {
		name := "bigint"
		switch bits {
		case 16:
			name = "smallint"
		case 32:
			name = "integer"
		}
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return 0, outOfRange(name, s)
		}
		return 0, invalid(name, s)
	}
	return v, nil
}

// ParseFloat parses real/double text, accepting PostgreSQL's spellings of
// infinity and NaN.
func ParseFloat(s string, bits int) (float64, error) {
	name := "double precision"
	if bits == 32 {
		name = "real"
	}
	t := strings.ToLower(strings.TrimSpace(s))
	switch t {
	case "nan":
		return math.NaN(), nil
	case "infinity", "+infinity", "inf", "+inf":
		return math.Inf(1), nil
	case "-infinity", "-inf":
		return math.Inf(-1), nil
	}
	v, err := strconv.ParseFloat(t, bits)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return 0, outOfRange(name, s)
		}
		return 0, invalid(name, s)
	}
	return v, nil
}

// ParseBool parses PostgreSQL boolean input.
func ParseBool(s string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "t", "true", "y", "yes", "on", "1", "tr", "tru", "ye":
		return true, nil
	case "f", "false", "n", "no", "off", "0", "fa", "fal", "fals":
		return false, nil
	}
	return false, invalid("boolean", s)
}

// NumericNaN and the infinities are numeric's special values as an
// unconstrained numeric holds them (their text); a numeric with a declared
// scale, a scaled int64, has none of them.
const (
	NumericNaN    = "NaN"
	NumericInf    = "Infinity"
	NumericNegInf = "-Infinity"
)

// NumericSpecial classifies unconstrained numeric text: 0 for a number,
// -1 for -Infinity, 1 for Infinity, 2 for NaN, which is also how
// cmp_numerics orders them around the numbers.
func NumericSpecial(s string) int {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return 0
	}
	switch s {
	case NumericNaN:
		return 2
	case NumericInf:
		return 1
	case NumericNegInf:
		return -1
	}
	return 0
}

// NumericSpecialText is the text of the special value NumericSpecial
// classifies as k (not 0).
func NumericSpecialText(k int) string {
	switch k {
	case -1:
		return NumericNegInf
	case 1:
		return NumericInf
	}
	return NumericNaN
}

// ErrNumericSpecial is the error for storing the special value text into
// t, a numeric with a declared precision: PostgreSQL's numeric field
// overflow for an infinity (apply_typmod_special); a NaN it would keep, but
// lakepg's scaled integers and DuckDB's decimals have none.
func ErrNumericSpecial(t T, text string) error {
	if text == NumericNaN {
		return pgerr.New(pgerr.FeatureNotSupported, "NaN is not supported in type %s", t)
	}
	p, s := t.Precision, t.Scale
	if t.Wide() {
		s = t.DeclScale
	}
	e := pgerr.New(pgerr.NumericValueOutOfRange, "numeric field overflow")
	e.Detail = "A field with precision " + strconv.Itoa(p) + ", scale " + strconv.Itoa(s) + " cannot hold an infinite value."
	return e
}

// NumericSpecialInput reads PostgreSQL's spellings of numeric NaN and the
// infinities ("nan", "inf", "+Infinity", "-inf"; any case, surrounding white
// space allowed) as their canonical text.
func NumericSpecialInput(s string) (string, bool) {
	t := strings.TrimSpace(s)
	if t == "" || t[0] >= '0' && t[0] <= '9' || t[0] == '.' {
		return "", false
	}
	sign := ""
	if t[0] == '+' || t[0] == '-' {
		if t[0] == '-' {
			sign = "-"
		}
		t = t[1:]
	}
	switch {
	case strings.EqualFold(t, "nan") && sign == "" && !strings.HasPrefix(strings.TrimSpace(s), "+"):
		return NumericNaN, true
	case strings.EqualFold(t, "inf"), strings.EqualFold(t, "infinity"):
		return sign + NumericInf, true
	}
	return "", false
}

// ParseDecimal parses decimal text into an exact rational value's parts:
// the unscaled digits and the number of digits after the point.
func ParseDecimal(s string) (*big.Int, int, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return nil, 0, invalid("numeric", s)
	}
	mant, exp := t, 0
	if i := strings.IndexAny(t, "eE"); i >= 0 {
		e, err := strconv.Atoi(t[i+1:])
		if err != nil {
			return nil, 0, invalid("numeric", s)
		}
		mant, exp = t[:i], e
	}
	neg := false
	if mant != "" && (mant[0] == '-' || mant[0] == '+') {
		neg = mant[0] == '-'
		mant = mant[1:]
	}
	intPart, frac := mant, ""
	if i := strings.IndexByte(mant, '.'); i >= 0 {
		intPart, frac = mant[:i], mant[i+1:]
	}
	if intPart == "" && frac == "" {
		return nil, 0, invalid("numeric", s)
	}
	// up to 18 digits fit an int64: no string building, one allocation
	// (unconstrained numerics are text, parsed by every operation on them)
	var small uint64
	for _, part := range [2]string{intPart, frac} {
		for i := 0; i < len(part); i++ {
			c := part[i]
			if c < '0' || c > '9' {
				return nil, 0, invalid("numeric", s)
			}
			small = small*10 + uint64(c-'0')
		}
	}
	var digits *big.Int
	if len(intPart)+len(frac) <= 18 {
		digits = new(big.Int).SetUint64(small)
	} else {
		digits = new(big.Int)
		digits.SetString(intPart+frac, 10)
	}
	scale := len(frac) - exp
	if scale < 0 {
		digits.Mul(digits, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(-scale)), nil))
		scale = 0
	}
	if neg {
		digits.Neg(digits)
	}
	return digits, scale, nil
}

// bigPow10 caches the powers of ten decimal arithmetic rescales by.
var bigPow10 [40]*big.Int

func init() {
	for i := range bigPow10 {
		bigPow10[i] = new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(i)), nil)
	}
}

// BigPow10 returns 10^n; callers must not modify it.
func BigPow10(n int) *big.Int {
	if n < len(bigPow10) {
		return bigPow10[n]
	}
	return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil)
}

// RescaleBig rounds v (with scale from) to scale to, half away from zero.
func RescaleBig(v *big.Int, from, to int) *big.Int {
	r := new(big.Int).Set(v)
	if to == from {
		return r
	}
	if to > from {
		return r.Mul(r, BigPow10(to-from))
	}
	d := BigPow10(from - to)
	q, m := new(big.Int).QuoRem(r, d, new(big.Int))
	m.Abs(m).Mul(m, big.NewInt(2))
	if m.Cmp(d) >= 0 {
		if r.Sign() < 0 {
			q.Sub(q, big.NewInt(1))
		} else {
			q.Add(q, big.NewInt(1))
		}
	}
	return q
}

// FitNumeric converts an exact decimal to numeric(p,s) as a scaled int64,
// rounding to s digits and checking the precision as PostgreSQL does.
func FitNumeric(v *big.Int, scale, p, s int) (int64, error) {
	r := RescaleBig(v, scale, s)
	limit := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(p)), nil)
	if new(big.Int).Abs(r).Cmp(limit) >= 0 {
		e := pgerr.New(pgerr.NumericValueOutOfRange, "numeric field overflow")
		e.Detail = "A field with precision " + strconv.Itoa(p) + ", scale " + strconv.Itoa(s) +
			" must round to an absolute value less than 10^" + strconv.Itoa(p-s) + "."
		return 0, e
	}
	return r.Int64(), nil
}

// ParseNumeric parses text into numeric(p,s) as a scaled int64.
func ParseNumeric(s string, p, sc int) (int64, error) {
	v, scale, err := ParseDecimal(s)
	if err != nil {
		return 0, err
	}
	return FitNumeric(v, scale, p, sc)
}

// FormatBig formats v with scale digits after the point.
func FormatBig(v *big.Int, scale int) string {
	if v.IsInt64() {
		return FormatScaled(v.Int64(), scale)
	}
	s := new(big.Int).Abs(v).String()
	if scale > 0 {
		if len(s) <= scale {
			s = strings.Repeat("0", scale-len(s)+1) + s
		}
		s = s[:len(s)-scale] + "." + s[len(s)-scale:]
	}
	if v.Sign() < 0 {
		s = "-" + s
	}
	return s
}

// ParseDecimalSmall parses plain decimal text ([-+]digits[.digits], at most
// 18 digits) into a scaled int64 without allocating; ok is false for
// anything else (ParseDecimal then takes it).
func ParseDecimalSmall(s string) (m int64, scale int, ok bool) {
	i, neg := 0, false
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		neg, i = s[i] == '-', i+1
	}
	digits, dot := 0, -1
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			m = m*10 + int64(c-'0')
			digits++
		case c == '.' && dot < 0:
			dot = digits
		default:
			return 0, 0, false
		}
	}
	if digits == 0 || digits > 18 {
		return 0, 0, false
	}
	if dot >= 0 {
		scale = digits - dot
	}
	if neg {
		m = -m
	}
	return m, scale, true
}

// FormatScaled formats x with scale digits after the point, as FormatBig
// formats big.NewInt(x), without big arithmetic.
func FormatScaled(x int64, scale int) string {
	var buf [48]byte
	neg := x < 0
	u := uint64(x)
	if neg {
		u = -u
	}
	return FormatDigits(neg, strconv.AppendUint(buf[:0], u, 10), scale)
}

// FormatDigits is the decimal text of the integer digits (no leading
// zeros) at scale: the point scale digits from the right, a zero before
// it when nothing else is.
func FormatDigits(neg bool, digits []byte, scale int) string {
	return string(AppendDigits(make([]byte, 0, len(digits)+scale+3), neg, digits, scale))
}

// AppendDigits appends FormatDigits(neg, digits, scale) to out.
func AppendDigits(out []byte, neg bool, digits []byte, scale int) []byte {
	if neg {
		out = append(out, '-')
	}
	if scale <= 0 {
		return append(out, digits...)
	}
	if len(digits) <= scale {
		out = append(out, '0', '.')
		for i := len(digits); i < scale; i++ {
			out = append(out, '0')
		}
		return append(out, digits...)
	}
	out = append(out, digits[:len(digits)-scale]...)
	out = append(out, '.')
	return append(out, digits[len(digits)-scale:]...)
}

// NormalizeDecimal returns canonical decimal text (as PostgreSQL numeric_out
// prints a value with the given scale) for dynamic numerics.
func NormalizeDecimal(s string) (string, error) {
	v, scale, err := ParseDecimal(s)
	if err != nil {
		return "", err
	}
	return FormatBig(v, scale), nil
}

// ParseBytea parses \x hex or escape-format bytea input.
func ParseBytea(s string) (string, error) {
	if strings.HasPrefix(s, `\x`) || strings.HasPrefix(s, `\X`) {
		h := strings.ReplaceAll(s[2:], " ", "")
		b, err := hex.DecodeString(h)
		if err != nil {
			return "", invalid("bytea", s)
		}
		return string(b), nil
	}
	var out []byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		if i+1 < len(s) && s[i+1] == '\\' {
			out = append(out, '\\')
			i++
			continue
		}
		if i+3 < len(s) {
			v, err := strconv.ParseUint(s[i+1:i+4], 8, 8)
			if err == nil {
				out = append(out, byte(v))
				i += 3
				continue
			}
		}
		return "", invalid("bytea", s)
	}
	return string(out), nil
}

// ParseUUID parses a uuid in PostgreSQL's accepted spellings into 16 bytes.
func ParseUUID(s string) (string, error) {
	t := strings.TrimSpace(s)
	t = strings.TrimPrefix(strings.TrimSuffix(t, "}"), "{")
	t = strings.ReplaceAll(t, "-", "")
	if len(t) != 32 {
		return "", invalid("uuid", s)
	}
	b, err := hex.DecodeString(t)
	if err != nil {
		return "", invalid("uuid", s)
	}
	return string(b), nil
}
