package estimate

import (
	"context"
	"fmt"
	"math"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/aggregate"
	"github.com/lakepg/lakepg/exec/order"
	"github.com/lakepg/lakepg/sql/joinorder"
	"github.com/lakepg/lakepg/sql/planner/optree"
	"github.com/lakepg/lakepg/sql/pruning"
	"github.com/lakepg/lakepg/types"
)

// Row estimates for EXPLAIN: every operator line gets "Rows: N estimated"
// with the rule that gave N. The rules are deliberately simple (no
// histograms, no sampling) and use only what the catalog already knows:
//
//   - scan: the rows of the row groups left after pruning (the scan's own
//     "estimated after pruning" figure), plus inlined rows;
//   - filter: input × selectivity, by predicate kind: col = const 1/ndv
//     (0.1 without an ndv), col <> const 1 − that; a range comparison the
//     fraction of the column's catalog [min, max] it keeps (1/3 without);
//     IS NULL the catalog's null fraction (0.05 without; on the side an
//     outer join pads, plus the share it pads, see padNulls); IN (list) n × the
//     equality selectivity; LIKE 0.1; AND multiplies, OR adds minus the
//     overlap, NOT complements; anything else 0.5;
//   - ndv (distinct values) of a scanned integer or date column: the
//     catalog's max − min + 1, capped at its non-NULL count; other columns
//     have none;
//   - hash join: |L|·|R| / max(ndv) per key when a key side has an ndv
//     (several keys: one composite key, its ndv on a side the product of
//     the columns' capped at the side's rows), else the larger side;
//     outer joins keep at least their preserved sides; semi joins keep |L| × min(1, ndv(R)/ndv(L)) (half without),
//     anti joins the rest; nested loops |L|·|R| × the ON selectivity;
//   - aggregate: one row without GROUP BY; else the product of the group
//     keys' ndv, capped at the input; input/10 when a key has none;
//   - sort and window keep their input, top-N and LIMIT cap it; UNION ALL
//     adds; VALUES counts its rows; other sources (functions) guess 1000.
type Estimator struct {
	src   Source
	ctx   context.Context
	Rows  map[exec.Operator]Estimate
	scans map[*exec.TableScan]ScanStats
	// analyzed: the plan has run (EXPLAIN ANALYZE), so scans report what
	// they actually read
	Analyzed bool
	// catalogOnly: estimating while planning, when no footer is read; a
	// scan counts the catalog's rows of the files left after pruning
	CatalogOnly bool
	// verbose: EXPLAIN (VERBOSE) prints each operator's cost too
	Verbose bool
	// env, when set, lets filters of small tables be counted exactly
	// (estimate_exact.go)
	Env *exec.Env
	// usedSketch: an ndv from sketches went into the estimate being
	// computed, which EXPLAIN then says (ndv.go)
	usedSketch bool
}

// Estimate is the rows of an operator and the rule that gave them.
type Estimate struct {
	Rows float64
	How  string
}

// ColInfo is what the catalog says about one column of an operator's output.
type ColInfo struct {
	NDV      float64 // distinct non-NULL values; 0: unknown
	lo, hi   float64 // the catalog's min and max, when hasRange
	hasRange bool
	nullFrac float64 // when hasNulls
	hasNulls bool
	t        types.T
	sketch   bool // ndv is from distinct-value sketches (ndv.go)
}

// New is an estimator of the plans of one statement, reading src.
func New(ctx context.Context, src Source) *Estimator {
	return &Estimator{src: src, ctx: ctx, Rows: map[exec.Operator]Estimate{}, scans: map[*exec.TableScan]ScanStats{}}
}

// Scan returns the footer statistics of a scan, read once per EXPLAIN.
func (e *Estimator) Scan(o *exec.TableScan) (ScanStats, error) {
	if st, ok := e.scans[o]; ok {
		return st, nil
	}
	st, err := e.src.RowGroups(e.ctx, o)
	if err != nil {
		return st, err
	}
	e.scans[o] = st
	return st, nil
}

