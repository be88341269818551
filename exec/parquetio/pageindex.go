package parquetio

import (
	"slices"
	"sync"
)

// Page-level pruning from the Parquet page index. A writer may store, per
// column chunk, an offset index (where each data page starts and its first
// row) and a column index (each page's min, max and whether it is all
// NULL). lakepg's writer stores both. When a scan has a filter, the pages of
// each filtered column whose bounds rule the filter out give row runs no
// row of which can match; their union is skipped in every projected column:
// pages wholly inside it are neither read nor decompressed, pages straddling
// its edges are decoded and the skipped rows dropped. Batches never span a
// skipped run, so row positions (positional deletes) stay exact.

// pageLoc is one offset-index entry: a data page of a column chunk.
type pageLoc struct {
	off      int64 // file offset of the page header
	size     int32 // compressed page size, header included
	firstRow int64 // the page's first row, within the row group
}

// chunkPages is what the page index says about one column chunk.
type chunkPages struct {
	locs []pageLoc
	// column index, one entry per page; nullPages is nil when the chunk
	// has none
	nullPages  []bool
	mins, maxs [][]byte
	nullCounts []int64
}

// rowSpan is the rows [lo, hi) of a row group.
type rowSpan struct{ lo, hi int64 }

// maxPageIndexBytes bounds what one file's page index may make us read; a
// region larger than this is not an index worth reading.
const maxPageIndexBytes = 64 << 20

// pageIndexRegion is the file region holding every chunk's page index, read on
// the first call; nil when the file has no page index.
type pageIndexRegion struct {
	once sync.Once
	buf  []byte
	off  int64
	err  error
}

func (f *File) pageIndexBytes() ([]byte, int64, error) {
	p := &f.pidx
	p.once.Do(func() {
		if f.crypt != nil {
			// DuckDB's encrypted files: page index not used (its offsets
			// would be of framed modules); whole chunks are read.
			return
		}
		lo, hi := int64(-1), int64(-1)
		add := func(off int64, n int32) {
			if n <= 0 || off < 4 || off+int64(n) > f.size-8 {
				return
			}
			if lo < 0 || off < lo {
				lo = off
			}
			hi = max(hi, off+int64(n))
		}
		for g := range f.meta.rowGroups {
			for c := range f.meta.rowGroups[g].columns {
				cm := &f.meta.rowGroups[g].columns[c]
				add(cm.offsetIndexOff, cm.offsetIndexLen)
				add(cm.columnIndexOff, cm.columnIndexLen)
			}
		}
		if lo < 0 || hi-lo > maxPageIndexBytes {
			return
		}
		buf := make([]byte, hi-lo)
		if err := readFull(f.r, buf, lo); err != nil {
			p.err = err
			return
		}
		p.buf, p.off = buf, lo
	})
	return p.buf, p.off, p.err
}

// chunkPages decodes the page index of column chunk leaf of row group rg.
// ok is false when there is no usable offset index: absent, malformed, or
// not describing the chunk's pages in order. The column index is kept only
// when withColumnIndex and it has one entry per page.
func (f *File) chunkPages(rg, leaf int, withColumnIndex bool) (cp chunkPages, ok bool, err error) {
	buf, base, err := f.pageIndexBytes()
	if err != nil || buf == nil {
		return cp, false, err
	}
	cm := &f.meta.rowGroups[rg].columns[leaf]
	rows := f.meta.rowGroups[rg].numRows
	region := func(off int64, n int32) []byte {
		if n <= 0 || off < base || off+int64(n) > base+int64(len(buf)) {
			return nil
		}
		return buf[off-base : off-base+int64(n)]
	}
	b := region(cm.offsetIndexOff, cm.offsetIndexLen)
	if b == nil {
		return cp, false, nil
	}
	cp.locs = decodeOffsetIndex(b)
	if !locsFit(cp.locs, cm, rows) {
		return chunkPages{}, false, nil
	}
	if withColumnIndex {
		if b := region(cm.columnIndexOff, cm.columnIndexLen); b != nil {
			decodeColumnIndex(b, &cp)
			n := len(cp.locs)
			if len(cp.nullPages) != n || len(cp.mins) != n || len(cp.maxs) != n || (cp.nullCounts != nil && len(cp.nullCounts) != n) {
				cp.nullPages, cp.mins, cp.maxs, cp.nullCounts = nil, nil, nil, nil
			}
		}
	}
	return cp, true, nil
}

