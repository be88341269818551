package optimize

import (
	"slices"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/sql/planner/logical"
	"github.com/lakepg/lakepg/types"
)

// EagerAggregation names the rule that does part of a GROUP BY over an
// inner join below the join.
const EagerAggregation = "eager_aggregation"

// eagerAggregation: a GROUP BY over an inner hash join whose aggregates
// read only the probe side (Join.Left) is partly done before the join.
// The probe rows are first grouped by the probe side's group keys and join
// keys, each aggregate folded per group; the join then meets one row per
// group instead of every probe row, and the GROUP BY above folds the
// partial results:
//
//	Aggregate g, f(x) (Project (Join L ⋈ R))  →
//	Aggregate g, f'(p) (Project (Join (Aggregate partial gL, keys, f(x) (Project L)) ⋈ R))
//
// TPC-DS q4, q11 and q74 sum store_sales by customer and year with the
// customer's name columns as group keys: 2.9 million rows were joined to
// customer and grouped on eight keys, most of them text; eagerly, they are
// grouped on two integers first and 150,000 rows meet customer.
//
// The result is the same whatever the join does to the rows: an inner
// join pairs each probe row with its matching build rows, so a group's
// partial sum (or minimum, or maximum) stands for its rows in every pair
// they make. Only aggregates whose partial results fold exactly qualify —
// sum of numeric, min and max, counts (folded as a sum) — and only without
// DISTINCT, FILTER or ORDER BY; a float sum only over many rows
// (floatSumRows).
//
// The estimates may be wrong: the partial aggregation is marked Partial,
// and at run time stops grouping and passes rows through when its groups
// are about as many as its rows (exec/aggregate/aggpartial.go). Each of
// the scan's workers runs one over its own rows (optree.Parallelize).
//
// The partial grouping is not pushed below the probe side's own joins in
// turn, except to small tables (below): TPC-DS q5 then grouped all of
// store_sales by store and date before the join to its fortnight of dates,
// and off the parallel scan (twice the CPU), for a tenth off q4.
//
// The rule weighs the planner's estimates (Estimates); without them (a
// statement only described, a node the planner has no estimate of) it
// leaves the plan as it is.
type eagerAggregation struct{ est Estimates }

func (eagerAggregation) Name() string { return EagerAggregation }

func (r eagerAggregation) withEstimates(est Estimates) Rule { return eagerAggregation{est} }

func (r eagerAggregation) Apply(n logical.Node) (logical.Node, int) {
	if r.est == nil {
		return n, 0
	}
	var agg *logical.Aggregate
	switch x := n.(type) {
	case *logical.Aggregate:
		agg = x
	case *logical.Distinct:
		// SELECT DISTINCT is a grouping by every column (TPC-DS q38 and
		// q87 meet customer's names for each sale's customer and date)
		agg = logical.NewAggregate(x.Input, len(x.Columns()), nil)
	default:
		return n, 0
	}
	out, k := r.rewrite(agg)
	if k == 0 {
		return n, 0
	}
	return out, k
}

