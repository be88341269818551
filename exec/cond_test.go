package exec

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/lakepg/lakepg/exec/fn"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// nints makes a bigint vector; nil is NULL.
func nints(xs ...any) *vec.Vector {
	v := vec.New(types.Int64T, len(xs))
	for _, x := range xs {
		if x == nil {
			v.AppendNull()
		} else {
			v.AppendInt(int64(x.(int)))
		}
	}
	return v
}

func ntexts(xs ...any) *vec.Vector {
	v := vec.New(types.TextT, len(xs))
	for _, x := range xs {
		if x == nil {
			v.AppendNull()
		} else {
			v.AppendString(x.(string))
		}
	}
	return v
}

// show renders the first n rows of v as "a,b,NULL".
func show(v *vec.Vector, n int) string {
	var parts []string
	for i := 0; i < n; i++ {
		if v.IsNull(i) {
			parts = append(parts, "NULL")
		} else {
			parts = append(parts, string(v.AppendText(nil, i, nil)))
		}
	}
	return strings.Join(parts, ",")
}

func k64(x int64) *Const { return i64Const(x) }

func div(l, r Expr) Expr { return &Arith{Op: '/', L: l, R: r, T: types.Int64T} }
func mul(l, r Expr) Expr { return &Arith{Op: '*', L: l, R: r, T: types.Int64T} }
func cmpx(op CmpOp, l, r Expr) Expr {
	return &Cmp{Op: op, L: l, R: r}
}

// checkEval evaluates e on b and compares the rows, or the SQLSTATE when
// want starts with "error ".
func checkEval(t *testing.T, name string, e Expr, b *vec.Batch, want string) {
	t.Helper()
	v, err := e.Eval(env, b)
	if code, ok := strings.CutPrefix(want, "error "); ok {
		if pgerr.Code(err) != code {
			t.Errorf("%s: got %v, want error %s", name, err, code)
		}
		return
	}
	if err != nil {
		t.Errorf("%s: %v", name, err)
		return
	}
	if got := show(v, b.N); got != want {
		t.Errorf("%s: got %s, want %s", name, got, want)
	}
}

