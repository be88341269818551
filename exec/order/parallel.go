package order

import (
	"context"
	"sync"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/memory"
	"github.com/lakepg/lakepg/exec/vec"
)

// Parallel sort. A Sort whose input is a Parallel buffers in every worker:
// each worker pulls its own pipeline into a buffer of its own, and when that
// buffer reaches the worker's share of memory the worker sorts it and writes
// it as a run itself, while the other workers go on scanning and buffering.
// Run generation (encoding keys, ordering, gathering, writing) thus runs on
// every core instead of between pauses of a single consumer.
//
// At the end either some worker spilled, and every worker writes what it
// still holds as one more run before the usual external merge; or none did,
// and each worker orders its buffer in memory (side by side) and the buffers
// are merged as in-memory runs. Rows of equal keys come out in no defined
// order across workers, as the Parallel's own union has none.

// sortWorker is one worker's buffer and its reservation.
type sortWorker struct {
	data *memory.ColBuf
	res  memory.Reservation
	wr   *runWriter
}

// memRun is a worker's buffer ordered in memory, read as a run: load gathers
// its next block in key order.
type memRun struct {
	data *memory.ColBuf
	perm []int32
	enc  *KeyEncoder
	next int
	out  *memory.ColBuf
}

// loadMem fills r's current block from its in-memory run; false at the end.
func (r *sortRun) loadMem() bool {
	m := r.mem
	if m.next >= len(m.perm) {
		return false
	}
	hi := min(m.next+vec.BatchSize, len(m.perm))
	idx := m.perm[m.next:hi]
	m.out.Clear()
	for c, v := range m.data.Vecs {
		m.out.Gather(c, v, idx)
	}
	m.out.N = len(idx)
	r.arena, r.offs = r.arena[:0], append(r.offs[:0], 0)
	for _, i := range idx {
		r.arena = append(r.arena, m.enc.key(int(i))...)
		r.offs = append(r.offs, len(r.arena))
	}
	r.b = &m.out.Batch
	r.pos, r.n = 0, len(idx)
	m.next = hi
	return true
}

// WorkerSource is an input that can be drained worker by worker: Parallel.
type WorkerSource interface {
	exec.Operator
	NumWorkers() int
	// Run calls fn for every worker's pipeline concurrently and waits; the
	// first error cancels the others.
	Run(ctx context.Context, fn func(ctx context.Context, w int, op exec.Operator) error) error
}

// parallelInput is the input the sort can buffer worker by worker, if any:
// a full sort (not top-N) of several workers that was not handed rows to
// start from.
func (s *Sort) parallelInput() WorkerSource {
	p, ok := s.Input.(WorkerSource)
	if !ok || s.Limit > 0 || s.Seed != nil || p.NumWorkers() < 2 {
		return nil
	}
	return p
}

