package bind

import (
	"fmt"
	"slices"
	"strings"
	"time"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/aggregate"
	"github.com/lakepg/lakepg/exec/fn"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

func FuncName(f *pg.FuncCall) string {
	names := StrNodes(f.Funcname)
	if len(names) == 2 && names[0] == "pg_catalog" {
		return names[1]
	}
	return strings.Join(names, ".")
}

func timeDays(y, m, d int) int64 {
	return time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC).Unix() / 86400
}

func (b *Binder) bindFunc(f *pg.FuncCall, sc *Scope) (exec.Expr, error) {
	if b.Qc != nil {
		if e, ok := b.Qc.SrfValue(f); ok {
			return e, nil
		}
	}
	name := FuncName(f)
	if f.Over != nil {
		if b.Win == nil {
			return nil, ErrAt(pgerr.New(pgerr.WindowingError, "window functions are not allowed here"), f.Location)
		}
		return b.Win.add(b, f, sc)
	}
	if IsAggregate(name) && f.Over == nil {
		if b.Aggs == nil {
			msg := b.NoAggMsg
			if msg == "" {
				msg = "aggregate functions are not allowed here"
			}
			return nil, ErrAt(pgerr.New(pgerr.GroupingError, "%s", msg), f.Location)
		}
		return b.Aggs.Add(b, f, sc)
	}
	if f.Over != nil {
		return nil, ErrAt(pgerr.New(pgerr.FeatureNotSupported, "window functions are not supported yet"), f.Location)
	}
	var args []exec.Expr
	for _, a := range f.Args {
		e, err := b.Bind(a, sc)
		if err != nil {
			return nil, err
		}
		args = append(args, e)
	}
	wrongArgs := func() error {
		var ts []string
		for _, a := range args {
			ts = append(ts, a.Type().String())
		}
		e := pgerr.New(pgerr.UndefinedFunction, "function %s(%s) does not exist", name, strings.Join(ts, ", "))
		e.Hint = "No function matches the given name and argument types. You might need to add explicit type casts."
		return ErrAt(e, f.Location)
	}
	switch name {
	case "now", "transaction_timestamp", "statement_timestamp":
		if len(args) != 0 {
			return nil, wrongArgs()
		}
		now := b.Env.Now
		return ConstOf(types.TimestamptzT, func(v *vec.Vector) { v.AppendInt(now.UnixMicro()) }), nil
	case "version":
		v := "PostgreSQL " + ServerVersion + " on x86_64-pc-linux-gnu, lakepg"
		return ConstOf(types.TextT, func(x *vec.Vector) { x.AppendString(v) }), nil
	case "current_database":
		d := b.Sess.SessionDatabase()
		return ConstOf(types.NameT, func(x *vec.Vector) { x.AppendString(d) }), nil
	case "current_schema":
		s := b.Sess.SessionHost().SearchPath()[0]
		return ConstOf(types.NameT, func(x *vec.Vector) { x.AppendString(s) }), nil
	}
	if e, ok, err := b.systemFunction(name, args, f.Location); ok || err != nil {
		return e, err
	}
	if fn.Exists(name) {
		return b.callLibrary(name, args, f.Location)
	}
	return nil, wrongArgs()
}

// callLibrary resolves a function of the exec/fn library for the argument
// types, casts the arguments and folds the call when all are constants.
func (b *Binder) callLibrary(name string, args []exec.Expr, loc int32) (exec.Expr, error) {
	ts := make([]types.T, len(args))
	for i, a := range args {
		ts[i] = a.Type()
	}
	o, casts, ret, err := fn.Resolve(name, ts)
	if err != nil {
		if pe, ok := pgerr.As(err); ok {
			return nil, ErrAt(pe, loc)
		}
		return nil, err
	}
	return b.applyOverload(o, args, casts, ret, loc)
}

func (b *Binder) applyOverload(o *fn.Overload, args []exec.Expr, casts []types.T, ret types.T, loc int32) (exec.Expr, error) {
	consts := make([]*vec.Vector, len(args))
	allConst := true
	for i := range args {
		to := casts[i]
		if to.ID >= 250 { // a pseudo-type: the argument keeps its own type
			to = args[i].Type()
			if to.ID == types.Unknown {
				to = types.TextT
			}
		}
		var err error
		if args[i], err = b.Cast(args[i], to, false, loc); err != nil {
			return nil, err
		}
		if c, ok := args[i].(*exec.Const); ok {
			consts[i] = c.V
		} else {
			allConst = false
		}
	}
	if o.RetConst != nil {
		ret = o.RetConst(casts, consts)
	}
	e := &exec.FnCall{O: o, Args: args, T: ret}
	if allConst && !o.Volatile {
		v, err := e.Eval(b.Env, &vec.Batch{N: 1})
		if err != nil {
			if dataError(err) {
				return e, nil // exec.FoldError decides whether planning raises it
			}
			if pe, ok := pgerr.As(err); ok {
				return nil, ErrAt(pe, loc)
			}
			return nil, err
		}
		return exec.NewConst(v), nil
	}
	return e, nil
}

