// Package types is lakepg's SQL type system: the types a column or expression
// can have, their PostgreSQL OIDs and names, their DuckLake names, and the
// text forms of their values exactly as PostgreSQL prints and parses them.
// It is a leaf shared by every layer.
package types

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/lakepg/lakepg/pgerr"
)

// ID names a type family.
type ID uint8

const (
	Unknown ID = iota // an untyped literal or NULL, resolved from context
	Bool
	Int16
	Int32
	Int64
	Float32
	Float64
	Numeric // scaled int64 when Scale >= 0; arbitrary precision (text) when Scale < 0
	Text    // text and varchar(n)
	Bytea
	Date
	Timestamp
	Timestamptz
	UUID
	Interval // months, days and microseconds kept apart, as PostgreSQL does
	Array    // one-dimensional array; Sub names the element type (array.go)
	Struct   // composite (record) value; Sub names the field list (array.go)
	Time     // time of day: µs since midnight, 0 … 24:00:00 (time.go)
	TimeTZ   // time of day with zone, packed to sort as PostgreSQL does (time.go)
	JSON     // json: its text, kept as written (time.go validates it)
)

// T is a full type: family plus modifiers.
type T struct {
	ID        ID
	Precision int // numeric precision; 0 with Scale < 0 means unconstrained
	Scale     int // numeric scale; -1 means per-value (unconstrained numeric)
	Width     int // varchar(n) / character(n) length; 0 = unlimited
	Varchar   bool
	Bpchar    bool // character(n): blank-padded text (charn.go)
	Name      bool // PostgreSQL's name (system identifiers): text with OID 19
	// Sub indexes the registry of element types (Array) or field lists
	// (Struct); 0 for other families. Interning keeps T comparable.
	Sub int32
	// DeclScale is the declared scale of a wide numeric (precision above
	// MaxInt64Precision, numeric_wide.go): its values are decimal text like an
	// unconstrained numeric's (Scale -1), rounded to DeclScale digits.
	DeclScale int
}

// Common types.
var (
	UnknownT     = T{ID: Unknown}
	BoolT        = T{ID: Bool}
	Int16T       = T{ID: Int16}
	Int32T       = T{ID: Int32}
	Int64T       = T{ID: Int64}
	Float32T     = T{ID: Float32}
	Float64T     = T{ID: Float64}
	TextT        = T{ID: Text}
	VarcharT     = T{ID: Text, Varchar: true}
	NameT        = T{ID: Text, Name: true}
	ByteaT       = T{ID: Bytea}
	DateT        = T{ID: Date}
	TimestampT   = T{ID: Timestamp}
	TimestamptzT = T{ID: Timestamptz}
	UUIDT        = T{ID: UUID}
	IntervalT    = T{ID: Interval}
	NumericAnyT  = T{ID: Numeric, Scale: -1}
)

// MaxInt64Precision is the largest numeric precision held as a scaled int64.
const MaxInt64Precision = 18

// NumericT returns numeric(p,s); above MaxInt64Precision a wide numeric.
func NumericT(p, s int) T {
	if p > MaxInt64Precision {
		return T{ID: Numeric, Precision: p, Scale: -1, DeclScale: s}
	}
	return T{ID: Numeric, Precision: p, Scale: s}
}

// IsInteger reports int2/int4/int8.
func (t T) IsInteger() bool { return t.ID == Int16 || t.ID == Int32 || t.ID == Int64 }

// IsFloat reports real/double.
func (t T) IsFloat() bool { return t.ID == Float32 || t.ID == Float64 }

// IsNumeric reports any number type.
func (t T) IsNumeric() bool { return t.IsInteger() || t.IsFloat() || t.ID == Numeric }

// DynNumeric reports an unconstrained numeric whose values carry their own scale.
func (t T) DynNumeric() bool { return t.ID == Numeric && t.Scale < 0 }

// Storage is where a vector of this type keeps its values.
type Storage uint8

