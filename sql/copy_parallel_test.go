package sql

import (
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/lakepg/lakepg/pgerr"
)

// chunkedRows is CopyRows with the wire layer's chunking ability: the rows
// of sliceRows handed out in chunks of 1 to per rows, then end (io.EOF
// when nil).
type chunkedRows struct {
	sliceRows
	per  int
	next int
	k    int
}

func (r *chunkedRows) CanChunk() bool { return true }

func (r *chunkedRows) NextChunk() (interface {
	Next() ([][]byte, error)
	Line() int64
}, error) {
	if r.next >= len(r.rows) {
		if r.end != nil {
			return nil, r.end
		}
		return nil, io.EOF
	}
	r.k++
	n := min(1+r.k%r.per, len(r.rows)-r.next)
	c := &lineRows{rows: r.rows[r.next : r.next+n], first: int64(r.next)}
	r.next += n
	return c, nil
}

// lineRows is one chunk: rows numbered from first+1.
type lineRows struct {
	rows  [][][]byte
	first int64
	i     int
}

func (c *lineRows) Next() ([][]byte, error) {
	if c.i >= len(c.rows) {
		return nil, io.EOF
	}
	c.i++
	return c.rows[c.i-1], nil
}

func (c *lineRows) Line() int64 { return c.first + int64(c.i) }

// TestCopyParallelKeepsOrder copies rows in chunks parsed in parallel: the
// file holds them in the order sent.
func TestCopyParallelKeepsOrder(t *testing.T) {
	s := lake(t)
	must(t, s, `CREATE TABLE p (i bigint, s text, d date, n numeric(8,2))`)
	before := snapshots(t, s)
	var lines []string
	for i := 1; i <= 20000; i++ {
		lines = append(lines, fmt.Sprintf("%d|row %d|2024-01-%02d|%d.%02d", i, i, 1+i%28, i%1000, i%100))
	}
	rows := &chunkedRows{sliceRows: sliceRows{rows: textRows(lines...)}, per: 700}
	if _, tag, err := copyIn(t, s, `COPY p FROM STDIN`, rows); err != nil || tag != "COPY 20000" {
		t.Fatalf("COPY: %q %v", tag, err)
	}
	must(t, s, `SELECT count(*), sum(i), min(s), max(d), sum(n) FROM p`, "20000|200010000|row 1|2024-01-28|9999900.00")
	// file order is data order: row numbers of the scan match the values
	must(t, s, `SELECT count(*) FROM (SELECT i, row_number() OVER () AS r FROM p) x WHERE i <> r`, "0")
	must(t, s, `SELECT count(*) - `+before+` FROM lakepg.snapshots`, "1")
}

