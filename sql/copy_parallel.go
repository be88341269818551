package sql

import (
	"context"
	"io"
	"runtime"
	"sync"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/sql/copyio"
	"github.com/lakepg/lakepg/types"
)

// Splitting rows into fields and parsing them was most of a COPY's CPU
// and ran on the connection's goroutine, one row after another. When the
// wire layer can cut its data into chunks of whole rows (text and csv),
// the connection's goroutine only cuts (copyChunker), workers — one per
// core — split and parse a chunk each into a batch, and the writer takes
// the batches in the order of the data. Errors therefore come in the order
// of the data too: the writer stops at the first failed chunk, whose error
// names the line, and nothing later is looked at. At most a few chunks per
// worker are in flight, so memory stays bounded.

// copyChunker is the wire layer's chunking ability of CopyRows.
type copyChunker interface {
	CanChunk() bool
	// NextChunk returns the next run of whole rows, io.EOF after the last;
	// the chunk can be read on another goroutine while NextChunk goes on.
	NextChunk() (interface {
		Next() ([][]byte, error)
		Line() int64
	}, error)
}

// chunkJob is one chunk on its way through a worker to the writer.
type chunkJob struct {
	rows CopyRows
	res  chan copyItem // one item: the chunk's batch or its error
}

// orderedOp is the writer's input: the chunks' batches in data order.
type orderedOp struct {
	order <-chan *chunkJob
	ts    []types.T
	free  chan *vec.Batch
	last  *vec.Batch
}

func (o *orderedOp) Types() []types.T { return o.ts }
func (o *orderedOp) Close() error     { return nil }
func (o *orderedOp) Next(ctx context.Context) (*vec.Batch, error) {
	if o.last != nil {
		// the consumer is done with it
		select {
		case o.free <- o.last:
		default:
		}
		o.last = nil
	}
	for {
		var j *chunkJob
		select {
		case j = <-o.order:
		case <-ctx.Done():
			return nil, pgerr.New(pgerr.QueryCanceled, "canceling statement due to user request")
		}
		it := <-j.res
		if it.err != nil || it.b == nil {
			return nil, it.err // the end of the data, or the first error in it
		}
		if it.b.N == 0 {
			continue
		}
		o.last = it.b
		return it.b, nil
	}
}

// parallelCopy is pipelinedCopy for chunked data.
func (s *Session) parallelCopy(ctx context.Context, src *copyio.CopyRowsOp, ch copyChunker, write func(exec.Operator) (*tableWrite, error)) (*tableWrite, error) {
	workers := max(1, runtime.GOMAXPROCS(0))
	order := make(chan *chunkJob, 2*workers)
	jobs := make(chan *chunkJob, workers)
	free := make(chan *vec.Batch, 3*workers)
	stop := make(chan struct{}) // closed when the writer has returned

	type result struct {
		tw  *tableWrite
		err error
	}
	done := make(chan result, 1)
	go func() {
		var r result
		defer func() { close(stop); done <- r }()
		defer recoverPanic(s.eng.Log, &r.err)
		r.tw, r.err = write(&orderedOp{order: order, ts: src.Types(), free: free})
	}()

	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				j.res <- s.parseChunk(src, j.rows, free)
			}
		}()
	}
	// send queues a job for the writer, false when the writer has stopped.
	send := func(j *chunkJob) bool {
		select {
		case order <- j:
			return true
		case <-stop:
			return false
		}
	}
	for {
		if err := ctx.Err(); err != nil {
			j := &chunkJob{res: make(chan copyItem, 1)}
			j.res <- copyItem{err: pgerr.New(pgerr.QueryCanceled, "canceling statement due to user request")}
			send(j)
			break
		}
		c, err := s.nextChunk(ch)
		j := &chunkJob{res: make(chan copyItem, 1)}
		if err != nil {
			if err != io.EOF {
				j.res <- copyItem{err: err}
			} else {
				j.res <- copyItem{}
			}
			send(j)
			break
		}
		j.rows = c
		if !send(j) {
			break
		}
		jobs <- j
	}
	close(jobs)
	r := <-done
	wg.Wait()
	return r.tw, r.err
}

// parseChunk parses a whole chunk into one batch (a chunk holds at most a
// batch's rows).
func (s *Session) parseChunk(src *copyio.CopyRowsOp, rows CopyRows, free chan *vec.Batch) (it copyItem) {
	defer recoverPanic(s.eng.Log, &it.err)
	var b *vec.Batch
	select {
	case b = <-free:
		b.Reset()
	default:
		b = vec.NewBatch(src.Types(), vec.BatchSize)
	}
	for {
		_, eof, err := src.ParseRows(rows, b, 1<<30)
		if err != nil {
			return copyItem{err: err}
		}
		if eof {
			return copyItem{b: b}
		}
	}
}

// nextChunk is ch.NextChunk with a panic turned into an error, so that the
// writer and the workers are still told to stop.
func (s *Session) nextChunk(ch copyChunker) (c CopyRows, err error) {
	defer recoverPanic(s.eng.Log, &err)
	return ch.NextChunk()
}
