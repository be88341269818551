package bind

import (
	"context"
	"fmt"
	"math/big"
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/fn"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/sql/pgcatalog"
	"github.com/lakepg/lakepg/types"
)

// ScopeCol is one column visible to expressions: where it sits in the input
// batch and the names it answers to.
type ScopeCol struct {
	Table string // alias or table name
	Name  string
	T     types.T
	Used  *bool     // marks the scan column as needed
	Elem  types.T   // element type of a catalog array column (srf.go)
	Rec   []Column  // fields of a record column (srf.go)
	Orig  ColOrigin // the lake table column it is (origin.go)
	// Hidden: an input column of a USING/NATURAL join, reachable only
	// qualified by its table (the merged column owns the bare name)
	Hidden bool
	// System: a system column (tableoid, sql/planner/syscols.go), also hidden: `*`
	// and NATURAL skip it, its name alone still reaches it
	System bool
}

type Scope struct {
	Cols []ScopeCol
	// Shadow > 0: the first shadow columns hide same-named later ones (a
	// subquery's own columns before the outer query's)
	Shadow int
}

// Binder turns parse-tree expressions into executable expressions against a
// scope, resolving types the way PostgreSQL does.
type Binder struct {
	Sess   Session
	Env    *exec.Env
	Params *Params
	// aggregates collected while binding a SELECT list / HAVING / ORDER BY
	Aggs     *AggCollector
	NoAggMsg string // set when aggregates are not allowed here
	// Post, when set, resolves column references, aggregates and group keys
	// above an aggregation
	Post PostBinder
	// Qc plans subqueries met while binding
	Qc Planner
	// Win collects window functions where they are allowed (SELECT list,
	// ORDER BY); nil elsewhere
	Win *WindowCollector
}

// Planner is what binding asks of the query planner above it (QueryCtx):
// subqueries inside expressions, columns of enclosing queries, the values
// of set-returning calls it already runs, the statement's context and its
// pg_catalog Context.
type Planner interface {
	BindSubLink(b *Binder, sl *pg.SubLink, sc *Scope) (exec.Expr, error)
	OuterColumn(b *Binder, names []string, loc int32, err error) (exec.Expr, bool, error)
	SrfValue(f *pg.FuncCall) (exec.Expr, bool)
	Context() context.Context
	CatalogContext(meta *catalog.Metadata) *pgcatalog.Context
}

// PostBinder binds above an aggregation (the planner's postBinder): the
// column references, aggregates and group keys it intercepts.
type PostBinder interface {
	Intercepts(n *pg.Node) bool
	BindPost(n *pg.Node) (exec.Expr, error)
}

// Params holds $n parameters: types inferred during binding, values at execution.
type Params struct {
	Types  []types.T
	Values [][]byte // nil slice = describing only
	Bound  bool
}

func (p *Params) typeOf(n int) types.T {
	if n <= len(p.Types) {
		return p.Types[n-1]
	}
	return types.UnknownT
}

func (p *Params) setType(n int, t types.T) {
	for len(p.Types) < n {
		p.Types = append(p.Types, types.UnknownT)
	}
	if p.Types[n-1].ID == types.Unknown {
		p.Types[n-1] = t
	}
}

// paramExpr is $n. Its type is settled by coerce; its value comes at execution.
type paramExpr struct {
	n int
	p *Params
}

func (e *paramExpr) Type() types.T { return e.p.typeOf(e.n) }
func (e *paramExpr) Eval(env *exec.Env, b *vec.Batch) (*vec.Vector, error) {
	t := e.Type()
	if t.ID == types.Unknown {
		t = types.TextT
	}
	one := vec.New(t, 1)
	if e.p.Values == nil || e.n > len(e.p.Values) || e.p.Values[e.n-1] == nil {
		one.AppendNull()
	} else if err := exec.ParseInto(one, string(e.p.Values[e.n-1]), env.Loc, false); err != nil {
		return nil, err
	}
	return vec.Constant(one, 0, b.N), nil
}

func ErrAt(e *pgerr.Error, loc int32) *pgerr.Error {
	if loc >= 0 && e.Position == 0 {
		return e.WithPosition(int(loc) + 1)
	}
	return e
}

func (b *Binder) FindColumn(sc *Scope, names []string, loc int32) (int, error) {
	var table, col string
	switch len(names) {
	case 1:
		col = names[0]
	case 2:
		table, col = names[0], names[1]
	default:
		table, col = names[len(names)-2], names[len(names)-1]
	}
	found := -1
	if sc.Shadow > 0 {
		inner := &Scope{Cols: sc.Cols[:sc.Shadow]}
		if inner.Resolves(table, col) {
			return b.FindColumn(inner, names, loc)
		}
		outer := &Scope{Cols: sc.Cols[sc.Shadow:]}
		i, err := b.FindColumn(outer, names, loc)
		if err != nil {
			return 0, err
		}
		return sc.Shadow + i, nil
	}
	for i, c := range sc.Cols {
		if c.Name == col && (table == "" && (!c.Hidden || c.System) || table != "" && c.Table == table) {
			if found >= 0 {
				return 0, ErrAt(pgerr.New(pgerr.AmbiguousColumn, "column reference \"%s\" is ambiguous", col), loc)
			}
			found = i
		}
	}
	if found < 0 {
		if table != "" {
			known := false
			for _, c := range sc.Cols {
				if c.Table == table {
					known = true
				}
			}
			if !known {
				return 0, ErrAt(pgerr.New(pgerr.UndefinedTable, "missing FROM-clause entry for table \"%s\"", table), loc)
			}
			return 0, ErrAt(pgerr.New(pgerr.UndefinedColumn, "column %s.%s does not exist", table, col), loc)
		}
		return 0, ErrAt(pgerr.New(pgerr.UndefinedColumn, "column \"%s\" does not exist", col), loc)
	}
	if u := sc.Cols[found].Used; u != nil {
		*u = true
	}
	return found, nil
}

func StrNodes(ns []*pg.Node) []string {
	out := make([]string, 0, len(ns))
	for _, n := range ns {
		if s := n.GetString_(); s != nil {
			out = append(out, s.Sval)
		}
	}
	return out
}

func ConstOf(t types.T, fill func(v *vec.Vector)) *exec.Const {
	v := vec.New(t, 1)
	fill(v)
	return exec.NewConst(v)
}