// A CASE branch, a later WHEN, a later COALESCE argument and the later
// arguments of AND/OR run only for the rows that reach them: an error
// comes only from those rows, as in PostgreSQL.
func TestConditionalErrorsOnlyWhereTaken(t *testing.T) {
	x := &ColRef{0, types.Int64T}
	y := &ColRef{1, types.Int64T}
	s := &ColRef{2, types.TextT}
	b := batch(nints(0, 2, nil, -1, 5), nints(1, 0, 3, 0, nil), ntexts("x", "12", nil, "a", "7"))
	nullT := NullConst(types.Int64T)

	// CASE WHEN x > 0 THEN 10 / x ELSE NULL END
	checkEval(t, "searched case", &Case{When: []Expr{cmpx(GT, x, k64(0))}, Then: []Expr{div(k64(10), x)}, Else: nullT, T: types.Int64T}, b,
		"NULL,5,NULL,NULL,2")
	// CASE WHEN x >= 0 THEN 10 / x END: x = 0 takes it
	checkEval(t, "taken by a zero", &Case{When: []Expr{cmpx(GE, x, k64(0))}, Then: []Expr{div(k64(10), x)}, T: types.Int64T}, b,
		"error "+pgerr.DivisionByZero)
	// CASE WHEN x = 0 THEN -1 WHEN 10 / x > 2 THEN 1 ELSE 0 END: the second
	// condition only for the rows the first did not take
	checkEval(t, "later condition", &Case{When: []Expr{cmpx(EQ, x, k64(0)), cmpx(GT, div(k64(10), x), k64(2))}, Then: []Expr{k64(-1), k64(1)}, Else: k64(0), T: types.Int64T}, b,
		"-1,1,0,0,0")
	// CASE x WHEN 0 THEN 0 ELSE 10 / x END (a simple CASE compares its shared argument)
	checkEval(t, "simple case", &Case{When: []Expr{cmpx(EQ, x, k64(0))}, Then: []Expr{k64(0)}, Else: div(k64(10), x), T: types.Int64T}, b,
		"0,5,NULL,-10,2")
	// 10 / nullif(x, 0), as the binder builds NULLIF
	nullif := &Case{When: []Expr{cmpx(EQ, x, k64(0))}, Then: []Expr{nullT}, Else: x, T: types.Int64T}
	checkEval(t, "nullif", div(k64(10), nullif), b, "NULL,5,NULL,-10,2")
	// coalesce(x, 10 / y): y = 0 only where x is not NULL... except row 4
	checkEval(t, "coalesce", &Coalesce{Args: []Expr{y, div(k64(10), x)}, T: types.Int64T}, b, "1,0,3,0,2")
	checkEval(t, "coalesce reaching a zero", &Coalesce{Args: []Expr{x, div(k64(10), mul(y, k64(0)))}, T: types.Int64T}, b, "error "+pgerr.DivisionByZero)
	checkEval(t, "coalesce of three", &Coalesce{Args: []Expr{nullif, div(k64(10), nullif), y, k64(9)}, T: types.Int64T}, b, "1,2,3,-1,5")
	// x > 0 AND 10 / x > 2; x = 0 OR 10 / x > 2
	checkEval(t, "and", &Logic{And: true, Args: []Expr{cmpx(GT, x, k64(0)), cmpx(GT, div(k64(10), x), k64(2))}}, b, "f,t,NULL,f,f")
	checkEval(t, "or", &Logic{Args: []Expr{cmpx(EQ, x, k64(0)), cmpx(GT, div(k64(10), x), k64(2))}}, b, "t,t,NULL,f,f")
	// a NULL decides nothing: x > 10 AND 10 / (y - 3) > 0 reaches y = 3
	// on the row where x is NULL
	minus3 := &Arith{Op: '-', L: y, R: k64(3), T: types.Int64T}
	checkEval(t, "null and", &Logic{And: true, Args: []Expr{cmpx(GT, x, k64(10)), cmpx(GT, div(k64(10), minus3), k64(0))}}, b, "error "+pgerr.DivisionByZero)
	checkEval(t, "false and", &Logic{And: true, Args: []Expr{&IsNull{E: x, Not: true}, cmpx(GT, x, k64(10)), cmpx(GT, div(k64(10), minus3), k64(0))}}, b, "f,f,f,f,f")
	// x > 100 AND 10 / x > 0 OR x IS NULL: no row reaches the division
	checkEval(t, "nested", &Logic{Args: []Expr{&Logic{And: true, Args: []Expr{cmpx(GT, x, k64(100)), cmpx(GT, div(k64(10), x), k64(0))}}, &IsNull{E: x}}}, b, "f,f,t,f,f")
	// overflow: CASE WHEN x < 3 THEN x * 4611686018427387904 END
	checkEval(t, "overflow not taken", &Case{When: []Expr{cmpx(LT, x, k64(1))}, Then: []Expr{mul(x, k64(1<<62))}, T: types.Int64T}, b, "0,NULL,NULL,-4611686018427387904,NULL")
	checkEval(t, "overflow taken", &Case{When: []Expr{cmpx(LT, x, k64(3))}, Then: []Expr{mul(x, k64(1<<62))}, T: types.Int64T}, b, "error "+pgerr.NumericValueOutOfRange)
	// bad input: CASE WHEN s <> 'x' AND s <> 'a' THEN s::int END
	cast := &Cast{E: s, To: types.Int32T}
	notBad := &Logic{And: true, Args: []Expr{cmpx(NE, s, NewConst(texts("x"))), cmpx(NE, s, NewConst(texts("a")))}}
	checkEval(t, "cast not taken", &Case{When: []Expr{notBad}, Then: []Expr{cast}, T: types.Int32T}, b, "NULL,12,NULL,NULL,7")
	checkEval(t, "cast taken", &Case{When: []Expr{cmpx(NE, s, NewConst(texts("x")))}, Then: []Expr{cast}, T: types.Int32T}, b, "error "+pgerr.InvalidTextRepr)
	// greatest(1, 10 / x) evaluates all its arguments, but only for the
	// rows of its branch
	o, casts, ret, err := fn.Resolve("greatest", []types.T{types.Int64T, types.Int64T})
	if err != nil || casts[0] != types.Int64T {
		t.Fatalf("greatest: %v %v", err, casts)
	}
	greatest := &FnCall{O: o, Args: []Expr{k64(3), div(k64(10), x)}, T: ret}
	checkEval(t, "greatest in a branch", &Case{When: []Expr{cmpx(NE, x, k64(0))}, Then: []Expr{greatest}, T: ret}, b, "NULL,5,NULL,3,3")
	checkEval(t, "greatest taken", &Case{When: []Expr{&IsNull{E: x, Not: true}}, Then: []Expr{greatest}, T: ret}, b, "error "+pgerr.DivisionByZero)
	// a CASE inside a branch runs on the rows of that branch only
	inner := &Case{When: []Expr{cmpx(GT, x, k64(3))}, Then: []Expr{div(k64(100), x)}, Else: div(k64(10), x), T: types.Int64T}
	checkEval(t, "case in a branch", &Case{When: []Expr{cmpx(NE, x, k64(0))}, Then: []Expr{inner}, Else: k64(0), T: types.Int64T}, b, "0,5,0,-10,20")
	// every row takes one branch: its own vector comes back
	checkEval(t, "one branch", &Case{When: []Expr{&Logic{Args: []Expr{cmpx(LT, x, k64(100)), &IsNull{E: x}}}}, Then: []Expr{x}, Else: div(k64(1), k64(0)), T: types.Int64T}, b, "0,2,NULL,-1,5")
	checkEval(t, "else only", &Case{When: []Expr{cmpx(GT, x, k64(100))}, Then: []Expr{div(k64(1), k64(0))}, Else: y, T: types.Int64T}, b, "1,0,3,0,NULL")
	checkEval(t, "no else", &Case{When: []Expr{cmpx(GT, x, k64(100))}, Then: []Expr{div(k64(1), k64(0))}, T: types.Int64T}, b, "NULL,NULL,NULL,NULL,NULL")
	// texts and NULLs scatter too
	checkEval(t, "text", &Case{When: []Expr{cmpx(GT, x, k64(0)), &IsNull{E: x}}, Then: []Expr{s, NewConst(texts("none"))}, T: types.TextT}, b, "NULL,12,none,NULL,7")
}

