package parquetio

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sync"
	"unsafe"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// colReader decodes one projected column, one column chunk (row group) at a
// time, straight into vectors. Everything it needs between batches lives in
// reused buffers: the compressed chunk (read with one ReadAt), the current
// decompressed page, the page's definition levels and dictionary indices
// (decoded once per page), and the chunk's dictionary already converted to
// the projection's type. No allocation happens per batch; per page only
// when a buffer must grow, and for byte arrays one string per page.
type colReader struct {
	f      *File
	name   string
	leaf   int // column chunk index
	want   types.T
	maxDef int // 0 (REQUIRED) or 1 (OPTIONAL)
	plan   plan
	nest   *nestLevels // levels of a leaf under a nested field; nil when flat

	// chunk
	chunk       []byte
	pos         int
	codec       int32
	rg          int
	unpagedRows int64 // rows of the chunk not yet covered by a data page
	rowNext     int64 // row of the chunk the next read returns (flat columns)

	// Page skipping (pageindex.go). With locs set before startChunk, only
	// the pages overlapping the row runs sel are read and skip jumps over
	// the others; chunk[i] is file offset chunkOff+i.
	locs     []pageLoc
	sel      []rowSpan
	chunkOff int64
	pageNo   int // offset-index entry of the next data page
	reads    [][2]int64
	skipVec  *vec.Vector

	pagesRead, pagesSkipped int // data pages decoded, passed over

	// current data page
	pageLeft int     // values left in the page (rows: columns are flat)
	defs     []uint8 // definition levels; nil when the page has no NULLs
	defPos   int
	dict     bool // page is dictionary-encoded (else PLAIN values in data)
	data     []byte
	st       plainState
	dataStr  string // PLAIN byte arrays: the values section as one string
	idx      []int32
	idxPos   int

	// chunk dictionary, in the projection's storage class, padded with zero
	// values to 1<<bitWidth entries so any index decodes without a check
	hasDict bool
	dictLen int
	dI64    []int64
	dF64    []float64
	dB      []bool
	dS      []string
	dIv     []types.IntervalValue

	// reused buffers
	dec     decoders
	pageBuf []byte
	plain   []byte // encrypted files: the other of the chunk's two buffers
	matBuf  []byte
	lvlBuf  []uint8
	boolBuf []uint8
	idxBuf  []int32
	scratch []byte
	tmpI64  []int64
	nulls   []bool
	anyNull bool
	// readSel's (select.go): the selected rows' NULL mask and positions
	// among a segment's values, and a segment decoded whole to pick from
	selNulls []bool
	selAt    []int32
	selVec   *vec.Vector
}

type plainState struct {
	pos int // byte offset
	bit int // bit offset within data[pos] (booleans)
}

var errCorrupt = errors.New("corrupt column chunk")

// maxPageSize bounds the uncompressed size of one page, so a corrupt header
// cannot make us allocate gigabytes.
const maxPageSize = 1 << 30

func (c *colReader) corrupt(format string, args ...any) error {
	return fmt.Errorf("parquet: column %q, row group %d: %s: %w", c.name, c.rg, fmt.Sprintf(format, args...), errCorrupt)
}

// startChunk reads the column chunk of row group rg in one ReadAt, or, when
// pages are being skipped, the pages it will decode.
func (c *colReader) startChunk(rg int) error {
	c.rg = rg
	cm := &c.f.meta.rowGroups[rg].columns[c.leaf]
	if cm.filePath != "" {
		return pgerr.New(pgerr.FeatureNotSupported, "Parquet column chunks in external files are not supported")
	}
	if cm.encrypted {
		return pgerr.New(pgerr.FeatureNotSupported, "encrypted Parquet columns are not supported")
	}
	start := chunkStart(cm)
	n := cm.totalCompressed
	if start < 4 || n < 0 || start+n > c.f.size-8 || n > math.MaxInt32 {
		return c.corrupt("chunk [%d, +%d) outside the file", start, n)
	}
	// Slack after the chunk lets the bit unpacker read past the last run.
	c.chunk = growBytes(c.chunk, int(n)+bitpackPad)[:n]
	c.chunkOff = start
	rows := c.f.meta.rowGroups[rg].numRows
	var pages int
	c.reads, pages = pageReads(cm, c.locs, rows, c.sel, c.reads[:0])
	c.pagesSkipped += len(c.locs) - pages
	for _, r := range c.reads {
		if err := readFull(c.f.r, c.chunk[r[0]-start:r[0]-start+r[1]], r[0]); err != nil {
			return fmt.Errorf("parquet: reading column %q: %w", c.name, err)
		}
	}
	if c.f.crypt != nil {
		// Decrypt the whole chunk up front into the plain header+body
		// layout, so the page reader below is the same for both kinds of
		// file (encrypted files have no page index: c.reads is the chunk).
		// The plaintext is shorter than the chunk, so this capacity keeps
		// the bit unpacker's slack and decryptChunk never reallocates.
		buf := growBytes(c.plain, int(n)+bitpackPad)[:0]
		plain, err := c.f.crypt.decryptChunk(buf, c.chunk)
		if err != nil {
			return err
		}
		c.plain = c.chunk
		c.chunk = plain
	}
	c.pos = 0
	c.codec = cm.codec
	c.unpagedRows = rows
	if c.nest != nil {
		c.unpagedRows = cm.numValues // level entries, not rows
	}
	c.hasDict = false
	c.pageLeft = 0
	c.pageNo, c.rowNext = 0, 0
	if c.locs != nil {
		return c.loadLeadingDict(int(c.locs[0].off - start))
	}
	return nil
}