// locsFit checks that an offset index describes a flat chunk's data pages:
// first rows rising from 0 below the row count, pages in order, inside the
// chunk and not overlapping.
func locsFit(locs []pageLoc, cm *chunkMeta, rows int64) bool {
	if len(locs) == 0 || locs[0].firstRow != 0 {
		return false
	}
	start := chunkStart(cm)
	end := start + cm.totalCompressed
	prevEnd := start
	for k, l := range locs {
		if l.size <= 0 || l.off < prevEnd || l.off+int64(l.size) > end || l.firstRow >= rows {
			return false
		}
		if k > 0 && l.firstRow <= locs[k-1].firstRow {
			return false
		}
		prevEnd = l.off + int64(l.size)
	}
	return true
}

// chunkStart is where a column chunk's first page (dictionary or data)
// begins.
func chunkStart(cm *chunkMeta) int64 {
	start := cm.dataPageOffset
	if cm.hasDictOffset && cm.dictPageOffset > 0 && cm.dictPageOffset < start {
		start = cm.dictPageOffset
	}
	return start
}

func decodeOffsetIndex(b []byte) []pageLoc {
	r := &tReader{b: b}
	var locs []pageLoc
	var last int16
	for {
		id, typ, ok := r.field(&last)
		if !ok {
			break
		}
		if id != 1 || typ != ctList {
			r.skip(typ, 1)
			continue
		}
		n, elem := r.list()
		if elem != ctStruct {
			r.fail()
			break
		}
		locs = make([]pageLoc, 0, n)
		for i := 0; i < n && r.err == nil; i++ {
			var l pageLoc
			var fl int16
			for {
				fid, ft, ok := r.field(&fl)
				if !ok {
					break
				}
				switch {
				case fid == 1 && ft == ctI64:
					l.off = r.varint()
				case fid == 2 && ft == ctI32:
					l.size = r.i32()
				case fid == 3 && ft == ctI64:
					l.firstRow = r.varint()
				default:
					r.skip(ft, 2)
				}
			}
			locs = append(locs, l)
		}
	}
	if r.err != nil {
		return nil
	}
	return locs
}

func decodeColumnIndex(b []byte, cp *chunkPages) {
	r := &tReader{b: b}
	var last int16
	binaries := func() [][]byte {
		n, elem := r.list()
		if elem != ctBinary {
			r.fail()
			return nil
		}
		out := make([][]byte, 0, n)
		for i := 0; i < n && r.err == nil; i++ {
			out = append(out, r.binary())
		}
		return out
	}
	for {
		id, typ, ok := r.field(&last)
		if !ok {
			break
		}
		switch {
		case id == 1 && typ == ctList:
			n, elem := r.list()
			if elem != ctTrue && elem != ctFalse {
				r.fail()
				break
			}
			cp.nullPages = make([]bool, 0, n)
			for i := 0; i < n && r.err == nil; i++ {
				// bools in a list are one byte each; writers differ on
				// false (0 or 2) but agree that 1 is true
				cp.nullPages = append(cp.nullPages, r.byte1() == 1)
			}
		case id == 2 && typ == ctList:
			cp.mins = binaries()
		case id == 3 && typ == ctList:
			cp.maxs = binaries()
		case id == 5 && typ == ctList:
			n, elem := r.list()
			if elem != ctI64 {
				r.fail()
				break
			}
			cp.nullCounts = make([]int64, 0, n)
			for i := 0; i < n && r.err == nil; i++ {
				cp.nullCounts = append(cp.nullCounts, r.varint())
			}
		default:
			r.skip(typ, 1)
		}
	}
	if r.err != nil {
		cp.nullPages, cp.mins, cp.maxs, cp.nullCounts = nil, nil, nil, nil
	}
}

// pageRows is the row span of page k of a chunk of rows rows.
func (cp *chunkPages) pageRows(k int, rows int64) rowSpan {
	hi := rows
	if k+1 < len(cp.locs) {
		hi = cp.locs[k+1].firstRow
	}
	return rowSpan{cp.locs[k].firstRow, hi}
}

// pageRange is page k's statistics as a Range in the plan's units.
func (cp *chunkPages) pageRange(k int, p *plan, rows int64) Range {
	span := cp.pageRows(k, rows)
	if cp.nullPages[k] {
		return Range{AllNull: true, NullCount: span.hi - span.lo, HasNullCount: true}
	}
	var r Range
	if cp.nullCounts != nil {
		r.NullCount, r.HasNullCount = cp.nullCounts[k], true
	}
	boundsRange(&r, cp.mins[k], cp.maxs[k], p)
	return r
}

