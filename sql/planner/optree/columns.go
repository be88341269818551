package optree

import (
	"slices"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/aggregate"
	"github.com/lakepg/lakepg/exec/order"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// Column pruning: after planning, every operator passes all the columns of
// its inputs along, and scans list every table column. PruneColumns walks
// the tree from the root, keeps only the columns something above reads, and
// narrows the batches that joins, sorts and aggregates buffer. Scans then
// read only the column chunks still needed.

// exprCols marks the input columns e reads.
func exprCols(e exec.Expr, need []bool) {
	if e == nil {
		return
	}
	exec.MapColumns(e, func(i int) int {
		if i < len(need) {
			need[i] = true
		}
		return i
	})
}

func remapExpr(e exec.Expr, m []int) exec.Expr {
	if e == nil {
		return nil
	}
	return exec.MapColumns(e, func(i int) int { return m[i] })
}

func identity(n int) []int {
	m := make([]int, n)
	for i := range m {
		m[i] = i
	}
	return m
}

// All needs every one of n columns.
func All(n int) []bool {
	need := make([]bool, n)
	for i := range need {
		need[i] = true
	}
	return need
}

// PruneColumns rewrites op so that it outputs only the needed columns (it
// may output more) and returns the new operator and where each old output
// column went (-1: dropped).
func PruneColumns(op exec.Operator, need []bool) (exec.Operator, []int) {
	switch o := op.(type) {
	case *exec.Project:
		var kept []exec.Expr
		m := make([]int, len(o.Exprs))
		for i, e := range o.Exprs {
			if i < len(need) && !need[i] {
				m[i] = -1
				continue
			}
			m[i] = len(kept)
			kept = append(kept, e)
		}
		if len(kept) == 0 && len(o.Exprs) > 0 {
			// keep one column, as batches still carry the row count, but
			// a NULL of its type: what nothing reads is not computed (nor
			// folded while planning: PostgreSQL never folds a subquery's
			// output nothing reads, and a fold error there is not raised)
			kept, m[0] = []exec.Expr{exec.NullConst(o.Exprs[0].Type())}, 0
		}
		childNeed := make([]bool, len(o.Input.Types()))
		for _, e := range kept {
			exprCols(e, childNeed)
		}
		in, cm := PruneColumns(o.Input, childNeed)
		for i := range kept {
			kept[i] = remapExpr(kept[i], cm)
		}
		o.Input, o.Exprs = in, kept
		return o, m
	case *exec.Filter:
		childNeed := append([]bool{}, need...)
		for len(childNeed) < len(o.Input.Types()) {
			childNeed = append(childNeed, false)
		}
		exprCols(o.Pred, childNeed)
		in, cm := PruneColumns(o.Input, childNeed)
		o.Input, o.Pred = in, remapExpr(o.Pred, cm)
		return o, cm
	case *order.Sort:
		childNeed := append([]bool{}, need...)
		for _, k := range o.Keys {
			childNeed[k.Col] = true
		}
		in, cm := PruneColumns(o.Input, childNeed)
		for i := range o.Keys {
			o.Keys[i].Col = cm[o.Keys[i].Col]
		}
		o.Input = in
		return o, cm
	case *exec.Limit:
		in, cm := PruneColumns(o.Input, need)
		o.Input = in
		return o, cm
	case *exec.HashJoin:
		return pruneJoin(op, &o.Left, &o.Right, o.Type, need, append(append([]exec.Expr{}, o.LeftKeys...), o.RightKeys...), o.Extra,
			func(lm, rm []int, nl int) {
				for i := range o.LeftKeys {
					o.LeftKeys[i] = remapExpr(o.LeftKeys[i], lm)
					o.RightKeys[i] = remapExpr(o.RightKeys[i], rm)
				}
				o.Extra = remapExpr(o.Extra, joinMap(lm, rm, nl))
			}, len(o.LeftKeys))
	case *exec.NestedLoopJoin:
		return pruneJoin(op, &o.Left, &o.Right, o.Type, need, nil, o.On,
			func(lm, rm []int, nl int) { o.On = remapExpr(o.On, joinMap(lm, rm, nl)) }, 0)
	case *aggregate.HashAgg:
		// its input is the exact pre-projection; prune below it
		nullUnreadAggInputs(o, need)
		in, _ := PruneColumns(o.Input, All(len(o.Input.Types())))
		o.Input = in
		exec.Replanned(o)
		return o, identity(len(o.Types()))
	case *aggregate.Window:
		return pruneWindow(o, need)
	case *exec.TableScan:
		n := len(o.Cols)
		width := len(o.Types())
		if o.Needed != nil {
			for i := 0; i < n; i++ {
				o.Needed[i] = i < len(need) && need[i]
			}
		}
		// narrow the batches to the needed columns (cheap: vector pointers)
		var exprs []exec.Expr
		m := make([]int, width)
		ts := o.Types()
		for i := 0; i < width; i++ {
			if i < len(need) && need[i] {
				m[i] = len(exprs)
				exprs = append(exprs, &exec.ColRef{Idx: i, T: ts[i]})
			} else {
				m[i] = -1
			}
		}
		if len(exprs) == width || len(exprs) == 0 {
			return o, identity(width)
		}
		return &exec.Project{Input: o, Exprs: exprs, Env: &exec.Env{}}, m
	case *exec.BatchSource:
		return pruneBatchSource(o, need)
	}
	if x, ok := op.(Extender); ok {
		if in, ok := x.ExtendedInput(); ok {
			if pruned, m, ok := dropExtender(in, len(op.Types()), need); ok {
				return pruned, m
			}
		}
	}
	// anything else keeps its shape; its inputs keep all their columns
	for _, in := range Inputs(op) {
		*in, _ = PruneColumns(*in, All(len((*in).Types())))
	}
	exec.Replanned(op)
	return op, identity(len(op.Types()))
}

// nullUnreadAggInputs makes NULL the columns of o's pre-projection that
// only aggregates nothing reads take: the aggregation keeps its columns
// (and their positions), but what nobody reads is not computed, nor
// folded while planning — PostgreSQL drops a subquery's unread outputs,
// aggregate calls included, before it folds anything — and the scan below
// reads nothing for it. Over grouping sets the aggregates' columns come
// after the keys as well, the grouping id last.
func nullUnreadAggInputs(o *aggregate.HashAgg, need []bool) {
	p, ok := o.Input.(*exec.Project)
	if !ok {
		return
	}
	used := make([]bool, len(p.Exprs))
	mark := func(i int) {
		if i >= 0 && i < len(used) {
			used[i] = true
		}
	}
	for g := 0; g < o.NGroup; g++ {
		mark(g)
	}
	for i, a := range o.Aggs {
		switch a.Kind {
		case aggregate.AggStringAgg, aggregate.AggPercentileCont, aggregate.AggPercentileDisc:
			mark(a.Arg2) // a delimiter or fraction: constant, and checked
		}
		if k := o.NGroup + i; k < len(need) && !need[k] {
			continue
		}
		if a.Kind != aggregate.AggCountStar {
			mark(a.Arg)
		}
		mark(a.Filter - 1)
		for _, ord := range a.Order {
			mark(ord.Col)
		}
	}
	// a copy: the projection's expressions may be its logical node's too
	exprs := slices.Clone(p.Exprs)
	for j, e := range exprs {
		if !used[j] {
			exprs[j] = exec.NullConst(e.Type())
		}
	}
	p.Exprs = exprs
}

// joinMap maps columns of left ++ right through the sides' mappings.
func joinMap(lm, rm []int, nl int) []int {
	m := make([]int, 0, len(lm)+len(rm))
	m = append(m, lm...)
	for _, r := range rm {
		if r < 0 {
			m = append(m, -1)
		} else {
			m = append(m, nl+r)
		}
	}
	return m
}

func pruneJoin(op exec.Operator, left, right *exec.Operator, typ exec.JoinType, need []bool, keys []exec.Expr, extra exec.Expr, fix func(lm, rm []int, nl int), nkeys int) (exec.Operator, []int) {
	nl, nr := len((*left).Types()), len((*right).Types())
	lneed, rneed := make([]bool, nl), make([]bool, nr)
	leftOnly := typ == exec.JoinSemi || typ == exec.JoinAnti || typ == exec.JoinAntiNullAware
	rightOnly := typ == exec.JoinRightSemi || typ == exec.JoinRightAnti
	if rightOnly {
		copy(rneed, need)
	} else {
		for i := 0; i < nl && i < len(need); i++ {
			lneed[i] = need[i]
		}
	}
	if !leftOnly && !rightOnly {
		for i := 0; i < nr && nl+i < len(need); i++ {
			rneed[i] = need[nl+i]
		}
	}
	for i, k := range keys {
		if i < nkeys {
			exprCols(k, lneed)
		} else {
			exprCols(k, rneed)
		}
	}
	if extra != nil {
		both := make([]bool, nl+nr)
		exprCols(extra, both)
		for i := 0; i < nl; i++ {
			lneed[i] = lneed[i] || both[i]
		}
		for i := 0; i < nr; i++ {
			rneed[i] = rneed[i] || both[nl+i]
		}
	}
	l, lm := PruneColumns(*left, lneed)
	r, rm := PruneColumns(*right, rneed)
	*left, *right = l, r
	exec.Replanned(op)
	newNL := len(l.Types())
	fix(lm, rm, newNL)
	switch {
	case leftOnly:
		return op, lm
	case rightOnly:
		return op, rm
	}
	return op, joinMap(lm, rm, newNL)
}

// pruneWindow narrows a window's input to the columns above it and the ones
// its partitioning, ordering and functions read: a window buffers, sorts and
// possibly spills every input column, so each one it carries for nothing
// costs it memory and time.
func pruneWindow(o *aggregate.Window, need []bool) (exec.Operator, []int) {
	nin := len(o.Input.Types())
	childNeed := make([]bool, nin)
	copy(childNeed, need[:min(len(need), nin)])
	cols := func(f func(*int)) {
		for i := range o.PartitionBy {
			f(&o.PartitionBy[i])
		}
		for i := range o.OrderBy {
			f(&o.OrderBy[i].Col)
		}
		for fi := range o.Funcs {
			fn := &o.Funcs[fi]
			for k := range fn.Args {
				f(&fn.Args[k])
			}
			if fn.Kind != aggregate.WinAgg {
				continue
			}
			if fn.Agg.Kind != aggregate.AggCountStar {
				f(&fn.Agg.Arg)
			}
			if fn.Agg.Kind == aggregate.AggStringAgg {
				f(&fn.Agg.Arg2)
			}
			if fn.Agg.Filter > 0 {
				c := fn.Agg.Filter - 1
				f(&c)
				fn.Agg.Filter = c + 1
			}
			for k := range fn.Agg.Order {
				f(&fn.Agg.Order[k].Col)
			}
		}
	}
	// a window clause named twice projects its keys twice; read one copy
	if p, ok := o.Input.(*exec.Project); ok {
		first := map[int]int{}
		alias := identity(nin)
		for i, e := range p.Exprs {
			if r, ok := e.(*exec.ColRef); ok {
				if j, seen := first[r.Idx]; seen {
					alias[i] = j
				} else {
					first[r.Idx] = i
				}
			}
		}
		cols(func(c *int) { *c = alias[*c] })
	}
	cols(func(c *int) { childNeed[*c] = true })
	in, cm := PruneColumns(o.Input, childNeed)
	cols(func(c *int) { *c = cm[*c] })
	o.Input = in
	exec.Replanned(o)
	width := len(in.Types())
	m := make([]int, nin+len(o.Funcs))
	copy(m, cm)
	for fi := range o.Funcs {
		m[nin+fi] = width + fi
	}
	return o, m
}

// pruneBatchSource narrows rows made while planning (a pg_catalog table,
// pg_class of 33 columns) to the needed columns: a join or sort above would
// otherwise copy every column of every row, and a lazy batch makes only
// those. The batch may be shared (a correlated subplan re-emits it), so the
// source gets a new one holding the same vectors.
func pruneBatchSource(o *exec.BatchSource, need []bool) (exec.Operator, []int) {
	width := len(o.T)
	if o.B == nil && o.Lazy == nil || o.B != nil && len(o.B.Vecs) != width {
		return o, identity(width)
	}
	m := make([]int, width)
	var keep []int
	for i := 0; i < width; i++ {
		m[i] = -1
		if i < len(need) && need[i] {
			m[i] = len(keep)
			keep = append(keep, i)
		}
	}
	if len(keep) == width {
		return o, identity(width)
	}
	if len(keep) == 0 {
		// keep one column: batches still carry the row count
		keep, m[0] = []int{0}, 0
	}
	ts := make([]types.T, len(keep))
	for k, i := range keep {
		ts[k] = o.T[i]
	}
	if o.B != nil {
		vecs := make([]*vec.Vector, len(keep))
		for k, i := range keep {
			vecs[k] = o.B.Vecs[i]
		}
		return &exec.BatchSource{B: &vec.Batch{Vecs: vecs, N: o.B.N}, T: ts}, m
	}
	// the lazy batch's own columns: Need marks which of Make's the source
	// holds now
	own := make([]int, 0, width)
	for i := range o.Lazy.Need {
		if o.Lazy.Need[i] {
			own = append(own, i)
		}
	}
	if o.Lazy.Need == nil {
		own = identity(width)
	}
	sub := make([]bool, max(len(o.Lazy.Need), width))
	for _, i := range keep {
		sub[own[i]] = true
	}
	return &exec.BatchSource{T: ts, Lazy: &exec.LazyBatch{N: o.Lazy.N, Make: o.Lazy.Make, Need: sub}}, m
}

// Extender is an operator that passes each row of its input on with
// columns of its own after the input's: a correlated subquery's value per
// outer row. ExtendedInput is that input, ok false when the operator also
// changes the rows (a LATERAL join).
type Extender interface {
	exec.Operator
	ExtendedInput() (in exec.Operator, ok bool)
}

// dropExtender replaces an Extender none of whose own columns are needed by
// its input: PostgreSQL never evaluates a subquery whose value nothing reads
// (a CASE branch its planner dropped, a derived table's unused column), so
// neither its errors nor its work happen.
func dropExtender(in exec.Operator, width int, need []bool) (exec.Operator, []int, bool) {
	nin := len(in.Types())
	for i := nin; i < len(need) && i < width; i++ {
		if need[i] {
			return nil, nil, false
		}
	}
	childNeed := make([]bool, nin)
	copy(childNeed, need)
	pruned, cm := PruneColumns(in, childNeed)
	m := make([]int, width)
	copy(m, cm)
	for i := nin; i < width; i++ {
		m[i] = -1
	}
	return pruned, m, true
}