const (
	StoreInt      Storage = iota // []int64: ints, dates (days), timestamps (µs), scaled numerics
	StoreFloat                   // []float64
	StoreBool                    // []bool
	StoreBytes                   // []string: text, bytea, uuid (16 raw bytes), dynamic numerics (decimal text)
	StoreInterval                // []IntervalValue: interval
)

// Storage returns the physical class of t.
func (t T) Storage() Storage {
	switch t.ID {
	case Bool:
		return StoreBool
	case Float32, Float64:
		return StoreFloat
	case Interval:
		return StoreInterval
	case Text, Bytea, UUID, Unknown, Array, Struct, JSON:
		return StoreBytes
	case Numeric:
		if t.Scale < 0 {
			return StoreBytes
		}
		return StoreInt
	}
	return StoreInt
}

// PostgreSQL type OIDs.
const (
	OIDBool        = 16
	OIDBytea       = 17
	OIDName        = 19
	OIDInt8        = 20
	OIDInt2        = 21
	OIDInt4        = 23
	OIDText        = 25
	OIDOid         = 26
	OIDFloat4      = 700
	OIDFloat8      = 701
	OIDUnknown     = 705
	OIDBpchar      = 1042
	OIDVarchar     = 1043
	OIDDate        = 1082
	OIDTimestamp   = 1114
	OIDTimestamptz = 1184
	OIDInterval    = 1186
	OIDNumeric     = 1700
	OIDUUID        = 2950
)

// OID returns the PostgreSQL type OID of t.
func (t T) OID() uint32 {
	switch t.ID {
	case Bool:
		return OIDBool
	case Int16:
		return OIDInt2
	case Int32:
		return OIDInt4
	case Int64:
		return OIDInt8
	case Float32:
		return OIDFloat4
	case Float64:
		return OIDFloat8
	case Numeric:
		return OIDNumeric
	case Text:
		if t.Varchar {
			return OIDVarchar
		}
		if t.Bpchar {
			return OIDBpchar
		}
		if t.Name {
			return OIDName
		}
		return OIDText
	case Bytea:
		return OIDBytea
	case Date:
		return OIDDate
	case Timestamp:
		return OIDTimestamp
	case Timestamptz:
		return OIDTimestamptz
	case UUID:
		return OIDUUID
	case Interval:
		return OIDInterval
	case Time:
		return OIDTime
	case TimeTZ:
		return OIDTimeTZ
	case JSON:
		return OIDJSON
	case Array:
		return t.arrayOID()
	case Struct:
		return OIDRecord
	}
	return OIDText // unknown literals are sent as text, as PostgreSQL does
}

// FromOID maps a parameter type OID to a type; ok is false for OIDs lakepg does not know.
func FromOID(oid uint32) (T, bool) {
	switch oid {
	case 0, OIDUnknown:
		return UnknownT, true
	case OIDBool:
		return BoolT, true
	case OIDInt2:
		return Int16T, true
	case OIDInt4, OIDOid:
		return Int32T, true
	case OIDInt8:
		return Int64T, true
	case OIDFloat4:
		return Float32T, true
	case OIDFloat8:
		return Float64T, true
	case OIDNumeric:
		return NumericAnyT, true
	case OIDText:
		return TextT, true
	case OIDBpchar:
		return BpcharT, true
	case OIDVarchar:
		return VarcharT, true
	case OIDName:
		return NameT, true
	case OIDBytea:
		return ByteaT, true
	case OIDDate:
		return DateT, true
	case OIDTimestamp:
		return TimestampT, true
	case OIDTimestamptz:
		return TimestamptzT, true
	case OIDUUID:
		return UUIDT, true
	case OIDInterval:
		return IntervalT, true
	case OIDTime:
		return TimeT, true
	case OIDTimeTZ:
		return TimeTZT, true
	case OIDJSON:
		return JSONT, true
	}
	if e, ok := elemOfArrayOID(oid); ok {
		return ArrayOf(e), true
	}
	return UnknownT, false
}