// Of is the estimate of op, computed once.
func (e *Estimator) Of(op exec.Operator) Estimate {
	if op == nil {
		return Estimate{}
	}
	if r, ok := e.Rows[op]; ok {
		return r
	}
	r := e.compute(op)
	e.Rows[op] = r
	return r
}

// N is the estimated rows of op.
func (e *Estimator) N(op exec.Operator) float64 { return e.Of(op).Rows }

// unprunedRows is the rows of the files a scan reads before its row groups
// and pages are pruned, or 0 when op is not a scan that knows them.
func (e *Estimator) unprunedRows(op exec.Operator) float64 {
	for {
		switch x := op.(type) {
		case *exec.Timed:
			op = x.Input
			continue
		case *exec.Project: // keeps its input's rows
			op = x.Input
			continue
		}
		break
	}
	o, ok := op.(*exec.TableScan)
	if !ok || e.CatalogOnly {
		return 0
	}
	n, exact := ScanRows(o)
	if !exact {
		return 0
	}
	all := float64(n)
	for _, b := range o.Inlined {
		all += float64(b.N)
	}
	return all
}

// atLeastOne keeps a derived estimate from claiming an empty result.
func atLeastOne(in, x float64) float64 {
	if in > 0 && x < 1 {
		return 1
	}
	return x
}

func (e *Estimator) compute(op exec.Operator) Estimate {
	switch o := op.(type) {
	case *exec.Timed:
		return e.Of(o.Input)
	case *exec.TableScan:
		if e.CatalogOnly {
			return e.catalogRows(o)
		}
		st, err := e.Scan(o)
		if err != nil {
			return Estimate{1000, "no statistics"}
		}
		n := float64(st.Rows)
		for _, b := range o.Inlined {
			n += float64(b.N)
		}
		return Estimate{n, "row groups after pruning"}
	case *exec.Parallel:
		if chain := e.src.Chain(o); chain != nil {
			return e.Of(chain)
		}
		return e.Of(parallelInput(o))
	case *exec.Filter:
		// a stack of filters is one conjunction over the input below it,
		// whatever order the filters are in
		base, preds := o.Input, []exec.Expr{o.Pred}
		for f, ok := base.(*exec.Filter); ok; f, ok = base.(*exec.Filter) {
			base, preds = f.Input, append(preds, f.Pred)
		}
		pred := preds[0]
		if len(preds) > 1 {
			pred = &exec.Logic{And: true, Args: preds}
		}
		in := e.N(base)
		if n, ok := e.exactCount(base, pred); ok {
			return Estimate{atLeastOne(in, n), "counted: a small table"}
		}
		saved := e.usedSketch
		e.usedSketch = false
		sel := e.selectivity(pred, base)
		how := fmt.Sprintf("filter selectivity %.3g", sel) + e.sketchNote(saved)
		rows := in * sel
		if all := e.unprunedRows(base); all > in {
			// the scan's row groups and pages were pruned by these
			// predicates already, and the selectivity (from the column's
			// whole range) applies to the rows before that (date_dim
			// filtered to a year: pruned to 28,672 of 73,049 rows by the
			// page index, times the year's 1/201, gave 142 rows, not 363)
			rows = min(in, all*sel)
		}
		return Estimate{atLeastOne(in, rows), how}
	case *exec.Project:
		return Estimate{e.N(o.Input), "input"}
	case *exec.RowNumber:
		return Estimate{e.N(o.Input), "input"}
	case *aggregate.Window:
		return Estimate{e.N(o.Input), "input"}
	case *order.Sort:
		in := e.N(o.Input)
		if o.Limit > 0 && float64(o.Limit) < in {
			return Estimate{float64(o.Limit), "top-N"}
		}
		return Estimate{in, "input"}
	case *exec.Limit:
		return e.limit(o.Input, o.Offset, o.Count)
	case *exec.LimitTies:
		return e.limit(o.Input, o.Offset, o.Count)
	case *aggregate.HashAgg:
		return e.aggregate(o)
	case *exec.DistinctOn:
		in := e.N(o.Input)
		g, how := e.groups(o.Input, o.Keys, in)
		return Estimate{g, how}
	case *exec.HashJoin:
		return e.hashJoin(o)
	case *exec.NestedLoopJoin:
		l, r := e.N(o.Left), e.N(o.Right)
		sel := 1.0
		if o.On != nil {
			sel = e.selectivity(o.On, o)
		}
		return e.outer(o.Type, l, r, atLeastOne(l*r, l*r*sel), fmt.Sprintf("|L|·|R| × ON selectivity %.3g", sel))
	case *exec.Values:
		return Estimate{float64(len(o.Rows)), "VALUES rows"}
	case *exec.Append:
		sum := 0.0
		for _, in := range o.Inputs {
			sum += e.N(in)
		}
		return Estimate{sum, "sum of inputs"}
	case *exec.SetOp:
		l, r := e.N(o.Left), e.N(o.Right)
		if o.Intersect {
			return Estimate{math.Min(l, r), "smaller input"}
		}
		return Estimate{l, "left input"}
	case *exec.MaterializedReader:
		return e.Of(o.M.Input)
	case *exec.ChunkScan:
		return Estimate{float64(o.Rows()), "temporary table rows"}
	case *exec.BatchSource:
		// rows made while planning (pg_catalog tables): their count is
		// known, and pg_class of a big lake is the side not to hash
		if o.B != nil || o.Lazy != nil {
			return Estimate{float64(o.Rows()), "rows made while planning"}
		}
	}
	if ins := optree.Inputs(op); len(ins) == 1 {
		return Estimate{e.N(*ins[0]), "input"}
	}
	return Estimate{1000, "default for a function or other source"}
}