// Inputs come in every shape: one row (where constants are one-row
// vectors), vectors longer than the batch (a prefix is the batch), and
// batches of varying sizes through the same expression, whose buffers are
// reused.
func TestConditionalInputShapes(t *testing.T) {
	x := &ColRef{0, types.Int64T}
	e := &Case{When: []Expr{cmpx(GT, x, k64(0))}, Then: []Expr{div(k64(10), x)}, Else: &Coalesce{Args: []Expr{NullConst(types.Int64T), k64(-7)}, T: types.Int64T}, T: types.Int64T}
	checkEval(t, "one row taken", e, batch(nints(5)), "2")
	checkEval(t, "one row not taken", e, batch(nints(0)), "-7")
	checkEval(t, "one NULL row", e, batch(nints(nil)), "-7")
	long := nints(0, 1, 2, 3, 0, 0)
	checkEval(t, "prefix of a longer vector", e, &vec.Batch{Vecs: []*vec.Vector{long}, N: 4}, "-7,10,5,3")
	checkEval(t, "again, shorter", e, &vec.Batch{Vecs: []*vec.Vector{long}, N: 2}, "-7,10")
	checkEval(t, "empty", e, &vec.Batch{Vecs: []*vec.Vector{long}, N: 0}, "")
	checkEval(t, "NULLs do not linger", e, batch(nints(1, 2, 3)), "10,5,3")
	and := &Logic{And: true, Args: []Expr{cmpx(NE, x, k64(0)), cmpx(GT, div(k64(10), x), k64(3))}}
	checkEval(t, "and, one row", and, batch(nints(0)), "f")
	checkEval(t, "and, prefix", and, &vec.Batch{Vecs: []*vec.Vector{long}, N: 3}, "f,t,t")
	checkEval(t, "and, empty", and, &vec.Batch{Vecs: []*vec.Vector{long}, N: 0}, "")
}

