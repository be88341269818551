package bind

import (
	"context"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/fn"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/sql/pgcatalog"
	"github.com/lakepg/lakepg/types"
)

// Set-returning functions whose arguments change from row to row: unnest,
// generate_subscripts, information_schema._pg_expandarray, generate_series
// over columns, and any scalar function standing in FROM. They run as a
// lateralCall over the rows that supply their arguments. PostgreSQL's
// catalog queries use them three ways, all planned by the planner (sql/planner/srf_plan.go):
//   - in FROM after other items (an implicit LATERAL call over them);
//   - in FROM of a correlated subquery, reading the outer query's row;
//   - in a SELECT list (several calls run in lockstep, as PostgreSQL 10
//     and later run them, the shorter ones padded with NULLs).
// Array arguments are text-form arrays (see pgcatalog_arrays.go); a
// catalog column or a cast to a typed array tells the element type.

// srfIter appends up to max rows of one call for one input row to outs
// (one vector per output column). It returns how many rows it appended
// and whether the call has no more rows; n == 0 implies done.
type srfIter func(outs []*vec.Vector, max int) (n int, done bool, err error)

// Srf is one bound set-returning function call.
type Srf struct {
	name string
	args []exec.Expr
	Cols []Column // the rows' columns: one, or a record's fields
	// Record: the call's value is a record of cols (field selection picks
	// one), as for _pg_expandarray
	Record bool
	// strict: a NULL argument gives no rows
	strict bool
	start  func(args []*vec.Vector, row int) (srfIter, error)
}

// IsSRF reports the set-returning functions bindSRF knows.
func IsSRF(name string) bool {
	switch strings.TrimPrefix(name, "information_schema.") {
	case "unnest", "generate_subscripts", "_pg_expandarray", "generate_series", "regexp_split_to_table", "aclexplode":
		return true
	}
	return false
}

// arrayArg binds an array argument: a text-form array and its element
// type (ID Unknown when the text form does not tell: the elements are
// then untyped, as subscripts are).
func (b *Binder) arrayArg(n *pg.Node, sc *Scope, fname string, loc int32) (exec.Expr, types.T, error) {
	e, err := b.Bind(n, sc)
	if err != nil {
		return nil, types.T{}, err
	}
	elem := types.UnknownT
	if cr := n.GetColumnRef(); cr != nil {
		if i, err := b.FindColumn(sc, StrNodes(cr.Fields), cr.Location); err == nil {
			elem = sc.Cols[i].Elem
		}
	}
	if tc := n.GetTypeCast(); tc != nil && len(tc.TypeName.ArrayBounds) > 0 {
		tn := &pg.TypeName{Names: tc.TypeName.Names, Typmods: tc.TypeName.Typmods, Location: tc.TypeName.Location}
		if t, err := ResolveTypeName(tn); err == nil {
			elem = t
		}
	}
	if e.Type().ID == types.Array {
		return e, e.Type().Elem(), nil
	}
	if id := e.Type().ID; id != types.Text && id != types.Unknown {
		return nil, elem, ErrAt(noFunction(fname, e.Type().String()), loc)
	}
	if e.Type().ID == types.Unknown && elem.ID != types.Unknown {
		// '{1,2}'::int[] and the like parse as real arrays
		e, err = b.Cast(e, types.ArrayOf(elem), false, loc)
		return e, elem, err
	}
	e, err = b.Cast(e, types.TextT, false, loc)
	return e, elem, err
}

func noFunction(name, args string) *pgerr.Error {
	e := pgerr.New(pgerr.UndefinedFunction, "function %s(%s) does not exist", name, args)
	e.Hint = "No function matches the given name and argument types. You might need to add explicit type casts."
	return e
}

// appendElem appends one text-form element as a value of out's type.
func appendElem(out *vec.Vector, s *string) error {
	if s == nil {
		out.AppendNull()
		return nil
	}
	if out.Type.ID == types.Text || out.Type.ID == types.Unknown {
		out.AppendString(*s)
		return nil
	}
	return exec.ParseInto(out, *s, nil, false)
}

