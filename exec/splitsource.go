package exec

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/lakepg/lakepg/exec/memory"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// SplitSource is an operator whose output, once it has run, workers can
// take in parts: a finished aggregation's groups (aggregate.HashAgg). A
// Parallel over one (Parallel.Split) runs the joins, filters and
// projections above it on every core, where they ran on the one goroutine
// that pulled its batches: TPC-DS q97 full-joins two aggregations and
// sums over the pairs, q87 groups the distinct rows of three aggregations
// again for its EXCEPTs.
type SplitSource interface {
	Operator
	// SplitParts runs the operator to where its output is ready and
	// returns how many parts it has. ok false says the output cannot be
	// taken in parts (it spilled): one worker then reads it with Next.
	// It is called once, before any SplitPart.
	SplitParts(ctx context.Context) (n int, ok bool, err error)
	// SplitWorker returns one worker's reader of the parts: fn fills out,
	// empty, with part i's rows. Each worker has its own fn and out, and
	// the workers call theirs at once for different parts.
	SplitWorker() (fn func(i int, out *memory.ColBuf) error)
}

// splitParts deals a SplitSource's parts to the workers of a Parallel.
type splitParts struct {
	src    SplitSource
	ts     []types.T // src's, asked once: operators cache their types lazily
	once   sync.Once
	n      int
	ok     bool
	err    error
	next   atomic.Int64
	serial atomic.Bool // a worker reads the whole output with Next
}

func (q *splitParts) prepare(ctx context.Context) error {
	q.once.Do(func() {
		q.err = Guard(func() error {
			var err error
			q.n, q.ok, err = q.src.SplitParts(ctx)
			return err
		})
	})
	return q.err
}

// splitPart is one worker's source: the parts it took.
type splitPart struct {
	q      *splitParts
	out    *memory.ColBuf
	part   func(i int, out *memory.ColBuf) error
	serial bool
}

func (s *splitPart) Types() []types.T { return s.q.ts }

// Close leaves the source to the Parallel, which closes it once.
func (s *splitPart) Close() error { return nil }

func (s *splitPart) Next(ctx context.Context) (*vec.Batch, error) {
	if err := s.q.prepare(ctx); err != nil {
		return nil, err
	}
	if !s.q.ok {
		if !s.serial {
			if !s.q.serial.CompareAndSwap(false, true) {
				return nil, nil // another worker reads it
			}
			s.serial = true
		}
		return s.q.src.Next(ctx)
	}
	for {
		i := int(s.q.next.Add(1)) - 1
		if i >= s.q.n {
			return nil, nil
		}
		if err := memory.ErrCanceled(ctx); err != nil {
			return nil, err
		}
		if s.out == nil {
			s.out = memory.NewColBuf(s.q.ts, vec.BatchSize)
			s.part = s.q.src.SplitWorker()
		}
		s.out.Clear()
		if err := s.part(i, s.out); err != nil {
			return nil, err
		}
		if s.out.N > 0 {
			return &s.out.Batch, nil
		}
	}
}