// loadLeadingDict loads the dictionary page in front of a chunk's first
// data page (chunk[:end]), so that skip may jump past data pages.
func (c *colReader) loadLeadingDict(end int) error {
	for c.pos < end {
		var h pageHeader
		hl, err := readPageHeader(c.chunk[c.pos:end], &h)
		if err != nil {
			return c.corrupt("bad page header: %v", err)
		}
		bodyEnd := c.pos + hl + int(h.compressedSize)
		if bodyEnd > end || bodyEnd < c.pos+hl {
			return c.corrupt("page overruns the dictionary region")
		}
		if h.typ == pageDictionary {
			if err := c.loadDict(&h, c.chunk[c.pos+hl:bodyEnd]); err != nil {
				return err
			}
		}
		c.pos = bodyEnd
	}
	return nil
}

// skip drops the next n rows of a flat column: whole pages are passed over
// (by the offset index: they were not even read; else by their headers),
// the rows of a page that is partly skipped are decoded and discarded.
func (c *colReader) skip(n int64) error {
	for n > 0 {
		if c.pageLeft == 0 {
			if c.locs != nil {
				target := c.rowNext + n
				k := c.pageNo
				for k+1 < len(c.locs) && c.locs[k+1].firstRow <= target {
					k++
				}
				if k > c.pageNo {
					c.pos = int(c.locs[k].off - c.chunkOff)
					c.unpagedRows = c.f.meta.rowGroups[c.rg].numRows - c.locs[k].firstRow
					c.pageNo, c.rowNext = k, c.locs[k].firstRow
					n = target - c.rowNext
					continue
				}
			} else if rows := c.skipPage(n); rows > 0 {
				n -= rows
				continue
			}
			if err := c.nextPage(); err != nil {
				return err
			}
		}
		k := int(min(n, int64(c.pageLeft)))
		if c.skipVec == nil {
			c.skipVec = vec.New(c.want, k)
		}
		c.skipVec.Reset()
		if err := c.read(c.skipVec, k); err != nil {
			return err
		}
		n -= int64(k)
	}
	return nil
}

// skipPage passes over the next page, undecoded, when it is a data page
// all of whose rows are among the n to skip; it returns the rows passed.
func (c *colReader) skipPage(n int64) int64 {
	if c.pos >= len(c.chunk) {
		return 0
	}
	var h pageHeader
	hl, err := readPageHeader(c.chunk[c.pos:], &h)
	if err != nil || (h.typ != pageData && h.typ != pageDataV2) ||
		h.numValues <= 0 || int64(h.numValues) > n || int64(h.numValues) > c.unpagedRows {
		return 0 // nextPage reads it, or reports what is wrong with it
	}
	end := c.pos + hl + int(h.compressedSize)
	if end > len(c.chunk) || end < c.pos+hl {
		return 0
	}
	c.pos = end
	rows := int64(h.numValues)
	c.unpagedRows -= rows
	c.rowNext += rows
	c.pagesSkipped++
	return rows
}

func growBytes(b []byte, n int) []byte {
	if cap(b) < n {
		return make([]byte, n, n+n/4)
	}
	return b[:n]
}

// nextPage advances to the next data page, loading dictionary pages on the
// way.
func (c *colReader) nextPage() error {
	var h pageHeader
	for {
		if c.pos >= len(c.chunk) {
			return c.corrupt("column chunk ended before all rows were read")
		}
		hdr := c.pos
		hl, err := readPageHeader(c.chunk[c.pos:], &h)
		if err != nil {
			return c.corrupt("bad page header: %v", err)
		}
		start := c.pos + hl
		end := start + int(h.compressedSize)
		if end > len(c.chunk) || end < start {
			return c.corrupt("page overruns its column chunk")
		}
		body := c.chunk[start:end]
		c.pos = end
		if h.uncompressedSize > maxPageSize {
			return c.corrupt("page of %d bytes", h.uncompressedSize)
		}
		if (h.typ == pageData || h.typ == pageDataV2) && int64(h.numValues) > c.unpagedRows {
			// Flat columns have one value per row; more would be corrupt
			// (and must not size our buffers).
			return c.corrupt("page of %d values with %d rows left", h.numValues, c.unpagedRows)
		}
		if (h.typ == pageData || h.typ == pageDataV2) && h.numValues > 0 {
			if err := c.checkLoc(hdr, h.numValues); err != nil {
				return err
			}
			c.pagesRead++
		}
		switch h.typ {
		case pageDictionary:
			if err := c.loadDict(&h, body); err != nil {
				return err
			}
		case pageData:
			if h.numValues == 0 {
				continue
			}
			c.unpagedRows -= int64(h.numValues)
			if c.nest != nil {
				return c.loadNestedV1(&h, body)
			}
			return c.loadDataV1(&h, body)
		case pageDataV2:
			if h.numValues == 0 {
				continue
			}
			c.unpagedRows -= int64(h.numValues)
			if c.nest != nil {
				return c.loadNestedV2(&h, body)
			}
			return c.loadDataV2(&h, body)
		}
		// index pages and unknown page types are skipped
	}
}