// Bind binds an expression.
func (b *Binder) Bind(n *pg.Node, sc *Scope) (exec.Expr, error) {
	if b.Post != nil && b.Post.Intercepts(n) {
		return b.Post.BindPost(n)
	}
	switch x := n.Node.(type) {
	case *pg.Node_ColumnRef:
		var names []string
		for _, f := range x.ColumnRef.Fields {
			if f.GetAStar() != nil {
				return nil, ErrAt(pgerr.New(pgerr.SyntaxError, "* is not allowed here"), x.ColumnRef.Location)
			}
			names = append(names, f.GetString_().Sval)
		}
		i, err := b.FindColumn(sc, names, x.ColumnRef.Location)
		if err != nil {
			if e, ok, oerr := b.OuterColumn(names, x.ColumnRef.Location, err); ok || oerr != nil {
				return e, oerr // an enclosing query's value (sql/planner/apply_plan.go)
			}
			return nil, err
		}
		return bindColRef(sc, i), nil
	case *pg.Node_AConst:
		return bindConst(x.AConst)
	case *pg.Node_ParamRef:
		if b.Params == nil {
			return nil, ErrAt(pgerr.New(pgerr.UndefinedParameter, "there is no parameter $%d", x.ParamRef.Number), x.ParamRef.Location)
		}
		if b.Params.Bound && int(x.ParamRef.Number) > len(b.Params.Types) {
			return nil, ErrAt(pgerr.New(pgerr.UndefinedParameter, "there is no parameter $%d", x.ParamRef.Number), x.ParamRef.Location)
		}
		for len(b.Params.Types) < int(x.ParamRef.Number) {
			b.Params.Types = append(b.Params.Types, types.UnknownT)
		}
		return &paramExpr{n: int(x.ParamRef.Number), p: b.Params}, nil
	case *pg.Node_TypeCast:
		target := StrNodes(x.TypeCast.TypeName.Names)
		tname := target[len(target)-1]
		if inner := x.TypeCast.Arg.GetTypeCast(); inner != nil && (tname == "text" || tname == "varchar" || tname == "name") &&
			len(x.TypeCast.TypeName.ArrayBounds) == 0 && len(inner.TypeName.ArrayBounds) == 0 {
			in := StrNodes(inner.TypeName.Names)
			if regTypes[in[len(in)-1]] {
				arg, err := b.Bind(inner.Arg, sc)
				if err != nil {
					return nil, err
				}
				e, _, err := b.regOutput(arg, in[len(in)-1], x.TypeCast.Location)
				return e, err
			}
		}
		if ae := x.TypeCast.Arg.GetAArrayExpr(); ae != nil && len(x.TypeCast.TypeName.ArrayBounds) > 0 {
			t, err := ResolveTypeName(x.TypeCast.TypeName)
			if err != nil {
				return nil, err
			}
			e, err := b.bindArrayExpr(ae, sc, t)
			if err != nil {
				return nil, err
			}
			return b.Cast(e, t, false, x.TypeCast.Location)
		}
		arg, err := b.Bind(x.TypeCast.Arg, sc)
		if err != nil {
			return nil, err
		}
		if e, ok, err := b.arrayCast(arg, x.TypeCast.TypeName, x.TypeCast.Location); ok || err != nil {
			return e, err
		}
		if e, ok, err := b.RegCast(arg, tname, x.TypeCast.Location); ok || err != nil {
			return e, err
		}
		t, err := ResolveTypeName(x.TypeCast.TypeName)
		if err != nil {
			return nil, err
		}
		if t.ID == types.Interval {
			arg = intervalQualifier(arg, x.TypeCast.TypeName)
		}
		return b.Cast(arg, t, false, x.TypeCast.Location)
	case *pg.Node_BoolExpr:
		var args []exec.Expr
		for _, a := range x.BoolExpr.Args {
			e, err := b.Bind(a, sc)
			if err != nil {
				return nil, err
			}
			if e, err = b.CoerceBool(e, a, "argument of "+boolName(x.BoolExpr.Boolop)); err != nil {
				return nil, err
			}
			args = append(args, e)
		}
		switch x.BoolExpr.Boolop {
		case pg.BoolExprType_AND_EXPR:
			return &exec.Logic{And: true, Args: args}, nil
		case pg.BoolExprType_OR_EXPR:
			return &exec.Logic{Args: args}, nil
		}
		return &exec.Not{E: args[0]}, nil
	case *pg.Node_NullTest:
		e, err := b.Bind(x.NullTest.Arg, sc)
		if err != nil {
			return nil, err
		}
		return &exec.IsNull{E: e, Not: x.NullTest.Nulltesttype == pg.NullTestType_IS_NOT_NULL}, nil
	case *pg.Node_AExpr:
		return b.bindAExpr(x.AExpr, sc)
	case *pg.Node_FuncCall:
		return b.bindFunc(x.FuncCall, sc)
	case *pg.Node_CaseExpr:
		return b.bindCase(x.CaseExpr, sc)
	case *pg.Node_CoalesceExpr:
		var args []exec.Expr
		for _, a := range x.CoalesceExpr.Args {
			e, err := b.Bind(a, sc)
			if err != nil {
				return nil, err
			}
			args = append(args, e)
		}
		t, err := CommonType(args, "COALESCE", x.CoalesceExpr.Location)
		if err != nil {
			return nil, err
		}
		for i := range args {
			if args[i], err = b.Cast(args[i], t, false, -1); err != nil {
				return nil, err
			}
		}
		// arguments after the first non-NULL constant are never reached;
		// PostgreSQL's planner drops them, so coalesce(1, 1/0) is 1
		for i, e := range args {
			if c, ok := e.(*exec.Const); ok && !c.IsNull() {
				args = args[:i+1]
				break
			}
		}
		return &exec.Coalesce{Args: args, T: t}, nil
	case *pg.Node_CollateClause:
		// lakepg compares text in byte order (the C collation) whatever is asked
		return b.Bind(x.CollateClause.Arg, sc)
	case *pg.Node_MinMaxExpr:
		var args []exec.Expr
		for _, a := range x.MinMaxExpr.Args {
			e, err := b.Bind(a, sc)
			if err != nil {
				return nil, err
			}
			args = append(args, e)
		}
		name := "greatest"
		if x.MinMaxExpr.Op == pg.MinMaxOp_IS_LEAST {
			name = "least"
		}
		return b.callLibrary(name, args, x.MinMaxExpr.Location)
	case *pg.Node_SqlvalueFunction:
		return b.bindSQLValueFunc(x.SqlvalueFunction)
	case *pg.Node_BooleanTest:
		e, err := b.Bind(x.BooleanTest.Arg, sc)
		if err != nil {
			return nil, err
		}
		if e, err = b.CoerceBool(e, x.BooleanTest.Arg, "argument of IS TRUE"); err != nil {
			return nil, err
		}
		return booleanTest(e, x.BooleanTest.Booltesttype), nil
	case *pg.Node_SubLink:
		return b.bindSubLink(x.SubLink, sc)
	case *pg.Node_AIndirection:
		return b.bindIndirection(x.AIndirection, sc)
	case *pg.Node_AArrayExpr:
		return b.bindArrayExpr(x.AArrayExpr, sc, types.T{})
	case *pg.Node_RowExpr:
		return b.bindRow(x.RowExpr, sc) // rowvalue.go
	}
	return nil, pgerr.New(pgerr.FeatureNotSupported, "expression %s is not supported yet", NodeName(n))
}

func NodeName(n *pg.Node) string {
	s := fmt.Sprintf("%T", n.Node)
	return strings.TrimPrefix(s, "*pg_query.Node_")
}

func boolName(op pg.BoolExprType) string {
	switch op {
	case pg.BoolExprType_AND_EXPR:
		return "AND"
	case pg.BoolExprType_OR_EXPR:
		return "OR"
	}
	return "NOT"
}

