package fn

import (
	"testing"

	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

var (
	unk  = types.UnknownT
	i2   = types.Int16T
	i4   = types.Int32T
	i8   = types.Int64T
	f4   = types.Float32T
	f8   = types.Float64T
	num  = types.NumericAnyT
	txt  = types.TextT
	dt   = types.DateT
	ts   = types.TimestampT
	tstz = types.TimestamptzT
	iv   = types.IntervalT
)

// Result types as PostgreSQL 15's pg_typeof reports them.
func TestResolveResultTypes(t *testing.T) {
	cases := []struct {
		name string
		args []types.T
		want string
	}{
		{"round", []types.T{i2}, "double precision"},
		{"abs", []types.T{i2}, "smallint"},
		{"mod", []types.T{i2, i4}, "integer"},
		{"power", []types.T{i4, num}, "numeric"},
		{"greatest", []types.T{i4, types.T{ID: types.Numeric, Scale: 1}}, "numeric"},
		{"greatest", []types.T{i8, i4}, "bigint"},
		{"sqrt", []types.T{i4}, "double precision"},
		{"exp", []types.T{i4}, "double precision"},
		{"date_part", []types.T{unk, tstz}, "double precision"},
		{"extract", []types.T{unk, tstz}, "numeric"},
		{"abs", []types.T{unk}, "double precision"},
		{"greatest", []types.T{i2, f4}, "real"},
		{"greatest", []types.T{tstz, dt}, "timestamp with time zone"},
		{"greatest", []types.T{types.VarcharT, types.VarcharT}, "character varying"},
		{"greatest", []types.T{unk, i4}, "integer"},
		{"trunc", []types.T{i4}, "double precision"},
		{"ceil", []types.T{i4}, "double precision"},
		{"sign", []types.T{i4}, "double precision"},
		{"log", []types.T{i4}, "double precision"},
		{"log", []types.T{i4, i4}, "numeric"},
		{"div", []types.T{i4, i4}, "numeric"},
		{"width_bucket", []types.T{i4, i4, i4, i4}, "integer"},
		{"to_char", []types.T{i4, unk}, "text"},
		{"age", []types.T{dt}, "interval"},
		{"date_trunc", []types.T{unk, dt}, "timestamp with time zone"},
		{"power", []types.T{i8, i8}, "double precision"},
		{"concat", []types.T{unk, i4, types.BoolT}, "text"},
		{"substring", []types.T{unk, unk}, "text"},
		{"regexp_replace", []types.T{txt, unk, unk, unk}, "text"},
		{"make_interval", nil, "interval"},
		{"pi", nil, "double precision"},
	}
	for _, c := range cases {
		_, _, rt, err := Resolve(c.name, c.args)
		if err != nil {
			t.Errorf("%s%v: %v", c.name, c.args, err)
			continue
		}
		if got := TypeName(rt); got != c.want {
			t.Errorf("%s%v = %s, want %s", c.name, c.args, got, c.want)
		}
	}
	ops := []struct {
		op   string
		l, r types.T
		want string
	}{
		{"||", i4, unk, "text"},
		{"+", dt, iv, "timestamp without time zone"},
		{"-", dt, i4, "date"},
		{"-", dt, dt, "integer"},
		{"-", ts, tstz, "interval"},
		{"-", tstz, unk, "interval"}, // unknown taken as timestamptz, as binary_oper_exact does
		{"*", iv, i4, "interval"},
		{"*", num, iv, "interval"},
		{"^", i4, i4, "double precision"},
		{"<", iv, unk, "boolean"},
		{"~", unk, unk, "boolean"},
	}
	for _, c := range ops {
		_, _, rt, err := ResolveOperator(c.op, c.l, c.r)
		if err != nil {
			t.Errorf("%s %s %s: %v", c.l, c.op, c.r, err)
			continue
		}
		if got := TypeName(rt); got != c.want {
			t.Errorf("%s %s %s = %s, want %s", c.l, c.op, c.r, got, c.want)
		}
	}
}

// Messages and hints, word for word as PostgreSQL 15 prints them.
func TestResolveErrors(t *testing.T) {
	type res struct {
		code, msg, hint string
	}
	noFunc := "No function matches the given name and argument types. You might need to add explicit type casts."
	noOp := "No operator matches the given name and argument types. You might need to add explicit type casts."
	check := func(what string, err error, want res) {
		t.Helper()
		pe, ok := pgerr.As(err)
		if !ok {
			t.Errorf("%s: %v, want %s", what, err, want.code)
			return
		}
		if pe.Code != want.code || pe.Message != want.msg || pe.Hint != want.hint {
			t.Errorf("%s: %s %q hint %q, want %s %q hint %q", what, pe.Code, pe.Message, pe.Hint, want.code, want.msg, want.hint)
		}
	}
	_, _, _, err := Resolve("lower", []types.T{i4})
	check("lower(int)", err, res{"42883", "function lower(integer) does not exist", noFunc})
	_, _, _, err = Resolve("concat", nil)
	check("concat()", err, res{"42883", "function concat() does not exist", noFunc})
	_, _, _, err = Resolve("substr", []types.T{unk, types.T{ID: types.Numeric, Scale: 1}})
	check("substr(unknown, numeric)", err, res{"42883", "function substr(unknown, numeric) does not exist", noFunc})
	_, _, _, err = Resolve("length", []types.T{types.NumericT(10, 2)})
	check("length(numeric(10,2))", err, res{"42883", "function length(numeric) does not exist", noFunc})
	_, _, _, err = Resolve("no_such_function", []types.T{types.VarcharT})
	check("no_such_function(varchar)", err, res{"42883", "function no_such_function(character varying) does not exist", noFunc})
	_, _, _, err = Resolve("greatest", []types.T{i4, txt})
	check("greatest(int, text)", err, res{"42804", "GREATEST types integer and text cannot be matched", ""})
	_, _, _, err = ResolveOperator("+", dt, i8)
	check("date + bigint", err, res{"42883", "operator does not exist: date + bigint", noOp})
	_, _, _, err = ResolveOperator("~", unk, i4)
	check("unknown ~ integer", err, res{"42883", "operator does not exist: unknown ~ integer", noOp})
	_, _, _, err = ResolveOperator("+", dt, unk)
	check("date + unknown", err, res{"42725", "operator is not unique: date + unknown",
		"Could not choose a best candidate operator. You might need to add explicit type casts."})
	_, _, _, err = ResolvePrefix("-", txt)
	check("- text", err, res{"42883", "operator does not exist: - text",
		"No operator matches the given name and argument type. You might need to add an explicit type cast."})
}

func TestCastTargets(t *testing.T) {
	// numeric arguments keep their own scale; integers become numeric scale
	// 0 (int8 dynamic, it may need 19 digits); unknown literals take the
	// parameter's type; "any" keeps the argument's type
	_, casts, _, err := Resolve("round", []types.T{types.NumericT(10, 3), unk})
	if err != nil || casts[0] != types.NumericT(10, 3) || casts[1] != i4 {
		t.Errorf("round(numeric(10,3), unknown) casts = %v, %v", casts, err)
	}
	_, casts, _, _ = Resolve("mod", []types.T{i8, types.T{ID: types.Numeric, Scale: 2}})
	if casts[0] != num || casts[1] != (types.T{ID: types.Numeric, Scale: 2}) {
		t.Errorf("mod(int8, numeric) casts = %v", casts)
	}
	_, casts, _, _ = Resolve("concat", []types.T{unk, types.BoolT, types.VarcharT})
	if casts[0] != txt || casts[1] != types.BoolT || casts[2] != types.VarcharT {
		t.Errorf("concat casts = %v", casts)
	}
	_, casts, _, _ = ResolveOperator("||", types.BoolT, unk)
	if casts[0] != txt || casts[1] != txt {
		t.Errorf("bool || unknown casts = %v", casts)
	}
}

func TestCommonType(t *testing.T) {
	cases := []struct {
		in   []types.T
		want types.T
	}{
		{[]types.T{unk, unk}, txt},
		{[]types.T{i2, i4}, i4},
		{[]types.T{i4, f8, num}, f8},
		{[]types.T{types.NumericT(10, 2), types.NumericT(10, 2)}, types.NumericT(10, 2)},
		{[]types.T{types.NumericT(10, 2), types.NumericT(12, 4), i4}, num}, // each value keeps its scale
		{[]types.T{types.NumericT(10, 2), i8}, num},
		{[]types.T{dt, ts}, ts},
		{[]types.T{tstz, ts, dt}, tstz},
		{[]types.T{types.VarcharT, txt}, txt},
		{[]types.T{iv, unk}, iv},
	}
	for _, c := range cases {
		got, err := CommonType(c.in, "CASE")
		if err != nil || got != c.want {
			t.Errorf("CommonType(%v) = %#v, %v; want %#v", c.in, got, err, c.want)
		}
	}
	if _, err := CommonType([]types.T{i4, dt}, "CASE"); pgerr.Code(err) != pgerr.DatatypeMismatch {
		t.Errorf("CommonType(int, date): %v", err)
	}
}

func TestExists(t *testing.T) {
	for _, name := range []string{"lower", "greatest", "date_trunc", "to_char", "regexp_replace"} {
		if !Exists(name) {
			t.Errorf("Exists(%q) = false", name)
		}
	}
	if Exists("no_such_function") {
		t.Error("Exists(no_such_function)")
	}
	if !OperatorExists("~*") || OperatorExists("%") {
		t.Error("OperatorExists")
	}
}
