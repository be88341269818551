package wire

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// copySpec is a COPY of columns named a, b, c... of type text, with the
// defaults PostgreSQL gives the format.
func copySpec(format CopyFormat, ncols int) *CopySpec {
	s := &CopySpec{Format: format, Delimiter: '\t', Null: `\N`, Relation: "t", In: true}
	if format == CopyCSV {
		s.Delimiter, s.Null, s.Quote, s.Escape = ',', "", '"', '"'
	}
	for i := range ncols {
		s.Columns = append(s.Columns, Column{Name: string(rune('a' + i)), Type: types.TextT})
	}
	return s
}

// chunked feeds data in pieces of n bytes (all at once when n <= 0).
func chunked(data string, n int) func() ([]byte, error) {
	return func() ([]byte, error) {
		if data == "" {
			return nil, io.EOF
		}
		k := len(data)
		if n > 0 && n < k {
			k = n
		}
		piece := data[:k]
		data = data[k:]
		return []byte(piece), nil
	}
}

// readAll parses data with spec, rows rendered as fields joined by "|"
// with NULL shown as <NULL>, and returns the rows before the first error.
func readAll(spec *CopySpec, data string, chunk int) ([]string, []int64, error) {
	rd := newCopyReader(spec, chunked(data, chunk))
	var rows []string
	var lines []int64
	for {
		fields, err := rd.Next()
		if err == io.EOF {
			return rows, lines, nil
		}
		if err != nil {
			return rows, lines, err
		}
		parts := make([]string, len(fields))
		for i, f := range fields {
			if f == nil {
				parts[i] = "<NULL>"
			} else {
				parts[i] = string(f)
			}
		}
		rows = append(rows, strings.Join(parts, "|"))
		lines = append(lines, rd.Line())
	}
}

var chunkSizes = []int{0, 1, 2, 3, 7}

// readAllChunked is readAll through NextChunk with at most perChunk rows a
// chunk, each chunk read on a goroutine of its own as the SQL layer does.
func readAllChunked(spec *CopySpec, data string, chunk, perChunk int) ([]string, []int64, error) {
	rd := newCopyReader(spec, chunked(data, chunk))
	rd.chunkMax = perChunk
	var rows []string
	var lines []int64
	for {
		c, err := rd.NextChunk()
		if err == io.EOF {
			return rows, lines, nil
		}
		if err != nil {
			return rows, lines, err
		}
		type res struct {
			rows  []string
			lines []int64
			err   error
		}
		done := make(chan res)
		go func() {
			var r res
			for {
				fields, err := c.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					r.err = err
					break
				}
				r.rows = append(r.rows, renderRow(fields))
				r.lines = append(r.lines, c.Line())
			}
			done <- r
		}()
		r := <-done
		rows, lines = append(rows, r.rows...), append(lines, r.lines...)
		if r.err != nil {
			return rows, lines, r.err
		}
	}
}

func renderRow(fields [][]byte) string {
	parts := make([]string, len(fields))
	for i, f := range fields {
		if f == nil {
			parts[i] = "<NULL>"
		} else {
			parts[i] = string(f)
		}
	}
	return strings.Join(parts, "|")
}

// checkChunkedSame checks that NextChunk yields what Next does: the same
// rows with the same line numbers and the same error, whatever the chunk
// boundaries (rows per chunk) and CopyData boundaries (bytes per message).
func checkChunkedSame(t *testing.T, spec *CopySpec, data string) {
	t.Helper()
	if spec.Format == CopyBinary {
		return
	}
	want, wantLines, wantErr := readAll(spec, data, 0)
	for _, n := range chunkSizes {
		for _, per := range []int{1, 2, 3, 1000} {
			got, lines, err := readAllChunked(spec, data, n, per)
			if strings.Join(got, "\n") != strings.Join(want, "\n") || fmt.Sprint(lines) != fmt.Sprint(wantLines) {
				t.Errorf("%q chunked (%d bytes, %d rows): rows %q lines %v, want %q lines %v", data, n, per, got, lines, want, wantLines)
			}
			if fmt.Sprint(err) != fmt.Sprint(wantErr) || pgerr.Code(err) != pgerr.Code(wantErr) || whereOf(err) != whereOf(wantErr) {
				t.Errorf("%q chunked (%d bytes, %d rows): error %v (%s, %q), want %v (%s, %q)", data, n, per,
					err, pgerr.Code(err), whereOf(err), wantErr, pgerr.Code(wantErr), whereOf(wantErr))
			}
		}
	}
}

