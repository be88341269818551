package wire

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/lakepg/lakepg/pgerr"
)

// eolType is the line ending of COPY text or csv data, fixed by the first
// line as in PostgreSQL: mixing them is an error, because a stray carriage
// return is more likely corrupt data than a line end.
type eolType uint8

const (
	eolUnknown eolType = iota
	eolNL
	eolCR
	eolCRNL
)

// binarySignature starts every binary COPY stream.
var binarySignature = []byte("PGCOPY\n\xff\r\n\x00")

// copyReader parses COPY FROM data into rows of text fields. Data arrives
// in chunks from fill (CopyData payloads; io.EOF at CopyDone); the reader
// keeps only the unparsed tail and the current row, so memory stays bounded
// by the longest line, whatever the size of the COPY.
type copyReader struct {
	spec *CopySpec
	fill func() ([]byte, error)

	buf   []byte // unparsed data is buf[pos:]
	pos   int
	eof   bool // fill reported the end of the data
	ended bool // the end-of-data marker or the binary trailer was read

	line    int64
	eol     eolType
	started bool // header (line or binary) consumed

	out    []byte   // decoded bytes of the current row's fields
	bounds []int    // field i is out[bounds[2i]:bounds[2i+1]], start -1 = NULL
	fields [][]byte // the row handed out
	quoted []bool   // csv: field i had quotes (for FORCE_NULL)

	pendErr  error // copychunk.go: an error found after a chunk's rows
	deferEnc bool  // copychunk.go: encoding is checked when rows are split
	chunkMax int   // copychunk.go: rows per chunk, copyChunkRows when 0 (tests)
}

func newCopyReader(spec *CopySpec, fill func() ([]byte, error)) *copyReader {
	return &copyReader{spec: spec, fill: fill}
}

// Line is the number of the row Next returned last (a header is line 1).
func (r *copyReader) Line() int64 { return r.line }

// Next returns the next row's fields (nil = NULL), io.EOF at the end.
func (r *copyReader) Next() ([][]byte, error) {
	if r.ended {
		return nil, r.drain()
	}
	if r.spec.Format == CopyBinary {
		return r.nextBinary()
	}
	if !r.started {
		r.started = true
		if r.spec.Header {
			line, ok, err := r.readLine()
			if err != nil || !ok {
				if err == nil {
					err = r.drain()
				}
				return nil, err
			}
			r.line++
			if r.spec.HeaderMatch {
				if err := r.matchHeader(line); err != nil {
					return nil, err
				}
			}
		}
	}
	line, ok, err := r.readLine()
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, r.drain()
	}
	r.line++
	if err := r.splitLine(line); err != nil {
		return nil, err
	}
	return r.fields, nil
}

// drain reads and discards what follows the end-of-data marker up to
// CopyDone, as PostgreSQL does; a CopyFail there still fails the COPY.
func (r *copyReader) drain() error {
	r.ended = true
	r.buf, r.pos = r.buf[:0], 0
	for !r.eof {
		if _, err := r.fill(); err != nil {
			if err == io.EOF {
				r.eof = true
				break
			}
			return err
		}
	}
	return io.EOF
}

// more reads the next chunk onto the buffer, first dropping what was
// parsed. It returns how far unparsed data moved (callers adjust their
// indexes) and false at the end of the data.
func (r *copyReader) more() (int, bool, error) {
	if r.eof {
		return 0, false, nil
	}
	shift := r.pos
	if shift > 0 {
		n := copy(r.buf, r.buf[shift:])
		r.buf = r.buf[:n]
		r.pos = 0
	}
	for {
		chunk, err := r.fill()
		if err == io.EOF {
			r.eof = true
			return shift, false, nil
		}
		if err != nil {
			return shift, false, err
		}
		if len(chunk) > 0 {
			r.buf = append(r.buf, chunk...)
			return shift, true, nil
		}
	}
}

// ---- errors ----

// lineError is a format error of the current line; the CONTEXT shows the
// line when it is known.
func (r *copyReader) lineError(line []byte, code, format string, args ...any) error {
	where := fmt.Sprintf("COPY %s, line %d", r.spec.Relation, r.line)
	if line != nil {
		where += fmt.Sprintf(": \"%s\"", clipDisplay(line))
	}
	return &contextError{err: pgerr.New(code, format, args...), where: where}
}

func (r *copyReader) columnError(err error, col int) error {
	where := fmt.Sprintf("COPY %s, line %d, column %s", r.spec.Relation, r.line, r.spec.Columns[col].Name)
	return &contextError{err: err, where: where}
}