// rewrite is agg rewritten and the number of rewrites (0: agg does not
// qualify). A partial aggregation is rewritten as nested in a rewrite
// above: the partial grouping moves below the probe side's joins to small
// tables that keep most rows (TPC-DS q99 groups catalog_sales by three
// dimension keys before meeting the warehouse, ship mode and call center
// text columns it groups by); a larger table's key splits the groups
// further (q57's items, each sold at six call centers in twelve months,
// made as many partial groups as rows).
func (r eagerAggregation) rewrite(agg *logical.Aggregate) (*logical.Aggregate, int) {
	if agg.Sets != nil {
		return agg, 0
	}
	pre, ok := agg.Input.(*logical.Project)
	if !ok {
		return agg, 0
	}
	// a projection that only picks and orders columns (the FROM clause's)
	// is read through
	exprs, in := pre.Exprs, pre.Input
	for {
		p, ok := in.(*logical.Project)
		if !ok {
			break
		}
		pick := make([]int, len(p.Exprs))
		for i, e := range p.Exprs {
			c, ok := e.(*exec.ColRef)
			if !ok {
				return agg, 0
			}
			pick[i] = c.Idx
		}
		exprs = mapAll(exprs, func(i int) int { return pick[i] })
		in = p.Input
	}
	j, ok := in.(*logical.Join)
	if !ok || j.Kind != logical.InnerJoin || j.On != nil || len(j.Filters) > 0 || len(j.LeftKeys) == 0 {
		return agg, 0
	}
	if l, ok := j.Left.(*logical.Aggregate); ok && l.Partial {
		return agg, 0 // rewritten already
	}
	nl := len(j.Left.Columns())
	side := func(e exec.Expr) (left, right bool) {
		exec.MapColumns(e, func(i int) int {
			if i < nl {
				left = true
			} else {
				right = true
			}
			return i
		})
		return left, right
	}
	// the aggregates: foldable kinds over probe columns
	floatSum := false
	for _, a := range agg.Aggs {
		if a.Distinct || a.Filter != 0 || len(a.Order) > 0 {
			return agg, 0
		}
		if (a.Func == logical.AggCountStar || a.Func == logical.AggCount) && agg.NGroup == 0 {
			// without groups the aggregation answers one row over no
			// rows, where a count is 0 and a sum of counts NULL
			return agg, 0
		}
		if a.Func == logical.AggCountStar {
			continue
		}
		if a.Arg < agg.NGroup {
			return agg, 0
		}
		switch a.Func {
		case logical.AggSum:
			switch {
			case a.In.ID == types.Numeric:
			case a.In.IsFloat():
				floatSum = true
			case a.In.ID == types.Int16 || a.In.ID == types.Int32:
				// partial sums are bigint, as the sum is
			default:
				return agg, 0
			}
		case logical.AggCount, logical.AggMin, logical.AggMax:
		default:
			return agg, 0
		}
		if _, right := side(exprs[a.Arg]); right {
			if _, _, ok := conditional(exprs[a.Arg], nl); !ok || a.Func == logical.AggCount {
				return agg, 0
			}
		}
	}
	// the group keys: each from one side (a constant counts as the build
	// side's: the final grouping computes it)
	var partialKeys []exec.Expr
	keyOf := map[int]int{} // probe column → its partial key
	addKey := func(e exec.Expr) int {
		if c, ok := e.(*exec.ColRef); ok {
			if k, ok := keyOf[c.Idx]; ok {
				return k
			}
			keyOf[c.Idx] = len(partialKeys)
		}
		partialKeys = append(partialKeys, e)
		return len(partialKeys) - 1
	}
	groupKey := make([]int, agg.NGroup) // partial key of a probe-side group key, -1 for the build side's
	for i, g := range exprs[:agg.NGroup] {
		left, right := side(g)
		switch {
		case left && right:
			return agg, 0
		case left:
			groupKey[i] = addKey(g)
		default:
			groupKey[i] = -1
		}
	}
	joinKey := make([]int, len(j.LeftKeys))
	for i, k := range j.LeftKeys {
		joinKey[i] = addKey(k)
	}
	// the partial aggregation: keys, then one aggregate per final one
	np := len(partialKeys)
	partialIn := append([]exec.Expr{}, partialKeys...)
	var partialAggs []logical.Agg
	partialOf := make([]int, len(agg.Aggs))   // the partial aggregate each final one folds
	conds := make([]exec.Expr, len(agg.Aggs)) // the build side's condition of a conditional one
	argCol := map[int]int{}                   // probe column, or -1 - pre-projection column → partial input column
	type partialAgg struct {
		f   logical.AggFunc
		arg int
	}
	aggOf := map[partialAgg]int{} // partial aggregate → its index
	for i, a := range agg.Aggs {
		arg := 0 // count(*) reads no column
		if a.Func != logical.AggCountStar {
			// aggregates of one argument read one column of the partial input
			x := exprs[a.Arg]
			if v, cond, ok := conditional(x, nl); ok {
				x, conds[i] = v, cond
			}
			key := -1 - a.Arg
			if r, isCol := x.(*exec.ColRef); isCol {
				key = r.Idx
			}
			c, ok := argCol[key]
			if !ok {
				c = len(partialIn)
				argCol[key] = c
				partialIn = append(partialIn, x)
			}
			arg = c
		}
		// TPC-DS q2's seven sums by weekday are one partial sum
		k, ok := aggOf[partialAgg{a.Func, arg}]
		if !ok {
			k = len(partialAggs)
			aggOf[partialAgg{a.Func, arg}] = k
			partialAggs = append(partialAggs, logical.Agg{Func: a.Func, Arg: arg, In: a.In, Out: partialType(a)})
		}
		partialOf[i] = k
	}
	input := logical.NewProject(j.Left, partialIn, nil)
	partial := logical.NewAggregate(input, np, partialAggs)
	partial.Partial = true
	// a join that drops most probe rows is cheaper to meet first: grouping
	// them all would cost more than the join saves. A join to a filtered
	// table is taken to drop rows whatever the estimate (a fortnight of
	// dates met through a UNION ALL of sales and returns, whose keys have
	// no distinct estimate, was taken to keep every row in TPC-DS q5), and
	// its key filter would no longer reach the scan (above).
	if !r.pays(j, partialKeys, joinKey, floatSum, agg.Partial) {
		return agg, 0
	}
	changes := 1
	if p, k := r.rewrite(partial); k > 0 {
		partial, changes = p, changes+k
	}
	// the join probes with the partial groups
	pcols := partial.Columns()
	nj := *j
	nj.Left = partial
	nj.LeftKeys = make([]exec.Expr, len(j.LeftKeys))
	for i := range j.LeftKeys {
		nj.LeftKeys[i] = &exec.ColRef{Idx: joinKey[i], T: pcols[joinKey[i]].Type}
	}
	nj.Cols = append(append(make([]logical.Column, 0, len(pcols)+len(j.Cols)-nl), pcols...), j.Cols[nl:]...)
	// the final aggregation folds the partial results
	shift := len(pcols) - nl // build columns move by the partial layout's width
	final := make([]exec.Expr, 0, agg.NGroup+len(agg.Aggs))
	for i, g := range exprs[:agg.NGroup] {
		if k := groupKey[i]; k >= 0 {
			final = append(final, &exec.ColRef{Idx: k, T: pcols[k].Type})
		} else {
			final = append(final, exec.MapColumns(g, func(c int) int { return c + shift }))
		}
	}
	aggs := make([]logical.Agg, len(agg.Aggs))
	for i, a := range agg.Aggs {
		f := a.Func
		if f == logical.AggCountStar || f == logical.AggCount || f == logical.AggSum && a.In.IsInteger() {
			// counts and integer sums fold as a bigint sum of the partial
			// bigints: every final group has a partial row (the join is
			// inner), so the sum is never NULL where the count is 0
			f = logical.AggSum
		}
		k := np + partialOf[i]
		t := pcols[k].Type
		var v exec.Expr = &exec.ColRef{Idx: k, T: t}
		if conds[i] != nil {
			// the partial result counts where the build row's condition
			// holds: every row of a partial group meets the same build rows
			v = &exec.Case{When: []exec.Expr{exec.MapColumns(conds[i], func(c int) int { return c + shift })}, Then: []exec.Expr{v}, T: t}
		}
		final = append(final, v)
		aggs[i] = logical.Agg{Func: f, Arg: agg.NGroup + i, In: t, Out: a.Out}
	}
	out := *agg
	out.Input = logical.NewProject(&nj, final, nil)
	out.Aggs = aggs
	// the plans reading the aggregation are costed by its groups as
	// estimated over the join, as they are without the rule
	if g, ok := r.est.Groups(j, exprs[:agg.NGroup]); ok && out.Rows == 0 {
		out.Rows = g
	}
	return &out, changes
}

