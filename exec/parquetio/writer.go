package parquetio

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"strings"
	"unsafe"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/encoding"

	"github.com/lakepg/lakepg/exec/hll"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// Column is one column of a file to write.
type Column struct {
	FieldID int32 // DuckLake column_id, written as the Parquet field_id
	Name    string
	Type    types.T
	// ElemFieldID is an array column's element column_id (the child row
	// named element), written as the field_id of the LIST's element.
	ElemFieldID int32
	// ChildIDs are a nested column's descendant column ids, depth-first
	// in type order (writer_nested.go); nil: consecutive after FieldID.
	ChildIDs []int32
	// Geometry: a bytea column of DuckLake type geometry, whose WKB values
	// go out with Parquet's GEOMETRY logical type as DuckDB writes it (it
	// will not read a plain BYTE_ARRAY as GEOMETRY).
	Geometry bool
	// Variant: a json column of DuckLake type variant, which lakepg reads
	// (variant.go) but cannot write yet.
	Variant bool
}

// WriterOptions tune a Writer.
type WriterOptions struct {
	// RowGroupRows is the number of rows per row group (default 122880,
	// DuckDB's, which is also the unit of parallelism and pruning).
	RowGroupRows int
	// Compression is the codec by DuckDB's parquet_compression names
	// (CheckCompression); "" is lakepg's default, lz4_raw.
	Compression string
	// Key, when set, encrypts the file as DuckDB does for ENCRYPTED lakes
	// (crypt.go). The plain file is built in memory and re-framed on Close,
	// so an encrypted file costs its size in memory while it is written.
	Key Key
	// Encrypt encrypts with a fresh random key of the writer's own when Key
	// is nil: options are shared by the files of a statement, and DuckLake
	// wants one key per file.
	Encrypt bool

	// Test hooks: extra parquet-go options and per-column encodings, so
	// tests can produce the page versions, codecs and encodings other
	// writers use.
	extra    []parquet.WriterOption
	encoding func(Column) encoding.Encoding
	// sequential keeps row group encoding in Write (writer_rowgroups.go),
	// so tests can compare the two paths.
	sequential bool
}

// DefaultCompression is the codec lakepg writes unless the catalog option
// parquet_compression names another. LZ4 decompresses about three times
// as fast as Snappy (DuckDB's default) on number columns, for files of the
// same size, and decompression is most of a scan's CPU; every current
// Parquet reader, DuckDB's included, reads it.
const DefaultCompression = "lz4_raw"

// CheckCompression validates a parquet_compression value.
func CheckCompression(name string) error {
	_, err := compressionCodec(name)
	return err
}

func compressionCodec(name string) (compress.Codec, error) {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "", "lz4", "lz4_raw":
		return fastLZ4{}, nil // lz4_fast.go
	case "snappy":
		return fastSnappy{}, nil // snappy_fast.go
	case "uncompressed":
		return &parquet.Uncompressed, nil
	case "zstd":
		return &parquet.Zstd, nil
	case "gzip":
		return &parquet.Gzip, nil
	case "brotli":
		return &parquet.Brotli, nil
	}
	return nil, pgerr.New(pgerr.InvalidParameterValue,
		"invalid value for parquet_compression: \"%s\" (uncompressed, snappy, zstd, gzip, brotli, lz4 or lz4_raw)", name)
}

// DefaultRowGroupRows is the row group size used when none is given.
const DefaultRowGroupRows = 122880

// FileInfo describes a finished file, as the DuckLake catalog records it.
type FileInfo struct {
	Rows       int64
	Size       int64 // exact bytes written (ducklake_data_file.file_size_bytes)
	FooterSize int64 // the 4-byte footer length before the trailing PAR1
	Stats      []ColumnStats
	// Key is WriterOptions.Key: the file's key for encryption_key, nil for
	// a plain file.
	Key Key
	// RowGroups is the number of row groups (DuckLake 1.1's
	// row_group_count).
	RowGroups int64
}

// ColumnStats is one ducklake_file_column_stats row.
type ColumnStats struct {
	FieldID    int32
	ValueCount int64 // non-NULL values
	NullCount  int64
	SizeBytes  int64 // compressed bytes of the column's chunks
	Min, Max   *string
	// ContainsNaN is set for float columns only.
	ContainsNaN *bool
	// CountsUnknown: value_count and null_count are NULL (writer_nested.go).
	CountsUnknown bool
	// Sketch is the serialized HyperLogLog sketch of the column's
	// distinct non-NULL values (exec/hll), nil for columns not sketched.
	Sketch []byte
}