// sortParallel buffers p's workers' rows worker by worker (see above) and
// leaves the sort ready to merge.
func (s *Sort) sortParallel(ctx context.Context, p WorkerSource) error {
	n := p.NumWorkers()
	ts := s.Input.Types()
	mem := s.res.Mem
	// each worker spills at its share of what a spilling operator may hold,
	// so that the workers' runs come out alike in size rather than the
	// first to grow taking it all and the others writing tiny runs
	share := mem.MergeBudget() * 4
	share -= share / 8
	if wm := memory.WorkMemOf(ctx); wm > 0 {
		share = min(share, wm)
	}
	s.workers = make([]*sortWorker, n)
	for w := range s.workers {
		wk := &sortWorker{
			data: memory.NewColBuf(ts, vec.BatchSize),
			res:  memory.Reservation{Mem: mem, Spill: true, Cap: max(share/int64(n), 1)},
			wr:   &runWriter{cols: make([]*vec.Vector, len(ts)), view: make([]vec.Vector, len(ts))},
		}
		// every key column keeps its NULL marker: the workers' keys are
		// compared with each other's
		wk.wr.enc.Init(s.Keys, wk.data.Vecs)
		s.workers[w] = wk
	}
	var mu sync.Mutex // guards s.runs and s.spilling while the workers run
	spill := func(ctx context.Context, wk *sortWorker) error {
		if err := memory.ErrCanceled(ctx); err != nil {
			return err
		}
		f, err := memory.NewSpillFile(memory.GlobalSpill, exec.QueryStatsOf(ctx).Spill(), "sort")
		if err != nil {
			return err
		}
		mu.Lock()
		s.spilling = true
		s.runs = append(s.runs, &sortRun{file: f, idx: len(s.runs)})
		mu.Unlock()
		if err := wk.wr.write(wk.data, 0, wk.data.N, f); err != nil {
			return err
		}
		wk.data.Clear()
		wk.res.Release()
		// as spillRun: the emptied buffer keeps its capacity if the pool
		// still has it, and if that leaves room under the worker's share
		// for the next run's rows (slices that doubled near the share
		// would leave none)
		if c := capBytes(wk.data); 2*c > wk.res.Cap || wk.res.Grow(c) != nil {
			wk.res.Release()
			wk.data = memory.NewColBuf(ts, vec.BatchSize)
		}
		return nil
	}
	err := p.Run(ctx, func(ctx context.Context, w int, op exec.Operator) error {
		wk := s.workers[w]
		return exec.Drain(ctx, op, func(b *vec.Batch) error {
			return s.buffer(ctx, b, &wk.data, &wk.res, func() error { return spill(ctx, wk) })
		})
	})
	if err != nil {
		return err
	}
	// the last rows of every worker, side by side: written as runs when
	// some worker spilled, else ordered in memory
	mu.Lock()
	spilled := s.spilling
	mu.Unlock()
	mems := make([]*sortRun, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for w, wk := range s.workers {
		if wk.data.N == 0 {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[w] = exec.Guard(func() error {
				if spilled {
					return spill(ctx, wk)
				}
				cols := wk.data.Vecs
				wk.wr.enc.Encode(cols, wk.data.N) // reserved with the rows (SortKeyCost)
				mems[w] = &sortRun{mem: &memRun{data: wk.data, perm: wk.wr.enc.Order(wk.data.N), enc: &wk.wr.enc, out: memory.NewColBuf(ts, vec.BatchSize)}, idx: w}
				return nil
			})
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	s.out = memory.NewColBuf(ts, vec.BatchSize)
	if spilled {
		s.releaseWorkers()
		s.spilling = true
		return s.startMerge(ctx)
	}
	// the workers' buffers stay, with their reservations, until the merge
	// has emitted them
	s.spilling = true
	for _, r := range mems {
		if r != nil {
			s.runs = append(s.runs, r)
		}
	}
	return s.openRuns(s.runs)
}

// releaseWorkers gives back what the workers' buffers hold.
func (s *Sort) releaseWorkers() {
	for _, wk := range s.workers {
		wk.res.Release()
		wk.data = nil
	}
	s.workers = nil
}

// buffer appends b to *data, reserving its rows and keys in res; when the
// reservation cannot grow, spill writes out what *data holds first.
func (s *Sort) buffer(ctx context.Context, b *vec.Batch, data **memory.ColBuf, res *memory.Reservation, spill func() error) error {
	if err := memory.ErrCanceled(ctx); err != nil {
		return err
	}
	keyCost := SortKeyCost(s.Keys, b, b.N)
	need := memory.AppendCost(*data, b, b.N) + keyCost
	if err := res.Grow(need); err != nil {
		// out of memory: write what is buffered as a sorted run and go
		// on with the memory it held
		if (*data).N > 0 {
			if err := spill(); err != nil {
				return err
			}
			need = memory.AppendCost(*data, b, b.N) + keyCost
		}
		if res.Grow(need) != nil {
			// other operators or statements hold the spilling share:
			// this batch takes from the last eighth, waiting for
			// other statements to give memory back if need be; past
			// that it is a real 53200. It waits holding nothing, so
			// that sorts waiting for each other's memory cannot all
			// be stuck holding some.
			res.Release()
			*data = memory.NewColBuf(s.Input.Types(), vec.BatchSize)
			need = memory.AppendCost(*data, b, b.N) + keyCost
			res.Spill = false
			err := res.Grow(need)
			res.Spill = true
			if err != nil {
				return err
			}
		}
	}
	(*data).AppendBatch(b, 0, b.N)
	return nil
}

// The merge of runs goes on a goroutine of its own, a few batches ahead of
// the consumer: the merge (a heap step and a copy per row) and what reads
// the sorted rows (a client's encoding and sending them) then use a core
// each instead of taking turns on one.
const mergeAheadBatches = 3

type aheadItem struct {
	b   *vec.Batch
	buf *memory.ColBuf
	err error
}

type mergeAhead struct {
	full chan aheadItem
	free chan *memory.ColBuf
	quit chan struct{}
	done chan struct{}
	last *memory.ColBuf // the batch the consumer holds, freed on its next call
	end  bool
}

// startAhead starts merging s's runs on a goroutine.
func (s *Sort) startAhead(ctx context.Context) {
	a := &mergeAhead{
		full: make(chan aheadItem, mergeAheadBatches),
		free: make(chan *memory.ColBuf, mergeAheadBatches+1),
		quit: make(chan struct{}),
		done: make(chan struct{}),
	}
	ts := s.Input.Types()
	for range mergeAheadBatches + 1 {
		a.free <- memory.NewColBuf(ts, vec.BatchSize)
	}
	s.ahead = a
	go func() {
		defer close(a.done)
		for {
			var buf *memory.ColBuf
			select {
			case buf = <-a.free:
			case <-a.quit:
				return
			}
			s.out = buf
			var b *vec.Batch
			err := exec.Guard(func() (err error) {
				b, err = s.mergeNext(ctx)
				return err
			})
			select {
			case a.full <- aheadItem{b: b, buf: buf, err: err}:
			case <-a.quit:
				return
			}
			if b == nil || err != nil {
				return
			}
		}
	}()
}

// nextAhead returns the next merged batch from the goroutine.
func (s *Sort) nextAhead(ctx context.Context) (*vec.Batch, error) {
	a := s.ahead
	if a.last != nil {
		a.free <- a.last
		a.last = nil
	}
	if a.end {
		return nil, nil
	}
	var it aheadItem
	select {
	case it = <-a.full:
	case <-ctx.Done():
		return nil, memory.ErrCanceled(ctx)
	}
	if it.b == nil || it.err != nil {
		a.end = true
		return nil, it.err
	}
	a.last = it.buf
	return it.b, nil
}

// stopAhead stops the merge goroutine and waits for it, so that the runs
// can be closed.
func (s *Sort) stopAhead() {
	if s.ahead == nil {
		return
	}
	close(s.ahead.quit)
	<-s.ahead.done
	s.ahead = nil
}
