package parquetio

import (
	"encoding/hex"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/lakepg/lakepg/exec/hll"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// DuckLake keeps per-file min/max as text in ducklake_file_column_stats and
// compares them after casting to the column type; DuckDB answers MIN/MAX
// from them, so they must be exact. The spellings below are the ones DuckDB
// 1.5 writes (checked against its catalogs): integers in decimal; floats in
// the shortest round-trip form with ".0" on integral values, exponent form
// below 1e-4 and from 1e16 (1e-05, 1e+16), "inf"/"-inf", NaN left out;
// decimals with exactly scale fraction digits; booleans 0/1; ISO dates with
// " (BC)" for years before 1; timestamps "YYYY-MM-DD HH:MM:SS[.ffffff]"
// without trailing zeros, timestamptz in UTC with "+00"; ±infinity; varchar
// as is; blobs as upper-case hex; uuids canonical.

// StatText formats row i of v as DuckLake stats text. ok is false when the
// value is NULL or has no stats form (NaN, text containing a NUL byte, which
// catalogs on PostgreSQL cannot store).
func StatText(t types.T, v *vec.Vector, i int) (string, bool) {
	if v.IsNull(i) {
		return "", false
	}
	var b []byte
	var ok bool
	switch t.Storage() {
	case types.StoreInt:
		b, ok = appendStatInt(nil, t, v.I64[i])
	case types.StoreFloat:
		b, ok = appendStatFloat(nil, t, v.F64[i])
	case types.StoreBool:
		b, ok = appendStatBool(nil, v.B[i]), true
	case types.StoreInterval:
		return "", false // DuckLake keeps no min/max for intervals
	default:
		b, ok = appendStatBytes(nil, t, v.S[i])
	}
	return string(b), ok
}

func appendStatBool(dst []byte, x bool) []byte {
	if x {
		return append(dst, '1')
	}
	return append(dst, '0')
}

// dateInfinity is how DuckDB stores date 'infinity' (int32 max days).
const dateInfinity = math.MaxInt32

func appendStatInt(dst []byte, t types.T, x int64) ([]byte, bool) {
	switch t.ID {
	case types.Numeric:
		if t.Scale < 0 {
			return dst, false
		}
		return types.AppendNumeric(dst, x, t.Scale), true
	case types.Date:
		switch x {
		case dateInfinity:
			return append(dst, "infinity"...), true
		case -dateInfinity:
			return append(dst, "-infinity"...), true
		}
		return appendDuckDate(dst, time.Unix(x*86400, 0).UTC()), true
	case types.Timestamp, types.Timestamptz:
		switch x {
		case types.InfinityMicros:
			return append(dst, "infinity"...), true
		case types.NegInfinityMicros:
			return append(dst, "-infinity"...), true
		}
		tm := time.UnixMicro(x).UTC()
		dst = appendDuckDate(dst, tm)
		dst = append(dst, ' ')
		dst = appendDuckClock(dst, tm)
		if t.ID == types.Timestamptz {
			dst = append(dst, "+00"...)
		}
		return dst, true
	case types.Time:
		return timeStatText(dst, x), true
	case types.TimeTZ:
		return dst, false // DuckDB keeps no stats for timetz
	}
	return strconv.AppendInt(dst, x, 10), true
}

// appendDuckDate writes YYYY-MM-DD, with " (BC)" for years before 1 as
// DuckDB does (year 0 is 1 BC).
func appendDuckDate(dst []byte, tm time.Time) []byte {
	y, m, d := tm.Date()
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
		dst = append(dst, " (BC)"...)
	}
	return dst
}

func appendDuckClock(dst []byte, tm time.Time) []byte {
	h, mi, s := tm.Clock()
	dst = appendPad(dst, h, 2)
	dst = append(dst, ':')
	dst = appendPad(dst, mi, 2)
	dst = append(dst, ':')
	dst = appendPad(dst, s, 2)
	if us := tm.Nanosecond() / 1000; us != 0 {
		f := strconv.AppendInt(nil, int64(us+1000000), 10)[1:]
		for len(f) > 0 && f[len(f)-1] == '0' {
			f = f[:len(f)-1]
		}
		dst = append(dst, '.')
		dst = append(dst, f...)
	}
	return dst
}

