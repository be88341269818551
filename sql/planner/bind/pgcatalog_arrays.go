package bind

import (
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/sql/pgcatalog"
	"github.com/lakepg/lakepg/types"
)

// Arrays are real (types.Array, array.go), but some catalog columns
// (oid[], aclitem[], int2vector, oidvector, ...) still hold PostgreSQL's
// text form of the array, and the catalog queries of drivers and psql
// take them apart with a few array operations; this file gives those
// operations over the text form (a text-typed operand), after checking
// for a real array:
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
func (b *Binder) arrayCast(e exec.Expr, tn *pg.TypeName, loc int32) (exec.Expr, bool, error) {
	if len(tn.ArrayBounds) == 0 {
		return nil, false, nil
	}
	names := StrNodes(tn.Names)
	if e.Type().ID != types.Text && !(e.Type().ID == types.Unknown && regTypes[names[len(names)-1]]) {
		// a real array: literals, parameters, other arrays
		t, err := ResolveTypeName(tn)
		if err != nil {
			return nil, true, err
		}
		if e.Type().ID != types.Array && e.Type().ID != types.Unknown {
			if _, ok := e.(*paramExpr); !ok {
				return nil, true, ErrAt(pgerr.New(pgerr.CannotCoerce, "cannot cast type %s to %s", e.Type(), t), loc)
			}
		}
		out, err := b.Cast(e, t, false, loc)
		return out, true, err
	}
	out, err := b.Cast(e, types.TextT, false, loc)
	if err != nil {
		return nil, true, err
	}
	if typ := names[len(names)-1]; regTypes[typ] {
		// oid[]::regtype[] and the like: each element named
		name, err := b.regNamer(typ)
		if err != nil {
			return nil, true, err
		}
		out, err = b.Fold(&CatalogFn{Name: typ + "[]", T: types.TextT, Args: []exec.Expr{out}, Strict: true,
			Fn: func(o *vec.Vector, a []*vec.Vector, i int) error {
				arr, ok := parseTextArray(a[0].S[i])
				if !ok {
					return malformedArray(a[0].S[i])
				}
				for k, el := range arr.elems {
					if el == nil {
						continue
					}
					oid, err := strconv.ParseInt(*el, 10, 64)
					if err != nil {
						continue // already a name
					}
					n := name(oid)
					arr.elems[k] = &n
				}
				o.AppendString(formatArray(arr.elems))
				return nil
			}}, loc)
	}
	return out, true, err
}

