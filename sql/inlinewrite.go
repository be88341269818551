package sql

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/lakepg/lakepg/sql/planner"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/parquetio"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/snapshot"
	"github.com/lakepg/lakepg/sql/datafile"
	"github.com/lakepg/lakepg/types"
)

// Data inlining on write (DuckLake §7), as DuckDB 1.5 does it by default:
// an INSERT of at most data_inlining_row_limit rows is kept in the catalog
// (ducklake_inlined_data_<table>_<schema version>) instead of a Parquet
// file, and deleting at most that many rows of one Parquet file records them
// in ducklake_inlined_delete_<table> instead of a delete file. The limit is
// the session setting lakepg.data_inlining_row_limit when set, else the
// catalog option data_inlining_row_limit (table, schema, global scope), else
// 10; 0 turns inlining off. Statements inside a BEGIN ... COMMIT block are
// not inlined: the block's own reads see only its staged files.

// inliningSetting is the session setting that overrides the catalog option.
const inliningSetting = "lakepg.data_inlining_row_limit"

// defaultInliningLimit is DuckDB 1.5's default data_inlining_row_limit.
const defaultInliningLimit = 10

// inliningLimit is the effective row limit for table t of schema sch.
func (s *Session) inliningLimit(ctx context.Context, sch *catalog.Schema, t *catalog.Table) (int64, error) {
	return s.inliningLimitOf(ctx, sch.ID, t.ID)
}

