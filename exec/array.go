package exec

import (
	"strings"
	"time"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// Arrays are vectors of encoded values (vec/array.go). This file parses
// their text form, casts between array types and evaluates ARRAY[...]
// and subscripts; the SQL functions over arrays are in sql/.

func malformedArray(s, detail string) error {
	e := pgerr.New(pgerr.InvalidTextRepr, "malformed array literal: \"%s\"", s)
	e.Detail = detail
	return e
}

// SplitArrayText splits PostgreSQL's text form of a one-dimensional
// array into its elements (nil: NULL), as array_in reads it: quoted
// elements keep everything, unquoted ones are trimmed and take
// backslash escapes, an unquoted NULL is NULL. A dimension decoration
// "[1:n]=" is accepted for lower bound 1; nested braces are 0A000.
func SplitArrayText(s string) ([]*string, error) {
	in := s
	p := 0
	isSpace := func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' }
	skip := func() {
		for p < len(s) && isSpace(s[p]) {
			p++
		}
	}
	skip()
	if p < len(s) && s[p] == '[' {
		eq := strings.Index(s[p:], "]=")
		if eq < 0 {
			return nil, malformedArray(in, "Missing \"]\" after array dimensions.")
		}
		dims := s[p+1 : p+eq]
		lo, _, ok := strings.Cut(dims, ":")
		if !ok || strings.TrimSpace(lo) != "1" || strings.HasPrefix(s[p+eq+2:], "[") {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "arrays with a lower bound other than 1 are not supported")
		}
		p += eq + 2
		skip()
	}
	if p >= len(s) || s[p] != '{' {
		return nil, malformedArray(in, "Array value must start with \"{\" or dimension information.")
	}
	p++
	var out []*string
	skip()
	if p < len(s) && s[p] == '}' {
		p++
		skip()
		if p != len(s) {
			return nil, malformedArray(in, "Junk after closing right brace.")
		}
		return []*string{}, nil
	}
	for {
		skip()
		if p >= len(s) {
			return nil, malformedArray(in, "Unexpected end of input.")
		}
		if s[p] == '{' {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "multidimensional arrays are not supported")
		}
		var b strings.Builder
		quoted := false
		if s[p] == '"' {
			quoted = true
			p++
			for {
				if p >= len(s) {
					return nil, malformedArray(in, "Unexpected end of input.")
				}
				c := s[p]
				if c == '\\' {
					if p+1 >= len(s) {
						return nil, malformedArray(in, "Unexpected end of input.")
					}
					b.WriteByte(s[p+1])
					p += 2
					continue
				}
				p++
				if c == '"' {
					break
				}
				b.WriteByte(c)
			}
			skip()
		} else {
			lastEsc := 0 // length of b up to and including the last escaped byte
			for p < len(s) && s[p] != ',' && s[p] != '}' {
				c := s[p]
				switch {
				case c == '\\':
					if p+1 >= len(s) {
						return nil, malformedArray(in, "Unexpected end of input.")
					}
					b.WriteByte(s[p+1])
					p += 2
					lastEsc = b.Len()
					continue
				case c == '"' || c == '{':
					return nil, malformedArray(in, "Unexpected array element.")
				}
				b.WriteByte(c)
				p++
			}
			v := b.String()
			end := len(v)
			for end > lastEsc && isSpace(v[end-1]) {
				end--
			}
			v = v[:end]
			if v == "" {
				return nil, malformedArray(in, "Unexpected \",\" character.")
			}
			if lastEsc == 0 && strings.EqualFold(v, "NULL") {
				out = append(out, nil)
			} else {
				out = append(out, &v)
			}
		}
		if quoted {
			v := b.String()
			out = append(out, &v)
		}
		if p >= len(s) {
			return nil, malformedArray(in, "Unexpected end of input.")
		}
		if s[p] == ',' {
			p++
			continue
		}
		// '}'
		p++
		skip()
		if p != len(s) {
			return nil, malformedArray(in, "Junk after closing right brace.")
		}
		return out, nil
	}
}

