package vec

import (
	"encoding/binary"
	"math"
	"strings"
	"time"

	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// Array and struct values live in the S slice in a canonical binary form
// whose byte order is the SQL order, so hashing, equality, GROUP BY,
// DISTINCT, ORDER BY, joins and min/max over them run on the byte-wise
// string paths with no per-row dispatch. An array is the concatenation
// of its elements, a struct the concatenation of its fields, each
//
//	0x01 value   a non-NULL element
//	0x02         a NULL element (after every value, as array_cmp sorts)
//
// and each value prefix-free and order-preserving for its type:
//
//	int-stored   8 bytes big-endian, sign bit flipped
//	float        8 bytes, the IEEE bits made unsigned-ordered (-0 is 0,
//	             every NaN one NaN above +Infinity)
//	bool         1 byte
//	interval     days and microseconds of the span, each 8 bytes as ints,
//	             then the months, days and microseconds as entered
//	numeric      (per-value scale) an order key of the number, then its text
//	bytes        the bytes with 0x00 escaped as 00 FF, ended by 00 01
//	             (text, bytea, uuid, and nested arrays and structs)
//
// A shorter array that is a prefix of a longer one sorts first, as in
// PostgreSQL. Only one-dimensional arrays with lower bound 1 exist.

const (
	tagValue byte = 0x01
	tagNull  byte = 0x02
)

// ErrBadArray reports an encoded value that is not one (a corrupt input,
// never a user's text).
var ErrBadArray = pgerr.New(pgerr.Internal, "malformed array value")

// AppendElem appends row i of v as one encoded element (NULL included).
func AppendElem(dst []byte, v *Vector, i int) []byte {
	if v.IsNull(i) {
		return append(dst, tagNull)
	}
	dst = append(dst, tagValue)
	switch v.Type.Storage() {
	case types.StoreInt:
		return binary.BigEndian.AppendUint64(dst, uint64(v.I64[i])^(1<<63))
	case types.StoreFloat:
		return binary.BigEndian.AppendUint64(dst, floatKey(v.F64[i]))
	case types.StoreBool:
		if v.B[i] {
			return append(dst, 1)
		}
		return append(dst, 0)
	case types.StoreInterval:
		iv := v.Iv[i]
		days := int64(iv.Months)*30 + int64(iv.Days) + floorDiv(iv.Micros, 86400e6)
		us := iv.Micros - floorDiv(iv.Micros, 86400e6)*86400e6
		dst = binary.BigEndian.AppendUint64(dst, uint64(days)^(1<<63))
		dst = binary.BigEndian.AppendUint64(dst, uint64(us))
		dst = binary.BigEndian.AppendUint32(dst, uint32(iv.Months))
		dst = binary.BigEndian.AppendUint32(dst, uint32(iv.Days))
		return binary.BigEndian.AppendUint64(dst, uint64(iv.Micros))
	}
	if v.Type.DynNumeric() {
		dst = appendNumericKey(dst, v.S[i])
	}
	return appendEscaped(dst, v.S[i])
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

func floatKey(f float64) uint64 {
	switch {
	case f != f:
		return math.MaxUint64 // one NaN, above +Inf
	case f == 0:
		f = 0
	}
	u := math.Float64bits(f)
	if u>>63 != 0 {
		return ^u
	}
	return u | 1<<63
}

func keyFloat(u uint64) float64 {
	if u == math.MaxUint64 {
		return math.NaN()
	}
	if u>>63 != 0 {
		return math.Float64frombits(u &^ (1 << 63))
	}
	return math.Float64frombits(^u)
}

func appendEscaped(dst []byte, s string) []byte {
	for {
		k := strings.IndexByte(s, 0)
		if k < 0 {
			break
		}
		dst = append(append(dst, s[:k]...), 0, 0xff)
		s = s[k+1:]
	}
	return append(append(dst, s...), 0, 1)
}

// readEscaped reads an escaped byte string at s[p:]; it returns the bytes
// (aliasing s when nothing was escaped) and the position after it.
func readEscaped(s string, p int) (string, int, bool) {
	start := p
	var b []byte
	for {
		k := strings.IndexByte(s[p:], 0)
		if k < 0 || p+k+1 >= len(s) {
			return "", 0, false
		}
		switch s[p+k+1] {
		case 1:
			if b == nil {
				return s[start : p+k], p + k + 2, true
			}
			b = append(b, s[p:p+k]...)
			return string(b), p + k + 2, true
		case 0xff:
			b = append(append(b, s[p:p+k]...), 0)
			p += k + 2
		default:
			return "", 0, false
		}
	}
}

// appendNumericKey appends an order key of a decimal text: a class byte,
// then for non-zero finite numbers the decimal exponent and the
// significant digits (complemented for negative numbers).
func appendNumericKey(dst []byte, s string) []byte {
	switch strings.ToLower(s) {
	case "nan":
		return append(dst, 5)
	case "infinity", "+infinity", "inf":
		return append(dst, 4)
	case "-infinity", "-inf":
		return append(dst, 0)
	}
	neg := false
	if s != "" && (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-'
		s = s[1:]
	}
	intPart, frac, _ := strings.Cut(s, ".")
	digits := strings.TrimLeft(intPart, "0")
	exp := len(digits)
	if digits == "" {
		t := strings.TrimLeft(frac, "0")
		exp = -(len(frac) - len(t))
		digits = t
	} else {
		digits += frac
	}
	digits = strings.TrimRight(digits, "0")
	if digits == "" {
		return append(dst, 2)
	}
	var inv byte
	cls := byte(3)
	if neg {
		inv, cls = 0xff, 1
	}
	dst = append(dst, cls)
	e := uint32(int32(exp)) ^ (1 << 31)
	dst = append(dst, byte(e>>24)^inv, byte(e>>16)^inv, byte(e>>8)^inv, byte(e)^inv)
	for i := 0; i < len(digits); i++ {
		dst = append(dst, digits[i]^inv)
	}
	return append(dst, 0^inv)
}

func skipNumericKey(s string, p int) (int, bool) {
	if p >= len(s) {
		return 0, false
	}
	switch s[p] {
	case 0, 2, 4, 5:
		return p + 1, true
	case 1, 3:
		end := byte(0)
		if s[p] == 1 {
			end = 0xff
		}
		p += 5
		if p > len(s) {
			return 0, false
		}
		k := strings.IndexByte(s[p:], end)
		if k < 0 {
			return 0, false
		}
		return p + k + 1, true
	}
	return 0, false
}

// ElemEnd returns where the encoded element of type t starting at s[p]
// ends and whether it is NULL.
func ElemEnd(t types.T, s string, p int) (int, bool, error) {
	if p >= len(s) {
		return 0, false, ErrBadArray
	}
	switch s[p] {
	case tagNull:
		return p + 1, true, nil
	case tagValue:
	default:
		return 0, false, ErrBadArray
	}
	p++
	var n int
	switch t.Storage() {
	case types.StoreInt, types.StoreFloat:
		n = 8
	case types.StoreBool:
		n = 1
	case types.StoreInterval:
		n = 32
	default:
		if t.DynNumeric() {
			q, ok := skipNumericKey(s, p)
			if !ok {
				return 0, false, ErrBadArray
			}
			p = q
		}
		_, q, ok := readEscaped(s, p)
		if !ok {
			return 0, false, ErrBadArray
		}
		return q, false, nil
	}
	if p+n > len(s) {
		return 0, false, ErrBadArray
	}
	return p + n, false, nil
}

// DecodeElem appends the element of out's type encoded at s[p:] to out
// and returns the position after it.
func DecodeElem(out *Vector, s string, p int) (int, error) {
	end, null, err := ElemEnd(out.Type, s, p)
	if err != nil {
		return 0, err
	}
	if null {
		out.AppendNull()
		return end, nil
	}
	p++
	be := binary.BigEndian
	switch out.Type.Storage() {
	case types.StoreInt:
		out.AppendInt(int64(be.Uint64([]byte(s[p:end])) ^ (1 << 63)))
	case types.StoreFloat:
		out.AppendFloat(keyFloat(be.Uint64([]byte(s[p:end]))))
	case types.StoreBool:
		out.AppendBool(s[p] != 0)
	case types.StoreInterval:
		b := []byte(s[p+16 : end])
		out.AppendInterval(types.IntervalValue{Months: int32(be.Uint32(b)), Days: int32(be.Uint32(b[4:])), Micros: int64(be.Uint64(b[8:]))})
	default:
		if out.Type.DynNumeric() {
			p, _ = skipNumericKey(s, p)
		}
		v, _, _ := readEscaped(s, p)
		out.AppendString(v)
	}
	return end, nil
}

// EncodeArray returns the array of rows [lo, hi) of v.
func EncodeArray(v *Vector, lo, hi int) string {
	var dst []byte
	for i := lo; i < hi; i++ {
		dst = AppendElem(dst, v, i)
	}
	return string(dst)
}

// DecodeArray appends the elements of array s to out (of the element type).
func DecodeArray(out *Vector, s string) error {
	for p := 0; p < len(s); {
		q, err := DecodeElem(out, s, p)
		if err != nil {
			return err
		}
		p = q
	}
	return nil
}

// ArrayBounds appends to dst the end offset of each element of array s
// whose elements have type elem: element k is s[ends[k-1]:ends[k]].
func ArrayBounds(dst []int, elem types.T, s string) ([]int, error) {
	for p := 0; p < len(s); {
		q, _, err := ElemEnd(elem, s, p)
		if err != nil {
			return dst, err
		}
		dst = append(dst, q)
		p = q
	}
	return dst, nil
}

// ArrayLen is the number of elements of array s.
func ArrayLen(elem types.T, s string) (int, error) {
	n := 0
	for p := 0; p < len(s); n++ {
		q, _, err := ElemEnd(elem, s, p)
		if err != nil {
			return 0, err
		}
		p = q
	}
	return n, nil
}

// AppendArrayText appends the text form of array s of type t, as
// array_out writes it.
func AppendArrayText(dst []byte, t types.T, s string, loc *time.Location) []byte {
	elem := t.Elem()
	ev := New(elem, 8)
	if err := DecodeArray(ev, s); err != nil {
		return append(dst, "{}"...)
	}
	dst = append(dst, '{')
	var buf []byte
	for i := 0; i < ev.Len(); i++ {
		if i > 0 {
			dst = append(dst, ',')
		}
		switch {
		case ev.IsNull(i):
			dst = append(dst, "NULL"...)
		case elem.ID == types.Array:
			dst = ev.AppendText(dst, i, loc)
		default:
			buf = ev.AppendText(buf[:0], i, loc)
			dst = types.AppendArrayElem(dst, string(buf))
		}
	}
	return append(dst, '}')
}

// StructFields decodes struct value s into one one-row vector per field.
func StructFields(t types.T, s string) ([]*Vector, error) {
	fs := t.Fields()
	out := make([]*Vector, len(fs))
	p := 0
	for k, f := range fs {
		out[k] = New(f.Type, 1)
		q, err := DecodeElem(out[k], s, p)
		if err != nil {
			return nil, err
		}
		p = q
	}
	if p != len(s) {
		return nil, ErrBadArray
	}
	return out, nil
}

// AppendStructText appends the text form of struct value s, as
// record_out writes it: (a,b) with NULL fields empty.
func AppendStructText(dst []byte, t types.T, s string, loc *time.Location) []byte {
	fs, err := StructFields(t, s)
	if err != nil {
		return append(dst, "()"...)
	}
	dst = append(dst, '(')
	var buf []byte
	for k, f := range fs {
		if k > 0 {
			dst = append(dst, ',')
		}
		if f.IsNull(0) {
			continue
		}
		buf = f.AppendText(buf[:0], 0, loc)
		dst = types.AppendRecordField(dst, string(buf))
	}
	return append(dst, ')')
}
