package planner

import (
	"context"
	"fmt"
	"math"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/aggregate"
	"github.com/lakepg/lakepg/sql/joinorder"
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
type estimator struct {
	s     *Session
	ctx   context.Context
	rows  map[exec.Operator]estimate
	scans map[*exec.TableScan]scanStats
	// analyzed: the plan has run (EXPLAIN ANALYZE), so scans report what
	// they actually read
	analyzed bool
	// catalogOnly: estimating while planning, when no footer is read; a
	// scan counts the catalog's rows of the files left after pruning
	catalogOnly bool
	// verbose: EXPLAIN (VERBOSE) prints each operator's cost too
	verbose bool
	// env, when set, lets filters of small tables be counted exactly
	// (estimate_exact.go)
	env *exec.Env
	// usedSketch: an ndv from sketches went into the estimate being
	// computed, which EXPLAIN then says (ndv.go)
	usedSketch bool
}

type estimate struct {
	rows float64
	how  string
}

// colInfo is what the catalog says about one column of an operator's output.
type colInfo struct {
	ndv      float64 // distinct non-NULL values; 0: unknown
	lo, hi   float64 // the catalog's min and max, when hasRange
	hasRange bool
	nullFrac float64 // when hasNulls
	hasNulls bool
	t        types.T
	sketch   bool // ndv is from distinct-value sketches (ndv.go)
}

func newEstimator(ctx context.Context, s *Session) *estimator {
	return &estimator{s: s, ctx: ctx, rows: map[exec.Operator]estimate{}, scans: map[*exec.TableScan]scanStats{}}
}

// scan returns the footer statistics of a scan, read once per EXPLAIN.
func (e *estimator) scan(o *exec.TableScan) (scanStats, error) {
	if st, ok := e.scans[o]; ok {
		return st, nil
	}
	st, err := e.s.rowGroups(e.ctx, o)
	if err != nil {
		return st, err
	}
	e.scans[o] = st
	return st, nil
}

func (e *estimator) of(op exec.Operator) estimate {
	if op == nil {
		return estimate{}
	}
	if r, ok := e.rows[op]; ok {
		return r
	}
	r := e.compute(op)
	e.rows[op] = r
	return r
}

func (e *estimator) n(op exec.Operator) float64 { return e.of(op).rows }

// unprunedRows is the rows of the files a scan reads before its row groups
// and pages are pruned, or 0 when op is not a scan that knows them.
func (e *estimator) unprunedRows(op exec.Operator) float64 {
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
	if !ok || e.catalogOnly {
		return 0
	}
	n, exact := scanRows(o)
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

func (e *estimator) compute(op exec.Operator) estimate {
	switch o := op.(type) {
	case *exec.Timed:
		return e.of(o.Input)
	case *exec.TableScan:
		if e.catalogOnly {
			return e.catalogRows(o)
		}
		st, err := e.scan(o)
		if err != nil {
			return estimate{1000, "no statistics"}
		}
		n := float64(st.rows)
		for _, b := range o.Inlined {
			n += float64(b.N)
		}
		return estimate{n, "row groups after pruning"}
	case *exec.Parallel:
		if chain := e.s.chains[o]; chain != nil {
			return e.of(chain)
		}
		return e.of(o.Scan)
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
		in := e.n(base)
		if n, ok := e.exactCount(base, pred); ok {
			return estimate{atLeastOne(in, n), "counted: a small table"}
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
		return estimate{atLeastOne(in, rows), how}
	case *exec.Project:
		return estimate{e.n(o.Input), "input"}
	case *exec.RowNumber:
		return estimate{e.n(o.Input), "input"}
	case *aggregate.Window:
		return estimate{e.n(o.Input), "input"}
	case *exec.Sort:
		in := e.n(o.Input)
		if o.Limit > 0 && float64(o.Limit) < in {
			return estimate{float64(o.Limit), "top-N"}
		}
		return estimate{in, "input"}
	case *exec.Limit:
		return e.limit(o.Input, o.Offset, o.Count)
	case *exec.LimitTies:
		return e.limit(o.Input, o.Offset, o.Count)
	case *aggregate.HashAgg:
		return e.aggregate(o)
	case *exec.DistinctOn:
		in := e.n(o.Input)
		g, how := e.groups(o.Input, o.Keys, in)
		return estimate{g, how}
	case *exec.HashJoin:
		return e.hashJoin(o)
	case *exec.NestedLoopJoin:
		l, r := e.n(o.Left), e.n(o.Right)
		sel := 1.0
		if o.On != nil {
			sel = e.selectivity(o.On, o)
		}
		return e.outer(o.Type, l, r, atLeastOne(l*r, l*r*sel), fmt.Sprintf("|L|·|R| × ON selectivity %.3g", sel))
	case *exec.Values:
		return estimate{float64(len(o.Rows)), "VALUES rows"}
	case *exec.Append:
		sum := 0.0
		for _, in := range o.Inputs {
			sum += e.n(in)
		}
		return estimate{sum, "sum of inputs"}
	case *exec.SetOp:
		l, r := e.n(o.Left), e.n(o.Right)
		if o.Intersect {
			return estimate{math.Min(l, r), "smaller input"}
		}
		return estimate{l, "left input"}
	case *exec.MaterializedReader:
		return e.of(o.M.Input)
	case *exec.ChunkScan:
		return estimate{float64(o.Rows()), "temporary table rows"}
	case *exec.BatchSource:
		// rows made while planning (pg_catalog tables): their count is
		// known, and pg_class of a big lake is the side not to hash
		if o.B != nil {
			return estimate{float64(o.B.N), "rows made while planning"}
		}
	}
	if ins := inputs(op); len(ins) == 1 {
		return estimate{e.n(*ins[0]), "input"}
	}
	return estimate{1000, "default for a function or other source"}
}

// cost is the join ordering's cost of the plan below op (join_order.go):
// rows built into hash tables (weighted), rows probing them and rows out of
// joins, summed over the joins; a nested loop compares every pair.
func (e *estimator) cost(op exec.Operator) float64 {
	c := 0.0
	for _, in := range inputs(op) {
		c += e.cost(*in)
	}
	switch o := op.(type) {
	case *exec.Parallel:
		if chain := e.s.chains[o]; chain != nil {
			return e.cost(chain)
		}
	case *exec.HashJoin:
		right := o.Right
		if o.Shared != nil {
			right = o.Shared.Right
		}
		c += (e.n(o.Left)+joinorder.BuildWeight*e.n(right))*joinorder.KeyWeight(len(o.LeftKeys), e.n(right)) + e.n(o)
	case *exec.NestedLoopJoin:
		c += e.n(o.Left)*e.n(o.Right) + e.n(o)
	}
	return c
}

// catalogRows is a scan's row count by the catalog: the live rows of the
// files it reads and its inlined rows.
func (e *estimator) catalogRows(o *exec.TableScan) estimate {
	n := 0.0
	for _, f := range o.Files {
		n += float64(f.RecordCount - f.DeleteCount - int64(len(f.Deleted)))
	}
	for _, b := range o.Inlined {
		n += float64(b.N)
	}
	return estimate{n, "catalog rows of the files after pruning"}
}

func (e *estimator) limit(in exec.Operator, offset, count int64) estimate {
	n := math.Max(0, e.n(in)-float64(offset))
	if count >= 0 && float64(count) <= n {
		return estimate{float64(count), "LIMIT"}
	}
	return estimate{n, "input after OFFSET"}
}

func (e *estimator) aggregate(o *aggregate.HashAgg) estimate {
	in := e.n(o.Input)
	if o.NGroup == 0 {
		return estimate{1, "one row without GROUP BY"}
	}
	if o.GroupingSets == nil {
		keys := make([]int, o.NGroup)
		for i := range keys {
			keys[i] = i
		}
		g, how := e.groups(o.Input, keys, in)
		return estimate{g, how}
	}
	sum := 0.0
	for _, set := range o.GroupingSets {
		g, _ := e.groups(o.Input, set, in)
		if len(set) == 0 {
			g = 1
		}
		sum += g
	}
	return estimate{sum, "sum over grouping sets of the groups' distinct estimates"}
}

// groups estimates the distinct combinations of columns keys of in.
func (e *estimator) groups(in exec.Operator, keys []int, rows float64) (float64, string) {
	g, sketch := 1.0, false
	for _, k := range keys {
		ci := e.column(in, k)
		if ci.ndv == 0 {
			return atLeastOne(rows, math.Ceil(rows/10)), "input/10: a group key has no distinct estimate"
		}
		g *= ci.ndv
		sketch = sketch || ci.sketch
	}
	how := "product of the group keys' distinct estimates"
	if sketch {
		how += sketchHow
	}
	return atLeastOne(rows, math.Min(g, rows)), how
}

func (e *estimator) hashJoin(o *exec.HashJoin) estimate {
	right := o.Right
	if o.Shared != nil {
		right = o.Shared.Right
	}
	l, r := e.n(o.Left), e.n(right)
	saved := e.usedSketch
	e.usedSketch = false
	sel, known, ndvL, ndvR := e.keyNDVs(o, right)
	inner, how := math.Max(l, r), "larger side"
	if known {
		inner, how = l*r*sel, "|L|·|R| / key distinct estimate"+e.sketchNote(saved)
	}
	if o.Extra != nil && !leftOnly(o.Type) && !rightOnly(o.Type) {
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
func (e *estimator) keyNDVs(o *exec.HashJoin, right exec.Operator) (sel float64, known bool, ndvL, ndvR float64) {
	sel, ndvL, ndvR = 1, 1, 1
	l, r := e.n(o.Left), e.n(right)
	compL, compR := 1.0, 1.0
	for i := range o.LeftKeys {
		a, b := e.exprColumn(o.LeftKeys[i], o.Left), e.exprColumn(o.RightKeys[i], right)
		e.usedSketch = e.usedSketch || a.sketch || b.sketch
		if a.ndv > 0 || b.ndv > 0 {
			sel /= math.Max(a.ndv, b.ndv)
			known = true
		}
		ndvL, ndvR = ndvL*a.ndv, ndvR*b.ndv
		compL, compR = compL*orRows(a.ndv, l), compR*orRows(b.ndv, r)
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
func (ci *colInfo) padNulls(ndvSelf, ndvOther float64) {
	unmatched := 0.5
	if ndvSelf > 0 && ndvOther > 0 {
		unmatched = 1 - math.Min(1, ndvOther/ndvSelf)
	}
	unmatched = math.Min(0.9, math.Max(0.1, unmatched))
	ci.nullFrac = unmatched + (1-unmatched)*ci.nullFrac
	ci.hasNulls = true
}

// semiAnti: the fraction of the probe side's keys the other side has.
func semiAnti(anti bool, n, ndvSelf, ndvOther float64) estimate {
	frac, how := 0.5, "half of the probe side"
	if ndvSelf > 0 && ndvOther > 0 {
		frac, how = math.Min(1, ndvOther/ndvSelf), "probe side × share of its keys present"
	}
	if anti {
		frac = 1 - frac
	}
	return estimate{atLeastOne(n, n*frac), how}
}

func (e *estimator) outer(t exec.JoinType, l, r, inner float64, how string) estimate {
	switch t {
	case exec.JoinLeft:
		return estimate{math.Max(inner, l), how + ", at least the left side"}
	case exec.JoinRight:
		return estimate{math.Max(inner, r), how + ", at least the right side"}
	case exec.JoinFull:
		return estimate{math.Max(inner, math.Max(l, r)), how + ", at least the larger side"}
	}
	return estimate{inner, how}
}

// selectivity estimates the fraction of in's rows for which p is true.
func (e *estimator) selectivity(p exec.Expr, in exec.Operator) float64 {
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
		if ci := e.exprColumn(x.E, in); ci.hasNulls {
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

func (e *estimator) eqSel(x exec.Expr, in exec.Operator) float64 {
	if ci := e.exprColumn(x, in); ci.ndv > 0 {
		e.usedSketch = e.usedSketch || ci.sketch
		return 1 / ci.ndv
	}
	return 0.1
}

func (e *estimator) cmpSel(c *exec.Cmp, in exec.Operator) float64 {
	l, r, op := c.L, c.R, c.Op
	if _, ok := l.(*exec.Const); ok {
		l, r, op = r, l, op.Flipped()
	}
	k, isConst := r.(*exec.Const)
	switch op {
	case exec.EQ:
		if !isConst {
			a, b := e.exprColumn(l, in), e.exprColumn(r, in)
			if m := math.Max(a.ndv, b.ndv); m > 0 {
				e.usedSketch = e.usedSketch || a.sketch || b.sketch
				return 1 / m
			}
			return 0.1
		}
		return e.eqSel(l, in)
	case exec.NE:
		return 1 - e.eqSel(l, in)
	}
	ci := e.exprColumn(l, in)
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
func (e *estimator) rangeShare(p exec.Expr, in exec.Operator) (col int, lo, hi float64, ok bool) {
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
	ci := e.column(in, ref.Idx)
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

// exprColumn is the column an expression reads, through casts.
func (e *estimator) exprColumn(x exec.Expr, in exec.Operator) colInfo {
	switch y := x.(type) {
	case *exec.Cast:
		ci := e.exprColumn(y.E, in)
		ci.hasRange = false // another type's scale
		ci.t = y.To
		return ci
	case *exec.ColRef:
		return e.column(in, y.Idx)
	}
	return colInfo{}
}

// leftOnly and rightOnly are the joins that return one side's columns.
func leftOnly(t exec.JoinType) bool {
	return t == exec.JoinSemi || t == exec.JoinAnti || t == exec.JoinAntiNullAware
}

func rightOnly(t exec.JoinType) bool { return t == exec.JoinRightSemi || t == exec.JoinRightAnti }

// column traces output column idx of op down to a scan.
func (e *estimator) column(op exec.Operator, idx int) colInfo {
	switch o := op.(type) {
	case *exec.Timed:
		return e.column(o.Input, idx)
	case *exec.Filter:
		ci := e.column(o.Input, idx)
		if n := e.n(o); ci.ndv > n {
			ci.ndv = n
		}
		return ci
	case *exec.Sort:
		return e.column(o.Input, idx)
	case *exec.Limit:
		return e.column(o.Input, idx)
	case *exec.Project:
		if idx < len(o.Exprs) {
			return e.exprColumn(o.Exprs[idx], o.Input)
		}
	case *exec.Parallel:
		if chain := e.s.chains[o]; chain != nil {
			return e.column(chain, idx)
		}
		return e.column(o.Scan, idx)
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
	return colInfo{}
}

func (e *estimator) joinColumn(t exec.JoinType, l, r exec.Operator, idx int) colInfo {
	if rightOnly(t) {
		return e.column(r, idx)
	}
	if n := len(l.Types()); idx >= n && !leftOnly(t) {
		return e.column(r, idx-n)
	}
	return e.column(l, idx)
}

// scanColumn sums the catalog's statistics of a scanned column over the
// files the scan reads.
func (e *estimator) scanColumn(o *exec.TableScan, idx int) colInfo {
	ref := e.s.scanRefs[o]
	if ref == nil || idx >= len(o.Cols) {
		return colInfo{}
	}
	c := o.Cols[idx]
	ci := colInfo{t: c.T}
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
		st, ok := f.Stats[int64(c.FieldID)]
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
			ci.ndv = math.Max(1, math.Min(ci.hi-ci.lo+1, values))
		}
	}
	if n := e.sketchNDV(ref, int64(c.FieldID), visited, ci.ndv); n > 0 {
		ci.ndv, ci.sketch = n, true
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
