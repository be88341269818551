package optimize

import (
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/sql/planner/logical"
)

// OuterJoinToAnti names the rule that plans a LEFT join filtered to its
// unmatched rows as an anti join.
const OuterJoinToAnti = "outer_join_to_anti"

// outerJoinToAnti plans a LEFT join under the filter col IS NULL, col a
// column of its right side that a hash key of the join is NULL without,
// as an anti join: a row the join matched has that key, so col, not NULL,
// and the filter keeps exactly the left rows that matched nothing, their
// right columns NULL.
//
//	Filter b.k IS NULL (A LEFT JOIN B ON a.k = b.k)
//	  →  Project a.*, NULL, … (A ANTI JOIN B ON a.k = b.k)
//
// The anti join stops at a left row's first match and never fills right
// columns. The filter may be any of a stack of filters over the join; the
// others stay above the projection, but those over the left side alone go
// under it, for outer_join_pushdown (which runs next) to move below the
// join. The projection keeps the join's
// columns (the same slice), by which the planner knows a join graph's
// relation it rewrote.
//
// The planner does the same earlier, on the syntax, for the FROM list's
// LEFT joins (sql/planner outer_join.go); this rule, under the same name,
// reaches the joins that stay joins of their own: joins with an alias,
// FULL joins outer_join_to_inner made LEFT.
type outerJoinToAnti struct{}

func (outerJoinToAnti) Name() string { return OuterJoinToAnti }

func (outerJoinToAnti) Apply(n logical.Node) (logical.Node, int) {
	if out, ok := underAntiProjection(n); ok {
		return out, 1
	}
	var stack []*logical.Filter // the filters down to the join
	in := n
	for {
		g, ok := in.(*logical.Filter)
		if !ok {
			break
		}
		stack = append(stack, g)
		in = g.Input
	}
	j, ok := in.(*logical.Join)
	if !ok || j.Kind != logical.LeftJoin || len(j.Filters) > 0 || len(stack) == 0 {
		return n, 0
	}
	nl := len(j.Left.Columns())
	at := -1
	for k, f := range stack {
		if isNullOfKey(f.Pred, j, nl) {
			at = k
			break
		}
	}
	if at < 0 {
		return n, 0
	}
	proj := AntiJoin(j)
	// the other filters over the left side's columns alone go under the
	// projection, for outer_join_pushdown to move below the join; the rest
	// read the NULLs it adds
	var below logical.Node = proj.Input
	var above []exec.Expr
	for k := len(stack) - 1; k >= 0; k-- {
		switch {
		case k == at:
		case readsBelow(stack[k].Pred, nl):
			below = &logical.Filter{Input: below, Pred: stack[k].Pred}
		default:
			above = append(above, stack[k].Pred)
		}
	}
	proj.Input = below
	var out logical.Node = proj
	for _, p := range above {
		out = &logical.Filter{Input: out, Pred: p}
	}
	return out, 1
}

// AntiJoin is LEFT join j as an anti join under a projection that gives
// back j's columns (the same slice), the right side's NULL: j under a
// filter that keeps its unmatched rows alone. The planner makes it so of
// the FROM list's LEFT joins (sql/planner outer_join.go).
func AntiJoin(j *logical.Join) *logical.Project {
	anti := logical.NewOuterJoin(logical.AntiJoin, j.Left, j.Right, j.LeftKeys, j.RightKeys, j.On, j.LeftSmall)
	anti.LeftRows, anti.RightRows = j.LeftRows, j.RightRows
	nl := len(j.Left.Columns())
	exprs := make([]exec.Expr, len(j.Cols))
	for i, c := range j.Cols {
		if i < nl {
			exprs[i] = &exec.ColRef{Idx: i, T: c.Type}
		} else {
			exprs[i] = exec.NullConst(c.Type)
		}
	}
	return &logical.Project{Input: anti, Exprs: exprs, Cols: j.Cols}
}

// underAntiProjection moves filter n, if over the left side, under the
// projection this rule put over an anti join below it, past the filters
// between them (it fired at a filter below n).
func underAntiProjection(n logical.Node) (logical.Node, bool) {
	f, ok := n.(*logical.Filter)
	if !ok {
		return n, false
	}
	var between []*logical.Filter
	in := f.Input
	for {
		g, ok := in.(*logical.Filter)
		if !ok {
			break
		}
		between = append(between, g)
		in = g.Input
	}
	p, ok := in.(*logical.Project)
	if !ok || !antiProjection(p) || !readsBelow(f.Pred, len(p.Input.Columns())) {
		return n, false
	}
	c := *p
	c.Input = &logical.Filter{Input: p.Input, Pred: f.Pred}
	var out logical.Node = &c
	for k := len(between) - 1; k >= 0; k-- {
		out = &logical.Filter{Input: out, Pred: between[k].Pred}
	}
	return out, true
}

// antiProjection reports whether p is the projection this rule puts over
// an anti join (under filters): the left columns as they are, then NULLs.
func antiProjection(p *logical.Project) bool {
	in := p.Input
	for {
		f, ok := in.(*logical.Filter)
		if !ok {
			break
		}
		in = f.Input
	}
	j, ok := in.(*logical.Join)
	if !ok || j.Kind != logical.AntiJoin || len(p.Exprs) <= len(j.Cols) {
		return false
	}
	for i, e := range p.Exprs {
		c, isCol := e.(*exec.ColRef)
		if i < len(j.Cols) && (!isCol || c.Idx != i) {
			return false
		}
		if k, isConst := e.(*exec.Const); i >= len(j.Cols) && (!isConst || k.V == nil || k.V.Len() != 1 || !k.V.IsNull(0)) {
			return false
		}
	}
	return true
}

// readsBelow reports whether e reads only columns below n.
func readsBelow(e exec.Expr, n int) bool {
	ok := true
	exec.MapColumns(e, func(i int) int {
		ok = ok && i < n
		return i
	})
	return ok
}

// isNullOfKey reports whether p is col IS NULL for a right-side column of
// join j (nl left columns) that one of its right keys is NULL without.
func isNullOfKey(p exec.Expr, j *logical.Join, nl int) bool {
	t, ok := p.(*exec.IsNull)
	if !ok || t.Not {
		return false
	}
	c, ok := t.E.(*exec.ColRef)
	if !ok || c.Idx < nl {
		return false
	}
	for _, k := range j.RightKeys {
		if nullOn(k, c.Idx-nl, c.Idx-nl+1) {
			return true
		}
	}
	return false
}