func booleanTest(e exec.Expr, kind pg.BoolTestType) exec.Expr {
	isNull := &exec.IsNull{E: e}
	notNull := &exec.IsNull{E: e, Not: true}
	switch kind {
	case pg.BoolTestType_IS_TRUE:
		return &exec.Logic{And: true, Args: []exec.Expr{notNull, e}}
	case pg.BoolTestType_IS_NOT_TRUE:
		return &exec.Logic{Args: []exec.Expr{isNull, &exec.Not{E: e}}}
	case pg.BoolTestType_IS_FALSE:
		return &exec.Logic{And: true, Args: []exec.Expr{notNull, &exec.Not{E: e}}}
	case pg.BoolTestType_IS_NOT_FALSE:
		return &exec.Logic{Args: []exec.Expr{isNull, e}}
	case pg.BoolTestType_IS_UNKNOWN:
		return isNull
	}
	return notNull
}

func bindConst(c *pg.A_Const) (exec.Expr, error) {
	if c.Isnull {
		return exec.NullConst(types.UnknownT), nil
	}
	switch v := c.Val.(type) {
	case *pg.A_Const_Ival:
		return ConstOf(types.Int32T, func(x *vec.Vector) { x.AppendInt(int64(v.Ival.Ival)) }), nil
	case *pg.A_Const_Fval:
		return numericLiteral(v.Fval.Fval, c.Location)
	case *pg.A_Const_Sval:
		return ConstOf(types.UnknownT, func(x *vec.Vector) { x.AppendString(v.Sval.Sval) }), nil
	case *pg.A_Const_Boolval:
		return ConstOf(types.BoolT, func(x *vec.Vector) { x.AppendBool(v.Boolval.Boolval) }), nil
	case *pg.A_Const_Bsval:
		return nil, pgerr.New(pgerr.FeatureNotSupported, "bit string literals are not supported")
	}
	return nil, pgerr.New(pgerr.FeatureNotSupported, "constant not supported")
}

// numericLiteral types 123.45 as numeric and large integers as bigint or numeric.
func numericLiteral(s string, loc int32) (exec.Expr, error) {
	if !strings.ContainsAny(s, ".eE") {
		if x, err := strconv.ParseInt(s, 10, 64); err == nil {
			if x == int64(int32(x)) {
				// -2147483648 arrives here (the grammar negates 2147483648),
				// and PostgreSQL's make_const types it integer
				return ConstOf(types.Int32T, func(v *vec.Vector) { v.AppendInt(x) }), nil
			}
			return ConstOf(types.Int64T, func(v *vec.Vector) { v.AppendInt(x) }), nil
		}
	}
	d, sc, err := types.ParseDecimal(s)
	if err != nil {
		return nil, ErrAt(err.(*pgerr.Error), loc)
	}
	if sc <= types.MaxInt64Precision && d.IsInt64() && len(new(big.Int).Abs(d).String()) <= types.MaxInt64Precision {
		t := types.T{ID: types.Numeric, Precision: 0, Scale: sc}
		return ConstOf(t, func(v *vec.Vector) { v.AppendInt(d.Int64()) }), nil
	}
	return ConstOf(types.NumericAnyT, func(v *vec.Vector) { v.AppendString(types.FormatBig(d, sc)) }), nil
}

// foldConst evaluates arithmetic on constants once, at bind time, so that
// l_quantity <= 1 + 10 compares with a constant the comparison can cast
// once, not with a column of elevens cast row by row. An error (1/0) is
// not raised here: exec.FoldError decides whether planning raises it.
func (b *Binder) foldConst(a *exec.Arith) exec.Expr {
	_, lc := a.L.(*exec.Const)
	_, rc := a.R.(*exec.Const)
	if !lc || !rc {
		return a
	}
	v, err := a.Eval(b.Env, &vec.Batch{N: 1})
	if err != nil {
		return a
	}
	if a.L.(*exec.Const).Param || a.R.(*exec.Const).Param {
		return exec.ParamConst(v.Slice(0, 1))
	}
	return exec.NewConst(v.Slice(0, 1))
}

// Cast converts e to t. Unknown literals are parsed right away so bad input
// fails at bind time with 22P02, as PostgreSQL does.
func (b *Binder) Cast(e exec.Expr, t types.T, assign bool, loc int32) (exec.Expr, error) {
	if p, ok := e.(*paramExpr); ok && p.Type().ID == types.Unknown {
		p.p.setType(p.n, t)
		return e, nil
	}
	if e.Type() == t {
		return e, nil
	}
	if c, ok := e.(*exec.Const); ok {
		v, err := exec.CastVector(b.Env, c.V, 1, t, assign)
		if err != nil {
			// a literal's type is settled while parsing, where PostgreSQL
			// reports bad input ('x'::int); a typed value's cast is a
			// function the planner folds ('x'::text::int, 1e400::float8)
			if c.Type().ID != types.Unknown && dataError(err) {
				return &exec.Cast{E: e, To: t, Assign: assign}, nil
			}
			if pe, ok := pgerr.As(err); ok {
				return nil, ErrAt(pe, loc)
			}
			return nil, err
		}
		if c.Param {
			return exec.ParamConst(v), nil
		}
		return exec.NewConst(v), nil
	}
	if !castable(e.Type(), t) {
		return nil, ErrAt(pgerr.New(pgerr.CannotCoerce, "cannot cast type %s to %s", e.Type(), t), loc)
	}
	return &exec.Cast{E: e, To: t, Assign: assign}, nil
}

func castable(from, to types.T) bool {
	if from.ID == to.ID || from.ID == types.Unknown || from.ID == types.Text || to.ID == types.Text {
		return true
	}
	if from.IsNumeric() && to.IsNumeric() {
		return true
	}
	isTime := func(t types.T) bool {
		return t.ID == types.Date || t.ID == types.Timestamp || t.ID == types.Timestamptz
	}
	if isTime(from) && isTime(to) || timeOfDayCast(from, to) {
		return true
	}
	if (from.IsInteger() && to.ID == types.Bool) || (from.ID == types.Bool && to.ID == types.Int32) {
		return true
	}
	return false
}

// Assignable reports whether PostgreSQL allows an assignment cast from→to.
func Assignable(from, to types.T) bool {
	if from.ID == to.ID || from.ID == types.Unknown {
		return true
	}
	if from.IsNumeric() && to.IsNumeric() {
		return true
	}
	if to.ID == types.Text {
		return true
	}
	isTime := func(t types.T) bool {
		return t.ID == types.Date || t.ID == types.Timestamp || t.ID == types.Timestamptz
	}
	return isTime(from) && isTime(to) || timeOfDayCast(from, to)
}

// timeOfDayCast reports the casts PostgreSQL has between time, timetz,
// timestamps and interval (all assignment or implicit casts in pg_cast).
func timeOfDayCast(from, to types.T) bool {
	switch to.ID {
	case types.Time:
		return from.ID == types.Timestamp || from.ID == types.Timestamptz || from.ID == types.TimeTZ || from.ID == types.Interval
	case types.TimeTZ:
		return from.ID == types.Timestamptz || from.ID == types.Time
	case types.Interval:
		return from.ID == types.Time
	}
	return false
}

