package bind

import (
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// bitwiseOp binds the integer bitwise operators & | # << >> (pgJDBC's
// getIndexInfo tests index options with indoption[i] & 1); ok is false for
// other operators or operand types.
func (b *Binder) bitwiseOp(op string, l, r exec.Expr, loc int32) (exec.Expr, bool, error) {
	lt, rt := l.Type(), r.Type()
	if !lt.IsInteger() || !rt.IsInteger() {
		return nil, false, nil
	}
	t := lt
	switch op {
	case "&", "|", "#":
		if numRank(rt) > numRank(lt) {
			t = rt
		}
		var err error
		if r, err = b.Cast(r, t, false, loc); err != nil {
			return nil, true, err
		}
	case "<<", ">>":
		var err error
		if r, err = b.Cast(r, types.Int32T, false, loc); err != nil {
			return nil, true, err
		}
	default:
		return nil, false, nil
	}
	l, err := b.Cast(l, t, false, loc)
	if err != nil {
		return nil, true, err
	}
	bits := map[types.ID]uint{types.Int16: 16, types.Int32: 32, types.Int64: 64}[t.ID]
	e, err := b.Fold(&CatalogFn{Name: op, T: t, Args: []exec.Expr{l, r}, Strict: true,
		Fn: func(out *vec.Vector, a []*vec.Vector, i int) error {
			x, y := a[0].I64[i], a[1].I64[i]
			var v int64
			switch op {
			case "&":
				v = x & y
			case "|":
				v = x | y
			case "#":
				v = x ^ y
			case "<<":
				v = x << (uint64(y) % uint64(bits))
			default:
				v = x >> (uint64(y) % uint64(bits))
			}
			// wrap to the operand width, as PostgreSQL's int2shl etc. do
			v = v << (64 - bits) >> (64 - bits)
			out.AppendInt(v)
			return nil
		}}, loc)
	return e, true, err
}

// bitNot binds the prefix ~ on integers; ok is false for other operand types.
func (b *Binder) bitNot(e exec.Expr, loc int32) (exec.Expr, bool, error) {
	t := e.Type()
	if t.ID == types.Unknown {
		// PostgreSQL picks int4 for an unknown operand of a prefix operator
		// only when that is the single candidate; ~ has several
		return nil, false, nil
	}
	if !t.IsInteger() {
		return nil, false, nil
	}
	r, err := b.Fold(&CatalogFn{Name: "~", T: t, Args: []exec.Expr{e}, Strict: true,
		Fn: func(out *vec.Vector, a []*vec.Vector, i int) error {
			out.AppendInt(^a[0].I64[i])
			return nil
		}}, loc)
	return r, true, err
}