// checkLoc makes sure that, when pages are skipped by the offset index, the
// data page at chunk offset hdr is the one the index says comes next, so a
// wrong index is an error and never a read of bytes that were not fetched.
func (c *colReader) checkLoc(hdr int, values int32) error {
	if c.locs == nil {
		return nil
	}
	k := c.pageNo
	if k >= len(c.locs) || int64(hdr) != c.locs[k].off-c.chunkOff {
		return c.corrupt("the page index does not match the pages")
	}
	hi := c.f.meta.rowGroups[c.rg].numRows
	if k+1 < len(c.locs) {
		hi = c.locs[k+1].firstRow
	}
	if int64(values) != hi-c.locs[k].firstRow {
		return c.corrupt("the page index gives page %d %d rows, its header %d", k, hi-c.locs[k].firstRow, values)
	}
	c.pageNo++
	return nil
}

// decompress returns the uncompressed bytes of a page body in a reused
// buffer with bitpackPad bytes of capacity to spare.
func (c *colReader) decompress(body []byte, size int) ([]byte, error) {
	if c.codec == codecUncompressed {
		if len(body) != size {
			return nil, c.corrupt("uncompressed page is %d bytes, header says %d", len(body), size)
		}
		return body, nil
	}
	if size == 0 {
		// Some writers store an empty values section (an all-NULL v2 page)
		// as zero bytes, not as a compressed empty block.
		return c.pageBuf[:0], nil
	}
	if size < 0 || size > maxPageSize {
		return nil, c.corrupt("page of %d bytes", size)
	}
	need := size + bitpackPad
	if cap(c.pageBuf) < need {
		c.pageBuf = make([]byte, need+need/4)
	}
	switch c.codec {
	case codecSnappy, codecGzip, codecBrotli, codecZstd, codecLZ4Raw:
	default:
		return nil, pgerr.New(pgerr.FeatureNotSupported, "Parquet compression codec %s is not supported", codecName(c.codec))
	}
	out := c.pageBuf[:size]
	if err := c.dec.decompressInto(c.codec, out, body); err != nil {
		return nil, c.corrupt("%s page: %v", codecName(c.codec), err)
	}
	return out, nil
}

func codecName(c int32) string {
	names := []string{"UNCOMPRESSED", "SNAPPY", "GZIP", "LZO", "BROTLI", "LZ4", "ZSTD", "LZ4_RAW"}
	if c >= 0 && int(c) < len(names) {
		return names[c]
	}
	return fmt.Sprintf("codec %d", c)
}

func (c *colReader) loadDataV1(h *pageHeader, body []byte) error {
	page, err := c.decompress(body, int(h.uncompressedSize))
	if err != nil {
		return err
	}
	n := int(h.numValues)
	nn := n
	c.defs = nil
	p := 0
	if c.maxDef > 0 {
		if h.defEncoding != encRLE {
			return pgerr.New(pgerr.FeatureNotSupported, "Parquet definition level encoding %d is not supported", h.defEncoding)
		}
		if len(page) < 4 {
			return c.corrupt("short definition levels")
		}
		l := int(binary.LittleEndian.Uint32(page))
		if l < 0 || 4+l > len(page) {
			return c.corrupt("definition levels overrun the page")
		}
		if nn, err = c.levels(page[4:4+l], n); err != nil {
			return err
		}
		p = 4 + l
	}
	return c.loadValues(h.encoding, page[p:], n, nn)
}

func (c *colReader) loadDataV2(h *pageHeader, body []byte) error {
	n := int(h.numValues)
	ll := int(h.repLen) + int(h.defLen)
	if ll > len(body) {
		return c.corrupt("levels overrun the page")
	}
	nn := n
	c.defs = nil
	if c.maxDef > 0 && h.numNulls > 0 {
		var err error
		if nn, err = c.levels(body[h.repLen:ll], n); err != nil {
			return err
		}
	}
	vals := body[ll:]
	if h.isCompressed {
		var err error
		if vals, err = c.decompress(vals, int(h.uncompressedSize)-ll); err != nil {
			return err
		}
	} else if c.codec != codecUncompressed {
		// The values are stored plain although the chunk has a codec; the
		// chunk buffer has the slack the unpacker needs only at its end, so
		// keep these in a padded copy.
		c.matBuf = growBytes(c.matBuf, len(vals)+bitpackPad)[:len(vals)]
		copy(c.matBuf, vals)
		vals = c.matBuf
	}
	return c.loadValues(h.encoding, vals, n, nn)
}

