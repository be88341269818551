package wire

import (
	"fmt"
	"strings"
	"testing"

	"github.com/lakepg/lakepg/pgerr"
)

// checkChunkedError reads data through NextChunk with perChunk rows a
// chunk and CopyData messages of every size in chunkSizes, and wants the
// error and CONTEXT given, after the rows before it.
func checkChunkedError(t *testing.T, spec *CopySpec, data string, perChunk, rowsBefore int, code, msg, where string) {
	t.Helper()
	for _, n := range chunkSizes {
		rows, _, err := readAllChunked(spec, data, n, perChunk)
		pe, ok := pgerr.As(err)
		if !ok || pe.Code != code || pe.Message != msg || whereOf(err) != where || len(rows) != rowsBefore {
			t.Errorf("%d-byte messages, %d rows a chunk: %d rows then %v (code %s, context %q), want %d rows then %s %q with context %q",
				n, perChunk, len(rows), err, pgerr.Code(err), whereOf(err), rowsBefore, code, msg, where)
		}
	}
}

// TestCopyChunkBoundaries: rows split across CopyData messages and across
// chunks read the same as one after another.
func TestCopyChunkBoundaries(t *testing.T) {
	var sb strings.Builder
	for i := range 50 {
		fmt.Fprintf(&sb, "%d\trow %d with \\t tab\\\\\t\\N\n", i, i)
	}
	checkChunkedSame(t, copySpec(CopyText, 3), sb.String())
	checkChunkedSame(t, copySpec(CopyText, 3), strings.ReplaceAll(sb.String(), "\n", "\r\n"))

	// csv: quoted fields holding line ends (which count as lines) and
	// quotes, across chunk and message boundaries
	sb.Reset()
	for i := range 30 {
		fmt.Fprintf(&sb, "%d,\"line one\nline \"\"two\"\"\n%d\",x\n", i, i)
	}
	spec := copySpec(CopyCSV, 3)
	checkChunkedSame(t, spec, sb.String())
	// (the first row's quoted line ends are not counted: the line end type
	// is not known yet, as in the sequential reader)
	rows, lines, err := readAllChunked(spec, sb.String(), 5, 2)
	if err != nil || len(rows) != 30 || lines[29] != 88 || rows[1] != "1|line one\nline \"two\"\n1|x" {
		t.Fatalf("csv with quoted line ends: %d rows, last line %v, row 1 %q, %v", len(rows), lines[len(lines)-1], rows[1], err)
	}
	// a bad row after them names its line, counting the quoted line ends
	bad := sb.String() + "31,only two\n"
	checkChunkedError(t, spec, bad, 4, 30, "22P04", "missing data for column \"c\"", `COPY t, line 89: "31,only two"`)
}

// TestCopyChunkErrorLines: an error on the first row of a later chunk, a
// line-end error found while cutting, and an encoding error (checked when
// the chunk is split) all name the line the sequential reader names.
func TestCopyChunkErrorLines(t *testing.T) {
	spec := copySpec(CopyText, 2)
	good := strings.Repeat("a\tb\n", 6)
	checkChunkedError(t, spec, good+"only one\n"+good, 3, 6, "22P04", "missing data for column \"b\"", `COPY t, line 7: "only one"`)
	checkChunkedError(t, spec, good+"x\ty\r\n", 4, 6, "22P04", "literal carriage return found in data", "COPY t, line 7")
	checkChunkedError(t, spec, good+"x\t\xff\n", 3, 6, "22021", "invalid byte sequence for encoding \"UTF8\": 0xff", "COPY t, line 7")
	// with a header line, line numbers count it
	hspec := copySpec(CopyCSV, 2)
	hspec.Header = true
	checkChunkedError(t, hspec, "a,b\n1,2\n3,4\n5\n", 2, 2, "22P04", "missing data for column \"b\"", `COPY t, line 4: "5"`)
	// the end marker ends the data: what follows is not looked at
	checkChunkedSame(t, spec, good+"\\.\nnot\ta\trow\n")
}