// Writer writes a DuckLake Parquet file from batches: parquet-go does the
// encoding and the footer; the Writer decides row groups, maps types
// exactly as DuckDB does (notes §9), sets field ids, and keeps the exact
// statistics DuckLake needs. It buffers at most one row group, or, for
// files of scalar columns, GOMAXPROCS+1 row groups encoding on goroutines
// of their own (writer_rowgroups.go).
type Writer struct {
	out *countWriter
	// encrypted files: parquet-go writes the plain file into plain, Close
	// encrypts it onto dst with key
	plain   *bytes.Buffer
	dst     io.Writer
	key     Key
	pw      *parquet.Writer
	cols    []Column
	acc     []statAcc
	rgRows  int
	inGroup int
	rows    int64
	vals    []parquet.Value
	ivBuf   []byte
	list    listScratch  // writer_list.go
	par     *rowGroups   // writer_rowgroups.go; nil: row groups are encoded in Write
	nested  []*nestedCol // per column; nil unless nested (writer_nested.go)
	chunk   []int        // each column's first leaf column chunk
	err     error
	closed  bool
}

// countWriter counts bytes and remembers the last 8, which hold the footer
// length and the magic.
type countWriter struct {
	w    io.Writer
	n    int64
	tail [8]byte
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	if n > 0 {
		c.n += int64(n)
		if n >= 8 {
			copy(c.tail[:], p[n-8:n])
		} else {
			copy(c.tail[:], c.tail[n:])
			copy(c.tail[8-n:], p[:n])
		}
	}
	return n, err
}

// NewWriter starts a Parquet file on w.
func NewWriter(w io.Writer, cols []Column, opt WriterOptions) (*Writer, error) {
	if opt.RowGroupRows <= 0 {
		opt.RowGroupRows = DefaultRowGroupRows
	}
	codec, err := compressionCodec(opt.Compression)
	if err != nil {
		return nil, err
	}
	fields := make([]parquet.Field, len(cols))
	nested := make([]*nestedCol, len(cols))
	chunk := make([]int, len(cols)+1)
	seen := map[string]bool{}
	for i, c := range cols {
		if c.Name == "" || seen[c.Name] {
			return nil, fmt.Errorf("parquet: column names must be unique and non-empty (%q)", c.Name)
		}
		seen[c.Name] = true
		var n parquet.Node
		var err error
		if isNestedWrite(c.Type) { // writer_nested.go
			var nopts []parquet.WriterOption
			n, nopts, nested[i], err = nestedSetup(c)
			opt.extra = append(opt.extra[:len(opt.extra):len(opt.extra)], nopts...)
		} else {
			n, err = columnNode(c)
		}
		if err != nil {
			return nil, err
		}
		if opt.encoding != nil && !c.Variant {
			if e := opt.encoding(c); e != nil {
				n = parquet.FieldID(parquet.Optional(parquet.Encoded(leafOf(c), e)), int(c.FieldID))
			}
		}
		fields[i] = &namedField{Node: n, name: c.Name}
		if noChunkBounds(c.Type) { // decimal128.go
			opt.extra = append(opt.extra[:len(opt.extra):len(opt.extra)], parquet.SkipPageBounds(c.Name))
		}
		chunk[i+1] = chunk[i] + leafCount(c)
		if c.Type.ID == types.Array && noChunkBounds(c.Type.Elem()) {
			opt.extra = append(opt.extra[:len(opt.extra):len(opt.extra)], parquet.SkipPageBounds(c.Name, "list", "element"))
		}
	}
	schema := parquet.NewSchema("duckdb_schema", &orderedGroup{fields: fields})
	var plain *bytes.Buffer
	if opt.Encrypt && opt.Key == nil {
		if opt.Key, err = NewKey(); err != nil {
			return nil, err
		}
	}
	if opt.Key != nil {
		if _, err := newCrypter(opt.Key); err != nil {
			return nil, err
		}
		plain = new(bytes.Buffer)
	}
	cw := &countWriter{w: w}
	if plain != nil {
		cw.w = plain
	}
	opts := []parquet.WriterOption{
		schema,
		parquet.MaxRowsPerRowGroup(int64(opt.RowGroupRows)),
		parquet.Compression(codec),
		// Version 1 data pages are what DuckDB writes and every reader knows.
		parquet.DataPageVersion(1),
		parquet.CreatedBy("lakepg", "0", ""),
		// Unique values: give up on the dictionary past 1 MiB, as DuckDB's
		// writer does, instead of growing a useless one.
		parquet.DictionaryMaxBytes(1 << 20),
	}
	cfg, err := parquet.NewWriterConfig(append(opts, opt.extra...)...)
	if err != nil {
		return nil, fmt.Errorf("parquet: writer config: %w", err)
	}
	wr := &Writer{
		plain:  plain,
		dst:    w,
		key:    opt.Key,
		out:    cw,
		pw:     parquet.NewWriter(cw, cfg),
		cols:   cols,
		acc:    make([]statAcc, len(cols)),
		rgRows: opt.RowGroupRows,
		nested: nested,
		chunk:  chunk,
	}
	if parallelOK(cols) && !opt.sequential {
		// the encodings are settled on the first row group (writer_rowgroups.go)
		wr.par = newRowGroups(fields, append(slices.Clone(opts[1:]), opt.extra...), opt.encoding)
	}
	for i, c := range cols {
		wr.acc[i].t = c.Type
		if c.Type.ID == types.Array {
			wr.acc[i].t = c.Type.Elem() // stats are the element's
		}
		if sketched(c) && nested[i] == nil {
			wr.acc[i].sk = hll.New()
		}
	}
	return wr, nil
}