// TestCopyParallelFirstErrorWins: with errors in several chunks, the one
// earliest in the data is reported (whichever worker finished first), and
// nothing is committed.
func TestCopyParallelFirstErrorWins(t *testing.T) {
	s := lake(t)
	must(t, s, `CREATE TABLE e (a integer NOT NULL, b text)`)
	good := make([]string, 3000)
	for i := range good {
		good[i] = "1|x"
	}
	withBad := func(at map[int]string) []string {
		ls := append([]string{}, good...)
		for k, v := range at {
			ls[k] = v
		}
		return ls
	}
	clientFailed := pgerr.New(pgerr.QueryCanceled, "COPY from stdin failed: client gave up")
	cases := []struct {
		name  string
		lines []string
		end   error
		code  string
		msg   string
		where string
	}{
		{"two bad values", withBad(map[int]string{2500: "zz|a", 1200: "3x|b"}), nil, pgerr.InvalidTextRepr,
			`invalid input syntax for type integer: "3x"`, `COPY e, line 1201, column a: "3x"`},
		{"first row of a later chunk", withBad(map[int]string{0: "1|x", 1: "y|x"}), nil, pgerr.InvalidTextRepr,
			`invalid input syntax for type integer: "y"`, `COPY e, line 2, column a: "y"`},
		{"not null then bad value", withBad(map[int]string{2999: "q|x", 2001: "NULL|x"}), nil, pgerr.NotNullViolation,
			`null value in column "a" of relation "e" violates not-null constraint`, "COPY e, line 2002"},
		{"bad value before the client failed", withBad(map[int]string{2990: "w|x"}), clientFailed, pgerr.InvalidTextRepr,
			`invalid input syntax for type integer: "w"`, `COPY e, line 2991, column a: "w"`},
		{"client failed", good, clientFailed, pgerr.QueryCanceled, "COPY from stdin failed: client gave up", ""},
	}
	before := snapshots(t, s)
	for round := range 5 {
		for _, c := range cases {
			rows := &chunkedRows{sliceRows: sliceRows{rows: textRows(c.lines...), end: c.end}, per: 3 + 100*round}
			_, _, err := copyIn(t, s, `COPY e FROM STDIN`, rows)
			pe, ok := pgerr.As(err)
			var ctxErr interface{ Where() string }
			where := ""
			if errors.As(err, &ctxErr) {
				where = ctxErr.Where()
			}
			if !ok || pe.Code != c.code || pe.Message != c.msg || where != c.where {
				t.Errorf("%s (round %d): got %v (code %s, context %q), want %s %q context %q", c.name, round, err, pgerr.Code(err), where, c.code, c.msg, c.where)
			}
		}
	}
	if got := snapshots(t, s); got != before {
		t.Errorf("failed COPYs committed snapshots (%s -> %s)", before, got)
	}
	if files := dataFiles(t, s); len(files) != 0 {
		t.Errorf("failed COPYs left files: %v", files)
	}
}

// TestCopyFieldFastPaths: the in-place parsing of integers, dates and text
// gives what the general input functions give, and leaves every other
// spelling and every error to them.
func TestCopyFieldFastPaths(t *testing.T) {
	s := lake(t)
	must(t, s, `CREATE TABLE f (a smallint, b integer, c bigint, d date, e text)`)
	rows := textRows(
		"-32768|-2147483648|-999999999999999999|2024-02-29|",
		"32767|2147483647|9223372036854775807|1999-12-31|plain",
		"+5| 7 |0012|2024-1-5| spaced ",
		"-0|01000|-9223372036854775808|infinity|ünï",
	)
	if _, tag, err := copyIn(t, s, `COPY f FROM STDIN`, &chunkedRows{sliceRows: sliceRows{rows: rows}, per: 2}); err != nil || tag != "COPY 4" {
		t.Fatalf("COPY: %q %v", tag, err)
	}
	must(t, s, `SELECT a, b, c, d, e FROM f ORDER BY a, b`,
		"-32768|-2147483648|-999999999999999999|2024-02-29|",
		"0|1000|-9223372036854775808|infinity|ünï",
		"5|7|12|2024-01-05| spaced ",
		"32767|2147483647|9223372036854775807|1999-12-31|plain")
	for _, c := range []struct{ row, msg, where string }{
		{"32768|1|1|2024-01-01|x", `value "32768" is out of range for type smallint`, `COPY f, line 1, column a: "32768"`},
		{"1|2147483648|1|2024-01-01|x", `value "2147483648" is out of range for type integer`, `COPY f, line 1, column b: "2147483648"`},
		{"1|1|1|2023-02-29|x", `date/time field value out of range: "2023-02-29"`, `COPY f, line 1, column d: "2023-02-29"`},
		{"1|1|12a|2024-01-01|x", `invalid input syntax for type bigint: "12a"`, `COPY f, line 1, column c: "12a"`},
	} {
		_, _, err := copyIn(t, s, `COPY f FROM STDIN`, &chunkedRows{sliceRows: sliceRows{rows: textRows(c.row)}, per: 1})
		pe, ok := pgerr.As(err)
		var ctxErr interface{ Where() string }
		where := ""
		if errors.As(err, &ctxErr) {
			where = ctxErr.Where()
		}
		if !ok || pe.Message != c.msg || where != c.where {
			t.Errorf("%s: got %v (context %q), want %q (context %q)", c.row, err, where, c.msg, c.where)
		}
	}
}