// pageSelection returns the runs of rows of row group rg that the page
// statistics of the filtered projections (cols, flat columns only) leave to
// read, and how many of those columns' pages they rule out. sel is nil when
// every row must be read, empty when none.
func (f *File) pageSelection(rg int, cols []pageCol, keep func(int, []Range) bool, probe []Range, buf []rowSpan) (sel []rowSpan, prunedPages, pages int, err error) {
	rows := f.meta.rowGroups[rg].numRows
	skip := buf[:0]
	for _, pc := range cols {
		cp, ok, err := f.chunkPages(rg, pc.leaf, true)
		if err != nil {
			return nil, 0, 0, err
		}
		if !ok || cp.nullPages == nil {
			continue
		}
		pages += len(cp.locs)
		clear(probe)
		for k := range cp.locs {
			probe[pc.slot] = cp.pageRange(k, pc.plan, rows)
			if !keep(rg, probe) {
				prunedPages++
				skip = append(skip, cp.pageRows(k, rows))
			}
		}
	}
	if len(skip) == 0 {
		return nil, 0, pages, nil
	}
	// the complement of the union of the skipped spans
	slices.SortFunc(skip, func(a, b rowSpan) int { return int(a.lo - b.lo) })
	n := len(skip)
	at := int64(0)
	for _, s := range skip[:n] {
		if s.lo > at {
			skip = append(skip, rowSpan{at, s.lo})
		}
		at = max(at, s.hi)
	}
	if at < rows {
		skip = append(skip, rowSpan{at, rows})
	}
	return skip[n:], prunedPages, pages, nil
}

// pageCol is a projection whose pages a filter may rule out.
type pageCol struct {
	slot int // projection index
	leaf int
	plan *plan
}

// pageReads lists the file ranges of a column chunk a scan of the rows sel
// needs: the dictionary page and every data page overlapping sel, adjacent
// ones merged, and how many data pages that is. Without an offset index
// (locs nil) it is the whole chunk.
func pageReads(cm *chunkMeta, locs []pageLoc, rows int64, sel []rowSpan, dst [][2]int64) ([][2]int64, int) {
	start := chunkStart(cm)
	if locs == nil || sel == nil {
		return append(dst, [2]int64{start, cm.totalCompressed}), len(locs)
	}
	pages := 0
	add := func(off, n int64) {
		if k := len(dst) - 1; k >= 0 && dst[k][0]+dst[k][1] == off {
			dst[k][1] += n
			return
		}
		dst = append(dst, [2]int64{off, n})
	}
	if locs[0].off > start {
		add(start, locs[0].off-start) // dictionary page
	}
	s := 0
	for k, l := range locs {
		hi := rows
		if k+1 < len(locs) {
			hi = locs[k+1].firstRow
		}
		for s < len(sel) && sel[s].hi <= l.firstRow {
			s++
		}
		if s == len(sel) {
			break
		}
		if sel[s].lo < hi {
			add(l.off, int64(l.size))
			pages++
		}
	}
	return dst, pages
}

// PageEstimate is what a scan with a filter will read of one row group once
// the page index has ruled pages out.
type PageEstimate struct {
	Pages, Pruned int   // pages of the filtered columns, and those ruled out
	Rows          int64 // rows left to read: all of them when nothing is pruned
	Bytes         int64 // compressed bytes of the projected columns' pages to read
}

// PagePruning estimates a scan of row group rg with keep. EXPLAIN reports
// it.
func (f *File) PagePruning(rg int, proj []Projection, keep func(int, []Range) bool) (PageEstimate, error) {
	rows := f.meta.rowGroups[rg].numRows
	needed, _ := f.RowGroupBytes(rg, proj)
	e := PageEstimate{Rows: rows, Bytes: needed}
	if keep == nil {
		return e, nil
	}
	s := f.Scan(proj, ScanOptions{Keep: keep})
	defer s.Release()
	if s.err != nil {
		return e, s.err
	}
	sel, pruned, pages, err := f.pageSelection(rg, s.filteredCols(rg), keep, s.probe, nil)
	e.Pages, e.Pruned = pages, pruned
	if err != nil || sel == nil {
		return e, err
	}
	e.Rows = 0
	for _, sp := range sel {
		e.Rows += sp.hi - sp.lo
	}
	if len(sel) == 0 {
		e.Bytes = 0
		return e, nil
	}
	var reads [][2]int64
	for _, c := range s.cols {
		if c == nil {
			continue
		}
		cp, ok, err := f.chunkPages(rg, c.leaf, false)
		if err != nil {
			return e, err
		}
		if !ok {
			continue // read whole, as counted
		}
		cm := &f.meta.rowGroups[rg].columns[c.leaf]
		reads, _ = pageReads(cm, cp.locs, rows, sel, reads[:0])
		e.Bytes -= cm.totalCompressed
		for _, r := range reads {
			e.Bytes += r[1]
		}
	}
	return e, nil
}