// The property: on random data, random trees of CASE, COALESCE, NULLIF,
// AND/OR, NOT, IS NULL, comparisons and divisions give, batch by batch,
// exactly the rows of a row-at-a-time interpreter of PostgreSQL's rules, and
// fail exactly when some row reaches a division by zero.
func TestConditionalMatchesRowByRow(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	for iter := 0; iter < 3000; iter++ {
		n := 1 + r.Intn(40)
		if r.Intn(10) == 0 {
			n = 1 + r.Intn(3000)
		}
		cols := []*vec.Vector{vec.New(types.Int64T, n), vec.New(types.Int64T, n)}
		for _, c := range cols {
			for i := 0; i < n; i++ {
				if r.Intn(5) == 0 {
					c.AppendNull()
				} else {
					c.AppendInt(r.Int63n(7) - 3)
				}
			}
		}
		b := &vec.Batch{Vecs: cols, N: n}
		if r.Intn(4) == 0 && n > 1 {
			b.N = n - 1 - r.Intn(n-1) // a prefix: vectors longer than the batch
		}
		g := &exprGen{r: r}
		e := g.intExpr(4)
		if r.Intn(2) == 0 {
			e = g.boolExpr(4)
		}
		for round := 0; round < 2; round++ { // again: reused buffers
			want, wantErr := refBatch(e, b)
			v, err := e.Eval(env, b)
			desc := fmt.Sprintf("iteration %d: %s over x=%s y=%s", iter, describe(e), show(cols[0], b.N), show(cols[1], b.N))
			if (err != nil) != wantErr {
				t.Fatalf("%s: error %v, want error %v", desc, err, wantErr)
			}
			if err != nil {
				if pgerr.Code(err) != pgerr.DivisionByZero {
					t.Fatalf("%s: %v", desc, err)
				}
				continue
			}
			if got := show(v, b.N); got != want {
				t.Fatalf("%s:\n got %s\nwant %s", desc, got, want)
			}
		}
	}
}

type exprGen struct{ r *rand.Rand }

func (g *exprGen) intExpr(depth int) Expr {
	col := func() Expr { return &ColRef{g.r.Intn(2), types.Int64T} }
	if depth == 0 {
		switch g.r.Intn(4) {
		case 0:
			return k64(g.r.Int63n(5) - 2)
		case 1:
			return NullConst(types.Int64T)
		}
		return col()
	}
	switch g.r.Intn(7) {
	case 0: // a division that fails where its divisor is 0
		return div(g.intExpr(depth-1), g.intExpr(depth-1))
	case 1:
		c := &Case{T: types.Int64T}
		for k := 0; k <= g.r.Intn(3); k++ {
			c.When = append(c.When, g.boolExpr(depth-1))
			c.Then = append(c.Then, g.intExpr(depth-1))
		}
		if g.r.Intn(2) == 0 {
			c.Else = g.intExpr(depth - 1)
		}
		return c
	case 2:
		c := &Coalesce{T: types.Int64T}
		for k := 0; k <= 1+g.r.Intn(2); k++ {
			c.Args = append(c.Args, g.intExpr(depth-1))
		}
		return c
	case 3: // NULLIF(l, r): l is shared, as the binder builds it
		l := g.intExpr(depth - 1)
		return &Case{When: []Expr{cmpx(EQ, l, g.intExpr(depth-1))}, Then: []Expr{NullConst(types.Int64T)}, Else: l, T: types.Int64T}
	case 4: // simple CASE: its argument is shared by the comparisons
		arg := g.intExpr(depth - 1)
		c := &Case{T: types.Int64T, Else: g.intExpr(depth - 1)}
		for k := 0; k <= g.r.Intn(2); k++ {
			c.When = append(c.When, cmpx(EQ, arg, k64(g.r.Int63n(3)-1)))
			c.Then = append(c.Then, g.intExpr(depth-1))
		}
		return c
	}
	return g.intExpr(0)
}

