package sql

import (
	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// array_agg, which catalog queries (SQLAlchemy's constraint and index
// reflection) use, builds the text form of an array, as lakepg's arrays
// are held (pgcatalog_arrays.go): a string_agg of the elements' quoted
// text forms (NULL spelled NULL) in braces, NULL for no rows.

// bindArrayAgg fills agg as that string_agg.
func (c *aggCollector) bindArrayAgg(b *binder, agg *exec.Agg, f *pg.FuncCall, bindArg func(*pg.Node, types.T) (exec.Expr, error)) error {
	if len(f.Args) != 1 {
		return errAt(pgerr.New(pgerr.UndefinedFunction, "function array_agg with %d arguments does not exist", len(f.Args)), f.Location)
	}
	e, err := bindArg(f.Args[0], types.TextT)
	if err != nil {
		return err
	}
	loc := b.env.Loc
	elem := &catalogFn{name: "array_agg_element", t: types.TextT, args: []exec.Expr{e},
		fn: func(out *vec.Vector, a []*vec.Vector, i int) error {
			if a[0].IsNull(i) {
				out.AppendString("NULL")
				return nil
			}
			s := string(a[0].AppendText(nil, i, loc))
			f := formatArray([]*string{&s})
			out.AppendString(f[1 : len(f)-1])
			return nil
		}}
	sep := constOf(types.TextT, func(v *vec.Vector) { v.AppendString(",") })
	agg.Kind, agg.Arg = exec.AggStringAgg, c.input(elem)
	agg.Arg2 = c.input(sep)
	agg.Distinct = f.AggDistinct
	return c.bindAggOrder(b, agg, f, bindArg)
}

// arrayAggResult wraps array_agg's string_agg in braces.
func arrayAggResult(name string, ref exec.Expr) exec.Expr {
	if name != "array_agg" {
		return ref
	}
	return &catalogFn{name: name, t: types.TextT, args: []exec.Expr{ref}, strict: true,
		fn: func(out *vec.Vector, a []*vec.Vector, i int) error {
			out.AppendString("{" + a[0].S[i] + "}")
			return nil
		}}
}