// BindSRF binds the set-returning function call fc over scope sc; ok is
// false when fc is none of them.
func (b *Binder) BindSRF(fc *pg.FuncCall, sc *Scope) (*Srf, bool, error) {
	name := strings.TrimPrefix(FuncName(fc), "information_schema.")
	if !IsSRF(name) || fc.AggStar || fc.Over != nil {
		return nil, false, nil
	}
	nargs := func(lo, hi int) error {
		if len(fc.Args) < lo || len(fc.Args) > hi {
			return ErrAt(pgerr.New(pgerr.UndefinedFunction, "function %s with %d arguments does not exist", name, len(fc.Args)), fc.Location)
		}
		return nil
	}
	loc := fc.Location
	switch name {
	case "unnest", "_pg_expandarray":
		if err := nargs(1, 1); err != nil {
			return nil, true, err
		}
		arr, elem, err := b.arrayArg(fc.Args[0], sc, name, loc)
		if err != nil {
			return nil, true, err
		}
		f := &Srf{name: name, args: []exec.Expr{arr}, strict: true, Cols: []Column{{Name: name, Type: elem}}}
		if name == "_pg_expandarray" {
			f.Record = true
			f.Cols = []Column{{Name: "x", Type: elem}, {Name: "n", Type: types.Int32T}}
		}
		f.start = func(a []*vec.Vector, row int) (srfIter, error) {
			if a[0].Type.ID == types.Array {
				return realArrayIter(a[0], row)
			}
			ta, ok := parseTextArray(a[0].S[row])
			if !ok {
				return nil, malformedArray(a[0].S[row])
			}
			k := 0
			return func(outs []*vec.Vector, max int) (int, bool, error) {
				n := 0
				for ; n < max && k < len(ta.elems); n, k = n+1, k+1 {
					if err := appendElem(outs[0], ta.elems[k]); err != nil {
						return n, true, err
					}
					if len(outs) > 1 {
						outs[1].AppendInt(int64(k + 1))
					}
				}
				return n, k >= len(ta.elems), nil
			}, nil
		}
		return f, true, nil
	case "generate_subscripts":
		if err := nargs(2, 3); err != nil {
			return nil, true, err
		}
		arr, _, err := b.arrayArg(fc.Args[0], sc, name, loc)
		if err != nil {
			return nil, true, err
		}
		args := []exec.Expr{arr}
		for i, want := range []types.T{types.Int32T, types.BoolT}[:len(fc.Args)-1] {
			e, err := b.Bind(fc.Args[i+1], sc)
			if err != nil {
				return nil, true, err
			}
			if e, err = b.Cast(e, want, false, loc); err != nil {
				return nil, true, err
			}
			args = append(args, e)
		}
		f := &Srf{name: name, args: args, strict: true, Cols: []Column{{Name: name, Type: types.Int32T}}}
		f.start = func(a []*vec.Vector, row int) (srfIter, error) {
			var ta textArray
			n := 0
			if a[0].Type.ID == types.Array {
				var err error
				if n, err = vec.ArrayLen(a[0].Type.Elem(), a[0].S[row]); err != nil {
					return nil, err
				}
				ta.lower = 1
			} else {
				var ok bool
				if ta, ok = parseTextArray(a[0].S[row]); !ok {
					return nil, malformedArray(a[0].S[row])
				}
				n = len(ta.elems)
			}
			if a[1].I64[row] != 1 {
				n = 0 // one-dimensional arrays only
			}
			reverse := len(a) > 2 && a[2].B[row]
			k := 0
			return func(outs []*vec.Vector, max int) (int, bool, error) {
				c := 0
				for ; c < max && k < n; c, k = c+1, k+1 {
					sub := ta.lower + k
					if reverse {
						sub = ta.lower + n - 1 - k
					}
					outs[0].AppendInt(int64(sub))
				}
				return c, k >= n, nil
			}, nil
		}
		return f, true, nil
	case "aclexplode":
		f, err := b.aclexplode(fc, sc)
		return f, true, err
	case "regexp_split_to_table":
		if err := nargs(2, 3); err != nil {
			return nil, true, err
		}
		var args []exec.Expr
		for _, a := range fc.Args {
			e, err := b.Bind(a, sc)
			if err != nil {
				return nil, true, err
			}
			if e, err = b.Cast(e, types.TextT, false, loc); err != nil {
				return nil, true, err
			}
			args = append(args, e)
		}
		f := &Srf{name: name, args: args, strict: true, Cols: []Column{{Name: name, Type: types.TextT}}}
		f.start = func(a []*vec.Vector, row int) (srfIter, error) {
			flags := ""
			if len(a) > 2 {
				flags = a[2].S[row]
			}
			parts, err := fn.RegexpSplit(a[0].S[row], a[1].S[row], flags)
			if err != nil {
				return nil, err
			}
			return func(outs []*vec.Vector, max int) (int, bool, error) {
				n := 0
				for ; n < max && len(parts) > 0; n++ {
					outs[0].AppendString(parts[0])
					parts = parts[1:]
				}
				return n, len(parts) == 0, nil
			}, nil
		}
		return f, true, nil
	case "generate_series":
		if err := nargs(2, 3); err != nil {
			return nil, true, err
		}
		var args []exec.Expr
		for _, a := range fc.Args {
			e, err := b.Bind(a, sc)
			if err != nil {
				return nil, true, err
			}
			args = append(args, e)
		}
		if f, ok, err := b.timeSeriesSRF(name, args, loc); ok || err != nil {
			return f, true, err
		}
		t, err := CommonType(args, "generate_series", loc)
		if err != nil {
			return nil, true, err
		}
		switch t.ID {
		case types.Int16, types.Int32:
			t = types.Int32T
		case types.Int64:
		default:
			return nil, true, ErrAt(pgerr.New(pgerr.FeatureNotSupported, "generate_series(%s) with arguments from other FROM items is supported over integers only", t), loc)
		}
		for i := range args {
			if args[i], err = b.Cast(args[i], t, false, loc); err != nil {
				return nil, true, err
			}
		}
		f := &Srf{name: name, args: args, strict: true, Cols: []Column{{Name: name, Type: t}}}
		f.start = func(a []*vec.Vector, row int) (srfIter, error) {
			cur, stop, step := a[0].I64[row], a[1].I64[row], int64(1)
			if len(a) > 2 {
				step = a[2].I64[row]
			}
			if step == 0 {
				return nil, pgerr.New(pgerr.InvalidParameterValue, "step size cannot equal zero")
			}
			done := false
			return func(outs []*vec.Vector, max int) (int, bool, error) {
				n := 0
				for ; n < max && !done; n++ {
					if (step > 0 && cur > stop) || (step < 0 && cur < stop) {
						break
					}
					outs[0].AppendInt(cur)
					next := cur + step
					if (next > cur) != (step > 0) { // overflow ends the series
						done = true
					}
					cur = next
				}
				return n, done || (step > 0 && cur > stop) || (step < 0 && cur < stop), nil
			}, nil
		}
		return f, true, nil
	}
	return nil, false, nil
}

