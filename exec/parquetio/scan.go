package parquetio

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// Projection names one output column of a scan.
type Projection struct {
	// FieldID matches the Parquet field_id (DuckLake column_id). Reserved
	// ids such as FieldRowID are matched by id only.
	FieldID int32
	// Name is used in messages; Pos is the top-level position used to match
	// files that carry no field ids at all.
	Name string
	Pos  int
	// ByName matches the top-level column called Name (case-insensitively,
	// as DuckDB does) whatever the field ids say: files registered with a
	// DuckLake name mapping. No such column reads as Default.
	ByName bool
	// Type is the wanted type. Values are converted from the file's type:
	// integers widen, float32 becomes float64, decimals are rescaled,
	// timestamps in millis/nanos become micros.
	Type types.T
	// Default is a one-row constant used when the file lacks the column
	// (DuckLake initial_default); nil means NULL.
	Default *vec.Vector
}

// Range is what a row group's statistics say about one projected column,
// typed like the vector storage of the projection's type (dates in days,
// timestamps in µs, decimals scaled to Type.Scale). Known is false when the
// file has no usable min/max; HasNullCount is false when it has no null
// count. AllNull says every value is NULL (no comparison holds). For a
// column missing from the file the range describes the constant the scan
// will produce.
type Range struct {
	Known        bool
	AllNull      bool
	NullCount    int64
	HasNullCount bool
	MinI, MaxI   int64
	MinF, MaxF   float64
	MinS, MaxS   string
	MinB, MaxB   bool
}

// ScanOptions tune a scan.
type ScanOptions struct {
	// Keep decides from the row group's ranges (one per projection) whether
	// to read it; nil keeps every row group. Pruned row groups are never
	// read or decompressed. The ranges slice is reused between calls.
	Keep func(rg int, ranges []Range) bool
	// RowGroups restricts the scan to these row groups, in this order (nil
	// = all). Morsel-parallel scans give each worker its own subset.
	RowGroups []int
}

// resolved is a projection bound to a file column (or to its default).
type resolved struct {
	top  int // index into File.top; -1 when missing
	plan plan
	nest *nestBind // a nested field (nested.go)
	err  error
}

func (f *File) resolve(proj []Projection) []resolved {
	out := make([]resolved, len(proj))
	for i := range proj {
		p := &proj[i]
		r := resolved{top: f.lookup(p)}
		if r.top >= 0 {
			tf := &f.top[r.top]
			if tf.nested {
				r.nest, r.err = bindNested(colName(p, tf), tf, p.Type)
			} else {
				r.plan, r.err = makePlan(colName(p, tf), tf.elem, p.Type)
			}
		} else if p.Default != nil {
			if p.Default.Type.Storage() != p.Type.Storage() || p.Default.Len() < 1 {
				r.err = fmt.Errorf("parquet: default for column %q must be a one-row vector of type %s", p.Name, p.Type)
			}
		}
		out[i] = r
	}
	return out
}

func colName(p *Projection, tf *topField) string {
	if p.Name != "" {
		return p.Name
	}
	return tf.elem.name
}

// RowGroupRanges returns the statistics of row group rg for each projection.
func (f *File) RowGroupRanges(rg int, proj []Projection) []Range {
	out := make([]Range, len(proj))
	f.rowGroupRanges(out, rg, proj, f.resolve(proj))
	return out
}

func (f *File) rowGroupRanges(out []Range, rg int, proj []Projection, res []resolved) {
	g := &f.meta.rowGroups[rg]
	for i := range proj {
		r := &res[i]
		if r.err != nil {
			out[i] = Range{}
			continue
		}
		if r.top < 0 {
			out[i] = defaultRange(proj[i].Default, g.numRows)
			continue
		}
		if r.nest != nil {
			// leaf statistics say nothing about whole values
			out[i] = Range{}
			continue
		}
		out[i] = chunkRange(&g.columns[f.top[r.top].leaf], &r.plan)
	}
}

func defaultRange(d *vec.Vector, rows int64) Range {
	if d == nil || d.IsNull(0) {
		return Range{AllNull: rows > 0, NullCount: rows, HasNullCount: true}
	}
	r := Range{Known: true, HasNullCount: true}
	switch d.Type.Storage() {
	case types.StoreInt:
		r.MinI, r.MaxI = d.I64[0], d.I64[0]
	case types.StoreFloat:
		r.MinF, r.MaxF = d.F64[0], d.F64[0]
		if math.IsNaN(r.MinF) {
			r.Known = false
		}
	case types.StoreBool:
		r.MinB, r.MaxB = d.B[0], d.B[0]
	case types.StoreInterval:
		r.Known = false // intervals have no min/max
	default:
		r.MinS, r.MaxS = d.S[0], d.S[0]
	}
	return r
}

