package planner

import (
	"slices"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/aggregate"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/sql/planner/optree"
	"github.com/lakepg/lakepg/types"
)

// Rule outer_join_key_filter: a WHERE over LEFT JOINs that needs a row
// matched by one of them,
//
//	X LEFT JOIN B ON … LEFT JOIN C ON … WHERE (p(B) OR p(C)) AND …
//
// where p(B) is false or NULL when B's columns are NULL (the row matched
// nothing in B) and p(C) likewise, drops every row of X that matches
// neither B nor C. A hash join builds its right side before it reads its
// left one, so when X is an aggregation its input rows can be tested
// against those builds while X is made: a filter below the aggregation
// keeps the rows whose join keys B's build or C's has (exec.InJoinBuild;
// before a build exists it keeps every row, so it only ever saves work).
// The keys must be X's group keys, which the rows below the aggregation
// carry. TPC-DS q78 groups half a million store sales by year, item and
// customer and keeps the groups that web or catalog sales of the same
// year, item and customer have: most sales are no longer grouped.
func (qc *QueryCtx) outerJoinKeyFilters(op exec.Operator) {
	if !qc.ruleOn(ruleOuterJoinKeyFilter) {
		return
	}
	// an operator read by several (a WITH query's rows) is changed for
	// none of them: its other readers need every row
	parents := map[exec.Operator]int{}
	optree.EachOnce(op, func(op exec.Operator) {
		for _, in := range optree.Inputs(op) {
			parents[*in]++
		}
	})
	optree.EachOnce(op, func(op exec.Operator) {
		if f, ok := op.(*exec.Filter); ok && qc.outerJoinKeyFilter(f, parents) {
			qc.fired(ruleOuterJoinKeyFilter)
		}
	})
}

func (qc *QueryCtx) outerJoinKeyFilter(f *exec.Filter, parents map[exec.Operator]int) bool {
	in := f.Input
	for {
		if parents[in] > 1 {
			return false
		}
		if g, ok := in.(*exec.Filter); ok {
			in = g.Input
			continue
		}
		break
	}
	// the LEFT JOINs from the top down, the preserved side of the last one
	// being the aggregation
	var joins []*exec.HashJoin
	for {
		j, ok := in.(*exec.HashJoin)
		if !ok || j.Type != exec.JoinLeft || j.Shared != nil || parents[j.Left] > 1 {
			break
		}
		joins = append(joins, j)
		in = j.Left
	}
	if len(joins) == 0 {
		return false
	}
	// the preserved side's columns, read through projections that only
	// pick the aggregation's columns
	base := len(in.Types())
	pick := make([]int, base)
	for i := range pick {
		pick[i] = i
	}
	for {
		p, ok := in.(*exec.Project)
		if !ok || parents[p.Input] > 1 {
			break
		}
		for i, c := range pick {
			ref, ok := p.Exprs[c].(*exec.ColRef)
			if !ok {
				return false
			}
			pick[i] = ref.Idx
		}
		in = p.Input
	}
	agg, ok := in.(*aggregate.HashAgg)
	if !ok || agg.GroupingSets != nil || agg.Partial != nil {
		return false
	}
	// each join's right columns in the filter's input: they follow its
	// left input's, and the joins above keep them in place
	lo := make([]int, len(joins))
	w := base
	for i := len(joins) - 1; i >= 0; i-- {
		lo[i] = w
		w += len(joins[i].Right.Types())
	}
	ts := f.Input.Types()
	for _, c := range splitLogic(f.Pred, true) {
		need := qc.joinsNeeded(c, joins, lo, ts)
		if need == nil {
			continue
		}
		var tests []exec.Expr
		for _, i := range need {
			keys := make([]exec.Expr, len(joins[i].LeftKeys))
			for k, e := range joins[i].LeftKeys {
				ref, ok := e.(*exec.ColRef)
				if !ok || ref.Idx >= base || pick[ref.Idx] >= agg.NGroup {
					return false
				}
				// the aggregation groups by its input's first NGroup columns
				keys[k] = &exec.ColRef{Idx: pick[ref.Idx], T: ref.T}
			}
			tests = append(tests, &exec.InJoinBuild{Join: joins[i], Keys: keys})
		}
		pred := tests[0]
		if len(tests) > 1 {
			pred = &exec.Logic{Args: tests}
		}
		agg.Input = sinkFilter(qc.env, agg.Input, pred, parents)
		return true
	}
	return false
}

