package cli

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/lakepg/lakepg/types"
)

// Format is how results are printed.
type Format string

// The output formats of --format.
const (
	FormatTable Format = "table"
	FormatCSV   Format = "csv"
	FormatJSON  Format = "json"
)

// ParseFormat checks a --format value.
func ParseFormat(s string) (Format, error) {
	switch f := Format(strings.ToLower(s)); f {
	case FormatTable, FormatCSV, FormatJSON:
		return f, nil
	}
	return "", fmt.Errorf("--format %q: want table, csv or json", s)
}

// printer is a Sink for one statement that also prints its end.
type printer interface {
	Sink
	// Finish prints what follows the rows: the row count or command tag and
	// the time the statement took (table format only).
	Finish(tag string, took time.Duration) error
}

// newPrinter returns the printer of format f writing to w.
func newPrinter(f Format, w *bufio.Writer, timing bool) printer {
	switch f {
	case FormatCSV:
		return &csvPrinter{w: w, cw: csv.NewWriter(w)}
	case FormatJSON:
		return &jsonPrinter{w: w}
	}
	return &tablePrinter{w: w, timing: timing, chunk: tableChunkRows}
}

// tableChunkRows bounds how many rows a boxed table buffers to size its
// columns: a longer result is printed as consecutive boxes of this many rows
// each (as psql's FETCH_COUNT does), so memory stays bounded.
const tableChunkRows = 10000

// tablePrinter draws boxed tables with box-drawing characters: numbers
// right-aligned, everything else left-aligned, NULL as an empty cell.
type tablePrinter struct {
	w      *bufio.Writer
	timing bool
	chunk  int

	cols    []Column
	rows    [][]string // the rows of the box being filled; NULL is ""
	total   int64
	printed bool // a box was flushed already
}

func (p *tablePrinter) Columns(cols []Column) error {
	p.cols = cols
	return nil
}

func (p *tablePrinter) Row(vals [][]byte) error {
	row := make([]string, len(vals))
	for i, v := range vals {
		row[i] = string(v)
	}
	p.rows = append(p.rows, row)
	p.total++
	if len(p.rows) >= p.chunk {
		p.flush()
		p.rows = p.rows[:0]
	}
	return nil
}

func (p *tablePrinter) flush() {
	writeBox(p.w, p.cols, p.rows)
	p.printed = true
}

func (p *tablePrinter) Finish(tag string, took time.Duration) error {
	if p.cols != nil {
		if len(p.rows) > 0 || !p.printed {
			p.flush()
		}
		if p.total == 1 {
			fmt.Fprintln(p.w, "(1 row)")
		} else {
			fmt.Fprintf(p.w, "(%d rows)\n", p.total)
		}
	} else if tag != "" {
		fmt.Fprintln(p.w, tag)
	}
	if p.timing {
		fmt.Fprintf(p.w, "Time: %.3f ms\n", float64(took.Microseconds())/1000)
	}
	return p.w.Flush()
}

// writeBox draws one box holding the header and rows.
func writeBox(w *bufio.Writer, cols []Column, rows [][]string) {
	widths := make([]int, len(cols))
	right := make([]bool, len(cols))
	for i, c := range cols {
		widths[i] = maxLineWidth(c.Name)
		right[i] = c.Type.IsNumeric()
	}
	for _, r := range rows {
		for i, v := range r {
			widths[i] = max(widths[i], maxLineWidth(v))
		}
	}
	rule := func(l, m, r string) {
		w.WriteString(l)
		for i, wd := range widths {
			if i > 0 {
				w.WriteString(m)
			}
			w.WriteString(strings.Repeat("─", wd+2))
		}
		w.WriteString(r)
		w.WriteByte('\n')
	}
	header := make([]string, len(cols))
	for i, c := range cols {
		header[i] = c.Name
	}
	rule("┌", "┬", "┐")
	writeCells(w, header, widths, make([]bool, len(cols)))
	rule("├", "┼", "┤")
	for _, r := range rows {
		writeCells(w, r, widths, right)
	}
	rule("└", "┴", "┘")
}

