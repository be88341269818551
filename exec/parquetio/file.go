package parquetio

import (
	"fmt"
	"io"
	"strings"

	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// Reserved DuckLake field ids (Iceberg's reserved range).
const (
	FieldRowID      int32 = 2147483540 // _ducklake_internal_row_id
	FieldSnapshotID int32 = 2147483539 // _ducklake_internal_snapshot_id
	FieldFilePath   int32 = 2147483646 // delete files: file_path
	FieldPos        int32 = 2147483645 // delete files: pos
)

// reservedFieldIDs: ids above this are Iceberg/DuckLake reserved columns.
const reservedFieldIDs = 2147483647 - 200

// maxFooterSize guards against a corrupt length field making us allocate
// gigabytes.
const maxFooterSize = 256 << 20

// File is an opened Parquet file: its parsed footer and a way to read column
// chunks. It is immutable after Open (the page index is read once, on first
// use), so any number of Scanners (one per worker) may use it concurrently.
type File struct {
	r      io.ReaderAt
	size   int64
	meta   *fileMeta
	top    []topField      // top-level schema fields, in file order
	byID   map[int32]int   // field id → index in top
	hasIDs bool            // at least one top-level field has a field id
	starts []int64         // first row (file position) of each row group
	pidx   pageIndexRegion // read on first use (pageindex.go)
	// crypt decrypts the modules of an encrypted ("PARE") file; nil for
	// plain files (crypt.go).
	crypt *crypter
}

// topField is one top-level field of the file schema.
type topField struct {
	elem   *schemaElem
	leaf   int  // column chunk index of this primitive; -1 for groups
	nested bool // a group (struct/list/map) or a repeated primitive
	// node is the shape of a nested field (nested_schema.go); nestErr says
	// why there is none.
	node    *nestNode
	nestErr error
}

// Open parses the footer of the Parquet file of the given size. It reads
// only the footer (one read for the tail, one for the metadata).
func Open(r io.ReaderAt, size int64) (*File, error) { return OpenKey(r, size, nil) }

// OpenKey is Open for a file that may be encrypted with key (DuckLake's
// encryption_key; nil when the catalog has none). A plain file opens whatever
// the key; an encrypted one needs its key.
func OpenKey(r io.ReaderAt, size int64, key Key) (*File, error) {
	if size < 12 {
		return nil, fmt.Errorf("parquet: file of %d bytes is too small to be Parquet", size)
	}
	var tail [8]byte
	if err := readFull(r, tail[:], size-8); err != nil {
		return nil, fmt.Errorf("parquet: reading footer: %w", err)
	}
	flen, encrypted, err := readFooterLength(tail[:])
	if err != nil {
		return nil, fmt.Errorf("parquet: %w", err)
	}
	var crypt *crypter
	if encrypted {
		if key == nil {
			return nil, errNoKey()
		}
		if crypt, err = newCrypter(key); err != nil {
			return nil, err
		}
	}
	if flen <= 0 || flen > size-12 || flen > maxFooterSize {
		return nil, fmt.Errorf("parquet: footer length %d does not fit a file of %d bytes", flen, size)
	}
	buf := make([]byte, flen)
	if err := readFull(r, buf, size-8-flen); err != nil {
		return nil, fmt.Errorf("parquet: reading footer: %w", err)
	}
	if crypt != nil {
		if buf, err = crypt.decryptFooter(buf); err != nil {
			return nil, err
		}
	}
	meta, err := decodeFileMeta(buf)
	if err != nil {
		return nil, fmt.Errorf("parquet: decoding footer: %w", err)
	}
	if meta.encrypted {
		// Plaintext-footer mode with per-column keys: not what DuckDB writes.
		return nil, pgerr.New(pgerr.FeatureNotSupported, "Parquet files encrypted with a plaintext footer are not supported")
	}
	f := &File{r: r, size: size, meta: meta, byID: map[int32]int{}, crypt: crypt}
	if err := f.buildSchema(); err != nil {
		return nil, err
	}
	f.starts = make([]int64, len(meta.rowGroups))
	var pos int64
	for i, g := range meta.rowGroups {
		if len(g.columns) != f.numLeaves() {
			return nil, fmt.Errorf("parquet: row group %d has %d column chunks, schema has %d leaves", i, len(g.columns), f.numLeaves())
		}
		if g.numRows < 0 {
			return nil, fmt.Errorf("parquet: row group %d has a negative row count", i)
		}
		f.starts[i] = pos
		pos += g.numRows
	}
	return f, nil
}

// readFull is ReadAt that accepts io.EOF alongside a complete read, which
// the io.ReaderAt contract allows at the end of the input.
func readFull(r io.ReaderAt, p []byte, off int64) error {
	n, err := r.ReadAt(p, off)
	if n == len(p) {
		return nil
	}
	if err == nil || err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return err
}

func (f *File) numLeaves() int {
	n := 0
	for _, e := range f.meta.schema {
		if e.numChildren == 0 && e.hasType {
			n++
		}
	}
	return n
}

// buildSchema walks the flattened schema tree, recording each top-level
// field and the column chunk index of top-level primitives.
func (f *File) buildSchema() error {
	s := f.meta.schema
	if len(s) == 0 {
		return fmt.Errorf("parquet: empty schema")
	}
	leaf := 0
	// walk returns the index after the subtree rooted at i and counts leaves.
	var walk func(i, depth int) (int, error)
	walk = func(i, depth int) (int, error) {
		if i >= len(s) || depth > 100 {
			return 0, fmt.Errorf("parquet: malformed schema")
		}
		e := &s[i]
		if e.numChildren <= 0 {
			if !e.hasType {
				// An empty group: no leaves.
				return i + 1, nil
			}
			leaf++
			return i + 1, nil
		}
		j := i + 1
		for c := int32(0); c < e.numChildren; c++ {
			var err error
			if j, err = walk(j, depth+1); err != nil {
				return 0, err
			}
		}
		return j, nil
	}
	root := &s[0]
	j := 1
	for c := int32(0); c < root.numChildren; c++ {
		if j >= len(s) {
			return fmt.Errorf("parquet: malformed schema")
		}
		e := &s[j]
		tf := topField{elem: e, leaf: -1}
		if e.numChildren > 0 || !e.hasType {
			tf.nested = true
		} else {
			tf.leaf = leaf
			tf.nested = e.hasRep && e.rep == repRepeated
		}
		if tf.nested {
			first := leaf
			tf.node, _, tf.nestErr = buildNest(s, j, &first, 0, 0, 1)
		}
		next, err := walk(j, 1)
		if err != nil {
			return err
		}
		j = next
		if e.hasFieldID {
			f.hasIDs = true
			if _, dup := f.byID[e.fieldID]; !dup {
				f.byID[e.fieldID] = len(f.top)
			}
		}
		f.top = append(f.top, tf)
	}
	return nil
}

// NumRows is the file's row count.
func (f *File) NumRows() int64 { return f.meta.numRows }

// NumRowGroups is the number of row groups.
func (f *File) NumRowGroups() int { return len(f.meta.rowGroups) }

// RowGroupNumRows is the row count of row group rg.
func (f *File) RowGroupNumRows(rg int) int64 { return f.meta.rowGroups[rg].numRows }

// RowGroupStart is the file position of the first row of row group rg.
func (f *File) RowGroupStart(rg int) int64 { return f.starts[rg] }

// HasField reports whether a top-level field carries the given field id.
func (f *File) HasField(id int32) bool {
	_, ok := f.byID[id]
	return ok
}

// HasFieldIDs reports whether the file's columns carry field ids at all;
// files without them are matched by position.
func (f *File) HasFieldIDs() bool { return f.hasIDs }

// CreatedBy is the writer string in the footer.
func (f *File) CreatedBy() string { return f.meta.createdBy }

// Field describes one top-level column of a file.
type Field struct {
	Name       string
	FieldID    int32
	HasFieldID bool
	// Type is the lakepg type the column reads as by default; TypeOK is
	// false for nested columns and physical types lakepg cannot read.
	Type   types.T
	TypeOK bool
	Nested bool
}

// Fields lists the top-level columns in file order.
func (f *File) Fields() []Field {
	out := make([]Field, len(f.top))
	for i, tf := range f.top {
		fl := Field{Name: tf.elem.name, FieldID: tf.elem.fieldID, HasFieldID: tf.elem.hasFieldID, Nested: tf.nested}
		if !tf.nested {
			fl.Type, fl.TypeOK = naturalType(tf.elem)
		}
		out[i] = fl
	}
	return out
}

// lookup finds the top-level field a projection refers to: by field id when
// the file has field ids, else by position. -1 means absent.
func (f *File) lookup(p *Projection) int {
	if p.ByName {
		for i := range f.top {
			if strings.EqualFold(f.top[i].elem.name, p.Name) {
				return i
			}
		}
		return -1
	}
	if f.hasIDs {
		if i, ok := f.byID[p.FieldID]; ok {
			return i
		}
		return -1
	}
	if p.FieldID > reservedFieldIDs && p.FieldID != 0 {
		// Reserved columns are only ever found by id.
		return -1
	}
	if p.Pos >= 0 && p.Pos < len(f.top) {
		return p.Pos
	}
	return -1
}

// RowGroupBytes is the compressed size of the column chunks row group rg
// holds for the projection (what a scan of it reads), and of all its
// column chunks.
func (f *File) RowGroupBytes(rg int, proj []Projection) (needed, total int64) {
	g := &f.meta.rowGroups[rg]
	for i := range g.columns {
		total += g.columns[i].totalCompressed
	}
	for _, r := range f.resolve(proj) {
		switch {
		case r.err != nil || r.top < 0:
		case r.nest != nil:
			for l := r.nest.node.lo; l < r.nest.node.hi; l++ {
				needed += g.columns[l].totalCompressed
			}
		default:
			needed += g.columns[f.top[r.top].leaf].totalCompressed
		}
	}
	return needed, total
}