// dataError reports an error of class 22 (a value out of range, division by
// zero, bad input for a type). Folding a constant expression that fails so
// is not an error yet: PostgreSQL raises it while planning only when the
// expression is not in a branch a constant condition cuts off (CASE WHEN
// false THEN sqrt(-1) END is NULL), which exec.FoldError decides once the
// whole expression is bound.
func dataError(err error) bool {
	return strings.HasPrefix(pgerr.Code(err), "22")
}

// AggCollector gathers the aggregates of one SELECT and maps group-by
// expressions to the aggregate operator's output columns.
type AggCollector struct {
	GroupKeys []string        // deparsed group expressions
	GroupCols []int           // for plain column group keys: input column index (-1 otherwise)
	Groups    []exec.Expr     // bound against the input scope
	aggs      []aggregate.Agg // Arg, Arg2 and Filter index inputs (Filter one-based)
	inputs    []exec.Expr     // aggregate arguments, bound against the input scope
	aggKeys   []string
	// Sets are the GROUPING SETS over groups (nil: plain GROUP BY)
	Sets [][]int
	Gid  *exec.ColRef // the grouping id column, once planned
	// overWindow: the aggregate runs OVER a window, its arguments bind in
	// the window's input scope (which may be above a GROUP BY)
	overWindow bool
}

// IsAggregate reports whether name is an aggregate function.
func IsAggregate(name string) bool {
	if name == "count" || name == "array_agg" {
		return true
	}
	_, ok := aggregate.AggKindByName(name)
	return ok
}

func (c *AggCollector) input(e exec.Expr) int {
	c.inputs = append(c.inputs, e)
	return len(c.inputs) - 1
}

// Plan builds the aggregation over input: a projection of the group keys
// and aggregate inputs, then the hash aggregate. groups replaces the
// collected group keys when set; mapInput rewrites aggregate inputs for a
// different input layout (nil: as bound).
func (c *AggCollector) Plan(env *exec.Env, input exec.Operator, groups []exec.Expr, mapInput func(exec.Expr) exec.Expr) exec.Operator {
	pre, n, aggs := c.Parts(groups, mapInput)
	agg := &aggregate.HashAgg{Input: &exec.Project{Env: env, Input: input, Exprs: pre}, NGroup: n, Aggs: aggs, GroupingSets: c.Sets, GroupingID: c.Sets != nil}
	if c.Sets == nil {
		return agg
	}
	// the grouping id column is the last; grouping() reads it through Gid
	outs := make([]exec.Expr, 0, n+len(aggs))
	ts := agg.Types()
	for i := 0; i < n+len(aggs); i++ {
		outs = append(outs, &exec.ColRef{Idx: i, T: ts[i]})
	}
	c.Gid = &exec.ColRef{Idx: n + len(aggs), T: types.Int32T}
	return &exec.Project{Env: env, Input: agg, Exprs: append(outs, c.Gid)}
}

// Parts are what the aggregation computes over its input: the
// expressions of its input columns (the group keys, groups when set, then
// the aggregates' inputs, rewritten by mapInput when set; a constant when
// there are none), how many of them are group keys, and the aggregates
// over those columns.
func (c *AggCollector) Parts(groups []exec.Expr, mapInput func(exec.Expr) exec.Expr) ([]exec.Expr, int, []aggregate.Agg) {
	if groups == nil {
		groups = c.Groups
	}
	pre := append([]exec.Expr{}, groups...)
	for _, e := range c.inputs {
		if mapInput != nil {
			e = mapInput(e)
		}
		pre = append(pre, e)
	}
	if len(pre) == 0 {
		pre = append(pre, exec.NewConst(IntVec(0)))
	}
	n := len(groups)
	aggs := make([]aggregate.Agg, len(c.aggs))
	for i, a := range c.aggs {
		a.Arg += n
		if a.Kind == aggregate.AggStringAgg || a.Kind == aggregate.AggPercentileCont || a.Kind == aggregate.AggPercentileDisc {
			a.Arg2 += n
		}
		if a.Filter > 0 {
			a.Filter += n
		}
		a.Order = slices.Clone(a.Order)
		for k := range a.Order {
			a.Order[k].Col += n
		}
		aggs[i] = a
	}
	return pre, n, aggs
}

