package exec

import (
	"context"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// ColumnMapper is implemented by expressions defined outside this package so
// MapColumns can rewrite them too.
type ColumnMapper interface {
	MapColumns(fn func(int) int) Expr
}

// MapColumns returns a copy of e whose column references are renumbered by
// fn; the planner uses it when an expression moves to an operator with a
// different input layout.
func MapColumns(e Expr, fn func(int) int) Expr {
	m := func(x Expr) Expr {
		if x == nil {
			return nil
		}
		return MapColumns(x, fn)
	}
	ms := func(xs []Expr) []Expr {
		out := make([]Expr, len(xs))
		for i, x := range xs {
			out[i] = m(x)
		}
		return out
	}
	switch x := e.(type) {
	case *ColRef:
		return &ColRef{Idx: fn(x.Idx), T: x.T}
	case *Const:
		return &Const{V: x.V, Param: x.Param} // a fresh cache: copies may run on other goroutines
	case *Arith:
		return &Arith{Op: x.Op, L: m(x.L), R: m(x.R), T: x.T}
	case *Neg:
		return &Neg{E: m(x.E)}
	case *Cmp:
		return &Cmp{Op: x.Op, L: m(x.L), R: m(x.R)}
	case *Logic:
		return &Logic{And: x.And, Args: ms(x.Args)}
	case *Not:
		return &Not{E: m(x.E)}
	case *IsNull:
		return &IsNull{E: m(x.E), Not: x.Not}
	case *Like:
		return &Like{E: m(x.E), Pattern: m(x.Pattern), Not: x.Not, Fold: x.Fold}
	case *Case:
		return &Case{When: ms(x.When), Then: ms(x.Then), Else: m(x.Else), T: x.T}
	case *Coalesce:
		return &Coalesce{Args: ms(x.Args), T: x.T}
	case *Func:
		return &Func{Name: x.Name, Args: ms(x.Args), T: x.T, Fn: x.Fn, NonStrict: x.NonStrict}
	case *FnCall:
		return &FnCall{O: x.O, Args: ms(x.Args), T: x.T}
	case *Cast:
		return &Cast{E: m(x.E), To: x.To, Assign: x.Assign}
	case ColumnMapper:
		return x.MapColumns(fn)
	}
	panic("exec.MapColumns: unknown expression type")
}

// RowNumber appends a BIGINT column numbering its input rows from 0.
type RowNumber struct {
	Input Operator
	n     int64
	out   vec.Batch
}

func (r *RowNumber) Types() []types.T {
	return append(append([]types.T{}, r.Input.Types()...), types.Int64T)
}
func (r *RowNumber) Close() error { return r.Input.Close() }
func (r *RowNumber) Next(ctx context.Context) (*vec.Batch, error) {
	b, err := r.Input.Next(ctx)
	if err != nil || b == nil {
		return nil, err
	}
	rn := vec.New(types.Int64T, b.N)
	for i := 0; i < b.N; i++ {
		rn.I64 = append(rn.I64, r.n)
		r.n++
	}
	r.out.Vecs = append(append(r.out.Vecs[:0], b.Vecs...), rn)
	r.out.N = b.N
	return &r.out, nil
}
