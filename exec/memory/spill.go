package memory

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// SpillSpace is where operators that outgrow their memory reservation write
// their state: a directory of its own (so that cleaning it can never touch
// anything else) and a budget of bytes on disk shared by every query.
type SpillSpace struct {
	mu   sync.Mutex
	dir  string // this process's directory, made on first use
	Base string // the directory given; dir is a subdirectory of it
	max  atomic.Int64
	used atomic.Int64
	seq  atomic.Int64
}

// GlobalSpill is the temp space operators spill to. Its default directory is
// lakepg-spill under the system temp directory, unlimited in size.
var GlobalSpill = &SpillSpace{Base: filepath.Join(os.TempDir(), "lakepg-spill")}

// Configure sets the base directory (empty: keep the current one) and the
// most bytes of spill files at once (<= 0: unlimited). It makes this
// process's own subdirectory and removes the subdirectories of processes
// that are gone (files a killed server left), so a crash never leaks disk
// for longer than until the next start.
func (s *SpillSpace) Configure(base string, maxBytes int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if base != "" {
		abs, err := filepath.Abs(base)
		if err != nil {
			return err
		}
		s.Base = abs
		s.dir = ""
	}
	s.max.Store(maxBytes)
	if err := os.MkdirAll(s.Base, 0o700); err != nil {
		return fmt.Errorf("create temp directory: %w", err)
	}
	cleanStaleSpill(s.Base)
	_, err := s.dirLocked()
	return err
}

// Dir is this process's spill directory (made if need be).
func (s *SpillSpace) Dir() (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dirLocked()
}

func (s *SpillSpace) dirLocked() (string, error) {
	if s.dir != "" {
		return s.dir, nil
	}
	d := filepath.Join(s.Base, "pid-"+strconv.Itoa(os.Getpid()))
	if err := os.MkdirAll(d, 0o700); err != nil {
		return "", ErrTempSpace(fmt.Sprintf("cannot create temp directory %s: %v", d, err))
	}
	s.dir = d
	return d, nil
}

// Used is the number of bytes in spill files now.
func (s *SpillSpace) Used() int64 { return s.used.Load() }

// Max is the temp space budget (<= 0: unlimited).
func (s *SpillSpace) Max() int64 { return s.max.Load() }

// cleanStaleSpill removes pid-N subdirectories of base whose process is gone.
func cleanStaleSpill(base string) {
	ents, err := os.ReadDir(base)
	if err != nil {
		return
	}
	for _, e := range ents {
		p, ok := strings.CutPrefix(e.Name(), "pid-")
		if !ok || !e.IsDir() {
			continue
		}
		pid, err := strconv.Atoi(p)
		if err != nil {
			continue
		}
		// our own pid is ours to clean too: a previous process in a
		// container restarted with the same pid
		if pid != os.Getpid() && processAlive(pid) {
			continue // a live server's files
		}
		os.RemoveAll(filepath.Join(base, e.Name()))
	}
}

func (s *SpillSpace) reserve(n int64) bool {
	u := s.used.Add(n)
	if m := s.max.Load(); m > 0 && u > m {
		s.used.Add(-n)
		return false
	}
	return true
}

func ErrTempSpace(detail string) error {
	e := pgerr.New(OutOfMemory, "out of memory: the query's memory budget and temp space are both exhausted")
	e.Detail = detail
	e.Hint = "Raise --memory-limit or --max-temp-size, or make the query need less (fewer rows or columns to sort, group or join)."
	return e
}

// SpillFile is one temporary file an operator writes blocks to and reads
// back. It is removed by Close, which operators call from their own Close,
// so the file goes whether the query finished, failed or was cancelled.
type SpillFile struct {
	space *SpillSpace
	F     *os.File
	// w buffers writes; nil once the file is being read (reader), so that
	// the runs of a spilled sort do not each keep 256 KiB through the
	// merge (eight sorts under 1 GiB held 150 MB so), made again if the
	// file is written to after that
	W       *bufio.Writer
	Size    int64 // bytes written (flushed or not)
	Blocks  int64 // blocks written
	charged int64 // bytes reserved from space
	qs      *SpillStats
}

const spillChunk = 1 << 20

// SpillStats counts a statement's spill files and the bytes written to them
// (its part of exec.QueryStats).
type SpillStats struct{ Files, Bytes atomic.Int64 }

