package optimize

import (
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/sql/planner/logical"
)

// FilterBelowProject names the rule that moves a filter under a
// projection whose columns it reads are copies of input columns.
const FilterBelowProject = "filter_below_project"

// filterBelowProject moves a filter below a projection when every column
// it reads is one the projection copies from its input: the filter then
// reads those input columns instead, and keeps the same rows.
//
//	Filter p(c) (Project c := a, … (X))  →  Project c := a, … (Filter p(a) X)
//
// A JOIN with USING or NATURAL is such a projection over the join (the
// merged columns first, then both sides' own, sql/planner mergeUsing), so
// the rules that meet a filter over a join — outer_join_to_inner,
// outer_join_to_anti, outer_join_pushdown — reach the joins written that
// way too; it runs before them. A filter that reads a computed column
// (FULL JOIN USING's COALESCE of both sides' keys) stays above: moving it
// would compute the expression twice, and the outer-join rules could not
// read through it anyway.
type filterBelowProject struct{}

func (filterBelowProject) Name() string { return FilterBelowProject }

func (filterBelowProject) Apply(n logical.Node) (logical.Node, int) {
	f, ok := n.(*logical.Filter)
	if !ok {
		return n, 0
	}
	p, ok := f.Input.(*logical.Project)
	if !ok {
		return n, 0
	}
	copies := true
	pred := exec.MapColumns(f.Pred, func(i int) int {
		if c, ok := p.Exprs[i].(*exec.ColRef); ok {
			return c.Idx
		}
		copies = false
		return i
	})
	if !copies {
		return n, 0
	}
	c := *p
	c.Input = &logical.Filter{Input: p.Input, Pred: pred}
	return &c, 1
}

// copiedRange is the columns of projection p that copy input columns lo
// to hi-1, when a run of p's columns copies a run of them in order: the
// longest such run starting at lo's first copy (olo == ohi: none). When
// those input columns are NULL, so are these of p's, and perhaps others
// (a merged USING column): what rejects NULLs in these rejects them there.
func copiedRange(p *logical.Project, lo, hi int) (olo, ohi int) {
	olo = -1
	for k, e := range p.Exprs {
		if c, ok := e.(*exec.ColRef); ok && c.Idx == lo {
			olo = k
			break
		}
	}
	if olo < 0 {
		return 0, 0
	}
	ohi = olo
	for ohi < len(p.Exprs) {
		c, ok := p.Exprs[ohi].(*exec.ColRef)
		if !ok || c.Idx != lo+ohi-olo || c.Idx >= hi {
			break
		}
		ohi++
	}
	return olo, ohi
}
