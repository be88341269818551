package exec

import (
	"slices"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// FoldError returns the error PostgreSQL's planner raises for e, or nil.
//
// PostgreSQL folds the constant subexpressions of a query while planning it
// (eval_const_expressions), so `SELECT CASE WHEN x > 0 THEN 1/0 END FROM t`
// fails with 22012 whatever t holds, even when it is empty. It skips only
// what a constant decides is never reached: a WHEN whose condition is a
// false or NULL constant, everything after a WHEN that is a true constant,
// the COALESCE arguments after a non-NULL constant, and the AND/OR
// arguments after a decisive constant. The binder folds what it can and
// leaves a constant expression that fails as it is (an Arith of constants,
// a function call, a cast); this walk, in PostgreSQL's order, finds the
// ones the planner would have evaluated. Only immutable expressions count:
// PostgreSQL leaves stable functions (now(), time zone conversions) and
// volatile ones to execution.
func FoldError(env *Env, e Expr) error {
	if e == nil {
		return nil
	}
	if _, ok := e.(*Const); ok {
		return nil
	}
	if isConstant(e) {
		_, err := e.Eval(env, &vec.Batch{N: 1})
		return err
	}
	switch x := e.(type) {
	case *Case:
		for k, w := range x.When {
			if isConstant(w) {
				v, err := w.Eval(env, &vec.Batch{N: 1})
				if err != nil {
					return err
				}
				if v.IsNull(0) || !v.B[0] {
					continue // never taken: PostgreSQL drops the branch unexamined
				}
				return FoldError(env, x.Then[k]) // always taken: the rest is dead
			}
			if err := FoldError(env, w); err != nil {
				return err
			}
			if strictNull(w) {
				continue // PostgreSQL folds it to NULL: never taken
			}
			if err := FoldError(env, x.Then[k]); err != nil {
				return err
			}
		}
		return FoldError(env, x.Else)
	case *Coalesce:
		for _, a := range x.Args {
			if isConstant(a) {
				v, err := a.Eval(env, &vec.Batch{N: 1})
				if err != nil {
					return err
				}
				if !v.IsNull(0) {
					return nil
				}
				continue
			}
			if err := FoldError(env, a); err != nil {
				return err
			}
		}
		return nil
	case *Logic:
		for _, a := range x.Args {
			if isConstant(a) {
				v, err := a.Eval(env, &vec.Batch{N: 1})
				if err != nil {
					return err
				}
				if !v.IsNull(0) && v.B[0] != x.And {
					return nil
				}
				continue
			}
			if err := FoldError(env, a); err != nil {
				return err
			}
		}
		return nil
	}
	for _, c := range children(e) {
		if err := FoldError(env, c); err != nil {
			return err
		}
	}
	return nil
}

// children lists the operands of the expressions FoldError looks into; any
// other expression is opaque to it.
func children(e Expr) []Expr {
	switch x := e.(type) {
	case *Arith:
		return []Expr{x.L, x.R}
	case *Neg:
		return []Expr{x.E}
	case *Cmp:
		return []Expr{x.L, x.R}
	case *Not:
		return []Expr{x.E}
	case *IsNull:
		return []Expr{x.E}
	case *Like:
		return []Expr{x.E, x.Pattern}
	case *Cast:
		return []Expr{x.E}
	case *DateClamp:
		return []Expr{x.E}
	case *InList:
		return []Expr{x.E}
	case *FnCall:
		return x.Args
	case *Func:
		return x.Args
	case *ArrayCtor:
		return x.Elems
	case *Case:
		out := append(append([]Expr{}, x.When...), x.Then...)
		if x.Else != nil {
			out = append(out, x.Else)
		}
		return out
	case *Coalesce:
		return x.Args
	case *Logic:
		return x.Args
	}
	return nil
}

// isConstant reports an immutable expression over constants only, which
// PostgreSQL's planner evaluates.
func isConstant(e Expr) bool {
	switch x := e.(type) {
	case *Const:
		return !x.Param
	case *Arith, *Neg, *Cmp, *Not, *IsNull, *Like, *InList, *ArrayCtor, *Case, *Coalesce, *Logic, *DateClamp:
	case *Cast:
		if stableCast(x.E.Type(), x.To) {
			return false
		}
	case *FnCall:
		if x.O.Volatile || x.O.Stable {
			return false
		}
	default:
		return false // columns, parameters, subqueries, opaque kernels
	}
	for _, c := range children(e) {
		if c != nil && !isConstant(c) {
			return false
		}
	}
	return true
}

// timeDependent marks the types whose text conversions read DateStyle,
// IntervalStyle or TimeZone, which makes their casts stable, not immutable.
func timeDependent(t types.T) bool {
	switch t.ID {
	case types.Date, types.Timestamp, types.Timestamptz, types.Time, types.TimeTZ, types.Interval:
		return true
	}
	return false
}

// ConstantBool evaluates a boolean expression of constants, as
// PostgreSQL's planner folds it: ok false when e reads a row, calls a
// stable function or fails (FoldError reports the failure).
func ConstantBool(env *Env, e Expr) (v, null, ok bool) {
	if e == nil || e.Type().ID != types.Bool || !isConstant(e) {
		return false, false, false
	}
	r, err := e.Eval(env, &vec.Batch{N: 1})
	if err != nil {
		return false, false, false
	}
	if r.IsNull(0) {
		return false, true, true
	}
	return r.B[0], false, true
}

// stableCast reports a cast PostgreSQL marks stable, which its planner
// does not fold: a date/time type's text conversions (DateStyle,
// IntervalStyle) and a cast to or from a zoned type (TimeZone). The casts
// among date, timestamp, time and interval are immutable and fold
// (DATE '5874897-12-31'::timestamp fails while planning).
func stableCast(from, to types.T) bool {
	if !timeDependent(from) && !timeDependent(to) {
		return false
	}
	if !timeDependent(from) || !timeDependent(to) {
		return true
	}
	zoned := func(t types.T) bool { return t.ID == types.Timestamptz || t.ID == types.TimeTZ }
	return zoned(from) || zoned(to)
}

// NeverTrue reports a predicate that is a constant false or NULL, so that
// a plan can skip reading the input it would filter (a UNION ALL branch
// whose constant column a pushed-down filter rules out). An evaluation
// error is not decided here (FoldError reports it): false.
func NeverTrue(env *Env, e Expr) bool {
	switch x := e.(type) {
	case *Cmp:
		// a comparison with a NULL is NULL whatever the row holds, as
		// PostgreSQL's planner folds a strict operator of a NULL
		if strictNull(x) {
			return true
		}
	case *Logic:
		if x.And && slices.ContainsFunc(x.Args, func(a Expr) bool { return NeverTrue(env, a) }) {
			return true
		}
	}
	if e == nil || !isConstant(e) || e.Type().ID != types.Bool {
		return false
	}
	v, err := e.Eval(env, &vec.Batch{N: 1})
	return err == nil && (v.IsNull(0) || !v.B[0])
}

// strictNull reports an expression that is NULL whatever the row holds: a
// NULL constant, or a strict operation (cast, comparison, arithmetic) of
// one, which PostgreSQL's planner folds to NULL.
func strictNull(e Expr) bool {
	switch x := e.(type) {
	case *Const:
		return !x.Param && x.V.Len() == 1 && x.V.IsNull(0)
	case *Cast:
		return strictNull(x.E)
	case *DateClamp:
		return strictNull(x.E)
	case *Neg:
		return strictNull(x.E)
	case *Cmp:
		return strictNull(x.L) || strictNull(x.R)
	case *Arith:
		return strictNull(x.L) || strictNull(x.R)
	}
	return false
}