func NewSpillFile(space *SpillSpace, qs *SpillStats, kind string) (*SpillFile, error) {
	dir, err := space.Dir()
	if err != nil {
		return nil, err
	}
	name := filepath.Join(dir, fmt.Sprintf("%s-%d", kind, space.seq.Add(1)))
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, ErrTempSpace(fmt.Sprintf("cannot create temp file: %v", err))
	}
	if qs != nil {
		qs.Files.Add(1)
	}
	return &SpillFile{space: space, F: f, qs: qs}, nil
}

const spillWriteBuf = 256 << 10

// WriteBlock appends one length-prefixed block.
func (sf *SpillFile) WriteBlock(b []byte) error {
	var hdr [binary.MaxVarintLen64]byte
	h := binary.PutUvarint(hdr[:], uint64(len(b)))
	n := int64(h + len(b))
	for sf.Size+n > sf.charged {
		if !sf.space.reserve(spillChunk) {
			return ErrTempSpace(fmt.Sprintf("Spill files would exceed --max-temp-size (%d bytes).", sf.space.Max()))
		}
		sf.charged += spillChunk
	}
	if sf.W == nil {
		sf.W = bufio.NewWriterSize(sf.F, spillWriteBuf)
	}
	if _, err := sf.W.Write(hdr[:h]); err != nil {
		return ErrTempSpace(fmt.Sprintf("writing temp file: %v", err))
	}
	if _, err := sf.W.Write(b); err != nil {
		return ErrTempSpace(fmt.Sprintf("writing temp file: %v", err))
	}
	sf.Size += n
	sf.Blocks++
	if sf.qs != nil {
		sf.qs.Bytes.Add(n)
	}
	return nil
}

// Reader flushes what was written and returns a reader over all of it.
func (sf *SpillFile) Reader() (*SpillReader, error) {
	if sf.W != nil {
		if err := sf.W.Flush(); err != nil {
			return nil, ErrTempSpace(fmt.Sprintf("writing temp file: %v", err))
		}
		sf.W = nil
	}
	return &SpillReader{r: bufio.NewReaderSize(io.NewSectionReader(sf.F, 0, sf.Size), 128<<10)}, nil
}

// Flush writes out what is buffered, for readers of sections.
func (sf *SpillFile) Flush() error {
	if sf.W != nil {
		if err := sf.W.Flush(); err != nil {
			return ErrTempSpace(fmt.Sprintf("writing temp file: %v", err))
		}
	}
	return nil
}

// SectionReader reads the blocks in bytes [off, off+n) of the file, which
// must be flushed; several may read at once.
func (sf *SpillFile) SectionReader(off, n int64) *SpillReader {
	return &SpillReader{r: bufio.NewReaderSize(io.NewSectionReader(sf.F, off, n), 64<<10)}
}

// Unlink removes the file's name: readers that have it open go on reading,
// and Close gives its bytes back.
func (sf *SpillFile) Unlink() {
	if sf != nil && sf.F != nil {
		os.Remove(sf.F.Name())
	}
}

// Close removes the file and gives its bytes back to the temp space.
func (sf *SpillFile) Close() {
	if sf == nil || sf.F == nil {
		return
	}
	name := sf.F.Name()
	sf.F.Close()
	os.Remove(name)
	sf.F = nil
	sf.space.used.Add(-sf.charged)
	sf.charged = 0
}

type SpillReader struct {
	r   *bufio.Reader
	buf []byte
}

// Next returns the next block (valid until the next call), or nil at the end.
func (r *SpillReader) Next() ([]byte, error) {
	n, err := binary.ReadUvarint(r.r)
	if err == io.EOF {
		return nil, nil
	}
	if err != nil {
		return nil, ErrTempSpace(fmt.Sprintf("reading temp file: %v", err))
	}
	if uint64(cap(r.buf)) < n {
		r.buf = make([]byte, n)
	}
	r.buf = r.buf[:n]
	if _, err := io.ReadFull(r.r, r.buf); err != nil {
		return nil, ErrTempSpace(fmt.Sprintf("reading temp file: %v", err))
	}
	return r.buf, nil
}

