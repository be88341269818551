package exec

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/lakepg/lakepg/exec/memory"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// Materialized runs Input once and keeps its rows, so that several readers
// (a WITH query referenced more than once, TPC-H Q15) scan one result
// instead of each running the query again. The rows are charged to Mem
// (nil: GlobalMemory); exceeding it fails the query with 53200.
type Materialized struct {
	Input Operator
	Mem   *memory.Memory

	once    sync.Once
	rows    *memory.ColBuf
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
			m.res.Mem = m.Mem
			m.rows = memory.NewColBuf(m.Input.Types(), vec.BatchSize)
			return Drain(ctx, m.Input, func(b *vec.Batch) error {
				if err := m.res.Grow(memory.BatchBytes(b, 0, b.N)); err != nil {
					return err
				}
				m.rows.AppendBatch(b, 0, b.N)
				return nil
			})
		})
	})
	return m.err
}

// MaterializedReader streams a Materialized's rows in batches.
type MaterializedReader struct {
	M      *Materialized
	pos    int
	out    vec.Batch
	closed bool
}

func (r *MaterializedReader) Types() []types.T { return r.M.Input.Types() }

func (r *MaterializedReader) Next(ctx context.Context) (*vec.Batch, error) {
	if err := r.M.fill(ctx); err != nil {
		return nil, err
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
	m.mu.Unlock()
	if !last {
		return nil
	}
	m.res.Release()
	m.rows = nil
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
}

// rowMorsel is one worker's source: views of the rows it took.
type rowMorsel struct {
	q   *rowMorsels
	out vec.Batch
}

func (m *rowMorsel) Types() []types.T { return m.q.r.Types() }

// Close leaves the reader to the Parallel, which closes it once.
func (m *rowMorsel) Close() error { return nil }

func (m *rowMorsel) Next(ctx context.Context) (*vec.Batch, error) {
	if err := m.q.r.M.fill(ctx); err != nil {
		return nil, err
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
