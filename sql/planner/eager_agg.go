package planner

import (
	"slices"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/aggregate"
	"github.com/lakepg/lakepg/sql/planner/optree"
	"github.com/lakepg/lakepg/types"
)

// Eager aggregation: a GROUP BY over an inner hash join whose aggregates
// read only the probe side is partly done before the join. The probe rows
// are first grouped by the probe side's group keys and join keys, each
// aggregate folded per group; the join then meets one row per group
// instead of every probe row, and the GROUP BY above folds the partial
// results. TPC-DS q4, q11 and q74 sum store_sales by customer and year
// with the customer's name columns as group keys: 2.9 million rows were
// joined to customer and grouped on eight keys, most of them text; eagerly,
// they are grouped on two integers first and 150,000 rows meet customer.
//
// The result is the same whatever the join does to the rows: an inner
// join pairs each probe row with its matching build rows, so a group's
// partial sum (or minimum, or maximum) stands for its rows in every pair
// they make. Only aggregates whose partial results fold exactly qualify —
// sum of numeric, min and max — and only without DISTINCT, FILTER or
// ORDER BY; a float sum only over many rows (floatSumRows), and a count
// would need a sum typed as a count.
//
// The estimates may be wrong: the partial aggregation is marked Partial,
// and at run time stops grouping and passes rows through when its groups
// are about as many as its rows (exec/aggregate/aggpartial.go). Each of
// the scan's workers runs one over its own rows (optree.Parallelize).
//
// The partial grouping is not pushed below the probe side's own joins in
// turn: TPC-DS q5 then grouped all of store_sales by store and date before
// the join to its fortnight of dates, and off the parallel scan (twice the
// CPU), for a tenth off q4.

// eagerAggregation applies the rewrite to every aggregation in op's tree
// where the estimates say the partial groups are at most a quarter of the
// probe side's rows.
func (qc *QueryCtx) eagerAggregation(op exec.Operator) {
	optree.EachOnce(op, func(op exec.Operator) {
		if agg, ok := op.(*aggregate.HashAgg); ok && qc.aggregateEagerly(agg, false) {
			qc.fired(ruleEagerAggregation)
		}
	})
}

