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

	once    sync.Once
	rows    *memory.ColBuf
	spill   *memory.SpillFile
	err     error
	res     memory.Reservation
	mu      sync.Mutex
	readers int
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
			m.res.Mem = memory.MemFor(ctx, m.Mem)
			m.res.Mem.AtEnd(m.statementEnd)
			m.res.Spill = true
			m.res.Cap = memory.WorkMemOf(ctx)
			m.rows = memory.NewColBuf(m.Input.Types(), vec.BatchSize)
			var blk []byte
			err := Drain(ctx, m.Input, func(b *vec.Batch) error {
				if m.spill == nil {
					err := m.res.Grow(memory.BatchBytes(b, 0, b.N))
					if err == nil {
						m.rows.AppendBatch(b, 0, b.N)
						return nil
					}
					if pgerr.Code(err) != memory.OutOfMemory {
						return err
					}
					if m.spill, err = memory.NewSpillFile(memory.GlobalSpill, QueryStatsOf(ctx).Spill(), "cte"); err != nil {
						return err
					}
					for lo := 0; lo < m.rows.N; lo += vec.BatchSize {
						blk = memory.AppendBlock(blk[:0], m.rows.Vecs, lo, min(lo+vec.BatchSize, m.rows.N))
						if err := m.spill.WriteBlock(blk); err != nil {
							return err
						}
					}
					m.rows = nil
					m.res.Release()
				}
				blk = memory.AppendBlock(blk[:0], b.Vecs, 0, b.N)
				return m.spill.WriteBlock(blk)
			})
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
	m.res.Release()
	m.spill.Unlink()
}

// MaterializedReader streams a Materialized's rows in batches.
type MaterializedReader struct {
	M      *Materialized
	pos    int
	out    vec.Batch
	file   *memory.SpillScan // the rows, when they were spilled
	closed bool
}

func (r *MaterializedReader) Types() []types.T { return r.M.Input.Types() }

func (r *MaterializedReader) Next(ctx context.Context) (*vec.Batch, error) {
	if err := r.M.fill(ctx); err != nil {
		return nil, err
	}
	if r.M.spill != nil {
		if r.file == nil {
			rd, err := r.M.spill.Reader()
			if err != nil {
				return nil, err
			}
			r.file = &memory.SpillScan{Rd: rd, Dec: memory.NewBlockDecoder(r.Types())}
		}
		return r.file.Next(ctx)
	}
	rows := r.M.rows
	if r.pos >= rows.N {
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
		m.res.Release()
		m.rows = nil
		m.spill.Close()
	}
	m.mu.Unlock()
	if !last {
		return nil
	}
	return m.Input.Close()
}

// RowBuffer keeps the rows appended to it, for a reader that comes later
// (the RETURNING rows of a write, sent once the write is done). The rows
// are charged to Mem (nil: GlobalMemory); exceeding it fails with 53200.
type RowBuffer struct {
	Mem  *memory.Memory
	ts   []types.T
	rows *memory.ColBuf
	res  memory.Reservation
}

// NewRowBuffer makes an empty buffer for rows of the given column types.
func NewRowBuffer(ts []types.T, mem *memory.Memory) *RowBuffer {
	return &RowBuffer{Mem: mem, ts: ts, rows: memory.NewColBuf(ts, vec.BatchSize), res: memory.Reservation{Mem: mem}}
}

// Append copies b's rows into the buffer.
func (r *RowBuffer) Append(b *vec.Batch) error {
	if b == nil || b.N == 0 {
		return nil
	}
	if err := r.res.Grow(memory.BatchBytes(b, 0, b.N)); err != nil {
		return err
	}
	r.rows.AppendBatch(b, 0, b.N)
	return nil
}

// Len is the number of rows buffered.
func (r *RowBuffer) Len() int { return r.rows.N }

// Reader streams the buffered rows once; its Close releases them.
func (r *RowBuffer) Reader() Operator { return &rowBufferReader{r: r, release: true} }

// Scan streams the buffered rows, leaving them for other scans; Release
// frees them once every scan is done.
func (r *RowBuffer) Scan() Operator { return &rowBufferReader{r: r} }

// Release gives the rows' memory back.
func (r *RowBuffer) Release() {
	r.res.Release()
	r.rows = nil
}

type rowBufferReader struct {
	r       *RowBuffer
	pos     int
	out     vec.Batch
	release bool
}

func (rd *rowBufferReader) Types() []types.T { return rd.r.ts }

func (rd *rowBufferReader) Next(ctx context.Context) (*vec.Batch, error) {
	rows := rd.r.rows
	if rows == nil || rd.pos >= rows.N {
		return nil, nil
	}
	if err := memory.ErrCanceled(ctx); err != nil {
		return nil, err
	}
	hi := min(rd.pos+vec.BatchSize, rows.N)
	rd.out.Vecs = rd.out.Vecs[:0]
	for _, v := range rows.Vecs {
		rd.out.Vecs = append(rd.out.Vecs, v.Slice(rd.pos, hi))
	}
	rd.out.N = hi - rd.pos
	rd.pos = hi
	return &rd.out, nil
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