// CoerceAssign prepares e for storing into a column of type t.
func (b *Binder) CoerceAssign(e exec.Expr, t types.T, col string, loc int32) (exec.Expr, error) {
	if !Assignable(e.Type(), t) {
		pe := pgerr.New(pgerr.DatatypeMismatch, "column \"%s\" is of type %s but expression is of type %s", col, t, e.Type())
		pe.Hint = "You will need to rewrite or cast the expression."
		return nil, ErrAt(pe, loc)
	}
	return b.Cast(e, t, true, loc)
}

func (b *Binder) CoerceBool(e exec.Expr, n *pg.Node, ctx string) (exec.Expr, error) {
	t := e.Type()
	if t.ID == types.Bool {
		return e, nil
	}
	if t.ID == types.Unknown {
		return b.Cast(e, types.BoolT, false, NodeLoc(n))
	}
	return nil, ErrAt(pgerr.New(pgerr.DatatypeMismatch, "%s must be type boolean, not type %s", ctx, t), NodeLoc(n))
}

func NodeLoc(n *pg.Node) int32 {
	switch x := n.Node.(type) {
	case *pg.Node_ColumnRef:
		return x.ColumnRef.Location
	case *pg.Node_AConst:
		return x.AConst.Location
	case *pg.Node_AExpr:
		return x.AExpr.Location
	case *pg.Node_FuncCall:
		return x.FuncCall.Location
	case *pg.Node_TypeCast:
		return x.TypeCast.Location
	case *pg.Node_ParamRef:
		return x.ParamRef.Location
	case *pg.Node_BoolExpr:
		return x.BoolExpr.Location
	}
	return -1
}

// numRank orders number types for promotion.
func numRank(t types.T) int {
	switch t.ID {
	case types.Int16:
		return 1
	case types.Int32:
		return 2
	case types.Int64:
		return 3
	case types.Numeric:
		return 4
	case types.Float32:
		return 5
	case types.Float64:
		return 6
	}
	return 0
}

// CommonType picks the type that a set of expressions unify to (UNION/CASE/
// COALESCE/comparison rules, simplified from PostgreSQL's select_common_type).
func CommonType(es []exec.Expr, ctx string, loc int32) (types.T, error) {
	var t types.T
	found := false
	for _, e := range es {
		et := e.Type()
		if et.ID == types.Unknown {
			continue
		}
		if !found {
			t, found = et, true
			continue
		}
		u, ok := unify(t, et)
		if !ok {
			return t, ErrAt(pgerr.New(pgerr.DatatypeMismatch, "%s types %s and %s cannot be matched", ctx, t, et), loc)
		}
		t = u
	}
	if !found {
		return types.TextT, nil
	}
	if t.ID == types.Numeric && !t.DynNumeric() {
		// mixed numeric inputs give unconstrained numeric, where each value
		// keeps its own scale (CASE … THEN 1 ELSE 2.5 prints 1, not 1.0)
		for _, e := range es {
			if et := e.Type(); et.ID != types.Unknown && et != t {
				return types.NumericAnyT, nil
			}
		}
	}
	return t, nil
}

func unify(a, b types.T) (types.T, bool) {
	if a == b {
		return a, true
	}
	if a.IsNumeric() && b.IsNumeric() {
		if a.ID == types.Numeric && b.ID == types.Numeric {
			if a.DynNumeric() || b.DynNumeric() {
				return types.NumericAnyT, true
			}
			return types.T{ID: types.Numeric, Scale: max(a.Scale, b.Scale)}, true
		}
		if numRank(a) >= numRank(b) {
			if a.ID == types.Numeric && b.IsInteger() {
				return a, true
			}
			return a, true
		}
		return b, true
	}
	if a.ID == types.Text && b.ID == types.Text {
		return types.TextT, true
	}
	isTime := func(t types.T) int {
		switch t.ID {
		case types.Date:
			return 1
		case types.Timestamp:
			return 2
		case types.Timestamptz:
			return 3
		}
		return 0
	}
	if isTime(a) > 0 && isTime(b) > 0 {
		if isTime(a) > isTime(b) {
			return a, true
		}
		return b, true
	}
	if a.ID == b.ID {
		return a, true
	}
	return a, false
}