// Cost is the join ordering's cost of the plan below op (sql/planner/join_order.go):
// rows built into hash tables (weighted), rows probing them and rows out of
// joins, summed over the joins; a nested loop compares every pair.
func (e *Estimator) Cost(op exec.Operator) float64 {
	c := 0.0
	for _, in := range optree.Inputs(op) {
		c += e.Cost(*in)
	}
	switch o := op.(type) {
	case *exec.Parallel:
		if chain := e.src.Chain(o); chain != nil {
			return e.Cost(chain)
		}
	case *exec.HashJoin:
		right := o.Right
		if o.Shared != nil {
			right = o.Shared.Right
		}
		c += (e.N(o.Left)+joinorder.BuildWeight*e.N(right))*joinorder.KeyWeight(len(o.LeftKeys), e.N(right)) + e.N(o)
	case *exec.NestedLoopJoin:
		c += e.N(o.Left)*e.N(o.Right) + e.N(o)
	}
	return c
}

// parallelInput is what a Parallel's workers read: its scan, a WITH
// query's rows or a split operator. Only the one set is returned, so that a
// nil *TableScan never reaches a type switch as a non-nil operator.
func parallelInput(o *exec.Parallel) exec.Operator {
	switch {
	case o.Scan != nil:
		return o.Scan
	case o.Rows != nil:
		return o.Rows
	case o.Split != nil:
		return o.Split
	}
	return nil
}

// catalogRows is a scan's row count by the catalog: the live rows of the
// files it reads and its inlined rows.
func (e *Estimator) catalogRows(o *exec.TableScan) Estimate {
	n := 0.0
	for _, f := range o.Files {
		n += float64(f.RecordCount - f.DeleteCount - int64(len(f.Deleted)))
	}
	for _, b := range o.Inlined {
		n += float64(b.N)
	}
	return Estimate{n, "catalog rows of the files after pruning"}
}

func (e *Estimator) limit(in exec.Operator, offset, count int64) Estimate {
	n := math.Max(0, e.N(in)-float64(offset))
	if count >= 0 && float64(count) <= n {
		return Estimate{float64(count), "LIMIT"}
	}
	return Estimate{n, "input after OFFSET"}
}