// ---- lines ----

// readLine returns the next line without its end (valid until the next
// call), false when the data has ended. In text format a backslash quotes
// the next byte, even a line end; in csv format line ends inside quotes
// are data. A line consisting of \. ends the data.
func (r *copyReader) readLine() ([]byte, bool, error) {
	csv := r.spec.Format == CopyCSV
	// A quote may be a line-end byte (PostgreSQL allows it), and then a
	// line feed is no line end by itself: only the scan below knows.
	if r.eol == eolNL && !(csv && (r.spec.Quote == '\n' || r.spec.Quote == '\r')) {
		// Most lines hold nothing that changes where they end (no
		// backslash, carriage return or quote): find their end at once.
		rest := r.buf[r.pos:]
		if j := bytes.IndexByte(rest, '\n'); j >= 0 {
			line := rest[:j]
			plain := bytes.IndexByte(line, '\r') < 0
			if csv {
				plain = plain && bytes.IndexByte(line, r.spec.Quote) < 0 && (len(line) == 0 || line[0] != '\\')
			} else {
				plain = plain && bytes.IndexByte(line, '\\') < 0
			}
			if plain {
				r.pos += j + 1
				return line, true, r.checkEncoding(line)
			}
		}
	}
	inQuote, lastWasEsc := false, false
	i := r.pos
	// need makes buf[i+k] available; false at the end of the data.
	need := func(k int) (bool, error) {
		for i+k >= len(r.buf) {
			shift, ok, err := r.more()
			i -= shift
			if err != nil || !ok {
				return false, err
			}
		}
		return true, nil
	}
	for {
		if i >= len(r.buf) {
			ok, err := need(0)
			if err != nil {
				return nil, false, err
			}
			if !ok {
				// The data ends without a line end: what is left is a last line.
				if i == r.pos {
					return nil, false, nil
				}
				line := r.buf[r.pos:i]
				r.pos = i
				return line, true, r.checkEncoding(line)
			}
		}
		c := r.buf[i]
		if csv {
			// With the escape equal to the quote (the default) a quote
			// simply toggles; otherwise an escape counts only inside quotes
			// and not as the second of an escape pair.
			quote, esc := r.spec.Quote, r.spec.Escape
			hasEsc := esc != quote
			if hasEsc && inQuote && c == esc {
				lastWasEsc = !lastWasEsc
			}
			if c == quote && !lastWasEsc {
				inQuote = !inQuote
			}
			if !hasEsc || c != esc {
				lastWasEsc = false
			}
			if inQuote {
				// PostgreSQL counts the line ends inside quotes as lines.
				if c == '\n' && r.eol == eolNL || c == '\r' && r.eol != eolNL {
					r.line++
				}
				i++
				continue
			}
		}
		switch c {
		case '\n', '\r':
			crnl := false
			if c == '\r' {
				ok, err := need(1) // may move the data: use i only after it
				if err != nil {
					return nil, false, err
				}
				crnl = ok && r.buf[i+1] == '\n'
			}
			end, next := i, i+1
			if crnl {
				next++
			}
			if err := r.checkEOL(c, next-i == 2, csv); err != nil {
				return nil, false, err
			}
			line := r.buf[r.pos:end]
			r.pos = next
			return line, true, r.checkEncoding(line)
		case '\\':
			if csv && i != r.pos {
				i++ // csv: only \. alone on a line is special
				continue
			}
			ok, err := need(1)
			if err != nil {
				return nil, false, err
			}
			if !ok {
				i++ // a backslash at the very end is data
				continue
			}
			if r.buf[i+1] != '.' {
				if csv {
					i++
				} else {
					i += 2 // the escaped byte, whatever it is, is data
				}
				continue
			}
			// \. : the end-of-data marker when a line end (or the end) follows.
			ok, err = need(2)
			if err != nil {
				return nil, false, err
			}
			if ok && r.buf[i+2] != '\n' && r.buf[i+2] != '\r' {
				if csv {
					i++
					continue
				}
				r.line++
				return nil, false, r.lineError(nil, codeBadCopyFormat, "end-of-copy marker corrupt")
			}
			line := r.buf[r.pos:i]
			r.ended = true
			if err := r.checkEncoding(line); err != nil {
				return nil, false, err
			}
			if len(line) == 0 {
				return nil, false, nil
			}
			// PostgreSQL keeps the data before a \. on its line as a last row.
			return line, true, nil
		default:
			i++
		}
	}
}

