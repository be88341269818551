package exec

import (
	"github.com/lakepg/lakepg/exec/fn"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// FnCall applies a library function or operator overload (exec/fn) to its
// arguments, already cast to the overload's parameter types.
type FnCall struct {
	O    *fn.Overload
	Args []Expr
	T    types.T
	args []*vec.Vector
	out  *vec.Vector
}

func (f *FnCall) Type() types.T { return f.T }

func (f *FnCall) Eval(env *Env, b *vec.Batch) (*vec.Vector, error) {
	if f.args == nil {
		f.args = make([]*vec.Vector, len(f.Args))
	}
	args := f.args
	for i, a := range f.Args {
		v, err := a.Eval(env, b)
		if err != nil {
			return nil, err
		}
		args[i] = v
	}
	out := outVec(&f.out, f.T, b.N)
	ctx := &fn.Ctx{Loc: env.Loc, Now: env.Now}
	if err := f.O.Eval(ctx, out, args, b.N); err != nil {
		return nil, err
	}
	return out, nil
}
