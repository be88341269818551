package exec

import (
	"context"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// WorkTable holds the rows of the previous iteration of a recursive query.
type WorkTable struct {
	T    []types.T
	rows *vec.Batch
}

// WorkTableScan reads a WorkTable as it is when the scan starts.
type WorkTableScan struct {
	W    *WorkTable
	done bool
}

func (s *WorkTableScan) Types() []types.T { return s.W.T }
func (s *WorkTableScan) Close() error     { return nil }
func (s *WorkTableScan) Next(ctx context.Context) (*vec.Batch, error) {
	if s.done || s.W.rows == nil || s.W.rows.N == 0 {
		return nil, nil
	}
	s.done = true
	return s.W.rows, nil
}

// MaxRecursion bounds WITH RECURSIVE iterations so a query without a
// terminating condition fails instead of running forever.
const MaxRecursion = 100000

// RecursiveUnion evaluates WITH RECURSIVE: the base rows, then the
// recursive term (planned afresh by Step for each iteration, reading Work)
// until it yields no new rows. Without All, rows already produced are
// dropped, as UNION does.
type RecursiveUnion struct {
	Base Operator
	Step func() (Operator, error)
	Work *WorkTable
	All  bool

	seen   map[string]bool
	cur    Operator
	next   *vec.Batch
	iter   int
	inStep bool
	key    []byte
}

func (r *RecursiveUnion) Types() []types.T { return r.Work.T }
func (r *RecursiveUnion) Close() error {
	err := r.Base.Close()
	if r.cur != nil && r.cur != r.Base {
		if e := r.cur.Close(); err == nil {
			err = e
		}
	}
	return err
}

// keep filters b to rows not seen before (UNION) and records them for the
// next iteration.
func (r *RecursiveUnion) keep(b *vec.Batch) *vec.Batch {
	out := vec.NewBatch(r.Work.T, b.N)
	for i := 0; i < b.N; i++ {
		if !r.All {
			r.key = r.key[:0]
			for _, v := range b.Vecs {
				r.key = appendKey(r.key, v, i)
			}
			if r.seen[string(r.key)] {
				continue
			}
			r.seen[string(r.key)] = true
		}
		for c, v := range b.Vecs {
			out.Vecs[c].AppendFrom(v, i)
		}
		out.N++
	}
	for c, v := range out.Vecs {
		for i := 0; i < out.N; i++ {
			r.next.Vecs[c].AppendFrom(v, i)
		}
	}
	r.next.N += out.N
	return out
}

func (r *RecursiveUnion) Next(ctx context.Context) (*vec.Batch, error) {
	if r.cur == nil {
		r.cur = r.Base
		r.seen = map[string]bool{}
		r.next = vec.NewBatch(r.Work.T, vec.BatchSize)
	}
	for {
		b, err := r.cur.Next(ctx)
		if err != nil {
			return nil, err
		}
		if b != nil {
			if out := r.keep(b); out.N > 0 {
				return out, nil
			}
			continue
		}
		// iteration finished: the new rows become the work table
		if r.cur != r.Base {
			r.cur.Close()
		}
		if r.next.N == 0 {
			return nil, nil
		}
		r.iter++
		if r.iter > MaxRecursion {
			return nil, pgerr.New(pgerr.InsufficientResources, "WITH RECURSIVE did not finish after %d iterations", MaxRecursion)
		}
		if err := ctx.Err(); err != nil {
			return nil, pgerr.New(pgerr.QueryCanceled, "canceling statement due to user request")
		}
		r.Work.rows = r.next
		r.next = vec.NewBatch(r.Work.T, vec.BatchSize)
		if r.cur, err = r.Step(); err != nil {
			return nil, err
		}
	}
}
