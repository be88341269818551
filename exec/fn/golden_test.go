package fn

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// The golden test evaluates every call in testdata/calls.txt through
// Resolve / ResolveOperator / ResolvePrefix and the kernels, and compares the
// text output, result type and SQLSTATE with testdata/calls.golden, which
// was recorded from PostgreSQL 15:
//
//	go test ./exec/fn -run TestGolden -update -pg 'host=/tmp/pg port=5432 user=postgres dbname=fntest'
//
// where fntest was created with LC_COLLATE 'C' LC_CTYPE 'C.UTF-8': byte
// order, and Unicode case mapping as in any UTF-8 database.
//
// calls.txt syntax, one call per line:
//
//	@tz America/New_York                  session TimeZone for what follows
//	lower(text 'ABC')                     function call; arguments are
//	                                      <type> '<literal>', <type> NULL, NULL
//	                                      or unknown '<literal>' (an untyped literal)
//	op date '2020-01-01' + int4 '1'       binary operator
//	prefix - interval '1 day'             prefix operator
//
// A ⏎ in a literal stands for a newline.
var (
	update = flag.Bool("update", false, "rewrite testdata/calls.golden from PostgreSQL (needs -pg)")
	pgConn = flag.String("pg", "", "PostgreSQL connection string for -update")
)

type arg struct {
	typ  string // PostgreSQL type name, "unknown" for an untyped literal
	lit  string
	null bool
}

type call struct {
	line   string
	kind   string // "func", "op", "prefix"
	name   string
	args   []arg
	tz     string
	lineNo int
}

func splitTop(s string) []string {
	var parts []string
	depth, inQ, start := 0, false, 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case inQ:
			if c == '\'' {
				if i+1 < len(s) && s[i+1] == '\'' {
					i++
				} else {
					inQ = false
				}
			}
		case c == '\'':
			inQ = true
		case c == '(':
			depth++
		case c == ')':
			depth--
		case c == ',' && depth == 0:
			parts = append(parts, strings.TrimSpace(s[start:i]))
			start = i + 1
		}
	}
	if rest := strings.TrimSpace(s[start:]); rest != "" {
		parts = append(parts, rest)
	}
	return parts
}

func parseArg(s string) (arg, error) {
	s = strings.TrimSpace(s)
	if s == "NULL" {
		return arg{typ: "unknown", null: true}, nil
	}
	q := strings.IndexByte(s, '\'')
	if q < 0 {
		if strings.HasSuffix(s, " NULL") {
			return arg{typ: strings.TrimSpace(strings.TrimSuffix(s, " NULL")), null: true}, nil
		}
		return arg{}, fmt.Errorf("bad argument %q", s)
	}
	typ := strings.TrimSpace(s[:q])
	lit := strings.ReplaceAll(s[q+1:len(s)-1], "⏎", "\n")
	return arg{typ: typ, lit: strings.ReplaceAll(lit, "''", "'")}, nil
}

// takeArg reads one argument from the front of s (for operator lines).
func takeArg(s string) (string, string) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "NULL") {
		return "NULL", s[4:]
	}
	q := strings.IndexByte(s, '\'')
	if q < 0 {
		sp := strings.Index(s, " NULL")
		return s[:sp+5], s[sp+5:]
	}
	for i := q + 1; i < len(s); i++ {
		if s[i] == '\'' {
			if i+1 < len(s) && s[i+1] == '\'' {
				i++
				continue
			}
			return s[:i+1], s[i+1:]
		}
	}
	return s, ""
}