// chunkRange decodes a column chunk's statistics through the read plan, so
// the bounds are in the same units as the values the scan produces.
func chunkRange(cm *chunkMeta, p *plan) Range {
	var r Range
	if !cm.hasStats {
		return r
	}
	st := &cm.stats
	if st.hasNullCount {
		r.NullCount, r.HasNullCount = st.nullCount, true
		r.AllNull = cm.numValues > 0 && st.nullCount == cm.numValues
	}
	lo, hi, ok := st.minValue, st.maxValue, st.hasMinV && st.hasMaxV
	if !ok && signedStatsOK(&p.src) {
		// The deprecated fields use signed order, right for these types only.
		lo, hi, ok = st.min, st.max, st.hasMin && st.hasMax
	}
	if ok {
		boundsRange(&r, lo, hi, p)
	}
	return r
}

// boundsRange sets r's bounds from a min and max as the file stores them
// (column order), decoded through the read plan; r stays unknown when they
// cannot be.
func boundsRange(r *Range, lo, hi []byte, p *plan) {
	if p.raw == types.StoreInterval || p.toText != convNone {
		// Interval statistics use an order no one agrees on, and wide
		// numerics' are not in their vectors' text form; ignore them.
		return
	}
	switch p.raw {
	case types.StoreInt:
		a, ok1 := statInt(lo, p)
		b, ok2 := statInt(hi, p)
		if !ok1 || !ok2 {
			return
		}
		tmp := [2]int64{a, b}
		if p.intConv() && !convertInts(tmp[:], p) {
			return
		}
		if p.out == types.StoreFloat {
			r.MinF, r.MaxF = float64(tmp[0])/p.fdiv, float64(tmp[1])/p.fdiv
		} else {
			r.MinI, r.MaxI = tmp[0], tmp[1]
		}
	case types.StoreFloat:
		a, ok1 := statFloat(lo, p.src.phys)
		b, ok2 := statFloat(hi, p.src.phys)
		if !ok1 || !ok2 || math.IsNaN(a) || math.IsNaN(b) {
			return
		}
		r.MinF, r.MaxF = a, b
	case types.StoreBool:
		if len(lo) < 1 || len(hi) < 1 {
			return
		}
		r.MinB, r.MaxB = lo[0]&1 != 0, hi[0]&1 != 0
	default:
		if p.src.phys == physFixed && (len(lo) != p.src.typeLen || len(hi) != p.src.typeLen) {
			return
		}
		r.MinS, r.MaxS = string(lo), string(hi)
	}
	r.Known = true
}

func signedStatsOK(s *srcInfo) bool {
	switch s.phys {
	case physBoolean, physFloat, physDouble:
		return true
	case physInt32, physInt64:
		return s.kind != skUint
	}
	return false
}

func statInt(b []byte, p *plan) (int64, bool) {
	switch {
	case p.decBytes:
		return beInt(b)
	case p.src.phys == physInt32:
		if len(b) != 4 {
			return 0, false
		}
		u := binary.LittleEndian.Uint32(b)
		if p.unsigned {
			return int64(u), true
		}
		return int64(int32(u)), true
	case p.src.phys == physInt64:
		if len(b) != 8 {
			return 0, false
		}
		return int64(binary.LittleEndian.Uint64(b)), true
	case p.int96:
		if len(b) != 12 {
			return 0, false
		}
		return int96Micros(b), true
	}
	return 0, false
}

func statFloat(b []byte, phys int32) (float64, bool) {
	switch {
	case phys == physFloat && len(b) == 4:
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(b))), true
	case phys == physDouble && len(b) == 8:
		return math.Float64frombits(binary.LittleEndian.Uint64(b)), true
	}
	return 0, false
}

// Scanner streams a file's projected columns in batches.
type Scanner struct {
	f      *File
	proj   []Projection
	opt    ScanOptions
	res    []resolved
	cols   []*colReader    // nil for columns the file lacks
	nested []*nestedReader // nil unless a projection is nested
	ranges []Range

	groups []int
	gi     int // next index into groups

	// the current row group: the runs of its rows to read (pageindex.go),
	// the run being read and the row of the group read next
	rg      int
	sel     []rowSpan
	si      int
	rgRow   int64
	spanBuf []rowSpan

	// filtered projections whose pages the filter may rule out, found on
	// the first row group; probe is Keep's ranges when asking about a page
	pageCols     []pageCol
	pageColsDone bool
	probe        []Range
	skipVecs     []*vec.Vector // nested columns' discarded rows

	scanned     int
	pruned      int
	pagesPruned int
	rowsSkipped int64
	err         error
	allNull     []bool     // shared all-NULL mask for missing columns
	batchN      int        // rows of the batch Begin started
	chunkRanges [][2]int64 // column-chunk ranges announced by prefetch
}