func (e *Estimator) aggregate(o *aggregate.HashAgg) Estimate {
	in := e.N(o.Input)
	if o.NGroup == 0 {
		return Estimate{1, "one row without GROUP BY"}
	}
	if o.GroupingSets == nil {
		keys := make([]int, o.NGroup)
		for i := range keys {
			keys[i] = i
		}
		g, how := e.groups(o.Input, keys, in)
		return Estimate{g, how}
	}
	sum := 0.0
	for _, set := range o.GroupingSets {
		g, _ := e.groups(o.Input, set, in)
		if len(set) == 0 {
			g = 1
		}
		sum += g
	}
	return Estimate{sum, "sum over grouping sets of the groups' distinct estimates"}
}

// groups estimates the distinct combinations of columns keys of in.
func (e *Estimator) groups(in exec.Operator, keys []int, rows float64) (float64, string) {
	g, sketch := 1.0, false
	for _, k := range keys {
		ci := e.Column(in, k)
		if ci.NDV == 0 {
			return atLeastOne(rows, math.Ceil(rows/10)), "input/10: a group key has no distinct estimate"
		}
		g *= ci.NDV
		sketch = sketch || ci.sketch
	}
	how := "product of the group keys' distinct estimates"
	if sketch {
		how += sketchHow
	}
	return atLeastOne(rows, math.Min(g, rows)), how
}

func (e *Estimator) hashJoin(o *exec.HashJoin) Estimate {
	right := o.Right
	if o.Shared != nil {
		right = o.Shared.Right
	}
	l, r := e.N(o.Left), e.N(right)
	saved := e.usedSketch
	e.usedSketch = false
	sel, known, ndvL, ndvR := e.keyNDVs(o, right)
	inner, how := math.Max(l, r), "larger side"
	if known {
		inner, how = l*r*sel, "|L|·|R| / key distinct estimate"+e.sketchNote(saved)
	}
	if o.Extra != nil && !LeftOnly(o.Type) && !RightOnly(o.Type) {
		inner *= e.selectivity(o.Extra, o)
	}
	inner = atLeastOne(l*r, inner)
	switch o.Type {
	case exec.JoinSemi, exec.JoinAnti, exec.JoinAntiNullAware:
		return semiAnti(o.Type != exec.JoinSemi, l, ndvL, ndvR)
	case exec.JoinRightSemi, exec.JoinRightAnti:
		return semiAnti(o.Type == exec.JoinRightAnti, r, ndvR, ndvL)
	}
	return e.outer(o.Type, l, r, inner, how)
}

// keyNDVs: the join's selectivity by its keys' distinct estimates (known
// when a key has one) and the products of each side's key ndvs (0 when
// one is unknown).
func (e *Estimator) keyNDVs(o *exec.HashJoin, right exec.Operator) (sel float64, known bool, ndvL, ndvR float64) {
	sel, ndvL, ndvR = 1, 1, 1
	l, r := e.N(o.Left), e.N(right)
	compL, compR := 1.0, 1.0
	for i := range o.LeftKeys {
		a, b := e.ExprColumn(o.LeftKeys[i], o.Left), e.ExprColumn(o.RightKeys[i], right)
		e.usedSketch = e.usedSketch || a.sketch || b.sketch
		if a.NDV > 0 || b.NDV > 0 {
			sel /= math.Max(a.NDV, b.NDV)
			known = true
		}
		ndvL, ndvR = ndvL*a.NDV, ndvR*b.NDV
		compL, compR = compL*OrRows(a.NDV, l), compR*OrRows(b.NDV, r)
	}
	if known && len(o.LeftKeys) > 1 {
		// a composite key, as join ordering counts it (compositeKeys):
		// its columns are correlated, so multiplying their selectivities
		// took catalog_sales ⋈ catalog_returns on item and order for 72
		// rows instead of 144,000 (TPC-DS q64)
		sel = 1 / math.Max(1, math.Max(math.Min(compL, l), math.Min(compR, r)))
	}
	return sel, known, ndvL, ndvR
}

// nullableSide: output column idx of an outer join comes from a side the
// join pads with NULLs (left has nLeft columns).
func nullableSide(t exec.JoinType, idx, nLeft int) bool {
	switch t {
	case exec.JoinLeft:
		return idx >= nLeft
	case exec.JoinRight:
		return idx < nLeft
	case exec.JoinFull:
		return true
	}
	return false
}

