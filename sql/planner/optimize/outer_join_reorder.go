package optimize

import (
	"math"
	"slices"
	"strings"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/sql/planner/logical"
)

// OuterJoinReorder names the rule that joins a FROM list's tables to the
// preserved side of a LEFT join in the list before the outer join.
const OuterJoinReorder = "outer_join_reorder"

// outerJoinReorder takes a LEFT join that is a relation of a join graph
// apart, so that the graph's other relations join its preserved side K
// before the outer join does:
//
//	JoinGraph(K LEFT JOIN N ON q, C1, …, Ck; preds)
//	  →  Project (JoinGraph(K, C1, …, Ck; preds) LEFT JOIN N ON q)
//
// the projection giving the columns back in the graph's order. join_order
// (which runs next) then orders K with the Ci: TPC-DS q80 joins 2.9 M
// store_sales rows with the 30 dates that keep 2 % of them before looking
// up their returns, not after; q40 and q78 are alike.
//
// Why it is valid. q reads only K's and N's columns (it was written between
// them), so a row of K meets the same rows of N whatever it is joined to
// beside K: (K ⟕q N) × C = (K × C) ⟕q N, each K row's matches, or its one
// NULL-extended row, repeated for each C row. A graph predicate over K's
// columns and the Ci's is a filter of that product, and filters of the
// preserved side's columns commute with the LEFT join (it keeps every
// preserved row and adds none), so they may go below it, into the inner
// graph. A predicate reading N's columns may not: below the join they do
// not exist, and above it it sees the NULLs the join adds for K rows
// without a match (COALESCE(n.x, 0) = c.y holds for some of them), so it
// stays above the join, with every relation it reads: those relations stay
// out of the inner graph, in a graph above the LEFT join, and so do the
// relations that reach K only through them (below the join they would be
// joined to K by no predicate). What joins K through predicates not
// reading N (and reading no relation kept out) goes below; if nothing
// does, the rule does not fire. Filters the planner put on the relation
// itself (WHERE conditions over K and N alone, which outer_join_pushdown
// did not move onto K because they read N) stay above the join too.
//
// The same holds for an anti join (outer_join_to_anti's, under the
// projection that adds N's NULL columns): (K ▷q N) × C = (K × C) ▷q N,
// since whether a K row has a match does not depend on C. A FULL join
// also keeps N's unmatched rows, K's columns NULL, which a Ci's predicate
// over K would then see: it stays as it is (outer_join_to_inner, which
// runs first, makes it LEFT or inner where a filter allows). A RIGHT join
// is a LEFT join of its sides swapped; the rule leaves it as written. A
// join the planner recorded no estimate of K's rows for
// (logical.Join.LeftRows) is left alone too: the inner graph needs it.
//
// K may be any plan, a join itself. The rule applies again to the graphs
// it makes: when K is a LEFT join in turn (FROM a LEFT JOIN b ON … LEFT
// JOIN c ON …, d: ((a, d) ⟕ b) ⟕ c), and when the graph has several LEFT
// joins (FROM a LEFT JOIN b ON …, c LEFT JOIN d ON …, e: ((a, c, e) ⟕ d)
// ⟕ b or the like), so that one pass reaches its fixed point.
type outerJoinReorder struct{}

func (outerJoinReorder) Name() string { return OuterJoinReorder }

func (outerJoinReorder) Apply(n logical.Node) (logical.Node, int) {
	g, ok := n.(*logical.JoinGraph)
	if !ok {
		return n, 0
	}
	return reorderOuter(g)
}

// reorderOuter applies the rule to a LEFT or anti join of g that has
// relations to take below it, then to the graphs that makes. With several,
// the first by the relations' names goes on top, so that the plan does not
// depend on the order FROM lists them in.
func reorderOuter(g *logical.JoinGraph) (logical.Node, int) {
	order := make([]int, len(g.Rels))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return strings.Compare(g.Names[a], g.Names[b]) })
	for _, o := range order {
		if out, k := belowOuter(g, o); k > 0 {
			return out, k
		}
	}
	return g, 0
}

