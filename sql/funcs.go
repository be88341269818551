package sql

import (
	"fmt"
	"math"
	"strings"
	"time"
	"unicode/utf8"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

var aggKinds = map[string]exec.AggKind{"count": exec.AggCount, "sum": exec.AggSum, "avg": exec.AggAvg, "min": exec.AggMin, "max": exec.AggMax}

func funcName(f *pg.FuncCall) string {
	names := strNodes(f.Funcname)
	if len(names) == 2 && names[0] == "pg_catalog" {
		return names[1]
	}
	return strings.Join(names, ".")
}

func timeDays(y, m, d int) int64 {
	return time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC).Unix() / 86400
}

func (b *binder) bindFunc(f *pg.FuncCall, sc *scope) (exec.Expr, error) {
	name := funcName(f)
	if kind, ok := aggKinds[name]; ok {
		if b.aggs == nil {
			msg := b.noAggMsg
			if msg == "" {
				msg = "aggregate functions are not allowed here"
			}
			return nil, errAt(pgerr.New(pgerr.GroupingError, "%s", msg), f.Location)
		}
		return b.aggs.add(b, kind, f, sc)
	}
	if f.Over != nil {
		return nil, errAt(pgerr.New(pgerr.FeatureNotSupported, "window functions are not supported yet"), f.Location)
	}
	var args []exec.Expr
	for _, a := range f.Args {
		e, err := b.bind(a, sc)
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
		return errAt(e, f.Location)
	}
	textArg := func(i int) error {
		if i >= len(args) {
			return wrongArgs()
		}
		t := args[i].Type()
		if t.ID != types.Text && t.ID != types.Unknown {
			return wrongArgs()
		}
		var err error
		args[i], err = b.cast(args[i], types.TextT, false, f.Location)
		return err
	}
	switch name {
	case "lower", "upper":
		if len(args) != 1 || textArg(0) != nil {
			return nil, wrongArgs()
		}
		fn := strings.ToLower
		if name == "upper" {
			fn = strings.ToUpper
		}
		return &exec.Func{Name: name, Args: args, T: types.TextT, Fn: func(out *vec.Vector, a []*vec.Vector, i int) error {
			out.AppendString(fn(a[0].S[i]))
			return nil
		}}, nil
	case "length", "char_length", "character_length":
		if len(args) != 1 || textArg(0) != nil {
			return nil, wrongArgs()
		}
		return &exec.Func{Name: name, Args: args, T: types.Int32T, Fn: func(out *vec.Vector, a []*vec.Vector, i int) error {
			out.AppendInt(int64(utf8.RuneCountInString(a[0].S[i])))
			return nil
		}}, nil
	case "abs":
		if len(args) != 1 || !args[0].Type().IsNumeric() {
			return nil, wrongArgs()
		}
		t := args[0].Type()
		return &exec.Func{Name: name, Args: args, T: t, Fn: func(out *vec.Vector, a []*vec.Vector, i int) error {
			switch t.Storage() {
			case types.StoreInt:
				x := a[0].I64[i]
				if x < 0 {
					x = -x
				}
				out.AppendInt(x)
			case types.StoreFloat:
				out.AppendFloat(math.Abs(a[0].F64[i]))
			default:
				out.AppendString(strings.TrimPrefix(a[0].S[i], "-"))
			}
			return nil
		}}, nil
	case "now", "transaction_timestamp", "statement_timestamp":
		if len(args) != 0 {
			return nil, wrongArgs()
		}
		now := b.env.Now
		return constOf(types.TimestamptzT, func(v *vec.Vector) { v.AppendInt(now.UnixMicro()) }), nil
	case "version":
		v := "PostgreSQL " + ServerVersion + " on x86_64-pc-linux-gnu, lakepg"
		return constOf(types.TextT, func(x *vec.Vector) { x.AppendString(v) }), nil
	case "current_database":
		d := b.sess.database
		return constOf(types.TextT, func(x *vec.Vector) { x.AppendString(d) }), nil
	case "current_schema":
		s := b.sess.searchPath()[0]
		return constOf(types.TextT, func(x *vec.Vector) { x.AppendString(s) }), nil
	}
	return nil, wrongArgs()
}

// aggCollector gathers the aggregates of one SELECT and maps group-by
// expressions to the aggregate operator's output columns.
type aggCollector struct {
	groupKeys []string    // deparsed group expressions
	groupCols []int       // for plain column group keys: input column index (-1 otherwise)
	groups    []exec.Expr // bound against the input scope
	aggs      []exec.Agg
	aggArgs   []exec.Expr
	aggKeys   []string
}