// aggregateEagerly rewrites agg in place when it qualifies; nested says
// agg is the partial aggregation of a rewrite above.
func (qc *QueryCtx) aggregateEagerly(agg *aggregate.HashAgg, nested bool) bool {
	if agg.GroupingSets != nil || agg.GroupingID {
		return false
	}
	pre, ok := agg.Input.(*exec.Project)
	if !ok {
		return false
	}
	// a projection that only picks and orders columns (the FROM clause's)
	// is read through
	exprs, in := pre.Exprs, pre.Input
	for {
		p, ok := in.(*exec.Project)
		if !ok {
			break
		}
		pick := make([]int, len(p.Exprs))
		for i, e := range p.Exprs {
			c, ok := e.(*exec.ColRef)
			if !ok {
				return false
			}
			pick[i] = c.Idx
		}
		exprs = mapAll(exprs, func(i int) int { return pick[i] })
		in = p.Input
	}
	j, ok := in.(*exec.HashJoin)
	if !ok || j.Type != exec.JoinInner || j.Extra != nil || j.Shared != nil || len(j.LeftKeys) == 0 || filtered(j.Right) {
		return false
	}
	nl := len(j.Left.Types())
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
			return false
		}
		if (a.Kind == aggregate.AggCountStar || a.Kind == aggregate.AggCount) && agg.NGroup == 0 {
			// without groups the aggregation answers one row over no
			// rows, where a count is 0 and a sum of counts NULL
			return false
		}
		if a.Kind == aggregate.AggCountStar {
			continue
		}
		if a.Arg < agg.NGroup {
			return false
		}
		switch a.Kind {
		case aggregate.AggSum:
			switch {
			case a.In.ID == types.Numeric:
			case a.In.IsFloat():
				floatSum = true
			case a.In.ID == types.Int16 || a.In.ID == types.Int32:
				// partial sums are bigint, as the sum is
			default:
				return false
			}
		case aggregate.AggCount, aggregate.AggMin, aggregate.AggMax:
		default:
			return false
		}
		if _, right := side(exprs[a.Arg]); right {
			if _, _, ok := conditional(exprs[a.Arg], nl); !ok || a.Kind == aggregate.AggCount {
				return false
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
			return false
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
	var partialAggs []aggregate.Agg
	partialOf := make([]int, len(agg.Aggs))   // the partial aggregate each final one folds
	conds := make([]exec.Expr, len(agg.Aggs)) // the build side's condition of a conditional one
	argCol := map[int]int{}                   // probe column, or -1 - pre-projection column → partial input column
	type partialAgg struct {
		kind aggregate.AggKind
		arg  int
	}
	aggOf := map[partialAgg]int{} // partial aggregate → its index
	for i, a := range agg.Aggs {
		arg := 0 // count(*) reads no column
		if a.Kind != aggregate.AggCountStar {
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
		out, err := aggregate.AggResultType(a.Kind, a.In)
		if err != nil {
			return false
		}
		// TPC-DS q2's seven sums by weekday are one partial sum
		pa := aggregate.Agg{Kind: a.Kind, Arg: arg, In: a.In, Out: out}
		k, ok := aggOf[partialAgg{a.Kind, arg}]
		if !ok {
			k = len(partialAggs)
			aggOf[partialAgg{a.Kind, arg}] = k
			partialAggs = append(partialAggs, pa)
		}
		partialOf[i] = k
	}
	partial := &aggregate.HashAgg{Input: &exec.Project{Env: pre.Env, Input: j.Left, Exprs: partialIn}, NGroup: np, Aggs: partialAggs, Mem: agg.Mem,
		Partial: &aggregate.Partial{}}
	// a join that drops most probe rows is cheaper to meet first: grouping
	// them all would cost more than the join saves. A join to a filtered
	// table is taken to drop rows whatever the estimate (a fortnight of
	// dates met through a UNION ALL of sales and returns, whose keys have
	// no distinct estimate, was taken to keep every row in TPC-DS q5), and
	// its key filter would no longer reach the scan (above).
	est := qc.planEstimator()
	if est.N(j) < keptByJoin*est.N(j.Left) || !qc.partialGroupsFew(partial, joinKey) ||
		floatSum && est.N(j.Left) < floatSumRows || nested && est.N(j.Right) > maxSplitKeyValues {
		return false
	}
	// the join probes with the partial groups
	pts := partial.Types()
	for i := range j.LeftKeys {
		j.LeftKeys[i] = &exec.ColRef{Idx: joinKey[i], T: pts[joinKey[i]]}
	}
	j.Left = partial
	exec.Replanned(j) // its column types, cached, change with its left side
	// the final aggregation folds the partial results
	shift := len(pts) - nl // build columns move by the partial layout's width
	final := make([]exec.Expr, 0, agg.NGroup+len(agg.Aggs))
	for i, g := range exprs[:agg.NGroup] {
		if k := groupKey[i]; k >= 0 {
			final = append(final, &exec.ColRef{Idx: k, T: pts[k]})
		} else {
			final = append(final, exec.MapColumns(g, func(c int) int { return c + shift }))
		}
	}
	aggs := make([]aggregate.Agg, len(agg.Aggs))
	for i, a := range agg.Aggs {
		out, _ := aggregate.AggResultType(a.Kind, a.In)
		if a.Out.ID != types.Unknown {
			out = a.Out
		}
		kind := a.Kind
		if kind == aggregate.AggCountStar || kind == aggregate.AggCount || kind == aggregate.AggSum && a.In.IsInteger() {
			// counts and integer sums fold as a bigint sum of the partial
			// bigints: every final group has a partial row (the join is
			// inner), so the sum is never NULL where the count is 0
			kind = aggregate.AggSum
		}
		k := np + partialOf[i]
		var v exec.Expr = &exec.ColRef{Idx: k, T: pts[k]}
		if conds[i] != nil {
			// the partial result counts where the build row's condition
			// holds: every row of a partial group meets the same build rows
			v = &exec.Case{When: []exec.Expr{exec.MapColumns(conds[i], func(c int) int { return c + shift })}, Then: []exec.Expr{v}, T: pts[k]}
		}
		final = append(final, v)
		aggs[i] = aggregate.Agg{Kind: kind, Arg: agg.NGroup + i, In: pts[k], Out: out}
	}
	agg.Input = &exec.Project{Env: pre.Env, Input: j, Exprs: final}
	agg.Aggs = aggs
	delete(est.Rows, j)
	delete(est.Rows, agg)
	// the partial grouping is an aggregation over the probe side in turn:
	// it moves below the probe side's joins to small tables that keep most
	// rows (TPC-DS q99 groups catalog_sales by three dimension keys before
	// meeting the warehouse, ship mode and call center text columns it
	// groups by); a larger table's key splits the groups further (q57's
	// items, each sold at six call centers in twelve months, made as many
	// partial groups as rows)
	if qc.aggregateEagerly(partial, true) {
		qc.fired(ruleEagerAggregation)
	}
	return true
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

// filtered reports whether op's tree filters rows.
func filtered(op exec.Operator) bool {
	if _, ok := op.(*exec.Filter); ok {
		return true
	}
	for _, in := range optree.Inputs(op) {
		if filtered(*in) {
			return true
		}
	}
	return false
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

// partialGroupsFew reports whether partial's groups are estimated at most
// fewGroups of its input rows. The estimate multiplies the keys' distinct
// values as if they were independent; a key of few values read from a
// dimension (a year beside a customer key) mostly splits a join key's rows
// into no more groups, so such keys (at most maxSplitKeyValues values)
// count for one when the join keys alone leave few groups.
func (qc *QueryCtx) partialGroupsFew(partial *aggregate.HashAgg, joinKeys []int) bool {
	est := qc.planEstimator()
	rows := est.N(partial.Input)
	if est.N(partial) <= fewGroups*rows {
		return true
	}
	g := 1.0
	for k := 0; k < partial.NGroup; k++ {
		ndv := est.Column(partial.Input, k).NDV
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

// maxSplitKeyValues bounds the distinct values of a probe-side group key
// taken to split a join key's rows into few groups.
const maxSplitKeyValues = 1000

// mapAll renumbers the columns of each of es.
func mapAll(es []exec.Expr, fn func(int) int) []exec.Expr {
	out := make([]exec.Expr, len(es))
	for i, e := range es {
		out[i] = exec.MapColumns(e, fn)
	}
	return out
}

// presizeAggregations sizes the tables of each aggregation by integer
// keys expected to make many groups for half its estimate (at most
// maxPresizedGroups), so that they do not grow to it by doubling from a
// few slots: TPC-DS q97's tables of 550,000 (customer, item) groups
// placed every group again about twice on the way, a sixth of its CPU.
func (qc *QueryCtx) presizeAggregations(op exec.Operator) {
	est := qc.planEstimator()
	optree.EachOnce(op, func(op exec.Operator) {
		if agg, ok := op.(*aggregate.HashAgg); ok && agg.NGroup > 0 && agg.GroupingSets == nil && agg.Partial == nil && agg.SizeHint == 0 && intKeys(agg) {
			// half the estimate: the last doubling, if the groups come,
			// is left to make, and an overestimate holds half as much
			// (TPC-H Q3's 11,620 groups were estimated at many more)
			if n := est.N(agg) / 2; n >= minPresizedGroups {
				agg.SizeHint = int(min(n, maxPresizedGroups))
			}
		}
	})
}

// intKeys reports an aggregation grouping by integer-stored keys alone:
// its slots are cheap, and its estimate counts distinct keys (text keys,
// a product of names, was several times the groups TPC-DS q67 made, and
// the presized table cost more than the doubling it saved).
func intKeys(agg *aggregate.HashAgg) bool {
	for _, t := range agg.Input.Types()[:agg.NGroup] {
		if t.Storage() != types.StoreInt {
			return false
		}
	}
	return true
}

// minPresizedGroups and maxPresizedGroups bound the groups an aggregation
// is presized for: below, doubling costs little; above, an overestimate
// would hold memory the groups never fill.
const (
	minPresizedGroups = 1 << 14
	maxPresizedGroups = 1 << 20
)
