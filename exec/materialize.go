package exec

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/lakepg/lakepg/exec/memory"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// Materialized runs Input once and keeps its rows, so that several readers
// (a WITH query referenced more than once, TPC-H Q15) scan one result
// instead of each running the query again. The rows are charged to Mem
// (nil: GlobalMemory); when they outgrow it they go to a spill file, the
// rest of Input after them, and every reader streams the file.
type Materialized struct {
	Input Operator
	Mem   *memory.Memory

	once sync.Once
	rowStore
	err     error
	mu      sync.Mutex
	readers int
}

// rowStore keeps rows in a column buffer while its reservation can grow,
// and past that in a spill file: the rows so far, then every row after
// them. Readers read the buffer or the file, side by side.
type rowStore struct {
	rows  *memory.ColBuf
	spill *memory.SpillFile
	res   memory.Reservation
	kind  string // the spill file's name
	blk   []byte
}

// start readies s for rows of types ts, charged to mem (nil: the
// statement's), spilling past the session's work_mem.
func (s *rowStore) start(ctx context.Context, ts []types.T, mem *memory.Memory, kind string) {
	s.res.Mem = memory.MemFor(ctx, mem)
	s.res.Spill = true
	s.res.Cap = memory.WorkMemOf(ctx)
	s.rows = memory.NewColBuf(ts, vec.BatchSize)
	s.kind = kind
}

// add keeps b's rows.
func (s *rowStore) add(ctx context.Context, b *vec.Batch) error {
	if s.spill == nil {
		err := s.res.Grow(memory.BatchBytes(b, 0, b.N))
		if err == nil {
			s.rows.AppendBatch(b, 0, b.N)
			return nil
		}
		if pgerr.Code(err) != memory.OutOfMemory {
			return err
		}
		if s.spill, err = memory.NewSpillFile(memory.GlobalSpill, QueryStatsOf(ctx).Spill(), s.kind); err != nil {
			return err
		}
		for lo := 0; lo < s.rows.N; lo += vec.BatchSize {
			s.blk = memory.AppendBlock(s.blk[:0], s.rows.Vecs, lo, min(lo+vec.BatchSize, s.rows.N))
			if err := s.spill.WriteBlock(s.blk); err != nil {
				return err
			}
		}
		s.rows = nil
		s.res.Release()
	}
	s.blk = memory.AppendBlock(s.blk[:0], b.Vecs, 0, b.N)
	return s.spill.WriteBlock(s.blk)
}

// release gives the rows' memory and file back.
func (s *rowStore) release() {
	s.res.Release()
	s.rows = nil
	s.spill.Close()
}

// statementEnd gives back what the rows hold when the statement ends:
// they stay readable but no longer count, and the spill file's name goes.
func (s *rowStore) statementEnd() {
	s.res.Release()
	s.spill.Unlink()
}

// rowStoreScan streams a rowStore's rows from pos on; its Next returns
// views of the buffer or batches decoded from the file.
type rowStoreScan struct {
	s    *rowStore
	ts   []types.T
	pos  int
	out  vec.Batch
	file *memory.SpillScan
}

func (r *rowStoreScan) Next(ctx context.Context) (*vec.Batch, error) {
	if err := memory.ErrCanceled(ctx); err != nil {
		return nil, err
	}
	if r.s.spill != nil {
		if r.file == nil {
			rd, err := r.s.spill.Reader()
			if err != nil {
				return nil, err
			}
			r.file = &memory.SpillScan{Rd: rd, Dec: memory.NewBlockDecoder(r.ts)}
		}
		return r.file.Next(ctx)
	}
	rows := r.s.rows
	if rows == nil || r.pos >= rows.N {
		return nil, nil
	}
	hi := min(r.pos+vec.BatchSize, rows.N)
	r.out.Vecs = r.out.Vecs[:0]
	for _, v := range rows.Vecs {
		r.out.Vecs = append(r.out.Vecs, v.Slice(r.pos, hi))
	}
	r.out.N = hi - r.pos
	r.pos = hi
	return &r.out, nil
}

// Reader returns a new scan of the materialized rows. Every reader must be
// closed; the last Close releases the rows and closes Input.
func (m *Materialized) Reader() *MaterializedReader {
	m.mu.Lock()
	m.readers++
	m.mu.Unlock()
	return &MaterializedReader{M: m}
}

func (m *Materialized) fill(ctx context.Context) error {
	m.once.Do(func() {
		m.err = Guard(func() error {
			m.start(ctx, m.Input.Types(), m.Mem, "cte")
			m.res.Mem.AtEnd(m.statementEnd)
			err := Drain(ctx, m.Input, func(b *vec.Batch) error { return m.add(ctx, b) })
			if err == nil && m.spill != nil {
				// written out before the readers read it side by side
				_, err = m.spill.Reader()
			}
			return err
		})
	})
	return m.err
}

// statementEnd gives back, when the statement ends, what its readers give
// back when the last of them closes: a plan the planner makes only to
// learn a subquery's shape takes a reader and drops it unclosed. The rows
// stay readable — a cursor's readers go on after its DECLARE — but no
// longer count, and the spill file's name goes.
func (m *Materialized) statementEnd() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.rowStore.statementEnd()
}

// MaterializedReader streams a Materialized's rows in batches.
type MaterializedReader struct {
	M      *Materialized
	scan   rowStoreScan
	closed bool
}

func (r *MaterializedReader) Types() []types.T { return r.M.Input.Types() }