// writeCells writes one table row; a value holding newlines spans several
// lines of the box.
func writeCells(w *bufio.Writer, vals []string, widths []int, right []bool) {
	lines := make([][]string, len(vals))
	height := 1
	for i, v := range vals {
		lines[i] = strings.Split(v, "\n")
		height = max(height, len(lines[i]))
	}
	for l := 0; l < height; l++ {
		w.WriteString("│")
		for i := range vals {
			if i > 0 {
				w.WriteString("│")
			}
			s := ""
			if l < len(lines[i]) {
				s = lines[i][l]
			}
			pad := strings.Repeat(" ", widths[i]-displayWidth(s))
			w.WriteByte(' ')
			if right[i] {
				w.WriteString(pad)
				w.WriteString(s)
			} else {
				w.WriteString(s)
				w.WriteString(pad)
			}
			w.WriteByte(' ')
		}
		w.WriteString("│\n")
	}
}

func maxLineWidth(s string) int {
	m := 0
	for _, line := range strings.Split(s, "\n") {
		m = max(m, displayWidth(line))
	}
	return m
}

// displayWidth is the number of terminal cells s takes: East Asian wide
// characters take two, combining marks none.
func displayWidth(s string) int {
	n := 0
	for _, r := range s {
		switch {
		case r < 0x300:
			n++
		case r >= 0x300 && r <= 0x36f, r >= 0x200b && r <= 0x200f, r == 0xfe0f:
		case r >= 0x1100 && r <= 0x115f, r >= 0x2e80 && r <= 0xa4cf, r >= 0xac00 && r <= 0xd7a3,
			r >= 0xf900 && r <= 0xfaff, r >= 0xfe30 && r <= 0xfe4f, r >= 0xff00 && r <= 0xff60,
			r >= 0xffe0 && r <= 0xffe6, r >= 0x1f300 && r <= 0x1f64f, r >= 0x1f900 && r <= 0x1f9ff,
			r >= 0x20000 && r <= 0x3fffd:
			n += 2
		default:
			n++
		}
	}
	return n
}

// csvPrinter writes a header line and the rows as RFC 4180 CSV; NULL is an
// empty field. Statements without rows print nothing.
type csvPrinter struct {
	w   *bufio.Writer
	cw  *csv.Writer
	rec []string
}

func (p *csvPrinter) Columns(cols []Column) error {
	p.rec = make([]string, len(cols))
	for i, c := range cols {
		p.rec[i] = c.Name
	}
	return p.cw.Write(p.rec)
}

func (p *csvPrinter) Row(vals [][]byte) error {
	for i, v := range vals {
		p.rec[i] = string(v)
	}
	return p.cw.Write(p.rec)
}

func (p *csvPrinter) Finish(string, time.Duration) error {
	p.cw.Flush()
	if err := p.cw.Error(); err != nil {
		return err
	}
	return p.w.Flush()
}

// jsonPrinter writes each result as a JSON array of objects keyed by column
// name, streamed row by row. Numbers and booleans keep their JSON types,
// NULL is null, everything else a string. Statements without rows print
// nothing.
type jsonPrinter struct {
	w    *bufio.Writer
	cols []Column
	keys [][]byte
	n    int64
}

func (p *jsonPrinter) Columns(cols []Column) error {
	p.cols = cols
	p.keys = make([][]byte, len(cols))
	for i, c := range cols {
		k, err := json.Marshal(c.Name)
		if err != nil {
			return err
		}
		p.keys[i] = k
	}
	p.w.WriteString("[")
	return nil
}

func (p *jsonPrinter) Row(vals [][]byte) error {
	if p.n > 0 {
		p.w.WriteString(",")
	}
	p.n++
	p.w.WriteString("\n  {")
	for i, v := range vals {
		if i > 0 {
			p.w.WriteString(", ")
		}
		p.w.Write(p.keys[i])
		p.w.WriteString(": ")
		writeJSONValue(p.w, p.cols[i].Type, v)
	}
	p.w.WriteString("}")
	return nil
}

func writeJSONValue(w *bufio.Writer, t types.T, v []byte) {
	switch {
	case v == nil:
		w.WriteString("null")
		return
	case t.ID == types.Bool:
		if string(v) == "t" || string(v) == "true" {
			w.WriteString("true")
		} else {
			w.WriteString("false")
		}
		return
	case t.IsNumeric():
		// NaN and Infinity have no JSON number form; they stay strings
		if _, err := strconv.ParseFloat(string(v), 64); err == nil && json.Valid(v) {
			w.Write(v)
			return
		}
	}
	b, _ := json.Marshal(string(v))
	w.Write(b)
}

func (p *jsonPrinter) Finish(string, time.Duration) error {
	if p.cols != nil {
		if p.n > 0 {
			p.w.WriteString("\n")
		}
		p.w.WriteString("]\n")
	}
	return p.w.Flush()
}