// Scan starts a scan of the projected columns. Errors in the projection
// (an unreadable type, say) are reported by the first Next.
func (f *File) Scan(proj []Projection, opt ScanOptions) *Scanner {
	s := &Scanner{f: f, proj: proj, opt: opt, res: f.resolve(proj)}
	for i := range s.res {
		if s.res[i].err != nil {
			s.err = s.res[i].err
			return s
		}
	}
	s.cols = make([]*colReader, len(proj))
	for i, r := range s.res {
		if r.top < 0 {
			continue
		}
		tf := &f.top[r.top]
		if r.nest != nil {
			if s.nested == nil {
				s.nested = make([]*nestedReader, len(proj))
			}
			s.nested[i] = newNestedReader(f, colName(&proj[i], tf), r.nest)
			continue
		}
		c := newColReader()
		c.f, c.name, c.leaf, c.want, c.plan = f, colName(&proj[i], tf), tf.leaf, proj[i].Type, r.plan
		if tf.elem.hasRep && tf.elem.rep == repOptional {
			c.maxDef = 1
		}
		s.cols[i] = c
	}
	if opt.RowGroups != nil {
		for _, g := range opt.RowGroups {
			if g < 0 || g >= len(f.meta.rowGroups) {
				s.err = fmt.Errorf("parquet: row group %d out of range (file has %d)", g, len(f.meta.rowGroups))
				return s
			}
		}
		s.groups = opt.RowGroups
	} else {
		s.groups = make([]int, len(f.meta.rowGroups))
		for i := range s.groups {
			s.groups[i] = i
		}
	}
	if opt.Keep != nil {
		s.ranges = make([]Range, len(proj))
		s.probe = make([]Range, len(proj))
	}
	return s
}

// RowGroupsScanned is the number of row groups read so far.
func (s *Scanner) RowGroupsScanned() int { return s.scanned }

// Release hands the scanner's decoding buffers (column chunks, pages,
// dictionaries) to later scans; a parallel scan starts one Scanner per row
// group, and allocating and zeroing megabytes for each was a quarter of a
// scan's time. The Scanner must not be used afterwards. Batches it filled
// stay valid: strings are copied out of the buffers.
func (s *Scanner) Release() {
	for i, c := range s.cols {
		if c != nil {
			c.recycle()
			colReaderPool.Put(c)
			s.cols[i] = nil
		}
	}
	for i, nr := range s.nested {
		if nr != nil {
			nr.release()
			s.nested[i] = nil
		}
	}
}

// HeldBytes is the memory the scan's column readers hold now (nested
// columns' readers aside).
func (s *Scanner) HeldBytes() int64 {
	var n int64
	for _, c := range s.cols {
		if c != nil {
			n += c.heldBytes()
		}
	}
	return n
}

// RowGroupsPruned is the number of row groups skipped by Keep so far,
// from their statistics or because the page index ruled out every page.
func (s *Scanner) RowGroupsPruned() int { return s.pruned }

// PageStats counts the data pages the scan decoded and those it passed
// over undecoded (of every projected column), and the rows it skipped
// because page statistics ruled them out.
func (s *Scanner) PageStats() (read, skipped int, rowsSkipped int64) {
	count := func(c *colReader) {
		read += c.pagesRead
		skipped += c.pagesSkipped
	}
	for _, c := range s.cols {
		if c != nil {
			count(c)
		}
	}
	for _, nr := range s.nested {
		if nr != nil {
			for _, c := range nr.cols {
				count(c)
			}
		}
	}
	return read, skipped, s.rowsSkipped
}

// Next resets b and fills it with up to vec.BatchSize rows (never crossing a
// row group). b.Vecs[i] gets proj[i].Type; vectors of another storage class
// are replaced. rowStart is the 0-based position in the file of the batch's
// first row, which positional deletes need. The vectors' buffers (and NULL
// masks) are reused by the next call: copy what you keep.
func (s *Scanner) Next(b *vec.Batch) (rowStart int64, ok bool, err error) {
	rowStart, n, ok, err := s.Begin(b)
	if !ok || err != nil {
		return rowStart, ok, err
	}
	for i := range s.proj {
		if err := s.Column(b, i); err != nil {
			return 0, false, err
		}
	}
	b.N = n
	return rowStart, true, nil
}

