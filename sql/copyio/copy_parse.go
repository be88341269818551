package copyio

import (
	"io"
	"unsafe"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// ParseRows reads up to max rows of rows into b (which must be empty) and
// returns how many it read; eof when rows ended. The same code serves the
// sequential COPY and each parallel worker (package sql's copy_parallel.go), so both
// report the same errors.
//
// A field costs a string allocation only when its value keeps the string:
// numbers, dates and times are parsed from a view of the field's bytes,
// and text fields are copied into one buffer per batch.
func (o *CopyRowsOp) ParseRows(rows CopyRows, b *vec.Batch, limit int) (n int, eof bool, err error) {
	o.Prepare()
	defer func() { b.N = n }()
	var arena []byte
	for n < limit {
		fields, err := rows.Next()
		if err == io.EOF {
			return n, true, nil
		}
		if err != nil {
			return n, false, err
		}
		for k, f := range fields {
			v := b.Vecs[k]
			if f == nil {
				if o.notNull[k] {
					return n, false, o.nullError(rows, k)
				}
				v.AppendNull()
				continue
			}
			switch o.direct[k] {
			case fieldText:
				if len(arena)+len(f) > cap(arena) {
					arena = make([]byte, 0, max(64<<10, 2*len(f)))
				}
				at := len(arena)
				arena = append(arena, f...)
				v.AppendString(unsafe.String(unsafe.SliceData(arena[at:]), len(f)))
				continue
			case fieldInt:
				if x, ok := parseIntFast(f, o.ts[k]); ok {
					v.AppendInt(x)
					continue
				}
			case fieldDate:
				if d, ok := types.ParseDateFast(unsafe.String(unsafe.SliceData(f), len(f))); ok {
					v.AppendInt(d)
					continue
				}
			}
			if o.direct[k] != fieldGeneral && len(f) > 0 {
				if err := exec.ParseInto(v, unsafe.String(&f[0], len(f)), o.loc, true); err == nil {
					continue
				}
			}
			// the general path; also every error, so that it never holds
			// a view of bytes the reader reuses
			if err := exec.ParseInto(v, string(f), o.loc, true); err != nil {
				return n, false, o.fieldError(rows, err, k, f)
			}
		}
		n++
	}
	return n, false, nil
}

// Prepare settles how each column's fields are parsed; parallel workers
// share o, so it runs before they start.
func (o *CopyRowsOp) Prepare() {
	if o.direct != nil {
		return
	}
	o.direct = make([]fieldKind, len(o.ts))
	for k, t := range o.ts {
		o.direct[k] = fieldKindOf(t)
	}
}

// fieldKind says how parseRows turns a field into a value.
type fieldKind uint8

const (
	fieldGeneral fieldKind = iota // ParseInto of a copy
	fieldView                     // ParseInto of a view: the value keeps nothing of the text
	fieldText                     // the bytes themselves, copied into the batch's buffer
	fieldDate                     // ISO dates parsed in place, others as fieldView
	fieldInt                      // plain decimal integers likewise
)

func fieldKindOf(t types.T) fieldKind {
	switch t.ID {
	case types.Date:
		return fieldDate
	case types.Int16, types.Int32, types.Int64:
		return fieldInt
	case types.Bool, types.Float32, types.Float64,
		types.Timestamp, types.Timestamptz, types.Interval, types.Time, types.TimeTZ:
		return fieldView
	case types.Numeric:
		if t.Scale >= 0 && !t.Wide() {
			return fieldView
		}
	case types.Text:
		if t.Width == 0 && !t.Bpchar {
			return fieldText
		}
	}
	return fieldGeneral
}

// parseIntFast parses an optional minus and up to 18 digits, the form
// nearly every integer field has, into a value of t's range; ok is false
// for anything else, which ParseInto answers (errors included).
func parseIntFast(f []byte, t types.T) (int64, bool) {
	neg := len(f) > 0 && f[0] == '-'
	if neg {
		f = f[1:]
	}
	if len(f) == 0 || len(f) > 18 {
		return 0, false
	}
	var x int64
	for _, c := range f {
		if c < '0' || c > '9' {
			return 0, false
		}
		x = x*10 + int64(c-'0')
	}
	if neg {
		x = -x
	}
	switch t.ID {
	case types.Int16:
		return x, x >= -1<<15 && x < 1<<15
	case types.Int32:
		return x, x >= -1<<31 && x < 1<<31
	}
	return x, true
}
