package optree

import (
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/aggregate"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// A filter over an aggregation's groups, directly or through a projection
// of them, is also given to the aggregation (aggregate.Having), which tests
// it before it makes the aggregates' results: where the condition reads a
// numeric average, sum, variance or deviation only cast to float8 or
// compared with zero, it reads the float8 the aggregation makes from the
// exact state instead, and a group it rejects never has its numeric text
// made (TPC-DS q39 keeps 6,250 of 90,000 groups so). The filter stays
// above and decides; the aggregation's test only leaves out groups the
// filter would reject, which it does as long as
//   - the float8 is the cast's float8 (aggregate.Having makes it so),
//   - x = 0 and CAST(x AS float8) = 0 agree, and so any comparison with
//     zero: the cast keeps the sign, and a result that is not zero is never
//     as small as the smallest float8 when the input is an integer or a
//     numeric of a fixed scale (the results have at most some forty
//     fractional digits),
//   - x · 1.000 cast to float8 is x cast to float8 (the same value, at a
//     larger scale),
//   - the condition has no function calls or subqueries, whose evaluation
//     a second time could differ or fail where the filter's did not, and
//   - no other operator reads the aggregation or the projection.

// AggregateHaving gives the filters of op's tree to the aggregations under
// them and returns how many it gave.
func AggregateHaving(op exec.Operator) int {
	parents := map[exec.Operator]int{}
	EachOnce(op, func(o exec.Operator) {
		for _, in := range Inputs(o) {
			parents[*in]++
		}
	})
	given := 0
	EachOnce(op, func(o exec.Operator) {
		f, ok := o.(*exec.Filter)
		if !ok {
			return
		}
		r := havingRewrite{twin: map[int]int{}}
		in := f.Input
		if p, ok := in.(*exec.Project); ok {
			r.p, in = p, p.Input
			if parents[p] != 1 {
				return
			}
		}
		h, ok := in.(*aggregate.HashAgg)
		if !ok || parents[h] != 1 || h.Having != nil || h.GroupingSets != nil || h.GroupingID || h.Partial != nil {
			return
		}
		r.h = h
		pred, ok := r.expr(f.Pred)
		if !ok || len(r.aggs) == 0 {
			return
		}
		h.Having = &aggregate.Having{Env: f.Env, New: func() exec.Expr { return CloneExpr(pred) }, Aggs: r.aggs}
		given++
	})
	return given
}

// havingRewrite rewrites a filter's condition over the aggregation's
// key columns and float8 columns (aggregate.Having).
type havingRewrite struct {
	h    *aggregate.HashAgg
	p    *exec.Project // nil: the filter reads the aggregation's columns
	aggs []int         // the aggregates read as float8, in column order
	twin map[int]int   // aggregate → its float8 column
}

// source returns the aggregation's column that the filter's column i is,
// and whether it is multiplied by a numeric one (x * 1.000); ok is false
// when it is something else.
func (r *havingRewrite) source(i int) (col int, timesOne, ok bool) {
	if r.p == nil {
		return i, false, true
	}
	switch e := r.p.Exprs[i].(type) {
	case *exec.ColRef:
		return e.Idx, false, true
	case *exec.Arith:
		c, ok1 := e.L.(*exec.ColRef)
		k, ok2 := e.R.(*exec.Const)
		if !ok1 || !ok2 {
			c, ok1 = e.R.(*exec.ColRef)
			k, ok2 = e.L.(*exec.Const)
		}
		if e.Op == '*' && ok1 && ok2 && numericOne(k) && c.T.ID == types.Numeric {
			return c.Idx, true, true
		}
	}
	return 0, false, false
}

// floatOf returns the float8 column of the aggregate the filter's column
// reference e is, when e is one the aggregation can make as float8.
func (r *havingRewrite) floatOf(e exec.Expr) (*exec.ColRef, bool) {
	c, ok := e.(*exec.ColRef)
	if !ok {
		return nil, false
	}
	col, _, ok := r.source(c.Idx)
	if !ok || col < r.h.NGroup || col >= r.h.NGroup+len(r.h.Aggs) {
		return nil, false
	}
	a := r.h.Aggs[col-r.h.NGroup]
	if r.h.Types()[col].ID != types.Numeric || a.Distinct || len(a.Order) > 0 || a.In.DynNumeric() ||
		!(a.In.IsInteger() || a.In.ID == types.Numeric) {
		return nil, false
	}
	switch a.Kind {
	case aggregate.AggAvg, aggregate.AggSum, aggregate.AggStddevSamp, aggregate.AggStddevPop, aggregate.AggVarSamp, aggregate.AggVarPop:
	default:
		return nil, false
	}
	k, ok := r.twin[col]
	if !ok {
		k = len(r.aggs)
		r.twin[col] = k
		r.aggs = append(r.aggs, col-r.h.NGroup)
	}
	return &exec.ColRef{Idx: r.h.NGroup + k, T: types.Float64T}, true
}

// expr rewrites e, or reports that it cannot.
func (r *havingRewrite) expr(e exec.Expr) (exec.Expr, bool) {
	all := func(xs []exec.Expr) ([]exec.Expr, bool) {
		out := make([]exec.Expr, len(xs))
		for i, x := range xs {
			y, ok := r.expr(x)
			if !ok {
				return nil, false
			}
			out[i] = y
		}
		return out, true
	}
	opt := func(x exec.Expr) (exec.Expr, bool) {
		if x == nil {
			return nil, true
		}
		return r.expr(x)
	}
	switch x := e.(type) {
	case *exec.ColRef:
		col, timesOne, ok := r.source(x.Idx)
		if !ok || timesOne || col >= r.h.NGroup {
			return nil, false
		}
		return &exec.ColRef{Idx: col, T: x.T}, true
	case *exec.Const:
		return x, true
	case *exec.Cast:
		if x.To.ID == types.Float64 {
			if t, ok := r.floatOf(x.E); ok {
				return t, true
			}
		}
		y, ok := r.expr(x.E)
		return &exec.Cast{E: y, To: x.To, Assign: x.Assign}, ok
	case *exec.Cmp:
		if zero, ok := x.R.(*exec.Const); ok && isZero(zero) {
			if t, ok := r.floatOf(x.L); ok {
				return &exec.Cmp{Op: x.Op, L: t, R: exec.NewConst(floatZero())}, true
			}
		}
		if zero, ok := x.L.(*exec.Const); ok && isZero(zero) {
			if t, ok := r.floatOf(x.R); ok {
				return &exec.Cmp{Op: x.Op, L: exec.NewConst(floatZero()), R: t}, true
			}
		}
		l, ok1 := r.expr(x.L)
		rr, ok2 := r.expr(x.R)
		return &exec.Cmp{Op: x.Op, L: l, R: rr}, ok1 && ok2
	case *exec.Arith:
		l, ok1 := r.expr(x.L)
		rr, ok2 := r.expr(x.R)
		return &exec.Arith{Op: x.Op, L: l, R: rr, T: x.T}, ok1 && ok2
	case *exec.Neg:
		y, ok := r.expr(x.E)
		return &exec.Neg{E: y}, ok
	case *exec.Not:
		y, ok := r.expr(x.E)
		return &exec.Not{E: y}, ok
	case *exec.IsNull:
		y, ok := r.expr(x.E)
		return &exec.IsNull{E: y, Not: x.Not}, ok
	case *exec.Logic:
		args, ok := all(x.Args)
		return &exec.Logic{And: x.And, Args: args}, ok
	case *exec.Case:
		when, ok1 := all(x.When)
		then, ok2 := all(x.Then)
		els, ok3 := opt(x.Else)
		return &exec.Case{When: when, Then: then, Else: els, T: x.T}, ok1 && ok2 && ok3
	case *exec.Coalesce:
		args, ok := all(x.Args)
		return &exec.Coalesce{Args: args, T: x.T}, ok
	}
	return nil, false
}

// numericOne reports a fixed-scale numeric constant 1 (1.000).
func numericOne(k *exec.Const) bool {
	v := k.V
	return v != nil && v.Len() == 1 && !v.IsNull(0) && v.Type.ID == types.Numeric && v.Type.Scale >= 0 &&
		v.Type.Scale <= 18 && v.I64[0] == types.Pow10(v.Type.Scale)
}

// isZero reports an integer or fixed-scale numeric constant 0.
func isZero(k *exec.Const) bool {
	v := k.V
	if v == nil || v.Len() != 1 || v.IsNull(0) || v.Type.Storage() != types.StoreInt {
		return false
	}
	return (v.Type.IsInteger() || v.Type.ID == types.Numeric && v.Type.Scale >= 0) && v.I64[0] == 0
}

func floatZero() *vec.Vector {
	v := vec.New(types.Float64T, 1)
	v.AppendFloat(0)
	return v
}