// Block format, column by column so that each loop runs over one typed
// slice:
//
//	uvarint rows
//	per column: byte 1 if a NULL mask follows (then one byte per row), 0 if not;
//	            then the values: int frame of reference (appendInts), float 8 bytes
//	            little-endian, bool 1 byte,
//	            interval 4+4+8 bytes, text uvarint lengths then the bytes
//	optional trailing "column" of byte strings (sort keys), same as text
func AppendBlock(dst []byte, cols []*vec.Vector, lo, hi int) []byte {
	n := hi - lo
	dst = binary.AppendUvarint(dst, uint64(n))
	for _, v := range cols {
		if v.Nulls != nil {
			dst = append(dst, 1)
			for _, null := range v.Nulls[lo:hi] {
				if null {
					dst = append(dst, 1)
				} else {
					dst = append(dst, 0)
				}
			}
		} else {
			dst = append(dst, 0)
		}
		switch v.Type.Storage() {
		case types.StoreInt:
			dst = appendInts(dst, v.I64[lo:hi])
		case types.StoreFloat:
			for _, x := range v.F64[lo:hi] {
				dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(x))
			}
		case types.StoreBool:
			for _, x := range v.B[lo:hi] {
				if x {
					dst = append(dst, 1)
				} else {
					dst = append(dst, 0)
				}
			}
		case types.StoreInterval:
			for _, x := range v.Iv[lo:hi] {
				dst = binary.LittleEndian.AppendUint32(dst, uint32(x.Months))
				dst = binary.LittleEndian.AppendUint32(dst, uint32(x.Days))
				dst = binary.LittleEndian.AppendUint64(dst, uint64(x.Micros))
			}
		default:
			dst = appendStrings(dst, v.S[lo:hi])
		}
	}
	return dst
}

// AppendBlockAt appends the rows of cols at idx, in that order, as one
// block (AppendBlock's format): a sorted run is written straight from the
// buffered rows and their permutation, without gathering them first.
//
// tmp is scratch for gathering a column's integers; the grown scratch is
// returned for the next call.
func AppendBlockAt(dst []byte, cols []*vec.Vector, idx []int32, tmp []int64) ([]byte, []int64) {
	dst = binary.AppendUvarint(dst, uint64(len(idx)))
	for _, v := range cols {
		if v.Nulls != nil {
			dst = append(dst, 1)
			nulls := v.Nulls
			for _, i := range idx {
				if nulls[i] {
					dst = append(dst, 1)
				} else {
					dst = append(dst, 0)
				}
			}
		} else {
			dst = append(dst, 0)
		}
		switch v.Type.Storage() {
		case types.StoreInt:
			g := tmp[:0]
			xs := v.I64
			for _, i := range idx {
				g = append(g, xs[i])
			}
			dst = appendInts(dst, g)
			tmp = g
		case types.StoreFloat:
			xs := v.F64
			for _, i := range idx {
				dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(xs[i]))
			}
		case types.StoreBool:
			xs := v.B
			for _, i := range idx {
				if xs[i] {
					dst = append(dst, 1)
				} else {
					dst = append(dst, 0)
				}
			}
		case types.StoreInterval:
			xs := v.Iv
			for _, i := range idx {
				x := xs[i]
				dst = binary.LittleEndian.AppendUint32(dst, uint32(x.Months))
				dst = binary.LittleEndian.AppendUint32(dst, uint32(x.Days))
				dst = binary.LittleEndian.AppendUint64(dst, uint64(x.Micros))
			}
		default:
			xs := v.S
			for _, i := range idx {
				dst = binary.AppendUvarint(dst, uint64(len(xs[i])))
			}
			for _, i := range idx {
				dst = append(dst, xs[i]...)
			}
		}
	}
	return dst, tmp
}

// appendInts writes integers frame of reference: the smallest, then each
// value's distance from it in as few of 0, 1, 2, 4 or 8 bytes as the
// largest distance needs. Keys, dates, counts and scaled numerics mostly
// fit in one to four bytes, so spill files hold a third of the bytes
// (written, and read back, once each) for a fixed-width loop per block.
func appendInts(dst []byte, xs []int64) []byte {
	if len(xs) == 0 {
		return append(dst, 0)
	}
	lo, hi := xs[0], xs[0]
	for _, x := range xs[1:] {
		lo, hi = min(lo, x), max(hi, x)
	}
	span := uint64(hi) - uint64(lo) // fits: hi >= lo
	base := uint64(lo)
	var w byte
	switch {
	case span == 0:
		w = 0
	case span < 1<<8:
		w = 1
	case span < 1<<16:
		w = 2
	case span < 1<<32:
		w = 4
	default:
		w = 8
	}
	dst = append(dst, w)
	dst = binary.LittleEndian.AppendUint64(dst, base)
	switch w {
	case 1:
		for _, x := range xs {
			dst = append(dst, byte(uint64(x)-base))
		}
	case 2:
		for _, x := range xs {
			dst = binary.LittleEndian.AppendUint16(dst, uint16(uint64(x)-base))
		}
	case 4:
		for _, x := range xs {
			dst = binary.LittleEndian.AppendUint32(dst, uint32(uint64(x)-base))
		}
	case 8:
		for _, x := range xs {
			dst = binary.LittleEndian.AppendUint64(dst, uint64(x))
		}
	}
	return dst
}