// pays reports whether the estimates say the rewrite of an aggregation
// over join j pays: the join keeps most probe rows, the partial groups
// (by keys, joinKeys among them) are few, a float sum is over many rows,
// and a nested partial grouping only moves below a join to a small table.
func (r eagerAggregation) pays(j *logical.Join, keys []exec.Expr, joinKeys []int, floatSum, nested bool) bool {
	if r.est.Filtered(j.Right) {
		return false
	}
	rows, ok1 := r.est.Rows(j)
	probe, ok2 := r.est.Rows(j.Left)
	build, ok3 := r.est.Rows(j.Right)
	if !ok1 || !ok2 || !ok3 || rows < keptByJoin*probe {
		return false
	}
	return r.partialGroupsFew(j.Left, probe, keys, joinKeys) &&
		(!floatSum || probe >= floatSumRows) && (!nested || build <= maxSplitKeyValues)
}

// partialGroupsFew reports whether the groups of probe's rows (rows of
// them) by keys are estimated at most fewGroups of the rows. The estimate
// multiplies the keys' distinct values as if they were independent; a key
// of few values read from a dimension (a year beside a customer key)
// mostly splits a join key's rows into no more groups, so such keys (at
// most maxSplitKeyValues values) count for one when the join keys alone
// leave few groups.
func (r eagerAggregation) partialGroupsFew(probe logical.Node, rows float64, keys []exec.Expr, joinKeys []int) bool {
	if g, ok := r.est.Groups(probe, keys); !ok {
		return false
	} else if g <= fewGroups*rows {
		return true
	}
	g := 1.0
	for k, key := range keys {
		ndv := r.est.Distinct(probe, key)
		switch {
		case ndv == 0:
			return false
		case slices.Contains(joinKeys, k):
			g *= ndv
		case ndv > maxSplitKeyValues:
			return false
		}
	}
	return g <= fewGroups*rows
}