func (b *Binder) bindAExpr(a *pg.A_Expr, sc *Scope) (exec.Expr, error) {
	name := ""
	if len(a.Name) > 0 {
		name = StrNodes(a.Name)[len(StrNodes(a.Name))-1]
	}
	switch a.Kind {
	case pg.A_Expr_Kind_AEXPR_OP:
		if l, r := a.Lexpr.GetRowExpr(), a.Rexpr.GetRowExpr(); l != nil && r != nil {
			n, err := rowComparison(name, l, r, a.Location) // rowvalue.go
			if err != nil {
				return nil, err
			}
			return b.Bind(n, sc)
		}
		if a.Lexpr == nil {
			r, err := b.Bind(a.Rexpr, sc)
			if err != nil {
				return nil, err
			}
			if name == "~" {
				if e, ok, err := b.bitNot(r, a.Location); ok || err != nil {
					return e, err
				}
			}
			switch name {
			case "|/", "||/", "@":
				fnName := map[string]string{"|/": "sqrt", "||/": "cbrt", "@": "abs"}[name]
				return b.callLibrary(fnName, []exec.Expr{r}, a.Location)
			case "-":
				if c, ok := r.(*exec.Const); ok && !c.IsNull() && c.V.Type.IsNumeric() {
					v, err := (&exec.Neg{E: c}).Eval(b.Env, &vec.Batch{N: 1})
					if err != nil {
						return nil, err
					}
					return exec.NewConst(v), nil
				}
				if r.Type().ID == types.Unknown {
					if r, err = b.Cast(r, types.Float64T, false, a.Location); err != nil {
						return nil, err
					}
				}
				if !r.Type().IsNumeric() {
					o, casts, ret, err := fn.ResolvePrefix("-", r.Type())
					if err != nil {
						if pe, ok := pgerr.As(err); ok {
							return nil, ErrAt(pe, a.Location)
						}
						return nil, err
					}
					return b.applyOverload(o, []exec.Expr{r}, casts, ret, a.Location)
				}
				return &exec.Neg{E: r}, nil
			case "+":
				return r, nil
			}
			return nil, ErrAt(pgerr.New(pgerr.UndefinedFunction, "operator does not exist: %s %s", name, r.Type()), a.Location)
		}
		l, err := b.Bind(a.Lexpr, sc)
		if err != nil {
			return nil, err
		}
		r, err := b.Bind(a.Rexpr, sc)
		if err != nil {
			return nil, err
		}
		return b.BinaryOp(name, l, r, a.Location)
	case pg.A_Expr_Kind_AEXPR_IN:
		l, err := b.Bind(a.Lexpr, sc)
		if err != nil {
			return nil, err
		}
		list := a.Rexpr.GetList()
		if list == nil {
			return nil, ErrAt(pgerr.New(pgerr.FeatureNotSupported, "IN (subquery) is not supported yet"), a.Location)
		}
		if in, ok, err := b.constInList(l, list.Items, name == "<>", a.Location); err != nil || ok {
			return in, err
		}
		var ors []exec.Expr
		rs := make([]exec.Expr, len(list.Items))
		for i, item := range list.Items {
			if rs[i], err = b.Bind(item, sc); err != nil {
				return nil, err
			}
		}
		if rs, err = b.castDateItems(l, rs, a.Location); err != nil {
			return nil, err
		}
		for _, r := range rs {
			eq, err := b.BinaryOp("=", l, r, a.Location)
			if err != nil {
				return nil, err
			}
			ors = append(ors, eq)
		}
		var e exec.Expr = &exec.Logic{Args: ors}
		if name == "<>" {
			e = &exec.Not{E: e}
		}
		return e, nil
	case pg.A_Expr_Kind_AEXPR_LIKE, pg.A_Expr_Kind_AEXPR_ILIKE:
		l, err := b.Bind(a.Lexpr, sc)
		if err != nil {
			return nil, err
		}
		r, err := b.Bind(a.Rexpr, sc)
		if err != nil {
			return nil, err
		}
		if l, err = b.toText(l, a.Location, "~~"); err != nil {
			return nil, err
		}
		if r, err = b.toText(r, a.Location, "~~"); err != nil {
			return nil, err
		}
		not := name == "!~~" || name == "!~~*"
		return &exec.Like{E: l, Pattern: r, Not: not, Fold: a.Kind == pg.A_Expr_Kind_AEXPR_ILIKE}, nil
	case pg.A_Expr_Kind_AEXPR_OP_ANY, pg.A_Expr_Kind_AEXPR_OP_ALL:
		arr := a.Rexpr.GetAArrayExpr()
		l, err := b.Bind(a.Lexpr, sc)
		if err != nil {
			return nil, err
		}
		any := a.Kind == pg.A_Expr_Kind_AEXPR_OP_ANY
		if arr == nil {
			// an array value: lakepg has arrays only in PostgreSQL's text form
			r, err := b.Bind(a.Rexpr, sc)
			if err != nil {
				return nil, err
			}
			if r.Type().ID != types.Text {
				return b.bindAnyArray(name, l, r, any, a.Location)
			}
			op, ok := cmpOps[name]
			if !ok || (r.Type().ID != types.Text && r.Type().ID != types.Unknown) {
				return nil, ErrAt(pgerr.New(pgerr.FeatureNotSupported, "%s %s (array value) is not supported yet", name, map[bool]string{true: "ANY", false: "ALL"}[any]), a.Location)
			}
			if r, err = b.Cast(r, types.TextT, false, a.Location); err != nil {
				return nil, err
			}
			if l.Type().ID == types.Unknown {
				if l, err = b.Cast(l, types.TextT, false, a.Location); err != nil {
					return nil, err
				}
			}
			return &exec.AnyText{L: l, R: r, Op: op, All: !any}, nil
		}
		if any && name == "=" {
			if in, ok, err := b.constInList(l, arr.Elements, false, a.Location); err != nil || ok {
				return in, err
			}
		}
		if len(arr.Elements) == 0 {
			return exec.NewConst(BoolVec(!any)), nil
		}
		var terms []exec.Expr
		for _, el := range arr.Elements {
			r, err := b.Bind(el, sc)
			if err != nil {
				return nil, err
			}
			c, err := b.BinaryOp(name, l, r, a.Location)
			if err != nil {
				return nil, err
			}
			terms = append(terms, c)
		}
		return &exec.Logic{And: !any, Args: terms}, nil
	case pg.A_Expr_Kind_AEXPR_SIMILAR:
		// the parser wraps the pattern in similar_to_escape(); the operator is ~ or !~
		l, err := b.Bind(a.Lexpr, sc)
		if err != nil {
			return nil, err
		}
		r, err := b.Bind(a.Rexpr, sc)
		if err != nil {
			return nil, err
		}
		return b.BinaryOp(name, l, r, a.Location)
	case pg.A_Expr_Kind_AEXPR_BETWEEN, pg.A_Expr_Kind_AEXPR_NOT_BETWEEN,
		pg.A_Expr_Kind_AEXPR_BETWEEN_SYM, pg.A_Expr_Kind_AEXPR_NOT_BETWEEN_SYM:
		x, err := b.Bind(a.Lexpr, sc)
		if err != nil {
			return nil, err
		}
		bounds := a.Rexpr.GetList().Items
		lo, err := b.Bind(bounds[0], sc)
		if err != nil {
			return nil, err
		}
		hi, err := b.Bind(bounds[1], sc)
		if err != nil {
			return nil, err
		}
		ge, err := b.BinaryOp(">=", x, lo, a.Location)
		if err != nil {
			return nil, err
		}
		le, err := b.BinaryOp("<=", x, hi, a.Location)
		if err != nil {
			return nil, err
		}
		var e exec.Expr = &exec.Logic{And: true, Args: []exec.Expr{ge, le}}
		if a.Kind == pg.A_Expr_Kind_AEXPR_BETWEEN_SYM || a.Kind == pg.A_Expr_Kind_AEXPR_NOT_BETWEEN_SYM {
			// SYMMETRIC: either order of the bounds, as PostgreSQL's
			// parser expands it
			geHi, err := b.BinaryOp(">=", x, hi, a.Location)
			if err != nil {
				return nil, err
			}
			leLo, err := b.BinaryOp("<=", x, lo, a.Location)
			if err != nil {
				return nil, err
			}
			e = &exec.Logic{Args: []exec.Expr{e, &exec.Logic{And: true, Args: []exec.Expr{geHi, leLo}}}}
		}
		if a.Kind == pg.A_Expr_Kind_AEXPR_NOT_BETWEEN || a.Kind == pg.A_Expr_Kind_AEXPR_NOT_BETWEEN_SYM {
			e = &exec.Not{E: e}
		}
		return e, nil
	case pg.A_Expr_Kind_AEXPR_DISTINCT, pg.A_Expr_Kind_AEXPR_NOT_DISTINCT:
		l, err := b.Bind(a.Lexpr, sc)
		if err != nil {
			return nil, err
		}
		r, err := b.Bind(a.Rexpr, sc)
		if err != nil {
			return nil, err
		}
		eq, err := b.BinaryOp("=", l, r, a.Location)
		if err != nil {
			return nil, err
		}
		// NOT DISTINCT: both NULL, or both non-NULL and equal
		bothNull := &exec.Logic{And: true, Args: []exec.Expr{&exec.IsNull{E: l}, &exec.IsNull{E: r}}}
		bothVal := &exec.Logic{And: true, Args: []exec.Expr{&exec.IsNull{E: l, Not: true}, &exec.IsNull{E: r, Not: true}, eq}}
		var e exec.Expr = &exec.Coalesce{Args: []exec.Expr{&exec.Logic{Args: []exec.Expr{bothNull, bothVal}}, exec.NewConst(BoolVec(false))}, T: types.BoolT}
		if a.Kind == pg.A_Expr_Kind_AEXPR_DISTINCT {
			e = &exec.Not{E: e}
		}
		return e, nil
	case pg.A_Expr_Kind_AEXPR_NULLIF:
		l, err := b.Bind(a.Lexpr, sc)
		if err != nil {
			return nil, err
		}
		r, err := b.Bind(a.Rexpr, sc)
		if err != nil {
			return nil, err
		}
		eq, err := b.BinaryOp("=", l, r, a.Location)
		if err != nil {
			return nil, err
		}
		// the result has the type "=" coerced the left operand to (nullif(1,
		// 1.0) is numeric); the integer, float and time families compare
		// across their members without coercion
		lt, rt := l.Type(), r.Type()
		if c, ok := eq.(*exec.Cmp); ok && (lt.IsInteger() && !rt.IsInteger() || lt.ID == types.Numeric && rt.IsFloat()) {
			l = c.L
			if l.Type().ID == types.Numeric && !l.Type().DynNumeric() {
				if l, err = b.Cast(l, types.NumericAnyT, false, a.Location); err != nil {
					return nil, err
				}
			}
		}
		return &exec.Case{When: []exec.Expr{eq}, Then: []exec.Expr{exec.NullConst(l.Type())}, Else: l, T: l.Type()}, nil
	}
	return nil, ErrAt(pgerr.New(pgerr.FeatureNotSupported, "operator kind %s is not supported yet", a.Kind), a.Location)
}