func checkRows(t *testing.T, spec *CopySpec, data string, want ...string) {
	t.Helper()
	checkChunkedSame(t, spec, data)
	for _, n := range chunkSizes {
		got, _, err := readAll(spec, data, n)
		if err != nil {
			t.Errorf("%q in chunks of %d: %v (%s)", data, n, err, whereOf(err))
			continue
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%q in chunks of %d:\n got  %q\n want %q", data, n, got, want)
		}
	}
}

func checkCopyError(t *testing.T, spec *CopySpec, data, code, msg, where string) {
	t.Helper()
	checkChunkedSame(t, spec, data)
	for _, n := range chunkSizes {
		_, _, err := readAll(spec, data, n)
		pe, ok := pgerr.As(err)
		if !ok || pe.Code != code || pe.Message != msg || whereOf(err) != where {
			t.Errorf("%q in chunks of %d: got %v (code %s, context %q), want %s %q with context %q",
				data, n, err, pgerr.Code(err), whereOf(err), code, msg, where)
		}
	}
}

func TestCopyTextParse(t *testing.T) {
	spec := copySpec(CopyText, 2)
	checkRows(t, spec, "1\tone\n2\ttwo\n", "1|one", "2|two")
	// No final line end, empty fields, NULL only when the raw field is \N.
	checkRows(t, spec, "\t\n\\N\t\\\\N", "|", "<NULL>|\\N")
	// Every escape: letters, octal (1 to 3 digits), hex (1 or 2 digits),
	// any other byte as itself, and a backslash before a line end.
	checkRows(t, spec, `a\tb\nc\\d\re\bf\fg\vh`+"\t"+`\101\1011\7x\x41\x4g\xz\q\\.`+"\n",
		"a\tb\nc\\d\re\bf\fg\vh|AA1\ax"+"A\x04gxzq\\.")
	checkRows(t, spec, "x\\\ny\tz\n", "x\ny|z")
	// A delimiter can be escaped.
	checkRows(t, spec, "a\\\tb\tc\n", "a\tb|c")
	// CR and CRLF line ends.
	checkRows(t, spec, "1\ta\r\n2\tb\r\n", "1|a", "2|b")
	checkRows(t, spec, "1\ta\r2\tb\r", "1|a", "2|b")
	// \. ends the data; what follows is ignored, data before it on its line is a row.
	checkRows(t, spec, "1\ta\n\\.\n2\tb\n", "1|a")
	checkRows(t, spec, "1\ta\n\\.", "1|a")
	checkRows(t, spec, "1\ta\n2\tb\\.\nignored\n", "1|a", "2|b")
	// UTF-8 passes through.
	checkRows(t, spec, "ü\t日本\n", "ü|日本")

	// Other delimiters and null strings.
	pipe := copySpec(CopyText, 3)
	pipe.Delimiter, pipe.Null = '|', "NULL"
	checkRows(t, pipe, "1|NULL|a\\|b\n", "1|<NULL>|a|b")

	// One column: an empty line is an empty string.
	checkRows(t, copySpec(CopyText, 1), "\n\n", "", "")
}

func TestCopyTextErrors(t *testing.T) {
	spec := copySpec(CopyText, 2)
	checkCopyError(t, spec, "1\ta\n2\n", codeBadCopyFormat, `missing data for column "b"`, `COPY t, line 2: "2"`)
	checkCopyError(t, spec, "1\ta\n2\tb\tc\n", codeBadCopyFormat, "extra data after last expected column", "COPY t, line 2: \"2\tb\tc\"")
	checkCopyError(t, spec, "1\ta\n\\.x\n", codeBadCopyFormat, "end-of-copy marker corrupt", "COPY t, line 2")
	checkCopyError(t, spec, "1\ta\\.x\n", codeBadCopyFormat, "end-of-copy marker corrupt", "COPY t, line 1")
	checkCopyError(t, spec, "1\ta\n2\tb\r\n", codeBadCopyFormat, "literal carriage return found in data", "COPY t, line 2")
	checkCopyError(t, spec, "1\ta\r\n2\tb\n", codeBadCopyFormat, "literal newline found in data", "COPY t, line 2")
	checkCopyError(t, spec, "1\ta\n2\t\xff\n", codeCharNotInRepertoire, `invalid byte sequence for encoding "UTF8": 0xff`, "COPY t, line 2")
	checkCopyError(t, spec, "1\t\\0\n", codeCharNotInRepertoire, `invalid byte sequence for encoding "UTF8": 0x00`, "COPY t, line 1")
	checkCopyError(t, spec, "1\t\\xc3\\x28\n", codeCharNotInRepertoire, `invalid byte sequence for encoding "UTF8": 0xc3 0x28`, "COPY t, line 1")
	long := strings.Repeat("x", 150)
	checkCopyError(t, spec, long+"\n", codeBadCopyFormat, `missing data for column "b"`, `COPY t, line 1: "`+long[:100]+`..."`)
}