// columnNode maps a lakepg type to the Parquet type DuckDB writes for the
// matching DuckLake type, OPTIONAL, with the field id.
func columnNode(c Column) (parquet.Node, error) {
	if c.Variant {
		return variantNode(c), nil // writer_variant.go
	}
	if c.Type.ID == types.Array {
		return listNode(c) // writer_list.go
	}
	if c.Type.ID == types.Numeric && !c.Type.Wide() {
		p, s := numericPS(c.Type)
		if s < 0 || p > types.MaxInt64Precision || s > p {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "column %q: type %s cannot be written to Parquet; declare numeric(p,s) with p <= 38", c.Name, c.Type)
		}
	}
	n := leafOf(c)
	if n == nil {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "column %q: type %s cannot be written to Parquet", c.Name, c.Type)
	}
	// Dictionary encoding, as DuckDB's writer uses it: repeated values
	// (dates, codes, prices, names) shrink to small indexes, so there are
	// fewer bytes to decompress and decode; past DictionaryMaxBytes the
	// chunk falls back to plain values.
	switch c.Type.ID {
	case types.Text, types.Bytea, types.Int16, types.Int32, types.Int64,
		types.Float32, types.Float64, types.Date, types.Timestamp, types.Timestamptz,
		types.Time, types.TimeTZ, types.JSON:
		n = parquet.Encoded(n, &parquet.RLEDictionary)
	case types.Numeric:
		if !c.Type.Wide() {
			n = parquet.Encoded(n, &parquet.RLEDictionary)
		}
	}
	return parquet.FieldID(parquet.Optional(n), int(c.FieldID)), nil
}

// leafOf is the Parquet leaf for a column type, nil when unsupported.
func leafOf(c Column) parquet.Node {
	var n parquet.Node
	switch c.Type.ID {
	case types.Bool:
		n = parquet.Leaf(parquet.BooleanType)
	case types.Int16:
		n = parquet.Int(16)
	case types.Int32:
		n = parquet.Int(32)
	case types.Int64:
		n = parquet.Int(64)
	case types.Float32:
		n = parquet.Leaf(parquet.FloatType)
	case types.Float64:
		n = parquet.Leaf(parquet.DoubleType)
	case types.Numeric:
		if c.Type.Wide() {
			if c.Type.Precision > 38 {
				return nil
			}
			n = wideNode(c.Type) // decimal128.go
			break
		}
		p, s := numericPS(c.Type)
		if s < 0 || p > types.MaxInt64Precision || s > p {
			return nil
		}
		if p <= 9 {
			n = parquet.Decimal(s, p, parquet.Int32Type)
		} else {
			n = parquet.Decimal(s, p, parquet.Int64Type)
		}
	case types.Text:
		n = parquet.String()
	case types.Bytea:
		if c.Geometry {
			n = parquet.Geometry("")
			break
		}
		n = parquet.Leaf(parquet.ByteArrayType)
	case types.Date:
		n = parquet.Date()
	case types.Timestamp:
		n = parquet.TimestampAdjusted(parquet.Microsecond, false)
	case types.Timestamptz:
		n = parquet.TimestampAdjusted(parquet.Microsecond, true)
	case types.UUID:
		n = parquet.UUID()
	case types.Interval:
		n = parquet.IntervalNode()
	case types.Time:
		n = parquet.TimeAdjusted(parquet.Microsecond, false)
	case types.TimeTZ:
		n = parquet.TimeAdjusted(parquet.Microsecond, true)
	case types.JSON:
		n = parquet.JSON()
	}
	return n
}

