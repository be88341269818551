package snapshot

import (
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/lakepg/lakepg/catalog"
)

// colAcc is the running union of one column's statistics. DuckDB answers
// MIN/MAX straight from ducklake_table_column_stats when a table never had
// deletes, so a bound that is not exact would be a wrong answer: every
// uncertainty turns into NULL (unknown) instead.
type colAcc struct {
	containsNull *bool
	containsNaN  *bool
	min, max     *string
	// empty: known to contain no non-NULL value, so min/max say nothing
	// and merging takes the other side's bounds.
	empty bool
}

func fileAcc(cs catalog.ColumnStats) colAcc {
	a := colAcc{containsNaN: cs.ContainsNaN, min: cs.Min, max: cs.Max}
	switch {
	case cs.NullCount != nil:
		b := *cs.NullCount > 0
		a.containsNull = &b
	case cs.ValueCount == nil:
		// DuckDB writes both counts NULL when its NULL count exceeds the
		// values (NULL structs inside lists count twice), and its table
		// row then says contains_null (parquetio/writer_nested.go)
		b := true
		a.containsNull = &b
	}
	// value_count 0 with bounds is that double count again: the bounds
	// are real, as DuckDB's table row keeps them
	if cs.ValueCount != nil && *cs.ValueCount == 0 && cs.Min == nil && cs.Max == nil {
		a.empty, a.min, a.max = true, nil, nil
	}
	return a
}

func tableAcc(s catalog.TableColumnStats) colAcc {
	// A stored row cannot say whether NULL bounds mean "no values yet" or
	// "unknown", so they are treated as unknown.
	return colAcc{containsNull: s.ContainsNull, containsNaN: s.ContainsNaN, min: s.Min, max: s.Max}
}

func orBool(a, b *bool) *bool {
	if a == nil || b == nil {
		return nil
	}
	v := *a || *b
	return &v
}

// mergeAcc is the union of a and b for a column of DuckLake type typ.
func mergeAcc(a, b colAcc, typ string) colAcc {
	out := colAcc{containsNull: orBool(a.containsNull, b.containsNull), containsNaN: orBool(a.containsNaN, b.containsNaN)}
	switch {
	case b.empty:
		out.min, out.max, out.empty = a.min, a.max, a.empty
	case a.empty:
		out.min, out.max = b.min, b.max
	default:
		out.min = pickBound(a.min, b.min, typ, true)
		out.max = pickBound(a.max, b.max, typ, false)
	}
	return out
}

// pickBound returns the smaller (wantMin) or larger of two encoded bounds, or
// nil if either is unknown or they cannot be compared.
func pickBound(a, b *string, typ string, wantMin bool) *string {
	if a == nil || b == nil {
		return nil
	}
	c, ok := compareStats(*a, *b, typ)
	if !ok {
		return nil
	}
	if (wantMin && c <= 0) || (!wantMin && c >= 0) {
		return a
	}
	return b
}

// baseType strips parameters and lower-cases a DuckLake type name.
func baseType(t string) string {
	t = strings.ToLower(strings.TrimSpace(t))
	if i := strings.IndexByte(t, '('); i >= 0 {
		t = t[:i]
	}
	return t
}

// compareStats compares two statistics values in DuckLake's text encoding
// after interpreting them as the column type: numbers and times by value
// (as DuckDB casts them before comparing), everything else byte-wise as
// DuckDB compares strings. ok is false when a value does not parse.
func compareStats(a, b, typ string) (int, bool) {
	if a == b {
		return 0, true
	}
	switch baseType(typ) {
	case "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "int128", "uint128":
		x, ok1 := new(big.Int).SetString(strings.TrimSpace(a), 10)
		y, ok2 := new(big.Int).SetString(strings.TrimSpace(b), 10)
		if !ok1 || !ok2 {
			return 0, false
		}
		return x.Cmp(y), true
	case "decimal":
		x, ok1 := new(big.Rat).SetString(strings.TrimSpace(a))
		y, ok2 := new(big.Rat).SetString(strings.TrimSpace(b))
		if !ok1 || !ok2 {
			return 0, false
		}
		return x.Cmp(y), true
	case "float32", "float64", "float", "double":
		x, err1 := strconv.ParseFloat(strings.TrimSpace(a), 64)
		y, err2 := strconv.ParseFloat(strings.TrimSpace(b), 64)
		if err1 != nil || err2 != nil || x != x || y != y { // NaN never bounds
			return 0, false
		}
		return cmpFloat(x, y), true
	case "boolean":
		x, ok1 := parseBool(a)
		y, ok2 := parseBool(b)
		if !ok1 || !ok2 {
			return 0, false
		}
		return x - y, true
	case "date":
		return compareTemporal(a, b, parseDate)
	case "time", "time_ns":
		return compareTemporal(a, b, parseTimeOfDay)
	case "timestamp", "timestamp_us", "timestamp_s", "timestamp_ms", "timestamp_ns", "timestamptz":
		return compareTemporal(a, b, parseTimestamp)
	case "timetz", "interval", "struct", "list", "map", "variant", "geometry":
		// No total order in the encoding; DuckDB writes no bounds for
		// most of these anyway.
		return 0, false
	default: // varchar, json, blob (hex), uuid
		return strings.Compare(a, b), true
	}
}

func cmpFloat(x, y float64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

func parseBool(s string) (int, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "1", "true", "t":
		return 1, true
	case "0", "false", "f":
		return 0, true
	}
	return 0, false
}

// temporal values are compared as (infinity class, time).
type temporal struct {
	inf int // -1 for -infinity, 1 for infinity, 0 otherwise
	t   time.Time
}

func compareTemporal(a, b string, parse func(string) (temporal, bool)) (int, bool) {
	x, ok1 := parse(a)
	y, ok2 := parse(b)
	if !ok1 || !ok2 {
		return 0, false
	}
	if x.inf != y.inf {
		if x.inf < y.inf {
			return -1, true
		}
		return 1, true
	}
	if x.inf != 0 {
		return 0, true
	}
	return x.t.Compare(y.t), true
}

func infinity(s string) (int, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "infinity", "+infinity":
		return 1, true
	case "-infinity":
		return -1, true
	}
	return 0, false
}

func parseDate(s string) (temporal, bool) {
	if i, ok := infinity(s); ok {
		return temporal{inf: i}, true
	}
	t, err := time.Parse("2006-01-02", strings.TrimSpace(s))
	if err != nil {
		return temporal{}, false
	}
	return temporal{t: t}, true
}

func parseTimeOfDay(s string) (temporal, bool) {
	t, err := time.Parse("15:04:05.999999999", strings.TrimSpace(s))
	if err != nil {
		return temporal{}, false
	}
	return temporal{t: t}, true
}

func parseTimestamp(s string) (temporal, bool) {
	if i, ok := infinity(s); ok {
		return temporal{inf: i}, true
	}
	t, err := catalog.ParseTime(s)
	if err != nil {
		return temporal{}, false
	}
	return temporal{t: t}, true
}