func appendPad(dst []byte, v, width int) []byte {
	var buf [20]byte
	s := strconv.AppendInt(buf[:0], int64(v), 10)
	for i := len(s); i < width; i++ {
		dst = append(dst, '0')
	}
	return append(dst, s...)
}

func appendStatFloat(dst []byte, t types.T, f float64) ([]byte, bool) {
	if math.IsNaN(f) {
		return dst, false
	}
	bits := 64
	if t.ID == types.Float32 {
		bits = 32
	}
	return appendDuckFloat(dst, f, bits), true
}

// appendDuckFloat formats like DuckDB's float/double to varchar cast.
func appendDuckFloat(dst []byte, f float64, bits int) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, "nan"...)
	case math.IsInf(f, 1):
		return append(dst, "inf"...)
	case math.IsInf(f, -1):
		return append(dst, "-inf"...)
	case f == 0:
		// DuckDB prints negative zero as 0.0 too.
		return append(dst, "0.0"...)
	}
	var buf [32]byte
	e := strconv.AppendFloat(buf[:0], f, 'e', -1, bits) // d.ddde±XX
	k := strings.LastIndexByte(string(e), 'e')
	exp, _ := strconv.Atoi(string(e[k+1:]))
	if exp < -4 || exp >= 16 {
		dst = append(dst, e[:k]...)
		dst = append(dst, 'e')
		if exp < 0 {
			dst = append(dst, '-')
			exp = -exp
		} else {
			dst = append(dst, '+')
		}
		if exp < 10 {
			dst = append(dst, '0')
		}
		return strconv.AppendInt(dst, int64(exp), 10)
	}
	start := len(dst)
	dst = strconv.AppendFloat(dst, f, 'f', -1, bits)
	if !strings.ContainsRune(string(dst[start:]), '.') {
		dst = append(dst, '.', '0')
	}
	return dst
}

func appendStatBytes(dst []byte, t types.T, s string) ([]byte, bool) {
	switch t.ID {
	case types.Bytea:
		n := len(dst)
		dst = append(dst, make([]byte, 2*len(s))...)
		hex.Encode(dst[n:], []byte(s))
		for i := n; i < len(dst); i++ {
			if c := dst[i]; c >= 'a' && c <= 'f' {
				dst[i] = c - 'a' + 'A'
			}
		}
		return dst, true
	case types.UUID:
		if len(s) != 16 {
			return dst, false
		}
		return types.AppendUUID(dst, s), true
	case types.Numeric:
		return append(dst, s...), t.Wide()
	case types.Text, types.JSON:
		if strings.IndexByte(s, 0) >= 0 {
			return dst, false
		}
		return append(dst, s...), true
	}
	return dst, false
}

// statAcc accumulates one column's statistics while a file is written.
type statAcc struct {
	t             types.T
	values, nulls int64
	has           bool
	minI, maxI    int64
	minF, maxF    float64
	minS, maxS    string
	minB, maxB    bool
	nan           bool
	sk            *hll.Sketch // nil: the column is not sketched
}

// sketched reports whether the writer keeps a distinct-value sketch of a
// column: the scalar types the planner estimates joins, equality filters
// and groups over. Booleans have at most two values, intervals and
// timetz no stats at all, and lakepg's reserved columns (row ids,
// snapshot ids) are never keys.
func sketched(c Column) bool {
	if c.FieldID >= FieldRowID-1000 || c.Variant || c.Geometry {
		return false
	}
	switch c.Type.ID {
	case types.Array, types.Bool, types.Interval, types.TimeTZ:
		return false
	}
	switch c.Type.Storage() {
	case types.StoreInt, types.StoreFloat, types.StoreBytes:
		return true
	}
	return false
}