// checkEOL enforces one line ending throughout the data.
func (r *copyReader) checkEOL(c byte, crnl, csv bool) error {
	var got eolType
	switch {
	case c == '\n':
		got = eolNL
	case crnl:
		got = eolCRNL
	default:
		got = eolCR
	}
	if r.eol == eolUnknown {
		r.eol = got
		return nil
	}
	if r.eol == got {
		return nil
	}
	r.line++
	var msg, hint string
	if got == eolNL {
		msg, hint = "literal newline found in data", `Use "\n" to represent newline.`
		if csv {
			msg, hint = "unquoted newline found in data", "Use quoted CSV field to represent newline."
		}
	} else {
		msg, hint = "literal carriage return found in data", `Use "\r" to represent carriage return.`
		if csv {
			msg, hint = "unquoted carriage return found in data", "Use quoted CSV field to represent carriage return."
		}
	}
	pe := pgerr.New(codeBadCopyFormat, "%s", msg)
	pe.Hint = hint
	return &contextError{err: pe, where: fmt.Sprintf("COPY %s, line %d", r.spec.Relation, r.line)}
}

// checkEncoding rejects a line that is not UTF-8, the client and server
// encoding. The line number is that of the line being read.
func (r *copyReader) checkEncoding(line []byte) error {
	if r.deferEnc || validText(line) {
		return nil
	}
	return &contextError{err: invalidUTF8(line), where: fmt.Sprintf("COPY %s, line %d", r.spec.Relation, r.line+1)}
}

// ---- fields ----

// splitLine splits a line into r.fields, decoding escapes (text) or quotes
// (csv), and checks the number of fields.
func (r *copyReader) splitLine(line []byte) error {
	var err error
	if r.spec.Format == CopyCSV {
		err = r.splitCSV(line)
	} else {
		err = r.splitText(line)
	}
	if err != nil {
		return err
	}
	ncols := len(r.spec.Columns)
	n := len(r.bounds) / 2
	if ncols == 0 && len(line) == 0 {
		n = 0 // a table without columns: an empty line is an empty row
		r.bounds = r.bounds[:0]
	}
	if n > ncols {
		return r.lineError(line, codeBadCopyFormat, "extra data after last expected column")
	}
	if n < ncols {
		return r.lineError(line, codeBadCopyFormat, "missing data for column \"%s\"", r.spec.Columns[n].Name)
	}
	r.fields = r.fields[:0]
	for k := 0; k < n; k++ {
		lo, hi := r.bounds[2*k], r.bounds[2*k+1]
		var f []byte
		if lo >= 0 {
			f = r.field(lo, hi)
		}
		if r.spec.Format == CopyCSV {
			switch {
			case f == nil && flag(r.spec.ForceNotNull, k):
				f = []byte(r.spec.Null)
			case f != nil && flag(r.spec.ForceNull, k) && string(f) == r.spec.Null:
				f = nil
			}
		}
		r.fields = append(r.fields, f)
	}
	return nil
}

// field is out[lo:hi], never nil (nil is NULL).
func (r *copyReader) field(lo, hi int) []byte {
	if f := r.out[lo:hi:hi]; f != nil {
		return f
	}
	return []byte{}
}

func flag(flags []bool, k int) bool { return k < len(flags) && flags[k] }

// splitText splits a text-format line on the delimiter and decodes its
// backslash escapes. A field is NULL when its raw bytes, before decoding,
// are the null string.
func (r *copyReader) splitText(line []byte) error {
	delim := r.spec.Delimiter
	null := r.spec.Null
	r.out, r.bounds = r.out[:0], r.bounds[:0]
	i := 0
	if cap(r.out) < len(line) {
		r.out = make([]byte, 0, len(line)) // decoding never lengthens a line
	}
	for {
		rawStart := i
		start := len(r.out)
		special := false // an escape produced a byte that needs an encoding check
		// Most fields have no escapes: copy them whole.
		end := bytes.IndexByte(line[i:], delim)
		if end < 0 {
			end = len(line)
		} else {
			end += i
		}
		if bytes.IndexByte(line[i:end], '\\') < 0 {
			r.out = append(r.out, line[i:end]...)
			i = end
		}
		for i < len(line) && line[i] != delim {
			c := line[i]
			i++
			if c != '\\' {
				r.out = append(r.out, c)
				continue
			}
			if i >= len(line) {
				break // a trailing backslash is dropped
			}
			c = line[i]
			i++
			switch c {
			case '0', '1', '2', '3', '4', '5', '6', '7':
				v := int(c - '0')
				for k := 0; k < 2 && i < len(line) && line[i] >= '0' && line[i] <= '7'; k++ {
					v = v*8 + int(line[i]-'0')
					i++
				}
				c = byte(v)
				special = special || c == 0 || c >= 0x80
			case 'x':
				if i < len(line) && isHexDigit(line[i]) {
					v := hexVal(line[i])
					i++
					if i < len(line) && isHexDigit(line[i]) {
						v = v*16 + hexVal(line[i])
						i++
					}
					c = byte(v)
					special = special || c == 0 || c >= 0x80
				}
			case 'b':
				c = '\b'
			case 'f':
				c = '\f'
			case 'n':
				c = '\n'
			case 'r':
				c = '\r'
			case 't':
				c = '\t'
			case 'v':
				c = '\v'
			}
			r.out = append(r.out, c)
		}
		raw := line[rawStart:i]
		if string(raw) == null {
			r.bounds = append(r.bounds, -1, -1)
		} else {
			if special && !validText(r.out[start:]) {
				return &contextError{err: invalidUTF8(r.out[start:]), where: fmt.Sprintf("COPY %s, line %d", r.spec.Relation, r.line)}
			}
			r.bounds = append(r.bounds, start, len(r.out))
		}
		if i >= len(line) {
			return nil
		}
		i++ // the delimiter
	}
}

