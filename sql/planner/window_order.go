package planner

import (
	"slices"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/sql/planner/bind"
)

// orderWindows puts a window whose sort keys (partition, then order)
// begin with all of another window's keys before it, as PostgreSQL
// orders its windows: the later window then reads rows already sorted by
// its keys and aggregate.Window skips its sort. A window with only PARTITION BY
// takes its partition columns in the order the earlier window sorts them
// (partitions are the same in any column order). TPC-DS q47, q57 and q89
// compute avg(…) OVER (PARTITION BY a, b, c, year) below rank() OVER
// (PARTITION BY a, b, c ORDER BY year, month); the other way round the
// rows are sorted once.
func (qc *QueryCtx) orderWindows(w *bind.WindowCollector) {
	if len(w.Specs) < 2 || !qc.ruleOn(ruleWindowOrder) {
		return
	}
	moved := false
	for i := 0; i < len(w.Specs); i++ {
		for j := i + 1; j < len(w.Specs); j++ {
			if perm, ok := sortsFor(w, w.Specs[j], w.Specs[i]); ok {
				// j first; i reads its output sorted
				s := w.Specs[j]
				w.Specs = slices.Delete(w.Specs, j, j+1)
				w.Specs = slices.Insert(w.Specs, i, s)
				w.Specs[i+1].Partition = perm
				moved = true
				break
			}
		}
	}
	if moved {
		qc.fired(ruleWindowOrder)
	}
}

// sortsFor reports, for the windows of w, whether sorting by a's keys sorts b's rows by b's keys
// (b's partition columns in some order, then b's order keys), b's being
// fewer, and returns b's partition in that order.
func sortsFor(w *bind.WindowCollector, a, b *bind.WindowSpec) ([]int, bool) {
	col := func(e int) int {
		if c, ok := w.Exprs[e].(*exec.ColRef); ok {
			return c.Idx
		}
		return -1
	}
	var keys []exec.SortKey // a's, by input column
	for _, p := range a.Partition {
		keys = append(keys, exec.SortKey{Col: p})
	}
	keys = append(keys, a.Order...)
	nb := len(b.Partition) + len(b.Order)
	if nb >= len(keys) || nb == 0 {
		return nil, false
	}
	perm := make([]int, 0, len(b.Partition))
	used := make([]bool, len(b.Partition))
	for _, k := range keys[:len(b.Partition)] {
		c := col(k.Col)
		if k.Desc || k.NullsFirst || c < 0 {
			return nil, false
		}
		found := false
		for i, p := range b.Partition {
			if !used[i] && col(p) == c {
				used[i], found = true, true
				perm = append(perm, p)
				break
			}
		}
		if !found {
			return nil, false
		}
	}
	for i, o := range b.Order {
		k := keys[len(b.Partition)+i]
		if c := col(k.Col); c < 0 || c != col(o.Col) || k.Desc != o.Desc || k.NullsFirst != o.NullsFirst {
			return nil, false
		}
	}
	return perm, true
}