func (a *statAcc) add(v *vec.Vector, lo, hi int) {
	nulls := v.Nulls
	if nulls != nil {
		nulls = nulls[lo:hi]
	}
	valid := func(i int) bool { return nulls == nil || !nulls[i-lo] }
	switch a.t.Storage() {
	case types.StoreInt:
		xs := v.I64[lo:hi]
		if a.sk != nil {
			a.sk.AddInts(xs, nulls)
		}
		for i, x := range xs {
			if nulls != nil && nulls[i] {
				continue
			}
			if !a.has {
				a.minI, a.maxI, a.has = x, x, true
			} else if x < a.minI {
				a.minI = x
			} else if x > a.maxI {
				a.maxI = x
			}
		}
	case types.StoreFloat:
		xs := v.F64[lo:hi]
		if a.sk != nil {
			a.sk.AddFloats(xs, nulls)
		}
		for i, x := range xs {
			if nulls != nil && nulls[i] {
				continue
			}
			if x != x {
				a.nan = true
				continue
			}
			if !a.has {
				a.minF, a.maxF, a.has = x, x, true
			} else if x < a.minF {
				a.minF = x
			} else if x > a.maxF {
				a.maxF = x
			}
		}
	case types.StoreBool:
		xs := v.B[lo:hi]
		for i, x := range xs {
			if nulls != nil && nulls[i] {
				continue
			}
			if !a.has {
				a.minB, a.maxB, a.has = x, x, true
				continue
			}
			a.minB = a.minB && x
			a.maxB = a.maxB || x
		}
	case types.StoreInterval:
		// counted below; no min/max
	default:
		if a.sk != nil {
			a.sk.AddStrings(v.S[lo:hi], nulls)
		}
		if a.t.Wide() {
			a.addWide(v, lo, hi) // decimal128.go
			break
		}
		for i := lo; i < hi; i++ {
			if !valid(i) {
				continue
			}
			x := v.S[i]
			// Clone on change: the vector's strings may share a large
			// buffer (a whole Parquet page) that must not be kept alive.
			if !a.has {
				a.minS, a.maxS, a.has = strings.Clone(x), strings.Clone(x), true
			} else if x < a.minS {
				a.minS = strings.Clone(x)
			} else if x > a.maxS {
				a.maxS = strings.Clone(x)
			}
		}
	}
	n := int64(hi - lo)
	if nulls != nil {
		k := int64(0)
		for _, b := range nulls {
			if b {
				k++
			}
		}
		a.nulls += k
		n -= k
	}
	a.values += n
}

func (a *statAcc) result(fieldID int32, size int64) ColumnStats {
	cs := ColumnStats{FieldID: fieldID, ValueCount: a.values, NullCount: a.nulls, SizeBytes: size}
	if a.t.ID == types.TimeTZ {
		// DuckDB's Parquet writer keeps no statistics for timetz, and its
		// catalog rows then say 0 values, 0 NULLs, 0 bytes; so do ours
		return ColumnStats{FieldID: fieldID}
	}
	if a.t.IsFloat() {
		nan := a.nan
		cs.ContainsNaN = &nan
	}
	if a.sk != nil && a.values > 0 {
		cs.Sketch = a.sk.Marshal()
	}
	if !a.has {
		return cs
	}
	var lo, hi []byte
	var ok1, ok2 bool
	switch a.t.Storage() {
	case types.StoreInt:
		lo, ok1 = appendStatInt(nil, a.t, a.minI)
		hi, ok2 = appendStatInt(nil, a.t, a.maxI)
	case types.StoreFloat:
		lo, ok1 = appendStatFloat(nil, a.t, a.minF)
		hi, ok2 = appendStatFloat(nil, a.t, a.maxF)
	case types.StoreBool:
		lo, ok1 = appendStatBool(nil, a.minB), true
		hi, ok2 = appendStatBool(nil, a.maxB), true
	case types.StoreInterval:
		return cs
	default:
		lo, ok1 = appendStatBytes(nil, a.t, a.minS)
		hi, ok2 = appendStatBytes(nil, a.t, a.maxS)
	}
	if ok1 {
		s := string(lo)
		cs.Min = &s
	}
	if ok2 {
		s := string(hi)
		cs.Max = &s
	}
	return cs
}
