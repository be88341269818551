package cli

import (
	"bufio"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// importCol is one column an import writes.
type importCol struct {
	Name string
	Type types.T
}

// badRowError names the row an import stopped at.
type badRowError struct {
	file string
	line int
	msg  string
}

func (e *badRowError) Error() string { return fmt.Sprintf("%s line %d: %s", e.file, e.line, e.msg) }

// csvSource reads CSV files with a header line, checks every value against
// its column's type, and hands on the rows that pass, batch by batch (for a
// Parquet file) and row by row (for COPY). Empty fields are NULL.
type csvSource struct {
	open    opener
	files   []string
	cols    []importCol // in the order of the first file's header
	comma   rune
	skipBad bool
	report  io.Writer // where skipped rows are reported
	prog    *progress

	bytes   int64 // read so far, over all files
	rows    int64 // good rows handed on
	skipped int64
}

// opener opens a file for one sequential read (importSources.open).
type opener func(path string) (io.ReadCloser, error)

// readHeader returns the header of a CSV file.
func readHeader(open opener, path string, comma rune) ([]string, error) {
	f, err := open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(bufio.NewReader(f))
	r.Comma = comma
	h, err := r.Read()
	if err == io.EOF {
		return nil, fmt.Errorf("%s: empty file, a header line is needed", path)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: header: %w", path, err)
	}
	return cleanHeader(h, path)
}

func cleanHeader(h []string, path string) ([]string, error) {
	out := make([]string, len(h))
	seen := map[string]bool{}
	for i, name := range h {
		name = strings.TrimSpace(strings.TrimPrefix(name, "\ufeff"))
		if name == "" {
			name = fmt.Sprintf("column%d", i+1)
		}
		if seen[name] {
			return nil, fmt.Errorf("%s: column %q appears twice in the header", path, name)
		}
		seen[name] = true
		out[i] = name
	}
	return out, nil
}

// sampleCSV reads up to n data rows of the files, each file's fields put in
// the order of header (the first file's), for type inference.
func sampleCSV(open opener, files []string, comma rune, header []string, n int) (*inferrer, error) {
	in := newInferrer(len(header))
	ordered := make([]string, len(header))
	for _, path := range files {
		if n <= 0 {
			break
		}
		if err := sampleFile(open, path, comma, header, in, ordered, &n); err != nil {
			return nil, err
		}
	}
	return in, nil
}

func sampleFile(open opener, path string, comma rune, header []string, in *inferrer, ordered []string, n *int) error {
	f, err := open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	r := csv.NewReader(bufio.NewReader(f))
	r.Comma, r.FieldsPerRecord, r.ReuseRecord = comma, -1, true
	h, err := r.Read()
	if err != nil {
		return nil // the import proper reports it
	}
	h, err = cleanHeader(h, path)
	if err != nil {
		return err
	}
	pos := make([]int, len(header))
	for k, name := range header {
		pos[k] = slices.Index(h, name)
		if pos[k] < 0 {
			return nil // the import proper reports the missing column
		}
	}
	for *n > 0 {
		rec, err := r.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil || len(rec) != len(h) {
			continue // the import proper reports it with its line
		}
		for k, p := range pos {
			ordered[k] = rec[p]
		}
		in.add(ordered)
		*n--
	}
	return nil
}

// run reads every file. onRow gets each good row's fields in column order
// (nil when only batches are wanted); onBatch gets full batches and the
// last one.
func (s *csvSource) run(ctx context.Context, onRow func([]string) error, onBatch func(*vec.Batch) error) error {
	ts := make([]types.T, len(s.cols))
	for i, c := range s.cols {
		ts[i] = c.Type
	}
	b := vec.NewBatch(ts, vec.BatchSize)
	flush := func() error {
		if b.N == 0 {
			return nil
		}
		if onBatch != nil {
			if err := onBatch(b); err != nil {
				return err
			}
		}
		b.Reset()
		return nil
	}
	for _, path := range s.files {
		if err := s.file(ctx, path, b, onRow, flush); err != nil {
			return err
		}
	}
	return flush()
}

func (s *csvSource) file(ctx context.Context, path string, b *vec.Batch, onRow func([]string) error, flush func() error) error {
	f, err := s.open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	r := csv.NewReader(bufio.NewReaderSize(countingReader{f, &s.bytes}, 256<<10))
	r.Comma, r.ReuseRecord, r.FieldsPerRecord = s.comma, true, -1
	h, err := r.Read()
	if err != nil {
		return fmt.Errorf("%s: header: %w", path, err)
	}
	header, err := cleanHeader(h, path)
	if err != nil {
		return err
	}
	// pos[k] is the field of this file holding column k
	pos := make([]int, len(s.cols))
	if len(header) != len(s.cols) {
		return fmt.Errorf("%s: header has %d columns, the import %d (%s)", path, len(header), len(s.cols), colNames(s.cols))
	}
	for k, c := range s.cols {
		pos[k] = -1
		for i, name := range header {
			if name == c.Name {
				pos[k] = i
			}
		}
		if pos[k] < 0 {
			return fmt.Errorf("%s: header lacks column %q (the import has %s)", path, c.Name, colNames(s.cols))
		}
	}
	ordered := make([]string, len(s.cols))
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return nil
		}
		var (
			line int
			bad  string
			pe   *csv.ParseError
		)
		switch {
		case errors.As(err, &pe):
			line, bad = pe.StartLine, pe.Err.Error()
		case err != nil:
			return fmt.Errorf("%s: %w", path, err)
		case len(rec) != len(s.cols):
			line, _ = r.FieldPos(0)
			bad = fmt.Sprintf("%d fields, the header has %d", len(rec), len(s.cols))
		default:
			line, _ = r.FieldPos(0)
			for k := range s.cols {
				ordered[k] = rec[pos[k]]
			}
			bad = s.parseRow(b, ordered)
		}
		if bad != "" {
			e := &badRowError{file: path, line: line, msg: bad}
			if !s.skipBad {
				return e
			}
			s.skipped++
			fmt.Fprintf(s.report, "skipped %s\n", e)
			continue
		}
		s.rows++
		if onRow != nil {
			if err := onRow(ordered); err != nil {
				return err
			}
		}
		if b.N == vec.BatchSize {
			if err := flush(); err != nil {
				return err
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			s.prog.update(s.rows, s.bytes)
		}
	}
}

