package wire

import (
	"encoding/binary"
	"time"

	"github.com/lakepg/lakepg/exec/vec"
)

// copyEncoder writes rows in a COPY TO format. A batch is first encoded a
// column at a time by rowBuf (text or binary values with length prefixes,
// the same loops as DataRow), then each row is assembled from those values:
// binary rows as they are, text and csv rows escaped or quoted.
type copyEncoder struct {
	spec *CopySpec
	encs []encoding
	rb   rowBuf
}

func newCopyEncoder(spec *CopySpec) (*copyEncoder, error) {
	e := &copyEncoder{spec: spec, encs: make([]encoding, len(spec.Columns))}
	if spec.Format == CopyBinary {
		for i, col := range spec.Columns {
			enc, err := chooseEncoding(col.Type, binaryFormat)
			if err != nil {
				return nil, err
			}
			e.encs[i] = enc
		}
	}
	return e, nil
}

// fill encodes batch b; its rows are then appended one by one.
func (e *copyEncoder) fill(b *vec.Batch, loc *time.Location) error {
	return e.rb.fill(b, e.spec.Columns, e.encs, loc)
}

// header appends what precedes the rows: the binary signature, or the
// header line of column names. PostgreSQL sends the binary header in the
// same CopyData as the first row, and a header line in its own.
func (e *copyEncoder) header(dst []byte) []byte {
	if e.spec.Format == CopyBinary {
		dst = append(dst, binarySignature...)
		return append(dst, 0, 0, 0, 0, 0, 0, 0, 0) // flags, extension length
	}
	if !e.spec.Header {
		return dst
	}
	single := len(e.spec.Columns) == 1
	for k, col := range e.spec.Columns {
		if k > 0 {
			dst = append(dst, e.spec.Delimiter)
		}
		if e.spec.Format == CopyCSV {
			dst = e.appendCSV(dst, []byte(col.Name), false, single)
		} else {
			dst = e.appendText(dst, []byte(col.Name))
		}
	}
	return append(dst, '\n')
}

// trailer appends the end of a binary stream (-1 as field count).
func (e *copyEncoder) trailer(dst []byte) []byte {
	return append(dst, 0xff, 0xff)
}

// appendRow appends row i of the filled batch.
func (e *copyEncoder) appendRow(dst []byte, i int) []byte {
	rb := &e.rb
	if e.spec.Format == CopyBinary {
		dst = binary.BigEndian.AppendUint16(dst, uint16(len(rb.vals)))
		for k, vals := range rb.vals {
			dst = append(dst, vals[rb.start(k, i):rb.ends[k][i]]...)
		}
		return dst
	}
	single := len(rb.vals) == 1
	for k, vals := range rb.vals {
		if k > 0 {
			dst = append(dst, e.spec.Delimiter)
		}
		v := vals[rb.start(k, i):rb.ends[k][i]]
		if v[0] == 0xff { // length -1: NULL
			dst = append(dst, e.spec.Null...)
			continue
		}
		v = v[4:]
		if e.spec.Format == CopyCSV {
			dst = e.appendCSV(dst, v, flag(e.spec.ForceQuote, k), single)
		} else {
			dst = e.appendText(dst, v)
		}
	}
	return append(dst, '\n')
}

// appendText appends v escaped as COPY's text format requires: backslash,
// the delimiter and the control characters that have a letter escape are
// backslashed; other bytes go as they are.
func (e *copyEncoder) appendText(dst, v []byte) []byte {
	delim := e.spec.Delimiter
	start := 0
	for i, c := range v {
		var esc byte
		switch {
		case c < 0x20:
			switch c {
			case '\b':
				esc = 'b'
			case '\f':
				esc = 'f'
			case '\n':
				esc = 'n'
			case '\r':
				esc = 'r'
			case '\t':
				esc = 't'
			case '\v':
				esc = 'v'
			default:
				if c != delim {
					continue
				}
				esc = c
			}
		case c == '\\' || c == delim:
			esc = c
		default:
			continue
		}
		dst = append(dst, v[start:i]...)
		dst = append(dst, '\\', esc)
		start = i + 1
	}
	return append(dst, v[start:]...)
}

// appendCSV appends v as a csv field, quoted when forced, when it could
// be read back as NULL or as the end-of-data marker, or when it holds the
// delimiter, the quote or a line end; inside quotes the quote and escape
// characters are preceded by the escape character.
func (e *copyEncoder) appendCSV(dst, v []byte, force, single bool) []byte {
	quote, esc, delim := e.spec.Quote, e.spec.Escape, e.spec.Delimiter
	use := force || string(v) == e.spec.Null || single && string(v) == `\.`
	if !use {
		for _, c := range v {
			if c == delim || c == quote || c == '\n' || c == '\r' {
				use = true
				break
			}
		}
	}
	if !use {
		return append(dst, v...)
	}
	dst = append(dst, quote)
	start := 0
	for i, c := range v {
		if c == quote || c == esc {
			dst = append(dst, v[start:i]...)
			dst = append(dst, esc)
			start = i
		}
	}
	dst = append(dst, v[start:]...)
	return append(dst, quote)
}