func (g *exprGen) boolExpr(depth int) Expr {
	if depth == 0 {
		return cmpx(CmpOp(g.r.Intn(6)), g.intExpr(0), g.intExpr(0))
	}
	switch g.r.Intn(5) {
	case 0, 1:
		l := &Logic{And: g.r.Intn(2) == 0}
		for k := 0; k <= 1+g.r.Intn(2); k++ {
			l.Args = append(l.Args, g.boolExpr(depth-1))
		}
		return l
	case 2:
		return &Not{E: g.boolExpr(depth - 1)}
	case 3:
		return &IsNull{E: g.intExpr(depth - 1), Not: g.r.Intn(2) == 0}
	}
	return cmpx(CmpOp(g.r.Intn(6)), g.intExpr(depth-1), g.intExpr(depth-1))
}

// refVal is one value of the reference interpreter.
type refVal struct {
	null bool
	i    int64
	b    bool
}

// refRow evaluates e for row i by PostgreSQL's rules, one row at a time.
func refRow(e Expr, b *vec.Batch, i int) (refVal, bool) {
	switch x := e.(type) {
	case *ColRef:
		v := b.Vecs[x.Idx]
		return refVal{null: v.IsNull(i), i: v.I64[i]}, true
	case *Const:
		if x.V.IsNull(0) {
			return refVal{null: true}, true
		}
		if x.V.Type.ID == types.Bool {
			return refVal{b: x.V.B[0]}, true
		}
		return refVal{i: x.V.I64[0]}, true
	case *Arith:
		l, ok := refRow(x.L, b, i)
		if !ok {
			return l, false
		}
		r, ok := refRow(x.R, b, i)
		if !ok || l.null || r.null {
			return refVal{null: true}, ok
		}
		if r.i == 0 {
			return refVal{}, false
		}
		return refVal{i: l.i / r.i}, true
	case *Cmp:
		l, ok := refRow(x.L, b, i)
		if !ok {
			return l, false
		}
		r, ok := refRow(x.R, b, i)
		if !ok || l.null || r.null {
			return refVal{null: true}, ok
		}
		c := 0
		if l.i < r.i {
			c = -1
		} else if l.i > r.i {
			c = 1
		}
		return refVal{b: cmpResult(x.Op, c)}, true
	case *Not:
		v, ok := refRow(x.E, b, i)
		return refVal{null: v.null, b: !v.b && !v.null}, ok
	case *IsNull:
		v, ok := refRow(x.E, b, i)
		return refVal{b: v.null != x.Not}, ok
	case *Logic:
		sawNull := false
		for _, a := range x.Args {
			v, ok := refRow(a, b, i)
			if !ok {
				return v, false
			}
			if v.null {
				sawNull = true
			} else if v.b != x.And {
				return refVal{b: !x.And}, true
			}
		}
		return refVal{null: sawNull, b: x.And && !sawNull}, true
	case *Case:
		for k, w := range x.When {
			c, ok := refRow(w, b, i)
			if !ok {
				return c, false
			}
			if !c.null && c.b {
				return refRow(x.Then[k], b, i)
			}
		}
		if x.Else == nil {
			return refVal{null: true}, true
		}
		return refRow(x.Else, b, i)
	case *Coalesce:
		for _, a := range x.Args {
			v, ok := refRow(a, b, i)
			if !ok || !v.null {
				return v, ok
			}
		}
		return refVal{null: true}, true
	}
	panic(fmt.Sprintf("refRow: %T", e))
}

// refBatch renders the reference rows, or reports that some row fails.
func refBatch(e Expr, b *vec.Batch) (string, bool) {
	var parts []string
	for i := 0; i < b.N; i++ {
		v, ok := refRow(e, b, i)
		switch {
		case !ok:
			return "", true
		case v.null:
			parts = append(parts, "NULL")
		case e.Type().ID == types.Bool:
			parts = append(parts, map[bool]string{true: "t", false: "f"}[v.b])
		default:
			parts = append(parts, fmt.Sprint(v.i))
		}
	}
	return strings.Join(parts, ","), false
}

