package bind

import (
	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/aggregate"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// array_agg(x) returns x's array type. An array value is the
// concatenation of its encoded elements (exec/vec/array.go), so array_agg
// is string_agg over each row's encoded element (NULLs included, as an
// encoded NULL is not a NULL input) with an empty delimiter, typed as the
// array: DISTINCT, ORDER BY inside the call, grouping and parallel merges
// come with string_agg, and no rows give NULL, as array_agg does.

// bindArrayAgg fills agg as that string_agg and returns the array type.
func (c *AggCollector) bindArrayAgg(b *Binder, agg *aggregate.Agg, f *pg.FuncCall, bindArg func(*pg.Node, types.T) (exec.Expr, error)) (types.T, error) {
	if len(f.Args) != 1 {
		return types.T{}, ErrAt(pgerr.New(pgerr.UndefinedFunction, "function array_agg with %d arguments does not exist", len(f.Args)), f.Location)
	}
	e, err := bindArg(f.Args[0], types.TextT)
	if err != nil {
		return types.T{}, err
	}
	if e.Type().ID == types.Array {
		return types.T{}, ErrAt(pgerr.New(pgerr.FeatureNotSupported, "array_agg over arrays (multidimensional arrays) is not supported"), f.Location)
	}
	elem := &CatalogFn{Name: "array_agg_element", T: types.ByteaT, Args: []exec.Expr{e},
		Fn: func(out *vec.Vector, a []*vec.Vector, i int) error {
			out.AppendString(string(vec.AppendElem(nil, a[0], i)))
			return nil
		}}
	sep := ConstOf(types.ByteaT, func(v *vec.Vector) { v.AppendString("") })
	agg.Kind, agg.Arg = aggregate.AggStringAgg, c.input(elem)
	agg.Arg2 = c.input(sep)
	agg.Distinct = f.AggDistinct
	return types.ArrayOf(e.Type()), c.bindAggOrder(b, agg, f, bindArg)
}

// arrayAggResult is the reference to an aggregate's result; array_agg
// needs no wrapping since its result is already the array.
func arrayAggResult(_ string, ref exec.Expr) exec.Expr { return ref }