// ScalarSRF runs a scalar function standing in FROM (string_to_array(…) s):
// one row, its value.
func ScalarSRF(name string, e exec.Expr) *Srf {
	return &Srf{name: name, args: []exec.Expr{e}, Cols: []Column{{Name: name, Type: e.Type()}},
		start: func(a []*vec.Vector, row int) (srfIter, error) {
			return func(outs []*vec.Vector, max int) (int, bool, error) {
				outs[0].AppendFrom(a[0], row)
				return 1, true, nil
			}, nil
		}}
}

// LateralCall emits, for each input row, the row joined with every row of
// its calls (in lockstep); an input row whose calls return no rows is
// dropped, as PostgreSQL does.
type LateralCall struct {
	Env   *exec.Env
	Input exec.Operator
	Calls []*Srf

	in    *vec.Batch
	row   int
	argv  [][]*vec.Vector
	iters []srfIter
	done  []bool
	eof   bool
}

func (l *LateralCall) Types() []types.T {
	ts := append([]types.T{}, l.Input.Types()...)
	for _, c := range l.Calls {
		for _, col := range c.Cols {
			ts = append(ts, col.Type)
		}
	}
	return ts
}

func (l *LateralCall) Close() error { return l.Input.Close() }

func (l *LateralCall) Next(ctx context.Context) (*vec.Batch, error) {
	if l.eof {
		return nil, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, pgerr.New(pgerr.QueryCanceled, "canceling statement due to user request")
	}
	out := vec.NewBatch(l.Types(), vec.BatchSize)
	nIn := len(l.Input.Types())
	counts := make([]int, len(l.Calls))
	for out.N < vec.BatchSize {
		if l.in == nil || l.row >= l.in.N {
			b, err := l.Input.Next(ctx)
			if err != nil {
				return nil, err
			}
			if b == nil {
				l.eof = true
				break
			}
			l.in, l.row, l.iters = b, 0, nil
			l.argv = l.argv[:0]
			for _, c := range l.Calls {
				var vs []*vec.Vector
				for _, a := range c.args {
					v, err := a.Eval(l.Env, b)
					if err != nil {
						return nil, err
					}
					vs = append(vs, v)
				}
				l.argv = append(l.argv, vs)
			}
			continue
		}
		if l.iters == nil {
			l.iters = make([]srfIter, len(l.Calls))
			l.done = make([]bool, len(l.Calls))
			for c, call := range l.Calls {
				null := false
				for _, v := range l.argv[c] {
					null = null || v.IsNull(l.row)
				}
				if null && call.strict {
					l.done[c] = true
					continue
				}
				it, err := call.start(l.argv[c], l.row)
				if err != nil {
					return nil, err
				}
				l.iters[c] = it
			}
		}
		room := vec.BatchSize - out.N
		k, col := 0, nIn
		for c, call := range l.Calls {
			counts[c] = 0
			if !l.done[c] {
				n, done, err := l.iters[c](out.Vecs[col:col+len(call.Cols)], room)
				if err != nil {
					return nil, err
				}
				counts[c], l.done[c] = n, done || n == 0
			}
			k = max(k, counts[c])
			col += len(call.Cols)
		}
		col = nIn
		for c, call := range l.Calls {
			for j := range call.Cols {
				for p := counts[c]; p < k; p++ {
					out.Vecs[col+j].AppendNull()
				}
			}
			col += len(call.Cols)
		}
		for j := 0; j < nIn; j++ {
			for p := 0; p < k; p++ {
				out.Vecs[j].AppendFrom(l.in.Vecs[j], l.row)
			}
		}
		out.N += k
		all := true
		for _, d := range l.done {
			all = all && d
		}
		if all {
			l.row++
			l.iters = nil
		}
	}
	if out.N == 0 {
		return nil, nil
	}
	return out, nil
}