func isHexDigit(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func hexVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	}
	return int(c-'A') + 10
}

// splitCSV splits a csv line. Quotes may cover any part of a field; inside
// them the escape character quotes a quote or itself. A field is NULL when
// it had no quotes and is the null string.
func (r *copyReader) splitCSV(line []byte) error {
	delim, quote, esc := r.spec.Delimiter, r.spec.Quote, r.spec.Escape
	null := r.spec.Null
	r.out, r.bounds, r.quoted = r.out[:0], r.bounds[:0], r.quoted[:0]
	i := 0
	for {
		rawStart := i
		start := len(r.out)
		sawQuote := false
		atDelim := false
	field:
		for i < len(line) {
			c := line[i]
			i++
			if c == delim {
				atDelim = true
				break
			}
			if c != quote {
				r.out = append(r.out, c)
				continue
			}
			sawQuote = true
			for {
				if i >= len(line) {
					return r.lineError(line, codeBadCopyFormat, "unterminated CSV quoted field")
				}
				c = line[i]
				i++
				if c == esc && i < len(line) && (line[i] == esc || line[i] == quote) {
					r.out = append(r.out, line[i])
					i++
					continue
				}
				if c == quote {
					continue field
				}
				r.out = append(r.out, c)
			}
		}
		rawEnd := i
		if atDelim {
			rawEnd--
		}
		if !sawQuote && string(line[rawStart:rawEnd]) == null {
			r.bounds = append(r.bounds, -1, -1)
		} else {
			r.bounds = append(r.bounds, start, len(r.out))
		}
		r.quoted = append(r.quoted, sawQuote)
		if !atDelim {
			return nil
		}
	}
}

// matchHeader checks HEADER MATCH: the header line names the columns.
func (r *copyReader) matchHeader(line []byte) error {
	if r.spec.Format == CopyCSV {
		if err := r.splitCSV(line); err != nil {
			return err
		}
	} else if err := r.splitText(line); err != nil {
		return err
	}
	n := len(r.bounds) / 2
	if n != len(r.spec.Columns) {
		return r.lineError(line, codeBadCopyFormat, "wrong number of fields in header line: got %d, expected %d", n, len(r.spec.Columns))
	}
	for k, col := range r.spec.Columns {
		lo, hi := r.bounds[2*k], r.bounds[2*k+1]
		if lo < 0 {
			return r.lineError(line, codeBadCopyFormat, "column name mismatch in header line field %d: got null value (\"%s\"), expected \"%s\"",
				k+1, r.spec.Null, col.Name)
		}
		if got := string(r.out[lo:hi]); got != col.Name {
			return r.lineError(line, codeBadCopyFormat, "column name mismatch in header line field %d: got \"%s\", expected \"%s\"", k+1, got, col.Name)
		}
	}
	return nil
}

// ---- binary ----

// avail makes n bytes available at buf[pos:]; false when the data ends first.
func (r *copyReader) avail(n int) (bool, error) {
	for len(r.buf)-r.pos < n {
		_, ok, err := r.more()
		if err != nil || !ok {
			return false, err
		}
	}
	return true, nil
}

func (r *copyReader) binaryError(format string, args ...any) error {
	return r.lineError(nil, codeBadCopyFormat, format, args...)
}

