package exec

import (
	"context"
	"sync/atomic"

	"github.com/lakepg/lakepg/exec/memory"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// A session's temporary tables keep their rows as TableChunks: column
// vectors that never change once built, so that a table version is a list
// of chunk pointers, a transaction's snapshot of it is a copy of that list,
// and scans read the vectors where they lie. A chunk written when the
// memory budget had no room is a run of spill blocks in a file of the temp
// space instead, read back a batch at a time; the file is shared by the
// chunks one writer made and removed when the last of them is dropped.

// ChunkRows is how many rows a TableChunk holds at most.
const ChunkRows = 16 * vec.BatchSize

// TableChunk is an immutable run of rows.
type TableChunk struct {
	Vecs  []*vec.Vector // nil for a chunk on disk
	N     int
	Bytes int64 // what the rows are charged to their Memory account
	// on disk: bytes [off, off+size) of file
	file      *chunkFile
	off, size int64
}

// OnDisk reports whether the chunk's rows are in a file.
func (c *TableChunk) OnDisk() bool { return c.file != nil }

// Drop gives up a chunk no table version reaches any more: a chunk on disk
// lets go of its file (removed with its last chunk). The caller gives back
// Bytes.
func (c *TableChunk) Drop() {
	if c.file != nil {
		c.file.unref()
		c.file = nil
	}
}

// chunkFile is a spill file holding chunks, counted by the chunks (and the
// writer) that refer to it.
type chunkFile struct {
	f    *memory.SpillFile
	refs atomic.Int32
}

func (f *chunkFile) unref() {
	if f.refs.Add(-1) == 0 {
		f.f.Close()
	}
}

// ChunkWriter builds chunks from batches, charging their bytes to Mem
// (nil: GlobalMemory) as they grow. Once the budget refuses them (it keeps
// an eighth for what cannot spill), the rest of the rows are written to a
// file as chunks on disk; only running out of temp space fails, with 53200.
type ChunkWriter struct {
	Mem    *memory.Memory
	T      []types.T
	cur    *memory.ColBuf
	curB   int64
	chunks []*TableChunk
	held   int64 // bytes charged for chunks not yet taken
	// disk: rows go to file, the current chunk's from doff, dn of them
	file *chunkFile
	doff int64
	dn   int
	blk  []byte
}

// NewChunkWriter starts chunks of the given column types. seed, when not
// nil, is copied first (a table's small last chunk, rebuilt rather than
// followed by another small one).
func NewChunkWriter(ts []types.T, mem *memory.Memory, seed *TableChunk) (*ChunkWriter, error) {
	w := &ChunkWriter{Mem: mem, T: ts}
	if seed != nil && seed.N > 0 {
		err := Drain(context.Background(), &ChunkScan{T: ts, Chunks: []*TableChunk{seed}}, w.Append)
		if err != nil {
			w.Abort()
			return nil, err
		}
	}
	return w, nil
}

// Append copies b's rows.
func (w *ChunkWriter) Append(b *vec.Batch) error {
	for lo := 0; lo < b.N; {
		if w.file != nil {
			hi := min(b.N, lo+vec.BatchSize, lo+ChunkRows-w.dn)
			if err := w.write(b, lo, hi); err != nil {
				return err
			}
			lo = hi
			continue
		}
		if w.cur == nil {
			w.cur = memory.NewColBuf(w.T, min(vec.BatchSize, ChunkRows))
		}
		hi := min(b.N, lo+ChunkRows-w.cur.N)
		n := memory.BatchBytes(b, lo, hi)
		if err := w.Mem.GrowSpillable(n); err != nil {
			if pgerr.Code(err) != memory.OutOfMemory {
				return err
			}
			// no room: this chunk ends here, the rest go to disk
			w.seal()
			f, err := memory.NewSpillFile(memory.GlobalSpill, nil, "temptable")
			if err != nil {
				return err
			}
			w.file = &chunkFile{f: f}
			w.file.refs.Store(1) // the writer's
			continue
		}
		w.held += n
		w.curB += n
		w.cur.AppendBatch(b, lo, hi)
		lo = hi
		if w.cur.N == ChunkRows {
			w.seal()
		}
	}
	return nil
}

// write appends rows [lo, hi) of b to the chunk on disk.
func (w *ChunkWriter) write(b *vec.Batch, lo, hi int) error {
	w.blk = memory.AppendBlock(w.blk[:0], b.Vecs, lo, hi)
	if err := w.file.f.WriteBlock(w.blk); err != nil {
		return err
	}
	w.dn += hi - lo
	if w.dn == ChunkRows {
		w.sealDisk()
	}
	return nil
}

func (w *ChunkWriter) seal() {
	if w.cur == nil || w.cur.N == 0 {
		return
	}
	w.chunks = append(w.chunks, &TableChunk{Vecs: w.cur.Vecs, N: w.cur.N, Bytes: w.curB})
	w.cur, w.curB = nil, 0
}

func (w *ChunkWriter) sealDisk() {
	if w.file == nil || w.dn == 0 {
		return
	}
	end := w.file.f.Size
	w.file.refs.Add(1)
	w.chunks = append(w.chunks, &TableChunk{N: w.dn, file: w.file, off: w.doff, size: end - w.doff})
	w.doff, w.dn = end, 0
}

// Drain appends every batch of in.
func (w *ChunkWriter) Drain(ctx context.Context, in Operator) error {
	return Guard(func() error { return Drain(ctx, in, w.Append) })
}

// Chunks ends the writer: the chunks built, whose bytes the caller now
// owns (and gives back with Mem.Shrink(chunk.Bytes) when it drops them,
// and Drop).
func (w *ChunkWriter) Chunks() ([]*TableChunk, error) {
	w.seal()
	if w.file != nil {
		w.sealDisk()
		err := w.file.f.Flush()
		w.file.unref()
		w.file = nil
		if err != nil {
			w.dropAll()
			return nil, err
		}
	}
	out := w.chunks
	w.chunks, w.held = nil, 0
	return out, nil
}

// Abort gives back what the writer charged and drops its rows.
func (w *ChunkWriter) Abort() {
	w.Mem.Shrink(w.held)
	if w.file != nil {
		w.file.unref()
		w.file = nil
	}
	w.dropAll()
}

func (w *ChunkWriter) dropAll() {
	for _, c := range w.chunks {
		c.Drop()
	}
	w.cur, w.chunks, w.held, w.curB = nil, nil, 0, 0
}

// ChunkScan streams a table's chunks in batches that are views of the
// stored vectors (nothing is copied), or decoded a block at a time from a
// chunk on disk. With Ord it adds a last column, the row's ordinal in the
// table (from 0), which lets UPDATE and DELETE name the rows they change.
type ChunkScan struct {
	T      []types.T
	Chunks []*TableChunk
	Ord    bool
	Label  string // the table, for EXPLAIN

	ci, pos int
	base    int64
	out     vec.Batch
	ord     *vec.Vector
	rd      *memory.SpillReader // the chunk on disk being read
	dec     *memory.BlockDecoder
}

func (s *ChunkScan) Types() []types.T {
	if s.Ord {
		return append(append([]types.T(nil), s.T...), types.Int64T)
	}
	return s.T
}

func (s *ChunkScan) Next(ctx context.Context) (*vec.Batch, error) {
	for s.ci < len(s.Chunks) && s.pos >= s.Chunks[s.ci].N {
		s.base += int64(s.Chunks[s.ci].N)
		s.ci, s.pos = s.ci+1, 0
		s.rd = nil
	}
	if s.ci >= len(s.Chunks) {
		return nil, nil
	}
	if err := memory.ErrCanceled(ctx); err != nil {
		return nil, err
	}
	c := s.Chunks[s.ci]
	lo := s.pos
	s.out.Vecs = s.out.Vecs[:0]
	if c.file != nil {
		if s.rd == nil {
			s.rd = c.file.f.SectionReader(c.off, c.size)
			if s.dec == nil {
				s.dec = memory.NewBlockDecoder(s.T)
			}
		}
		blk, err := s.rd.Next()
		if err != nil {
			return nil, err
		}
		if blk == nil {
			return nil, pgerr.New(pgerr.Internal, "temporary table chunk file ends early")
		}
		if _, err := s.dec.Decode(blk); err != nil {
			return nil, err
		}
		s.out.Vecs = append(s.out.Vecs, s.dec.B.Vecs...)
		s.pos += s.dec.B.N
	} else {
		s.pos = min(s.pos+vec.BatchSize, c.N)
		for _, v := range c.Vecs {
			s.out.Vecs = append(s.out.Vecs, v.Slice(lo, s.pos))
		}
	}
	hi := s.pos
	if s.Ord {
		if s.ord == nil {
			s.ord = vec.New(types.Int64T, vec.BatchSize)
		}
		s.ord.I64 = s.ord.I64[:0]
		for i := lo; i < hi; i++ {
			s.ord.I64 = append(s.ord.I64, s.base+int64(i))
		}
		s.out.Vecs = append(s.out.Vecs, s.ord)
	}
	s.out.N = hi - lo
	return &s.out, nil
}

func (s *ChunkScan) Close() error { return nil }

// Rows is how many rows the scan reads.
func (s *ChunkScan) Rows() int64 {
	var n int64
	for _, c := range s.Chunks {
		n += int64(c.N)
	}
	return n
}
