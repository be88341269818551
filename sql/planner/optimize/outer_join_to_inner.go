package optimize

import (
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/sql/planner/logical"
)

// OuterJoinToInner names the rule that drops the unmatched rows an outer
// join would keep when a filter above it rejects them anyway.
const OuterJoinToInner = "outer_join_to_inner"

// outerJoinToInner simplifies an outer join under a filter that is false
// or NULL whenever a side's columns are all NULL: the rows the join keeps
// unmatched, NULL on that side, never pass it, so the join need not make
// them.
//
//	Filter p(B) (A LEFT JOIN B)   →  Filter p(B) (A JOIN B)
//	Filter p(A) (A FULL JOIN B)   →  Filter p(A) (A LEFT JOIN B)
//	Filter p(A) (A RIGHT JOIN B)  →  Filter p(A) (A JOIN B)
//
// The filter may be any of a stack of filters over the join. An inner
// join keeps no NULL rows to test and needs no hash table of its preserved
// side's rows; a left join of the estimated smaller side keeps that
// choice (logical.Join.LeftSmall).
//
// The planner makes the same test earlier, on the syntax, for the LEFT
// and RIGHT joins of a FROM list it can flatten (sql/planner
// outer_join.go), so that the inner join is ordered with the list's other
// joins; this rule, under the same name, reaches the outer joins that stay
// joins of their own: FULL joins, joins with USING or an alias.
type outerJoinToInner struct{}

func (outerJoinToInner) Name() string { return OuterJoinToInner }

func (outerJoinToInner) Apply(n logical.Node) (logical.Node, int) {
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
	if !ok || j.Kind == logical.InnerJoin {
		return n, 0
	}
	nl := len(j.Left.Columns())
	nullLeft, nullRight := j.Kind.NullSides()
	if nullLeft && RejectsNulls(f.Pred, 0, nl) {
		nullLeft = false
	}
	if nullRight && RejectsNulls(f.Pred, nl, len(j.Cols)) {
		nullRight = false
	}
	kind := logical.InnerJoin
	switch {
	case nullLeft && nullRight:
		kind = logical.FullJoin
	case nullLeft:
		kind = logical.RightJoin
	case nullRight:
		kind = logical.LeftJoin
	}
	if kind == j.Kind {
		return n, 0
	}
	c := *j
	c.Kind = kind
	var out logical.Node = &c
	for i := len(stack) - 1; i >= 0; i-- {
		out = &logical.Filter{Input: out, Pred: stack[i].Pred}
	}
	return &logical.Filter{Input: out, Pred: f.Pred}, 1
}

// RejectsNulls reports whether predicate p is false or NULL on every row
// whose columns lo to hi-1 are NULL, whatever its other columns hold. It
// knows the strict shapes only (a comparison, LIKE, IN or IS NOT NULL of
// an expression NULL then, an AND with such a term, an OR of them all) and
// says no to the rest.
func RejectsNulls(p exec.Expr, lo, hi int) bool {
	switch x := p.(type) {
	case *exec.Logic:
		if x.And {
			for _, a := range x.Args {
				if RejectsNulls(a, lo, hi) {
					return true
				}
			}
			return false
		}
		for _, a := range x.Args {
			if !RejectsNulls(a, lo, hi) {
				return false
			}
		}
		return len(x.Args) > 0
	case *exec.IsNull:
		return x.Not && nullOn(x.E, lo, hi)
	}
	return nullOn(p, lo, hi)
}

// nullOn reports whether e is NULL on every row whose columns lo to hi-1
// are NULL: a column among them, or a strict operation of such an
// expression.
func nullOn(e exec.Expr, lo, hi int) bool {
	switch x := e.(type) {
	case *exec.ColRef:
		return x.Idx >= lo && x.Idx < hi
	case *exec.Cast:
		return nullOn(x.E, lo, hi)
	case *exec.Cmp:
		return nullOn(x.L, lo, hi) || nullOn(x.R, lo, hi)
	case *exec.Arith:
		return nullOn(x.L, lo, hi) || nullOn(x.R, lo, hi)
	case *exec.Neg:
		return nullOn(x.E, lo, hi)
	case *exec.Not:
		return nullOn(x.E, lo, hi)
	case *exec.Like:
		return nullOn(x.E, lo, hi) || nullOn(x.Pattern, lo, hi)
	case *exec.InList:
		return nullOn(x.E, lo, hi)
	}
	return false
}
