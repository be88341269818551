package wire

import (
	"encoding/binary"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// PostgreSQL's binary numeric is
//
//	int16 ndigits, int16 weight, uint16 sign, uint16 dscale, ndigits × int16
//
// where the digits are base 10000, the first one worth 10000^weight, sign is
// one of the constants below and dscale is the number of decimal digits
// shown after the point. Leading and trailing zero digits are not sent.
const (
	numericPos  = 0x0000
	numericNeg  = 0x4000
	numericNaN  = 0xC000
	numericPInf = 0xD000
	numericNInf = 0xF000
)

// Type OIDs DecodeBinaryParam knows beyond those in types.
const (
	oidName  = 19
	oidJSON  = 114
	oidJSONB = 3802
)

// codeInvalidBinary is ERRCODE_INVALID_BINARY_REPRESENTATION.
const codeInvalidBinary = "22P03"

// appendNumericScaled appends the binary numeric of x / 10^scale.
func appendNumericScaled(dst []byte, x int64, scale int) []byte {
	neg := x < 0
	u := uint64(x)
	if neg {
		u = uint64(^x) + 1 // also right for math.MinInt64
	}
	var buf [20]byte
	return appendNumericDigits(dst, neg, strconv.AppendUint(buf[:0], u, 10), scale)
}

// appendNumericText appends the binary numeric of decimal text as an
// unconstrained numeric vector holds it ("-12.50", "NaN", "Infinity").
func appendNumericText(dst []byte, s string) []byte {
	switch strings.ToLower(s) {
	case "nan":
		return appendNumericHeader(dst, 0, 0, numericNaN, 0)
	case "infinity", "+infinity", "inf", "+inf":
		return appendNumericHeader(dst, 0, 0, numericPInf, 0)
	case "-infinity", "-inf":
		return appendNumericHeader(dst, 0, 0, numericNInf, 0)
	}
	neg, intPart, frac, ok := splitDecimal(s)
	if !ok {
		// Not plain digits (an exponent, spaces): let types canonicalise it.
		n, err := types.NormalizeDecimal(s)
		if err == nil {
			neg, intPart, frac, ok = splitDecimal(n)
		}
		if !ok {
			// A vector holding non-numbers is an engine bug; NaN at least
			// decodes everywhere, and the text format would show the same value.
			return appendNumericHeader(dst, 0, 0, numericNaN, 0)
		}
	}
	digits := make([]byte, 0, len(intPart)+len(frac))
	digits = append(append(digits, intPart...), frac...)
	return appendNumericDigits(dst, neg, digits, len(frac))
}

// splitDecimal splits [+-]digits[.digits].
func splitDecimal(s string) (neg bool, intPart, frac string, ok bool) {
	if s != "" && (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-'
		s = s[1:]
	}
	intPart, frac, _ = strings.Cut(s, ".")
	if intPart == "" && frac == "" {
		return false, "", "", false
	}
	for i := 0; i < len(intPart); i++ {
		if intPart[i] < '0' || intPart[i] > '9' {
			return false, "", "", false
		}
	}
	for i := 0; i < len(frac); i++ {
		if frac[i] < '0' || frac[i] > '9' {
			return false, "", "", false
		}
	}
	return neg, intPart, frac, true
}

// appendNumericDigits appends the binary numeric of the decimal digits
// (ASCII, no sign or point) with the last scale of them after the point.
func appendNumericDigits(dst []byte, neg bool, digits []byte, scale int) []byte {
	// Align on base-10000 boundaries around the decimal point:
	//   zeros(padL) integer-digits | zeros(lead) fraction-digits zeros(padR)
	// padL only exists with integer digits and lead only without them.
	intLen := max(len(digits)-scale, 0)
	lead := max(scale-len(digits), 0)
	padL := (4 - intLen%4) % 4
	padR := (4 - scale%4) % 4
	total := padL + intLen + scale + padR

	var stack [64]byte
	s := stack[:0]
	if total > len(stack) {
		s = make([]byte, 0, total)
	}
	for range padL + lead {
		s = append(s, '0')
	}
	s = append(s, digits...)
	for len(s) < total {
		s = append(s, '0')
	}
	group := func(j int) uint16 {
		g := s[4*j : 4*j+4]
		return uint16(g[0]-'0')*1000 + uint16(g[1]-'0')*100 + uint16(g[2]-'0')*10 + uint16(g[3]-'0')
	}
	first, last := -1, -1
	for j := range total / 4 {
		if group(j) != 0 {
			if first < 0 {
				first = j
			}
			last = j
		}
	}
	if first < 0 {
		return appendNumericHeader(dst, 0, 0, numericPos, scale)
	}
	sign := uint16(numericPos)
	if neg {
		sign = numericNeg
	}
	nInt := (padL + intLen) / 4
	dst = appendNumericHeader(dst, last-first+1, nInt-1-first, sign, scale)
	for j := first; j <= last; j++ {
		dst = binary.BigEndian.AppendUint16(dst, group(j))
	}
	return dst
}

func appendNumericHeader(dst []byte, ndigits, weight int, sign uint16, dscale int) []byte {
	dst = binary.BigEndian.AppendUint16(dst, uint16(int16(ndigits)))
	dst = binary.BigEndian.AppendUint16(dst, uint16(int16(weight)))
	dst = binary.BigEndian.AppendUint16(dst, sign)
	return binary.BigEndian.AppendUint16(dst, uint16(dscale))
}

// DecodeBinaryParam converts a parameter sent in binary format for a
// parameter of type oid into its PostgreSQL text form, so that the SQL layer
// can treat every parameter as text: integers and floats in decimal, bool
// as t/f, bytea as \x hex, date/timestamp in ISO, timestamptz in UTC with
// "+00", uuid canonical, numeric as plain decimal keeping its scale. Text
// types are checked to be UTF-8. An unknown OID is 42883; malformed data
// is 22P03.
func DecodeBinaryParam(oid uint32, b []byte) (string, error) {
	bad := func() (string, error) {
		name := "type with OID " + strconv.FormatUint(uint64(oid), 10)
		if t, ok := types.FromOID(oid); ok && t.ID != types.Unknown {
			name = t.String()
		}
		return "", pgerr.New(codeInvalidBinary, "incorrect binary data format for %s (%d bytes)", name, len(b))
	}
	be := binary.BigEndian
	switch oid {
	case types.OIDBool:
		if len(b) != 1 {
			return bad()
		}
		if b[0] != 0 {
			return "t", nil
		}
		return "f", nil
	case types.OIDInt2:
		if len(b) != 2 {
			return bad()
		}
		return strconv.FormatInt(int64(int16(be.Uint16(b))), 10), nil
	case types.OIDInt4:
		if len(b) != 4 {
			return bad()
		}
		return strconv.FormatInt(int64(int32(be.Uint32(b))), 10), nil
	case types.OIDOid:
		if len(b) != 4 {
			return bad()
		}
		return strconv.FormatUint(uint64(be.Uint32(b)), 10), nil
	case types.OIDInt8:
		if len(b) != 8 {
			return bad()
		}
		return strconv.FormatInt(int64(be.Uint64(b)), 10), nil
	case types.OIDFloat4:
		if len(b) != 4 {
			return bad()
		}
		return string(types.AppendFloat(nil, float64(math.Float32frombits(be.Uint32(b))), 32)), nil
	case types.OIDFloat8:
		if len(b) != 8 {
			return bad()
		}
		return string(types.AppendFloat(nil, math.Float64frombits(be.Uint64(b)), 64)), nil
	case 0, types.OIDUnknown, types.OIDText, types.OIDVarchar, types.OIDBpchar, oidName, oidJSON:
		return textParam(b)
	case oidJSONB:
		if len(b) < 1 || b[0] != 1 {
			return bad()
		}
		return textParam(b[1:])
	case types.OIDBytea:
		return string(types.AppendBytea(nil, string(b))), nil
	case types.OIDUUID:
		if len(b) != 16 {
			return bad()
		}
		return string(types.AppendUUID(nil, string(b))), nil
	case types.OIDDate:
		if len(b) != 4 {
			return bad()
		}
		switch d := int32(be.Uint32(b)); d {
		case math.MaxInt32:
			return "infinity", nil
		case math.MinInt32:
			return "-infinity", nil
		default:
			return string(types.AppendDate(nil, int64(d)+pgEpochDays)), nil
		}
	case types.OIDTimestamp, types.OIDTimestamptz:
		if len(b) != 8 {
			return bad()
		}
		us := int64(be.Uint64(b))
		switch {
		case us == math.MaxInt64:
			return "infinity", nil
		case us == math.MinInt64:
			return "-infinity", nil
		case us > math.MaxInt64-pgEpochMicros:
			return bad()
		}
		us += pgEpochMicros
		if oid == types.OIDTimestamp {
			return string(types.AppendTimestamp(nil, us)), nil
		}
		return string(types.AppendTimestamptz(nil, us, time.UTC)), nil
	case types.OIDInterval:
		if len(b) != 16 {
			return bad()
		}
		iv := types.IntervalValue{Micros: int64(be.Uint64(b[:8])), Days: int32(be.Uint32(b[8:12])), Months: int32(be.Uint32(b[12:]))}
		return string(types.AppendInterval(nil, iv)), nil
	case types.OIDNumeric:
		s, ok := numericText(b)
		if !ok {
			return bad()
		}
		return s, nil
	}
	if s, ok, err := timeParamText(oid, b); ok {
		return s, err // time.go
	}
	if elem := types.ElemOIDOfArray(oid); elem != 0 {
		return arrayParamText(oid, elem, b)
	}
	return "", pgerr.New(pgerr.UndefinedFunction, "no binary input function available for type with OID %d", oid)
}

func textParam(b []byte) (string, error) {
	if !utf8.Valid(b) {
		return "", pgerr.New("22021", "invalid byte sequence for encoding \"UTF8\"")
	}
	return string(b), nil
}

// numericText renders a binary numeric as numeric_out would after
// numeric_recv: digits beyond dscale are truncated, zero has no sign.
func numericText(b []byte) (string, bool) {
	if len(b) < 8 {
		return "", false
	}
	be := binary.BigEndian
	ndigits := int(int16(be.Uint16(b[0:])))
	weight := int(int16(be.Uint16(b[2:])))
	sign := be.Uint16(b[4:])
	dscale := int(be.Uint16(b[6:]))
	if ndigits < 0 || len(b) != 8+2*ndigits || dscale > 0x3fff {
		return "", false
	}
	switch sign {
	case numericNaN:
		return "NaN", true
	case numericPInf:
		return "Infinity", true
	case numericNInf:
		return "-Infinity", true
	case numericPos, numericNeg:
	default:
		return "", false
	}
	digits := make([]int, ndigits)
	for i := range digits {
		d := int(be.Uint16(b[8+2*i:]))
		if d > 9999 {
			return "", false
		}
		digits[i] = d
	}
	at := func(idx int) int { // the digit worth 10000^(weight-idx)
		if idx < 0 || idx >= ndigits {
			return 0
		}
		return digits[idx]
	}
	var out []byte
	for idx := 0; idx <= weight; idx++ {
		out = appendPad4(out, at(idx))
	}
	intDigits := strings.TrimLeft(string(out), "0")
	if intDigits == "" {
		intDigits = "0"
	}
	var frac []byte
	for k := 1; len(frac) < dscale; k++ {
		frac = appendPad4(frac, at(weight+k))
	}
	frac = frac[:dscale]
	zero := strings.Trim(intDigits, "0") == "" && strings.Trim(string(frac), "0") == ""
	var sb strings.Builder
	if sign == numericNeg && !zero {
		sb.WriteByte('-')
	}
	sb.WriteString(intDigits)
	if dscale > 0 {
		sb.WriteByte('.')
		sb.Write(frac)
	}
	return sb.String(), true
}

func appendPad4(dst []byte, d int) []byte {
	return append(dst, byte('0'+d/1000), byte('0'+d/100%10), byte('0'+d/10%10), byte('0'+d%10))
}