func (c *AggCollector) Add(b *Binder, f *pg.FuncCall, sc *Scope) (exec.Expr, error) {
	name := FuncName(f)
	key := DeparseExpr(&pg.Node{Node: &pg.Node_FuncCall{FuncCall: f}})
	for k, existing := range c.aggKeys {
		if existing == key {
			return arrayAggResult(name, &exec.ColRef{Idx: len(c.Groups) + k, T: c.aggs[k].Out}), nil
		}
	}
	inner := *b
	inner.Aggs = nil
	if !c.overWindow {
		inner.Post = nil
	}
	inner.NoAggMsg = "aggregate function calls cannot be nested"
	firstInput := len(c.inputs)
	bindArg := func(n *pg.Node, t types.T) (exec.Expr, error) {
		if row := n.GetRowExpr(); row != nil && name == "count" {
			return inner.rowValue(row, sc) // count(DISTINCT (a, b)): rowvalue.go
		}
		e, err := inner.Bind(n, sc)
		if err != nil {
			return nil, err
		}
		if e.Type().ID == types.Unknown {
			return b.Cast(e, t, false, f.Location)
		}
		return e, nil
	}
	var agg aggregate.Agg
	var in, arrT types.T
	switch {
	case f.AggStar:
		if name != "count" {
			return nil, ErrAt(pgerr.New(pgerr.SyntaxError, "%s(*) is not allowed", name), f.Location)
		}
		agg.Kind, in = aggregate.AggCountStar, types.Int64T
	case name == "array_agg":
		var err error
		if arrT, err = c.bindArrayAgg(b, &agg, f, bindArg); err != nil {
			return nil, err
		}
		in = types.ByteaT
	case f.AggWithinGroup:
		kind, _ := aggregate.AggKindByName(name)
		if len(f.AggOrder) != 1 {
			return nil, ErrAt(pgerr.New(pgerr.FeatureNotSupported, "%s needs exactly one WITHIN GROUP (ORDER BY …) expression", name), f.Location)
		}
		sb := f.AggOrder[0].GetSortBy()
		e, err := bindArg(sb.Node, types.Float64T)
		if err != nil {
			return nil, err
		}
		agg.Kind, agg.Arg, in = kind, c.input(e), e.Type()
		agg.Desc = sb.SortbyDir == pg.SortByDir_SORTBY_DESC
		if kind == aggregate.AggPercentileCont {
			// percentile_cont interpolates: it works on double precision
			if e, err = b.Cast(e, types.Float64T, false, f.Location); err != nil {
				return nil, err
			}
			c.inputs[agg.Arg], in = e, types.Float64T
		}
		if kind != aggregate.AggMode {
			if len(f.Args) != 1 {
				return nil, ErrAt(pgerr.New(pgerr.UndefinedFunction, "function %s takes one fraction argument", name), f.Location)
			}
			fr, err := bindArg(f.Args[0], types.Float64T)
			if err != nil {
				return nil, err
			}
			if fr, err = b.Cast(fr, types.Float64T, false, f.Location); err != nil {
				return nil, err
			}
			agg.Arg2 = c.input(fr)
		}
	default:
		kind, ok := aggregate.AggKindByName(name)
		if !ok || kind.Name() == "" {
			return nil, ErrAt(pgerr.New(pgerr.UndefinedFunction, "function %s does not exist", name), f.Location)
		}
		want := 1
		if kind == aggregate.AggStringAgg {
			want = 2
		}
		if len(f.Args) != want {
			return nil, ErrAt(pgerr.New(pgerr.UndefinedFunction, "function %s with %d arguments does not exist", name, len(f.Args)), f.Location)
		}
		def := types.TextT
		if kind == aggregate.AggSum || kind == aggregate.AggAvg || kind >= aggregate.AggStddevSamp && kind <= aggregate.AggVarPop {
			def = types.Float64T
		}
		e, err := bindArg(f.Args[0], def)
		if err != nil {
			return nil, err
		}
		if kind == aggregate.AggStringAgg {
			if e, err = b.Cast(e, types.TextT, false, f.Location); err != nil {
				return nil, err
			}
			sep, err := bindArg(f.Args[1], types.TextT)
			if err != nil {
				return nil, err
			}
			if sep, err = b.Cast(sep, types.TextT, false, f.Location); err != nil {
				return nil, err
			}
			agg.Arg2 = -1 // set below, after Arg
			agg.Kind, agg.Arg, in = kind, c.input(e), types.TextT
			agg.Arg2 = c.input(sep)
		} else {
			agg.Kind, agg.Arg, in = kind, c.input(e), e.Type()
		}
		agg.Distinct = f.AggDistinct
		if err := c.bindAggOrder(b, &agg, f, bindArg); err != nil {
			return nil, err
		}
	}
	if f.AggFilter != nil {
		fe, err := inner.Bind(f.AggFilter, sc)
		if err != nil {
			return nil, err
		}
		if fe, err = b.CoerceBool(fe, f.AggFilter, "argument of FILTER"); err != nil {
			return nil, err
		}
		// PostgreSQL computes the arguments only for the rows FILTER
		// keeps, so sum(10 / x) FILTER (WHERE x <> 0) cannot fail: an
		// argument that may raise runs under CASE WHEN filter (a copy of
		// it: the filter column itself is the unguarded one)
		for k := firstInput; k < len(c.inputs); k++ {
			if e := c.inputs[k]; exec.MayRaise(e) {
				guard := exec.MapColumns(fe, func(i int) int { return i })
				c.inputs[k] = &exec.Case{When: []exec.Expr{guard}, Then: []exec.Expr{e}, T: e.Type()}
			}
		}
		agg.Filter = aggregate.FilterColumn(c.input(fe))
	}
	out, err := aggregate.AggResultType(agg.Kind, in)
	if err != nil {
		if pe, ok := pgerr.As(err); ok {
			return nil, ErrAt(pe, f.Location)
		}
		return nil, err
	}
	if arrT.ID == types.Array {
		out = arrT // array_agg: a string_agg of encoded elements is the array
	}
	agg.In, agg.Out = in, out
	c.aggs = append(c.aggs, agg)
	c.aggKeys = append(c.aggKeys, key)
	return arrayAggResult(name, &exec.ColRef{Idx: len(c.Groups) + len(c.aggs) - 1, T: out}), nil
}