func describe(e Expr) string {
	switch x := e.(type) {
	case *ColRef:
		return "xy"[x.Idx : x.Idx+1]
	case *Const:
		if x.IsNull() {
			return "NULL"
		}
		return string(x.V.AppendText(nil, 0, nil))
	case *Arith:
		return "(" + describe(x.L) + " / " + describe(x.R) + ")"
	case *Cmp:
		return "(" + describe(x.L) + " " + []string{"=", "<>", "<", "<=", ">", ">="}[x.Op] + " " + describe(x.R) + ")"
	case *Not:
		return "NOT " + describe(x.E)
	case *IsNull:
		if x.Not {
			return describe(x.E) + " IS NOT NULL"
		}
		return describe(x.E) + " IS NULL"
	case *Logic:
		var parts []string
		for _, a := range x.Args {
			parts = append(parts, describe(a))
		}
		op := " OR "
		if x.And {
			op = " AND "
		}
		return "(" + strings.Join(parts, op) + ")"
	case *Case:
		s := "CASE"
		for k := range x.When {
			s += " WHEN " + describe(x.When[k]) + " THEN " + describe(x.Then[k])
		}
		if x.Else != nil {
			s += " ELSE " + describe(x.Else)
		}
		return s + " END"
	case *Coalesce:
		var parts []string
		for _, a := range x.Args {
			parts = append(parts, describe(a))
		}
		return "coalesce(" + strings.Join(parts, ", ") + ")"
	}
	return fmt.Sprintf("%T", e)
}