// decodeInts reads len(out) integers appendInts wrote; false if blk is
// short or malformed.
func decodeInts(blk []byte, out []int64) ([]byte, bool) {
	n := len(out)
	if n == 0 {
		return blk[min(1, len(blk)):], len(blk) >= 1
	}
	if len(blk) < 9 {
		return nil, false
	}
	w, base := int(blk[0]), binary.LittleEndian.Uint64(blk[1:])
	blk = blk[9:]
	if w != 0 && w != 1 && w != 2 && w != 4 && w != 8 || len(blk) < w*n {
		return nil, false
	}
	switch w {
	case 0:
		for i := range out {
			out[i] = int64(base)
		}
	case 1:
		for i, c := range blk[:n] {
			out[i] = int64(base + uint64(c))
		}
	case 2:
		for i := range out {
			out[i] = int64(base + uint64(binary.LittleEndian.Uint16(blk[2*i:])))
		}
	case 4:
		for i := range out {
			out[i] = int64(base + uint64(binary.LittleEndian.Uint32(blk[4*i:])))
		}
	case 8:
		for i := range out {
			out[i] = int64(binary.LittleEndian.Uint64(blk[8*i:]))
		}
	}
	return blk[w*n:], true
}

func appendStrings(dst []byte, ss []string) []byte {
	for _, s := range ss {
		dst = binary.AppendUvarint(dst, uint64(len(s)))
	}
	for _, s := range ss {
		dst = append(dst, s...)
	}
	return dst
}

func AppendByteStrings(dst []byte, ss [][]byte) []byte {
	for _, s := range ss {
		dst = binary.AppendUvarint(dst, uint64(len(s)))
	}
	for _, s := range ss {
		dst = append(dst, s...)
	}
	return dst
}

var ErrBadSpill = ErrTempSpace("a temp file is corrupt")

// BlockDecoder reads blocks back into a batch whose vectors it reuses.
type BlockDecoder struct {
	B     vec.Batch
	types []types.T
	lens  []int
}

func NewBlockDecoder(ts []types.T) *BlockDecoder {
	d := &BlockDecoder{types: ts}
	d.B.Vecs = make([]*vec.Vector, len(ts))
	for i, t := range ts {
		d.B.Vecs[i] = vec.New(t, vec.BatchSize)
	}
	return d
}

// Decode fills d.b from blk and returns the rest of blk (a trailing column a
// caller added). Text values are substrings of one string copied from blk,
// so a block costs one allocation for all of its text.
func (d *BlockDecoder) Decode(blk []byte) ([]byte, error) {
	n64, k := binary.Uvarint(blk)
	if k <= 0 {
		return nil, ErrBadSpill
	}
	n := int(n64)
	blk = blk[k:]
	d.B.N = n
	for _, v := range d.B.Vecs {
		if len(blk) < 1 {
			return nil, ErrBadSpill
		}
		hasNulls := blk[0] == 1
		blk = blk[1:]
		if hasNulls {
			if len(blk) < n {
				return nil, ErrBadSpill
			}
			if cap(v.Nulls) < n {
				v.Nulls = make([]bool, n)
			}
			v.Nulls = v.Nulls[:n]
			for i, c := range blk[:n] {
				v.Nulls[i] = c == 1
			}
			blk = blk[n:]
		} else {
			v.Nulls = nil
		}
		switch v.Type.Storage() {
		case types.StoreInt:
			v.I64 = ResizeSlice(v.I64, n)
			var ok bool
			if blk, ok = decodeInts(blk, v.I64); !ok {
				return nil, ErrBadSpill
			}
		case types.StoreFloat:
			if len(blk) < 8*n {
				return nil, ErrBadSpill
			}
			v.F64 = ResizeSlice(v.F64, n)
			for i := range v.F64 {
				v.F64[i] = math.Float64frombits(binary.LittleEndian.Uint64(blk[8*i:]))
			}
			blk = blk[8*n:]
		case types.StoreBool:
			if len(blk) < n {
				return nil, ErrBadSpill
			}
			v.B = ResizeSlice(v.B, n)
			for i, c := range blk[:n] {
				v.B[i] = c == 1
			}
			blk = blk[n:]
		case types.StoreInterval:
			if len(blk) < 16*n {
				return nil, ErrBadSpill
			}
			v.Iv = ResizeSlice(v.Iv, n)
			for i := range v.Iv {
				p := blk[16*i:]
				v.Iv[i] = types.IntervalValue{
					Months: int32(binary.LittleEndian.Uint32(p)),
					Days:   int32(binary.LittleEndian.Uint32(p[4:])),
					Micros: int64(binary.LittleEndian.Uint64(p[8:])),
				}
			}
			blk = blk[16*n:]
		default:
			var err error
			v.S = ResizeSlice(v.S, n)
			if blk, err = d.strings(blk, v.S); err != nil {
				return nil, err
			}
		}
	}
	return blk, nil
}

