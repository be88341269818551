package optree

import (
	"runtime"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/aggregate"
	"github.com/lakepg/lakepg/exec/order"
	"github.com/lakepg/lakepg/types"
)

// Morsel-driven parallelism: a pipeline of filters, projections and hash
// join probes over one table scan runs once per worker, each worker pulling
// row groups from a shared queue (exec.Parallel); hash join build sides are
// built once and shared. Pipelines are parallelised where a blocking
// operator above (aggregate, sort) makes the merged row order irrelevant;
// an aggregate directly above aggregates per worker and merges once. A
// partial aggregation (eager aggregation's) is part of a pipeline: each
// worker groups its own rows, and the aggregate above folds them all.

// identityCols copies an expression for another worker: expressions keep
// per-evaluation caches and must not be shared across goroutines.
func CloneExpr(e exec.Expr) exec.Expr {
	if e == nil {
		return nil
	}
	return exec.MapColumns(e, func(i int) int { return i })
}

// CloneExprs clones each of es for another worker (CloneExpr).
func CloneExprs(es []exec.Expr) []exec.Expr {
	out := make([]exec.Expr, len(es))
	for i, e := range es {
		out[i] = CloneExpr(e)
	}
	return out
}

// Parallelize rewrites op's tree in place where pipelines can run on all cores.
func Parallelize(op exec.Operator, chains map[*exec.Parallel]exec.Operator) exec.Operator {
	if runtime.GOMAXPROCS(0) < 2 {
		return op
	}
	switch o := op.(type) {
	case *aggregate.HashAgg:
		if _, exact := exec.ExactRowsOf(o.Input); exact && o.CountOnly() {
			return o // answered from the catalog's counts, nothing to scan
		}
		// a grouping over an aggregation's groups that only picks
		// columns of them makes about as many groups as it reads: per
		// worker, each would be met twice, in a worker's table and in
		// the merge (TPC-DS q75's UNION of three distinct sets)
		if p := parallelChain(o.Input, chains, o.NGroup == 0); p != nil {
			o.Input = p
			exec.Replanned(o)
			return o
		}
	case *order.Sort:
		if p := parallelChain(o.Input, chains, true); p != nil {
			o.Input = p
			return o
		}
	case *exec.MaterializedReader:
		o.M.Input = parallelizeRows(o.M.Input, chains)
		return o
	case *exec.HashJoin:
		// a build side is buffered whole: its row order does not matter
		if p := parallelChain(o.Right, chains, false); p != nil {
			o.Right = p
			o.Left = Parallelize(o.Left, chains)
			return o
		}
	}
	for _, in := range Inputs(op) {
		*in = Parallelize(*in, chains)
	}
	return op
}

