package exec

import (
	"context"

	"github.com/lakepg/lakepg/exec/joinspill"
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
// produced is a map of their encoded keys, its entries reserved; when one
// does not fit, the keys go to 16 files (joinspill.Parts) by their hash
// and the map is dropped. From then on an iteration's rows wait in files by the
// same hash (cand); when it ends, each partition's keys are read into a map
// of their own and its waiting rows checked against it; the new ones are
// produced then, their keys added to the partition's file. So the
// recursion fails with 53200 only when one partition's keys outgrow the
// budget.
type RecursiveUnion struct {
	Base Operator
	Step func() (Operator, error)
	Work *WorkTable
	All  bool
	Mem  *memory.Memory // nil: the query's

	seen    map[string]bool
	seenRes memory.Reservation
	spilled bool
	// spilled UNION: the keys of the rows produced, and an iteration's
	// rows waiting to be checked, by the keys' hash; part is the
	// partition being checked
	seenParts, cand *joinspill.Parts
	keys            *vec.Vector // the keys of rows being written to files
	part            int
	partSeen        map[string]bool
	partRes         memory.Reservation
	partScan        Operator
	next            *WorkTable
	cur             Operator
	ended           bool // cur has no more rows
	done            bool
	iter            int
	key             []byte
	sel             []int32
	out             *memory.ColBuf
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
	for _, jp := range []*joinspill.Parts{r.seenParts, r.cand} {
		if jp != nil {
			jp.Close()
		}
	}
	r.seen, r.partSeen = nil, nil
	r.seenRes.Release()
	r.partRes.Release()
	return err
}

func (r *RecursiveUnion) rowKey(b *vec.Batch, i int) {
	r.key = r.key[:0]
	for _, v := range b.Vecs {
		r.key = appendKey(r.key, v, i)
	}
}

// gather is rows sel of b (b itself when sel is all of it).
func (r *RecursiveUnion) gather(b *vec.Batch) *vec.Batch {
	if len(r.sel) == b.N {
		return b
	}
	o := r.out
	o.Clear()
	for c, v := range b.Vecs {
		o.Gather(c, v, r.sel)
	}
	o.N = len(r.sel)
	return &o.Batch
}

// checkNext produces the next batch of waiting rows that are new, partition
// by partition (nil when every partition is done).
func (r *RecursiveUnion) checkNext(ctx context.Context) (*vec.Batch, error) {
	for r.part < joinspill.Partitions {
		p := r.part
		if r.partScan == nil {
			if r.cand.Rows(p) == 0 {
				r.part++
				continue
			}
			if err := r.cand.Part(p).Flush(); err != nil {
				return nil, err
			}
			// the partition's rows produced so far
			r.partSeen = map[string]bool{}
			r.partRes = memory.Reservation{Mem: r.Mem}
			if r.seenParts.Rows(p) > 0 {
				if err := r.seenParts.Part(p).Flush(); err != nil {
					return nil, err
				}
				sc, err := r.seenParts.Scan(p)
				if err != nil {
					return nil, err
				}
				err = Drain(ctx, sc, func(b *vec.Batch) error {
					for _, k := range b.Vecs[0].S[:b.N] {
						if err := r.partRes.Grow(int64(len(k)) + setOpEntryBytes); err != nil {
							return err
						}
						r.partSeen[k] = true
					}
					return nil
				})
				if err != nil {
					return nil, err
				}
			}
			sc, err := r.cand.Scan(p)
			if err != nil {
				return nil, err
			}
			r.partScan = sc
		}
		b, err := r.partScan.Next(ctx)
		if err != nil {
			return nil, err
		}
		if b == nil {
			r.partScan = nil
			r.cand.ClosePart(p)
			r.partSeen = nil
			r.partRes.Release()
			r.part++
			continue
		}
		r.sel = r.sel[:0]
		r.keys.Reset()
		for i := 0; i < b.N; i++ {
			r.rowKey(b, i)
			if r.partSeen[string(r.key)] {
				continue
			}
			if err := r.partRes.Grow(int64(len(r.key)) + setOpEntryBytes); err != nil {
				return nil, err
			}
			k := string(r.key)
			r.partSeen[k] = true
			r.sel = append(r.sel, int32(i))
			r.keys.AppendString(k)
		}
		if len(r.sel) == 0 {
			continue
		}
		kb := vec.Batch{Vecs: []*vec.Vector{r.keys}, N: r.keys.Len()}
		if err := r.seenParts.Write(p, &kb, seq(r.keys.Len())); err != nil {
			return nil, err
		}
		out := r.gather(b)
		if err := r.next.add(ctx, out); err != nil {
			return nil, err
		}
		return out, nil
	}
	return nil, nil
}

// keep filters b to rows not seen before (UNION) and records them for the
// next iteration.
func (r *RecursiveUnion) keep(ctx context.Context, b *vec.Batch) (*vec.Batch, error) {
	out := b
	if !r.All {
		r.sel = r.sel[:0]
		var wait []int32 // rows to check at the iteration's end
		r.keys.Reset()
		for i := 0; i < b.N; i++ {
			r.rowKey(b, i)
			if r.spilled {
				wait = append(wait, int32(i))
				r.keys.AppendString(string(r.key))
				continue
			}
			if r.seen[string(r.key)] {
				continue
			}
			err := r.seenRes.Grow(int64(len(r.key)) + setOpEntryBytes)
			if err == nil {
				r.seen[string(r.key)] = true
				r.sel = append(r.sel, int32(i))
				continue
			}
			if pgerr.Code(err) != memory.OutOfMemory {
				return nil, err
			}
			if err := r.spillSeen(ctx); err != nil {
				return nil, err
			}
			wait = append(wait, int32(i))
			r.keys.AppendString(string(r.key))
		}
		if len(wait) > 0 {
			if err := r.waitRows(b, wait); err != nil {
				return nil, err
			}
		}
		if len(r.sel) == 0 {
			return nil, nil
		}
		out = r.gather(b)
	}
	if err := r.next.add(ctx, out); err != nil {
		return nil, err
	}
	return out, nil
}

// waitRows writes rows wait of b, whose keys are r.keys, to the waiting
// files by the keys' hash.
func (r *RecursiveUnion) waitRows(b *vec.Batch, wait []int32) error {
	t := r.out
	t.Clear()
	for c, v := range b.Vecs {
		t.Gather(c, v, wait)
	}
	t.N = len(wait)
	return r.cand.Add(&t.Batch, []*vec.Vector{r.keys}, 0, false)
}

// spillSeen writes the keys of the rows produced to files by their hash
// and drops the map: from now on every row is checked at its iteration's
// end.
func (r *RecursiveUnion) spillSeen(ctx context.Context) error {
	r.spilled = true
	qs := QueryStatsOf(ctx)
	r.seenParts = joinspill.NewParts([]types.T{types.TextT}, "recursive", qs.Spill())
	r.cand = joinspill.NewParts(r.Work.T, "recursive", qs.Spill())
	kv := vec.New(types.TextT, vec.BatchSize)
	flush := func() error {
		if kv.Len() == 0 {
			return nil
		}
		err := r.seenParts.Add(&vec.Batch{Vecs: []*vec.Vector{kv}, N: kv.Len()}, []*vec.Vector{kv}, 0, false)
		kv.Reset()
		return err
	}
	for k := range r.seen {
		kv.AppendString(k)
		if kv.Len() == vec.BatchSize {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if err := flush(); err != nil {
		return err
	}
	r.seen = nil
	r.seenRes.Release()
	return nil
}

// seq is 0, 1, ..., n-1.
func seq(n int) []int32 {
	s := make([]int32, n)
	for i := range s {
		s[i] = int32(i)
	}
	return s
}

func (r *RecursiveUnion) Next(ctx context.Context) (*vec.Batch, error) {
	if r.done {
		return nil, nil
	}
	if r.cur == nil {
		r.Mem = memory.MemFor(ctx, r.Mem)
		r.cur = r.Base
		r.seen = map[string]bool{}
		r.seenRes = memory.Reservation{Mem: r.Mem, Spill: true, Cap: memory.WorkMemOf(ctx)}
		r.out = memory.NewColBuf(r.Work.T, vec.BatchSize)
		r.keys = vec.New(types.TextT, vec.BatchSize)
		r.next = &WorkTable{T: r.Work.T}
		r.next.reset(r.Mem)
	}
	for {
		if err := memory.ErrCanceled(ctx); err != nil {
			return nil, err
		}
		if !r.ended {
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
			r.ended = true
		}
		if r.cand != nil && r.part < joinspill.Partitions {
			// the rows that waited: those that are new
			out, err := r.checkNext(ctx)
			if err != nil || out != nil {
				return out, err
			}
			continue
		}
		// iteration finished: the new rows become the work table
		if r.cur != r.Base {
			r.cur.Close()
		}
		r.part, r.ended = 0, false
		if r.next.n() == 0 {
			r.done = true
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
		var err error
		if r.cur, err = r.Step(); err != nil {
			return nil, err
		}
	}
}
