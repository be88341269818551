package exec

import (
	"strings"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// AnyText is x op ANY (array) / op ALL (array) where the array arrives in
// PostgreSQL's text form ('{a,b,"c d"}'), as lakepg's catalog emulation
// returns arrays: each element is parsed as x's type and compared.
type AnyText struct {
	L, R Expr
	Op   CmpOp
	All  bool
}

func (a *AnyText) Type() types.T { return types.BoolT }

func (a *AnyText) MapColumns(fn func(int) int) Expr {
	return &AnyText{L: MapColumns(a.L, fn), R: MapColumns(a.R, fn), Op: a.Op, All: a.All}
}

// ArrayElements splits PostgreSQL's array text form; ok is false when s is
// not one. NULL elements come back as nil.
func ArrayElements(s string) ([]*string, bool) {
	s = strings.TrimSpace(s)
	if len(s) < 2 || s[0] != '{' || s[len(s)-1] != '}' {
		return nil, false
	}
	body := s[1 : len(s)-1]
	var out []*string
	if strings.TrimSpace(body) == "" {
		return out, true
	}
	var cur strings.Builder
	quoted, wasQuoted := false, false
	flush := func() {
		v := cur.String()
		if !wasQuoted && strings.EqualFold(strings.TrimSpace(v), "NULL") {
			out = append(out, nil)
		} else {
			if !wasQuoted {
				v = strings.TrimSpace(v)
			}
			out = append(out, &v)
		}
		cur.Reset()
		wasQuoted = false
	}
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case c == '\\' && i+1 < len(body):
			i++
			cur.WriteByte(body[i])
		case c == '"':
			quoted = !quoted
			wasQuoted = true
		case c == ',' && !quoted:
			flush()
		default:
			cur.WriteByte(c)
		}
	}
	flush()
	return out, true
}

func (a *AnyText) Eval(env *Env, b *vec.Batch) (*vec.Vector, error) {
	l, err := a.L.Eval(env, b)
	if err != nil {
		return nil, err
	}
	r, err := a.R.Eval(env, b)
	if err != nil {
		return nil, err
	}
	out := vec.New(types.BoolT, b.N)
	one := vec.New(l.Type, 1)
	for i := 0; i < b.N; i++ {
		if l.IsNull(i) || r.IsNull(i) {
			out.AppendNull()
			continue
		}
		elems, ok := ArrayElements(r.S[i])
		if !ok {
			out.AppendNull()
			continue
		}
		result, sawNull := a.All, false
		for _, e := range elems {
			if e == nil {
				sawNull = true
				continue
			}
			one.Reset()
			if err := ParseInto(one, *e, env.Loc, false); err != nil {
				return nil, err
			}
			match := cmpResult(a.Op, CompareRows(l, i, one, 0))
			if a.All && !match {
				result = false
				break
			}
			if !a.All && match {
				result = true
				break
			}
		}
		if sawNull && result == a.All {
			out.AppendNull() // undecided: a NULL element could change the answer
			continue
		}
		out.AppendBool(result)
	}
	return out, nil
}
