package bind

import (
	"bytes"
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// Real arrays (types.Array, values encoded as in exec/vec/array.go):
// ARRAY[...] and ARRAY(subquery), operators (comparisons, @>, <@, &&, ||),
// = ANY / <> ALL over an array value, and the array functions. The
// catalog's int2vector/oidvector and other text-form columns keep the
// text-form code of pgcatalog_arrays.go; each hook here first checks for
// a real array.

// elemTypeOf is the element type of array type name tn (ArrayBounds set).
func elemTypeOf(tn *pg.TypeName) (types.T, error) {
	return ResolveTypeName(&pg.TypeName{Names: tn.Names, Typmods: tn.Typmods, Location: tn.Location})
}

// arrayTypeName resolves PostgreSQL's internal array names (_int4, _text).
func arrayTypeName(name string) (types.T, bool) {
	if !strings.HasPrefix(name, "_") {
		return types.T{}, false
	}
	e, err := ResolveTypeName(&pg.TypeName{Names: []*pg.Node{pg.MakeStrNode(name[1:])}, Location: -1})
	if err != nil {
		return types.T{}, false
	}
	return types.ArrayOf(e), true
}

// EmptyArray is the constant '{}' of type t.
func EmptyArray(t types.T) exec.Expr {
	return ConstOf(t, func(v *vec.Vector) { v.AppendString("") })
}

// bindArrayExpr binds ARRAY[e, ...]; target, when an array type, types
// the elements (ARRAY[]::int[]).
func (b *Binder) bindArrayExpr(a *pg.A_ArrayExpr, sc *Scope, target types.T) (exec.Expr, error) {
	var elems []exec.Expr
	for _, n := range a.Elements {
		if inner := n.GetAArrayExpr(); inner != nil {
			return nil, ErrAt(pgerr.New(pgerr.FeatureNotSupported, "multidimensional arrays are not supported"), a.Location)
		}
		e, err := b.Bind(n, sc)
		if err != nil {
			return nil, err
		}
		elems = append(elems, e)
	}
	var et types.T
	if target.ID == types.Array {
		et = target.Elem()
	} else {
		if len(elems) == 0 {
			e := pgerr.New("42P18", "cannot determine type of empty array")
			e.Hint = "Explicitly cast to the desired type, for example ARRAY[]::integer[]."
			return nil, ErrAt(e, a.Location)
		}
		t, err := CommonType(elems, "ARRAY", a.Location)
		if err != nil {
			return nil, err
		}
		et = t
	}
	if et.ID == types.Array {
		return nil, ErrAt(pgerr.New(pgerr.FeatureNotSupported, "multidimensional arrays are not supported"), a.Location)
	}
	allConst := true
	for i := range elems {
		var err error
		if elems[i], err = b.Cast(elems[i], et, false, a.Location); err != nil {
			return nil, err
		}
		if _, ok := elems[i].(*exec.Const); !ok {
			allConst = false
		}
	}
	ctor := &exec.ArrayCtor{Elems: elems, T: types.ArrayOf(et)}
	if allConst {
		v, err := ctor.Eval(b.Env, &vec.Batch{N: 1})
		if err != nil {
			return nil, err
		}
		return exec.NewConst(v), nil
	}
	return ctor, nil
}

// unifyArrays casts l and r to one array type.
func (b *Binder) unifyArrays(l, r exec.Expr, loc int32) (exec.Expr, exec.Expr, bool, error) {
	lt, rt := l.Type(), r.Type()
	if lt.ID == types.Unknown {
		c, err := b.Cast(l, rt, false, loc)
		return c, r, err == nil, err
	}
	if rt.ID == types.Unknown {
		c, err := b.Cast(r, lt, false, loc)
		return l, c, err == nil, err
	}
	if lt.ID != types.Array || rt.ID != types.Array {
		return l, r, false, nil
	}
	if lt == rt {
		return l, r, true, nil
	}
	// no implicit casts between array types, but for modifiers
	// (numeric scales, varchar lengths)
	le, re := lt.Elem(), rt.Elem()
	if le.ID != re.ID || le.Varchar != re.Varchar || le.Name != re.Name {
		return l, r, false, nil
	}
	et, ok := unify(lt.Elem(), rt.Elem())
	if !ok {
		return l, r, false, nil
	}
	t := types.ArrayOf(et)
	var err error
	if l, err = b.Cast(l, t, false, loc); err != nil {
		return nil, nil, false, err
	}
	r, err = b.Cast(r, t, false, loc)
	return l, r, err == nil, err
}

// arrayOp binds an operator with an array operand; ok is false when
// neither side is an array.
func (b *Binder) arrayOp(op string, l, r exec.Expr, loc int32) (exec.Expr, bool, error) {
	lt, rt := l.Type(), r.Type()
	if lt.ID != types.Array && rt.ID != types.Array {
		return nil, false, nil
	}
	noOp := func() error {
		e := pgerr.New(pgerr.UndefinedFunction, "operator does not exist: %s %s %s", lt, op, rt)
		e.Hint = "No operator matches the given name and argument types. You might need to add explicit type casts."
		return ErrAt(e, loc)
	}
	if op == "||" {
		switch {
		case lt.ID == types.Array && rt.ID != types.Array && rt.ID != types.Unknown:
			return b.arrayFn("array_append", []exec.Expr{l, r}, loc)
		case rt.ID == types.Array && lt.ID != types.Array && lt.ID != types.Unknown:
			return b.arrayFn("array_prepend", []exec.Expr{l, r}, loc)
		}
		return b.arrayFn("array_cat", []exec.Expr{l, r}, loc)
	}
	l, r, ok, err := b.unifyArrays(l, r, loc)
	if err != nil {
		return nil, true, err
	}
	if !ok {
		return nil, true, noOp()
	}
	if cop, ok := cmpOps[op]; ok {
		return &exec.Cmp{Op: cop, L: l, R: r}, true, nil
	}
	switch op {
	case "@>", "<@", "&&":
		if op == "<@" {
			l, r = r, l
		}
		elem := l.Type().Elem()
		overlap := op == "&&"
		f := &CatalogFn{Name: op, T: types.BoolT, Args: []exec.Expr{l, r}, Strict: true,
			Fn: func(out *vec.Vector, a []*vec.Vector, i int) error {
				ls, err := elemSet(elem, a[0].S[i])
				if err != nil {
					return err
				}
				rs, err := elemList(elem, a[1].S[i])
				if err != nil {
					return err
				}
				res := !overlap
				for _, e := range rs {
					_, in := ls[e]
					if overlap && in && e != "\x02" {
						res = true
						break
					}
					if !overlap && (!in || e == "\x02") {
						res = false
						break
					}
				}
				out.AppendBool(res)
				return nil
			}}
		e, err := b.Fold(f, loc)
		return e, true, err
	}
	return nil, true, noOp()
}

// elemList splits an encoded array into its encoded elements.
func elemList(elem types.T, s string) ([]string, error) {
	ends, err := vec.ArrayBounds(nil, elem, s)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(ends))
	p := 0
	for k, e := range ends {
		out[k], p = s[p:e], e
	}
	return out, nil
}