// levels decodes a page's definition levels and returns the number of
// non-NULL values. A page without NULLs keeps defs nil, so its batches take
// the no-NULL path.
func (c *colReader) levels(src []byte, n int) (int, error) {
	if allOnes(src, n) {
		return n, nil // no NULL in the page: the levels are not needed
	}
	if cap(c.lvlBuf) < n {
		c.lvlBuf = make([]uint8, n)
	}
	lv := c.lvlBuf[:n]
	ones, err := decodeLevels(lv, src, 1)
	if err != nil {
		return 0, c.corrupt("definition levels: %v", err)
	}
	if ones < n {
		c.defs = lv
		c.defPos = 0
	}
	return ones, nil
}

func (c *colReader) loadValues(enc int32, vals []byte, n, nn int) error {
	c.pageLeft = n
	c.st = plainState{}
	switch enc {
	case encPlain:
		c.dict = false
		c.data = vals
		if c.plan.raw == types.StoreBytes {
			c.dataStr = string(vals)
		}
		return nil
	case encPlainDictionary, encRLEDictionary:
		if !c.hasDict {
			return c.corrupt("dictionary-encoded page without a dictionary")
		}
		c.dict = true
		if cap(c.idxBuf) < nn {
			c.idxBuf = make([]int32, nn)
		}
		c.idx = c.idxBuf[:nn]
		c.idxPos = 0
		if nn == 0 {
			return nil
		}
		if len(vals) < 1 {
			return c.corrupt("empty dictionary index data")
		}
		bw := uint(vals[0])
		var err error
		if c.scratch, err = decodeHybridInt32(c.idx, vals[1:], bw, c.scratch); err != nil {
			return c.corrupt("dictionary indices: %v", err)
		}
		return c.fitDict(bw)
	case encRLE:
		if c.plan.src.phys != physBoolean {
			return pgerr.New(pgerr.FeatureNotSupported, "RLE encoding of non-boolean Parquet values is not supported")
		}
		// 4-byte length, then bit width 1 runs; repacked as PLAIN bits.
		if len(vals) >= 4 {
			if l := int(binary.LittleEndian.Uint32(vals)); l >= 0 && 4+l <= len(vals) {
				vals = vals[4 : 4+l]
			}
		}
		c.boolBuf = resize(c.boolBuf, nn)
		bits := c.boolBuf
		if _, err := decodeLevels(bits, vals, 1); err != nil {
			return c.corrupt("RLE booleans: %v", err)
		}
		c.matBuf = growBytes(c.matBuf, (nn+7)/8+bitpackPad)
		clear(c.matBuf)
		for i, b := range bits {
			c.matBuf[i>>3] |= b << (i & 7)
		}
		c.dict = false
		c.data = c.matBuf[:(nn+7)/8]
		return nil
	case encDeltaBinaryPacked, encDeltaLengthBytes, encDeltaBytes, encByteStreamSplit:
		return c.transcode(enc, vals)
	}
	return pgerr.New(pgerr.FeatureNotSupported, "Parquet encoding %d is not supported", enc)
}

// transcode decodes the rarer encodings with parquet-go and re-encodes the
// values as PLAIN, so a single set of decode loops serves every encoding.
func (c *colReader) transcode(enc int32, vals []byte) (err error) {
	// These decoders are not ours; a corrupt page must become an error,
	// not a crash of the server.
	defer func() {
		if p := recover(); p != nil {
			err = c.corrupt("encoding %d: %v", enc, p)
		}
	}()
	e := parquet.LookupEncoding(format.Encoding(enc))
	out := c.matBuf[:0]
	switch c.plan.src.phys {
	case physInt32:
		var v []int32
		if v, err = e.DecodeInt32(nil, vals); err == nil {
			for _, x := range v {
				out = binary.LittleEndian.AppendUint32(out, uint32(x))
			}
		}
	case physInt64:
		var v []int64
		if v, err = e.DecodeInt64(nil, vals); err == nil {
			for _, x := range v {
				out = binary.LittleEndian.AppendUint64(out, uint64(x))
			}
		}
	case physFloat:
		var v []float32
		if v, err = e.DecodeFloat(nil, vals); err == nil {
			for _, x := range v {
				out = binary.LittleEndian.AppendUint32(out, math.Float32bits(x))
			}
		}
	case physDouble:
		var v []float64
		if v, err = e.DecodeDouble(nil, vals); err == nil {
			for _, x := range v {
				out = binary.LittleEndian.AppendUint64(out, math.Float64bits(x))
			}
		}
	case physByteArray:
		var b []byte
		var offs []uint32
		if b, offs, err = e.DecodeByteArray(nil, vals, nil); err == nil {
			for i := 0; i+1 < len(offs); i++ {
				s := b[offs[i]:offs[i+1]]
				out = binary.LittleEndian.AppendUint32(out, uint32(len(s)))
				out = append(out, s...)
			}
		}
	case physFixed:
		var b []byte
		if b, err = e.DecodeFixedLenByteArray(nil, vals, c.plan.src.typeLen); err == nil {
			out = append(out, b...)
		}
	default:
		return pgerr.New(pgerr.FeatureNotSupported, "Parquet encoding %d is not supported for %s", enc, physName(c.plan.src))
	}
	if err != nil {
		return c.corrupt("encoding %d: %v", enc, err)
	}
	c.matBuf = append(out, make([]byte, bitpackPad)...)[:len(out)]
	c.dict = false
	c.data = c.matBuf
	if c.plan.raw == types.StoreBytes {
		c.dataStr = string(c.data)
	}
	return nil
}