// Typmod is the PostgreSQL atttypmod of t (-1 when none).
func (t T) Typmod() int32 {
	switch {
	case t.ID == Numeric && t.Scale >= 0 && t.Precision > 0:
		return int32((t.Precision<<16)|t.Scale) + 4
	case t.ID == Text && (t.Varchar || t.Bpchar) && t.Width > 0:
		return int32(t.Width) + 4
	case t.Wide():
		return int32((t.Precision<<16)|t.DeclScale) + 4
	case t.ID == Array:
		return t.Elem().Typmod()
	}
	return -1
}

// Size is the pg_type typlen of t.
func (t T) Size() int16 {
	switch t.ID {
	case Bool:
		return 1
	case Int16:
		return 2
	case Int32, Float32, Date:
		return 4
	case Int64, Float64, Timestamp, Timestamptz, Time:
		return 8
	case TimeTZ:
		return 12
	case UUID, Interval:
		return 16
	case Text:
		if t.Name {
			return 64
		}
	}
	return -1
}

// String is the type as PostgreSQL's format_type names it.
func (t T) String() string {
	switch t.ID {
	case Bool:
		return "boolean"
	case Int16:
		return "smallint"
	case Int32:
		return "integer"
	case Int64:
		return "bigint"
	case Float32:
		return "real"
	case Float64:
		return "double precision"
	case Numeric:
		if t.Scale >= 0 && t.Precision > 0 {
			return fmt.Sprintf("numeric(%d,%d)", t.Precision, t.Scale)
		}
		if t.Wide() {
			return fmt.Sprintf("numeric(%d,%d)", t.Precision, t.DeclScale)
		}
		return "numeric"
	case Text:
		if t.Varchar {
			if t.Width > 0 {
				return fmt.Sprintf("character varying(%d)", t.Width)
			}
			return "character varying"
		}
		if t.Bpchar {
			return bpcharString(t) // charn.go
		}
		if t.Name {
			return "name"
		}
		return "text"
	case Bytea:
		return "bytea"
	case Date:
		return "date"
	case Timestamp:
		return "timestamp without time zone"
	case Timestamptz:
		return "timestamp with time zone"
	case UUID:
		return "uuid"
	case Interval:
		return "interval"
	case Time:
		return "time without time zone"
	case TimeTZ:
		return "time with time zone"
	case JSON:
		return "json"
	case Array:
		return t.Elem().String() + "[]"
	case Struct:
		return "record"
	}
	return "unknown"
}

// DuckLake returns the DuckLake column_type name of t.
func (t T) DuckLake() (string, error) {
	switch t.ID {
	case Bool:
		return "boolean", nil
	case Int16:
		return "int16", nil
	case Int32:
		return "int32", nil
	case Int64:
		return "int64", nil
	case Float32:
		return "float32", nil
	case Float64:
		return "float64", nil
	case Numeric:
		if t.Wide() {
			return wideDuckLake(t)
		}
		if t.Scale < 0 {
			return "", pgerr.New(pgerr.FeatureNotSupported, "unconstrained numeric columns are not supported; declare numeric(p,s) with p <= 38")
		}
		p := t.Precision
		if p == 0 {
			// a literal's or an expression's scale without a declared
			// precision: held as a scaled int64, written to Parquet as
			// decimal(18,s) (parquetio's numericPS); the catalog says so too
			p = MaxInt64Precision
		}
		return fmt.Sprintf("decimal(%d,%d)", p, t.Scale), nil
	case Text:
		return "varchar", nil
	case Bytea:
		return "blob", nil
	case Date:
		return "date", nil
	case Timestamp:
		return "timestamp", nil
	case Timestamptz:
		return "timestamptz", nil
	case UUID:
		return "uuid", nil
	case Interval:
		// Parquet FIXED_LEN_BYTE_ARRAY(12) with the INTERVAL converted type
		return "interval", nil
	case Time:
		return "time", nil
	case TimeTZ:
		return "timetz", nil
	case JSON:
		return "json", nil
	}
	return "", pgerr.New(pgerr.FeatureNotSupported, "type %s cannot be stored in a table", t)
}