func elemSet(elem types.T, s string) (map[string]struct{}, error) {
	l, err := elemList(elem, s)
	if err != nil {
		return nil, err
	}
	m := make(map[string]struct{}, len(l))
	for _, e := range l {
		m[e] = struct{}{}
	}
	return m, nil
}

// bindAnyArray binds x op ANY/ALL (array value) over a real array.
func (b *Binder) bindAnyArray(op string, l, r exec.Expr, any bool, loc int32) (exec.Expr, error) {
	cop, ok := cmpOps[op]
	if !ok {
		return nil, ErrAt(pgerr.New(pgerr.FeatureNotSupported, "%s ANY/ALL (array) is not supported", op), loc)
	}
	if r.Type().ID == types.Unknown || r.Type().ID != types.Array {
		if l.Type().ID == types.Unknown {
			var err error
			if l, err = b.Cast(l, types.TextT, false, loc); err != nil {
				return nil, err
			}
		}
		var err error
		if r, err = b.Cast(r, types.ArrayOf(l.Type()), false, loc); err != nil {
			return nil, err
		}
	}
	et := r.Type().Elem()
	lt := l.Type()
	if lt.ID == types.Unknown {
		var err error
		if l, err = b.Cast(l, et, false, loc); err != nil {
			return nil, err
		}
		lt = et
	}
	if lt != et {
		t, ok := unify(lt, et)
		if !ok || lt.IsNumeric() != et.IsNumeric() {
			e := pgerr.New(pgerr.UndefinedFunction, "operator does not exist: %s %s %s", lt, op, et)
			e.Hint = "No operator matches the given name and argument types. You might need to add explicit type casts."
			return nil, ErrAt(e, loc)
		}
		if t.ID == types.Numeric && t.Scale >= 0 {
			t = types.NumericAnyT
		}
		var err error
		if l, err = b.Cast(l, t, false, loc); err != nil {
			return nil, err
		}
		if r, err = b.Cast(r, types.ArrayOf(t), false, loc); err != nil {
			return nil, err
		}
	}
	return &exec.AnyArray{L: l, R: r, Op: cop, All: !any}, nil
}