// parallelChain turns a pipeline ending in a table scan into a Parallel, or
// returns nil when op is not such a pipeline. picks says that even a
// pipeline that only picks columns of an aggregation's groups pays: its
// consumer works on each worker's rows apart and gains by it (a sort, an
// aggregation without groups).
func parallelChain(op exec.Operator, chains map[*exec.Parallel]exec.Operator, picks bool) *exec.Parallel {
	// walk down the probe spine
	var chain []exec.Operator
	cur := op
	for {
		switch o := cur.(type) {
		case *exec.Filter:
			chain, cur = append(chain, o), o.Input
			continue
		case *exec.Project:
			chain, cur = append(chain, o), o.Input
			continue
		case *exec.HashJoin:
			if o.Shared != nil {
				return nil
			}
			chain, cur = append(chain, o), o.Left
			continue
		case *aggregate.HashAgg:
			// a partial aggregation (eager aggregation's) runs in each
			// worker on the worker's rows, the join above probing with
			// its groups there too; the aggregation above folds the
			// workers' groups as it folds its groups
			if o.Partial != nil {
				chain, cur = append(chain, o), o.Input
				continue
			}
		}
		break
	}
	scan, ok := cur.(*exec.TableScan)
	rows, isRows := cur.(*exec.MaterializedReader)
	agg, isAgg := cur.(*aggregate.HashAgg)
	var union []*exec.Parallel
	if (isRows || isAgg) && len(chain) == 0 || isAgg && !picks && !chainWorks(chain) {
		// the rows alone: dealing them out to be gathered again gains nothing
		return nil
	}
	var split exec.SplitSource
	if isAgg {
		// an aggregation's groups: the workers take them a batch at a
		// time once it is done (exec.SplitSource), the aggregation itself
		// planned for all cores as when nothing was above it (TPC-DS q97
		// full-joins two aggregations, q87 groups three again)
		scan = nil
		split = Parallelize(agg, chains).(*aggregate.HashAgg)
	} else if isRows {
		// a WITH query read again: the workers take its rows a batch at
		// a time (TPC-DS q47, q57: three reads joined); the query itself
		// is planned for all cores as when its reader was not
		scan = nil
		rows.M.Input = parallelizeRows(rows.M.Input, chains)
	} else if app, isUnion := cur.(*exec.Append); isUnion && len(app.Inputs) >= 2 && unionOfChains(app, picks) {
		// a UNION ALL of pipelines: the workers take morsels of each
		// branch's scan in turn, the operators above on top of them (an
		// aggregate over the union runs on all workers: TPC-DS q14's
		// average over three sales channels, q2's week sums, q75, q76)
		for _, in := range app.Inputs {
			union = append(union, parallelChain(in, chains, picks))
		}
	} else if !ok || scan.WithPos || len(scan.Files) == 0 {
		return nil
	}
	// the build sides are planned (and parallelised) once, shared by workers
	shared := map[*exec.HashJoin]*exec.SharedBuild{}
	for _, c := range chain {
		if j, ok := c.(*exec.HashJoin); ok {
			// a build side over a table scan is read by all workers too;
			// the rows go to one buffer in any order
			var right exec.Operator
			if p := parallelChain(j.Right, chains, false); p != nil {
				right = p
			} else {
				right = Parallelize(j.Right, chains)
			}
			kts := make([]types.T, len(j.LeftKeys))
			for i, k := range j.LeftKeys {
				kts[i] = k.Type()
			}
			shared[j] = &exec.SharedBuild{Env: j.Env, Right: right, RightKeys: j.RightKeys, KeyTypes: kts, Mem: j.Mem}
			// the workers run copies of j: a key filter below an
			// aggregation on its probe side reads their build
			j.BuiltBy = shared[j]
		}
	}
	p := &exec.Parallel{Scan: scan, Rows: rows, Split: split, Then: union, Build: func(w int, src exec.Operator) exec.Operator {
		out := src
		for i := len(chain) - 1; i >= 0; i-- {
			switch o := chain[i].(type) {
			case *exec.Filter:
				out = &exec.Filter{Env: o.Env, Input: out, Pred: CloneExpr(o.Pred)}
			case *exec.Project:
				out = &exec.Project{Env: o.Env, Input: out, Exprs: CloneExprs(o.Exprs)}
			case *exec.HashJoin:
				out = &exec.HashJoin{Env: o.Env, Left: out, LeftKeys: CloneExprs(o.LeftKeys), Type: o.Type, Extra: CloneExpr(o.Extra), Mem: o.Mem, Shared: shared[o], KeyRanges: o.KeyRanges, KeySet: o.KeySet, ColKeySets: o.ColKeySets, BuildLeftFirst: o.BuildLeftFirst}
				shared[o].Probes++
			case *aggregate.HashAgg:
				out = &aggregate.HashAgg{Input: out, NGroup: o.NGroup, Aggs: o.Aggs, Mem: o.Mem, SizeHint: o.SizeHint, Partial: o.Partial}
			}
		}
		return out
	}}
	chains[p] = op
	return p
}

// parallelizeRows plans a WITH query that is kept for several reads
// (exec.Materialized) for all cores. Its rows are kept in the order they
// come, which a query over a table scan may be read in; a filter or join
// over an aggregation's groups, which have no order, runs on every worker
// (TPC-DS q39 keeps the months whose deviation is large, of 180,000
// groups, on one core before).
func parallelizeRows(op exec.Operator, chains map[*exec.Parallel]exec.Operator) exec.Operator {
	cur := op
	for {
		switch o := cur.(type) {
		case *exec.Filter:
			cur = o.Input
			continue
		case *exec.Project:
			cur = o.Input
			continue
		case *exec.HashJoin:
			cur = o.Left
			continue
		}
		break
	}
	if _, ok := cur.(*aggregate.HashAgg); ok {
		if p := parallelChain(op, chains, false); p != nil {
			return p
		}
	}
	return Parallelize(op, chains)
}

// chainWorks reports whether a pipeline does more than pick columns and
// add constants (a set operation's branch marker): a join, a filter or a
// computed column.
func chainWorks(chain []exec.Operator) bool {
	for _, c := range chain {
		switch o := c.(type) {
		case *exec.Project:
			for _, e := range o.Exprs {
				switch e.(type) {
				case *exec.ColRef, *exec.Const:
				default:
					return true
				}
			}
		default:
			return true
		}
	}
	return false
}

// unionOfChains reports whether every branch of app (through nested
// Appends) is a pipeline parallelChain takes, before parallelChain
// parallelises any build side.
func unionOfChains(app *exec.Append, picks bool) bool {
	for _, in := range app.Inputs {
		cur := in
		var above []exec.Operator // the branch's operators above its source
	walk:
		for {
			op := cur
			switch o := cur.(type) {
			case *exec.Filter:
				cur = o.Input
			case *exec.Project:
				cur = o.Input
			case *exec.HashJoin:
				if o.Shared != nil {
					return false
				}
				cur = o.Left
			default:
				break walk
			}
			above = append(above, op)
		}
		switch o := cur.(type) {
		case *aggregate.HashAgg:
			if len(above) == 0 || !picks && !chainWorks(above) {
				return false
			}
		case *exec.TableScan:
			if o.WithPos || len(o.Files) == 0 {
				return false
			}
		case *exec.Append:
			if len(o.Inputs) < 2 || !unionOfChains(o, picks) {
				return false
			}
		default:
			return false
		}
	}
	return true
}
