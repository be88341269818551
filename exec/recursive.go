package exec

import (
	"context"

	"github.com/lakepg/lakepg/exec/memory"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// WorkTable holds the rows of the previous iteration of a recursive query:
// in memory while its reservation grows, the rest in a spill file.
type WorkTable struct {
	T    []types.T
	rows *memory.ColBuf
	part *memory.SpillPart // rows past the budget (nil: none)
	res  memory.Reservation
}

// add appends b's rows, to the file once the reservation is refused.
func (w *WorkTable) add(ctx context.Context, b *vec.Batch) error {
	if b.N == 0 {
		return nil
	}
	if w.part == nil {
		err := w.res.Grow(memory.BatchBytes(b, 0, b.N))
		if err == nil {
			w.rows.AppendBatch(b, 0, b.N)
			return nil
		}
		if pgerr.Code(err) != memory.OutOfMemory {
			return err
		}
		f, err := memory.NewSpillFile(memory.GlobalSpill, QueryStatsOf(ctx).Spill(), "worktable")
		if err != nil {
			return err
		}
		w.part = &memory.SpillPart{File: f, Buf: memory.NewColBuf(w.T, vec.BatchSize)}
	}
	pt := w.part
	for lo := 0; lo < b.N; {
		hi := min(b.N, lo+vec.BatchSize-pt.Buf.N)
		pt.Buf.AppendBatch(b, lo, hi)
		pt.Rows += int64(hi - lo)
		lo = hi
		if pt.Buf.N == vec.BatchSize {
			if err := pt.Flush(); err != nil {
				return err
			}
		}
	}
	return nil
}

func (w *WorkTable) n() int64 {
	n := int64(w.rows.N)
	if w.part != nil {
		n += w.part.Rows
	}
	return n
}

// reset empties the table (its memory given back, its file removed).
func (w *WorkTable) reset(mem *memory.Memory) {
	w.close()
	w.rows = memory.NewColBuf(w.T, vec.BatchSize)
	w.res = memory.Reservation{Mem: mem, Spill: true}
}

func (w *WorkTable) close() {
	if w.part != nil {
		w.part.File.Close()
		w.part = nil
	}
	w.rows = nil
	w.res.Release()
}

// WorkTableScan reads a WorkTable as it is when the scan starts.
type WorkTableScan struct {
	W       *WorkTable
	started bool
	rows    *memory.ColBuf
	pos     int
	file    *memory.SpillScan
	out     vec.Batch
}

func (s *WorkTableScan) Types() []types.T { return s.W.T }
func (s *WorkTableScan) Close() error     { return nil }
func (s *WorkTableScan) Next(ctx context.Context) (*vec.Batch, error) {
	if !s.started {
		s.started = true
		s.rows = s.W.rows
		if pt := s.W.part; pt != nil && pt.Rows > 0 {
			if err := pt.Flush(); err != nil {
				return nil, err
			}
			rd, err := pt.File.Reader()
			if err != nil {
				return nil, err
			}
			s.file = &memory.SpillScan{Rd: rd, Dec: memory.NewBlockDecoder(s.W.T)}
		}
	}
	if s.rows != nil && s.pos < s.rows.N {
		lo, hi := s.pos, min(s.pos+vec.BatchSize, s.rows.N)
		s.out.Vecs = s.out.Vecs[:0]
		for _, v := range s.rows.Vecs {
			s.out.Vecs = append(s.out.Vecs, v.Slice(lo, hi))
		}
		s.out.N, s.pos = hi-lo, hi
		return &s.out, nil
	}
	if s.file != nil {
		return s.file.Next(ctx)
	}
	return nil, nil
}

// MaxRecursion bounds WITH RECURSIVE iterations so a query without a
// terminating condition fails instead of running forever.
const MaxRecursion = 100000

// RecursiveUnion evaluates WITH RECURSIVE: the base rows, then the
// recursive term (planned afresh by Step for each iteration, reading Work)
// until it yields no new rows. Without All, rows already produced are
// dropped, as UNION does.
//
// An iteration's rows go to the work table the next one reads, which
// spills to a file past its reservation. UNION's set of rows already
// produced is kept in memory, its entries reserved (53200 when it
// outgrows the budget), as PostgreSQL keeps it in one hash table: every
// iteration looks up every new row in all of it.
type RecursiveUnion struct {
	Base Operator
	Step func() (Operator, error)
	Work *WorkTable
	All  bool
	Mem  *memory.Memory // nil: the query's

	seen    map[string]bool
	seenRes memory.Reservation
	next    *WorkTable
	cur     Operator
	iter    int
	key     []byte
	sel     []int32
	out     *memory.ColBuf
}

func (r *RecursiveUnion) Types() []types.T { return r.Work.T }
func (r *RecursiveUnion) Close() error {
	err := r.Base.Close()
	if r.cur != nil && r.cur != r.Base {
		if e := r.cur.Close(); err == nil {
			err = e
		}
	}
	r.Work.close()
	if r.next != nil {
		r.next.close()
	}
	r.seen = nil
	r.seenRes.Release()
	return err
}

// keep filters b to rows not seen before (UNION) and records them for the
// next iteration.
func (r *RecursiveUnion) keep(ctx context.Context, b *vec.Batch) (*vec.Batch, error) {
	out := b
	if !r.All {
		r.sel = r.sel[:0]
		for i := 0; i < b.N; i++ {
			r.key = r.key[:0]
			for _, v := range b.Vecs {
				r.key = appendKey(r.key, v, i)
			}
			if r.seen[string(r.key)] {
				continue
			}
			if err := r.seenRes.Grow(int64(len(r.key)) + setOpEntryBytes); err != nil {
				return nil, err
			}
			r.seen[string(r.key)] = true
			r.sel = append(r.sel, int32(i))
		}
		if len(r.sel) == 0 {
			return nil, nil
		}
		if len(r.sel) < b.N {
			o := r.out
			o.Clear()
			for c, v := range b.Vecs {
				o.Gather(c, v, r.sel)
			}
			o.N = len(r.sel)
			out = &o.Batch
		}
	}
	if err := r.next.add(ctx, out); err != nil {
		return nil, err
	}
	return out, nil
}

func (r *RecursiveUnion) Next(ctx context.Context) (*vec.Batch, error) {
	if r.cur == nil {
		r.Mem = memory.MemFor(ctx, r.Mem)
		r.cur = r.Base
		r.seen = map[string]bool{}
		r.seenRes.Mem = r.Mem
		r.out = memory.NewColBuf(r.Work.T, vec.BatchSize)
		r.next = &WorkTable{T: r.Work.T}
		r.next.reset(r.Mem)
	}
	for {
		if err := memory.ErrCanceled(ctx); err != nil {
			return nil, err
		}
		b, err := r.cur.Next(ctx)
		if err != nil {
			return nil, err
		}
		if b != nil {
			if b.N == 0 {
				continue
			}
			out, err := r.keep(ctx, b)
			if err != nil || out != nil {
				return out, err
			}
			continue
		}
		// iteration finished: the new rows become the work table
		if r.cur != r.Base {
			r.cur.Close()
		}
		if r.next.n() == 0 {
			return nil, nil
		}
		r.iter++
		if r.iter > MaxRecursion {
			return nil, pgerr.New(pgerr.InsufficientResources, "WITH RECURSIVE did not finish after %d iterations", MaxRecursion)
		}
		w := r.Work
		w.close()
		*w, *r.next = *r.next, WorkTable{T: w.T}
		r.next.reset(r.Mem)
		if r.cur, err = r.Step(); err != nil {
			return nil, err
		}
	}
}
