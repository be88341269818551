package parquetio

import (
	"encoding/binary"
	"fmt"
	"math"
	"runtime"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// Encoding a row group (dictionary lookups, page encoding, page bounds,
// Snappy) is most of the CPU of a bulk write (COPY, CTAS, INSERT … SELECT)
// and ran on the one goroutine that also produced the rows. For files of
// scalar columns the Writer therefore copies each row group's rows into a
// buffer of its own (rowGroupBuf), already converted and checked into
// Parquet's physical form, and encodes it on a goroutine into a parquet-go
// ConcurrentRowGroupWriter while the caller fills the next one. Finished
// row groups are committed to the file in order, on the caller's
// goroutine. At most GOMAXPROCS row groups encode at once, so memory stays
// bounded by a few row groups whatever the size of the file.
//
// Conversion errors (a value out of range, an interval Parquet cannot hold)
// are found while copying, in Write, so a bad value fails the batch that
// holds it, as before.

// bufKind is a column's physical form in a rowGroupBuf.
type bufKind uint8

const (
	bufBool bufKind = iota
	bufI32
	bufI64
	bufF32
	bufF64
	bufBytes // variable length: data[off[k]:off[k+1]]
	bufFixed // fixed length: data[k*size:(k+1)*size]
)

// bufKindOf is the buffer form of a column type; ok is false for types the
// row group path does not handle (arrays and whatever else is nested),
// which keep the sequential path.
func bufKindOf(t types.T) (k bufKind, size int, ok bool) {
	switch t.ID {
	case types.Bool:
		return bufBool, 0, true
	case types.Int16, types.Int32, types.Date:
		return bufI32, 0, true
	case types.Numeric:
		if t.Wide() {
			return bufFixed, 16, true
		}
		if p, _ := numericPS(t); p <= 9 {
			return bufI32, 0, true
		}
		return bufI64, 0, true
	case types.Int64, types.Timestamp, types.Timestamptz, types.Time, types.TimeTZ:
		return bufI64, 0, true
	case types.Float32:
		return bufF32, 0, true
	case types.Float64:
		return bufF64, 0, true
	case types.Text, types.Bytea, types.JSON:
		return bufBytes, 0, true
	case types.UUID:
		return bufFixed, 16, true
	case types.Interval:
		return bufFixed, 12, true
	}
	return 0, 0, false
}

// colBuf is one column of a buffered row group, one entry per row (NULL
// rows hold a zero placeholder).
type colBuf struct {
	kind bufKind
	size int
	null []bool
	hasN bool
	i32  []int32
	i64  []int64
	f32  []float32
	f64  []float64
	b    []bool
	data []byte
	off  []int
}

func (c *colBuf) reset() {
	c.null, c.hasN = c.null[:0], false
	c.i32, c.i64, c.f32, c.f64, c.b = c.i32[:0], c.i64[:0], c.f32[:0], c.f64[:0], c.b[:0]
	c.data = c.data[:0]
	c.off = append(c.off[:0], 0)
}

// rowGroupBuf is one row group on its way to the file.
type rowGroupBuf struct {
	n    int
	cols []colBuf
	rg   *parquet.ConcurrentRowGroupWriter
	vals []parquet.Value
	done chan error
}

// rowGroups is the Writer's row group pipeline.
type rowGroups struct {
	cur     *rowGroupBuf
	pending []*rowGroupBuf // encoding or encoded, in file order
	free    []*rowGroupBuf
	limit   int // row groups encoding at once

	// What NewWriter built the parquet-go writer from, until the first row
	// group has chosen the encodings (chooseEncodings); nil after.
	fields   []parquet.Field
	opts     []parquet.WriterOption // all but the schema
	encoding func(Column) encoding.Encoding
}

// parallelOK reports whether every column can take the row group path.
func parallelOK(cols []Column) bool {
	for _, c := range cols {
		if c.Variant {
			return false
		}
		if _, _, ok := bufKindOf(c.Type); !ok {
			return false
		}
	}
	return true
}

func newRowGroups(fields []parquet.Field, opts []parquet.WriterOption, enc func(Column) encoding.Encoding) *rowGroups {
	return &rowGroups{limit: max(1, runtime.GOMAXPROCS(0)), fields: fields, opts: opts, encoding: enc}
}

func (w *Writer) newRowGroupBuf() *rowGroupBuf {
	p := w.par
	if n := len(p.free); n > 0 {
		b := p.free[n-1]
		p.free = p.free[:n-1]
		return b
	}
	b := &rowGroupBuf{cols: make([]colBuf, len(w.cols)), done: make(chan error, 1)}
	for i, c := range w.cols {
		b.cols[i].kind, b.cols[i].size, _ = bufKindOf(c.Type)
		b.cols[i].reset()
	}
	return b
}

// writeRowGroups is Write for the row group path.
func (w *Writer) writeRowGroups(b *vec.Batch) error {
	p := w.par
	done := 0
	for done < b.N {
		if p.cur == nil {
			p.cur = w.newRowGroupBuf()
		}
		k := min(b.N-done, w.rgRows-p.cur.n)
		for i, v := range b.Vecs {
			if err := w.fill(&p.cur.cols[i], i, v, done, done+k); err != nil {
				w.err = err
				return err
			}
			w.acc[i].add(v, done, done+k)
		}
		p.cur.n += k
		done += k
		w.rows += int64(k)
		if p.cur.n == w.rgRows {
			if err := w.submit(); err != nil {
				w.err = err
				return err
			}
		}
	}
	return nil
}

// submit starts encoding the current row group, first committing the
// oldest ones while as many as the limit are still at work.
func (w *Writer) submit() error {
	p := w.par
	rb := p.cur
	p.cur = nil
	for len(p.pending) >= p.limit {
		if err := w.commitOldest(); err != nil {
			return err
		}
	}
	if p.fields != nil {
		if err := w.chooseEncodings(rb); err != nil {
			return err
		}
	}
	if rb.rg == nil {
		rb.rg = w.pw.BeginRowGroup()
	}
	p.pending = append(p.pending, rb)
	go func() {
		var err error
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("parquet: encoding row group: %v", r)
			}
			rb.done <- err
		}()
		err = w.encode(rb)
	}()
	return nil
}