// padNulls adds the rows an outer join pads with NULLs to a column's null
// fraction: the preserved side's share of keys the other side lacks,
// between 0.1 and 0.9 — never none, or "LEFT JOIN … WHERE r.k IS NULL"
// (an anti join by hand, TPC-DS q78) would estimate no rows and every
// join above would build on its millions.
func (ci *ColInfo) padNulls(ndvSelf, ndvOther float64) {
	unmatched := 0.5
	if ndvSelf > 0 && ndvOther > 0 {
		unmatched = 1 - math.Min(1, ndvOther/ndvSelf)
	}
	unmatched = math.Min(0.9, math.Max(0.1, unmatched))
	ci.nullFrac = unmatched + (1-unmatched)*ci.nullFrac
	ci.hasNulls = true
}

// semiAnti: the fraction of the probe side's keys the other side has.
func semiAnti(anti bool, n, ndvSelf, ndvOther float64) Estimate {
	frac, how := 0.5, "half of the probe side"
	if ndvSelf > 0 && ndvOther > 0 {
		frac, how = math.Min(1, ndvOther/ndvSelf), "probe side × share of its keys present"
	}
	if anti {
		frac = 1 - frac
	}
	return Estimate{atLeastOne(n, n*frac), how}
}

func (e *Estimator) outer(t exec.JoinType, l, r, inner float64, how string) Estimate {
	switch t {
	case exec.JoinLeft:
		return Estimate{math.Max(inner, l), how + ", at least the left side"}
	case exec.JoinRight:
		return Estimate{math.Max(inner, r), how + ", at least the right side"}
	case exec.JoinFull:
		return Estimate{math.Max(inner, math.Max(l, r)), how + ", at least the larger side"}
	}
	return Estimate{inner, how}
}

// selectivity estimates the fraction of in's rows for which p is true.
func (e *Estimator) selectivity(p exec.Expr, in exec.Operator) float64 {
	switch x := p.(type) {
	case *exec.Logic:
		if x.And {
			// range comparisons of one column make one interval
			// (BETWEEN): multiplying them as if independent would
			// count the share below the upper bound twice
			s := 1.0
			intervals := map[int]*[2]float64{}
			var cols []int
			for _, a := range x.Args {
				if col, lo, hi, ok := e.rangeShare(a, in); ok {
					if r := intervals[col]; r != nil {
						r[0], r[1] = math.Max(r[0], lo), math.Min(r[1], hi)
					} else {
						intervals[col] = &[2]float64{lo, hi}
						cols = append(cols, col)
					}
					continue
				}
				s *= e.selectivity(a, in)
			}
			for _, c := range cols {
				s *= math.Max(0, intervals[c][1]-intervals[c][0])
			}
			return s
		}
		s := 0.0
		for _, a := range x.Args {
			t := e.selectivity(a, in)
			s = s + t - s*t
		}
		return s
	case *exec.Not:
		return 1 - e.selectivity(x.E, in)
	case *exec.IsNull:
		f := 0.05
		if ci := e.ExprColumn(x.E, in); ci.hasNulls {
			f = ci.nullFrac
		}
		if x.Not {
			return 1 - f
		}
		return f
	case *exec.InList:
		s := math.Min(1, float64(x.List.Len())*e.eqSel(x.E, in))
		if x.Not {
			return 1 - s
		}
		return s
	case *exec.Like:
		if x.Not {
			return 0.9
		}
		return 0.1
	case *exec.Cmp:
		return e.cmpSel(x, in)
	case *exec.Const:
		if x.IsNull() || x.V.Type.ID != types.Bool || !x.V.B[0] {
			return 0
		}
		return 1
	}
	return 0.5
}

func (e *Estimator) eqSel(x exec.Expr, in exec.Operator) float64 {
	if ci := e.ExprColumn(x, in); ci.NDV > 0 {
		e.usedSketch = e.usedSketch || ci.sketch
		return 1 / ci.NDV
	}
	return 0.1
}

