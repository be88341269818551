package sql

import (
	"strconv"
	"strings"
	"time"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// An inlined list or struct value is kept as DuckDB keeps it in SQLite
// and PostgreSQL catalogs: its VARCHAR text, [1, 2, NULL] or
// {'a': 1, 'b': 'x'}, which DuckDB casts back to the column's type and
// planner/laketypes/nested_inlined.go parses. Values whose text DuckDB's cast does not read
// back (json, timetz, dates before the common era) keep the row out of the
// catalog: it goes to a Parquet file.

// inlinableNested reports whether list or struct column c can be kept
// inlined: every leaf of a type whose text DuckDB reads back, and struct
// field names that need no quoting inside DuckDB's text.
func inlinableNested(c catalog.Column) bool {
	return inlinableTree(c, 0)
}

func inlinableTree(c catalog.Column, depth int) bool {
	if depth > 32 {
		return false
	}
	switch inlineBaseType(c.Type) {
	case "list":
		return len(c.Children) == 1 && inlinableTree(c.Children[0], depth+1)
	case "struct":
		if len(c.Children) == 0 {
			return false
		}
		for _, ch := range c.Children {
			if !plainFieldName(ch.Name) || !inlinableTree(ch, depth+1) {
				return false
			}
		}
		return true
	case "boolean", "int16", "int32", "int64", "float32", "float64", "decimal", "varchar",
		"blob", "date", "timestamp", "timestamptz", "uuid", "interval", "time":
		return true
	}
	return false
}

// plainFieldName: DuckDB's struct text quotes field names in single
// quotes; names with quotes, escapes or its syntax characters are left
// to Parquet files.
func plainFieldName(s string) bool {
	if s == "" || strings.EqualFold(s, "null") {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20, c == '\'', c == '\\', c == '"', c == '{', c == '}', c == '[', c == ']', c == ',', c == ':':
			return false
		}
	}
	return true
}

func inlineBaseType(t string) string {
	base := strings.ToLower(t)
	if i := strings.IndexByte(base, '('); i >= 0 {
		base = base[:i]
	}
	return base
}

// duckNestedText is DuckDB's text of non-NULL array or record row r of v:
// [1, NULL], {'a': 1, 'b': 'x'}; ok is false when a value has no text
// DuckDB reads back exactly. DuckDB itself inlines a top-level struct in a
// SQL-literal form (CAST('2020-01-01' AS DATE), doubled quotes) that its
// own reader misreads; this is the cast form both read back.
func duckNestedText(v *vec.Vector, r int) (string, bool) {
	b, ok := appendDuckNestedText(nil, v.Type, v.S[r], 0)
	return string(b), ok
}

func appendDuckNestedText(b []byte, t types.T, s string, depth int) ([]byte, bool) {
	if depth > 32 {
		return nil, false
	}
	var elems []types.T
	if t.ID == types.Array {
		b = append(b, '[')
	} else {
		b = append(b, '{')
		for _, f := range t.Fields() {
			elems = append(elems, f.Type)
		}
	}
	k := 0
	for p := 0; p < len(s); k++ {
		et := t.Elem()
		if t.ID == types.Struct {
			if k >= len(elems) {
				return nil, false
			}
			et = elems[k]
		}
		if k > 0 {
			b = append(b, ", "...)
		}
		if t.ID == types.Struct {
			b = append(append(append(b, '\''), t.Fields()[k].Name...), "': "...)
		}
		ev := vec.New(et, 1)
		q, err := vec.DecodeElem(ev, s, p)
		if err != nil {
			return nil, false
		}
		p = q
		if ev.IsNull(0) {
			b = append(b, "NULL"...)
			continue
		}
		var ok bool
		if et.ID == types.Array || et.ID == types.Struct {
			b, ok = appendDuckNestedText(b, et, ev.S[0], depth+1)
		} else {
			b, ok = appendDuckScalar(b, ev)
		}
		if !ok {
			return nil, false
		}
	}
	if t.ID == types.Array {
		return append(b, ']'), true
	}
	if k != len(elems) {
		return nil, false
	}
	return append(b, '}'), true
}

// appendDuckScalar appends the one value of ev as an element of DuckDB's
// nested text. Every non-NULL element except numbers and booleans is
// single-quoted with backslash escapes, which DuckDB's cast reads for
// every element type; a blob is spelled as \xHH escapes inside the
// quotes.
func appendDuckScalar(b []byte, ev *vec.Vector) ([]byte, bool) {
	et := ev.Type
	switch et.ID {
	case types.Bool:
		return strconv.AppendBool(b, ev.B[0]), true
	case types.Int16, types.Int32, types.Int64:
		return strconv.AppendInt(b, ev.I64[0], 10), true
	case types.Float32, types.Float64:
		return append(b, floatText(ev.F64[0], et.ID == types.Float32)...), true
	case types.Bytea:
		var tmp []byte
		const hexDigits = "0123456789ABCDEF"
		for _, c := range []byte(ev.S[0]) {
			tmp = append(tmp, '\\', 'x', hexDigits[c>>4], hexDigits[c&15])
		}
		return appendDuckQuoted(b, tmp), true
	case types.Text:
		return appendDuckQuoted(b, []byte(ev.S[0])), true
	case types.Interval:
		return appendDuckQuoted(b, []byte(intervalText(ev.Iv[0]))), true
	case types.Numeric, types.UUID, types.Date, types.Timestamp, types.Timestamptz, types.Time:
		tmp := ev.AppendText(nil, 0, time.UTC)
		if strings.HasSuffix(string(tmp), " BC") {
			return nil, false
		}
		return appendDuckQuoted(b, tmp), true
	}
	return nil, false
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