// strings decodes len(out) length-prefixed strings.
func (d *BlockDecoder) strings(blk []byte, out []string) ([]byte, error) {
	d.lens = ResizeInts(d.lens, len(out))
	total := 0
	for i := range out {
		l, k := binary.Uvarint(blk)
		if k <= 0 {
			return nil, ErrBadSpill
		}
		blk = blk[k:]
		d.lens[i] = int(l)
		total += int(l)
	}
	if len(blk) < total {
		return nil, ErrBadSpill
	}
	all := string(blk[:total])
	off := 0
	for i, l := range d.lens[:len(out)] {
		out[i] = all[off : off+l]
		off += l
	}
	return blk[total:], nil
}

// DecodeByteStrings decodes n length-prefixed byte strings into one arena:
// offs gets n+1 offsets into it.
func DecodeByteStrings(blk []byte, n int, arena []byte, offs []int) ([]byte, []int, []byte, error) {
	all, offs, rest, err := ByteStringsIn(blk, n, offs)
	if err != nil {
		return nil, nil, nil, err
	}
	return append(arena[:0], all...), offs, rest, nil
}

// ByteStringsIn is DecodeByteStrings without the copy: the strings are read
// where they are in blk, for a caller done with them before blk is reused
// (a sort run's keys, replaced with its block).
func ByteStringsIn(blk []byte, n int, offs []int) ([]byte, []int, []byte, error) {
	offs = ResizeInts(offs, n+1)
	total := 0
	offs[0] = 0
	for i := 0; i < n; i++ {
		l, k := binary.Uvarint(blk)
		if k <= 0 || l > uint64(len(blk)) {
			return nil, nil, nil, ErrBadSpill
		}
		blk = blk[k:]
		total += int(l)
		offs[i+1] = total
	}
	if len(blk) < total {
		return nil, nil, nil, ErrBadSpill
	}
	return blk[:total:total], offs, blk[total:], nil
}

func ResizeSlice[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// SpillPart buffers one partition's rows and writes them a block at a time.
type SpillPart struct {
	File *SpillFile
	Buf  *ColBuf
	blk  []byte
	Rows int64
}

func (pt *SpillPart) Flush() error {
	if pt.Buf.N == 0 {
		return nil
	}
	pt.blk = AppendBlock(pt.blk[:0], pt.Buf.Vecs, 0, pt.Buf.N)
	pt.Buf.Clear()
	return pt.File.WriteBlock(pt.blk)
}

// SpillScan reads a spill file's blocks back as batches, then those of
// rest in turn.
type SpillScan struct {
	Rd   *SpillReader
	Dec  *BlockDecoder
	Rest []*SpillFile
}

func (s *SpillScan) Types() []types.T { return s.Dec.types }

func (s *SpillScan) Close() error { return nil }

func (s *SpillScan) Next(ctx context.Context) (*vec.Batch, error) {
	if err := ErrCanceled(ctx); err != nil {
		return nil, err
	}
	for {
		if s.Rd == nil {
			if len(s.Rest) == 0 {
				return nil, nil
			}
			rd, err := s.Rest[0].Reader()
			if err != nil {
				return nil, err
			}
			s.Rd, s.Rest = rd, s.Rest[1:]
		}
		blk, err := s.Rd.Next()
		if err != nil {
			return nil, err
		}
		if blk == nil {
			s.Rd = nil
			continue
		}
		if _, err := s.Dec.Decode(blk); err != nil {
			return nil, err
		}
		return &s.Dec.B, nil
	}
}

func ResizeInts(s []int, n int) []int {
	if cap(s) < n {
		return make([]int, n, n+n/4)
	}
	return s[:n]
}