// outerRel is a join graph's relation taken apart: filters over an outer
// join (top first, over the relation's columns), the join, and whether it
// is an anti join under the projection that adds its right side's NULLs.
type outerRel struct {
	filters []exec.Expr
	j       *logical.Join
	anti    *logical.Project
}

func splitOuterRel(n logical.Node) (outerRel, bool) {
	var r outerRel
	for {
		f, ok := n.(*logical.Filter)
		if !ok {
			break
		}
		r.filters = append(r.filters, f.Pred)
		n = f.Input
	}
	if p, ok := n.(*logical.Project); ok && antiProjection(p) {
		r.anti = p
		n = p.Input
	}
	j, ok := n.(*logical.Join)
	if !ok || len(j.Filters) > 0 || j.LeftRows <= 0 {
		return r, false
	}
	r.j = j
	return r, j.Kind == logical.LeftJoin && r.anti == nil || j.Kind == logical.AntiJoin && r.anti != nil
}

// belowOuter applies the rule to relation o of g, if it is an outer join
// with relations to take below it.
func belowOuter(g *logical.JoinGraph, o int) (logical.Node, int) {
	r, ok := splitOuterRel(g.Rels[o])
	if !ok {
		return g, 0
	}
	k, nr := r.j.Left, r.j.Right
	nk, nn := len(k.Columns()), len(nr.Columns())
	start := make([]int, len(g.Rels)+1) // where relation i's columns start in g
	for i, rel := range g.Rels {
		start[i+1] = start[i] + len(rel.Columns())
	}
	readsN := func(p logical.JoinPred) bool {
		lo, hi := start[o]+nk, start[o]+nk+nn
		if p.Rels&(1<<o) == 0 {
			return false
		}
		if p.Hash {
			return readsColumns(p.KeyA, lo, hi) || readsColumns(p.KeyB, lo, hi)
		}
		return readsColumns(p.Cond, lo, hi)
	}
	// the relations a predicate reading N joins stay above the outer join
	var blocked uint64
	for _, p := range g.Preds {
		if readsN(p) {
			blocked |= p.Rels &^ (1 << o)
		}
	}
	in := uint64(1) << o // K and what joins it below the outer join
	for grown := true; grown; {
		grown = false
		for _, p := range g.Preds {
			if p.Rels&in != 0 && p.Rels&^in != 0 && p.Rels&blocked == 0 && !readsN(p) {
				in |= p.Rels
				grown = true
			}
		}
	}
	if in == 1<<o {
		return g, 0
	}

	// the inner graph: K first, then the relations below in g's order
	var rels, outRels []logical.Node
	var rows, outRows []float64
	var names, outNames []string
	at := make([]int, len(g.Rels)) // each relation's index in its new graph (K's: 0)
	rels, rows, names = append(rels, k), append(rows, r.j.LeftRows), append(names, g.Names[o])
	for i, rel := range g.Rels {
		if i != o && in&(1<<i) != 0 {
			at[i] = len(rels)
			rels, rows, names = append(rels, rel), append(rows, g.Rows[i]), append(names, g.Names[i])
		}
	}
	// wpos maps g's columns of relations below to their place in the
	// outer join's output: the inner graph's columns, then N's
	wpos := make([]int, len(g.Cols))
	off := nk
	for i := range g.Rels {
		switch {
		case i == o:
			for c := range nk + nn {
				wpos[start[o]+c] = c
			}
		case in&(1<<i) != 0:
			for c := start[i]; c < start[i+1]; c++ {
				wpos[c] = off + c - start[i]
			}
			off += start[i+1] - start[i]
		}
	}
	innerCols := off
	for c := range nn {
		wpos[start[o]+nk+c] = innerCols + c
	}
	var preds, outPreds []logical.JoinPred
	innerRows := 1.0
	for _, x := range rows {
		innerRows *= x
	}
	for _, p := range g.Preds {
		if p.Rels&^in != 0 || readsN(p) {
			outPreds = append(outPreds, p)
			continue
		}
		preds = append(preds, remapPred(p, at, wpos))
		innerRows *= p.Sel
	}
	innerRows = math.Max(1, innerRows)
	inner, changes := reorderOuter(logical.NewJoinGraph(rels, rows, names, preds))
	changes++

	// the outer join over it: K's columns are where they were on its left
	j := logical.NewOuterJoin(r.j.Kind, inner, nr, r.j.LeftKeys, r.j.RightKeys, nil, r.j.LeftSmall)
	if r.j.On != nil {
		j.On = exec.MapColumns(r.j.On, func(c int) int { return wpos[start[o]+c] })
	}
	if r.j.RightRows > 0 {
		j.LeftSmall = r.j.RightRows > 2*innerRows
	}
	j.LeftRows, j.RightRows, j.Rows = innerRows, r.j.RightRows, innerRows
	var top logical.Node = j
	if r.anti != nil {
		exprs := make([]exec.Expr, innerCols+nn)
		cols := append(append([]logical.Column{}, inner.Columns()...), r.anti.Cols[nk:]...)
		for c := range exprs {
			if c < innerCols {
				exprs[c] = &exec.ColRef{Idx: c, T: cols[c].Type}
			} else {
				exprs[c] = exec.NullConst(cols[c].Type)
			}
		}
		top = &logical.Project{Input: j, Exprs: exprs, Cols: cols}
	}
	for f := len(r.filters) - 1; f >= 0; f-- {
		top = &logical.Filter{Input: top, Pred: exec.MapColumns(r.filters[f], func(c int) int { return wpos[start[o]+c] })}
	}

	// the relations and predicates kept above it: a graph of their own
	pos := wpos // g's columns in the output
	if in != 1<<len(g.Rels)-1 {
		pos = make([]int, len(g.Cols))
		off := 0
		for i, rel := range g.Rels {
			switch {
			case i == o:
				for b := range g.Rels {
					if in&(1<<b) != 0 {
						at[b] = len(outRels)
						for c := start[b]; c < start[b+1]; c++ {
							pos[c] = off + wpos[c]
						}
					}
				}
				outRels, outRows, outNames = append(outRels, top), append(outRows, innerRows), append(outNames, g.Names[o])
				off += len(top.Columns())
			case in&(1<<i) == 0:
				at[i] = len(outRels)
				outRels, outRows, outNames = append(outRels, rel), append(outRows, g.Rows[i]), append(outNames, g.Names[i])
				for c := start[i]; c < start[i+1]; c++ {
					pos[c] = off + c - start[i]
				}
				off += start[i+1] - start[i]
			}
		}
		for x, p := range outPreds {
			outPreds[x] = remapPred(p, at, pos)
		}
		var more int
		top, more = reorderOuter(logical.NewJoinGraph(outRels, outRows, outNames, outPreds))
		changes += more
	}
	exprs := make([]exec.Expr, len(g.Cols))
	names = make([]string, len(g.Cols))
	for c, col := range g.Cols {
		exprs[c] = &exec.ColRef{Idx: pos[c], T: col.Type}
		names[c] = col.Name
	}
	return logical.NewProject(top, exprs, names), changes
}

// remapPred is predicate p in a graph where relation i is at[i] and
// column c at pos[c] (its keys and condition are over the graph's
// columns).
func remapPred(p logical.JoinPred, at, pos []int) logical.JoinPred {
	q := p
	q.Rels = 0
	for i := range at {
		if p.Rels&(1<<i) != 0 {
			q.Rels |= 1 << at[i]
		}
	}
	by := func(c int) int { return pos[c] }
	if p.Hash {
		q.A, q.B = at[p.A], at[p.B]
		q.KeyA, q.KeyB = exec.MapColumns(p.KeyA, by), exec.MapColumns(p.KeyB, by)
	} else {
		q.Cond = exec.MapColumns(p.Cond, by)
	}
	return q
}

// readsColumns reports whether e reads a column from lo to hi-1.
func readsColumns(e exec.Expr, lo, hi int) bool {
	found := false
	exec.MapColumns(e, func(i int) int {
		found = found || i >= lo && i < hi
		return i
	})
	return found
}