// ParseTreeVersion is the protobuf tree version Deparse insists on.
var ParseTreeVersion = func() int32 {
	r, err := pg.Parse("SELECT 1")
	if err != nil {
		return 0
	}
	return r.Version
}()

// DeparseExpr renders an expression back to SQL, location-free, so equal
// expressions written twice compare equal.
func DeparseExpr(n *pg.Node) string {
	tree := &pg.ParseResult{Version: ParseTreeVersion, Stmts: []*pg.RawStmt{{Stmt: &pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: &pg.SelectStmt{
		TargetList:  []*pg.Node{{Node: &pg.Node_ResTarget{ResTarget: &pg.ResTarget{Val: n}}}},
		Op:          pg.SetOperation_SETOP_NONE,
		LimitOption: pg.LimitOption_LIMIT_OPTION_DEFAULT,
	}}}}}}
	s, err := pg.Deparse(tree)
	if err != nil {
		// never let two undeparsable expressions compare equal
		return fmt.Sprintf("\x00%p", n)
	}
	return s
}

// ResolveTypeName maps a parsed type name to a lakepg type.
func ResolveTypeName(tn *pg.TypeName) (types.T, error) {
	names := StrNodes(tn.Names)
	name := names[len(names)-1]
	if len(tn.ArrayBounds) > 0 {
		e, err := elemTypeOf(tn)
		if err != nil {
			return types.T{}, err
		}
		return types.ArrayOf(e), nil
	}
	if t, ok := arrayTypeName(name); ok {
		return t, nil
	}
	var mods []int64
	for _, m := range tn.Typmods {
		if c := m.GetAConst(); c != nil {
			if iv := c.GetIval(); iv != nil {
				mods = append(mods, int64(iv.Ival))
				continue
			}
		}
		return types.T{}, ErrAt(pgerr.New(pgerr.SyntaxError, "type modifiers must be simple constants"), tn.Location)
	}
	switch name {
	case "bool", "boolean":
		return types.BoolT, nil
	case "int2", "smallint":
		return types.Int16T, nil
	case "int4", "int", "integer":
		return types.Int32T, nil
	case "int8", "bigint", "oid", "xid":
		return types.Int64T, nil
	case "float4", "real":
		return types.Float32T, nil
	case "float8", "double precision":
		return types.Float64T, nil
	case "float":
		if len(mods) == 1 && mods[0] <= 24 {
			return types.Float32T, nil
		}
		return types.Float64T, nil
	case "numeric", "decimal":
		switch len(mods) {
		case 0:
			return types.NumericAnyT, nil
		case 1, 2:
			p, s := int(mods[0]), 0
			if len(mods) == 2 {
				s = int(mods[1])
			}
			if p < 1 || p > 1000 {
				return types.T{}, ErrAt(pgerr.New(pgerr.InvalidParameterValue, "NUMERIC precision %d must be between 1 and 1000", p), tn.Location)
			}
			if s < 0 || s > p {
				return types.T{}, ErrAt(pgerr.New(pgerr.InvalidParameterValue, "NUMERIC scale %d must be between 0 and precision %d", s, p), tn.Location)
			}
			return types.NumericT(p, s), nil
		}
	case "text":
		return types.TextT, nil
	case "name":
		return types.NameT, nil
	case "varchar", "character varying":
		t := types.VarcharT
		if len(mods) == 1 {
			if mods[0] < 1 {
				return types.T{}, ErrAt(pgerr.New(pgerr.InvalidParameterValue, "length for type varchar must be at least 1"), tn.Location)
			}
			t.Width = int(mods[0])
		}
		return t, nil
	case "bytea":
		return types.ByteaT, nil
	case "date":
		return types.DateT, nil
	case "timestamp":
		return types.TimestampT, nil
	case "timestamptz":
		return types.TimestamptzT, nil
	case "interval":
		return types.IntervalT, nil
	case "time":
		return types.TimeT, nil
	case "timetz":
		return types.TimeTZT, nil
	case "json":
		return types.JSONT, nil
	case "uuid":
		return types.UUIDT, nil
	case "bpchar", "char", "character":
		// the grammar gives a bare char(acter) the modifier 1; bare bpchar has none
		t := types.BpcharT
		if len(mods) == 1 {
			if mods[0] < 1 {
				return types.T{}, ErrAt(pgerr.New(pgerr.InvalidParameterValue, "length for type char must be at least 1"), tn.Location)
			}
			t.Width = int(mods[0])
		}
		return t, nil
	}
	return types.T{}, ErrAt(pgerr.New(pgerr.UndefinedObject, "type \"%s\" does not exist", name), tn.Location)
}