func (e *Estimator) cmpSel(c *exec.Cmp, in exec.Operator) float64 {
	l, r, op := c.L, c.R, c.Op
	if _, ok := l.(*exec.Const); ok {
		l, r, op = r, l, op.Flipped()
	}
	k, isConst := r.(*exec.Const)
	switch op {
	case exec.EQ:
		if !isConst {
			a, b := e.ExprColumn(l, in), e.ExprColumn(r, in)
			if m := math.Max(a.NDV, b.NDV); m > 0 {
				e.usedSketch = e.usedSketch || a.sketch || b.sketch
				return 1 / m
			}
			return 0.1
		}
		return e.eqSel(l, in)
	case exec.NE:
		return 1 - e.eqSel(l, in)
	}
	ci := e.ExprColumn(l, in)
	v, ok := constFloat(k, ci.t)
	if !isConst || !ok || !ci.hasRange || ci.hi <= ci.lo {
		return 1.0 / 3
	}
	below := (v - ci.lo) / (ci.hi - ci.lo) // the share of [min, max] under v
	below = math.Max(0, math.Min(1, below))
	if op == exec.LT || op == exec.LE {
		return below
	}
	return 1 - below
}

// rangeShare reads a comparison of a column with a constant as the share of
// the column's catalog [min, max] it keeps: [0, v) for <, (v, 1] for >.
func (e *Estimator) rangeShare(p exec.Expr, in exec.Operator) (col int, lo, hi float64, ok bool) {
	c, isCmp := p.(*exec.Cmp)
	if !isCmp {
		return 0, 0, 0, false
	}
	l, r, op := c.L, c.R, c.Op
	if _, ok := l.(*exec.Const); ok {
		l, r, op = r, l, op.Flipped()
	}
	ref, isRef := l.(*exec.ColRef)
	k, isConst := r.(*exec.Const)
	if !isRef || !isConst || op == exec.EQ || op == exec.NE {
		return 0, 0, 0, false
	}
	ci := e.Column(in, ref.Idx)
	v, okV := constFloat(k, ci.t)
	if !okV || !ci.hasRange || ci.hi <= ci.lo {
		return 0, 0, 0, false
	}
	below := math.Max(0, math.Min(1, (v-ci.lo)/(ci.hi-ci.lo)))
	if op == exec.LT || op == exec.LE {
		return ref.Idx, 0, below, true
	}
	return ref.Idx, below, 1, true
}

// constFloat reads a constant of type t as a number on the column's scale.
func constFloat(k *exec.Const, t types.T) (float64, bool) {
	if k == nil || k.IsNull() || k.V.Type != t {
		return 0, false
	}
	switch t.Storage() {
	case types.StoreInt:
		return float64(k.V.I64[0]), true
	case types.StoreFloat:
		return k.V.F64[0], true
	}
	return 0, false
}

// ExprColumn is the column an expression reads, through casts.
func (e *Estimator) ExprColumn(x exec.Expr, in exec.Operator) ColInfo {
	switch y := x.(type) {
	case *exec.Cast:
		ci := e.ExprColumn(y.E, in)
		ci.hasRange = false // another type's scale
		ci.t = y.To
		return ci
	case *exec.ColRef:
		return e.Column(in, y.Idx)
	}
	return ColInfo{}
}

// LeftOnly and RightOnly are the joins that return one side's columns.
func LeftOnly(t exec.JoinType) bool {
	return t == exec.JoinSemi || t == exec.JoinAnti || t == exec.JoinAntiNullAware
}

func RightOnly(t exec.JoinType) bool { return t == exec.JoinRightSemi || t == exec.JoinRightAnti }