// commitOldest waits for the oldest row group and appends it to the file.
func (w *Writer) commitOldest() error {
	p := w.par
	rb := p.pending[0]
	p.pending = p.pending[1:]
	if err := <-rb.done; err != nil {
		return err
	}
	if _, err := rb.rg.Commit(); err != nil {
		return fmt.Errorf("parquet: writing row group: %w", err)
	}
	rb.n = 0
	for i := range rb.cols {
		rb.cols[i].reset()
	}
	p.free = append(p.free, rb)
	return nil
}

// finishRowGroups encodes and commits what is left, in order.
func (w *Writer) finishRowGroups() error {
	p := w.par
	if p.cur != nil && p.cur.n > 0 {
		if err := w.submit(); err != nil {
			return err
		}
	}
	for len(p.pending) > 0 {
		if err := w.commitOldest(); err != nil {
			return err
		}
	}
	return nil
}

// abortRowGroups waits for the encoders still running (they use the
// buffers), dropping their results.
func (w *Writer) abortRowGroups() {
	for _, rb := range w.par.pending {
		<-rb.done
	}
	w.par.pending = nil
}

// fill appends rows [lo, hi) of v to column buffer c of file column col,
// converting and checking each value as scalar does.
func (w *Writer) fill(c *colBuf, col int, v *vec.Vector, lo, hi int) error {
	t := w.cols[col].Type
	name := w.cols[col].Name
	nulls := v.Nulls
	if nulls != nil {
		nulls = nulls[lo:hi]
		for _, isNull := range nulls {
			if isNull {
				c.hasN = true
				break
			}
		}
	}
	if c.hasN && len(c.null) < c.count() {
		// the first NULL of this row group: the earlier rows had none
		c.null = append(c.null, make([]bool, c.count()-len(c.null))...)
	}
	if c.hasN {
		if nulls != nil {
			c.null = append(c.null, nulls...)
		} else {
			c.null = append(c.null, make([]bool, hi-lo)...)
		}
	}
	isNull := func(k int) bool { return nulls != nil && nulls[k] }
	switch c.kind {
	case bufBool:
		c.b = append(c.b, v.B[lo:hi]...)
	case bufI32:
		lim := int64(math.MaxInt32)
		if t.ID == types.Int16 {
			lim = math.MaxInt16
		}
		for k, x := range v.I64[lo:hi] {
			if isNull(k) {
				x = 0
			} else if x > lim || x < -lim-1 {
				if t.ID == types.Numeric {
					return pgerr.New(pgerr.NumericValueOutOfRange, "numeric value out of range for column %q (%s)", name, t)
				}
				return pgerr.New(pgerr.NumericValueOutOfRange, "value %d out of range for column %q (%s)", x, name, t)
			}
			c.i32 = append(c.i32, int32(x))
		}
	case bufI64:
		if t.ID == types.TimeTZ {
			for k, x := range v.I64[lo:hi] {
				if !isNull(k) {
					x = types.TimeTZUTC(x)
				}
				c.i64 = append(c.i64, x)
			}
			break
		}
		c.i64 = append(c.i64, v.I64[lo:hi]...)
	case bufF32:
		for _, x := range v.F64[lo:hi] {
			c.f32 = append(c.f32, float32(x))
		}
	case bufF64:
		c.f64 = append(c.f64, v.F64[lo:hi]...)
	case bufBytes:
		for k, s := range v.S[lo:hi] {
			if !isNull(k) {
				c.data = append(c.data, s...)
			}
			c.off = append(c.off, len(c.data))
		}
	case bufFixed:
		for k := range hi - lo {
			at := len(c.data)
			c.data = append(c.data, make([]byte, c.size)...)
			if isNull(k) {
				continue
			}
			b := c.data[at : at+c.size : at+c.size]
			i := lo + k
			switch t.ID {
			case types.Numeric:
				if err := wideValue(b, t, v.S[i]); err != nil {
					return err
				}
			case types.UUID:
				s := v.S[i]
				if len(s) != 16 {
					return fmt.Errorf("parquet: uuid value of %d bytes in column %q", len(s), name)
				}
				copy(b, s)
			case types.Interval:
				iv := v.Iv[i]
				ms := iv.Micros / 1000
				if iv.Months < 0 || iv.Days < 0 || ms < 0 || ms > math.MaxUint32 {
					return pgerr.New(pgerr.FeatureNotSupported, "column %q: interval %s cannot be stored in Parquet (negative parts and time parts above %d hours are not representable)",
						name, types.AppendInterval(nil, iv), int64(math.MaxUint32)/3600000)
				}
				binary.LittleEndian.PutUint32(b, uint32(iv.Months))
				binary.LittleEndian.PutUint32(b[4:], uint32(iv.Days))
				binary.LittleEndian.PutUint32(b[8:], uint32(ms))
			}
		}
	}
	return nil
}