// headerError is an error in the binary header, which PostgreSQL reads
// before it counts lines: it has no CONTEXT.
func headerError(format string) error {
	return pgerr.New(codeBadCopyFormat, "%s", format)
}

// nextBinary reads one tuple of the binary format: an int16 field count,
// then per field an int32 length (-1 = NULL) and that many bytes, which are
// converted to text by the column type's binary input.
func (r *copyReader) nextBinary() ([][]byte, error) {
	be := binary.BigEndian
	if !r.started {
		r.started = true
		if err := r.binaryHeader(); err != nil {
			return nil, err
		}
	}
	ok, err := r.avail(2)
	if err != nil {
		return nil, err
	}
	if !ok {
		if len(r.buf) > r.pos {
			r.line++
			return nil, r.binaryError("unexpected EOF in COPY data")
		}
		// No trailer: PostgreSQL accepts the end of the data instead.
		return nil, r.drain()
	}
	count := int16(be.Uint16(r.buf[r.pos:]))
	r.pos += 2
	r.line++
	if count == -1 {
		// The trailer: nothing may follow it.
		ok, err := r.avail(1)
		if err != nil {
			return nil, err
		}
		if ok {
			return nil, r.binaryError("received copy data after EOF marker")
		}
		r.ended = true
		return nil, io.EOF
	}
	if int(count) != len(r.spec.Columns) {
		return nil, r.binaryError("row field count is %d, expected %d", count, len(r.spec.Columns))
	}
	r.out, r.bounds, r.fields = r.out[:0], r.bounds[:0], r.fields[:0]
	for k, col := range r.spec.Columns {
		ok, err := r.avail(4)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, r.binaryError("unexpected EOF in COPY data")
		}
		n := int32(be.Uint32(r.buf[r.pos:]))
		r.pos += 4
		if n == -1 {
			r.bounds = append(r.bounds, -1, -1)
			continue
		}
		if n < -1 {
			return nil, r.columnError(pgerr.New(codeBadCopyFormat, "invalid field size"), k)
		}
		ok, err = r.avail(int(n))
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, r.binaryError("unexpected EOF in COPY data")
		}
		raw := r.buf[r.pos : r.pos+int(n)]
		r.pos += int(n)
		// A fixed-size value of the wrong size fails as PostgreSQL's
		// receive functions fail on it.
		if size := int(col.Type.Size()); size > 0 && len(raw) < size {
			return nil, r.columnError(pgerr.New(pgerr.ProtocolViolation, "insufficient data left in message"), k)
		} else if size > 0 && len(raw) > size {
			return nil, r.columnError(pgerr.New(codeInvalidBinary, "incorrect binary data format"), k)
		}
		text, err := DecodeBinaryParam(col.Type.OID(), raw)
		if err != nil {
			return nil, r.columnError(err, k)
		}
		start := len(r.out)
		r.out = append(r.out, text...)
		r.bounds = append(r.bounds, start, len(r.out))
	}
	for k := range r.spec.Columns {
		lo, hi := r.bounds[2*k], r.bounds[2*k+1]
		if lo < 0 {
			r.fields = append(r.fields, nil)
		} else {
			r.fields = append(r.fields, r.field(lo, hi))
		}
	}
	return r.fields, nil
}

// binaryHeader checks the signature, flags and header extension.
func (r *copyReader) binaryHeader() error {
	be := binary.BigEndian
	ok, err := r.avail(len(binarySignature))
	if err != nil {
		return err
	}
	if !ok || !bytes.Equal(r.buf[r.pos:r.pos+len(binarySignature)], binarySignature) {
		return headerError("COPY file signature not recognized")
	}
	r.pos += len(binarySignature)
	if ok, err = r.avail(4); err != nil {
		return err
	} else if !ok {
		return headerError("invalid COPY file header (missing flags)")
	}
	flags := be.Uint32(r.buf[r.pos:])
	r.pos += 4
	if flags&(1<<16) != 0 {
		return headerError("invalid COPY file header (WITH OIDS)")
	}
	if flags&0xffff0000 != 0 {
		return headerError("unrecognized critical flags in COPY file header")
	}
	if ok, err = r.avail(4); err != nil {
		return err
	} else if !ok {
		return headerError("invalid COPY file header (missing length)")
	}
	ext := int32(be.Uint32(r.buf[r.pos:]))
	r.pos += 4
	if ext < 0 {
		return headerError("invalid COPY file header (wrong length)")
	}
	if ok, err = r.avail(int(ext)); err != nil {
		return err
	} else if !ok {
		return headerError("invalid COPY file header (wrong length)")
	}
	r.pos += int(ext)
	return nil
}
