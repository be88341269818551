package exec

import (
	"context"
	"errors"

	"github.com/lakepg/lakepg/exec/memory"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// A session's temporary tables keep their rows in memory as TableChunks:
// column vectors that never change once built, so that a table version is
// a list of chunk pointers, a transaction's snapshot of it is a copy of
// that list, and scans read the vectors where they lie.

// ChunkRows is how many rows a TableChunk holds at most.
const ChunkRows = 16 * vec.BatchSize

// TableChunk is an immutable run of rows.
type TableChunk struct {
	Vecs  []*vec.Vector
	N     int
	Bytes int64 // what the rows are charged to their Memory account
}

// ChunkWriter builds chunks from batches, charging their bytes to Mem
// (nil: GlobalMemory) as they grow; a table that outgrows the budget fails
// with 53200.
type ChunkWriter struct {
	Mem    *memory.Memory
	T      []types.T
	cur    *memory.ColBuf
	curB   int64
	chunks []*TableChunk
	held   int64 // bytes charged for chunks not yet taken
}

// NewChunkWriter starts chunks of the given column types. seed, when not
// nil, is copied first (a table's small last chunk, rebuilt rather than
// followed by another small one).
func NewChunkWriter(ts []types.T, mem *memory.Memory, seed *TableChunk) (*ChunkWriter, error) {
	w := &ChunkWriter{Mem: mem, T: ts}
	if seed != nil && seed.N > 0 {
		if err := w.Append(&vec.Batch{Vecs: seed.Vecs, N: seed.N}); err != nil {
			return nil, err
		}
	}
	return w, nil
}

// Append copies b's rows.
func (w *ChunkWriter) Append(b *vec.Batch) error {
	for lo := 0; lo < b.N; {
		if w.cur == nil {
			w.cur = memory.NewColBuf(w.T, min(vec.BatchSize, ChunkRows))
		}
		hi := min(b.N, lo+ChunkRows-w.cur.N)
		n := memory.BatchBytes(b, lo, hi)
		if err := w.Mem.Grow(n); err != nil {
			return tempTableMemoryError(err)
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

func (w *ChunkWriter) seal() {
	if w.cur == nil || w.cur.N == 0 {
		return
	}
	w.chunks = append(w.chunks, &TableChunk{Vecs: w.cur.Vecs, N: w.cur.N, Bytes: w.curB})
	w.cur, w.curB = nil, 0
}

// Drain appends every batch of in.
func (w *ChunkWriter) Drain(ctx context.Context, in Operator) error {
	return Guard(func() error { return Drain(ctx, in, w.Append) })
}

// Chunks ends the writer: the chunks built, whose bytes the caller now
// owns (and gives back with Mem.Shrink(chunk.Bytes) when it drops them).
func (w *ChunkWriter) Chunks() []*TableChunk {
	w.seal()
	out := w.chunks
	w.chunks, w.held = nil, 0
	return out
}

// Abort gives back what the writer charged and drops its rows.
func (w *ChunkWriter) Abort() {
	w.Mem.Shrink(w.held)
	w.cur, w.chunks, w.held, w.curB = nil, nil, 0, 0
}

func tempTableMemoryError(err error) error {
	var pe *pgerr.Error
	if errors.As(err, &pe) {
		c := *pe
		c.Hint = "A temporary table is kept in memory and counted against lakepg's memory budget; it cannot grow beyond it (temporary tables do not spill to disk)."
		return &c
	}
	return err
}

// ChunkScan streams a table's chunks in batches that are views of the
// stored vectors (nothing is copied). With Ord it adds a last column, the
// row's ordinal in the table (from 0), which lets UPDATE and DELETE name
// the rows they change.
type ChunkScan struct {
	T      []types.T
	Chunks []*TableChunk
	Ord    bool
	Label  string // the table, for EXPLAIN

	ci, pos int
	base    int64
	out     vec.Batch
	ord     *vec.Vector
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
	}
	if s.ci >= len(s.Chunks) {
		return nil, nil
	}
	if err := memory.ErrCanceled(ctx); err != nil {
		return nil, err
	}
	c := s.Chunks[s.ci]
	lo, hi := s.pos, min(s.pos+vec.BatchSize, c.N)
	s.out.Vecs = s.out.Vecs[:0]
	for _, v := range c.Vecs {
		s.out.Vecs = append(s.out.Vecs, v.Slice(lo, hi))
	}
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
	s.pos = hi
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