// count is the number of rows in the buffer.
func (c *colBuf) count() int {
	switch c.kind {
	case bufBool:
		return len(c.b)
	case bufI32:
		return len(c.i32)
	case bufI64:
		return len(c.i64)
	case bufF32:
		return len(c.f32)
	case bufF64:
		return len(c.f64)
	case bufBytes:
		return len(c.off) - 1
	}
	return len(c.data) / c.size
}

// encodePiece is how many values go to parquet-go at a time: the scratch
// values stay small and in cache.
const encodePiece = 4096

// encode writes a buffered row group into its ConcurrentRowGroupWriter and
// flushes the last pages, so that Commit only copies bytes.
func (w *Writer) encode(rb *rowGroupBuf) error {
	if cap(rb.vals) < encodePiece {
		rb.vals = make([]parquet.Value, encodePiece)
	}
	cws := rb.rg.ColumnWriters()
	for col := range rb.cols {
		c := &rb.cols[col]
		for lo := 0; lo < rb.n; lo += encodePiece {
			hi := min(lo+encodePiece, rb.n)
			vals := rb.vals[:hi-lo]
			c.values(vals, col, lo, hi)
			if _, err := cws[col].WriteRowValues(vals); err != nil {
				return fmt.Errorf("parquet: writing column %q: %w", w.cols[col].Name, err)
			}
		}
	}
	if err := rb.rg.Flush(); err != nil {
		return fmt.Errorf("parquet: flushing row group: %w", err)
	}
	return nil
}

// values converts rows [lo, hi) to parquet-go values with the definition
// level of an OPTIONAL column (0 = NULL, 1 = present): one loop per
// physical type, NULLs patched in after. Byte values point into the
// buffer; parquet-go copies them. Levels are set inside each loop through
// SetDefinitionLevel/SetColumnIndex, which inline (Value.Level does not;
// a helper taking and returning the Value measured clearly slower).
func (c *colBuf) values(out []parquet.Value, col, lo, hi int) {
	switch c.kind {
	case bufBool:
		for k, x := range c.b[lo:hi] {
			out[k] = parquet.BooleanValue(x)
			out[k].SetDefinitionLevel(1)
			out[k].SetColumnIndex(col)
		}
	case bufI32:
		for k, x := range c.i32[lo:hi] {
			out[k] = parquet.Int32Value(x)
			out[k].SetDefinitionLevel(1)
			out[k].SetColumnIndex(col)
		}
	case bufI64:
		for k, x := range c.i64[lo:hi] {
			out[k] = parquet.Int64Value(x)
			out[k].SetDefinitionLevel(1)
			out[k].SetColumnIndex(col)
		}
	case bufF32:
		for k, x := range c.f32[lo:hi] {
			out[k] = parquet.FloatValue(x)
			out[k].SetDefinitionLevel(1)
			out[k].SetColumnIndex(col)
		}
	case bufF64:
		for k, x := range c.f64[lo:hi] {
			out[k] = parquet.DoubleValue(x)
			out[k].SetDefinitionLevel(1)
			out[k].SetColumnIndex(col)
		}
	case bufBytes:
		off := c.off[lo : hi+1]
		for k := range out {
			a, b := off[k], off[k+1]
			out[k] = parquet.ByteArrayValue(c.data[a:b:b])
			out[k].SetDefinitionLevel(1)
			out[k].SetColumnIndex(col)
		}
	case bufFixed:
		for k := range out {
			a := (lo + k) * c.size
			out[k] = parquet.FixedLenByteArrayValue(c.data[a : a+c.size : a+c.size])
			out[k].SetDefinitionLevel(1)
			out[k].SetColumnIndex(col)
		}
	}
	if c.hasN {
		null := parquet.NullValue().Level(0, 0, col)
		for k, isNull := range c.null[lo:hi] {
			if isNull {
				out[k] = null
			}
		}
	}
}
