package exec

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// Parallel runs one pipeline per worker over a table scan split into
// morsels (one row group each), pulled from a shared queue so that fast
// workers take more (DESIGN.md: morsel-driven parallelism).
//
// Build(w, src) makes worker w's pipeline on top of its share of the scan
// (nil Build: the scan itself); it is called once per worker before any
// row is read. Each pipeline runs on its own goroutine, so the operators
// and expressions Build returns must be private to the worker — build them
// afresh per call rather than sharing one tree (Const caches vectors).
//
// As an Operator, Parallel yields the union of the pipelines' batches in
// no particular order (an ORDER BY above restores determinism). A HashAgg
// whose Input is a Parallel instead aggregates inside each worker and
// merges the partial states once at the end.
//
// A Parallel without a Scan runs over the union (UNION ALL) of the
// Parallels in Then, of the same column types: worker w's src is an
// Append of worker w's pipeline of each, so each worker goes on to Then[1]'s
// morsels when Then[0]'s run out, and an aggregate or a join over a UNION
// ALL of scans runs on all workers too. The Then parts belong to this
// Parallel: it creates, runs and closes their pipelines.
type Parallel struct {
	Scan *TableScan
	// Rows, instead of Scan, is a WITH query's rows read once more: the
	// workers take them vec.BatchSize rows at a time (rowMorsels).
	Rows *MaterializedReader
	// Split, instead of Scan or Rows, is an operator whose finished output
	// the workers take in parts (splitsource.go): a vec.BatchSize of an
	// aggregation's groups at a time.
	Split   SplitSource
	Workers int // 0: runtime.GOMAXPROCS(0)
	Build   func(w int, src Operator) Operator
	Then    []*Parallel

	// initMu guards the pipelines' creation: a Parallel on a hash join's
	// build side is shared by the probe workers, which all ask its Types
	initMu  sync.Mutex
	pipes   []Operator
	q       *morselQueue
	rq      *rowMorsels
	sq      *splitParts
	scans   []*morselScan
	started bool
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	ch      chan parItem
	acks    []chan struct{}
	pending int
	live    int
	err     error
}

type parItem struct {
	w   int
	b   *vec.Batch
	err error
}

func (p *Parallel) NumWorkers() int {
	if p.Workers > 0 {
		return p.Workers
	}
	return max(runtime.GOMAXPROCS(0), 1)
}

func (p *Parallel) init() {
	p.initMu.Lock()
	defer p.initMu.Unlock()
	if p.pipes != nil {
		return
	}
	n := p.NumWorkers()
	if p.Scan != nil {
		p.q = &morselQueue{t: p.Scan, byRowGroup: true}
	} else if p.Rows != nil {
		p.rq = &rowMorsels{r: p.Rows}
	} else if p.Split != nil {
		// asked here, before any worker runs: the workers ask at once
		p.sq = &splitParts{src: p.Split, ts: p.Split.Types()}
	}
	for _, t := range p.Then {
		t.Workers = n
		t.init()
	}
	for w := 0; w < n; w++ {
		var op Operator
		if p.Scan != nil {
			s := newMorselScan(p.Scan, p.q)
			p.scans = append(p.scans, s)
			op = s
		} else if p.rq != nil {
			op = &rowMorsel{q: p.rq}
		} else if p.sq != nil {
			op = &splitPart{q: p.sq}
		} else {
			u := &Append{}
			for _, t := range p.Then {
				u.Inputs = append(u.Inputs, t.pipes[w])
			}
			op = u
		}
		if p.Build != nil {
			op = p.Build(w, op)
		}
		p.pipes = append(p.pipes, op)
	}
}

func (p *Parallel) Types() []types.T {
	p.init()
	return p.pipes[0].Types()
}

// Run calls fn(ctx, w, pipeline) for every worker concurrently and waits.
// The first error cancels the others and is returned; a panic in a worker
// becomes an internal error instead of killing the server.
func (p *Parallel) Run(ctx context.Context, fn func(ctx context.Context, w int, op Operator) error) error {
	p.init()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	var once sync.Once
	var first error
	for w, op := range p.pipes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := Guard(func() error { return fn(ctx, w, op) })
			if err != nil {
				once.Do(func() { first = err; cancel() })
			}
		}()
	}
	wg.Wait()
	return first
}

// Guard runs fn, turning a panic into XX000.
func Guard(fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			e := pgerr.New(pgerr.Internal, "internal error in parallel worker: %v", r)
			e.Detail = string(debug.Stack())
			err = e
		}
	}()
	return fn()
}

// Next returns the next batch any worker produced. A worker waits until
// its batch has been consumed (the next call) before reusing it.
func (p *Parallel) Next(ctx context.Context) (*vec.Batch, error) {
	p.init()
	if len(p.pipes) == 1 {
		return p.pipes[0].Next(ctx)
	}
	if p.err != nil {
		return nil, p.err
	}
	if !p.started {
		p.start(ctx)
	}
	if p.pending >= 0 {
		p.acks[p.pending] <- struct{}{}
		p.pending = -1
	}
	for p.live > 0 {
		var it parItem
		select {
		case it = <-p.ch:
		case <-ctx.Done():
			p.err = pgerr.New(pgerr.QueryCanceled, "canceling statement due to user request")
			p.stop()
			return nil, p.err
		}
		if it.err != nil {
			p.err = it.err
			p.stop()
			return nil, it.err
		}
		if it.b == nil {
			p.live--
			continue
		}
		p.pending = it.w
		return it.b, nil
	}
	return nil, nil
}

func (p *Parallel) start(ctx context.Context) {
	p.started = true
	ctx, p.cancel = context.WithCancel(ctx)
	p.ch = make(chan parItem, len(p.pipes))
	p.pending = -1
	p.live = len(p.pipes)
	for w, op := range p.pipes {
		ack := make(chan struct{}, 1)
		p.acks = append(p.acks, ack)
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			for {
				var b *vec.Batch
				err := Guard(func() error {
					var err error
					b, err = op.Next(ctx)
					return err
				})
				if err != nil {
					b = nil
				}
				select {
				case p.ch <- parItem{w: w, b: b, err: err}:
				case <-ctx.Done():
					return
				}
				if b == nil || err != nil {
					return
				}
				select {
				case <-ack:
				case <-ctx.Done():
					return
				}
			}
		}()
	}
}

// stop cancels the workers and waits for them to return.
func (p *Parallel) stop() {
	if p.cancel != nil {
		p.cancel()
	}
	p.wg.Wait()
}

func (p *Parallel) Close() error {
	p.stop()
	var err error
	for _, op := range p.pipes {
		if e := op.Close(); e != nil && err == nil {
			err = e
		}
	}
	p.closeScans()
	return err
}

// closeScans closes the morsel scans and queues of p and of its Then
// parts, whose pipelines p's own pipelines closed.
func (p *Parallel) closeScans() {
	for _, s := range p.scans {
		s.close()
	}
	if p.q != nil {
		p.q.close()
	}
	if p.Rows != nil {
		p.Rows.Close()
	}
	if p.Split != nil {
		p.Split.Close()
	}
	for _, t := range p.Then {
		t.closeScans()
	}
}

func (p *Parallel) String() string { return fmt.Sprintf("Parallel(%d workers)", p.NumWorkers()) }
