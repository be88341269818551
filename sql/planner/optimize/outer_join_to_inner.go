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
// The filter may be any of a stack of filters over the join, or a
// predicate of a join graph whose relation the join is (a FROM item: the
// graph joins its rows to the others' only where the predicate holds). An
// inner join keeps no NULL rows to test and needs no hash table of its
// preserved side's rows; a left join of the estimated smaller side keeps
// that choice (logical.Join.LeftSmall).
//
// The planner makes the same test earlier, on the syntax, for the LEFT
// and RIGHT joins of a FROM list it can flatten (sql/planner
// outer_join.go), so that the inner join is ordered with the list's other
// joins; this rule, under the same name, reaches the outer joins that stay
// joins of their own: FULL joins, joins with an alias. The join it
// simplifies keeps its columns (the same slice), by which the planner
// knows a graph's relation it rewrote.
type outerJoinToInner struct{}

func (outerJoinToInner) Name() string { return OuterJoinToInner }

func (outerJoinToInner) Apply(n logical.Node) (logical.Node, int) {
	switch x := n.(type) {
	case *logical.Filter:
		in, ok := innerer(x.Input, func(lo, hi int) bool { return RejectsNulls(x.Pred, lo, hi) })
		if !ok {
			return n, 0
		}
		return &logical.Filter{Input: in, Pred: x.Pred}, 1
	case *logical.JoinGraph:
		var rels []logical.Node
		start, changes := 0, 0
		for i, rel := range x.Rels {
			in, ok := innerer(rel, func(lo, hi int) bool { return predRejects(x, i, start+lo, start+hi) })
			if ok {
				if rels == nil {
					rels = append([]logical.Node{}, x.Rels...)
				}
				rels[i] = in
				changes++
			}
			start += len(rel.Columns())
		}
		if changes == 0 {
			return n, 0
		}
		g := *x
		g.Rels = rels
		return &g, changes
	}
	return n, 0
}

// innerer is n, a join under a stack of filters, with the join's kind
// made to fill no side with NULLs that rejects(lo, hi) says its columns lo
// to hi-1 (of n's) rejects; ok is false when that changes nothing.
func innerer(n logical.Node, rejects func(lo, hi int) bool) (logical.Node, bool) {
	if f, ok := n.(*logical.Filter); ok {
		in, ok := innerer(f.Input, rejects)
		if !ok {
			return n, false
		}
		return &logical.Filter{Input: in, Pred: f.Pred}, true
	}
	if p, ok := n.(*logical.Project); ok {
		// a USING join's projection (filter_below_project): what rejects
		// NULLs in the copies of a side's columns rejects them there
		in, ok := innerer(p.Input, func(lo, hi int) bool {
			olo, ohi := copiedRange(p, lo, hi)
			return olo < ohi && rejects(olo, ohi)
		})
		if !ok {
			return n, false
		}
		c := *p
		c.Input = in
		return &c, true
	}
	j, ok := n.(*logical.Join)
	if !ok {
		return n, false
	}
	nullLeft, nullRight := j.Kind.NullSides()
	if !nullLeft && !nullRight {
		return n, false // inner or anti
	}
	nl := len(j.Left.Columns())
	nullLeft = nullLeft && !rejects(0, nl)
	nullRight = nullRight && !rejects(nl, len(j.Cols))
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
		return n, false
	}
	c := *j
	c.Kind = kind
	return &c, true
}

// predRejects reports whether a predicate of join graph g over relation
// rel rejects rows whose columns lo to hi-1 (of g's) are NULL: an
// equality a hash key of them is NULL in, or a condition RejectsNulls.
func predRejects(g *logical.JoinGraph, rel, lo, hi int) bool {
	for _, p := range g.Preds {
		switch {
		case p.Rels&(1<<rel) == 0:
		case p.Hash && (nullOn(p.KeyA, lo, hi) || nullOn(p.KeyB, lo, hi)):
			return true
		case !p.Hash && RejectsNulls(p.Cond, lo, hi):
			return true
		}
	}
	return false
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