func TestCopyTextHeader(t *testing.T) {
	spec := copySpec(CopyText, 2)
	spec.Header = true
	rows, lines, err := readAll(spec, "whatever\tnames\n1\ta\n2\tb\n", 0)
	if err != nil || strings.Join(rows, ",") != "1|a,2|b" || len(lines) != 2 || lines[0] != 2 || lines[1] != 3 {
		t.Errorf("header skipped: rows %q lines %v err %v", rows, lines, err)
	}
	spec.HeaderMatch = true
	checkRows(t, spec, "a\tb\n1\tx\n", "1|x")
	checkCopyError(t, spec, "a\tc\n1\tx\n", codeBadCopyFormat, `column name mismatch in header line field 2: got "c", expected "b"`, "COPY t, line 1: \"a\tc\"")
	checkCopyError(t, spec, "a\n", codeBadCopyFormat, "wrong number of fields in header line: got 1, expected 2", `COPY t, line 1: "a"`)
	// Only a header: no rows.
	checkRows(t, spec, "a\tb\n")
}

func TestCopyCSVParse(t *testing.T) {
	spec := copySpec(CopyCSV, 3)
	checkRows(t, spec, "1,a,b\n", "1|a|b")
	// Unquoted empty is NULL, quoted empty is the empty string.
	checkRows(t, spec, `,"",x`+"\n", `<NULL>||x`)
	// Quotes around part of a field, doubled quotes, delimiters and line ends inside quotes.
	checkRows(t, spec, `"a,b","say ""hi""",x"y"z`+"\n", `a,b|say "hi"|xyz`)
	checkRows(t, spec, "\"multi\nline\",\"cr\r\nlf\",3\n4,5,6\n", "multi\nline|cr\r\nlf|3", "4|5|6")
	// Backslashes are data in csv; \. alone on a line still ends it.
	checkRows(t, spec, `a\b,\N,\.`+"\n\\.\nignored\n", `a\b|\N|\.`)
	// Spaces are kept.
	checkRows(t, spec, " 1 , a ,\" b \"\n", " 1 | a | b ")
	// CRLF.
	checkRows(t, spec, "1,2,3\r\n4,5,6\r\n", "1|2|3", "4|5|6")

	// A different escape: it quotes the quote and itself inside quotes only.
	esc := copySpec(CopyCSV, 2)
	esc.Escape = '\\'
	checkRows(t, esc, `"a\"b\\c\d",e\\f`+"\n", `a"b\c\d|e\\f`)
	checkRows(t, esc, "\"x\\\"\ny\",z\n", "x\"\ny|z")

	// Custom quote, delimiter and null.
	q := copySpec(CopyCSV, 2)
	q.Quote, q.Escape, q.Delimiter, q.Null = '\'', '\'', ';', "NULL"
	checkRows(t, q, "'a;b';NULL\n'NULL';''''\n", "a;b|<NULL>", "NULL|'")

	// FORCE_NOT_NULL and FORCE_NULL.
	f := copySpec(CopyCSV, 2)
	f.ForceNotNull = []bool{true, false}
	f.ForceNull = []bool{false, true}
	checkRows(t, f, `,""`+"\n", "|<NULL>")
}

func TestCopyCSVErrors(t *testing.T) {
	spec := copySpec(CopyCSV, 2)
	checkCopyError(t, spec, "1,a\n2,\"open\n", codeBadCopyFormat, "unterminated CSV quoted field", "COPY t, line 3: \"2,\"open\n\"")
	checkCopyError(t, spec, "1,a\n2\n", codeBadCopyFormat, `missing data for column "b"`, `COPY t, line 2: "2"`)
	checkCopyError(t, spec, "1,a,x\n", codeBadCopyFormat, "extra data after last expected column", `COPY t, line 1: "1,a,x"`)
	checkCopyError(t, spec, "1,a\n2,b\r\n", codeBadCopyFormat, "unquoted carriage return found in data", "COPY t, line 2")
	// Line numbers count the line ends inside quotes, as PostgreSQL does.
	checkCopyError(t, spec, "1,a\n\"x\ny\",b\n3\n", codeBadCopyFormat, `missing data for column "b"`, `COPY t, line 4: "3"`)
}