// loadDict decodes a dictionary page into the projection's storage class.
func (c *colReader) loadDict(h *pageHeader, body []byte) error {
	if h.encoding != encPlain && h.encoding != encPlainDictionary {
		return pgerr.New(pgerr.FeatureNotSupported, "Parquet dictionary encoding %d is not supported", h.encoding)
	}
	page, err := c.decompress(body, int(h.uncompressedSize))
	if err != nil {
		return err
	}
	n := int(h.numValues)
	if n > len(page)*8+8 {
		return c.corrupt("dictionary of %d values in %d bytes", n, len(page))
	}
	var str string
	if c.plan.raw == types.StoreBytes {
		str = string(page)
	}
	var st plainState
	var d dest
	switch c.plan.out {
	case types.StoreInt:
		c.dI64 = resize(c.dI64, n)
		d.i64 = c.dI64
	case types.StoreFloat:
		c.dF64 = resize(c.dF64, n)
		d.f64 = c.dF64
	case types.StoreBool:
		c.dB = resize(c.dB, n)
		d.b = c.dB
	case types.StoreInterval:
		c.dIv = resize(c.dIv, n)
		d.iv = c.dIv
	default:
		c.dS = resize(c.dS, n)
		d.s = c.dS
	}
	if err := c.plainTo(d, page, str, &st); err != nil {
		return err
	}
	c.hasDict = true
	c.dictLen = n
	return nil
}

// fitDict makes every index of the current page valid: the dictionary is
// padded with zero values up to 1<<bw entries (cheap for the widths real
// files use), or, for wide indices, the indices are checked.
func (c *colReader) fitDict(bw uint) error {
	if bw <= 16 {
		want := 1 << bw
		switch c.plan.out {
		case types.StoreInt:
			if len(c.dI64) < want {
				c.dI64 = padZero(c.dI64, want)
			}
		case types.StoreFloat:
			if len(c.dF64) < want {
				c.dF64 = padZero(c.dF64, want)
			}
		case types.StoreBool:
			if len(c.dB) < want {
				c.dB = padZero(c.dB, want)
			}
		case types.StoreInterval:
			if len(c.dIv) < want {
				c.dIv = padZero(c.dIv, want)
			}
		default:
			if len(c.dS) < want {
				c.dS = padZero(c.dS, want)
			}
		}
		return nil
	}
	for _, x := range c.idx {
		if uint32(x) >= uint32(c.dictLen) {
			return c.corrupt("dictionary index %d out of range (%d entries)", x, c.dictLen)
		}
	}
	return nil
}

func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

func padZero[T any](s []T, n int) []T {
	if cap(s) < n {
		t := make([]T, n)
		copy(t, s)
		return t
	}
	old := len(s)
	s = s[:n]
	clear(s[old:])
	return s
}

// read fills v (whose storage matches the plan) with the next n rows.
func (c *colReader) read(v *vec.Vector, n int) error {
	c.anyNull = false
	c.nulls = resize(c.nulls, n)
	c.sizeVector(v, n)
	off := 0
	for off < n {
		if c.pageLeft == 0 {
			if err := c.nextPage(); err != nil {
				return err
			}
		}
		k := min(n-off, c.pageLeft)
		if err := c.segment(v, off, k); err != nil {
			return err
		}
		off += k
		c.pageLeft -= k
	}
	if c.anyNull {
		v.Nulls = c.nulls[:n]
	} else {
		v.Nulls = nil
	}
	c.rowNext += int64(n)
	return nil
}

// sizeVector gives v room for n values of the plan's storage class.
func (c *colReader) sizeVector(v *vec.Vector, n int) {
	switch c.plan.out {
	case types.StoreInt:
		v.I64 = resize(v.I64, n)
	case types.StoreFloat:
		v.F64 = resize(v.F64, n)
	case types.StoreBool:
		v.B = resize(v.B, n)
	case types.StoreInterval:
		v.Iv = resize(v.Iv, n)
	default:
		v.S = resize(v.S, n)
	}
}