// bindAggOrder binds ORDER BY inside an aggregate call. With DISTINCT,
// PostgreSQL allows only the aggregated value itself as the key, which the
// DISTINCT sort then orders.
func (c *AggCollector) bindAggOrder(b *Binder, agg *aggregate.Agg, f *pg.FuncCall, bindArg func(*pg.Node, types.T) (exec.Expr, error)) error {
	for i, n := range f.AggOrder {
		sb := n.GetSortBy()
		if sb.SortbyDir == pg.SortByDir_SORTBY_USING {
			return ErrAt(pgerr.New(pgerr.FeatureNotSupported, "ORDER BY … USING inside an aggregate is not supported"), sb.Location)
		}
		desc := sb.SortbyDir == pg.SortByDir_SORTBY_DESC
		nullsFirst := desc
		switch sb.SortbyNulls {
		case pg.SortByNulls_SORTBY_NULLS_FIRST:
			nullsFirst = true
		case pg.SortByNulls_SORTBY_NULLS_LAST:
			nullsFirst = false
		}
		if agg.Distinct {
			if i > 0 || DeparseExpr(sb.Node) != DeparseExpr(f.Args[0]) {
				return ErrAt(pgerr.New(pgerr.InvalidColumnReference, "in an aggregate with DISTINCT, ORDER BY expressions must appear in argument list"), NodeLoc(sb.Node))
			}
			agg.Desc = desc
			continue
		}
		e, err := bindArg(sb.Node, types.TextT)
		if err != nil {
			return err
		}
		agg.Order = append(agg.Order, aggregate.AggOrder{Col: c.input(e), Desc: desc, NullsFirst: nullsFirst})
	}
	return nil
}

// IsAggCall reports an aggregate call (not a window function).
func IsAggCall(n *pg.Node) bool {
	f := n.GetFuncCall()
	return f != nil && f.Over == nil && IsAggregate(FuncName(f))
}

func IntVec(x int64) *vec.Vector {
	v := vec.New(types.Int32T, 1)
	v.AppendInt(x)
	return v
}
