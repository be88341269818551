package sql

import (
	"context"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/sql/copyio"
	"github.com/lakepg/lakepg/types"
)

// COPY FROM spends about as long reading and parsing the client's rows as
// encoding and compressing them into Parquet, and both ran one after the
// other on one core. pipelinedCopy overlaps them: the writer runs on a
// goroutine of its own, pulling batches that this goroutine — the one
// that owns the client's messages — reads and parses. Two batches take
// turns, so the one being written is never the one being filled (a batch
// is valid until its consumer asks for the next).

type copyItem struct {
	b   *vec.Batch
	err error
}

// chanOp is the writer's input: the batches the reading goroutine sends.
type chanOp struct {
	ch <-chan copyItem
	ts []types.T
}

func (o *chanOp) Types() []types.T { return o.ts }
func (o *chanOp) Close() error     { return nil }
func (o *chanOp) Next(ctx context.Context) (*vec.Batch, error) {
	select {
	case it := <-o.ch:
		return it.b, it.err
	case <-ctx.Done():
		return nil, pgerr.New(pgerr.QueryCanceled, "canceling statement due to user request")
	}
}

// pipelinedCopy runs write over src's rows, write on another goroutine. An
// error either side ends both; the writer's result is returned once it has
// stopped, so nothing of it runs on after the COPY answered.
func (s *Session) pipelinedCopy(ctx context.Context, src *copyio.CopyRowsOp, write func(exec.Operator) (*tableWrite, error)) (*tableWrite, error) {
	src.Prepare()
	if ch, ok := src.Rows().(copyChunker); ok && ch.CanChunk() {
		return s.parallelCopy(ctx, src, ch, write) // copy_parallel.go
	}
	ch := make(chan copyItem)
	type result struct {
		tw  *tableWrite
		err error
	}
	done := make(chan result, 1)
	go func() {
		var r result
		defer func() { done <- r }()
		defer recoverPanic(s.eng.Log, &r.err)
		r.tw, r.err = write(&chanOp{ch: ch, ts: src.Types()})
	}()
	var bufs [2]*vec.Batch
	for i := 0; ; i++ {
		src.B = bufs[i%2]
		b, err := src.Next(ctx)
		bufs[i%2] = src.B
		select {
		case ch <- copyItem{b, err}:
		case r := <-done:
			return r.tw, r.err // the writer stopped first: its error
		}
		if b == nil || err != nil {
			break
		}
	}
	r := <-done
	return r.tw, r.err
}
