package sql

import (
	"strconv"
	"strings"
	"time"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// An inlined list value is kept as DuckDB keeps it in SQLite and
// PostgreSQL catalogs: its VARCHAR text, [1, 2, NULL], which DuckDB casts
// back to the list type and nested_inlined.go parses. Every non-NULL
// element except numbers and booleans is single-quoted with backslash
// escapes, which DuckDB's list cast reads for every element type; a blob
// element is spelled as \xHH escapes inside those quotes. Elements whose
// text DuckDB's cast does not read back (json, timetz, dates before the
// common era) keep the row out of the catalog: it goes to a Parquet file.

// inlinableList reports whether list column c can be kept inlined.
func inlinableList(c catalog.Column) bool {
	if len(c.Children) != 1 {
		return false
	}
	switch inlineBaseType(c.Children[0].Type) {
	case "boolean", "int16", "int32", "int64", "float32", "float64", "decimal", "varchar",
		"blob", "date", "timestamp", "timestamptz", "uuid", "interval", "time":
		return true
	}
	return false
}

func inlineBaseType(t string) string {
	base := strings.ToLower(t)
	if i := strings.IndexByte(base, '('); i >= 0 {
		base = base[:i]
	}
	return base
}

// duckListText is DuckDB's text of non-NULL array row r of v; ok is false
// when an element has no text DuckDB reads back exactly.
func duckListText(v *vec.Vector, r int) (string, bool) {
	et := v.Type.Elem()
	ev := vec.New(et, 8)
	if err := vec.DecodeArray(ev, v.S[r]); err != nil {
		return "", false
	}
	b := []byte{'['}
	var tmp []byte
	for i := 0; i < ev.Len(); i++ {
		if i > 0 {
			b = append(b, ", "...)
		}
		if ev.IsNull(i) {
			b = append(b, "NULL"...)
			continue
		}
		switch et.ID {
		case types.Bool:
			b = strconv.AppendBool(b, ev.B[i])
		case types.Int16, types.Int32, types.Int64:
			b = strconv.AppendInt(b, ev.I64[i], 10)
		case types.Float32, types.Float64:
			b = append(b, floatText(ev.F64[i], et.ID == types.Float32)...)
		case types.Bytea:
			tmp = tmp[:0]
			const hexDigits = "0123456789ABCDEF"
			for _, c := range []byte(ev.S[i]) {
				tmp = append(tmp, '\\', 'x', hexDigits[c>>4], hexDigits[c&15])
			}
			b = appendDuckQuoted(b, tmp)
		case types.Text:
			b = appendDuckQuoted(b, []byte(ev.S[i]))
		case types.Interval:
			b = appendDuckQuoted(b, []byte(intervalText(ev.Iv[i])))
		case types.Numeric, types.UUID, types.Date, types.Timestamp, types.Timestamptz, types.Time:
			tmp = ev.AppendText(tmp[:0], i, time.UTC)
			if strings.HasSuffix(string(tmp), " BC") {
				return "", false
			}
			b = appendDuckQuoted(b, tmp)
		default:
			return "", false
		}
	}
	return string(append(b, ']')), true
}

// appendDuckQuoted appends s single-quoted, with quotes and backslashes
// escaped by a backslash.
func appendDuckQuoted(dst, s []byte) []byte {
	dst = append(dst, '\'')
	for _, c := range s {
		if c == '\'' || c == '\\' {
			dst = append(dst, '\\')
		}
		dst = append(dst, c)
	}
	return append(dst, '\'')
}
