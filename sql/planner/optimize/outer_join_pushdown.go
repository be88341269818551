package optimize

import (
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/sql/planner/logical"
)

// OuterJoinPushdown names the rule that filters a join's preserved side
// before the join by the conditions above it on that side alone.
const OuterJoinPushdown = "outer_join_pushdown"

// outerJoinPushdown moves a filter over an explicit join that reads only
// a side the join keeps every row of (the left of a LEFT join, the right
// of a RIGHT join, either of an inner one) onto that side: the join keeps
// each row of that side and the rows it joins to it, so filtering the
// side's rows first keeps the same joined rows, and the join reads fewer.
//
//	Filter p(A) (A LEFT JOIN B)  →  (Filter p(A) A) LEFT JOIN B
//
// A FULL join keeps the unmatched rows of both sides, so nothing goes
// below it: outer_join_to_inner runs first and makes it a LEFT, RIGHT or
// inner join where a filter allows. A filter under others moves past
// them, since filters commute.
//
// Likewise the terms of a join's ON condition over a side whose unmatched
// rows it does not keep (the right of a LEFT or anti join, the left of a
// RIGHT join, either of an inner one) filter that side before the join:
// its rows that fail them match nothing, the same as rows that are not
// there. joinPlanned does so as it plans a join; this reaches the joins
// outer_join_to_inner made of FULL ones.
//
// The planner moves WHERE conditions into the preserved side of the FROM
// list's LEFT and RIGHT joins earlier, on the syntax (sql/planner
// outer_join.go), so that they reach the tables and prune their files;
// this rule, under the same name, reaches the joins that stay joins of
// their own.
type outerJoinPushdown struct{}

func (outerJoinPushdown) Name() string { return OuterJoinPushdown }

func (outerJoinPushdown) Apply(n logical.Node) (logical.Node, int) {
	if j, ok := n.(*logical.Join); ok {
		return onPushdown(j)
	}
	f, ok := n.(*logical.Filter)
	if !ok {
		return n, 0
	}
	var stack []*logical.Filter // the filters between f and the join
	in := f.Input
	for {
		g, ok := in.(*logical.Filter)
		if !ok {
			break
		}
		stack = append(stack, g)
		in = g.Input
	}
	j, ok := in.(*logical.Join)
	if !ok || j.Kind == logical.FullJoin || len(j.Filters) > 0 {
		return n, 0
	}
	nl := len(j.Left.Columns())
	lo, hi := len(j.Cols), -1
	exec.MapColumns(f.Pred, func(i int) int {
		lo, hi = min(lo, i), max(hi, i)
		return i
	})
	c := *j
	switch {
	case hi < 0:
		return n, 0 // a constant: it filters all or nothing either way
	case hi < nl && j.Kind != logical.RightJoin:
		c.Left = &logical.Filter{Input: j.Left, Pred: f.Pred}
	case lo >= nl && (j.Kind == logical.InnerJoin || j.Kind == logical.RightJoin):
		c.Right = &logical.Filter{Input: j.Right, Pred: exec.MapColumns(f.Pred, func(i int) int { return i - nl })}
	default:
		return n, 0
	}
	var out logical.Node = &c
	for i := len(stack) - 1; i >= 0; i-- {
		out = &logical.Filter{Input: out, Pred: stack[i].Pred}
	}
	return out, 1
}

// onPushdown moves the terms of j's ON condition over a side whose
// unmatched rows j drops onto that side.
func onPushdown(j *logical.Join) (logical.Node, int) {
	if j.On == nil || j.Kind == logical.FullJoin || len(j.Filters) > 0 {
		return j, 0
	}
	nl := len(j.Left.Columns())
	left := j.Kind == logical.InnerJoin || j.Kind == logical.RightJoin
	right := j.Kind != logical.RightJoin
	var keep, onLeft, onRight []exec.Expr
	for _, t := range terms(j.On) {
		lo, hi := len(j.Left.Columns())+len(j.Right.Columns()), -1
		exec.MapColumns(t, func(i int) int {
			lo, hi = min(lo, i), max(hi, i)
			return i
		})
		switch {
		case hi >= 0 && hi < nl && left:
			onLeft = append(onLeft, t)
		case hi >= 0 && lo >= nl && right:
			onRight = append(onRight, exec.MapColumns(t, func(i int) int { return i - nl }))
		default:
			keep = append(keep, t)
		}
	}
	if len(onLeft)+len(onRight) == 0 {
		return j, 0
	}
	c := *j
	for _, t := range onLeft {
		c.Left = &logical.Filter{Input: c.Left, Pred: t}
	}
	for _, t := range onRight {
		c.Right = &logical.Filter{Input: c.Right, Pred: t}
	}
	switch len(keep) {
	case 0:
		c.On = nil
	case 1:
		c.On = keep[0]
	default:
		c.On = &exec.Logic{And: true, Args: keep}
	}
	return &c, len(onLeft) + len(onRight)
}

// terms are the conjuncts of AND e.
func terms(e exec.Expr) []exec.Expr {
	if l, ok := e.(*exec.Logic); ok && l.And {
		var out []exec.Expr
		for _, a := range l.Args {
			out = append(out, terms(a)...)
		}
		return out
	}
	return []exec.Expr{e}
}