// segment decodes k rows of the current page into v[off:off+k].
func (c *colReader) segment(v *vec.Vector, off, k int) error {
	nn := k
	var defs []uint8
	if c.defs != nil {
		defs = c.defs[c.defPos : c.defPos+k]
		c.defPos += k
		nn = countOnes(defs)
	}
	if nn < k && c.dict && (c.plan.out == types.StoreInt || c.plan.out == types.StoreBytes) {
		return c.dictWithNulls(v, off, defs, nn)
	}
	var d dest
	switch c.plan.out {
	case types.StoreInt:
		d.i64 = v.I64[off : off+nn]
	case types.StoreFloat:
		d.f64 = v.F64[off : off+nn]
	case types.StoreBool:
		d.b = v.B[off : off+nn]
	case types.StoreInterval:
		d.iv = v.Iv[off : off+nn]
	default:
		d.s = v.S[off : off+nn]
	}
	if err := c.decodeInto(d, nn); err != nil {
		return err
	}
	if nn == k {
		if c.anyNull {
			clear(c.nulls[off : off+k])
		}
		return nil
	}
	c.markNulls(off, defs)
	switch c.plan.out {
	case types.StoreInt:
		expand(v.I64[off:off+k], defs, nn)
	case types.StoreFloat:
		expand(v.F64[off:off+k], defs, nn)
	case types.StoreBool:
		expand(v.B[off:off+k], defs, nn)
	case types.StoreInterval:
		expand(v.Iv[off:off+k], defs, nn)
	default:
		expand(v.S[off:off+k], defs, nn)
	}
	return nil
}

// markNulls sets the NULL mask of rows off… from their definition
// levels, clearing the rows before off the first time one is NULL.
func (c *colReader) markNulls(off int, defs []uint8) {
	if !c.anyNull {
		clear(c.nulls[:off])
		c.anyNull = true
	}
	nl := c.nulls[off : off+len(defs)]
	for i, d := range defs {
		nl[i] = d == 0
	}
}

// dictWithNulls fills v[off:off+len(defs)] from the dictionary, NULL where
// the definition level is 0, in one pass over the rows: the values of a
// column with NULLs go straight to their rows instead of being gathered
// to the front and then spread out (expand).
func (c *colReader) dictWithNulls(v *vec.Vector, off int, defs []uint8, nn int) error {
	if c.idxPos+nn > len(c.idx) {
		return c.corrupt("fewer dictionary indices than values")
	}
	idx := c.idx[c.idxPos : c.idxPos+nn]
	c.idxPos += nn
	k := len(defs)
	c.markNulls(off, defs)
	if c.plan.out == types.StoreInt {
		gatherDefs(v.I64[off:off+k], c.dI64, idx, defs)
	} else {
		gatherDefs(v.S[off:off+k], c.dS, idx, defs)
	}
	return nil
}

// gatherDefs is gather followed by expand: dst[i] is the next dictionary
// value where defs[i] is 1, the zero value where it is 0.
func gatherDefs[T any](dst, dict []T, idx []int32, defs []uint8) {
	var zero T
	dst = dst[:len(defs)]
	j := 0
	for i, d := range defs {
		if d != 0 {
			dst[i] = dict[idx[j]]
			j++
		} else {
			dst[i] = zero
		}
	}
}

// decodeInto fills d with the next n non-NULL values of the page: from the
// dictionary by index, or decoded plain.
func (c *colReader) decodeInto(d dest, n int) error {
	if !c.dict {
		return c.plainTo(d, c.data, c.dataStr, &c.st)
	}
	if c.idxPos+n > len(c.idx) {
		return c.corrupt("fewer dictionary indices than values")
	}
	idx := c.idx[c.idxPos : c.idxPos+n]
	c.idxPos += n
	switch c.plan.out {
	case types.StoreInt:
		gather(d.i64, c.dI64, idx)
	case types.StoreFloat:
		gather(d.f64, c.dF64, idx)
	case types.StoreBool:
		gather(d.b, c.dB, idx)
	case types.StoreInterval:
		gather(d.iv, c.dIv, idx)
	default:
		gather(d.s, c.dS, idx)
	}
	return nil
}

// outOfRange is the error for a value the projection's type cannot hold.
func outOfRange(c *colReader) error {
	return pgerr.New(pgerr.NumericValueOutOfRange, "value in Parquet column %q is out of range for type %s", c.name, c.want)
}

func countOnes(d []uint8) int {
	var a, b, c, e uint
	i := 0
	for ; i+4 <= len(d); i += 4 {
		a += uint(d[i])
		b += uint(d[i+1])
		c += uint(d[i+2])
		e += uint(d[i+3])
	}
	for ; i < len(d); i++ {
		a += uint(d[i])
	}
	return int(a + b + c + e)
}

//go:noinline
func gather[T any](dst, dict []T, idx []int32) {
	dst = dst[:len(idx)]
	for i, x := range idx {
		dst[i] = dict[x]
	}
}

// expand spreads the nn values packed at the front of dst to the positions
// whose definition level is 1, zeroing the NULL slots; it walks backwards so
// it works in place.
func expand[T any](dst []T, defs []uint8, nn int) {
	var zero T
	j := nn - 1
	for i := len(dst) - 1; i >= 0; i-- {
		if defs[i] != 0 {
			dst[i] = dst[j]
			j--
		} else {
			dst[i] = zero
		}
	}
}

