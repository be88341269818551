package parquetio

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/variant"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
)

// DuckLake variant columns are written as Parquet's unshredded VARIANT:
// an OPTIONAL group, annotated VARIANT, of two REQUIRED binaries, the
// value's metadata (its dictionary of object keys) and the value itself
// in the Variant binary encoding. lakepg holds a variant as json text, so
// each value is parsed and re-encoded: objects, arrays, strings, booleans
// and null as themselves, integers as the narrowest of int8..int64 that
// holds them, other numbers as decimals when they fit 18 digits (as
// DuckDB turns a JSON number like 1.5 into a DECIMAL) and as doubles
// otherwise. DuckDB 1.5.5 reads such files (test/duckdb TestVariant).

// variantNode is the Parquet node of variant column c.
func variantNode(c Column) parquet.Node {
	return parquet.FieldID(parquet.Optional(parquet.Variant()), int(c.FieldID))
}

// writeVariants writes rows [lo, hi) of v, json text, into the metadata
// and value leaves (column chunks first and first+1) of a variant column.
func (w *Writer) writeVariants(cws []*parquet.ColumnWriter, col, first int, v *vec.Vector, lo, hi int) error {
	n := hi - lo
	metas := make([]parquet.Value, n)
	vals := make([]parquet.Value, n)
	var b variant.Builder
	for k := 0; k < n; k++ {
		i := lo + k
		if v.IsNull(i) {
			metas[k] = parquet.NullValue().Level(0, 0, first)
			vals[k] = parquet.NullValue().Level(0, 0, first+1)
			continue
		}
		b.Reset()
		if err := jsonToVariant(&b, v.S[i]); err != nil {
			return pgerr.New(pgerr.InvalidTextRepr, "column %q: value is not valid json for a variant: %v", w.cols[col].Name, err)
		}
		meta, val, err := b.Finish()
		if err != nil {
			return fmt.Errorf("parquet: column %q: %w", w.cols[col].Name, err)
		}
		metas[k] = parquet.ByteArrayValue(meta).Level(0, 1, first)
		vals[k] = parquet.ByteArrayValue(bytes.Clone(val)).Level(0, 1, first+1)
	}
	if _, err := cws[first].WriteRowValues(metas); err != nil {
		return fmt.Errorf("parquet: writing column %q: %w", w.cols[col].Name, err)
	}
	if _, err := cws[first+1].WriteRowValues(vals); err != nil {
		return fmt.Errorf("parquet: writing column %q: %w", w.cols[col].Name, err)
	}
	w.acc[col].add(v, lo, hi) // counts only: Close drops the bounds
	return nil
}

// jsonToVariant encodes the json text s into b.
func jsonToVariant(b *variant.Builder, s string) error {
	dec := json.NewDecoder(bytes.NewReader([]byte(s)))
	dec.UseNumber()
	if err := variantValue(b, dec, 0); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("trailing data after the value")
	}
	return b.Err()
}

func variantValue(b *variant.Builder, dec *json.Decoder, depth int) error {
	if depth > 1000 {
		return errors.New("nested too deeply")
	}
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			b.BeginObject()
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return err
				}
				key, ok := k.(string)
				if !ok {
					return errors.New("object key is not a string")
				}
				b.Field(key)
				if err := variantValue(b, dec, depth+1); err != nil {
					return err
				}
			}
			if _, err := dec.Token(); err != nil {
				return err
			}
			b.EndObject()
		case '[':
			b.BeginArray()
			for dec.More() {
				if err := variantValue(b, dec, depth+1); err != nil {
					return err
				}
			}
			if _, err := dec.Token(); err != nil {
				return err
			}
			b.EndArray()
		default:
			return fmt.Errorf("unexpected %q", t)
		}
	case string:
		b.String(t)
	case bool:
		b.Bool(t)
	case nil:
		b.Null()
	case json.Number:
		variantNumber(b, string(t))
	}
	return nil
}

// variantNumber encodes a json number: the narrowest integer, else a
// decimal of up to 18 digits, else a double.
func variantNumber(b *variant.Builder, s string) {
	if x, err := strconv.ParseInt(s, 10, 64); err == nil {
		switch {
		case x >= math.MinInt8 && x <= math.MaxInt8:
			b.Int8(int8(x))
		case x >= math.MinInt16 && x <= math.MaxInt16:
			b.Int16(int16(x))
		case x >= math.MinInt32 && x <= math.MaxInt32:
			b.Int32(int32(x))
		default:
			b.Int64(x)
		}
		return
	}
	if u, scale, ok := decimalDigits(s); ok {
		b.Decimal8(u, scale)
		return
	}
	f, _ := strconv.ParseFloat(s, 64)
	b.Double(f)
}

// decimalDigits reads a plain decimal (no exponent) of at most 18 digits
// as its unscaled value and scale.
func decimalDigits(s string) (int64, byte, bool) {
	neg := false
	if s != "" && s[0] == '-' {
		neg, s = true, s[1:]
	}
	var u int64
	digits, scale, dot := 0, 0, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '.' && !dot:
			dot = true
		case c >= '0' && c <= '9':
			if digits == 0 && c == '0' && !dot {
				continue // leading zeros
			}
			digits++
			if digits > 18 {
				return 0, 0, false
			}
			u = u*10 + int64(c-'0')
			if dot {
				scale++
			}
		default:
			return 0, 0, false
		}
	}
	if !dot || scale == 0 {
		return 0, 0, false
	}
	if neg {
		u = -u
	}
	return u, byte(scale), true
}
