package exec

import (
	"context"

	"github.com/lakepg/lakepg/exec/memory"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// readAhead runs its input on a goroutine of its own, a few batches ahead
// of the consumer, so that a long single-threaded stage below (a spilled
// sort's merge) and the one above (a window computing its partitions) use
// two processors instead of taking turns on one. Batches are copied into
// buffers of its own: the input may overwrite the batch it returned.
type readAhead struct {
	in      Operator
	ready   chan aheadBatch
	free    chan *memory.ColBuf
	quit    chan struct{}
	done    chan struct{}
	started bool
	cur     *memory.ColBuf
}

type aheadBatch struct {
	b   *memory.ColBuf
	err error
}

// aheadBatches is how many batches may wait, computed, for the consumer.
const aheadBatches = 3

func NewReadAhead(in Operator) *readAhead { return &readAhead{in: in} }

func (r *readAhead) Types() []types.T { return r.in.Types() }

func (r *readAhead) Next(ctx context.Context) (*vec.Batch, error) {
	if !r.started {
		r.started = true
		r.ready = make(chan aheadBatch, aheadBatches)
		r.free = make(chan *memory.ColBuf, aheadBatches+1)
		r.quit = make(chan struct{})
		r.done = make(chan struct{})
		for i := 0; i < aheadBatches+1; i++ {
			r.free <- memory.NewColBuf(r.in.Types(), vec.BatchSize)
		}
		go r.run(ctx)
	}
	if r.cur != nil {
		r.free <- r.cur // the consumer is done with it
		r.cur = nil
	}
	select {
	case x, ok := <-r.ready:
		if !ok {
			return nil, nil
		}
		if x.err != nil {
			return nil, x.err
		}
		r.cur = x.b
		return &x.b.Batch, nil
	case <-ctx.Done():
		return nil, memory.ErrCanceled(ctx)
	}
}

func (r *readAhead) run(ctx context.Context) {
	defer close(r.done)
	defer close(r.ready)
	for {
		var buf *memory.ColBuf
		select {
		case buf = <-r.free:
		case <-r.quit:
			return
		}
		var b *vec.Batch
		err := Guard(func() error {
			var err error
			b, err = r.in.Next(ctx)
			return err
		})
		if err == nil && b == nil {
			return
		}
		if err == nil {
			buf.Clear()
			buf.AppendBatch(b, 0, b.N)
		}
		select {
		case r.ready <- aheadBatch{b: buf, err: err}:
		case <-r.quit:
			return
		}
		if err != nil {
			return
		}
	}
}

// Close stops the goroutine before closing the input, which it may be
// using.
func (r *readAhead) Close() error {
	if r.started && r.quit != nil {
		close(r.quit)
		<-r.done
		r.quit = nil
	}
	return r.in.Close()
}
