package exec

import (
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// InJoinBuild is true for rows whose Keys occur in the finished build side
// of Join: a filter computed at run time from a join's build side and
// applied below its probe side, before a pipeline breaker such as an
// aggregate. A correlated subquery (TPC-H Q17, Q20) aggregates the inner
// rows per correlation key; with the outer rows as the build side, only the
// keys the outer query has are aggregated. NULL keys are false. Before the
// build exists every row passes, so the filter is only ever an
// optimisation.
type InJoinBuild struct {
	Join *HashJoin
	Keys []Expr // of the join's probe key types

	heads []int32
	hs    []uint64
	keys  []*vec.Vector
	out   *vec.Vector
}

func (e *InJoinBuild) Type() types.T { return types.BoolT }

func (e *InJoinBuild) Eval(env *Env, b *vec.Batch) (*vec.Vector, error) {
	n := b.N
	if e.out == nil {
		e.out = vec.New(types.BoolT, vec.BatchSize)
	}
	out := e.out
	out.Reset()
	if cap(out.B) < n {
		out.B = make([]bool, n)
	}
	out.B = out.B[:n]
	jb := e.Join.built()
	if jb == nil {
		for i := range out.B {
			out.B[i] = true
		}
		return out, nil
	}
	e.keys = e.keys[:0]
	for _, k := range e.Keys {
		v, err := k.Eval(env, b)
		if err != nil {
			return nil, err
		}
		e.keys = append(e.keys, v)
	}
	e.heads = Resize32(e.heads, n)
	e.hs = jb.lookup(e.keys, n, e.heads, e.hs, func(int) {})
	for i, h := range e.heads {
		out.B[i] = h >= 0
	}
	return out, nil
}

// MapColumns implements ColumnMapper: copies share the join.
func (e *InJoinBuild) MapColumns(fn func(int) int) Expr {
	ks := make([]Expr, len(e.Keys))
	for i, k := range e.Keys {
		ks[i] = MapColumns(k, fn)
	}
	return &InJoinBuild{Join: e.Join, Keys: ks}
}
