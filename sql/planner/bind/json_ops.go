package bind

import (
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/fn"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// jsonOp binds json -> and ->>: an unknown literal on the right is a key
// (text), as PostgreSQL's operator resolution makes it, not a json value.
func (b *Binder) jsonOp(op string, l, r exec.Expr, loc int32) (exec.Expr, bool, error) {
	if l.Type().ID != types.JSON || (op != "->" && op != "->>") {
		return nil, false, nil
	}
	var err error
	switch rt := r.Type(); {
	case rt.ID == types.Unknown:
		r, err = b.Cast(r, types.TextT, false, loc)
	case rt.IsInteger():
		r, err = b.Cast(r, types.Int32T, false, loc)
	}
	if err != nil {
		return nil, true, err
	}
	o, casts, ret, err := fn.ResolveOperator(op, l.Type(), r.Type())
	if err != nil {
		if pe, ok := pgerr.As(err); ok {
			return nil, true, ErrAt(pe, loc)
		}
		return nil, true, err
	}
	e, err := b.applyOverload(o, []exec.Expr{l, r}, casts, ret, loc)
	return e, true, err
}