// FromDuckLake parses a DuckLake column_type.
func FromDuckLake(name string) (T, error) {
	n := strings.ToLower(strings.TrimSpace(name))
	switch n {
	case "boolean":
		return BoolT, nil
	case "int8", "int16", "uint8":
		return Int16T, nil
	case "int32", "uint16":
		return Int32T, nil
	case "int64", "uint32":
		return Int64T, nil
	case "float32":
		return Float32T, nil
	case "float64":
		return Float64T, nil
	case "varchar":
		return TextT, nil
	case "json":
		return JSONT, nil
	case "time":
		return TimeT, nil
	case "timetz":
		return TimeTZT, nil
	case "uint64":
		return NumericT(20, 0), nil
	case "int128", "uint128":
		// DuckDB writes these as (lossy) DOUBLE in Parquet; the integers
		// it reads back are those doubles' exact values (numeric_wide.go)
		return NumericT(39, 0), nil
	case "blob":
		return ByteaT, nil
	case "variant":
		// DuckDB's VARIANT: read as its JSON text (exec/parquetio variant.go)
		return JSONT, nil
	case "geometry":
		// DuckDB's GEOMETRY: Parquet GEOMETRY, WKB bytes (read as bytea;
		// PostGIS's geometry is not a type lakepg has)
		return ByteaT, nil
	case "date":
		return DateT, nil
	case "timestamp", "timestamp_us", "timestamp_s", "timestamp_ms", "timestamp_ns":
		return TimestampT, nil
	case "timestamptz":
		return TimestamptzT, nil
	case "uuid":
		return UUIDT, nil
	case "interval":
		return IntervalT, nil
	}
	if strings.HasPrefix(n, "decimal(") && strings.HasSuffix(n, ")") {
		parts := strings.Split(n[len("decimal("):len(n)-1], ",")
		if len(parts) == 2 {
			p, err1 := strconv.Atoi(strings.TrimSpace(parts[0]))
			s, err2 := strconv.Atoi(strings.TrimSpace(parts[1]))
			if err1 == nil && err2 == nil {
				if p == 0 && s >= 0 && s <= MaxInt64Precision {
					p = MaxInt64Precision // written by lakepg before it named the precision
				}
				if p < 1 || p > MaxDuckLakePrecision || s < 0 || s > p {
					return T{}, pgerr.New(pgerr.FeatureNotSupported, "DuckLake type %s is not supported", name)
				}
				return NumericT(p, s), nil
			}
		}
	}
	return T{}, pgerr.New(pgerr.FeatureNotSupported, "DuckLake type %q is not supported yet", name)
}

// Category is PostgreSQL's typcategory, used for implicit-cast preference.
func (t T) Category() byte {
	switch {
	case t.ID == Bool:
		return 'B'
	case t.IsNumeric():
		return 'N'
	case t.ID == Text:
		return 'S'
	case t.ID == Date || t.ID == Timestamp || t.ID == Timestamptz || t.ID == Time || t.ID == TimeTZ:
		return 'D'
	case t.ID == Interval:
		return 'T'
	case t.ID == Unknown:
		return 'X'
	case t.ID == Array:
		return 'A'
	case t.ID == Struct:
		return 'P'
	}
	return 'U'
}

// Preferred reports PostgreSQL's typispreferred: the type implicit casts
// within a category lean towards when resolving overloads.
func (t T) Preferred() bool {
	switch t.ID {
	case Float64, Bool, Timestamptz, Interval:
		return true
	case Text:
		return !t.Varchar && !t.Name && !t.Bpchar
	}
	return false
}