func BoolVec(x bool) *vec.Vector {
	v := vec.New(types.BoolT, 1)
	v.AppendBool(x)
	return v
}

func (b *Binder) toText(e exec.Expr, loc int32, op string) (exec.Expr, error) {
	switch e.Type().ID {
	case types.Text:
		return e, nil
	case types.Unknown:
		return b.Cast(e, types.TextT, false, loc)
	}
	return nil, ErrAt(pgerr.New(pgerr.UndefinedFunction, "operator does not exist: %s %s unknown", e.Type(), op), loc)
}

var cmpOps = map[string]exec.CmpOp{"=": exec.EQ, "<>": exec.NE, "!=": exec.NE, "<": exec.LT, "<=": exec.LE, ">": exec.GT, ">=": exec.GE}

// BinaryOp resolves an operator and its operand types.
func (b *Binder) BinaryOp(op string, l, r exec.Expr, loc int32) (exec.Expr, error) {
	if e, ok, err := b.arrayOp(op, l, r, loc); ok || err != nil {
		return e, err
	}
	if e, ok, err := b.jsonOp(op, l, r, loc); ok || err != nil {
		return e, err // json_ops.go
	}
	lt, rt := l.Type(), r.Type()
	// beside ||, an unknown literal is text (anynonarray || text)
	if op == "||" && (lt.ID == types.Unknown) != (rt.ID == types.Unknown) {
		var err error
		if lt.ID == types.Unknown {
			l, err = b.Cast(l, types.TextT, false, loc)
			lt = types.TextT
		} else {
			r, err = b.Cast(r, types.TextT, false, loc)
			rt = types.TextT
		}
		if err != nil {
			return nil, err
		}
	}
	// an unknown literal takes the other side's type
	if lt.ID == types.Unknown && rt.ID != types.Unknown {
		var err error
		if l, err = b.Cast(l, rt, false, loc); err != nil {
			return nil, err
		}
		lt = rt
	} else if rt.ID == types.Unknown && lt.ID != types.Unknown {
		var err error
		if r, err = b.Cast(r, lt, false, loc); err != nil {
			return nil, err
		}
		rt = lt
	} else if lt.ID == types.Unknown && rt.ID == types.Unknown {
		var err error
		if l, err = b.Cast(l, types.TextT, false, loc); err != nil {
			return nil, err
		}
		if r, err = b.Cast(r, types.TextT, false, loc); err != nil {
			return nil, err
		}
		lt, rt = types.TextT, types.TextT
	}
	noOp := func() error {
		e := pgerr.New(pgerr.UndefinedFunction, "operator does not exist: %s %s %s", lt, op, rt)
		e.Hint = "No operator matches the given name and argument types. You might need to add explicit type casts."
		return ErrAt(e, loc)
	}
	if cop, ok := cmpOps[op]; ok {
		t, ok := unify(lt, rt)
		if !ok || (lt.IsNumeric() != rt.IsNumeric()) || t.ID == types.JSON { // json has no comparisons
			return nil, noOp()
		}
		if t.Bpchar {
			t = types.TextT // character(n) compares without its trailing blanks
		}
		if t.ID == types.Numeric {
			// keep each side's own scale; Cmp compares exactly
			var err error
			if l, err = b.toNumeric(l, loc); err != nil {
				return nil, err
			}
			if r, err = b.toNumeric(r, loc); err != nil {
				return nil, err
			}
			return &exec.Cmp{Op: cop, L: l, R: r}, nil
		}
		if t.ID == types.Timestamp || t.ID == types.Timestamptz {
			// a date beyond the timestamps compares, it does not overflow
			if lt.ID == types.Date {
				l = &exec.DateClamp{E: l}
			}
			if rt.ID == types.Date {
				r = &exec.DateClamp{E: r}
			}
		}
		var err error
		if l, err = b.Cast(l, t, false, loc); err != nil {
			return nil, err
		}
		if r, err = b.Cast(r, t, false, loc); err != nil {
			return nil, err
		}
		return &exec.Cmp{Op: cop, L: l, R: r}, nil
	}
	if op == "^" {
		return b.callLibrary("power", []exec.Expr{l, r}, loc)
	}
	if !(lt.IsNumeric() && rt.IsNumeric()) && op != "||" {
		if o, casts, ret, err := fn.ResolveOperator(op, lt, rt); err == nil {
			return b.applyOverload(o, []exec.Expr{l, r}, casts, ret, loc)
		}
	}
	switch op {
	case "+", "-", "*", "/", "%":
		if !lt.IsNumeric() || !rt.IsNumeric() {
			return nil, noOp()
		}
		var t types.T
		switch {
		case lt.IsFloat() || rt.IsFloat():
			t = types.Float64T
			if lt.ID == types.Float32 && rt.ID == types.Float32 {
				t = types.Float32T
			}
		case lt.ID == types.Numeric || rt.ID == types.Numeric:
			ls, rs := numScale(lt), numScale(rt)
			switch {
			case ls < 0 || rs < 0 || op == "/":
				t = types.NumericAnyT
			case op == "*" && ls+rs > maxFixedProductScale:
				t = types.NumericAnyT
			case op == "*":
				t = types.T{ID: types.Numeric, Scale: ls + rs}
			default:
				t = types.T{ID: types.Numeric, Scale: max(ls, rs)}
			}
			if t.Scale > types.MaxInt64Precision {
				t = types.NumericAnyT
			}
			var err error
			if l, err = b.toNumeric(l, loc); err != nil {
				return nil, err
			}
			if r, err = b.toNumeric(r, loc); err != nil {
				return nil, err
			}
			return b.foldConst(&exec.Arith{Op: exec.ArithOp(op[0]), L: l, R: r, T: t}), nil
		default:
			t = lt
			if numRank(rt) > numRank(lt) {
				t = rt
			}
		}
		var err error
		if l, err = b.Cast(l, t, false, loc); err != nil {
			return nil, err
		}
		if r, err = b.Cast(r, t, false, loc); err != nil {
			return nil, err
		}
		return b.foldConst(&exec.Arith{Op: exec.ArithOp(op[0]), L: l, R: r, T: t}), nil
	case "||":
		if lt.ID != types.Text || rt.ID != types.Text {
			if o, casts, ret, err := fn.ResolveOperator(op, lt, rt); err == nil {
				return b.applyOverload(o, []exec.Expr{l, r}, casts, ret, loc)
			}
		}
		var err error
		if l, err = b.Cast(l, types.TextT, false, loc); err != nil {
			return nil, err
		}
		if r, err = b.Cast(r, types.TextT, false, loc); err != nil {
			return nil, err
		}
		return &exec.Func{Name: "textcat", Args: []exec.Expr{l, r}, T: types.TextT, Fn: exec.Concat}, nil
	case "~~", "!~~", "~~*", "!~~*":
		var err error
		if l, err = b.toText(l, loc, op); err != nil {
			return nil, err
		}
		if r, err = b.toText(r, loc, op); err != nil {
			return nil, err
		}
		return &exec.Like{E: l, Pattern: r, Not: op[0] == '!', Fold: strings.HasSuffix(op, "*")}, nil
	}
	if e, ok, err := b.bitwiseOp(op, l, r, loc); ok || err != nil {
		return e, err
	}
	return nil, noOp()
}

