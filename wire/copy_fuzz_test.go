package wire

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// copyFuzzTypes are the column types a fuzzed binary COPY decodes, picked
// four bits a column; text and csv never look at them.
var copyFuzzTypes = [16]types.T{
	types.Int16T, types.Int32T, types.Int64T, types.Float32T, types.Float64T, types.BoolT,
	types.NumericAnyT, types.NumericT(10, 2), types.TextT, types.ByteaT, types.UUIDT, types.DateT,
	types.TimestamptzT, types.IntervalT, types.TimeT, types.ArrayOf(types.Int32T),
}

// fuzzCopySpec builds the CopySpec the SQL layer could hand over for
// these options, or nil when it would refuse them (sql/copyio/copyoptions.go
// checks them before wire ever parses data, so the parser may rely on
// them). The options are single bytes because a SQL string of one
// character is one byte only below 0x80, and SQL text holds no NUL.
func fuzzCopySpec(format, ncols, delim, quote, escape, flags uint8, null string, colTypes uint64) *CopySpec {
	s := &CopySpec{In: true, Format: CopyFormat(format % 3), Relation: "t"}
	for k := range int(ncols % 5) {
		s.Columns = append(s.Columns, Column{Name: string(rune('a' + k)), Type: copyFuzzTypes[colTypes>>(4*k)&15]})
	}
	if s.Format == CopyBinary {
		return s
	}
	csv := s.Format == CopyCSV
	oneByte := func(c uint8) bool { return c > 0 && c < 0x80 }
	if !oneByte(delim) || delim == '\n' || delim == '\r' {
		return nil
	}
	if !utf8.ValidString(null) || strings.ContainsAny(null, "\r\n\x00") || strings.IndexByte(null, delim) >= 0 {
		return nil
	}
	if !csv && strings.IndexByte(`\.abcdefghijklmnopqrstuvwxyz0123456789`, delim) >= 0 {
		return nil
	}
	s.Delimiter, s.Null = delim, null
	s.Header = flags&1 != 0
	s.HeaderMatch = s.Header && flags&2 != 0
	if !csv {
		return s
	}
	if !oneByte(quote) || !oneByte(escape) || quote == delim || strings.IndexByte(null, quote) >= 0 {
		return nil
	}
	s.Quote, s.Escape = quote, escape
	if flags&4 != 0 {
		s.ForceNotNull = make([]bool, len(s.Columns))
		s.ForceNull = make([]bool, len(s.Columns))
		for k := range s.Columns {
			s.ForceNotNull[k] = flags>>(4+k)&1 != 0
			s.ForceNull[k] = colTypes>>(60-k)&1 != 0
		}
	}
	return s
}

// sameRead reports how two reads of the same data differ, "" when they
// agree on rows, line numbers and the error (code, message and context).
func sameRead(rowsA []string, linesA []int64, errA error, rowsB []string, linesB []int64, errB error) string {
	switch {
	case strings.Join(rowsA, "\n") != strings.Join(rowsB, "\n"):
		return fmt.Sprintf("rows %q, want %q", rowsA, rowsB)
	case fmt.Sprint(linesA) != fmt.Sprint(linesB):
		return fmt.Sprintf("lines %v, want %v", linesA, linesB)
	case fmt.Sprint(errA) != fmt.Sprint(errB) || pgerr.Code(errA) != pgerr.Code(errB) || whereOf(errA) != whereOf(errB):
		return fmt.Sprintf("error %v (%s, %q), want %v (%s, %q)", errA, pgerr.Code(errA), whereOf(errA), errB, pgerr.Code(errB), whereOf(errB))
	}
	return ""
}