// parseRow appends one row to b; on a bad value it leaves b as it was and
// says what is wrong.
func (s *csvSource) parseRow(b *vec.Batch, fields []string) string {
	for k, v := range fields {
		out := b.Vecs[k]
		if v == "" {
			out.AppendNull()
			continue
		}
		if err := exec.ParseInto(out, v, time.UTC, true); err != nil {
			for j := 0; j <= k; j++ {
				truncate(b.Vecs[j], b.N)
			}
			msg := err.Error()
			if pe, ok := pgerr.As(err); ok {
				msg = pe.Message
			}
			return fmt.Sprintf("column %q: %s", s.cols[k].Name, msg)
		}
	}
	b.N++
	return ""
}

// truncate cuts v back to n values.
func truncate(v *vec.Vector, n int) {
	if len(v.I64) > n {
		v.I64 = v.I64[:n]
	}
	if len(v.F64) > n {
		v.F64 = v.F64[:n]
	}
	if len(v.B) > n {
		v.B = v.B[:n]
	}
	if len(v.S) > n {
		v.S = v.S[:n]
	}
	if len(v.Iv) > n {
		v.Iv = v.Iv[:n]
	}
	if len(v.Nulls) > n {
		v.Nulls = v.Nulls[:n]
	}
}

func colNames(cols []importCol) string {
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.Name
	}
	return strings.Join(names, ", ")
}