// inliningLimitOf is the effective row limit for the table with id tableID
// in the schema with id schemaID.
func (s *Session) inliningLimitOf(ctx context.Context, schemaID, tableID int64) (int64, error) {
	if s.inTx && !s.inlineInBlock {
		return 0, nil
	}
	v := strings.TrimSpace(s.Settings[inliningSetting])
	if v == "" {
		opt, ok, err := snapshot.Option(ctx, s.eng.DB, "data_inlining_row_limit", schemaID, tableID)
		if err != nil {
			return 0, err
		}
		if !ok {
			return defaultInliningLimit, nil
		}
		v = opt
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil || n < 0 {
		return 0, pgerr.New(pgerr.InvalidParameterValue, "invalid value for data_inlining_row_limit: \"%s\"", v)
	}
	return n, nil
}

// inlineLayouts turns inlining on in c for every table c creates or gives
// a new layout whose effective limit is above 0: DuckDB creates the
// table's inlined-data table then, so its first small insert is no catalog
// change (no new schema_version) and goes where DuckDB's would.
func (s *Session) inlineLayouts(ctx context.Context, c *snapshot.Commit) error {
	for _, lt := range c.NewLayouts() {
		limit, err := s.inliningLimitOf(ctx, lt.SchemaID, lt.TableID)
		if err != nil {
			return err
		}
		if limit > 0 {
			c.InliningOn(lt.TableID)
		}
	}
	return nil
}

// inlinable reports whether DuckDB (and lakepg's readers) can keep table
// t's rows inlined: every column of a type the catalog backend stores, and
// no column named like the inlined tables' system columns.
func (s *Session) inlinable(t *catalog.Table) bool {
	if len(t.Columns) == 0 {
		return false
	}
	sys := s.eng.DB.InlinedColumns()
	for _, c := range t.Columns {
		if sys.Reserved(c.Name) {
			return false
		}
		base := strings.ToLower(c.Type)
		if i := strings.IndexByte(base, '('); i >= 0 {
			base = base[:i]
		}
		switch base {
		case "boolean", "int16", "int32", "int64", "float32", "float64", "decimal", "varchar",
			"blob", "date", "timestamp", "timestamptz", "uuid", "interval":
		case "list", "struct":
			if !inlinableNested(c) { // nested_inline_write.go
				return false
			}
		default:
			return false
		}
		if _, ok := s.eng.DB.InlinedColumnType(c.Type); !ok {
			return false
		}
	}
	return true
}

// inlineInsert buffers up to limit+1 rows of src. When src ends within the
// limit the rows are committed inlined and the statement's result is
// returned; otherwise rest replays the buffered rows followed by the
// remainder of src, for the Parquet writer. Both nil: inlining does not
// apply.
func (s *Session) inlineInsert(ctx context.Context, sch *catalog.Schema, t *catalog.Table, cols []exec.ScanCol, src exec.Operator) (res *Result, rest exec.Operator, err error) {
	limit, err := s.inliningLimit(ctx, sch, t)
	if err != nil || limit == 0 || !s.inlinable(t) {
		return nil, nil, err
	}
	buf, rest, err := bufferRows(ctx, src, planner.TypesOf(cols), limit)
	if err != nil || rest != nil {
		return nil, rest, err
	}
	if buf.N == 0 {
		return tagResult("INSERT 0 0"), nil, nil
	}
	if err := notNullCheck(t)(buf); err != nil {
		return nil, nil, err
	}
	rows, ok := s.inlineRows(buf, cols)
	if !ok {
		return nil, &replayOp{Operator: src, head: []*vec.Batch{buf}}, nil
	}
	stats, err := batchStats(buf, cols)
	if err != nil {
		return nil, nil, err
	}
	layout := make([]snapshot.InlinedColumn, len(t.Columns))
	for i, c := range t.Columns {
		layout[i] = snapshot.InlinedColumn{Name: c.Name, Type: c.Type}
	}
	err = s.commitInsert(ctx, func(c *snapshot.Commit, m *catalog.Metadata) error {
		cur, ok := m.TableByName(sch.ID, t.Name)
		if !ok || cur.ID != t.ID || !datafile.SameColumns(cur, t) {
			return pgerr.New(pgerr.SerializationFailure, "could not serialize access: table \"%s\" changed while inserting", t.Name)
		}
		c.InsertInlinedRows(*cur, layout, rows, stats)
		return nil
	}, nil)
	if err != nil {
		return nil, nil, err
	}
	return tagResult(fmt.Sprintf("INSERT 0 %d", buf.N)), nil, nil
}

// bufferRows reads src until it ends or has given more than limit rows.
// Within the limit it returns the rows; otherwise rest replays them
// followed by the remainder of src.
func bufferRows(ctx context.Context, src exec.Operator, ts []types.T, limit int64) (buf *vec.Batch, rest exec.Operator, err error) {
	buf = vec.NewBatch(ts, int(limit)+1)
	for {
		b, err := src.Next(ctx)
		if err != nil {
			return nil, nil, err
		}
		if b == nil {
			return buf, nil, nil
		}
		if int64(buf.N+b.N) > limit {
			// the batch that overflowed is replayed whole
			return nil, &replayOp{Operator: src, head: []*vec.Batch{buf, planner.CopyBatch(b)}}, nil
		}
		planner.AppendBatch(buf, b)
	}
}

// inlinedVersions are the new versions of the rows a small UPDATE changed,
// kept in the catalog with their row ids as DuckDB keeps them.
type inlinedVersions struct {
	layout []snapshot.InlinedColumn
	rows   [][]any
	rowIDs []int64
	stats  []catalog.ColumnStats
}

// inlineUpdate buffers up to limit+1 rows of src, an UPDATE's new row
// versions: the table's columns cols, then the row id. When src ends
// within the limit they are returned for the commit (src is then drained,
// so an UPDATE of no rows returns no versions, not nil); otherwise rest
// replays them followed by the remainder of src, for the Parquet writer.
// All nil: inlining does not apply.
func (s *Session) inlineUpdate(ctx context.Context, ref *planner.TableRef, cols []exec.ScanCol, src exec.Operator) (vers *inlinedVersions, rest exec.Operator, err error) {
	t := ref.Table
	limit, err := s.inliningLimit(ctx, ref.Schema, t)
	if err != nil || limit == 0 || !s.inlinable(t) {
		return nil, nil, err
	}
	buf, rest, err := bufferRows(ctx, src, append(planner.TypesOf(cols), types.Int64T), limit)
	if err != nil || rest != nil {
		return nil, rest, err
	}
	if buf.N == 0 {
		return &inlinedVersions{}, nil, nil
	}
	if err := notNullCheck(t)(buf); err != nil {
		return nil, nil, err
	}
	vals := &vec.Batch{Vecs: buf.Vecs[:len(cols)], N: buf.N}
	rows, ok := s.inlineRows(vals, cols)
	if !ok {
		return nil, &replayOp{Operator: src, head: []*vec.Batch{buf}}, nil
	}
	stats, err := batchStats(vals, cols)
	if err != nil {
		return nil, nil, err
	}
	vers = &inlinedVersions{rows: rows, stats: stats, rowIDs: append([]int64(nil), buf.Vecs[len(cols)].I64[:buf.N]...)}
	for _, c := range t.Columns {
		vers.layout = append(vers.layout, snapshot.InlinedColumn{Name: c.Name, Type: c.Type})
	}
	return vers, nil, nil
}

// inlinedCTAS are the rows of a CREATE TABLE … AS kept in the catalog.
type inlinedCTAS struct {
	layout []snapshot.InlinedColumn
	rows   [][]any
	stats  []catalog.ColumnStats
}

// inlineCTAS buffers up to limit+1 rows of src, the rows of a table to be
// created in schema sch with columns defs (pcols as written to Parquet).
// When src ends within the limit its rows are returned (none for an empty
// result) and src is drained; otherwise the returned operator replays
// them followed by the remainder of src. With inlining off (or columns it
// cannot hold) src is returned untouched.
func (s *Session) inlineCTAS(ctx context.Context, sch *catalog.Schema, defs []snapshot.ColumnDef, pcols []parquetio.Column, src exec.Operator) (*inlinedCTAS, exec.Operator, error) {
	t := &catalog.Table{}
	cols := make([]exec.ScanCol, len(pcols))
	for i, c := range pcols {
		t.Columns = append(t.Columns, catalogColumnOf(int64(c.FieldID), defs[i])) // nested_write.go
		cols[i] = exec.ScanCol{FieldID: c.FieldID, Name: c.Name, T: c.Type, ElemFieldID: c.ElemFieldID, ChildIDs: c.ChildIDs}
	}
	// the table has no id yet: only schema and global options apply
	limit, err := s.inliningLimitOf(ctx, sch.ID, -1)
	if err != nil || limit == 0 || !s.inlinable(t) {
		return nil, src, err
	}
	buf, rest, err := bufferRows(ctx, src, planner.TypesOf(cols), limit)
	if err != nil || rest != nil {
		return nil, rest, err
	}
	rows, ok := s.inlineRows(buf, cols)
	if !ok {
		return nil, &replayOp{Operator: src, head: []*vec.Batch{buf}}, nil
	}
	in := &inlinedCTAS{rows: rows}
	if buf.N > 0 {
		if in.stats, err = batchStats(buf, cols); err != nil {
			return nil, nil, err
		}
	}
	for _, d := range defs {
		in.layout = append(in.layout, snapshot.InlinedColumn{Name: d.Name, Type: d.Type})
	}
	return in, nil, nil
}

// inlineFileDelete reports whether deleting n rows of one Parquet file of
// the table behind ref is recorded as inlined file deletes.
func (s *Session) inlineFileDelete(ctx context.Context, ref *planner.TableRef, n int) bool {
	limit, err := s.inliningLimit(ctx, ref.Schema, ref.Table)
	return err == nil && n > 0 && int64(n) <= limit
}

// batchStats are the column statistics a data file of these rows would
// have: the Parquet writer's, from its accumulators alone for plain
// columns (parquetio.ScalarStats), else by writing the file in memory.
// The column sizes are not the file's then; inlined rows have no file, and
// their statistics feed only the table's.
func batchStats(b *vec.Batch, cols []exec.ScanCol) ([]catalog.ColumnStats, error) {
	pcols := datafile.ParquetColumns(cols)
	if st, ok := parquetio.ScalarStats(pcols, b); ok {
		return datafile.ToStats(cols, parquetio.FileInfo{Stats: st}), nil
	}
	var sink bytes.Buffer
	pw, err := parquetio.NewWriter(&sink, pcols, parquetio.WriterOptions{})
	if err != nil {
		return nil, err
	}
	if err := pw.Write(b); err != nil {
		return nil, err
	}
	info, err := pw.Close()
	if err != nil {
		return nil, err
	}
	return datafile.ToStats(cols, info), nil
}

// inlineRows turns rows into the values the catalog backend stores in an
// inlined-data table, as DuckDB's metadata manager declares the columns
// (SQLite: integers and blobs native, everything else text; PostgreSQL:
// native where exact, text for dates and timestamps, BYTEA for strings).
// ok is false for a value DuckDB's text casts would not read back exactly
// (dates before the common era): such rows go to a Parquet file.
func (s *Session) inlineRows(b *vec.Batch, cols []exec.ScanCol) ([][]any, bool) {
	pgBackend := s.eng.DB.Dialect() == "postgres"
	rows := make([][]any, b.N)
	for r := 0; r < b.N; r++ {
		row := make([]any, len(cols))
		for i, c := range cols {
			v := b.Vecs[i]
			if v.IsNull(r) {
				continue
			}
			x, ok := inlineValue(v, r, c.T, pgBackend)
			if !ok {
				return nil, false
			}
			row[i] = x
		}
		rows[r] = row
	}
	return rows, true
}

func inlineValue(v *vec.Vector, r int, t types.T, pgBackend bool) (any, bool) {
	switch t.ID {
	case types.Bool:
		if pgBackend {
			return v.B[r], true
		}
		if v.B[r] {
			return int64(1), true
		}
		return int64(0), true
	case types.Int16, types.Int32, types.Int64:
		return v.I64[r], true
	case types.Float32, types.Float64:
		if pgBackend {
			return v.F64[r], true
		}
		return floatText(v.F64[r], t.ID == types.Float32), true
	case types.Bytea:
		return []byte(v.S[r]), true
	case types.Text:
		if pgBackend {
			return []byte(v.S[r]), true
		}
		return v.S[r], true
	case types.Interval:
		return intervalText(v.Iv[r]), true
	case types.Numeric, types.UUID, types.Date, types.Timestamp, types.Timestamptz:
		txt := string(v.AppendText(nil, r, time.UTC))
		if strings.HasSuffix(txt, " BC") {
			return nil, false
		}
		return txt, true
	case types.Array, types.Struct:
		return duckNestedText(v, r) // nested_inline_write.go
	}
	return nil, false
}

// floatText is DuckDB's VARCHAR of a float (inf, -inf, nan).
func floatText(f float64, single bool) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		return "nan"
	}
	bits := 64
	if single {
		bits = 32
	}
	return strconv.FormatFloat(f, 'g', -1, bits)
}

// intervalText spells an interval so that both DuckDB's and PostgreSQL's
// interval input read it back exactly: each part with its own sign.
func intervalText(iv types.IntervalValue) string {
	us := iv.Micros
	sign := ""
	if us < 0 {
		sign, us = "-", -us
	}
	h, rem := us/3600e6, us%3600e6
	m, rem := rem/60e6, rem%60e6
	sec, frac := rem/1e6, rem%1e6
	t := fmt.Sprintf("%s%02d:%02d:%02d", sign, h, m, sec)
	if frac != 0 {
		t += strings.TrimRight(fmt.Sprintf(".%06d", frac), "0")
	}
	return fmt.Sprintf("%d months %d days %s", iv.Months, iv.Days, t)
}

// replayOp returns buffered batches, then the rest of its input. Closing
// it does not close the input, which its owner closes.
type replayOp struct {
	exec.Operator
	head []*vec.Batch
}

func (r *replayOp) Next(ctx context.Context) (*vec.Batch, error) {
	for len(r.head) > 0 {
		b := r.head[0]
		r.head = r.head[1:]
		if b.N > 0 {
			return b, nil
		}
	}
	return r.Operator.Next(ctx)
}

func (r *replayOp) Close() error { return nil }