// sinkFilter filters in's rows by pred as low below in as pred's columns
// allow: through filters and projections that pass them on, and into the
// probe side of joins that keep probe rows as they come (inner, left,
// semi, anti), where the filter saves their probes too (q78's anti join
// with the returns).
func sinkFilter(env *exec.Env, in exec.Operator, pred exec.Expr, parents map[exec.Operator]int) exec.Operator {
	if parents[in] > 1 {
		return &exec.Filter{Env: env, Input: in, Pred: pred}
	}
	var cols []int
	exec.MapColumns(pred, func(i int) int {
		cols = append(cols, i)
		return i
	})
	switch o := in.(type) {
	case *exec.Filter:
		o.Input = sinkFilter(env, o.Input, pred, parents)
		return o
	case *exec.Project:
		for _, c := range cols {
			if _, ok := o.Exprs[c].(*exec.ColRef); !ok {
				return &exec.Filter{Env: env, Input: in, Pred: pred}
			}
		}
		o.Input = sinkFilter(env, o.Input, exec.MapColumns(pred, func(i int) int { return o.Exprs[i].(*exec.ColRef).Idx }), parents)
		return o
	case *exec.HashJoin:
		switch o.Type {
		case exec.JoinInner, exec.JoinLeft, exec.JoinSemi, exec.JoinAnti, exec.JoinAntiNullAware:
			if o.Shared == nil && slices.Max(cols) < len(o.Left.Types()) {
				o.Left = sinkFilter(env, o.Left, pred, parents)
				return o
			}
		}
	}
	return &exec.Filter{Env: env, Input: in, Pred: pred}
}

// joinsNeeded reports, for conjunct c, the joins one of which must have
// matched a row c keeps: c is an OR (or a single term) whose every term
// reads columns of one join's right side only and is false or NULL when
// they are all NULL. nil when c is not such a conjunct.
func (qc *QueryCtx) joinsNeeded(c exec.Expr, joins []*exec.HashJoin, lo []int, ts []types.T) []int {
	var need []int
	for _, d := range splitLogic(c, false) {
		side := -1
		mixed := false
		exec.MapColumns(d, func(i int) int {
			s := -1
			for k := range joins {
				if i >= lo[k] && i < lo[k]+len(joins[k].Right.Types()) {
					s = k
				}
			}
			if s < 0 || side >= 0 && s != side {
				mixed = true
			}
			side = s
			return i
		})
		if mixed || side < 0 || !qc.falseOnNulls(d, ts) {
			return nil
		}
		need = append(need, side)
	}
	return need
}

// falseOnNulls reports whether d is false or NULL on a row of NULLs.
func (qc *QueryCtx) falseOnNulls(d exec.Expr, ts []types.T) bool {
	b := &vec.Batch{N: 1, Vecs: make([]*vec.Vector, len(ts))}
	for i, t := range ts {
		b.Vecs[i] = vec.New(t, 1)
		b.Vecs[i].AppendNull()
	}
	var v *vec.Vector
	err := exec.Guard(func() (err error) {
		v, err = optree.CloneExpr(d).Eval(qc.env, b)
		return err
	})
	return err == nil && v != nil && v.Len() >= 1 && (v.IsNull(0) || !v.B[0])
}

// splitLogic is e's terms: its arguments when it is an AND (and) or an OR
// (!and), else e alone.
func splitLogic(e exec.Expr, and bool) []exec.Expr {
	if l, ok := e.(*exec.Logic); ok && l.And == and {
		var out []exec.Expr
		for _, a := range l.Args {
			out = append(out, splitLogic(a, and)...)
		}
		return out
	}
	return []exec.Expr{e}
}
