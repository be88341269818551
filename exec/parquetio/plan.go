package parquetio

import (
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// What a column chunk holds, read from its schema element, and how its values
// become the projection's type. The decision is made once per scan, so the
// decode loops only see a few flags.

type srcKind uint8

const (
	skOther srcKind = iota
	skBool
	skInt
	skUint
	skFloat
	skDouble
	skDecimal
	skDate
	skTime
	skTimestamp
	skInt96
	skString
	skBytes
	skUUID
	skInterval
)

type srcInfo struct {
	phys      int32
	typeLen   int
	kind      srcKind
	bits      int // integer width from INT(bits) / INT_n / UINT_n; 0 = physical width
	scale     int
	precision int
	unit      int8
	utc       bool
	json      bool // logical or converted JSON
}

func classify(e *schemaElem) srcInfo {
	s := srcInfo{phys: e.typ, typeLen: int(e.typeLen)}
	lt := e.logical
	switch lt.kind {
	case logDecimal:
		s.kind, s.scale, s.precision = skDecimal, int(lt.decScale), int(lt.decPrec)
		return s
	case logDate:
		s.kind = skDate
		return s
	case logTimestamp:
		s.kind, s.unit, s.utc = skTimestamp, lt.unit, lt.utc
		return s
	case logTime:
		s.kind, s.unit, s.utc = skTime, lt.unit, lt.utc
		return s
	case logInteger:
		s.kind, s.bits = skInt, int(lt.intBits)
		if !lt.intSigned {
			s.kind = skUint
		}
		return s
	case logString, logEnum, logJSON:
		s.kind, s.json = skString, lt.kind == logJSON
		return s
	case logUUID:
		s.kind = skUUID
		return s
	case logBSON:
		s.kind = skBytes
		return s
	case logMap, logList, logFloat16:
		return s
	}
	if e.hasConverted {
		switch e.converted {
		case convDecimal:
			s.kind, s.scale, s.precision = skDecimal, int(e.scale), int(e.precision)
			return s
		case convDate:
			s.kind = skDate
			return s
		case convTimestampMillis:
			s.kind, s.unit, s.utc = skTimestamp, unitMillis, true
			return s
		case convTimestampMicros:
			s.kind, s.unit, s.utc = skTimestamp, unitMicros, true
			return s
		case convTimeMillis:
			s.kind, s.unit, s.utc = skTime, unitMillis, true
			return s
		case convTimeMicros:
			s.kind, s.unit, s.utc = skTime, unitMicros, true
			return s
		case convUint8, convUint16, convUint32, convUint64:
			s.kind, s.bits = skUint, 8<<(e.converted-convUint8)
			return s
		case convInt8, convInt16, convInt32, convInt64:
			s.kind, s.bits = skInt, 8<<(e.converted-convInt8)
			return s
		case convUTF8, convJSON, 4 /* ENUM */ :
			s.kind, s.json = skString, e.converted == convJSON
			return s
		case convInterval:
			s.kind = skInterval
			return s
		}
	}
	switch e.typ {
	case physBoolean:
		s.kind = skBool
	case physInt32, physInt64:
		s.kind = skInt
	case physInt96:
		s.kind = skInt96
	case physFloat:
		s.kind = skFloat
	case physDouble:
		s.kind = skDouble
	case physByteArray, physFixed:
		s.kind = skBytes
	}
	return s
}

// naturalType is the lakepg type a column reads as when the caller has no
// other wish (used by Fields).
func naturalType(e *schemaElem) (types.T, bool) {
	s := classify(e)
	switch s.kind {
	case skBool:
		return types.BoolT, e.typ == physBoolean
	case skInt:
		switch {
		case e.typ == physInt32 && s.bits > 0 && s.bits <= 16:
			return types.Int16T, true
		case e.typ == physInt32:
			return types.Int32T, true
		case e.typ == physInt64:
			return types.Int64T, true
		}
	case skUint:
		switch {
		case e.typ == physInt32 && s.bits > 0 && s.bits <= 8:
			return types.Int16T, true
		case e.typ == physInt32 && s.bits > 0 && s.bits <= 16:
			return types.Int32T, true
		case e.typ == physInt32:
			return types.Int64T, true
		case e.typ == physInt64:
			return types.NumericT(20, 0), true
		}
	case skFloat:
		return types.Float32T, e.typ == physFloat
	case skDouble:
		return types.Float64T, e.typ == physDouble
	case skDecimal:
		if s.precision > 0 && s.precision <= types.MaxDuckLakePrecision {
			return types.NumericT(s.precision, s.scale), true
		}
	case skTime:
		return naturalTime(s) // decimal128.go
	case skDate:
		return types.DateT, e.typ == physInt32
	case skTimestamp:
		if s.utc {
			return types.TimestamptzT, e.typ == physInt64
		}
		return types.TimestampT, e.typ == physInt64
	case skInt96:
		return types.TimestampT, true
	case skString:
		if s.json {
			return types.JSONT, e.typ == physByteArray
		}
		return types.TextT, e.typ == physByteArray
	case skBytes:
		return types.ByteaT, true
	case skUUID:
		return types.UUIDT, e.typ == physFixed && e.typeLen == 16
	case skInterval:
		return types.IntervalT, e.typ == physFixed && e.typeLen == 12
	}
	return types.T{}, false
}

// plan says how to turn a chunk's physical values into vector values.
type plan struct {
	src srcInfo
	raw types.Storage // class the physical values decode to
	out types.Storage // class of the projection's vector

	unsigned bool // INT32 holding an unsigned value: zero-extend
	decBytes bool // BYTE_ARRAY / FIXED_LEN_BYTE_ARRAY big-endian decimal
	int96    bool // legacy INT96 timestamp

	// toText makes the values decimal text (wide numerics, decimal128.go).
	toText textConv

	// Integer post-conversion: x*mul when mul > 1, else x/div when div > 1
	// (rounded half away from zero when round, floored otherwise).
	mul, div int64
	round    bool
	// Integer→float: x / fdiv.
	fdiv float64
}

func (p *plan) intConv() bool { return p.mul > 1 || p.div > 1 }

func unsupported(name string, s srcInfo, t types.T) error {
	return pgerr.New(pgerr.FeatureNotSupported, "cannot read Parquet column %q (%s) as %s", name, physName(s), t)
}

func physName(s srcInfo) string {
	names := map[int32]string{physBoolean: "BOOLEAN", physInt32: "INT32", physInt64: "INT64", physInt96: "INT96",
		physFloat: "FLOAT", physDouble: "DOUBLE", physByteArray: "BYTE_ARRAY", physFixed: "FIXED_LEN_BYTE_ARRAY"}
	n := names[s.phys]
	switch s.kind {
	case skDecimal:
		n += " DECIMAL"
	case skDate:
		n += " DATE"
	case skTime:
		n += " TIME"
	case skTimestamp:
		n += " TIMESTAMP"
	case skUint:
		n += " UNSIGNED"
	case skString:
		n += " STRING"
	case skUUID:
		n += " UUID"
	case skInterval:
		n += " INTERVAL"
	}
	return n
}

func makePlan(name string, e *schemaElem, t types.T) (plan, error) {
	s := classify(e)
	p := plan{src: s, out: t.Storage(), mul: 1, div: 1, fdiv: 1}
	bad := func() (plan, error) { return plan{}, unsupported(name, s, t) }
	isInt := s.phys == physInt32 || s.phys == physInt64
	isBytes := s.phys == physByteArray || s.phys == physFixed
	intSource := func() bool {
		switch {
		case (s.kind == skInt || s.kind == skUint) && isInt:
			p.raw = types.StoreInt
			p.unsigned = s.kind == skUint && s.phys == physInt32
			if s.kind == skUint && s.phys == physInt64 {
				return false // uint64 does not fit int64 storage
			}
			return true
		}
		return false
	}
	decimalSource := func() bool {
		if s.kind != skDecimal || !(isInt || isBytes) {
			return false
		}
		if s.phys == physFixed && s.typeLen > 16 {
			return false
		}
		p.raw = types.StoreInt
		p.decBytes = isBytes
		return true
	}
	switch t.ID {
	case types.Bool:
		if s.kind != skBool || s.phys != physBoolean {
			return bad()
		}
		p.raw = types.StoreBool
	case types.Int16, types.Int32, types.Int64:
		switch {
		case intSource():
		case decimalSource():
			if s.scale > 0 {
				if s.scale > 18 {
					return bad()
				}
				p.div, p.round = types.Pow10(s.scale), true
			}
		default:
			return bad()
		}
	case types.Numeric:
		if t.Wide() {
			return widePlan(name, s, t, p) // decimal128.go
		}
		if t.Scale < 0 {
			return plan{}, pgerr.New(pgerr.FeatureNotSupported, "reading Parquet column %q as unconstrained numeric is not supported", name)
		}
		switch {
		case intSource():
			if t.Scale > 18 {
				return bad()
			}
			p.mul = types.Pow10(t.Scale)
		case decimalSource():
			d := t.Scale - s.scale
			switch {
			case d > 18 || d < -18:
				return bad()
			case d > 0:
				p.mul = types.Pow10(d)
			case d < 0:
				p.div, p.round = types.Pow10(-d), true
			}
		default:
			return bad()
		}
	case types.Float32, types.Float64:
		switch {
		case s.kind == skFloat && s.phys == physFloat, s.kind == skDouble && s.phys == physDouble:
			p.raw = types.StoreFloat
		case intSource():
		case decimalSource():
			if s.scale > 18 || s.scale < 0 {
				return bad()
			}
			p.fdiv = float64(types.Pow10(s.scale))
		default:
			return bad()
		}
	case types.Date:
		if !(s.kind == skDate || s.kind == skInt) || s.phys != physInt32 {
			return bad()
		}
		p.raw = types.StoreInt
	case types.Timestamp, types.Timestamptz:
		p.raw = types.StoreInt
		switch {
		case s.kind == skTimestamp && s.phys == physInt64:
			switch s.unit {
			case unitMillis:
				p.mul = 1000
			case unitNanos:
				// to the nearest microsecond, as PostgreSQL reads the
				// text of such a value (DuckDB's cast truncates)
				p.div, p.round = 1000, true
			}
		case s.kind == skInt96 && s.phys == physInt96:
			p.int96 = true
		case s.kind == skDate && s.phys == physInt32:
			p.mul = 86400 * 1000000
		case s.kind == skInt && s.phys == physInt64:
			// An unannotated INT64 read as a timestamp holds microseconds.
		default:
			return bad()
		}
	case types.Time, types.TimeTZ:
		return timePlan(name, s, t, p) // decimal128.go
	case types.Text, types.JSON:
		if s.phys != physByteArray || !(s.kind == skString || s.kind == skBytes) {
			return bad()
		}
		p.raw = types.StoreBytes
	case types.Bytea:
		if !isBytes || !(s.kind == skString || s.kind == skBytes || s.kind == skUUID) {
			return bad()
		}
		p.raw = types.StoreBytes
	case types.UUID:
		if s.phys != physFixed || s.typeLen != 16 {
			return bad()
		}
		p.raw = types.StoreBytes
	case types.Interval:
		if s.kind != skInterval || s.phys != physFixed || s.typeLen != 12 {
			return bad()
		}
		p.raw = types.StoreInterval
	default:
		return bad()
	}
	if p.raw != p.out && !(p.raw == types.StoreInt && p.out == types.StoreFloat) {
		return bad()
	}
	return p, nil
}