// bindArraySubscript binds arr[i] and arr[lo:hi] over a real array.
func (b *Binder) bindArraySubscript(e exec.Expr, idx *pg.A_Indices, sc *Scope) (exec.Expr, error) {
	bound := func(n *pg.Node) (exec.Expr, error) {
		if n == nil {
			return nil, nil
		}
		x, err := b.Bind(n, sc)
		if err != nil {
			return nil, err
		}
		if x.Type().ID != types.Unknown && !x.Type().IsInteger() {
			return nil, ErrAt(pgerr.New(pgerr.DatatypeMismatch, "array subscript must have type integer"), NodeLoc(n))
		}
		return b.Cast(x, types.Int64T, false, NodeLoc(n))
	}
	hi, err := bound(idx.Uidx)
	if err != nil {
		return nil, err
	}
	if !idx.IsSlice {
		return &exec.Subscript{Arr: e, Hi: hi}, nil
	}
	lo, err := bound(idx.Lidx)
	if err != nil {
		return nil, err
	}
	return &exec.Subscript{Arr: e, Lo: lo, Hi: hi, Slice: true}, nil
}

// realArrayFunction binds the array functions over real arrays; ok is
// false for other names or when no argument is a real array (the
// text-form versions then apply).
func (b *Binder) realArrayFunction(name string, args []exec.Expr, loc int32) (exec.Expr, bool, error) {
	switch name {
	case "array_length", "cardinality", "array_upper", "array_lower", "array_ndims", "array_dims",
		"array_to_string", "array_append", "array_prepend", "array_cat", "array_position", "array_positions",
		"array_remove", "array_replace", "trim_array":
	default:
		return nil, false, nil
	}
	has := false
	for _, a := range args {
		has = has || a.Type().ID == types.Array
	}
	if !has {
		return nil, false, nil
	}
	return b.arrayFn(name, args, loc)
}

