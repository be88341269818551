package bind

import (
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/fn"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// timeSeriesSRF is generate_series(start, stop, interval) over timestamps in
// a select list or a correlated FROM (a date series is timestamptz, as in
// PostgreSQL); ok is false when start and stop are not times.
func (b *Binder) timeSeriesSRF(name string, args []exec.Expr, loc int32) (*Srf, bool, error) {
	t, err := CommonType(args[:2], "generate_series", loc)
	if err != nil {
		return nil, false, nil
	}
	switch t.ID {
	case types.Date:
		t = types.TimestamptzT
	case types.Timestamp, types.Timestamptz:
	default:
		return nil, false, nil
	}
	if len(args) != 3 {
		return nil, true, ErrAt(pgerr.New(pgerr.UndefinedFunction, "function generate_series(%s, %s) does not exist", args[0].Type(), args[1].Type()), loc)
	}
	args = append([]exec.Expr{}, args...)
	for i, at := range []types.T{t, t, types.IntervalT} {
		if args[i], err = b.Cast(args[i], at, false, loc); err != nil {
			return nil, true, err
		}
	}
	add, _, _, err := fn.ResolveOperator("+", t, types.IntervalT)
	if err != nil {
		return nil, true, err
	}
	ctx := &fn.Ctx{Loc: b.Env.Loc, Now: b.Env.Now}
	f := &Srf{name: name, args: args, strict: true, Cols: []Column{{Name: name, Type: t}}}
	f.start = func(a []*vec.Vector, row int) (srfIter, error) {
		step := a[2].Slice(row, row+1)
		cur, stop := a[0].I64[row], a[1].I64[row]
		l, next := vec.New(t, 1), vec.New(t, 1)
		advance := func() (int64, error) {
			l.Reset()
			next.Reset()
			l.AppendInt(cur)
			if err := add.Eval(ctx, next, []*vec.Vector{l, step}, 1); err != nil {
				return 0, err
			}
			return next.I64[0], nil
		}
		probe, err := advance()
		if err != nil {
			return nil, err
		}
		if probe == cur {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "step size cannot equal zero")
		}
		up := probe > cur
		past := func() bool { return up && cur > stop || !up && cur < stop }
		return func(outs []*vec.Vector, max int) (int, bool, error) {
			n := 0
			for ; n < max && !past(); n++ {
				outs[0].AppendInt(cur)
				nx, err := advance()
				if err != nil {
					return n, true, err
				}
				cur = nx
			}
			return n, past(), nil
		}, nil
	}
	return f, true, nil
}
