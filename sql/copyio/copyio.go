// Package copyio is COPY's data apart from the session: the options of
// COPY … FROM STDIN / TO STDOUT checked and defaulted into the CopySpec the
// wire layer formats by, and the rows a client sends parsed into batches
// (CopyRowsOp, whose chunks of whole rows workers may parse in parallel).
package copyio

import (
	"context"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/sql/planner"
	"github.com/lakepg/lakepg/types"
)

// CopyFormat is the data format of a COPY.
type CopyFormat uint8

const (
	CopyText CopyFormat = iota
	CopyCSV
	CopyBinary
)

// CopySpec describes the data of a COPY ... FROM STDIN or TO STDOUT: the
// checked and defaulted options and the columns of the data. Turning rows
// into bytes and back is the wire layer's job; this is all it needs.
type CopySpec struct {
	In     bool // FROM STDIN; else TO STDOUT
	Format CopyFormat

	Delimiter           byte
	Null                string
	Quote, Escape       byte // csv
	Header, HeaderMatch bool
	// Per column of Columns, csv only.
	ForceQuote, ForceNotNull, ForceNull []bool

	// Relation is the table name CONTEXT lines show ("COPY t, line 3").
	Relation string
	Columns  []planner.Column
}

// CopyRows is the data of a COPY FROM STDIN as rows of text fields, one
// per column (nil = NULL), valid until the next call; io.EOF after the last.
// Line numbers the row Next returned last, for CONTEXT lines.
type CopyRows interface {
	Next() ([][]byte, error)
	Line() int64
}

// contextError gives an error PostgreSQL's CONTEXT line, which the wire
// layer sends as the W field of the error report.
type contextError struct {
	err   error
	where string
}

func (e *contextError) Error() string { return e.err.Error() }
func (e *contextError) Unwrap() error { return e.err }
func (e *contextError) Where() string { return e.where }

// CopyRowsOp is the source of a COPY FROM: it turns the client's rows into
// batches of the listed columns, each field through its type's text input,
// so the Parquet writer downstream sees one batch at a time.
type CopyRowsOp struct {
	rows    CopyRows
	spec    *CopySpec
	notNull []bool
	loc     *time.Location
	ts      []types.T
	B       *vec.Batch // the batch Next fills; the caller may swap it
	done    bool
	direct  []fieldKind // copy_parse.go
}

// NewCopyRowsOp reads rows of the columns spec describes, with the types
// ts, refusing NULL where notNull says so; loc is the session's time zone.
func NewCopyRowsOp(rows CopyRows, spec *CopySpec, notNull []bool, loc *time.Location, ts []types.T) *CopyRowsOp {
	return &CopyRowsOp{rows: rows, spec: spec, notNull: notNull, loc: loc, ts: ts}
}

// Rows are the client's rows it reads.
func (o *CopyRowsOp) Rows() CopyRows { return o.rows }

func (o *CopyRowsOp) Types() []types.T { return o.ts }
func (o *CopyRowsOp) Close() error     { return nil }

func (o *CopyRowsOp) Next(ctx context.Context) (*vec.Batch, error) {
	if o.done {
		return nil, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if o.B == nil {
		o.B = vec.NewBatch(o.ts, vec.BatchSize)
	} else {
		o.B.Reset()
	}
	n, eof, err := o.ParseRows(o.rows, o.B, vec.BatchSize)
	if err != nil {
		return nil, err
	}
	o.done = eof
	if n == 0 {
		return nil, nil
	}
	return o.B, nil
}

// fieldError adds PostgreSQL's CONTEXT to a value's input error.
func (o *CopyRowsOp) fieldError(rows CopyRows, err error, k int, f []byte) error {
	where := fmt.Sprintf("COPY %s, line %d, column %s", o.spec.Relation, rows.Line(), o.spec.Columns[k].Name)
	if o.spec.Format != CopyBinary {
		where += fmt.Sprintf(": \"%s\"", clipCopyValue(f))
	}
	return &contextError{err: err, where: where}
}

func (o *CopyRowsOp) nullError(rows CopyRows, k int) error {
	e := pgerr.New(pgerr.NotNullViolation, "null value in column \"%s\" of relation \"%s\" violates not-null constraint",
		o.spec.Columns[k].Name, o.spec.Relation)
	return &contextError{err: e, where: fmt.Sprintf("COPY %s, line %d", o.spec.Relation, rows.Line())}
}

// clipCopyValue shortens a value for a CONTEXT line as PostgreSQL does
// (100 bytes, never splitting a character).
func clipCopyValue(f []byte) string {
	const max = 100
	if len(f) <= max {
		return string(f)
	}
	n := max
	for n > 0 && !utf8.RuneStart(f[n]) {
		n--
	}
	return string(f[:n]) + "..."
}