// bindIndirection binds arr[i] over a text-form array (one subscript per
// element access, no slices) and (record).field (srf.go).
func (b *Binder) bindIndirection(ind *pg.A_Indirection, sc *Scope) (exec.Expr, error) {
	e, err := b.Bind(ind.Arg, sc)
	if err != nil {
		return nil, err
	}
	for _, n := range ind.Indirection {
		if f := n.GetString_(); f != nil {
			// (record).field
			if e, err = b.fieldSelect(e, f.Sval); err != nil {
				return nil, err
			}
			continue
		}
		idx := n.GetAIndices()
		if idx != nil && e.Type().ID == types.Array {
			if e, err = b.bindArraySubscript(e, idx, sc); err != nil {
				return nil, err
			}
			continue
		}
		if idx == nil || idx.IsSlice || idx.Uidx == nil {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "only array subscripts arr[i] are supported")
		}
		if e.Type().ID != types.Text && e.Type().ID != types.Unknown {
			return nil, pgerr.New(pgerr.DatatypeMismatch, "cannot subscript type %s because it does not support subscripting", e.Type())
		}
		if e, err = b.Cast(e, types.TextT, false, -1); err != nil {
			return nil, err
		}
		i, err := b.Bind(idx.Uidx, sc)
		if err != nil {
			return nil, err
		}
		if i, err = b.Cast(i, types.Int64T, false, -1); err != nil {
			return nil, err
		}
		// The element is of unknown type, as a quoted literal is: the
		// text form has lost the element type, and comparing with a typed
		// value (attnum = conkey[i]) then reads it as that type.
		e, err = b.Fold(&CatalogFn{Name: "subscript", T: types.UnknownT, Args: []exec.Expr{e, i}, Strict: true,
			Fn: func(out *vec.Vector, a []*vec.Vector, r int) error {
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
func (b *Binder) arrayFunction(name string, args []exec.Expr, loc int32) (exec.Expr, bool, error) {
	if e, ok, err := b.realArrayFunction(name, args, loc); ok || err != nil {
		return e, ok, err
	}
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
		return nil, true, ErrAt(e, loc)
	}
	var err error
	if args[0], err = b.Cast(args[0], types.TextT, false, loc); err != nil {
		return nil, true, err
	}
	if want == 2 {
		if args[1], err = b.Cast(args[1], types.Int32T, false, loc); err != nil {
			return nil, true, err
		}
	}
	out, err := b.Fold(&CatalogFn{Name: name, T: types.Int32T, Args: args, Strict: true,
		Fn: func(out *vec.Vector, a []*vec.Vector, r int) error {
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

// arrayBuilder binds the functions that make a text[] or take a pattern
// apart for drivers and tools: string_to_array (Grafana), parse_ident
// (Grafana) and like_escape (LIKE … ESCAPE, as SQLAlchemy writes it); ok
// is false for other names.
func (b *Binder) arrayBuilder(name string, args []exec.Expr, loc int32) (exec.Expr, bool, error) {
	var want []types.T
	switch name {
	case "string_to_array":
		want = []types.T{types.TextT, types.TextT, types.TextT}
	case "parse_ident":
		want = []types.T{types.TextT, types.BoolT}
	case "like_escape":
		want = []types.T{types.TextT, types.TextT}
	default:
		return nil, false, nil
	}
	lo := 2
	if name == "parse_ident" {
		lo = 1
	}
	if len(args) < lo || len(args) > len(want) {
		var ts []string
		for _, a := range args {
			ts = append(ts, a.Type().String())
		}
		return nil, true, ErrAt(noFunction(name, strings.Join(ts, ", ")), loc)
	}
	for i := range args {
		var err error
		if args[i], err = b.Cast(args[i], want[i], false, loc); err != nil {
			return nil, true, err
		}
	}
	var f *CatalogFn
	switch name {
	case "string_to_array":
		// not strict: a NULL delimiter splits into characters
		f = &CatalogFn{Name: name, T: types.ArrayOf(types.TextT), Args: args, Fn: func(out *vec.Vector, a []*vec.Vector, i int) error {
			if a[0].IsNull(i) {
				out.AppendNull()
				return nil
			}
			out.AppendString(textArrayValue(stringToArray(a[0].S[i], a[1], a, i)))
			return nil
		}}
	case "parse_ident":
		f = &CatalogFn{Name: name, T: types.ArrayOf(types.TextT), Args: args, Strict: true, Fn: func(out *vec.Vector, a []*vec.Vector, i int) error {
			strict := len(a) < 2 || a[1].B[i]
			parts, err := parseIdent(a[0].S[i], strict)
			if err != nil {
				return err
			}
			out.AppendString(textArrayValue(parts))
			return nil
		}}
	case "like_escape":
		f = &CatalogFn{Name: name, T: types.TextT, Args: args, Strict: true, Fn: func(out *vec.Vector, a []*vec.Vector, i int) error {
			s, err := likeEscape(a[0].S[i], a[1].S[i])
			if err != nil {
				return err
			}
			out.AppendString(s)
			return nil
		}}
	}
	e, err := b.Fold(f, loc)
	return e, true, err
}

// stringToArray splits s at the delimiter (NULL: into characters, empty:
// s whole); elements equal to the optional null string are NULL.
func stringToArray(s string, delim *vec.Vector, a []*vec.Vector, i int) []*string {
	var parts []string
	switch {
	case s == "":
		return nil
	case delim.IsNull(i):
		for _, r := range s {
			parts = append(parts, string(r))
		}
	case delim.S[i] == "":
		parts = []string{s}
	default:
		parts = strings.Split(s, delim.S[i])
	}
	nullStr, hasNull := "", len(a) > 2 && !a[2].IsNull(i)
	if hasNull {
		nullStr = a[2].S[i]
	}
	out := make([]*string, len(parts))
	for k := range parts {
		if !hasNull || parts[k] != nullStr {
			out[k] = &parts[k]
		}
	}
	return out
}

// parseIdent splits a qualified SQL identifier as PostgreSQL's parse_ident
// does: quoted parts kept as written ("" is a quote), others downcased.
func parseIdent(s string, strict bool) ([]*string, error) {
	bad := func(detail string) error {
		e := pgerr.New(pgerr.InvalidParameterValue, "string is not a valid identifier: \"%s\"", s)
		e.Detail = detail
		return e
	}
	var out []*string
	i := 0
	space := func() {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
			i++
		}
	}
	space()
	for {
		var part string
		switch {
		case i < len(s) && s[i] == '"':
			var bld strings.Builder
			i++
			for {
				j := strings.IndexByte(s[i:], '"')
				if j < 0 {
					return nil, bad("String has unclosed double quotes.")
				}
				bld.WriteString(s[i : i+j])
				i += j + 1
				if i < len(s) && s[i] == '"' {
					bld.WriteByte('"')
					i++
					continue
				}
				break
			}
			part = bld.String()
			if part == "" {
				return nil, bad("Quoted identifier must not be empty.")
			}
		default:
			j := i
			for j < len(s) && (s[j] == '_' || s[j] == '$' || s[j] >= 0x80 || s[j] >= 'a' && s[j] <= 'z' ||
				s[j] >= 'A' && s[j] <= 'Z' || j > i && s[j] >= '0' && s[j] <= '9') {
				j++
			}
			if j == i {
				if len(out) == 0 {
					return nil, bad("No valid identifier before \".\".")
				}
				return nil, bad("No valid identifier after \".\".")
			}
			part = strings.ToLower(s[i:j])
			i = j
		}
		out = append(out, &part)
		space()
		if i < len(s) && s[i] == '.' {
			i++
			space()
			continue
		}
		if i < len(s) && strict {
			return nil, bad("")
		}
		return out, nil
	}
}

// likeEscape rewrites a LIKE pattern with escape character esc into one
// with the default escape, backslash ("" turns escaping off).
func likeEscape(pat, esc string) (string, error) {
	if len([]rune(esc)) > 1 {
		return "", pgerr.New("22025", "invalid escape string")
	}
	var b strings.Builder
	rs := []rune(pat)
	var e rune = -1
	if esc != "" {
		e = []rune(esc)[0]
	}
	for k := 0; k < len(rs); k++ {
		r := rs[k]
		switch {
		case r == e:
			if k+1 >= len(rs) {
				return "", pgerr.New("22025", "LIKE pattern must not end with escape character")
			}
			k++
			b.WriteByte('\\')
			b.WriteRune(rs[k])
		case r == '\\':
			b.WriteString(`\\`)
		default:
			b.WriteRune(r)
		}
	}
	return b.String(), nil
}