func (r *MaterializedReader) Next(ctx context.Context) (*vec.Batch, error) {
	if err := r.M.fill(ctx); err != nil {
		return nil, err
	}
	if r.scan.s == nil {
		r.scan = rowStoreScan{s: &r.M.rowStore, ts: r.Types()}
	}
	return r.scan.Next(ctx)
}

func (r *MaterializedReader) Close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	m := r.M
	m.mu.Lock()
	m.readers--
	last := m.readers == 0
	if last {
		m.release()
	}
	m.mu.Unlock()
	if !last {
		return nil
	}
	return m.Input.Close()
}

// RowBuffer keeps the rows appended to it, for a reader that comes later
// (the RETURNING rows of a write, sent once the write is done; the rows a
// MERGE or an upsert takes two passes over). The rows are charged to Mem
// (nil: the statement's memory); past it they go to a spill file.
type RowBuffer struct {
	Mem   *memory.Memory
	ts    []types.T
	store *rowStore // nil until the first rows
	n     int
}

// NewRowBuffer makes an empty buffer for rows of the given column types.
func NewRowBuffer(ts []types.T, mem *memory.Memory) *RowBuffer {
	return &RowBuffer{Mem: mem, ts: ts}
}

// Append copies b's rows into the buffer.
func (r *RowBuffer) Append(ctx context.Context, b *vec.Batch) error {
	if b == nil || b.N == 0 {
		return nil
	}
	if r.store == nil {
		r.store = &rowStore{}
		r.store.start(ctx, r.ts, r.Mem, "rows")
		// a reader the statement drops (an error on the way) leaves
		// nothing behind it
		r.store.res.Mem.AtEnd(r.store.statementEnd)
	}
	r.n += b.N
	return r.store.add(ctx, b)
}

// Len is the number of rows buffered.
func (r *RowBuffer) Len() int { return r.n }

// Reader streams the buffered rows once; its Close releases them.
func (r *RowBuffer) Reader() Operator { return &rowBufferReader{r: r, release: true} }

// Scan streams the buffered rows, leaving them for other scans; Release
// frees them once every scan is done.
func (r *RowBuffer) Scan() Operator { return &rowBufferReader{r: r} }

// Release gives the rows' memory and spill file back.
func (r *RowBuffer) Release() {
	if r.store != nil {
		r.store.release()
	}
}

type rowBufferReader struct {
	r       *RowBuffer
	scan    rowStoreScan
	release bool
}

func (rd *rowBufferReader) Types() []types.T { return rd.r.ts }

func (rd *rowBufferReader) Next(ctx context.Context) (*vec.Batch, error) {
	if rd.r.store == nil {
		return nil, nil
	}
	if rd.scan.s == nil {
		rd.scan = rowStoreScan{s: rd.r.store, ts: rd.r.ts}
	}
	return rd.scan.Next(ctx)
}

func (rd *rowBufferReader) Close() error {
	if rd.release {
		rd.r.Release()
	}
	return nil
}

// rowMorsels deals a MaterializedReader's rows to the workers of a
// Parallel a batch at a time: the joins, filters and projections over a
// WITH query read several times run on every core like those over a
// table scan (TPC-DS q47 and q57 join three reads of one WITH query).
type rowMorsels struct {
	r    *MaterializedReader
	next atomic.Int64

	mu sync.Mutex          // guards rd
	rd *memory.SpillReader // the spilled rows, read block by block
}

// rowMorsel is one worker's source: views of the rows it took.
type rowMorsel struct {
	q   *rowMorsels
	out vec.Batch
	blk []byte               // a block of spilled rows it took
	dec *memory.BlockDecoder // and its rows
}

// nextBlock copies the spill file's next block into dst (nil at the end).
func (q *rowMorsels) nextBlock(dst []byte) ([]byte, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.rd == nil {
		rd, err := q.r.M.spill.Reader()
		if err != nil {
			return nil, err
		}
		q.rd = rd
	}
	blk, err := q.rd.Next()
	if blk == nil || err != nil {
		return nil, err
	}
	return append(dst[:0], blk...), nil
}

func (m *rowMorsel) Types() []types.T { return m.q.r.Types() }

// Close leaves the reader to the Parallel, which closes it once.
func (m *rowMorsel) Close() error { return nil }

func (m *rowMorsel) Next(ctx context.Context) (*vec.Batch, error) {
	if err := m.q.r.M.fill(ctx); err != nil {
		return nil, err
	}
	if m.q.r.M.spill != nil {
		if err := memory.ErrCanceled(ctx); err != nil {
			return nil, err
		}
		blk, err := m.q.nextBlock(m.blk)
		if blk == nil || err != nil {
			return nil, err
		}
		m.blk = blk
		if m.dec == nil {
			m.dec = memory.NewBlockDecoder(m.Types())
		}
		if _, err := m.dec.Decode(blk); err != nil {
			return nil, err
		}
		return &m.dec.B, nil
	}
	rows := m.q.r.M.rows
	lo := int(m.q.next.Add(vec.BatchSize)) - vec.BatchSize
	if lo >= rows.N {
		return nil, nil
	}
	hi := min(lo+vec.BatchSize, rows.N)
	m.out.Vecs = m.out.Vecs[:0]
	for _, v := range rows.Vecs {
		m.out.Vecs = append(m.out.Vecs, v.Slice(lo, hi))
	}
	m.out.N = hi - lo
	return &m.out, nil
}