// dest holds the slice a decode writes to: the one of the plan's output
// class is set.
type dest struct {
	i64 []int64
	f64 []float64
	b   []bool
	s   []string
	iv  []types.IntervalValue
}

// plainTo decodes PLAIN values from src at st into d, converting them to the
// projection's type.
func (c *colReader) plainTo(d dest, src []byte, str string, st *plainState) error {
	p := &c.plan
	i64, f64, bs, ss := d.i64, d.f64, d.b, d.s
	if p.toText != convNone {
		return c.plainText(ss, src, st) // decimal128.go
	}
	switch p.raw {
	case types.StoreInt:
		dst := i64
		if p.out == types.StoreFloat {
			c.tmpI64 = resize(c.tmpI64, len(f64))
			dst = c.tmpI64
		}
		if err := c.plainInts(dst, src, st); err != nil {
			return err
		}
		if p.intConv() && !convertInts(dst, p) {
			return outOfRange(c)
		}
		if p.out == types.StoreFloat {
			for i, x := range dst {
				f64[i] = float64(x) / p.fdiv
			}
		}
		return nil
	case types.StoreFloat:
		n := len(f64)
		switch p.src.phys {
		case physDouble:
			if len(src)-st.pos < 8*n {
				return c.corrupt("page holds fewer values than announced")
			}
			copyLE64(unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(f64))), n), src[st.pos:st.pos+8*n])
			st.pos += 8 * n
		case physFloat:
			if len(src)-st.pos < 4*n {
				return c.corrupt("page holds fewer values than announced")
			}
			b := src[st.pos : st.pos+4*n]
			for i := range f64 {
				f64[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:])))
			}
			st.pos += 4 * n
		}
		return nil
	case types.StoreBool:
		n := len(bs)
		bit := st.pos*8 + st.bit
		if (bit+n+7)/8 > len(src) {
			return c.corrupt("page holds fewer values than announced")
		}
		for i := range bs {
			bs[i] = src[bit>>3]>>(bit&7)&1 != 0
			bit++
		}
		st.pos, st.bit = bit>>3, bit&7
		return nil
	case types.StoreInterval:
		// FIXED_LEN_BYTE_ARRAY(12): unsigned months, days and milliseconds,
		// little endian (writers reject negative intervals).
		n := len(d.iv)
		if len(src)-st.pos < 12*n {
			return c.corrupt("page holds fewer values than announced")
		}
		b := src[st.pos : st.pos+12*n]
		for i := range d.iv {
			e := b[12*i : 12*i+12]
			d.iv[i] = types.IntervalValue{
				Months: int32(binary.LittleEndian.Uint32(e)),
				Days:   int32(binary.LittleEndian.Uint32(e[4:])),
				Micros: int64(binary.LittleEndian.Uint32(e[8:])) * 1000,
			}
		}
		st.pos += 12 * n
		return nil
	}
	// byte strings
	switch p.src.phys {
	case physByteArray:
		pos := st.pos
		for i := range ss {
			if len(src)-pos < 4 {
				return c.corrupt("page holds fewer values than announced")
			}
			l := int(binary.LittleEndian.Uint32(src[pos:]))
			pos += 4
			if l < 0 || l > len(src)-pos {
				return c.corrupt("byte array overruns the page")
			}
			ss[i] = str[pos : pos+l]
			pos += l
		}
		st.pos = pos
	case physFixed:
		w := p.src.typeLen
		n := len(ss)
		if w <= 0 || len(src)-st.pos < w*n {
			return c.corrupt("page holds fewer values than announced")
		}
		pos := st.pos
		for i := range ss {
			ss[i] = str[pos : pos+w]
			pos += w
		}
		st.pos = pos
	}
	return nil
}

// plainInts decodes PLAIN integers of any integer-like physical type.
func (c *colReader) plainInts(dst []int64, src []byte, st *plainState) error {
	p := &c.plan
	n := len(dst)
	short := func() error { return c.corrupt("page holds fewer values than announced") }
	switch {
	case p.decBytes:
		return c.plainDecimals(dst, src, st)
	case p.src.phys == physInt64:
		if len(src)-st.pos < 8*n {
			return short()
		}
		copyLE64(unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(dst))), n), src[st.pos:st.pos+8*n])
		st.pos += 8 * n
	case p.src.phys == physInt32:
		if len(src)-st.pos < 4*n {
			return short()
		}
		b := src[st.pos : st.pos+4*n]
		if p.unsigned {
			for i := range dst {
				dst[i] = int64(binary.LittleEndian.Uint32(b[4*i:]))
			}
		} else {
			for i := range dst {
				dst[i] = int64(int32(binary.LittleEndian.Uint32(b[4*i:])))
			}
		}
		st.pos += 4 * n
	case p.int96:
		if len(src)-st.pos < 12*n {
			return short()
		}
		b := src[st.pos : st.pos+12*n]
		for i := range dst {
			dst[i] = int96Micros(b[12*i : 12*i+12])
		}
		st.pos += 12 * n
	default:
		return unsupported(c.name, p.src, types.Int64T)
	}
	return nil
}