func TestCopyCSVHeaderMatch(t *testing.T) {
	spec := copySpec(CopyCSV, 2)
	spec.Header, spec.HeaderMatch = true, true
	checkRows(t, spec, "a,\"b\"\n1,2\n", "1|2")
	checkCopyError(t, spec, ",b\n", codeBadCopyFormat, `column name mismatch in header line field 1: got null value (""), expected "a"`, `COPY t, line 1: ",b"`)
}

// binaryCopy builds a binary COPY stream of rows of fields (nil = NULL).
func binaryCopy(rows [][][]byte, trailer bool) string {
	var b []byte
	b = append(b, binarySignature...)
	b = append(b, 0, 0, 0, 0, 0, 0, 0, 0)
	for _, row := range rows {
		b = append(b, byte(len(row)>>8), byte(len(row)))
		for _, f := range row {
			if f == nil {
				b = append(b, 0xff, 0xff, 0xff, 0xff)
				continue
			}
			n := len(f)
			b = append(b, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
			b = append(b, f...)
		}
	}
	if trailer {
		b = append(b, 0xff, 0xff)
	}
	return string(b)
}

func TestCopyBinaryParse(t *testing.T) {
	spec := copySpec(CopyBinary, 2)
	spec.Columns[0].Type = types.Int32T
	data := binaryCopy([][][]byte{{{0, 0, 0, 7}, []byte("seven")}, {{0xff, 0xff, 0xff, 0xfe}, nil}}, true)
	checkRows(t, spec, data, "7|seven", "-2|<NULL>")
	// The trailer may be missing.
	checkRows(t, spec, binaryCopy([][][]byte{{{0, 0, 0, 1}, nil}}, false), "1|<NULL>")

	checkCopyError(t, spec, "PGCOPY\n\xff\r\n\x01"+strings.Repeat("\x00", 8), codeBadCopyFormat, "COPY file signature not recognized", "")
	checkCopyError(t, spec, binaryCopy([][][]byte{{{0, 0, 0, 7}}}, true), codeBadCopyFormat, "row field count is 1, expected 2", "COPY t, line 1")
	checkCopyError(t, spec, binaryCopy([][][]byte{{{0, 0, 7}, nil}}, true), "08P01", "insufficient data left in message", "COPY t, line 1, column a")
	checkCopyError(t, spec, binaryCopy([][][]byte{{{0, 0, 0, 0, 7}, nil}}, true), "22P03", "incorrect binary data format", "COPY t, line 1, column a")
	checkCopyError(t, spec, binaryCopy([][][]byte{{{0, 0, 0, 7}, {0xff}}}, true), "22021", `invalid byte sequence for encoding "UTF8"`, "COPY t, line 1, column b")
	checkCopyError(t, spec, binaryCopy(nil, true)+"x", codeBadCopyFormat, "received copy data after EOF marker", "COPY t, line 1")
	checkCopyError(t, spec, binaryCopy([][][]byte{{{0, 0, 0, 7}, []byte("abc")}}, true)[:30], codeBadCopyFormat, "unexpected EOF in COPY data", "COPY t, line 1")
	flags := string(binarySignature) + "\x00\x01\x00\x00\x00\x00\x00\x00"
	checkCopyError(t, spec, flags, codeBadCopyFormat, "invalid COPY file header (WITH OIDS)", "")
}

func TestCopyFailAndEndMarkerDrain(t *testing.T) {
	// After \. the rest is read up to CopyDone; a CopyFail there still fails.
	spec := copySpec(CopyText, 1)
	calls := 0
	fail := errors.New("client failed")
	rd := newCopyReader(spec, func() ([]byte, error) {
		calls++
		switch calls {
		case 1:
			return []byte("x\n\\.\n"), nil
		case 2:
			return []byte("junk"), nil
		}
		return nil, fail
	})
	if f, err := rd.Next(); err != nil || string(f[0]) != "x" {
		t.Fatalf("first row: %q %v", f, err)
	}
	if _, err := rd.Next(); err != fail {
		t.Errorf("after the end marker: %v, want the CopyFail error", err)
	}
}

// copyTypes are values of every type with a binary format, in a batch with
// a second row of NULLs.
var copyTypes = []struct {
	name string
	t    types.T
	set  func(v *vec.Vector)
}{
	{"b", types.BoolT, func(v *vec.Vector) { v.AppendBool(true) }},
	{"i2", types.Int16T, func(v *vec.Vector) { v.AppendInt(-12345) }},
	{"i4", types.Int32T, func(v *vec.Vector) { v.AppendInt(2147483647) }},
	{"i8", types.Int64T, func(v *vec.Vector) { v.AppendInt(-9223372036854775808) }},
	{"f4", types.Float32T, func(v *vec.Vector) { v.AppendFloat(1.5) }},
	{"f8", types.Float64T, func(v *vec.Vector) { v.AppendFloat(-2.25e-07) }},
	{"n", types.NumericT(10, 2), func(v *vec.Vector) { v.AppendInt(-123450) }},
	{"nd", types.NumericAnyT, func(v *vec.Vector) { v.AppendString("12345678901234567890.000123") }},
	{"t", types.TextT, func(v *vec.Vector) { v.AppendString("tab\there, nl\nthere \\ \"q\" 'a,b' \r ü\x01") }},
	{"e", types.TextT, func(v *vec.Vector) { v.AppendString("") }},
	{"by", types.ByteaT, func(v *vec.Vector) { v.AppendString("\x00\x01\xff\\") }},
	{"d", types.DateT, func(v *vec.Vector) { v.AppendInt(19782) }},
	{"ts", types.TimestampT, func(v *vec.Vector) { v.AppendInt(1709212455123456) }},
	{"tz", types.TimestamptzT, func(v *vec.Vector) { v.AppendInt(1709205255500000) }},
	{"u", types.UUIDT, func(v *vec.Vector) {
		v.AppendString("\xa0\xee\xbc\x99\x9c\x0b\x4e\xf8\xbb\x6d\x6b\xb9\xbd\x38\x0a\x11")
	}},
	{"iv", types.IntervalT, func(v *vec.Vector) { v.AppendInterval(types.IntervalValue{Months: 14, Days: -3, Micros: 3723000004}) }},
}

func copyTypesBatch() (*vec.Batch, []Column) {
	b := &vec.Batch{N: 2}
	var cols []Column
	for _, ct := range copyTypes {
		v := vec.New(ct.t, 2)
		ct.set(v)
		v.AppendNull()
		b.Vecs = append(b.Vecs, v)
		cols = append(cols, Column{Name: ct.name, Type: ct.t})
	}
	return b, cols
}

// encodeCopy renders batch b in spec's format, as copyOut would send it.
func encodeCopy(t *testing.T, spec *CopySpec, b *vec.Batch) string {
	t.Helper()
	enc, err := newCopyEncoder(spec)
	if err != nil {
		t.Fatal(err)
	}
	out := enc.header(nil)
	if err := enc.fill(b, time.UTC); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < b.N; i++ {
		out = enc.appendRow(out, i)
	}
	if spec.Format == CopyBinary {
		out = enc.trailer(out)
	}
	return string(out)
}

// TestCopyRoundTrip writes a row of every type and a row of NULLs in each
// format and reads it back: every field must come back as the value's
// PostgreSQL text form (binary fields through their binary input).
func TestCopyRoundTrip(t *testing.T) {
	b, cols := copyTypesBatch()
	var want []string
	for _, row := range []int{0, 1} {
		var parts []string
		for _, v := range b.Vecs {
			if v.IsNull(row) {
				parts = append(parts, "<NULL>")
			} else {
				parts = append(parts, string(v.AppendText(nil, row, time.UTC)))
			}
		}
		want = append(want, strings.Join(parts, "|"))
	}
	for _, f := range []CopyFormat{CopyText, CopyCSV, CopyBinary} {
		for _, header := range []bool{false, true} {
			if f == CopyBinary && header {
				continue
			}
			spec := copySpec(f, 0)
			spec.Columns = cols
			spec.Header, spec.HeaderMatch = header, header
			data := encodeCopy(t, spec, b)
			checkRows(t, spec, data, want...)
		}
	}
}

func TestCopyTextEncoding(t *testing.T) {
	spec := copySpec(CopyText, 2)
	spec.Header = true
	spec.Columns[1].Name = "b\tc"
	spec.Columns[1].Type = types.Int32T
	b := &vec.Batch{N: 3, Vecs: []*vec.Vector{vec.New(types.TextT, 3), vec.New(types.Int32T, 3)}}
	b.Vecs[0].AppendString("a\\b\tc\nd\re\bf\fg\vh\x01i")
	b.Vecs[0].AppendNull()
	b.Vecs[0].AppendString(`\N`)
	b.Vecs[1].AppendInt(1)
	b.Vecs[1].AppendInt(2)
	b.Vecs[1].AppendNull()
	got := encodeCopy(t, spec, b)
	want := "a\tb\\tc\n" + `a\\b\tc\nd\re\bf\fg\vh` + "\x01i\t1\n" + `\N` + "\t2\n" + `\\N` + "\t" + `\N` + "\n"
	if got != want {
		t.Errorf("text:\n got  %q\n want %q", got, want)
	}
	// A delimiter that is a control character without a letter escape is backslashed as itself.
	spec.Delimiter, spec.Header = 0x01, false
	if got := encodeCopy(t, spec, b); !strings.HasPrefix(got, "a\\\\b\\tc\\nd\\re\\bf\\fg\\vh\\\x01i\x011\n") {
		t.Errorf("text with delimiter 0x01: %q", got)
	}
}

func TestCopyCSVEncoding(t *testing.T) {
	spec := copySpec(CopyCSV, 3)
	spec.Header = true
	spec.Columns[2].Name = `c"x`
	spec.Columns[1].Type = types.Int64T
	vals := []string{"plain", "", "a,b", `say "hi"`, "two\nlines", "cr\r", `\.`, " sp "}
	b := &vec.Batch{N: len(vals) + 1, Vecs: []*vec.Vector{vec.New(types.TextT, 0), vec.New(types.Int64T, 0), vec.New(types.TextT, 0)}}
	for i, s := range vals {
		b.Vecs[0].AppendString(s)
		b.Vecs[1].AppendInt(int64(i))
		b.Vecs[2].AppendString("x")
	}
	b.Vecs[0].AppendNull()
	b.Vecs[1].AppendNull()
	b.Vecs[2].AppendString("")
	got := encodeCopy(t, spec, b)
	want := `a,b,"c""x"` + "\n" +
		"plain,0,x\n" +
		`"",1,x` + "\n" +
		`"a,b",2,x` + "\n" +
		`"say ""hi""",3,x` + "\n" +
		"\"two\nlines\",4,x\n" +
		"\"cr\r\",5,x\n" +
		`\.,6,x` + "\n" + // only a single column quotes \.
		" sp ,7,x\n" +
		`,,""` + "\n"
	if got != want {
		t.Errorf("csv:\n got  %q\n want %q", got, want)
	}

	one := copySpec(CopyCSV, 1)
	b1 := &vec.Batch{N: 1, Vecs: []*vec.Vector{vec.New(types.TextT, 1)}}
	b1.Vecs[0].AppendString(`\.`)
	if got := encodeCopy(t, one, b1); got != "\"\\.\"\n" {
		t.Errorf("csv single column \\.: %q", got)
	}

	// FORCE_QUOTE, another escape, quote and delimiter, NULL as a word.
	f := copySpec(CopyCSV, 3)
	f.ForceQuote = []bool{true, false, false}
	f.Escape, f.Quote, f.Delimiter, f.Null = '\\', '\'', ';', "NULL"
	f.Columns[0].Type = types.Int64T
	b2 := &vec.Batch{N: 1, Vecs: []*vec.Vector{vec.New(types.Int64T, 1), vec.New(types.TextT, 1), vec.New(types.TextT, 1)}}
	b2.Vecs[0].AppendInt(5)
	b2.Vecs[1].AppendString(`it's \ ok`)
	b2.Vecs[2].AppendString("NULL")
	if got, want := encodeCopy(t, f, b2), `'5';'it\'s \\ ok';'NULL'`+"\n"; got != want {
		t.Errorf("csv force quote:\n got  %q\n want %q", got, want)
	}
}

func TestCopyBinaryEncoding(t *testing.T) {
	spec := copySpec(CopyBinary, 2)
	spec.Columns[0].Type = types.Int16T
	b := &vec.Batch{N: 1, Vecs: []*vec.Vector{vec.New(types.Int16T, 1), vec.New(types.TextT, 1)}}
	b.Vecs[0].AppendInt(-2)
	b.Vecs[1].AppendNull()
	got := encodeCopy(t, spec, b)
	want := "PGCOPY\n\xff\r\n\x00" + "\x00\x00\x00\x00" + "\x00\x00\x00\x00" +
		"\x00\x02" + "\x00\x00\x00\x02\xff\xfe" + "\xff\xff\xff\xff" + "\xff\xff"
	if got != want {
		t.Errorf("binary:\n got  %q\n want %q", got, want)
	}
}
