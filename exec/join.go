package exec

import (
	"context"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// NestedLoopJoin pairs every left row with every buffered right row and keeps
// pairs where On holds (all pairs when On is nil). LeftOuter keeps unmatched
// left rows with NULLs. It is the general fallback; equi-joins get a hash
// join in the engine work that follows.
type NestedLoopJoin struct {
	Env         *Env
	Left, Right Operator
	On          Expr
	LeftOuter   bool

	right *vec.Batch
	lb    *vec.Batch
	li    int
	out   *vec.Batch
	ts    []types.T
}

func (j *NestedLoopJoin) Types() []types.T {
	if j.ts == nil {
		j.ts = append(append([]types.T{}, j.Left.Types()...), j.Right.Types()...)
	}
	return j.ts
}

func (j *NestedLoopJoin) Close() error {
	err := j.Left.Close()
	if e := j.Right.Close(); err == nil {
		err = e
	}
	return err
}

func (j *NestedLoopJoin) Next(ctx context.Context) (*vec.Batch, error) {
	if j.right == nil {
		j.right = vec.NewBatch(j.Right.Types(), vec.BatchSize)
		err := Drain(ctx, j.Right, func(b *vec.Batch) error {
			for c, v := range b.Vecs {
				for i := 0; i < b.N; i++ {
					j.right.Vecs[c].AppendFrom(v, i)
				}
			}
			j.right.N += b.N
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	nl := len(j.Left.Types())
	for {
		if j.lb == nil || j.li >= j.lb.N {
			b, err := j.Left.Next(ctx)
			if err != nil || b == nil {
				return nil, err
			}
			// keep our own copy: the left operator may reuse its batch
			j.lb = vec.NewBatch(j.Left.Types(), b.N)
			for c, v := range b.Vecs {
				for i := 0; i < b.N; i++ {
					j.lb.Vecs[c].AppendFrom(v, i)
				}
			}
			j.lb.N = b.N
			j.li = 0
		}
		// one left row against all right rows per step
		i := j.li
		j.li++
		cand := vec.NewBatch(j.Types(), j.right.N)
		for c := 0; c < nl; c++ {
			for k := 0; k < j.right.N; k++ {
				cand.Vecs[c].AppendFrom(j.lb.Vecs[c], i)
			}
		}
		for c, v := range j.right.Vecs {
			cand.Vecs[nl+c] = v
		}
		cand.N = j.right.N
		var keep []int
		if j.On != nil && cand.N > 0 {
			p, err := j.On.Eval(j.Env, cand)
			if err != nil {
				return nil, err
			}
			for k := 0; k < cand.N; k++ {
				if p.B[k] && !p.IsNull(k) {
					keep = append(keep, k)
				}
			}
		} else {
			for k := 0; k < cand.N; k++ {
				keep = append(keep, k)
			}
		}
		if len(keep) == 0 {
			if !j.LeftOuter {
				continue
			}
			out := vec.NewBatch(j.Types(), 1)
			for c := 0; c < nl; c++ {
				out.Vecs[c].AppendFrom(j.lb.Vecs[c], i)
			}
			for c := nl; c < len(out.Vecs); c++ {
				out.Vecs[c].AppendNull()
			}
			out.N = 1
			return out, nil
		}
		out := vec.NewBatch(j.Types(), len(keep))
		for c, v := range cand.Vecs {
			out.Vecs[c].Gather(v, keep)
		}
		out.N = len(keep)
		return out, nil
	}
}