// int96Micros converts a legacy INT96 timestamp (nanoseconds of the day,
// then the Julian day number) to microseconds since the epoch.
func int96Micros(b []byte) int64 {
	nanos := int64(binary.LittleEndian.Uint64(b))
	day := int64(binary.LittleEndian.Uint32(b[8:]))
	return (day-2440588)*86400000000 + nanos/1000
}

func (c *colReader) plainDecimals(dst []int64, src []byte, st *plainState) error {
	pos := st.pos
	w := c.plan.src.typeLen
	for i := range dst {
		l := w
		if c.plan.src.phys == physByteArray {
			if len(src)-pos < 4 {
				return c.corrupt("page holds fewer values than announced")
			}
			l = int(binary.LittleEndian.Uint32(src[pos:]))
			pos += 4
		}
		if l < 0 || l > len(src)-pos {
			return c.corrupt("page holds fewer values than announced")
		}
		v, ok := beInt(src[pos : pos+l])
		if !ok {
			return pgerr.New(pgerr.NumericValueOutOfRange, "decimal value in Parquet column %q does not fit in 18 digits", c.name)
		}
		dst[i] = v
		pos += l
	}
	st.pos = pos
	return nil
}

// beInt decodes a big-endian two's complement integer of any width that
// fits in int64.
func beInt(b []byte) (int64, bool) {
	if len(b) == 0 {
		return 0, true
	}
	if len(b) > 8 {
		ext := byte(0)
		if b[len(b)-8]&0x80 != 0 {
			ext = 0xff
		}
		for _, x := range b[:len(b)-8] {
			if x != ext {
				return 0, false
			}
		}
		b = b[len(b)-8:]
	}
	var v int64
	if b[0]&0x80 != 0 {
		v = -1
	}
	for _, x := range b {
		v = v<<8 | int64(x)
	}
	return v, true
}

// convertInts applies the plan's unit or scale change; ok is false when a
// scaled value overflows int64.
func convertInts(d []int64, p *plan) (ok bool) {
	switch {
	case p.mul > 1:
		m := p.mul
		lim := math.MaxInt64 / m
		bad := false
		for i, x := range d {
			bad = bad || x > lim || x < -lim
			d[i] = x * m
		}
		return !bad
	case p.div > 1 && p.round:
		q := p.div
		h := q / 2
		// Half away from zero, without overflow near the int64 limits.
		for i, x := range d {
			r, m := x/q, x%q
			if m >= h {
				r++
			} else if m <= -h {
				r--
			}
			d[i] = r
		}
	case p.div > 1:
		q := p.div
		for i, x := range d {
			r := x / q
			if x%q != 0 && x < 0 {
				r--
			}
			d[i] = r
		}
	}
	return true
}

// hostLE reports a little-endian host, where PLAIN 64-bit values can be
// copied with memmove.
var hostLE = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

func copyLE64(dst []uint64, src []byte) {
	if hostLE {
		copy(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(dst))), len(src)), src)
		return
	}
	for i := range dst {
		dst[i] = binary.LittleEndian.Uint64(src[8*i:])
	}
}

var colReaderPool sync.Pool

func newColReader() *colReader {
	if c, ok := colReaderPool.Get().(*colReader); ok {
		return c
	}
	return &colReader{}
}

// recycle clears a reader for reuse, keeping its buffers.
func (c *colReader) recycle() {
	clear(c.dS) // do not keep the last chunk's strings alive
	*c = colReader{
		chunk: c.chunk[:0], dec: c.dec, pageBuf: c.pageBuf[:0], matBuf: c.matBuf[:0], lvlBuf: c.lvlBuf[:0],
		boolBuf: c.boolBuf[:0], idxBuf: c.idxBuf[:0], scratch: c.scratch[:0], tmpI64: c.tmpI64[:0], nulls: c.nulls[:0],
		dI64: c.dI64[:0], dF64: c.dF64[:0], dB: c.dB[:0], dS: c.dS[:0], dIv: c.dIv[:0],
	}
}

// heldBytes is the memory the reader's buffers hold: the chunk, the page
// and its decoded parts, the dictionary. A scan reports it so that its
// statement's memory account counts it (Scanner.HeldBytes).
func (c *colReader) heldBytes() int64 {
	n := cap(c.chunk) + cap(c.plain) + cap(c.pageBuf) + cap(c.matBuf) + cap(c.lvlBuf) + cap(c.boolBuf) +
		cap(c.scratch) + cap(c.nulls) + cap(c.dB) + len(c.dataStr) +
		4*cap(c.idxBuf) + 8*(cap(c.tmpI64)+cap(c.dI64)+cap(c.dF64)) + 16*(cap(c.dS)+cap(c.dIv))
	for _, s := range c.dS[:min(c.dictLen, len(c.dS))] {
		n += len(s)
	}
	return int64(n)
}