// numScale is the scale an operand brings to numeric arithmetic; -1 (per
// value) for bigint, whose 19 digits do not fit a scaled int64 numeric.
// maxFixedProductScale is the largest scale a product of fixed-scale
// numerics keeps as a scaled int64. Every digit of scale is one digit fewer
// for the integer part, and a product's scale is its operands' together, so
// a fixed-scale product of a large value and a constant written with many
// decimals overflowed int64 and failed with 22003 where PostgreSQL, whose
// products are unconstrained, does not (TPC-H Q11 at SF10: a sum of 2·10^13
// times 0.0001000000 is 2·10^9 at scale 12). Past it the product is an
// unconstrained numeric, printed alike; money times two rates (scale 6)
// stays fixed.
const maxFixedProductScale = 6

func numScale(t types.T) int {
	switch t.ID {
	case types.Numeric:
		return t.Scale
	case types.Int64:
		return -1
	}
	return 0
}

func (b *Binder) toNumeric(e exec.Expr, loc int32) (exec.Expr, error) {
	switch e.Type().ID {
	case types.Numeric:
		return e, nil
	case types.Int64:
		// 19 digits, still a scaled int64: arithmetic with other fixed-scale
		// numerics stays on int64s (TPC-DS q14's ss_quantity *
		// ss_list_price went through text and big.Int per row)
		return b.Cast(e, types.T{ID: types.Numeric, Precision: 19, Scale: 0}, false, loc)
	}
	return b.Cast(e, types.T{ID: types.Numeric, Precision: 18, Scale: 0}, false, loc)
}

func (b *Binder) bindCase(c *pg.CaseExpr, sc *Scope) (exec.Expr, error) {
	var arg exec.Expr
	var err error
	if c.Arg != nil {
		if arg, err = b.Bind(c.Arg, sc); err != nil {
			return nil, err
		}
	}
	out := &exec.Case{}
	var results []exec.Expr
	for _, w := range c.Args {
		cw := w.GetCaseWhen()
		cond, err := b.Bind(cw.Expr, sc)
		if err != nil {
			return nil, err
		}
		if arg != nil {
			if cond, err = b.BinaryOp("=", arg, cond, cw.Location); err != nil {
				return nil, err
			}
		} else if cond, err = b.CoerceBool(cond, cw.Expr, "argument of CASE/WHEN"); err != nil {
			return nil, err
		}
		res, err := b.Bind(cw.Result, sc)
		if err != nil {
			return nil, err
		}
		out.When = append(out.When, cond)
		results = append(results, res)
	}
	if c.Defresult != nil {
		e, err := b.Bind(c.Defresult, sc)
		if err != nil {
			return nil, err
		}
		results = append(results, e)
	}
	t, err := CommonType(results, "CASE", c.Location)
	if err != nil {
		return nil, err
	}
	for i := range results {
		if results[i], err = b.Cast(results[i], t, false, c.Location); err != nil {
			return nil, err
		}
	}
	out.Then = results[:len(out.When)]
	if c.Defresult != nil {
		out.Else = results[len(results)-1]
	}
	out.T = t
	if e := constantCase(b.Env, out); e != nil {
		return e, nil
	}
	return out, nil
}

// constantCase is the branch a CASE always takes when its leading
// conditions are constants (a simple CASE's are when its operand and the
// values compared with it are: CASE 0 WHEN 1 …): PostgreSQL's planner
// drops the branches after a WHEN that is constant true and those whose
// WHEN is constant false or NULL (eval_const_expressions), so no subquery
// or error of theirs is ever evaluated. nil when a condition before the
// taken branch reads a row.
func constantCase(env *exec.Env, c *exec.Case) exec.Expr {
	for k, w := range c.When {
		v, null, ok := exec.ConstantBool(env, w)
		if !ok {
			return nil
		}
		if !null && v {
			return c.Then[k]
		}
	}
	if c.Else != nil {
		return c.Else
	}
	return exec.NullConst(c.T)
}

func (b *Binder) bindSQLValueFunc(f *pg.SQLValueFunction) (exec.Expr, error) {
	now := b.Env.Now
	switch f.Op {
	case pg.SQLValueFunctionOp_SVFOP_CURRENT_DATE:
		t := now.In(b.Env.Loc)
		y, m, d := t.Date()
		days := timeDays(y, int(m), d)
		return ConstOf(types.DateT, func(v *vec.Vector) { v.AppendInt(days) }), nil
	case pg.SQLValueFunctionOp_SVFOP_CURRENT_TIMESTAMP, pg.SQLValueFunctionOp_SVFOP_CURRENT_TIMESTAMP_N:
		return ConstOf(types.TimestamptzT, func(v *vec.Vector) { v.AppendInt(now.UnixMicro()) }), nil
	case pg.SQLValueFunctionOp_SVFOP_LOCALTIMESTAMP, pg.SQLValueFunctionOp_SVFOP_LOCALTIMESTAMP_N:
		_, off := now.In(b.Env.Loc).Zone()
		return ConstOf(types.TimestampT, func(v *vec.Vector) { v.AppendInt(now.UnixMicro() + int64(off)*1e6) }), nil
	case pg.SQLValueFunctionOp_SVFOP_CURRENT_USER, pg.SQLValueFunctionOp_SVFOP_SESSION_USER, pg.SQLValueFunctionOp_SVFOP_USER, pg.SQLValueFunctionOp_SVFOP_CURRENT_ROLE:
		u := b.Sess.SessionHost().CurrentRole() // SET ROLE (sql/privileges/privileges.go)
		if f.Op == pg.SQLValueFunctionOp_SVFOP_SESSION_USER {
			u = b.Sess.SessionUser()
		}
		return ConstOf(types.NameT, func(v *vec.Vector) { v.AppendString(u) }), nil
	case pg.SQLValueFunctionOp_SVFOP_CURRENT_SCHEMA:
		s := b.Sess.SessionHost().SearchPath()[0]
		return ConstOf(types.NameT, func(v *vec.Vector) { v.AppendString(s) }), nil
	case pg.SQLValueFunctionOp_SVFOP_CURRENT_CATALOG:
		d := b.Sess.SessionDatabase()
		return ConstOf(types.NameT, func(v *vec.Vector) { v.AppendString(d) }), nil
	}
	return nil, pgerr.New(pgerr.FeatureNotSupported, "%s is not supported yet", f.Op)
}