// partialType is the type of a's partial results: a count's is bigint, an
// integer sum's bigint, the others' a's own result type.
func partialType(a logical.Agg) types.T {
	if a.Func == logical.AggCountStar || a.Func == logical.AggCount {
		return types.Int64T
	}
	return a.Out
}

// conditional recognises CASE WHEN cond THEN x END (ELSE NULL or none)
// with cond over the build side's columns alone (at nl and past) and x
// over the probe side's: a sum, min or max of it is the same fold of x
// over the probe rows whose build row meets cond, so x is folded early
// and cond applied to the partial results (TPC-DS q2, q43, q59 sum sales
// by weekday name as CASE WHEN d_day_name = 'Sunday' THEN … END).
func conditional(e exec.Expr, nl int) (x, cond exec.Expr, ok bool) {
	c, isCase := e.(*exec.Case)
	if !isCase || len(c.When) != 1 {
		return nil, nil, false
	}
	if k, isConst := c.Else.(*exec.Const); c.Else != nil && (!isConst || !k.IsNull()) {
		return nil, nil, false
	}
	probe, build := true, true
	exec.MapColumns(c.When[0], func(i int) int {
		build = build && i >= nl
		return i
	})
	exec.MapColumns(c.Then[0], func(i int) int {
		probe = probe && i < nl
		return i
	})
	if !probe || !build || c.Then[0].Type() != c.T {
		return nil, nil, false
	}
	return c.Then[0], c.When[0], true
}

// mapAll renumbers the columns of each of es.
func mapAll(es []exec.Expr, fn func(int) int) []exec.Expr {
	out := make([]exec.Expr, len(es))
	for i, e := range es {
		out[i] = exec.MapColumns(e, fn)
	}
	return out
}

// floatSumRows is the fewest probe rows (estimated) a sum of floats is
// split at: the partial sums add the values in another order, and their
// last bits may differ; so many rows are scanned in parallel morsels,
// whose sums are merged in no fixed order already.
const floatSumRows = 1 << 17

// keptByJoin is the share of the probe rows the join must keep (estimated)
// for the rewrite: TPC-DS q42 joins store_sales to the items of one
// manager, a hundredth of them, and grouping every row first cost 20 %.
const keptByJoin = 0.5

// fewGroups is the share of the probe rows the partial groups must stay
// under for the rewrite to pay: the extra grouping costs about what a
// quarter of the rows cost to join and group on wide keys.
const fewGroups = 0.25

// maxSplitKeyValues bounds the distinct values of a probe-side group key
// taken to split a join key's rows into few groups, and the rows of the
// build side a nested partial grouping moves below.
const maxSplitKeyValues = 1000