// RecordExpr is a record built from columns (a set-returning function's
// result used whole): its value is PostgreSQL's text form "(a,b)", and a
// field selection takes the column itself.
type RecordExpr struct {
	Fields []Column
	Args   []exec.Expr
}

func (r *RecordExpr) Type() types.T { return types.TextT }

func (r *RecordExpr) Eval(env *exec.Env, b *vec.Batch) (*vec.Vector, error) {
	vs := make([]*vec.Vector, len(r.Args))
	for i, a := range r.Args {
		v, err := a.Eval(env, b)
		if err != nil {
			return nil, err
		}
		vs[i] = v
	}
	out := vec.New(types.TextT, b.N)
	var buf []byte
	for i := 0; i < b.N; i++ {
		buf = append(buf[:0], '(')
		for k, v := range vs {
			if k > 0 {
				buf = append(buf, ',')
			}
			if v.IsNull(i) {
				continue
			}
			s := string(v.AppendText(nil, i, env.Loc))
			if s == "" || strings.ContainsAny(s, "\"\\(), \t\n") {
				s = `"` + strings.NewReplacer(`\`, `\\`, `"`, `""`).Replace(s) + `"`
			}
			buf = append(buf, s...)
		}
		buf = append(buf, ')')
		out.AppendString(string(buf))
	}
	return out, nil
}

func (r *RecordExpr) MapColumns(m func(int) int) exec.Expr {
	g := &RecordExpr{Fields: r.Fields, Args: make([]exec.Expr, len(r.Args))}
	for i, a := range r.Args {
		g.Args[i] = exec.MapColumns(a, m)
	}
	return g
}

// recordRef is a column holding records (a subquery's record output):
// text, with its fields known for field selection.
type recordRef struct {
	exec.Expr
	fields []Column
}

func (r *recordRef) MapColumns(m func(int) int) exec.Expr {
	return &recordRef{Expr: exec.MapColumns(r.Expr, m), fields: r.fields}
}

// RecordFields is the fields of a record-valued expression (nil: none).
func RecordFields(e exec.Expr) []Column {
	switch x := e.(type) {
	case *RecordExpr:
		return x.Fields
	case *recordRef:
		return x.fields
	}
	return nil
}

// bindColRef is the expression of scope column i: a record column keeps
// its fields.
func bindColRef(sc *Scope, i int) exec.Expr {
	c := &exec.ColRef{Idx: i, T: sc.Cols[i].T}
	if sc.Cols[i].Rec != nil {
		return &recordRef{Expr: c, fields: sc.Cols[i].Rec}
	}
	return c
}

// fieldSelect binds (record).field.
func (b *Binder) fieldSelect(e exec.Expr, field string) (exec.Expr, error) {
	if t := e.Type(); t.ID == types.Struct {
		for k, f := range t.Fields() {
			if f.Name == field {
				return &exec.StructField{E: e, K: k}, nil
			}
		}
		return nil, pgerr.New(pgerr.UndefinedColumn, "could not identify column \"%s\" in record data type", field)
	}
	fields := RecordFields(e)
	k := -1
	for i, f := range fields {
		if f.Name == field {
			k = i
		}
	}
	if fields == nil {
		return nil, pgerr.New("42809", "column notation .%s applied to type %s, which is not a composite type", field, e.Type())
	}
	if k < 0 {
		return nil, pgerr.New(pgerr.UndefinedColumn, "could not identify column \"%s\" in record data type", field)
	}
	if r, ok := e.(*RecordExpr); ok {
		return r.Args[k], nil
	}
	t := fields[k].Type
	return &CatalogFn{Name: "field_select", T: t, Args: []exec.Expr{e}, Strict: true,
		Fn: func(out *vec.Vector, a []*vec.Vector, i int) error {
			vals := parseRecord(a[0].S[i])
			if k >= len(vals) {
				out.AppendNull()
				return nil
			}
			return appendElem(out, vals[k])
		}}, nil
}

// parseRecord splits PostgreSQL's text form of a record; an empty
// unquoted field is NULL.
func parseRecord(s string) []*string {
	s = strings.TrimSpace(s)
	if len(s) < 2 || s[0] != '(' || s[len(s)-1] != ')' {
		return nil
	}
	body := s[1 : len(s)-1]
	var out []*string
	var cur strings.Builder
	quoted, inQuote, any := false, false, false
	flush := func() {
		if !quoted && cur.Len() == 0 {
			out = append(out, nil)
		} else {
			v := cur.String()
			out = append(out, &v)
		}
		cur.Reset()
		quoted = false
	}
	for i := 0; i < len(body); i++ {
		c := body[i]
		any = true
		switch {
		case inQuote && c == '"' && i+1 < len(body) && body[i+1] == '"':
			cur.WriteByte('"')
			i++
		case c == '"':
			inQuote, quoted = !inQuote, true
		case c == '\\' && i+1 < len(body):
			cur.WriteByte(body[i+1])
			i++
		case c == ',' && !inQuote:
			flush()
		default:
			cur.WriteByte(c)
		}
	}
	if any || len(out) > 0 {
		flush()
	}
	return out
}

// formatArray is the text form of a text[] value.
func formatArray(elems []*string) string { return pgcatalog.FormatArray(elems) }

// realArrayIter yields the elements of real array row of a (and their
// 1-based positions when a second output column asks for them).
func realArrayIter(a *vec.Vector, row int) (srfIter, error) {
	ev := vec.New(a.Type.Elem(), 8)
	if err := vec.DecodeArray(ev, a.S[row]); err != nil {
		return nil, err
	}
	k := 0
	return func(outs []*vec.Vector, max int) (int, bool, error) {
		n := 0
		for ; n < max && k < ev.Len(); n, k = n+1, k+1 {
			outs[0].AppendFrom(ev, k)
			if len(outs) > 1 {
				outs[1].AppendInt(int64(k + 1))
			}
		}
		return n, k >= ev.Len(), nil
	}, nil
}

// WithOrdinality adds WITH ORDINALITY's bigint column to f: the 1-based
// number of each row the call returns for one input row.
func WithOrdinality(f *Srf) *Srf {
	g := *f
	g.Cols = append(append([]Column{}, f.Cols...), Column{Name: "ordinality", Type: types.Int64T})
	g.start = func(a []*vec.Vector, row int) (srfIter, error) {
		it, err := f.start(a, row)
		if err != nil {
			return nil, err
		}
		var k int64
		return func(outs []*vec.Vector, max int) (int, bool, error) {
			last := outs[len(outs)-1]
			n, done, err := it(outs[:len(outs)-1], max)
			for j := 0; j < n; j++ {
				k++
				last.AppendInt(k)
			}
			return n, done, err
		}, nil
	}
	return &g
}
