package aggregate

import (
	"context"
	"sync"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/memory"
	"github.com/lakepg/lakepg/exec/order"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// Parallel windows. A window with PARTITION BY sorts and evaluates each
// partition on its own, so once its input is buffered the rows can be dealt
// to Workers shares by a hash of the partition keys, and each share sorted
// and evaluated on its own goroutine by a copy of the window. A stack of
// windows (the planner places a query's windows directly on one another)
// is dealt once, by the partition columns all of them share: each share
// then runs the whole stack, and a window that reads its rows already
// sorted (window_order.go in the planner) still skips its sort. On TPC-DS
// q47 the two windows over 65,000 groups ran on one core after the
// parallel aggregation below them.
//
// Every partition is whole in one share and a share keeps the input order
// of its rows, so each row's results are those of the serial evaluation;
// only the order of the partitions in the output differs (shares follow
// one another), which no ORDER BY depends on: the planner sorts above
// windows when the query asks for an order.
//
// Dealing needs the input in memory. A window whose input outgrows its
// reservation while it is buffered, or that has too few rows to be worth
// it, hands the rows to the bottom window of the stack, which continues
// serially as before and spills as before (windowspill.go). A share's copy
// of the window spills on its own, under its part of work_mem.

// parWindowMin is the rows below which a window stack is evaluated on one
// goroutine. Tests lower it.
var parWindowMin = 1 << 14

// winPar is a window stack being emitted share by share.
type winPar struct {
	tops   []*Window    // each share's copy of the stack's top
	first  []*vec.Batch // each share's first batch, computed in parallel
	closed []bool
	cur    int
}

// winSource is the input of a share's bottom window: its rows are the
// window's seed, so it has none of its own.
type winSource struct{ ts []types.T }

func (s *winSource) Types() []types.T                         { return s.ts }
func (s *winSource) Next(context.Context) (*vec.Batch, error) { return nil, nil }
func (s *winSource) Close() error                             { return nil }

// parStack returns the windows w evaluates in parallel, top (w) first, and
// the input columns they all partition by; nil when w has no partition or
// the stack already ran its course serially.
func (w *Window) parStack() ([]*Window, []int) {
	if w.noPar {
		return nil, nil
	}
	return w.stack(true)
}

// stack is parStack as planned (running false: whatever has run).
func (w *Window) stack(running bool) ([]*Window, []int) {
	if w.Workers < 2 || len(w.PartitionBy) == 0 {
		return nil, nil
	}
	// the planner projects a key that two windows partition by once for
	// each: the columns below the windows that copy one column are one
	canon := func(c int) int { return c }
	base := exec.Operator(w)
	for {
		if t, ok := base.(*exec.Timed); ok {
			base = t.Input // EXPLAIN ANALYZE's
		}
		b, ok := base.(*Window)
		if !ok {
			break
		}
		base = b.Input
	}
	if p, ok := base.(*exec.Project); ok {
		canon = func(c int) int {
			if c < len(p.Exprs) {
				if r, ok := p.Exprs[c].(*exec.ColRef); ok {
					return -1 - r.Idx
				}
			}
			return c
		}
	}
	stack := []*Window{w}
	var common []int // canonical
	for _, c := range w.PartitionBy {
		common = append(common, canon(c))
	}
	for {
		in := stack[len(stack)-1].Input
		if t, ok := in.(*exec.Timed); ok {
			// EXPLAIN ANALYZE's: the window below then shows no rows
			in = t.Input
		}
		below, ok := in.(*Window)
		if !ok || below.Workers < 2 || running && (below.noPar || below.started) {
			break
		}
		width := len(below.Input.Types())
		var kept []int
		for _, c := range below.PartitionBy {
			if k := canon(c); c < width && containsInt(common, k) && !containsInt(kept, k) {
				kept = append(kept, k)
			}
		}
		if len(kept) == 0 {
			break
		}
		common = kept
		stack = append(stack, below)
	}
	// deal by the bottom's own columns for the keys: they are its input's
	bottom := stack[len(stack)-1]
	width := len(bottom.Input.Types())
	var cols []int
	for _, k := range common {
		for _, c := range bottom.PartitionBy {
			if canon(c) == k && c < width {
				cols = append(cols, c)
				break
			}
		}
	}
	if len(cols) != len(common) {
		return nil, nil
	}
	return stack, cols
}

// ParallelStack is, for EXPLAIN, how many windows directly below w deal
// their rows with w's, by the partition columns they all share: each share
// of the rows then goes through all of them on one goroutine. -1: w does
// not deal its rows to workers.
func (w *Window) ParallelStack() int {
	stack, _ := w.stack(false)
	return len(stack) - 1
}

func containsInt(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// computeParallel buffers the input of the stack's bottom window and, when
// it fits and is large enough, evaluates the stack share by share on
// several goroutines (done true). Otherwise the rows buffered so far go to
// the bottom window as its seed and w is computed serially (done false).
func (w *Window) computeParallel(ctx context.Context, stack []*Window, cols []int) (done bool, err error) {
	for _, s := range stack {
		s.noPar = true
	}
	bottom := stack[len(stack)-1]
	in := bottom.Input.Types()
	buf := memory.NewColBuf(in, vec.BatchSize)
	res := memory.Reservation{Mem: w.Mem, Cap: w.mem.Cap, Spill: true}
	var over *vec.Batch
	err = exec.Drain(ctx, bottom.Input, func(b *vec.Batch) error {
		if err := memory.ErrCanceled(ctx); err != nil {
			return err
		}
		// the stack's bottom sorts by its keys: count them as it would
		if err := res.Grow(memory.AppendCost(buf, b, b.N) + order.SortKeyCost(bottom.sortKeys(), b, b.N)); err != nil {
			if pgerr.Code(err) == memory.OutOfMemory {
				over = b
				return errWindowOver
			}
			return err
		}
		buf.AppendBatch(b, 0, b.N)
		return nil
	})
	if err != nil && err != errWindowOver {
		res.Release()
		return false, err
	}
	serial := func() (bool, error) {
		// the bottom window reserves the rows again as it takes them
		res.Release()
		bottom.seed, bottom.seedOver = buf, over
		return false, nil
	}
	n := buf.N
	shares := w.Workers
	if over != nil || n < parWindowMin {
		return serial()
	}
	// deal the rows: a share's rows keep their input order
	hs := make([]uint64, n)
	for i, c := range cols {
		memory.HashColumn(hs, buf.Vecs[c], n, i == 0)
	}
	rows := make([][]int32, shares)
	for i, h := range hs {
		s := int((h >> 32) * uint64(shares) >> 32)
		rows[s] = append(rows[s], int32(i))
	}
	hs = nil
	// a column at a time, each let go once dealt: the rows are held about
	// once, not twice
	var widest int64
	for _, v := range buf.Vecs {
		widest = max(widest, memory.VecBytes(v, 0, n))
	}
	res.Spill = false
	if err := res.Grow(widest + 4*int64(n)); err != nil {
		if pgerr.Code(err) == memory.OutOfMemory {
			return serial()
		}
		res.Release()
		return false, err
	}
	parts := make([]*memory.ColBuf, shares)
	for s := range parts {
		parts[s] = &memory.ColBuf{Batch: vec.Batch{Vecs: make([]*vec.Vector, len(in)), N: len(rows[s])}, Spare: make([][]bool, len(in))}
	}
	for c, v := range buf.Vecs {
		for s, p := range parts {
			p.Vecs[c] = vec.New(in[c], len(rows[s]))
			p.Gather(c, v, rows[s])
		}
		buf.Vecs[c] = nil
	}
	buf = nil
	// each share's bottom window reserves its rows again
	res.Release()

	// each share runs a copy of the stack on its own goroutine
	shareCap := w.mem.Cap
	if shareCap > 0 {
		shareCap = (shareCap + int64(shares) - 1) / int64(shares)
	}
	p := &winPar{tops: make([]*Window, 0, shares)}
	for s, part := range parts {
		if part.N == 0 {
			continue
		}
		var op exec.Operator = &winSource{ts: in}
		var top *Window
		for k := len(stack) - 1; k >= 0; k-- {
			c := stack[k].share(op)
			if k == len(stack)-1 {
				c.seed = part
			}
			op, top = c, c
		}
		parts[s] = nil
		p.tops = append(p.tops, top)
	}
	p.first = make([]*vec.Batch, len(p.tops))
	p.closed = make([]bool, len(p.tops))
	w.par = p
	errs := make([]error, len(p.tops))
	// a share's windows and their sorts spill past its part of work_mem
	shareCtx := memory.WithWorkMem(ctx, shareCap)
	var wg sync.WaitGroup
	for s := range p.tops {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[s] = exec.Guard(func() error {
				b, err := p.tops[s].Next(shareCtx)
				p.first[s] = b
				return err
			})
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return true, err
		}
	}
	return true, nil
}

// share is a copy of w for one share of its rows, reading in.
func (w *Window) share(in exec.Operator) *Window {
	return &Window{Env: w.Env, Input: in, PartitionBy: w.PartitionBy, OrderBy: w.OrderBy, Funcs: w.Funcs, Mem: w.Mem, noPar: true}
}

// nextPar emits the shares one after another, giving each back once done.
func (w *Window) nextPar(ctx context.Context) (*vec.Batch, error) {
	p := w.par
	for p.cur < len(p.tops) {
		if b := p.first[p.cur]; b != nil {
			p.first[p.cur] = nil
			return b, nil
		}
		b, err := p.tops[p.cur].Next(ctx)
		if err != nil || b != nil {
			return b, err
		}
		p.closed[p.cur] = true
		if err := p.tops[p.cur].Close(); err != nil {
			return nil, err
		}
		p.cur++
	}
	return nil, nil
}

// closePar closes the shares not yet emitted whole.
func (w *Window) closePar() error {
	var first error
	if p := w.par; p != nil {
		for s, t := range p.tops {
			if !p.closed[s] {
				p.closed[s] = true
				if err := t.Close(); err != nil && first == nil {
					first = err
				}
			}
		}
	}
	return first
}

// takeSeed makes the rows a window above buffered for w (w.seed) w's
// buffer, reserving them as if w had read them, then takes the batch that
// did not fit there (w.seedOver) through add. A seed w cannot afford goes
// to the external sort as a buffer that outgrew memory does: it returns
// errWindowOver and the batch still to be taken.
func (w *Window) takeSeed(ctx context.Context, keys []order.SortKey, buf **memory.ColBuf, add func(*vec.Batch) error) (*vec.Batch, error) {
	seed, over := w.seed, w.seedOver
	w.seed, w.seedOver = nil, nil
	*buf = seed
	var cost int64
	for _, v := range seed.Vecs {
		cost += memory.VecCapBytes(v)
	}
	cost += order.SortKeyCost(keys, &seed.Batch, seed.N)
	if err := w.mem.Grow(cost); err != nil {
		if pgerr.Code(err) != memory.OutOfMemory {
			return nil, err
		}
		// the rows are held: count them, past the limit, for the sort
		// that spills them
		w.Mem.GrowPast(cost)
		w.mem.Reserved += cost
		w.mem.Used += cost
		return over, errWindowOver
	}
	if over != nil {
		return nil, add(over)
	}
	return nil, memory.ErrCanceled(ctx)
}

// ParWindowMin is the input rows from which a window with Workers > 1
// deals its partitions to them.
func ParWindowMin() int { return parWindowMin }
