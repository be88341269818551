package aggregate

import (
	"context"
	"runtime"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/memory"
	"github.com/lakepg/lakepg/exec/order"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// A window whose input outgrows its reservation is computed a few
// partitions at a time. The rows buffered so far and the rest of the input
// go through a Sort on the partition and order keys — the external merge
// sort, which spills runs as it needs to — and the sorted stream is cut
// into chunks of whole partitions that fit the reservation; each chunk is
// computed as the in-memory window computes everything, emitted, and given
// back before the next. A partition bigger than the spilling share — or
// all the rows, without PARTITION BY — is written to temp files and
// computed from them (windowpaged.go).

var errWindowOver = pgerr.New(pgerr.Internal, "window input outgrew memory")

// winStream is the sorted input of a streaming window.
type winStream struct {
	sorted exec.Operator
	pend   *vec.Batch // a sorted batch not yet taken, from ppos
	ppos   int
	end    bool
	chunks int
	// paged is a partition written to temp files, computed after the
	// chunk before it; pagedParts counts them
	paged      *pagedPart
	pagedParts int
}

// startStream sends the rows buffered so far (buf), the batch that did not
// fit (over, if any) and the rest of the input through an external sort:
// the buffer and its reservation become the sort's.
func (w *Window) startStream(buf *memory.ColBuf, over *vec.Batch) {
	s := &order.Sort{Input: &winReplay{w: w, held: over}, Keys: w.sortKeys(), Mem: w.Mem, Seed: buf, SeedRes: w.mem}
	w.mem.Reserved, w.mem.Used = 0, 0
	var sorted exec.Operator = s
	if runtime.GOMAXPROCS(0) > 1 {
		// the merge goes on while the partitions before are computed
		sorted = exec.NewReadAhead(s)
	}
	w.stream = &winStream{sorted: sorted}
	w.mem.Spill = true
}

// nextStreamed emits the rows of the current chunk, computing the next one
// when it is done.
func (w *Window) nextStreamed(ctx context.Context) (*vec.Batch, error) {
	for {
		if w.data != nil && w.pos < w.data.N {
			return w.emit(), nil
		}
		if w.pg != nil {
			b, err := w.emitPaged(ctx, w.pg)
			if err != nil || b != nil {
				return b, err
			}
			w.pg.Close()
			w.pg = nil
		}
		w.data, w.res = nil, nil
		w.mem.Release()
		if w.stream.paged != nil {
			w.pg, w.stream.paged = w.stream.paged, nil
			if err := w.evalPaged(ctx, w.pg); err != nil {
				return nil, err
			}
			continue
		}
		buf, err := w.stream.chunk(ctx, w)
		if err != nil {
			return nil, err
		}
		if buf == nil {
			if w.stream.paged != nil {
				continue
			}
			return nil, nil
		}
		if err := memory.ErrCanceled(ctx); err != nil {
			return nil, err
		}
		if err := w.evalSorted(ctx, buf); err != nil {
			return nil, err
		}
	}
}

// samePartition reports whether row i of a and row j of b are in one
// partition.
func (w *Window) samePartition(a *vec.Batch, i int, b *vec.Batch, j int) bool {
	for _, c := range w.PartitionBy {
		if !memory.NullableEqual(a.Vecs[c], i, b.Vecs[c], j) {
			return false
		}
	}
	return true
}

// chunk gathers the next sorted rows, whole partitions only, as many as the
// reservation takes (and the current partition whole); nil at the end. A
// partition that does not fit goes to temp files (pageOut) and is computed
// after the chunk's rows, which are then the partitions before it.
func (s *winStream) chunk(ctx context.Context, w *Window) (*memory.ColBuf, error) {
	buf := memory.NewColBuf(w.Input.Types(), vec.BatchSize)
	per := winRowCost(len(w.Funcs))
	// a chunk need not be big to be cheap; a small one leaves the budget
	// to the operators around the window (a window above this one sorts
	// while this one holds its chunk)
	limit := w.Mem.ActivePool().Limit()
	if w.Mem != nil && w.Mem.Limit > 0 {
		limit = min(limit, w.Mem.Limit)
	}
	target := max(limit/8, 1<<20)
	var held int64
	for {
		if s.pend == nil || s.ppos >= s.pend.N {
			if s.end {
				break
			}
			b, err := s.sorted.Next(ctx)
			if err != nil {
				return nil, err
			}
			if b == nil {
				s.end = true
				break
			}
			s.pend, s.ppos = b, 0
		}
		b, lo := s.pend, s.ppos
		cost := memory.BatchBytes(b, lo, b.N) + per*int64(b.N-lo)
		var err error = exec.ErrChunkFull
		if held < target {
			err = w.mem.Grow(cost)
		}
		if err != nil {
			if err != exec.ErrChunkFull && pgerr.Code(err) != memory.OutOfMemory {
				return nil, err
			}
			// the rest of the current partition comes in if it fits; the
			// chunk ends where the next partition starts
			k := lo
			if buf.N > 0 {
				for k < b.N && w.samePartition(&buf.Batch, buf.N-1, b, k) {
					k++
				}
			} else {
				for k++; k < b.N && w.samePartition(b, lo, b, k); k++ {
				}
			}
			need := memory.BatchBytes(b, lo, k) + per*int64(k-lo)
			if err := w.mem.Grow(need); err != nil {
				if pgerr.Code(err) != memory.OutOfMemory {
					return nil, err
				}
				return s.pageOut(ctx, w, buf)
			}
			held += need
			buf.AppendBatch(b, lo, k)
			s.ppos = k
			if k < b.N {
				s.chunks++
				return buf, nil
			}
			continue
		}
		held += cost
		buf.AppendBatch(b, lo, b.N)
		s.ppos = b.N
	}
	if buf.N == 0 {
		return nil, nil
	}
	s.chunks++
	return buf, nil
}

// pageOut writes the current partition — its rows at the end of buf, then
// the sorted stream's up to the next partition — to temp files
// (windowpaged.go) and returns buf without them: the partitions before it,
// computed first (nil if none).
func (s *winStream) pageOut(ctx context.Context, w *Window, buf *memory.ColBuf) (*memory.ColBuf, error) {
	b, lo := s.pend, s.ppos
	cs := buf.N // where the current partition starts in buf
	if buf.N > 0 && w.samePartition(&buf.Batch, buf.N-1, b, lo) {
		cs = buf.N - 1
		for cs > 0 && w.samePartition(&buf.Batch, cs-1, &buf.Batch, buf.N-1) {
			cs--
		}
	}
	var p *pagedPart
	var err error
	if cs < buf.N {
		if p, err = w.newPagedPart(ctx, &buf.Batch, cs); err == nil {
			err = w.addPaged(p, &buf.Batch, cs, buf.N)
		}
	} else {
		p, err = w.newPagedPart(ctx, b, lo)
	}
	if err != nil {
		p.Close()
		return nil, err
	}
	for {
		if s.pend == nil || s.ppos >= s.pend.N {
			if s.end {
				break
			}
			if err = memory.ErrCanceled(ctx); err != nil {
				break
			}
			nb, e := s.sorted.Next(ctx)
			if err = e; err != nil {
				break
			}
			if nb == nil {
				s.end = true
				break
			}
			s.pend, s.ppos = nb, 0
		}
		b, lo := s.pend, s.ppos
		k := lo
		for k < b.N && w.inPart(p, b, k) {
			k++
		}
		if err = w.addPaged(p, b, lo, k); err != nil {
			break
		}
		s.ppos = k
		if k < b.N {
			break
		}
	}
	if err == nil {
		err = p.finishWrite()
	}
	if err != nil {
		p.Close()
		return nil, err
	}
	s.paged = p
	s.pagedParts++
	buf.Truncate(cs)
	if buf.N == 0 {
		return nil, nil
	}
	s.chunks++
	return buf, nil
}

// winReplay is the Sort's input after the rows the window had buffered: the
// batch that did not fit, then the rest of the window's input.
type winReplay struct {
	w    *Window
	held *vec.Batch
}

func (r *winReplay) Types() []types.T { return r.w.Input.Types() }

// Close leaves the input to the window, which closes it.
func (r *winReplay) Close() error { return nil }

func (r *winReplay) Next(ctx context.Context) (*vec.Batch, error) {
	if r.held != nil {
		b := r.held
		r.held = nil
		return b, nil
	}
	return r.w.Input.Next(ctx)
}
