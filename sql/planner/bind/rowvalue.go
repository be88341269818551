package bind

import (
	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// rowValue binds a row constructor (a, b) as a record value: its text
// form, which is never NULL (a row of NULLs is a value) and tells rows
// apart as record equality does for the fields' own text forms. count()
// over DISTINCT rows needs no more.
func (b *Binder) rowValue(row *pg.RowExpr, sc *Scope) (exec.Expr, error) {
	r := &RecordExpr{}
	for i, a := range row.Args {
		e, err := b.Bind(a, sc)
		if err != nil {
			return nil, err
		}
		r.Args = append(r.Args, e)
		r.Fields = append(r.Fields, Column{Name: "f" + Itoa(i+1), Type: e.Type()})
	}
	return r, nil
}

// bindRow binds ROW(a, b) or (a, b) as a record value (fields f1, f2, …),
// which prints as PostgreSQL's record_out does and is stored into a struct
// column by position (exec.RowCtor).
func (b *Binder) bindRow(row *pg.RowExpr, sc *Scope) (exec.Expr, error) {
	var fields []types.Field
	var args []exec.Expr
	for i, a := range row.Args {
		e, err := b.Bind(a, sc)
		if err != nil {
			return nil, err
		}
		if e.Type().ID == types.Unknown {
			if e, err = b.Cast(e, types.TextT, false, row.Location); err != nil {
				return nil, err
			}
		}
		args = append(args, e)
		fields = append(fields, types.Field{Name: "f" + Itoa(i+1), Type: e.Type()})
	}
	if len(args) == 0 {
		return nil, ErrAt(pgerr.New(pgerr.FeatureNotSupported, "a row without fields is not supported"), row.Location)
	}
	return &exec.RowCtor{Fields: args, T: types.StructOf(fields)}, nil
}

// rowComparison rewrites (a1, a2, …) op (b1, b2, …) into comparisons of
// the fields, as PostgreSQL compares rows: = all pairs equal, <> any pair
// unequal, and < <= > >= from left to right, the first unequal pair
// deciding (a NULL in the deciding pairs makes the result NULL).
func rowComparison(op string, l, r *pg.RowExpr, loc int32) (*pg.Node, error) {
	if len(l.Args) != len(r.Args) {
		return nil, ErrAt(pgerr.New(pgerr.SyntaxError, "unequal number of entries in row expressions"), loc)
	}
	if len(l.Args) == 0 {
		return nil, ErrAt(pgerr.New(pgerr.FeatureNotSupported, "cannot compare rows of zero length"), loc)
	}
	cmp := func(o string, i int) *pg.Node {
		return &pg.Node{Node: &pg.Node_AExpr{AExpr: &pg.A_Expr{Kind: pg.A_Expr_Kind_AEXPR_OP,
			Name: []*pg.Node{{Node: &pg.Node_String_{String_: &pg.String{Sval: o}}}}, Lexpr: l.Args[i], Rexpr: r.Args[i], Location: loc}}}
	}
	join := func(t pg.BoolExprType, args []*pg.Node) *pg.Node {
		if len(args) == 1 {
			return args[0]
		}
		return &pg.Node{Node: &pg.Node_BoolExpr{BoolExpr: &pg.BoolExpr{Boolop: t, Args: args, Location: loc}}}
	}
	var terms []*pg.Node
	switch op {
	case "=", "<>":
		for i := range l.Args {
			terms = append(terms, cmp(op, i))
		}
		if op == "=" {
			return join(pg.BoolExprType_AND_EXPR, terms), nil
		}
		return join(pg.BoolExprType_OR_EXPR, terms), nil
	case "<", "<=", ">", ">=":
		strict := op[:1]
		for i := range l.Args {
			var and []*pg.Node
			for j := 0; j < i; j++ {
				and = append(and, cmp("=", j))
			}
			last := strict
			if i == len(l.Args)-1 {
				last = op
			}
			terms = append(terms, join(pg.BoolExprType_AND_EXPR, append(and, cmp(last, i))))
		}
		return join(pg.BoolExprType_OR_EXPR, terms), nil
	}
	return nil, ErrAt(pgerr.New(pgerr.FeatureNotSupported, "operator %s is not supported for rows", op), loc)
}