// Begin starts a batch column by column, for a caller that filters on some
// columns before it decodes the others (a fact table's measures only for
// the rows a join with a filtered dimension keeps): it is Next without the
// reading, which Column and ColumnAt then do. Every projected column must be read
// once before the next Begin. b.N is the batch's size. Scans of nested
// columns cannot be read so (Selective).
func (s *Scanner) Begin(b *vec.Batch) (rowStart int64, n int, ok bool, err error) {
	rowStart, n, ok, err = s.begin(b)
	b.N = n
	s.batchN = n
	return rowStart, n, ok, err
}

// Column decodes the n rows of projection i of the batch Begin started
// into b.Vecs[i].
func (s *Scanner) Column(b *vec.Batch, i int) error {
	if s.err != nil {
		return s.err
	}
	return s.readColumn(b.Vecs[i], i, s.batchN)
}

// ColumnAt decodes projection i of the batch Begin started at the rows
// sel (ascending positions in the batch) only: b.Vecs[i] gets len(sel)
// values.
func (s *Scanner) ColumnAt(b *vec.Batch, i int, sel []int32) error {
	if s.err != nil {
		return s.err
	}
	var err error
	switch v := b.Vecs[i]; {
	case s.cols[i] != nil:
		err = s.cols[i].readSel(v, s.batchN, sel)
	case s.nested != nil && s.nested[i] != nil:
		err = errNestedSelective
	default:
		s.fillConstant(v, s.proj[i].Default, len(sel))
	}
	if err != nil {
		s.err = err
	}
	return err
}

var errNestedSelective = errors.New("parquet: nested columns are read whole")

// Selective reports whether ColumnAt can read this scan's columns at
// selected rows: they are all flat.
func (s *Scanner) Selective() bool { return s.nested == nil }

// begin moves to the next run of rows to read, sizes b's vectors for the
// projection and returns the batch's first row in the file and its size.
func (s *Scanner) begin(b *vec.Batch) (rowStart int64, n int, ok bool, err error) {
	if s.err != nil {
		return 0, 0, false, s.err
	}
	for s.si >= len(s.sel) {
		if s.gi >= len(s.groups) {
			return 0, 0, false, nil
		}
		g := s.groups[s.gi]
		s.gi++
		if s.f.meta.rowGroups[g].numRows == 0 {
			continue
		}
		if s.opt.Keep != nil {
			s.f.rowGroupRanges(s.ranges, g, s.proj, s.res)
			if !s.opt.Keep(g, s.ranges) {
				s.pruned++
				continue
			}
		}
		if err := s.startRowGroup(g); err != nil {
			s.err = err
			return 0, 0, false, err
		}
	}
	span := s.sel[s.si]
	if s.rgRow < span.lo {
		if err := s.skipRows(span.lo - s.rgRow); err != nil {
			s.err = err
			return 0, 0, false, err
		}
		s.rgRow = span.lo
	}
	n = int(min(span.hi-s.rgRow, vec.BatchSize))
	if len(b.Vecs) != len(s.proj) {
		b.Vecs = make([]*vec.Vector, len(s.proj))
	}
	for i := range s.proj {
		t := s.proj[i].Type
		v := b.Vecs[i]
		if v == nil || v.Type.Storage() != t.Storage() {
			v = vec.New(t, n)
			b.Vecs[i] = v
		}
		v.Reset()
		v.Type = t
	}
	rowStart = s.f.starts[s.rg] + s.rgRow
	s.rgRow += int64(n)
	if s.rgRow == span.hi {
		s.si++
	}
	return rowStart, n, true, nil
}

// readColumn decodes the next n rows of projection i into v.
func (s *Scanner) readColumn(v *vec.Vector, i, n int) error {
	var err error
	if s.nested != nil && s.nested[i] != nil {
		err = s.nested[i].read(v, n)
	} else if c := s.cols[i]; c != nil {
		err = c.read(v, n)
	} else {
		s.fillConstant(v, s.proj[i].Default, n)
	}
	if err != nil {
		s.err = err
	}
	return err
}

