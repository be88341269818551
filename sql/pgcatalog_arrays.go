package sql

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/sql/pgcatalog"
	"github.com/lakepg/lakepg/types"
)

// lakepg has no array type yet. The catalog's array columns (oid[],
// text[], int2vector, ...) hold PostgreSQL's text form of the array, and
// the catalog queries of drivers and psql take them apart with a few
// array operations; this file gives those operations over the text form:
//
//	x::int2[], x::text[], ...     the text form, kept as text
//	arr[i]                        one element (NULL outside the bounds)
//	array_upper, array_lower, array_length, cardinality, array_ndims
//
// The text form is "{a,b,NULL}" for arrays (subscripts from 1) or the
// blank-separated "1 2 3" of int2vector and oidvector (subscripts from 0,
// as PostgreSQL numbers them). Hooks: arrayCast from TypeCast binding,
// bindIndirection from bind for A_Indirection, and the functions from
// systemFunction.

// textArray is a parsed text-form array: its elements (nil = NULL) and
// the subscript of the first.
type textArray struct {
	elems []*string
	lower int
}

func parseTextArray(s string) (textArray, bool) {
	t := strings.TrimSpace(s)
	if strings.HasPrefix(t, "{") {
		elems, ok := pgcatalog.ArrayElements(t)
		return textArray{elems: elems, lower: 1}, ok
	}
	var elems []*string
	for _, f := range strings.Fields(t) {
		f := f
		elems = append(elems, &f)
	}
	return textArray{elems: elems, lower: 0}, true
}

// arrayCast binds a cast to an array type (tn has array bounds): text and
// unknown values are taken as the text form of the array. ok is false when
// tn is no array type.
func (b *binder) arrayCast(e exec.Expr, tn *pg.TypeName, loc int32) (exec.Expr, bool, error) {
	if len(tn.ArrayBounds) == 0 {
		return nil, false, nil
	}
	switch e.Type().ID {
	case types.Text, types.Unknown:
	default:
		return nil, true, errAt(pgerr.New(pgerr.FeatureNotSupported, "array types are not supported yet"), loc)
	}
	out, err := b.cast(e, types.TextT, false, loc)
	return out, true, err
}

// bindIndirection binds arr[i] over a text-form array: one subscript per
// element access, no slices, no field selection.
func (b *binder) bindIndirection(ind *pg.A_Indirection, sc *scope) (exec.Expr, error) {
	e, err := b.bind(ind.Arg, sc)
	if err != nil {
		return nil, err
	}
	for _, n := range ind.Indirection {
		idx := n.GetAIndices()
		if idx == nil || idx.IsSlice || idx.Uidx == nil {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "only array subscripts arr[i] are supported")
		}
		if e.Type().ID != types.Text && e.Type().ID != types.Unknown {
			return nil, pgerr.New(pgerr.DatatypeMismatch, "cannot subscript type %s because it does not support subscripting", e.Type())
		}
		if e, err = b.cast(e, types.TextT, false, -1); err != nil {
			return nil, err
		}
		i, err := b.bind(idx.Uidx, sc)
		if err != nil {
			return nil, err
		}
		if i, err = b.cast(i, types.Int64T, false, -1); err != nil {
			return nil, err
		}
		// The element is of unknown type, as a quoted literal is: the
		// text form has lost the element type, and comparing with a typed
		// value (attnum = conkey[i]) then reads it as that type.
		e, err = b.fold(&catalogFn{name: "subscript", t: types.UnknownT, args: []exec.Expr{e, i}, strict: true,
			fn: func(out *vec.Vector, a []*vec.Vector, r int) error {
				arr, ok := parseTextArray(a[0].S[r])
				if !ok {
					return malformedArray(a[0].S[r])
				}
				k := a[1].I64[r] - int64(arr.lower)
				if k < 0 || k >= int64(len(arr.elems)) || arr.elems[k] == nil {
					out.AppendNull()
					return nil
				}
				out.AppendString(*arr.elems[k])
				return nil
			}}, -1)
		if err != nil {
			return nil, err
		}
	}
	return e, nil
}

func malformedArray(s string) error {
	return pgerr.New(pgerr.InvalidTextRepr, "malformed array literal: \"%s\"", s)
}

// arrayFunction binds array_upper, array_lower, array_length, cardinality
// and array_ndims over a text-form array; ok is false for other names or
// when the first argument is not text.
func (b *binder) arrayFunction(name string, args []exec.Expr, loc int32) (exec.Expr, bool, error) {
	switch name {
	case "array_upper", "array_lower", "array_length", "cardinality", "array_ndims":
	default:
		return nil, false, nil
	}
	if len(args) == 0 || (args[0].Type().ID != types.Text && args[0].Type().ID != types.Unknown) {
		return nil, false, nil
	}
	want := 2
	if name == "cardinality" || name == "array_ndims" {
		want = 1
	}
	if len(args) != want {
		e := pgerr.New(pgerr.UndefinedFunction, "function %s does not exist", name)
		e.Hint = "No function matches the given name and argument types. You might need to add explicit type casts."
		return nil, true, errAt(e, loc)
	}
	var err error
	if args[0], err = b.cast(args[0], types.TextT, false, loc); err != nil {
		return nil, true, err
	}
	if want == 2 {
		if args[1], err = b.cast(args[1], types.Int32T, false, loc); err != nil {
			return nil, true, err
		}
	}
	out, err := b.fold(&catalogFn{name: name, t: types.Int32T, args: args, strict: true,
		fn: func(out *vec.Vector, a []*vec.Vector, r int) error {
			arr, ok := parseTextArray(a[0].S[r])
			if !ok {
				return malformedArray(a[0].S[r])
			}
			n := len(arr.elems)
			// one-dimensional: dimension 1 exists when there are elements
			if n == 0 || (want == 2 && a[1].I64[r] != 1) {
				if name == "cardinality" {
					out.AppendInt(0)
				} else {
					out.AppendNull()
				}
				return nil
			}
			switch name {
			case "array_upper":
				out.AppendInt(int64(arr.lower + n - 1))
			case "array_lower":
				out.AppendInt(int64(arr.lower))
			case "array_ndims":
				out.AppendInt(1)
			default:
				out.AppendInt(int64(n))
			}
			return nil
		}}, loc)
	return out, true, err
}