// parseArrayInto parses the text form s into out, an array vector.
func parseArrayInto(out *vec.Vector, s string, loc *time.Location, assign bool) error {
	elems, err := SplitArrayText(s)
	if err != nil {
		return err
	}
	ev := vec.New(out.Type.Elem(), len(elems))
	for _, e := range elems {
		if e == nil {
			ev.AppendNull()
			continue
		}
		if err := ParseInto(ev, *e, loc, assign); err != nil {
			return err
		}
	}
	out.AppendString(vec.EncodeArray(ev, 0, ev.Len()))
	return nil
}

// castArray converts the first n arrays of v to array type to, element by
// element, with the element cast rules.
func castArray(env *Env, v *vec.Vector, n int, to types.T, assign bool) (*vec.Vector, error) {
	out := vec.New(to, n)
	from := vec.New(v.Type.Elem(), 8)
	var buf []byte
	for i := 0; i < n; i++ {
		if v.IsNull(i) {
			out.AppendNull()
			continue
		}
		from.Reset()
		if err := vec.DecodeArray(from, v.S[i]); err != nil {
			return nil, err
		}
		ev, err := CastVector(env, from, from.Len(), to.Elem(), assign)
		if err != nil {
			return nil, err
		}
		buf = buf[:0]
		for k := 0; k < ev.Len(); k++ {
			buf = vec.AppendElem(buf, ev, k)
		}
		out.AppendString(string(buf))
	}
	return out, nil
}

// ArrayCtor is ARRAY[e1, e2, ...]: every element already has the
// element type.
type ArrayCtor struct {
	Elems []Expr
	T     types.T
}

func (a *ArrayCtor) Type() types.T { return a.T }

func (a *ArrayCtor) MapColumns(fn func(int) int) Expr {
	o := &ArrayCtor{T: a.T, Elems: make([]Expr, len(a.Elems))}
	for i, e := range a.Elems {
		o.Elems[i] = MapColumns(e, fn)
	}
	return o
}

func (a *ArrayCtor) Eval(env *Env, b *vec.Batch) (*vec.Vector, error) {
	return encodeElems(env, b, a.T, a.Elems)
}

// Subscript is arr[i] (1-based; NULL outside the bounds), or with Slice
// arr[lo:hi] (either bound may be nil: the array's end), which clamps to
// the bounds as PostgreSQL does.
type Subscript struct {
	Arr, Lo, Hi Expr
	Slice       bool
}

func (s *Subscript) Type() types.T {
	if s.Slice {
		return s.Arr.Type()
	}
	return s.Arr.Type().Elem()
}

func (s *Subscript) MapColumns(fn func(int) int) Expr {
	o := &Subscript{Arr: MapColumns(s.Arr, fn), Slice: s.Slice}
	if s.Lo != nil {
		o.Lo = MapColumns(s.Lo, fn)
	}
	if s.Hi != nil {
		o.Hi = MapColumns(s.Hi, fn)
	}
	return o
}

func (s *Subscript) Eval(env *Env, b *vec.Batch) (*vec.Vector, error) {
	arr, err := s.Arr.Eval(env, b)
	if err != nil {
		return nil, err
	}
	var lo, hi *vec.Vector
	if s.Lo != nil {
		if lo, err = s.Lo.Eval(env, b); err != nil {
			return nil, err
		}
	}
	if s.Hi != nil {
		if hi, err = s.Hi.Eval(env, b); err != nil {
			return nil, err
		}
	}
	elem := arr.Type.Elem()
	out := vec.New(s.Type(), b.N)
	var ends []int
	for i := 0; i < b.N; i++ {
		if arr.IsNull(i) || (lo != nil && lo.IsNull(i)) || (hi != nil && hi.IsNull(i)) {
			out.AppendNull()
			continue
		}
		ends, err = vec.ArrayBounds(ends[:0], elem, arr.S[i])
		if err != nil {
			return nil, err
		}
		n := int64(len(ends))
		start := func(k int64) int { // offset of element k (0-based)
			if k == 0 {
				return 0
			}
			return ends[k-1]
		}
		if !s.Slice {
			k := hi.I64[i] - 1
			if k < 0 || k >= n {
				out.AppendNull()
				continue
			}
			if _, err := vec.DecodeElem(out, arr.S[i][:ends[k]], start(k)); err != nil {
				return nil, err
			}
			continue
		}
		l, h := int64(1), n
		if lo != nil {
			l = max(lo.I64[i], 1)
		}
		if hi != nil {
			h = min(hi.I64[i], n)
		}
		if l > h {
			out.AppendString("")
			continue
		}
		out.AppendString(arr.S[i][start(l-1):ends[h-1]])
	}
	return out, nil
}