// FoldError raises what PostgreSQL's planner raises folding constants:
// everywhere but in what a constant condition cuts off.
func TestFoldErrorLikePostgres(t *testing.T) {
	x := &ColRef{0, types.Int64T}
	bad := func() Expr { return div(k64(1), k64(0)) }
	tr, fa, nu := NewConst(vec.New(types.BoolT, 1)), NewConst(vec.New(types.BoolT, 1)), NullConst(types.BoolT)
	tr.V.AppendBool(true)
	fa.V.AppendBool(false)
	for _, c := range []struct {
		name  string
		e     Expr
		fails bool
	}{
		{"CASE WHEN false THEN 1/0 END", &Case{When: []Expr{fa}, Then: []Expr{bad()}, T: types.Int64T}, false},
		{"CASE WHEN NULL THEN 1/0 ELSE 0 END", &Case{When: []Expr{nu}, Then: []Expr{bad()}, Else: k64(0), T: types.Int64T}, false},
		{"CASE WHEN x > 0 THEN 1/0 END", &Case{When: []Expr{cmpx(GT, x, k64(0))}, Then: []Expr{bad()}, T: types.Int64T}, true},
		{"CASE WHEN x > 0 THEN 1 ELSE 1/0 END", &Case{When: []Expr{cmpx(GT, x, k64(0))}, Then: []Expr{k64(1)}, Else: bad(), T: types.Int64T}, true},
		{"CASE WHEN x > 0 THEN 1 WHEN 2 > 1 THEN 2 ELSE 1/0 END", &Case{When: []Expr{cmpx(GT, x, k64(0)), cmpx(GT, k64(2), k64(1))}, Then: []Expr{k64(1), k64(2)}, Else: bad(), T: types.Int64T}, false},
		{"CASE WHEN 1/0 = 1 THEN 1 END", &Case{When: []Expr{cmpx(EQ, bad(), k64(1))}, Then: []Expr{k64(1)}, T: types.Int64T}, true},
		{"CASE WHEN false THEN CASE WHEN x > 0 THEN 1/0 END END", &Case{When: []Expr{fa}, Then: []Expr{&Case{When: []Expr{cmpx(GT, x, k64(0))}, Then: []Expr{bad()}, T: types.Int64T}}, T: types.Int64T}, false},
		{"coalesce(1, 1/0)", &Coalesce{Args: []Expr{k64(1), bad()}, T: types.Int64T}, false},
		{"coalesce(x, 1/0)", &Coalesce{Args: []Expr{x, bad()}, T: types.Int64T}, true},
		{"coalesce(NULL, x, 1/0)", &Coalesce{Args: []Expr{NullConst(types.Int64T), x, bad()}, T: types.Int64T}, true},
		{"false AND 1/0 = 1", &Logic{And: true, Args: []Expr{fa, cmpx(EQ, bad(), k64(1))}}, false},
		{"1/0 = 1 AND false", &Logic{And: true, Args: []Expr{cmpx(EQ, bad(), k64(1)), fa}}, true},
		{"NULL AND 1/0 = 1", &Logic{And: true, Args: []Expr{nu, cmpx(EQ, bad(), k64(1))}}, true},
		{"x > 0 OR true OR 1/0 = 1", &Logic{Args: []Expr{cmpx(GT, x, k64(0)), tr, cmpx(EQ, bad(), k64(1))}}, false},
		{"x > 0 OR 1/0 = 1", &Logic{Args: []Expr{cmpx(GT, x, k64(0)), cmpx(EQ, bad(), k64(1))}}, true},
		{"x + 1/0", &Arith{Op: '+', L: x, R: bad(), T: types.Int64T}, true},
		{"x / 0", div(x, k64(0)), false},
	} {
		err := FoldError(env, c.e)
		if (err != nil) != c.fails {
			t.Errorf("%s: got %v, want failure %v", c.name, err, c.fails)
		} else if err != nil && pgerr.Code(err) != pgerr.DivisionByZero {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}

// A one-WHEN CASE whose branches cannot raise is a select of whole-batch
// results (Case.blend): NULL conditions take ELSE, a missing or NULL ELSE
// gives NULL, NULL branch values stay NULL, for every storage.
func TestCaseSelectOfBranches(t *testing.T) {
	x := &ColRef{0, types.Int64T}
	s := &ColRef{1, types.TextT}
	f := &ColRef{2, types.Float64T}
	b := batch(nints(1, -1, nil, 2, 0), ntexts("a", nil, "c", "d", "e"), nfloats(0.5, 1.5, 2.5, nil, 4.5))
	pos := cmpx(GT, x, k64(0))
	txt := func(v string) *Const { w := vec.New(types.TextT, 1); w.AppendString(v); return NewConst(w) }
	flt := func(v float64) *Const { w := vec.New(types.Float64T, 1); w.AppendFloat(v); return NewConst(w) }
	checkEval(t, "int, else const", &Case{When: []Expr{pos}, Then: []Expr{x}, Else: k64(9), T: types.Int64T}, b, "1,9,9,2,9")
	checkEval(t, "int, no else", &Case{When: []Expr{pos}, Then: []Expr{k64(1)}, T: types.Int64T}, b, "1,NULL,NULL,1,NULL")
	checkEval(t, "text, else NULL", &Case{When: []Expr{pos}, Then: []Expr{s}, Else: NullConst(types.TextT), T: types.TextT}, b, "a,NULL,NULL,d,NULL")
	checkEval(t, "text, NULLs in both", &Case{When: []Expr{cmpx(EQ, s, txt("d"))}, Then: []Expr{s}, Else: s, T: types.TextT}, b, "a,NULL,c,d,e")
	checkEval(t, "text, else const", &Case{When: []Expr{cmpx(NE, s, txt("c"))}, Then: []Expr{txt("y")}, Else: txt("n"), T: types.TextT}, b, "y,n,n,y,y")
	checkEval(t, "float", &Case{When: []Expr{pos}, Then: []Expr{f}, Else: flt(-1), T: types.Float64T}, b, "0.5,-1,-1,NULL,-1")
	checkEval(t, "bool", &Case{When: []Expr{pos}, Then: []Expr{cmpx(GT, f, flt(1))}, Else: cmpx(LT, x, k64(0)), T: types.BoolT}, b, "f,t,NULL,NULL,f")
	checkEval(t, "one row", &Case{When: []Expr{pos}, Then: []Expr{s}, Else: txt("z"), T: types.TextT}, batch(nints(3), ntexts("q"), nfloats(1.0)), "q")
}

func nfloats(xs ...any) *vec.Vector {
	v := vec.New(types.Float64T, len(xs))
	for _, x := range xs {
		if x == nil {
			v.AppendNull()
		} else {
			v.AppendFloat(x.(float64))
		}
	}
	return v
}
