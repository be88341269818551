package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/lakepg/lakepg/pgerr"
)

// CopyFormat is the data format of a COPY: PostgreSQL's text, csv or binary.
type CopyFormat uint8

const (
	CopyText CopyFormat = iota
	CopyCSV
	CopyBinary
)

// CopySpec describes the data of a COPY ... FROM STDIN or COPY ... TO STDOUT
// after the SQL layer has checked and defaulted its options, so that wire
// only has to turn rows into bytes and back.
type CopySpec struct {
	In     bool // FROM STDIN; else TO STDOUT
	Format CopyFormat

	Delimiter byte   // text and csv
	Null      string // text and csv: the string that stands for NULL
	Quote     byte   // csv
	Escape    byte   // csv
	// Header: the first line holds column names (text and csv). With
	// HeaderMatch (FROM only) they must equal the column names.
	Header, HeaderMatch bool
	// Per-column csv options, nil or one entry per column of Columns.
	ForceQuote   []bool // TO: quote every non-NULL value
	ForceNotNull []bool // FROM: an unquoted null string is the empty string
	ForceNull    []bool // FROM: a quoted null string is NULL too

	// Relation names the table in CONTEXT lines ("COPY t, line 3").
	Relation string
	// Columns are the columns of the data, in order: names for headers and
	// error context, types for the binary format.
	Columns []Column
}

// CopyResult is an optional Result ability of the COPY statement. Copy
// returns nil when the statement is not a COPY FROM STDIN or TO STDOUT.
//
// For COPY TO STDOUT the Result's batches are the rows to send (described
// by CopySpec.Columns) and Tag is "COPY n". For COPY FROM STDIN the server
// sends CopyInResponse and calls CopyIn, which reads every row from rows and
// stores them; Next then reports no rows and Tag is "COPY n".
type CopyResult interface {
	Copy() *CopySpec
	CopyIn(rows CopyRows) error
}

// CopyRows is the data of a COPY FROM STDIN as rows of text fields; binary
// fields arrive already converted to their text form (DecodeBinaryParam).
type CopyRows interface {
	// Next returns the fields of the next row, one per column, nil for NULL;
	// they are valid until the next call. After the last row it returns
	// io.EOF. Bad data is an error carrying a CONTEXT line (see Where).
	Next() ([][]byte, error)
	// Line is the line (row) number of the row Next returned last, counting
	// a header line, as PostgreSQL's CONTEXT lines do.
	Line() int64
}

// BinaryRows is an optional Result ability: a FETCH from a cursor declared
// BINARY sends its rows in binary format even in the simple protocol.
type BinaryRows interface {
	BinaryRows() bool
}

// Contexter is an error that says where it happened: the CONTEXT line of
// PostgreSQL's error report (ErrorResponse field W), e.g.
// `COPY t, line 3, column b: "x"`. The server finds it with errors.As
// anywhere in the chain of a statement's error.
type Contexter interface {
	error
	Where() string
}

// whereOf returns the CONTEXT of err, "" when it has none.
func whereOf(err error) string {
	var c Contexter
	if errors.As(err, &c) {
		return c.Where()
	}
	return ""
}

// contextError gives an error a CONTEXT line.
type contextError struct {
	err   error
	where string
}

func (e *contextError) Error() string { return e.err.Error() }
func (e *contextError) Unwrap() error { return e.err }
func (e *contextError) Where() string { return e.where }

// SQLSTATEs of COPY that pgerr does not name.
const (
	codeBadCopyFormat       = "22P04"
	codeCharNotInRepertoire = "22021"
)

// maxCopyDisplay is how much of a value or line a CONTEXT line shows, as
// PostgreSQL's MAX_COPY_DATA_DISPLAY.
const maxCopyDisplay = 100

// clipDisplay shortens s for a CONTEXT line without splitting a character.
func clipDisplay(s []byte) string {
	if len(s) <= maxCopyDisplay {
		return string(s)
	}
	n := maxCopyDisplay
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return string(s[:n]) + "..."
}

// invalidUTF8 is PostgreSQL's report of a bad byte sequence: the bytes of
// the character that starts badly, as many as its first byte announces.
func invalidUTF8(b []byte) *pgerr.Error {
	i := 0
	for i < len(b) {
		r, size := utf8.DecodeRune(b[i:])
		if (r == utf8.RuneError && size <= 1) || r == 0 {
			break
		}
		i += size
	}
	b = b[i:]
	// as many bytes as the lead byte announces, by PostgreSQL's rule
	// (pg_utf_mblen): a byte that leads no sequence is shown alone
	n := 1
	switch c := b[0]; {
	case c&0xe0 == 0xc0:
		n = 2
	case c&0xf0 == 0xe0:
		n = 3
	case c&0xf8 == 0xf0:
		n = 4
	}
	n = min(n, len(b))
	msg := "invalid byte sequence for encoding \"UTF8\":"
	for _, c := range b[:n] {
		msg += fmt.Sprintf(" 0x%02x", c)
	}
	return pgerr.New(codeCharNotInRepertoire, "%s", msg)
}

// validText reports whether b is UTF-8 without NUL bytes, the rule
// PostgreSQL applies to text input.
func validText(b []byte) bool {
	// eight bytes at a time: plain ASCII without NUL is the common case
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	for len(b) >= 8 {
		x := binary.LittleEndian.Uint64(b)
		if x&hi != 0 || (x-lo)&^x&hi != 0 {
			break // a byte >= 0x80, or a zero byte
		}
		b = b[8:]
	}
	for _, c := range b {
		if c == 0 || c >= 0x80 {
			return utf8.Valid(b) && !containsNUL(b)
		}
	}
	return true
}

func containsNUL(b []byte) bool {
	for _, c := range b {
		if c == 0 {
			return true
		}
	}
	return false
}

// copyResponseFormats are the format codes of CopyInResponse and
// CopyOutResponse: all text, or all binary in the binary format.
func copyResponseFormats(spec *CopySpec) (byte, []uint16) {
	f := uint16(0)
	if spec.Format == CopyBinary {
		f = 1
	}
	codes := make([]uint16, len(spec.Columns))
	for i := range codes {
		codes[i] = f
	}
	return byte(f), codes
}

func copyInResponse(spec *CopySpec) *pgproto3.CopyInResponse {
	f, codes := copyResponseFormats(spec)
	return &pgproto3.CopyInResponse{OverallFormat: f, ColumnFormatCodes: codes}
}

func copyOutResponse(spec *CopySpec) *pgproto3.CopyOutResponse {
	f, codes := copyResponseFormats(spec)
	return &pgproto3.CopyOutResponse{OverallFormat: f, ColumnFormatCodes: codes}
}