func (c *aggCollector) add(b *binder, kind exec.AggKind, f *pg.FuncCall, sc *scope) (exec.Expr, error) {
	if f.AggDistinct {
		return nil, errAt(pgerr.New(pgerr.FeatureNotSupported, "DISTINCT aggregates are not supported yet"), f.Location)
	}
	if f.AggFilter != nil || len(f.AggOrder) > 0 {
		return nil, errAt(pgerr.New(pgerr.FeatureNotSupported, "aggregate FILTER/ORDER BY is not supported yet"), f.Location)
	}
	if f.Over != nil {
		return nil, errAt(pgerr.New(pgerr.FeatureNotSupported, "window functions are not supported yet"), f.Location)
	}
	key := deparseExpr(&pg.Node{Node: &pg.Node_FuncCall{FuncCall: f}})
	for k, existing := range c.aggKeys {
		if existing == key {
			return &exec.ColRef{Idx: len(c.groups) + k, T: c.aggs[k].Out}, nil
		}
	}
	var arg exec.Expr
	in := types.Int64T
	if f.AggStar {
		if kind != exec.AggCount {
			return nil, errAt(pgerr.New(pgerr.SyntaxError, "%s(*) is not allowed", funcName(f)), f.Location)
		}
		kind = exec.AggCountStar
	} else {
		if len(f.Args) != 1 {
			return nil, errAt(pgerr.New(pgerr.UndefinedFunction, "function %s with %d arguments does not exist", funcName(f), len(f.Args)), f.Location)
		}
		inner := *b
		inner.aggs = nil
		inner.noAggMsg = "aggregate function calls cannot be nested"
		e, err := inner.bind(f.Args[0], sc)
		if err != nil {
			return nil, err
		}
		if e.Type().ID == types.Unknown {
			t := types.TextT
			if kind == exec.AggSum || kind == exec.AggAvg {
				t = types.Float64T
			}
			if e, err = b.cast(e, t, false, f.Location); err != nil {
				return nil, err
			}
		}
		arg, in = e, e.Type()
	}
	out, err := exec.AggResultType(kind, in)
	if err != nil {
		if pe, ok := pgerr.As(err); ok {
			return nil, errAt(pe, f.Location)
		}
		return nil, err
	}
	c.aggs = append(c.aggs, exec.Agg{Kind: kind, In: in, Out: out})
	c.aggArgs = append(c.aggArgs, arg)
	c.aggKeys = append(c.aggKeys, key)
	return &exec.ColRef{Idx: len(c.groups) + len(c.aggs) - 1, T: out}, nil
}

// parseTreeVersion is the protobuf tree version Deparse insists on.
var parseTreeVersion = func() int32 {
	r, err := pg.Parse("SELECT 1")
	if err != nil {
		return 0
	}
	return r.Version
}()

// deparseExpr renders an expression back to SQL, location-free, so equal
// expressions written twice compare equal.
func deparseExpr(n *pg.Node) string {
	tree := &pg.ParseResult{Version: parseTreeVersion, Stmts: []*pg.RawStmt{{Stmt: &pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: &pg.SelectStmt{
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

// resolveTypeName maps a parsed type name to a lakepg type.
func resolveTypeName(tn *pg.TypeName) (types.T, error) {
	names := strNodes(tn.Names)
	name := names[len(names)-1]
	if len(tn.ArrayBounds) > 0 {
		return types.T{}, errAt(pgerr.New(pgerr.FeatureNotSupported, "array types are not supported yet"), tn.Location)
	}
	var mods []int64
	for _, m := range tn.Typmods {
		if c := m.GetAConst(); c != nil {
			if iv := c.GetIval(); iv != nil {
				mods = append(mods, int64(iv.Ival))
				continue
			}
		}
		return types.T{}, errAt(pgerr.New(pgerr.SyntaxError, "type modifiers must be simple constants"), tn.Location)
	}
	switch name {
	case "bool", "boolean":
		return types.BoolT, nil
	case "int2", "smallint":
		return types.Int16T, nil
	case "int4", "int", "integer":
		return types.Int32T, nil
	case "int8", "bigint":
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
				return types.T{}, errAt(pgerr.New(pgerr.InvalidParameterValue, "NUMERIC precision %d must be between 1 and 1000", p), tn.Location)
			}
			if s < 0 || s > p {
				return types.T{}, errAt(pgerr.New(pgerr.InvalidParameterValue, "NUMERIC scale %d must be between 0 and precision %d", s, p), tn.Location)
			}
			if p > types.MaxInt64Precision {
				return types.T{}, errAt(pgerr.New(pgerr.FeatureNotSupported, "numeric precision above %d is not supported yet", types.MaxInt64Precision), tn.Location)
			}
			return types.NumericT(p, s), nil
		}
	case "text":
		return types.TextT, nil
	case "varchar", "character varying":
		t := types.VarcharT
		if len(mods) == 1 {
			if mods[0] < 1 {
				return types.T{}, errAt(pgerr.New(pgerr.InvalidParameterValue, "length for type varchar must be at least 1"), tn.Location)
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
	case "uuid":
		return types.UUIDT, nil
	case "bpchar", "char", "character":
		return types.T{}, errAt(pgerr.New(pgerr.FeatureNotSupported, "type character(n) is not supported yet; use varchar(n) or text"), tn.Location)
	}
	return types.T{}, errAt(pgerr.New(pgerr.UndefinedObject, "type \"%s\" does not exist", name), tn.Location)
}