// startRowGroup decides which rows of row group g to read and starts the
// column readers on it. A row group whose every page the filter rules out
// counts as pruned and leaves sel empty.
func (s *Scanner) startRowGroup(g int) error {
	rows := s.f.meta.rowGroups[g].numRows
	var sel []rowSpan
	if s.opt.Keep != nil {
		if !s.pageColsDone {
			s.pageCols, s.pageColsDone = s.filteredCols(g), true
		}
		if len(s.pageCols) > 0 {
			var pruned int
			var err error
			sel, pruned, _, err = s.f.pageSelection(g, s.pageCols, s.opt.Keep, s.probe, s.spanBuf)
			if err != nil {
				return err
			}
			s.pagesPruned += pruned
		}
	}
	paged := sel != nil
	if !paged {
		sel = append(s.spanBuf[:0], rowSpan{0, rows})
	}
	s.spanBuf = sel[:0]
	s.rg, s.sel, s.si, s.rgRow = g, sel, 0, 0
	if len(sel) == 0 {
		s.pruned++
		return nil
	}
	if paged {
		s.rowsSkipped += rows
		for _, sp := range sel {
			s.rowsSkipped -= sp.hi - sp.lo
		}
	}
	for _, c := range s.cols {
		if c == nil {
			continue
		}
		c.locs, c.sel = nil, nil
		if paged {
			cp, ok, err := s.f.chunkPages(g, c.leaf, false)
			if err != nil {
				return err
			}
			if ok {
				c.locs, c.sel = cp.locs, sel
			}
		}
	}
	if err := s.prefetch(g); err != nil {
		return err
	}
	for _, c := range s.cols {
		if c == nil {
			continue
		}
		if err := c.startChunk(g); err != nil {
			return err
		}
	}
	for _, nr := range s.nested {
		if nr == nil {
			continue
		}
		if err := nr.startChunk(g); err != nil {
			return err
		}
	}
	s.scanned++
	return nil
}

// filteredCols finds the projections Keep constrains: those for which it
// rules out a row group whose values are all NULL. Floating-point columns
// are left out: writers keep NaN out of page bounds, and NaN sorts above
// every number in PostgreSQL.
func (s *Scanner) filteredCols(g int) []pageCol {
	var out []pageCol
	for i, c := range s.cols {
		if c == nil || c.plan.raw == types.StoreFloat {
			continue
		}
		clear(s.probe)
		s.probe[i] = Range{AllNull: true, NullCount: 1, HasNullCount: true}
		if !s.opt.Keep(g, s.probe) {
			out = append(out, pageCol{slot: i, leaf: c.leaf, plan: &c.plan})
		}
	}
	return out
}

// skipRows passes over the next n rows of the current row group in every
// column.
func (s *Scanner) skipRows(n int64) error {
	for _, c := range s.cols {
		if c != nil {
			if err := c.skip(n); err != nil {
				return err
			}
		}
	}
	for i, nr := range s.nested {
		if nr == nil {
			continue
		}
		if s.skipVecs == nil {
			s.skipVecs = make([]*vec.Vector, len(s.nested))
		}
		if s.skipVecs[i] == nil {
			s.skipVecs[i] = vec.New(s.proj[i].Type, vec.BatchSize)
		}
		v := s.skipVecs[i]
		for left := n; left > 0; {
			k := int(min(left, vec.BatchSize))
			v.Reset()
			if err := nr.read(v, k); err != nil {
				return err
			}
			left -= int64(k)
		}
	}
	return nil
}

// fillConstant fills v with n copies of d's first row (NULLs when d is nil).
func (s *Scanner) fillConstant(v *vec.Vector, d *vec.Vector, n int) {
	null := d == nil || d.IsNull(0)
	switch v.Type.Storage() {
	case types.StoreInt:
		v.I64 = resize(v.I64, n)
		x := int64(0)
		if !null {
			x = d.I64[0]
		}
		for i := range v.I64 {
			v.I64[i] = x
		}
	case types.StoreFloat:
		v.F64 = resize(v.F64, n)
		x := 0.0
		if !null {
			x = d.F64[0]
		}
		for i := range v.F64 {
			v.F64[i] = x
		}
	case types.StoreBool:
		v.B = resize(v.B, n)
		x := false
		if !null {
			x = d.B[0]
		}
		for i := range v.B {
			v.B[i] = x
		}
	case types.StoreInterval:
		v.Iv = resize(v.Iv, n)
		var x types.IntervalValue
		if !null {
			x = d.Iv[0]
		}
		for i := range v.Iv {
			v.Iv[i] = x
		}
	default:
		v.S = resize(v.S, n)
		x := ""
		if !null {
			x = d.S[0]
		}
		for i := range v.S {
			v.S[i] = x
		}
	}
	if null {
		if len(s.allNull) < n {
			s.allNull = make([]bool, max(n, vec.BatchSize))
			for i := range s.allNull {
				s.allNull[i] = true
			}
		}
		v.Nulls = s.allNull[:n]
	} else {
		v.Nulls = nil
	}
}