// Column traces output column idx of op down to a scan.
func (e *Estimator) Column(op exec.Operator, idx int) ColInfo {
	switch o := op.(type) {
	case *exec.Timed:
		return e.Column(o.Input, idx)
	case *exec.Filter:
		ci := e.Column(o.Input, idx)
		if n := e.N(o); ci.NDV > n {
			ci.NDV = n
		}
		return ci
	case *order.Sort:
		return e.Column(o.Input, idx)
	case *exec.Limit:
		return e.Column(o.Input, idx)
	case *exec.Project:
		if idx < len(o.Exprs) {
			return e.ExprColumn(o.Exprs[idx], o.Input)
		}
	case *exec.Parallel:
		if chain := e.src.Chain(o); chain != nil {
			return e.Column(chain, idx)
		}
		return e.Column(parallelInput(o), idx)
	case *exec.HashJoin:
		right := o.Right
		if o.Shared != nil {
			right = o.Shared.Right
		}
		ci := e.joinColumn(o.Type, o.Left, right, idx)
		if nullableSide(o.Type, idx, len(o.Left.Types())) {
			_, _, ndvL, ndvR := e.keyNDVs(o, right)
			ndvSelf, ndvOther := ndvL, ndvR
			if o.Type == exec.JoinRight {
				ndvSelf, ndvOther = ndvR, ndvL
			}
			ci.padNulls(ndvSelf, ndvOther)
		}
		return ci
	case *exec.NestedLoopJoin:
		ci := e.joinColumn(o.Type, o.Left, o.Right, idx)
		if nullableSide(o.Type, idx, len(o.Left.Types())) {
			ci.padNulls(0, 0)
		}
		return ci
	case *exec.TableScan:
		return e.scanColumn(o, idx)
	}
	return ColInfo{}
}

func (e *Estimator) joinColumn(t exec.JoinType, l, r exec.Operator, idx int) ColInfo {
	if RightOnly(t) {
		return e.Column(r, idx)
	}
	if n := len(l.Types()); idx >= n && !LeftOnly(t) {
		return e.Column(r, idx-n)
	}
	return e.Column(l, idx)
}

// scanColumn sums the catalog's statistics of a scanned column over the
// files the scan reads.
func (e *Estimator) scanColumn(o *exec.TableScan, idx int) ColInfo {
	ref := e.src.ScanTable(o)
	if ref == nil || idx >= len(o.Cols) {
		return ColInfo{}
	}
	c := o.Cols[idx]
	ci := ColInfo{t: c.T}
	read := map[string]bool{}
	for _, f := range o.Files {
		read[f.Path] = true
	}
	var values, nulls float64
	var visited []int // the files the scan reads, for their sketches
	first, counted := true, true
	visit := len(ref.Files)
	if ref.Pruned {
		visit = len(ref.Kept)
	}
	for k := 0; k < visit; k++ {
		i := k
		if ref.Pruned {
			i = ref.Kept[k]
		}
		f := &ref.Files[i]
		if !read[ref.ScanFiles[i].Path] {
			continue
		}
		visited = append(visited, i)
		st, ok := f.Stats.Get(int64(c.FieldID))
		if !ok || st.ValueCount == nil || st.NullCount == nil {
			counted = false
			continue
		}
		values += float64(*st.ValueCount)
		nulls += float64(*st.NullCount)
		lo, okLo := statFloat(c.T, st.Min)
		hi, okHi := statFloat(c.T, st.Max)
		if !okLo || !okHi {
			first, ci.hasRange = false, false
			continue
		}
		if first {
			ci.lo, ci.hi, ci.hasRange, first = lo, hi, true, false
		} else if ci.hasRange {
			ci.lo, ci.hi = math.Min(ci.lo, lo), math.Max(ci.hi, hi)
		}
	}
	if counted && values+nulls > 0 {
		ci.nullFrac, ci.hasNulls = nulls/(values+nulls), true
	}
	switch c.T.ID {
	case types.Int16, types.Int32, types.Int64, types.Date:
		if ci.hasRange && counted {
			ci.NDV = math.Max(1, math.Min(ci.hi-ci.lo+1, values))
		}
	}
	if n := e.sketchNDV(ref, int64(c.FieldID), visited, ci.NDV); n > 0 {
		ci.NDV, ci.sketch = n, true
	}
	return ci
}

func statFloat(t types.T, s *string) (float64, bool) {
	if n, ok := pruning.StatInt(t, s); ok {
		return float64(n), true
	}
	v := pruning.StatValue(t, s)
	if v == nil {
		return 0, false
	}
	switch t.Storage() {
	case types.StoreInt:
		return float64(v.I64[0]), true
	case types.StoreFloat:
		return v.F64[0], true
	}
	return 0, false
}