// AnyArray is x op ANY (array) or x op ALL (array); L has the array's
// element type. NULL semantics as PostgreSQL: a NULL x or array gives
// NULL, an empty array false (ANY) or true (ALL), and a NULL element
// makes an otherwise undecided answer NULL. With a constant array and
// = ANY or <> ALL, the elements go into a set once.
type AnyArray struct {
	L, R Expr
	Op   CmpOp
	All  bool

	set     map[string]struct{}
	setNull bool
}

func (a *AnyArray) Type() types.T { return types.BoolT }

func (a *AnyArray) MapColumns(fn func(int) int) Expr {
	return &AnyArray{L: MapColumns(a.L, fn), R: MapColumns(a.R, fn), Op: a.Op, All: a.All}
}

func (a *AnyArray) Eval(env *Env, b *vec.Batch) (*vec.Vector, error) {
	l, err := a.L.Eval(env, b)
	if err != nil {
		return nil, err
	}
	out := vec.New(types.BoolT, b.N)
	if c, ok := a.R.(*Const); ok && (a.Op == EQ) != a.All && (a.Op == EQ || a.Op == NE) && !l.Type.DynNumeric() {
		if c.IsNull() {
			for i := 0; i < b.N; i++ {
				out.AppendNull()
			}
			return out, nil
		}
		if a.set == nil {
			ends, err := vec.ArrayBounds(nil, c.V.Type.Elem(), c.V.S[0])
			if err != nil {
				return nil, err
			}
			set := make(map[string]struct{}, len(ends))
			s, p := c.V.S[0], 0
			for _, e := range ends {
				if s[p] == 0x02 {
					a.setNull = true
				} else {
					set[s[p:e]] = struct{}{}
				}
				p = e
			}
			a.set = set
		}
		var buf []byte
		for i := 0; i < b.N; i++ {
			if l.IsNull(i) {
				out.AppendNull()
				continue
			}
			buf = vec.AppendElem(buf[:0], l, i)
			_, found := a.set[string(buf)]
			switch {
			case found:
				out.AppendBool(!a.All)
			case a.setNull:
				out.AppendNull()
			default:
				out.AppendBool(a.All)
			}
		}
		return out, nil
	}
	r, err := a.R.Eval(env, b)
	if err != nil {
		return nil, err
	}
	ev := vec.New(r.Type.Elem(), 8)
	for i := 0; i < b.N; i++ {
		if l.IsNull(i) || r.IsNull(i) {
			out.AppendNull()
			continue
		}
		ev.Reset()
		if err := vec.DecodeArray(ev, r.S[i]); err != nil {
			return nil, err
		}
		result, sawNull := a.All, false
		for k := 0; k < ev.Len(); k++ {
			if ev.IsNull(k) {
				sawNull = true
				continue
			}
			match := cmpResult(a.Op, CompareRows(l, i, ev, k))
			if match != a.All {
				result = !a.All
				break
			}
		}
		if sawNull && result == a.All {
			out.AppendNull()
			continue
		}
		out.AppendBool(result)
	}
	return out, nil
}

// ParseArray parses the text form s of an array of type t into its
// encoded value.
func ParseArray(t types.T, s string) (string, error) {
	v := vec.New(t, 1)
	if err := parseArrayInto(v, s, time.UTC, false); err != nil {
		return "", err
	}
	return v.S[0], nil
}