// numericPS returns the precision and scale used for a numeric column; an
// unset precision means the widest scaled int64.
func numericPS(t types.T) (int, int) {
	p := t.Precision
	if p == 0 && t.Scale >= 0 {
		p = types.MaxInt64Precision
	}
	return p, t.Scale
}

// orderedGroup is a Parquet group whose fields keep the given order
// (parquet.Group is a map and sorts them by name; DuckLake files list
// columns in table order).
type orderedGroup struct{ fields []parquet.Field }

func (g *orderedGroup) ID() int                     { return 0 }
func (g *orderedGroup) Type() parquet.Type          { return parquet.Group{}.Type() }
func (g *orderedGroup) Optional() bool              { return false }
func (g *orderedGroup) Repeated() bool              { return false }
func (g *orderedGroup) Required() bool              { return true }
func (g *orderedGroup) Leaf() bool                  { return false }
func (g *orderedGroup) Fields() []parquet.Field     { return g.fields }
func (g *orderedGroup) Encoding() encoding.Encoding { return nil }
func (g *orderedGroup) Compression() compress.Codec { return nil }
func (g *orderedGroup) String() string {
	var b strings.Builder
	b.WriteString("group {")
	for i, f := range g.fields {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(f.Name())
	}
	b.WriteString("}")
	return b.String()
}
func (g *orderedGroup) GoType() reflect.Type {
	sf := make([]reflect.StructField, len(g.fields))
	for i, f := range g.fields {
		sf[i] = reflect.StructField{Name: fmt.Sprintf("F%d", i), Type: f.GoType()}
	}
	return reflect.StructOf(sf)
}

type namedField struct {
	parquet.Node
	name string
}

func (f *namedField) Name() string { return f.name }

// Value is only used by parquet-go's reflection-based row API, which the
// Writer does not use.
func (f *namedField) Value(base reflect.Value) reflect.Value {
	return base.FieldByName(f.name)
}

var errClosed = errors.New("parquet: writer is closed")

// Write appends a batch; b.Vecs[i] holds values of cols[i].Type. Row groups
// are cut exactly every RowGroupRows rows.
func (w *Writer) Write(b *vec.Batch) error {
	if w.closed {
		return errClosed
	}
	if w.err != nil {
		return w.err
	}
	if len(b.Vecs) != len(w.cols) {
		return fmt.Errorf("parquet: batch has %d columns, file has %d", len(b.Vecs), len(w.cols))
	}
	for i, v := range b.Vecs {
		if v.Type.Storage() != w.cols[i].Type.Storage() || v.Len() < b.N {
			return fmt.Errorf("parquet: batch column %d (%s, %d values) does not match file column %q (%s)", i, v.Type, v.Len(), w.cols[i].Name, w.cols[i].Type)
		}
	}
	if w.par != nil {
		return w.writeRowGroups(b)
	}
	done := 0
	for done < b.N {
		k := min(b.N-done, w.rgRows-w.inGroup)
		cws := w.pw.ColumnWriters()
		for i, v := range b.Vecs {
			if w.nested[i] != nil {
				if err := w.writeNested(cws, w.nested[i], w.chunk[i], v, done, done+k); err != nil {
					w.err = err
					return err
				}
				continue
			}
			if w.cols[i].Variant {
				if err := w.writeVariants(cws, i, w.chunk[i], v, done, done+k); err != nil {
					w.err = err
					return err
				}
				continue
			}
			if w.cols[i].Type.ID == types.Array {
				if err := w.writeLists(cws[w.chunk[i]], i, v, done, done+k); err != nil {
					w.err = err
					return err
				}
				continue
			}
			vals, err := w.values(i, v, done, done+k)
			if err != nil {
				w.err = err
				return err
			}
			if _, err := cws[w.chunk[i]].WriteRowValues(vals); err != nil {
				w.err = fmt.Errorf("parquet: writing column %q: %w", w.cols[i].Name, err)
				return w.err
			}
			w.acc[i].add(v, done, done+k)
		}
		done += k
		w.inGroup += k
		w.rows += int64(k)
		if w.inGroup == w.rgRows {
			if err := w.pw.Flush(); err != nil {
				w.err = fmt.Errorf("parquet: flushing row group: %w", err)
				return w.err
			}
			w.inGroup = 0
		}
	}
	return nil
}