func loadCalls(t *testing.T) []call {
	f, err := os.Open("testdata/calls.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var calls []call
	tz := "UTC"
	sc := bufio.NewScanner(f)
	no := 0
	for sc.Scan() {
		no++
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasPrefix(line, "@tz ") {
			tz = strings.TrimSpace(line[4:])
			continue
		}
		c := call{line: line, tz: tz, lineNo: no}
		switch {
		case strings.HasPrefix(line, "op "):
			c.kind = "op"
			l, rest := takeArg(line[3:])
			rest = strings.TrimSpace(rest)
			sp := strings.IndexByte(rest, ' ')
			c.name = rest[:sp]
			r := strings.TrimSpace(rest[sp:])
			for _, s := range []string{l, r} {
				a, err := parseArg(s)
				if err != nil {
					t.Fatalf("line %d: %v", no, err)
				}
				c.args = append(c.args, a)
			}
		case strings.HasPrefix(line, "prefix "):
			c.kind = "prefix"
			rest := strings.TrimSpace(line[7:])
			sp := strings.IndexByte(rest, ' ')
			c.name = rest[:sp]
			a, err := parseArg(rest[sp:])
			if err != nil {
				t.Fatalf("line %d: %v", no, err)
			}
			c.args = []arg{a}
		default:
			c.kind = "func"
			p := strings.IndexByte(line, '(')
			c.name = line[:p]
			for _, s := range splitTop(line[p+1 : len(line)-1]) {
				a, err := parseArg(s)
				if err != nil {
					t.Fatalf("line %d: %v", no, err)
				}
				c.args = append(c.args, a)
			}
		}
		calls = append(calls, c)
	}
	return calls
}

func (a arg) sql() string {
	switch {
	case a.null && a.typ == "unknown":
		return "NULL"
	case a.null:
		return "NULL::" + a.typ
	case a.typ == "unknown":
		return "'" + strings.ReplaceAll(a.lit, "'", "''") + "'"
	}
	return "CAST('" + strings.ReplaceAll(a.lit, "'", "''") + "' AS " + a.typ + ")"
}

func (c call) sql() string {
	var parts []string
	for _, a := range c.args {
		parts = append(parts, a.sql())
	}
	switch c.kind {
	case "op":
		return "(" + parts[0] + ") " + c.name + " (" + parts[1] + ")"
	case "prefix":
		return c.name + " (" + parts[0] + ")"
	}
	// position and extract are keywords with their own call syntax
	switch {
	case c.name == "position" && len(parts) == 2:
		return "position(" + parts[1] + " IN " + parts[0] + ")"
	case c.name == "extract" && len(parts) == 2 && c.args[0].typ == "unknown" && !c.args[0].null:
		return "extract(" + c.args[0].lit + " FROM " + parts[1] + ")"
	}
	return c.name + "(" + strings.Join(parts, ", ") + ")"
}

// outcome is one recorded answer: "<type>\t<text>", "<type>\tNULL" or
// "ERROR <sqlstate>".
func recordGolden(t *testing.T, calls []call) {
	ctx := context.Background()
	conn, err := pgconn.Connect(ctx, *pgConn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var b strings.Builder
	b.WriteString("# recorded from " + serverVersion(t, conn) + " by go test -update; do not edit\n")
	for _, c := range calls {
		q := "SET TimeZone = '" + c.tz + "'; SET extra_float_digits = 1"
		if _, err := conn.Exec(ctx, q).ReadAll(); err != nil {
			t.Fatal(err)
		}
		expr := c.sql()
		res := conn.ExecParams(ctx, "SELECT "+expr+", pg_typeof("+expr+")::text", nil, nil, nil, []int16{0, 0}).Read()
		b.WriteString(c.line + "\n")
		var pe *pgconn.PgError
		switch {
		case errors.As(res.Err, &pe):
			b.WriteString("  -> ERROR " + pe.Code + "\n")
		case res.Err != nil:
			t.Fatalf("%s: %v", c.line, res.Err)
		default:
			row := res.Rows[0]
			val := "NULL"
			if row[0] != nil {
				val = "'" + strings.ReplaceAll(string(row[0]), "\n", "⏎") + "'"
			}
			b.WriteString("  -> " + string(row[1]) + "\t" + val + "\n")
		}
	}
	if err := os.WriteFile("testdata/calls.golden", []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

func serverVersion(t *testing.T, conn *pgconn.PgConn) string {
	res := conn.ExecParams(context.Background(), "SELECT version()", nil, nil, nil, nil).Read()
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	v := string(res.Rows[0][0])
	if i := strings.Index(v, " on "); i > 0 {
		v = v[:i]
	}
	return v
}

// loadGolden returns the recorded answers in calls.txt order.
func loadGolden(t *testing.T) [][2]string {
	data, err := os.ReadFile("testdata/calls.golden")
	if err != nil {
		t.Fatal(err)
	}
	var want [][2]string
	lines := strings.Split(string(data), "\n")
	for i := 0; i+1 < len(lines); i++ {
		if strings.HasPrefix(lines[i], "#") || lines[i] == "" {
			continue
		}
		if strings.HasPrefix(lines[i+1], "  -> ") {
			want = append(want, [2]string{lines[i], strings.TrimPrefix(lines[i+1], "  -> ")})
			i++
		}
	}
	return want
}

// typeByName maps the PostgreSQL type names calls.txt uses.
func typeByName(name string) (types.T, bool) {
	switch name {
	case "unknown":
		return types.UnknownT, true
	case "text":
		return types.TextT, true
	case "varchar":
		return types.VarcharT, true
	case "int2":
		return types.Int16T, true
	case "int4":
		return types.Int32T, true
	case "int8":
		return types.Int64T, true
	case "float8":
		return types.Float64T, true
	case "numeric":
		return types.NumericAnyT, true
	case "bool":
		return types.BoolT, true
	case "bytea":
		return types.ByteaT, true
	case "date":
		return types.DateT, true
	case "timestamp":
		return types.TimestampT, true
	case "timestamptz":
		return types.TimestamptzT, true
	case "interval":
		return types.IntervalT, true
	}
	if strings.HasPrefix(name, "numeric(") {
		var p, s int
		if _, err := fmt.Sscanf(name, "numeric(%d,%d)", &p, &s); err == nil {
			return types.NumericT(p, s), true
		}
	}
	return types.T{}, false
}

// literalType is the type the binder gives a literal: with fixedNumeric a
// numeric literal that fits is numeric with its own scale held as a scaled
// int64, the way the binder types 2.567.
func literalType(t types.T, a arg, fixedNumeric bool) types.T {
	if t.ID == types.Numeric && t.Scale < 0 && fixedNumeric && !a.null {
		d, s, err := types.ParseDecimal(a.lit)
		if err == nil && s <= 18 && d.IsInt64() && len(strings.TrimLeft(d.String(), "-")) <= 18 {
			return types.T{ID: types.Numeric, Scale: s}
		}
	}
	return t
}

// literal builds a one-row vector of type t from text, as the binder's
// casts of literals do.
func literal(t types.T, a arg, loc *time.Location) (*vec.Vector, error) {
	if a.null {
		v := vec.New(t, 1)
		v.AppendNull()
		return v, nil
	}
	v := vec.New(t, 1)
	s := a.lit
	var err error
	switch t.ID {
	case types.Text, types.Unknown:
		v.AppendString(s)
	case types.Bytea:
		var b string
		if b, err = types.ParseBytea(s); err == nil {
			v.AppendString(b)
		}
	case types.Int16, types.Int32, types.Int64:
		bits := map[types.ID]int{types.Int16: 16, types.Int32: 32, types.Int64: 64}[t.ID]
		var x int64
		if x, err = types.ParseInt(s, bits); err == nil {
			v.AppendInt(x)
		}
	case types.Float64:
		var f float64
		if f, err = types.ParseFloat(s, 64); err == nil {
			v.AppendFloat(f)
		}
	case types.Numeric:
		if t.Scale < 0 {
			var n string
			if n, err = types.NormalizeDecimal(s); err == nil {
				v.AppendString(n)
			}
		} else {
			p := t.Precision
			if p == 0 {
				p = types.MaxInt64Precision
			}
			var x int64
			if x, err = types.ParseNumeric(s, p, t.Scale); err == nil {
				v.AppendInt(x)
			}
		}
	case types.Bool:
		var b bool
		if b, err = types.ParseBool(s); err == nil {
			v.AppendBool(b)
		}
	case types.Date:
		var d int64
		if d, err = types.ParseDate(s); err == nil {
			v.AppendInt(d)
		}
	case types.Timestamp:
		var x int64
		if x, err = types.ParseTimestamp(s); err == nil {
			v.AppendInt(x)
		}
	case types.Timestamptz:
		var x int64
		if x, err = types.ParseTimestamptz(s, loc); err == nil {
			v.AppendInt(x)
		}
	case types.Interval:
		var x types.IntervalValue
		if x, err = types.ParseInterval(s); err == nil {
			v.AppendInterval(x)
		}
	default:
		return nil, fmt.Errorf("no literal for %s", t)
	}
	return v, err
}

// evalCall resolves and runs c on rows copies of its arguments, returning
// the result type and the first row's text (or NULL) or the error.
func evalCall(c call, fixedNumeric, useConst bool, rows int) (types.T, string, error) {
	loc, err := types.LoadLocation(c.tz)
	if err != nil {
		return types.T{}, "", err
	}
	var argTypes []types.T
	c.args = append([]arg(nil), c.args...)
	for i, a := range c.args {
		t, ok := typeByName(a.typ)
		if !ok {
			return types.T{}, "", fmt.Errorf("unknown type %q", a.typ)
		}
		if t.ID == types.Numeric && t.Precision > 0 && !a.null {
			// numeric(p,s) rounds the literal before any later cast
			x, err := types.ParseNumeric(a.lit, t.Precision, t.Scale)
			if err != nil {
				return types.T{}, "", err
			}
			c.args[i].lit = string(types.AppendNumeric(nil, x, t.Scale))
		}
		argTypes = append(argTypes, literalType(t, a, fixedNumeric))
	}
	var ov *Overload
	var casts []types.T
	var rt types.T
	switch c.kind {
	case "op":
		ov, casts, rt, err = ResolveOperator(c.name, argTypes[0], argTypes[1])
	case "prefix":
		ov, casts, rt, err = ResolvePrefix(c.name, argTypes[0])
	default:
		ov, casts, rt, err = Resolve(c.name, argTypes)
	}
	if err != nil {
		return types.T{}, "", err
	}
	args := make([]*vec.Vector, len(c.args))
	for i, a := range c.args {
		v, err := literal(casts[i], a, loc)
		if err != nil {
			return types.T{}, "", err
		}
		args[i] = vec.Constant(v, 0, rows)
	}
	if useConst && ov.RetConst != nil {
		consts := make([]*vec.Vector, len(args))
		ts := make([]types.T, len(args))
		for i, v := range args {
			consts[i], ts[i] = v.Slice(0, 1), v.Type
		}
		rt = ov.RetConst(ts, consts)
	}
	out := vec.New(rt, rows)
	ctx := &Ctx{Loc: loc, Now: time.Date(2024, 6, 15, 12, 30, 0, 0, time.UTC)}
	if err := ov.Eval(ctx, out, args, rows); err != nil {
		return rt, "", err
	}
	if out.Len() != rows {
		return rt, "", fmt.Errorf("kernel produced %d rows for %d", out.Len(), rows)
	}
	if out.IsNull(0) {
		return rt, "NULL", nil
	}
	return rt, "'" + strings.ReplaceAll(string(out.AppendText(nil, 0, loc)), "\n", "⏎") + "'", nil
}

func TestGolden(t *testing.T) {
	calls := loadCalls(t)
	if *update {
		if *pgConn == "" {
			t.Fatal("-update needs -pg")
		}
		recordGolden(t, calls)
	}
	want := loadGolden(t)
	for k, c := range calls {
		if k >= len(want) || want[k][0] != c.line {
			t.Fatalf("line %d: %s: golden file out of date (run with -update)", c.lineNo, c.line)
		}
		w := want[k][1]
		for _, variant := range []struct {
			fixed, useConst bool
		}{{false, false}, {true, false}, {true, true}, {false, true}} {
			rt, got, err := evalCall(c, variant.fixed, variant.useConst, 3)
			if strings.HasPrefix(w, "ERROR ") {
				code := strings.TrimPrefix(w, "ERROR ")
				if err == nil {
					t.Errorf("line %d: %s = %s, want error %s", c.lineNo, c.line, got, code)
				} else if pgerr.Code(err) != code {
					t.Errorf("line %d: %s: error %s (%v), want %s", c.lineNo, c.line, pgerr.Code(err), err, code)
				}
				break
			}
			if err != nil {
				t.Errorf("line %d: %s (fixed=%v const=%v): %v (want %s)", c.lineNo, c.line, variant.fixed, variant.useConst, err, w)
				break
			}
			wt, wv, _ := strings.Cut(w, "\t")
			if got != wv {
				t.Errorf("line %d: %s (fixed=%v const=%v) = %s, want %s", c.lineNo, c.line, variant.fixed, variant.useConst, got, wv)
			}
			if TypeName(rt) != wt {
				t.Errorf("line %d: %s: type %s, want %s", c.lineNo, c.line, TypeName(rt), wt)
			}
		}
	}
}