func (b *Binder) arrayFn(name string, args []exec.Expr, loc int32) (exec.Expr, bool, error) {
	wrong := func() error {
		var ts []string
		for _, a := range args {
			ts = append(ts, a.Type().String())
		}
		return ErrAt(noFunction(name, strings.Join(ts, ", ")), loc)
	}
	castTo := func(i int, t types.T) error {
		var err error
		args[i], err = b.Cast(args[i], t, false, loc)
		return err
	}
	// arrayArg settles argument i as an array (unknown literals take the
	// type of another array argument or text[]).
	arrayArgAt := func(i int, like types.T) error {
		if args[i].Type().ID == types.Array {
			return nil
		}
		if args[i].Type().ID != types.Unknown {
			return wrong()
		}
		if like.ID != types.Array {
			like = types.ArrayOf(types.TextT)
		}
		return castTo(i, like)
	}
	// elemArg makes argument i of array argument arr's element type.
	elemArg := func(i, arr int) error {
		et := args[arr].Type().Elem()
		if args[i].Type() == et {
			return nil
		}
		it := args[i].Type()
		if it.ID != types.Unknown {
			u, ok := unify(it, et)
			if !ok || it.IsNumeric() != et.IsNumeric() && it.ID != types.Unknown {
				return wrong()
			}
			if u != et {
				if err := castTo(arr, types.ArrayOf(u)); err != nil {
					return err
				}
				et = u
			}
		}
		return castTo(i, et)
	}
	var f *CatalogFn
	intArg := func(i int) error {
		if !args[i].Type().IsInteger() && args[i].Type().ID != types.Unknown {
			return wrong()
		}
		return castTo(i, types.Int32T)
	}
	switch name {
	case "array_length", "array_upper", "array_lower":
		if len(args) != 2 {
			return nil, true, wrong()
		}
		if err := arrayArgAt(0, types.T{}); err != nil {
			return nil, true, err
		}
		if err := intArg(1); err != nil {
			return nil, true, err
		}
		elem := args[0].Type().Elem()
		f = &CatalogFn{Name: name, T: types.Int32T, Args: args, Strict: true, Fn: func(out *vec.Vector, a []*vec.Vector, i int) error {
			n, err := vec.ArrayLen(elem, a[0].S[i])
			if err != nil {
				return err
			}
			if n == 0 || a[1].I64[i] != 1 {
				out.AppendNull()
				return nil
			}
			switch name {
			case "array_lower":
				out.AppendInt(1)
			default:
				out.AppendInt(int64(n))
			}
			return nil
		}}
	case "cardinality", "array_ndims", "array_dims":
		if len(args) != 1 {
			return nil, true, wrong()
		}
		elem := args[0].Type().Elem()
		t := types.Int32T
		if name == "array_dims" {
			t = types.TextT
		}
		f = &CatalogFn{Name: name, T: t, Args: args, Strict: true, Fn: func(out *vec.Vector, a []*vec.Vector, i int) error {
			n, err := vec.ArrayLen(elem, a[0].S[i])
			if err != nil {
				return err
			}
			switch {
			case name == "cardinality":
				out.AppendInt(int64(n))
			case n == 0:
				out.AppendNull()
			case name == "array_ndims":
				out.AppendInt(1)
			default:
				out.AppendString("[1:" + strconv.Itoa(n) + "]")
			}
			return nil
		}}
	case "array_to_string":
		if len(args) < 2 || len(args) > 3 || args[0].Type().ID != types.Array {
			return nil, true, wrong()
		}
		for i := 1; i < len(args); i++ {
			if err := castTo(i, types.TextT); err != nil {
				return nil, true, err
			}
		}
		elem := args[0].Type().Elem()
		loc := b.Env.Loc
		f = &CatalogFn{Name: name, T: types.TextT, Args: args, Fn: func(out *vec.Vector, a []*vec.Vector, i int) error {
			if a[0].IsNull(i) || a[1].IsNull(i) {
				out.AppendNull()
				return nil
			}
			ev := vec.New(elem, 8)
			if err := vec.DecodeArray(ev, a[0].S[i]); err != nil {
				return err
			}
			nullStr, useNull := "", len(a) > 2 && !a[2].IsNull(i)
			if useNull {
				nullStr = a[2].S[i]
			}
			var sb []byte
			first := true
			for k := 0; k < ev.Len(); k++ {
				if ev.IsNull(k) && !useNull {
					continue
				}
				if !first {
					sb = append(sb, a[1].S[i]...)
				}
				first = false
				if ev.IsNull(k) {
					sb = append(sb, nullStr...)
				} else {
					sb = ev.AppendText(sb, k, loc)
				}
			}
			out.AppendString(string(sb))
			return nil
		}}
	case "array_append", "array_prepend":
		if len(args) != 2 {
			return nil, true, wrong()
		}
		arr, el := 0, 1
		if name == "array_prepend" {
			arr, el = 1, 0
		}
		if err := arrayArgAt(arr, types.T{}); err != nil {
			return nil, true, err
		}
		if err := elemArg(el, arr); err != nil {
			return nil, true, err
		}
		f = &CatalogFn{Name: name, T: args[arr].Type(), Args: args, Fn: func(out *vec.Vector, a []*vec.Vector, i int) error {
			var s string
			if !a[arr].IsNull(i) {
				s = a[arr].S[i]
			}
			e := string(vec.AppendElem(nil, a[el], i))
			if arr == 0 {
				out.AppendString(s + e)
			} else {
				out.AppendString(e + s)
			}
			return nil
		}}
	case "array_cat":
		if len(args) != 2 {
			return nil, true, wrong()
		}
		if err := arrayArgAt(0, args[1].Type()); err != nil {
			return nil, true, err
		}
		if err := arrayArgAt(1, args[0].Type()); err != nil {
			return nil, true, err
		}
		l, r, ok, err := b.unifyArrays(args[0], args[1], loc)
		if err != nil {
			return nil, true, err
		}
		if !ok {
			return nil, true, wrong()
		}
		args = []exec.Expr{l, r}
		f = &CatalogFn{Name: name, T: l.Type(), Args: args, Fn: func(out *vec.Vector, a []*vec.Vector, i int) error {
			switch {
			case a[0].IsNull(i) && a[1].IsNull(i):
				out.AppendNull()
			case a[0].IsNull(i):
				out.AppendString(a[1].S[i])
			case a[1].IsNull(i):
				out.AppendString(a[0].S[i])
			default:
				out.AppendString(a[0].S[i] + a[1].S[i])
			}
			return nil
		}}
	case "array_position", "array_positions", "array_remove", "array_replace":
		want := 2
		if name == "array_replace" {
			want = 3
		}
		if len(args) != want && !(name == "array_position" && len(args) == 3) {
			return nil, true, wrong()
		}
		if err := arrayArgAt(0, types.T{}); err != nil {
			return nil, true, err
		}
		if err := elemArg(1, 0); err != nil {
			return nil, true, err
		}
		if name == "array_replace" {
			if err := elemArg(2, 0); err != nil {
				return nil, true, err
			}
			if err := castTo(1, args[0].Type().Elem()); err != nil {
				return nil, true, err
			}
		} else if len(args) == 3 {
			if err := intArg(2); err != nil {
				return nil, true, err
			}
		}
		elem := args[0].Type().Elem()
		t := args[0].Type()
		switch name {
		case "array_position":
			t = types.Int32T
		case "array_positions":
			t = types.ArrayOf(types.Int32T)
		}
		f = &CatalogFn{Name: name, T: t, Args: args, Fn: func(out *vec.Vector, a []*vec.Vector, i int) error {
			if a[0].IsNull(i) || (len(a) == 3 && name == "array_position" && a[2].IsNull(i)) {
				out.AppendNull()
				return nil
			}
			es, err := elemList(elem, a[0].S[i])
			if err != nil {
				return err
			}
			target := string(vec.AppendElem(nil, a[1], i))
			var buf []byte
			switch name {
			case "array_position":
				start := 1
				if len(a) == 3 {
					start = int(a[2].I64[i])
				}
				for k := max(start, 1) - 1; k < len(es); k++ {
					if es[k] == target {
						out.AppendInt(int64(k + 1))
						return nil
					}
				}
				out.AppendNull()
				return nil
			case "array_positions":
				for k, e := range es {
					if e == target {
						buf = binaryAppendInt(buf, int64(k+1))
					}
				}
			case "array_remove":
				for _, e := range es {
					if e != target {
						buf = append(buf, e...)
					}
				}
			case "array_replace":
				repl := vec.AppendElem(nil, a[2], i)
				for _, e := range es {
					if e == target {
						buf = append(buf, repl...)
					} else {
						buf = append(buf, e...)
					}
				}
			}
			out.AppendString(string(buf))
			return nil
		}}
	case "trim_array":
		if len(args) != 2 || args[0].Type().ID != types.Array {
			return nil, true, wrong()
		}
		if err := intArg(1); err != nil {
			return nil, true, err
		}
		elem := args[0].Type().Elem()
		f = &CatalogFn{Name: name, T: args[0].Type(), Args: args, Strict: true, Fn: func(out *vec.Vector, a []*vec.Vector, i int) error {
			ends, err := vec.ArrayBounds(nil, elem, a[0].S[i])
			if err != nil {
				return err
			}
			n := a[1].I64[i]
			if n < 0 || n > int64(len(ends)) {
				return pgerr.New("2202E", "number of elements to trim must be between 0 and %d", len(ends))
			}
			keep := len(ends) - int(n)
			if keep == 0 {
				out.AppendString("")
			} else {
				out.AppendString(a[0].S[i][:ends[keep-1]])
			}
			return nil
		}}
	default:
		return nil, false, nil
	}
	e, err := b.Fold(f, loc)
	return e, true, err
}

// binaryAppendInt appends an int element as vec encodes it.
func binaryAppendInt(dst []byte, x int64) []byte {
	one := vec.New(types.Int32T, 1)
	one.AppendInt(x)
	return vec.AppendElem(dst, one, 0)
}

// textArrayValue encodes text elements (nil: NULL) as a text[] value.
func textArrayValue(elems []*string) string {
	v := vec.New(types.TextT, len(elems))
	for _, e := range elems {
		if e == nil {
			v.AppendNull()
		} else {
			v.AppendString(*e)
		}
	}
	return vec.EncodeArray(v, 0, v.Len())
}

// ArrayOfRows encodes column 0 of rows as an array of type t.
func ArrayOfRows(rows *vec.Batch, t types.T) string {
	var buf bytes.Buffer
	for i := 0; i < rows.N; i++ {
		buf.Write(vec.AppendElem(nil, rows.Vecs[0], i))
	}
	return buf.String()
}