// FuzzCopyParse reads arbitrary COPY FROM data with arbitrary (valid)
// options: no panic, and the same rows, line numbers and error whether the
// data comes in one CopyData message or in small ones, and whether it is
// read row by row or cut into chunks that are split on other goroutines.
func FuzzCopyParse(f *testing.F) {
	// options: format, ncols, delimiter, quote, escape, flags, null,
	// column types, sizes (low 3 bits: bytes a CopyData message, 0 = all
	// at once; the next 2: rows a chunk, 1, 2, 3 or 1000)
	text := func(data string, ncols uint8) {
		f.Add([]byte(data), uint8(CopyText), ncols, uint8('\t'), uint8(0), uint8(0), uint8(0), `\N`, uint64(0), uint8(0))
		f.Add([]byte(data), uint8(CopyText), ncols, uint8('\t'), uint8(0), uint8(0), uint8(0), `\N`, uint64(0), uint8(1|1<<3))
	}
	csv := func(data string, ncols, flags uint8) {
		f.Add([]byte(data), uint8(CopyCSV), ncols, uint8(','), uint8('"'), uint8('"'), flags, "", uint64(0), uint8(0))
		f.Add([]byte(data), uint8(CopyCSV), ncols, uint8(','), uint8('"'), uint8('"'), flags, "", uint64(0), uint8(3|2<<3))
	}
	text("1\tone\n2\ttwo\n", 2)
	text("\t\n\\N\t\\\\N", 2)
	text(`a\tb\nc\\d\re\bf\fg\vh`+"\t"+`\101\1011\7x\x41\x4g\xz\q\\.`+"\n", 2)
	text("x\\\ny\tz\n1\ta\r\n", 2)
	text("1\ta\r2\tb\r", 2)
	text("1\ta\n2\tb\\.\nignored\n", 2)
	text("1\ta\n\\.x\n", 2)
	text("1\ta\n2\t\xff\n1\t\\0\n1\t\\xc3\\x28\n", 2)
	text("a\tb\n1\tx\n", 2)
	text("\n\n", 1)
	text("\n\n", 0)
	f.Add([]byte("1|NULL|a\\|b\n"), uint8(CopyText), uint8(3), uint8('|'), uint8(0), uint8(0), uint8(3), "NULL", uint64(0), uint8(7))
	csv("1,a,b\n,\"\",x\n", 3, 0)
	csv(`"a,b","say ""hi""",x"y"z`+"\n", 3, 0)
	csv("\"multi\nline\",\"cr\r\nlf\",3\n4,5,6\n", 3, 0)
	csv(`a\b,\N,\.`+"\n\\.\nignored\n", 3, 0)
	csv("1,2,3\r\n4,5,6\r\n", 3, 0)
	csv("1,a\n2,\"open\n", 2, 0)
	csv("1,a\n\"x\ny\",b\n3\n", 2, 0)
	csv("a,\"b\"\n1,2\n", 2, 3)
	csv(",\"\"\n\"\",\n", 2, 4|1<<4|1<<5)
	f.Add([]byte(`"a\"b\\c\d",e\\f`+"\n\"x\\\"\ny\",z\n"), uint8(CopyCSV), uint8(2), uint8(','), uint8('"'), uint8('\\'), uint8(0), "", uint64(0), uint8(2))
	f.Add([]byte("'a;b';NULL\n'NULL';''''\n"), uint8(CopyCSV), uint8(2), uint8(';'), uint8('\''), uint8('\''), uint8(0), "NULL", uint64(0), uint8(1))
	// binary: int4 and text, then every type
	bin := func(data string, colTypes uint64, ncols uint8) {
		f.Add([]byte(data), uint8(CopyBinary), ncols, uint8(0), uint8(0), uint8(0), uint8(0), "", colTypes, uint8(0))
		f.Add([]byte(data), uint8(CopyBinary), ncols, uint8(0), uint8(0), uint8(0), uint8(0), "", colTypes, uint8(3))
	}
	it := uint64(1 | 8<<4)
	bin(binaryCopy([][][]byte{{{0, 0, 0, 7}, []byte("seven")}, {{0xff, 0xff, 0xff, 0xfe}, nil}}, true), it, 2)
	bin(binaryCopy([][][]byte{{{0, 0, 0, 1}, nil}}, false), it, 2)
	bin("PGCOPY\n\xff\r\n\x01"+strings.Repeat("\x00", 8), it, 2)
	bin(binaryCopy([][][]byte{{{0, 0, 0, 7}}}, true), it, 2)
	bin(binaryCopy([][][]byte{{{0, 0, 7}, nil}}, true), it, 2)
	bin(binaryCopy([][][]byte{{{0, 0, 0, 7}, {0xff}}}, true), it, 2)
	bin(binaryCopy(nil, true)+"x", it, 2)
	bin(binaryCopy([][][]byte{{{0, 0, 0, 7}, []byte("abc")}}, true)[:30], it, 2)
	arr := []byte{0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 23, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0, 9, 0xff, 0xff, 0xff, 0xff}
	bin(binaryCopy([][][]byte{{{0, 2, 0, 0, 0x40, 0, 0, 3, 0, 12, 0x0d, 0x80}, {0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 1, 0, 0, 0, 2}, make([]byte, 8), arr}}, true),
		6|13<<4|14<<8|15<<12, 4)
	bin(binaryCopy([][][]byte{{{1}, make([]byte, 16), {0, 0, 0, 5}, {0, 0, 0, 0, 0, 0, 0, 1}}}, true), 5|10<<4|11<<8|12<<12, 4)

	f.Fuzz(func(t *testing.T, data []byte, format, ncols, delim, quote, escape, flags uint8, null string, colTypes uint64, sizes uint8) {
		spec := fuzzCopySpec(format, ncols, delim, quote, escape, flags, null, colTypes)
		if spec == nil {
			t.Skip("options the SQL layer refuses")
		}
		msg := int(sizes & 7)
		per := [4]int{1, 2, 3, 1000}[sizes>>3&3]
		in := string(data)
		rows, lines, err := readAll(spec, in, 0)
		r2, l2, e2 := readAll(spec, in, msg)
		if d := sameRead(r2, l2, e2, rows, lines, err); d != "" {
			t.Fatalf("in CopyData messages of %d bytes: %s", msg, d)
		}
		if !spec.In || spec.Format == CopyBinary {
			return
		}
		r3, l3, e3 := readAllChunked(spec, in, msg, per)
		if d := sameRead(r3, l3, e3, rows, lines, err); d != "" {
			t.Fatalf("in chunks of %d rows, CopyData messages of %d bytes: %s", per, msg, d)
		}
	})
}
