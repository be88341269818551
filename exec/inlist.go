package exec

import (
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// InList is x [NOT] IN (constants): one typed membership test per row
// instead of an OR of comparisons. SQL's rules: NULL when x is NULL, or
// when x matches nothing and the list holds a NULL.
type InList struct {
	E       Expr
	List    *vec.Vector // the constants, of E's type
	Not     bool
	hasNull bool
	strs    map[string]struct{}
	ints    map[int64]struct{}
	ready   bool
}

func (l *InList) Type() types.T { return types.BoolT }

func (l *InList) MapColumns(fn func(int) int) Expr {
	return &InList{E: MapColumns(l.E, fn), List: l.List, Not: l.Not}
}

func (l *InList) prepare() {
	l.ready = true
	n := l.List.Len()
	for i := 0; i < n; i++ {
		if l.List.IsNull(i) {
			l.hasNull = true
		}
	}
	switch l.List.Type.Storage() {
	case types.StoreBytes:
		if n > 8 {
			l.strs = make(map[string]struct{}, n)
			for i := 0; i < n; i++ {
				if !l.List.IsNull(i) {
					l.strs[l.List.S[i]] = struct{}{}
				}
			}
		}
	case types.StoreInt:
		if n > 8 && l.List.Type.ID != types.Numeric {
			l.ints = make(map[int64]struct{}, n)
			for i := 0; i < n; i++ {
				if !l.List.IsNull(i) {
					l.ints[l.List.I64[i]] = struct{}{}
				}
			}
		}
	}
}

func (l *InList) Eval(env *Env, b *vec.Batch) (*vec.Vector, error) {
	if !l.ready {
		l.prepare()
	}
	x, err := l.E.Eval(env, b)
	if err != nil {
		return nil, err
	}
	n := b.N
	out := vec.New(types.BoolT, n)
	out.B = out.B[:n]
	var nulls []bool
	list := l.List
	ln := list.Len()
	for i := 0; i < n; i++ {
		if x.IsNull(i) {
			if nulls == nil {
				nulls = make([]bool, n)
			}
			nulls[i] = true
			continue
		}
		found := false
		switch {
		case l.strs != nil:
			_, found = l.strs[x.S[i]]
		case l.ints != nil:
			_, found = l.ints[x.I64[i]]
		case x.Type.Storage() == types.StoreBytes && x.Type.ID != types.Numeric:
			s := x.S[i]
			for k := 0; k < ln; k++ {
				if !list.IsNull(k) && list.S[k] == s {
					found = true
					break
				}
			}
		default:
			for k := 0; k < ln; k++ {
				if !list.IsNull(k) && CompareRows(x, i, list, k) == 0 {
					found = true
					break
				}
			}
		}
		if !found && l.hasNull {
			if nulls == nil {
				nulls = make([]bool, n)
			}
			nulls[i] = true
			continue
		}
		out.B[i] = found != l.Not
	}
	out.Nulls = nulls
	return out, nil
}
