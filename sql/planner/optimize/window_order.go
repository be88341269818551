package optimize

import (
	"slices"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/sql/planner/logical"
)

// WindowOrder names the rule that orders a stack of windows so that
// their sorts are shared.
const WindowOrder = "window_order"

// windowOrder puts a window whose sort keys (partition, then order) begin
// with all of another window's keys below it, as PostgreSQL orders its
// windows: the window above then reads rows already sorted by its keys
// and the executor skips its sort. A window with only PARTITION BY takes
// its partition columns in the order the window below sorts them
// (partitions are the same in any column order). TPC-DS q47, q57 and q89
// compute avg(…) OVER (PARTITION BY a, b, c, year) below rank() OVER
// (PARTITION BY a, b, c ORDER BY year, month) as written; the other way
// round the rows are sorted once.
//
// The windows of a SELECT block are a stack over the Project of their
// inputs, each adding its calls' columns after those of the windows below
// it, so a new order moves the columns: the rule rewrites the Project
// above the stack (the select list), and the tests of the subqueries
// (Apply) between them, to read them where they are now. A stack under
// any other node stays as it is.
type windowOrder struct{}

func (windowOrder) Name() string { return WindowOrder }

func (windowOrder) Apply(n logical.Node) (logical.Node, int) {
	p, ok := n.(*logical.Project)
	if !ok {
		return n, 0
	}
	var applies []*logical.Apply // between the Project and the stack, top first
	in := p.Input
	for {
		a, ok := in.(*logical.Apply)
		if !ok {
			break
		}
		applies = append(applies, a)
		in = a.Input
	}
	var stack []*logical.Window // bottom first
	for {
		w, ok := in.(*logical.Window)
		if !ok {
			break
		}
		stack = append(stack, w)
		in = w.Input
	}
	if len(stack) < 2 {
		return n, 0
	}
	slices.Reverse(stack)
	base := in
	width := len(base.Columns())
	for _, w := range stack {
		if !readsOnly(w, width) {
			return n, 0
		}
	}
	// the windows in their new order, each with the column its calls
	// began at in the old one
	type placed struct {
		w    *logical.Window
		from int
	}
	order := make([]placed, len(stack))
	at := width
	for i, w := range stack {
		order[i] = placed{w, at}
		at += len(w.Calls)
	}
	ident := keyIdentity(base)
	// Each move puts a window with more keys before one with fewer, so the
	// stack's key counts, read bottom-up, grow in lexicographic order:
	// passes until none moves end, and the stack they leave is one the
	// next pass of the driver leaves as it is.
	moves := 0
	for again := true; again; {
		again = false
		for i := 0; i < len(order); i++ {
			for j := i + 1; j < len(order); j++ {
				if perm, ok := sortsFor(ident, order[j].w, order[i].w); ok {
					// j first; i reads its output sorted
					w := order[j]
					order = slices.Delete(order, j, j+1)
					order = slices.Insert(order, i, w)
					c := *order[i+1].w
					c.Partition = perm
					order[i+1].w = &c
					moves++
					again = true
					break
				}
			}
		}
	}
	if moves == 0 {
		return n, 0
	}
	// the Applies' columns come after the stack's and stay
	remap := make([]int, at+len(applies))
	for i := range width {
		remap[i] = i
	}
	for i := at; i < len(remap); i++ {
		remap[i] = i
	}
	var top logical.Node = base
	at = width
	for _, o := range order {
		for k := range o.w.Calls {
			remap[o.from+k] = at + k
		}
		at += len(o.w.Calls)
		top = logical.NewWindow(top, o.w.Partition, o.w.Order, o.w.Calls, o.w.Parallel)
	}
	moved := func(c int) int { return remap[c] }
	for i := len(applies) - 1; i >= 0; i-- {
		a := *applies[i]
		a.Input = top
		if a.Test != nil {
			a.Test = exec.MapColumns(a.Test, moved)
		}
		top = &a
	}
	exprs := make([]exec.Expr, len(p.Exprs))
	for i, e := range p.Exprs {
		exprs[i] = exec.MapColumns(e, moved)
	}
	return &logical.Project{Input: top, Exprs: exprs, Cols: p.Cols}, 1
}

// readsOnly reports whether window w reads only the first width columns
// of its input (the stack's base, not another window's results).
func readsOnly(w *logical.Window, width int) bool {
	ok := func(c int) bool { return c >= 0 && c < width }
	for _, c := range w.Partition {
		if !ok(c) {
			return false
		}
	}
	for _, k := range w.Order {
		if !ok(k.Col) {
			return false
		}
	}
	for _, c := range w.Calls {
		for _, a := range c.Args {
			if !ok(a) {
				return false
			}
		}
		if c.Func == logical.WinAgg && (!ok(c.Agg.Arg) || !ok(c.Agg.Arg2) || c.Agg.Filter > 0 && !ok(c.Agg.Filter-1)) {
			return false
		}
	}
	return true
}

// keyIdentity tells which value a column of the stack's base holds, for
// comparing two windows' keys: over a Project, the input column a column
// reference reads (two references to one column are one key) and -1 for
// any other expression (unknown, never equal); otherwise the column
// itself.
func keyIdentity(base logical.Node) func(int) int {
	if p, ok := base.(*logical.Project); ok {
		return func(c int) int {
			if r, ok := p.Exprs[c].(*exec.ColRef); ok {
				return r.Idx
			}
			return -1
		}
	}
	return func(c int) int { return c }
}

// sortsFor reports whether sorting by a's keys sorts b's rows by b's keys
// (b's partition columns in some order, then b's order keys), b's being
// fewer, and returns b's partition in that order.
func sortsFor(col func(int) int, a, b *logical.Window) ([]int, bool) {
	keys := make([]logical.SortKey, 0, len(a.Partition)+len(a.Order))
	for _, p := range a.Partition {
		keys = append(keys, logical.SortKey{Col: p})
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