// values converts rows [lo, hi) of v to parquet-go values with the
// definition level of an OPTIONAL column (0 = NULL, 1 = present). Strings
// are passed without copying; parquet-go copies them into its buffers.
func (w *Writer) values(col int, v *vec.Vector, lo, hi int) ([]parquet.Value, error) {
	n := hi - lo
	if cap(w.vals) < n {
		w.vals = make([]parquet.Value, n)
	}
	out := w.vals[:n]
	t := w.cols[col].Type
	switch {
	case t.ID == types.Interval:
		w.ivBuf = resize(w.ivBuf, 12*n)
	case t.Wide():
		w.ivBuf = resize(w.ivBuf, 16*n)
	}
	for k := 0; k < n; k++ {
		i := lo + k
		if v.IsNull(i) {
			out[k] = parquet.NullValue().Level(0, 0, col)
			continue
		}
		pv, err := w.scalar(w.cols[col].Name, t, v, i, k)
		if err != nil {
			return nil, err
		}
		out[k] = pv.Level(0, 1, col)
	}
	return out, nil
}

// scalar converts non-NULL row i of v, of type t, to a parquet-go value;
// slot k of ivBuf holds its bytes when the type needs a buffer (interval,
// wide numeric). name is the column's, for errors.
func (w *Writer) scalar(name string, t types.T, v *vec.Vector, i, k int) (parquet.Value, error) {
	var pv parquet.Value
	switch t.ID {
	case types.Bool:
		pv = parquet.BooleanValue(v.B[i])
	case types.Int16, types.Int32, types.Date:
		x := v.I64[i]
		lim := int64(math.MaxInt32)
		if t.ID == types.Int16 {
			lim = math.MaxInt16
		}
		if x > lim || x < -lim-1 {
			return pv, pgerr.New(pgerr.NumericValueOutOfRange, "value %d out of range for column %q (%s)", x, name, t)
		}
		pv = parquet.Int32Value(int32(x))
	case types.Numeric:
		if t.Wide() {
			b := w.ivBuf[16*k : 16*k+16 : 16*k+16]
			if err := wideValue(b, t, v.S[i]); err != nil {
				return pv, err
			}
			pv = parquet.FixedLenByteArrayValue(b)
			break
		}
		x := v.I64[i]
		if p, _ := numericPS(t); p <= 9 {
			if x > math.MaxInt32 || x < math.MinInt32 {
				return pv, pgerr.New(pgerr.NumericValueOutOfRange, "numeric value out of range for column %q (%s)", name, t)
			}
			pv = parquet.Int32Value(int32(x))
		} else {
			pv = parquet.Int64Value(x)
		}
	case types.Int64, types.Timestamp, types.Timestamptz, types.Time:
		pv = parquet.Int64Value(v.I64[i])
	case types.TimeTZ:
		pv = parquet.Int64Value(types.TimeTZUTC(v.I64[i]))
	case types.Float32:
		pv = parquet.FloatValue(float32(v.F64[i]))
	case types.Float64:
		pv = parquet.DoubleValue(v.F64[i])
	case types.Text, types.Bytea, types.JSON:
		pv = parquet.ByteArrayValue(stringBytes(v.S[i]))
	case types.UUID:
		s := v.S[i]
		if len(s) != 16 {
			return pv, fmt.Errorf("parquet: uuid value of %d bytes in column %q", len(s), name)
		}
		pv = parquet.FixedLenByteArrayValue(stringBytes(s))
	case types.Interval:
		// Parquet's INTERVAL holds unsigned months, days and
		// milliseconds: sub-millisecond precision is dropped, as DuckDB
		// does, and what does not fit is refused (DuckDB refuses
		// negative intervals too).
		iv := v.Iv[i]
		ms := iv.Micros / 1000
		if iv.Months < 0 || iv.Days < 0 || ms < 0 || ms > math.MaxUint32 {
			return pv, pgerr.New(pgerr.FeatureNotSupported, "column %q: interval %s cannot be stored in Parquet (negative parts and time parts above %d hours are not representable)",
				name, types.AppendInterval(nil, iv), int64(math.MaxUint32)/3600000)
		}
		b := w.ivBuf[12*k : 12*k+12 : 12*k+12]
		binary.LittleEndian.PutUint32(b, uint32(iv.Months))
		binary.LittleEndian.PutUint32(b[4:], uint32(iv.Days))
		binary.LittleEndian.PutUint32(b[8:], uint32(ms))
		pv = parquet.FixedLenByteArrayValue(b)
	}
	return pv, nil
}