func (e *paramExpr) MapColumns(func(int) int) exec.Expr { return e }

// intervalQualifier applies a field qualifier such as interval '90' day: a
// bare number counts in the named unit, as PostgreSQL reads it.
func intervalQualifier(arg exec.Expr, tn *pg.TypeName) exec.Expr {
	c, ok := arg.(*exec.Const)
	if !ok || c.V.Type.ID != types.Unknown || c.IsNull() || len(tn.Typmods) == 0 {
		return arg
	}
	ac := tn.Typmods[0].GetAConst()
	if ac == nil || ac.GetIval() == nil {
		return arg
	}
	unit := map[int32]string{1 << 2: "years", 1 << 1: "months", 1 << 3: "days", 1 << 10: "hours", 1 << 11: "minutes", 1 << 12: "seconds"}[ac.GetIval().Ival]
	text := strings.TrimSpace(c.V.S[0])
	if unit == "" {
		return arg
	}
	if _, err := strconv.ParseFloat(text, 64); err != nil {
		return arg
	}
	return ConstOf(types.UnknownT, func(v *vec.Vector) { v.AppendString(text + " " + unit) })
}

// castDateItems casts the date constants of an IN list whose common type
// is a timestamp to it: PostgreSQL compares with an array of that type, so
// it folds the cast while planning and fails for a date past the
// timestamps ('5874897-12-31'), where a comparison alone would not.
func (b *Binder) castDateItems(l exec.Expr, rs []exec.Expr, loc int32) ([]exec.Expr, error) {
	ct, err := CommonType(append([]exec.Expr{l}, rs...), "IN", loc)
	if err != nil || ct.ID != types.Timestamp && ct.ID != types.Timestamptz {
		return rs, nil // the comparisons report what does not compare
	}
	for i, r := range rs {
		if k, ok := r.(*exec.Const); ok && !k.Param && k.Type().ID == types.Date {
			if rs[i], err = b.Cast(r, ct, false, loc); err != nil {
				return nil, err
			}
		}
	}
	return rs, nil
}

// constInList binds x IN (constants) as one membership test when every item
// is a constant of (or castable to) x's type.
func (b *Binder) constInList(x exec.Expr, items []*pg.Node, not bool, loc int32) (exec.Expr, bool, error) {
	t := x.Type()
	if t.ID == types.Unknown || t.DynNumeric() {
		return nil, false, nil
	}
	list := vec.New(t, len(items))
	for _, it := range items {
		e, err := b.Bind(it, &Scope{})
		if err != nil {
			return nil, false, nil // not a constant: the general path reports errors
		}
		k, ok := e.(*exec.Const)
		if !ok {
			return nil, false, nil
		}
		if k.V.Type.ID != types.Unknown && k.V.Type.ID != t.ID {
			if !(k.V.Type.IsNumeric() && t.IsNumeric()) || t.IsInteger() != k.V.Type.IsInteger() {
				return nil, false, nil
			}
		}
		c, err := b.Cast(k, t, false, loc)
		if err != nil {
			if k.V.Type.ID != types.Unknown {
				// a typed constant beyond the column's type (a bigint
				// past integer): compared as its own type, row by row
				return nil, false, nil
			}
			return nil, false, err
		}
		cv, ok := c.(*exec.Const)
		if !ok {
			return nil, false, nil
		}
		// an exact conversion only: 2.5 must not match the integer 2
		if k.V.Type.ID != types.Unknown && !k.IsNull() {
			back, err := exec.CastVector(b.Env, cv.V, 1, k.V.Type, false)
			if err != nil || exec.CompareRows(back, 0, k.V, 0) != 0 {
				return nil, false, nil
			}
		}
		list.AppendFrom(cv.V, 0)
	}
	return &exec.InList{E: x, List: list, Not: not}, true, nil
}

// EachMessage calls fn on m and every message below it.
//
// The fields are visited in field number order: Range's order is undefined,
// and the shared scalar subqueries of TPC-H and TPC-DS queries were
// numbered in another order from one run to the next. (Walking the
// descriptor's fields instead asks each of a Node's hundreds of oneof
// fields whether it is set: TPC-DS q41 planned in 8 ms instead of 2.)
func EachMessage(m protoreflect.Message, fn func(protoreflect.Message)) {
	fn(m)
	type field struct {
		fd protoreflect.FieldDescriptor
		v  protoreflect.Value
	}
	var buf [8]field
	fields := buf[:0]
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if fd.Message() != nil && !fd.IsMap() {
			fields = append(fields, field{fd, v})
		}
		return true
	})
	for i := 1; i < len(fields); i++ {
		for j := i; j > 0 && fields[j].fd.Number() < fields[j-1].fd.Number(); j-- {
			fields[j], fields[j-1] = fields[j-1], fields[j]
		}
	}
	for _, f := range fields {
		if f.fd.IsList() {
			l := f.v.List()
			for i := 0; i < l.Len(); i++ {
				EachMessage(l.Get(i).Message(), fn)
			}
			continue
		}
		EachMessage(f.v.Message(), fn)
	}
}

// bindSubLink binds a subquery inside an expression through the planner
// (QueryCtx.BindSubLink); without one, subqueries are not allowed here.
func (b *Binder) bindSubLink(sl *pg.SubLink, sc *Scope) (exec.Expr, error) {
	if b.Qc == nil {
		return nil, ErrAt(pgerr.New(pgerr.FeatureNotSupported, "subqueries are not allowed here"), sl.Location)
	}
	return b.Qc.BindSubLink(b, sl, sc)
}

// OuterColumn resolves a column reference that failed (err) in its own
// query against the enclosing rows of the planner's per-key planning
// (QueryCtx.OuterColumn); ok is false when none has it.
func (b *Binder) OuterColumn(names []string, loc int32, err error) (exec.Expr, bool, error) {
	if b.Qc == nil {
		return nil, false, nil
	}
	return b.Qc.OuterColumn(b, names, loc, err)
}

func (sc *Scope) Resolves(table, col string) bool {
	for _, c := range sc.Cols {
		if c.Name == col && (table == "" && (!c.Hidden || c.System) || table != "" && c.Table == table) {
			return true
		}
	}
	return false
}