// stringBytes views a string's bytes without copying; the result must not
// be modified.
func stringBytes(s string) []byte {
	return unsafe.Slice(unsafe.StringData(s), len(s))
}

// Close finishes the file (flushes the last row group and writes the
// footer) and returns what the catalog needs to know about it. It does not
// close the underlying io.Writer.
func (w *Writer) Close() (FileInfo, error) {
	if w.closed {
		return FileInfo{}, errClosed
	}
	w.closed = true
	if w.err != nil {
		if w.par != nil {
			w.abortRowGroups()
		}
		return FileInfo{}, w.err
	}
	if w.par != nil {
		if err := w.finishRowGroups(); err != nil {
			w.abortRowGroups()
			w.err = err
			return FileInfo{}, err
		}
	}
	if err := w.pw.Close(); err != nil {
		return FileInfo{}, fmt.Errorf("parquet: closing file: %w", err)
	}
	if string(w.out.tail[4:]) != "PAR1" {
		return FileInfo{}, fmt.Errorf("parquet: file does not end with PAR1")
	}
	info := FileInfo{
		Rows:       w.rows,
		Size:       w.out.n,
		FooterSize: int64(binary.LittleEndian.Uint32(w.out.tail[:4])),
		Stats:      make([]ColumnStats, 0, len(w.cols)),
	}
	if w.plain != nil {
		enc, flen, err := encryptFile(w.plain.Bytes(), w.key)
		if err != nil {
			return FileInfo{}, err
		}
		w.plain = nil
		if _, err := w.dst.Write(enc); err != nil {
			return FileInfo{}, err
		}
		info.Size, info.FooterSize, info.Key = int64(len(enc)), flen, w.key
	}
	sizes := make([]int64, w.chunk[len(w.cols)])
	if md := w.pw.File().Metadata(); md != nil {
		info.RowGroups = int64(len(md.RowGroups))
		for _, rg := range md.RowGroups {
			for j := range rg.Columns {
				if j < len(sizes) {
					sizes[j] += rg.Columns[j].MetaData.TotalCompressedSize
				}
			}
		}
	}
	for i, c := range w.cols {
		if w.nested[i] != nil {
			info.Stats = append(info.Stats, w.nested[i].stats(func(j int) int64 { return sizes[j] })...)
			continue
		}
		id := c.FieldID
		if c.Type.ID == types.Array {
			id = c.ElemFieldID // DuckLake keeps stats for the leaf only
			if c.Type.Elem().ID == types.Interval {
				// DuckDB's catalog rows for interval elements say 0 values,
				// 0 NULLs, no bounds (checked against 1.5.5); so do ours
				info.Stats = append(info.Stats, ColumnStats{FieldID: id})
				continue
			}
		}
		cs := w.acc[i].result(id, sizes[w.chunk[i]])
		if c.Variant {
			// counts only, over both leaves: json text bounds mean nothing
			// to DuckDB's variant
			cs.SizeBytes += sizes[w.chunk[i]+1]
			cs.Min, cs.Max = nil, nil
		}
		if c.Geometry {
			// DuckDB keeps a bounding box in extra_stats, never byte-wise
			// bounds: it would read min_value as a geometry
			cs.Min, cs.Max = nil, nil
		}
		info.Stats = append(info.Stats, cs)
	}
	return info, nil
}
