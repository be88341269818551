package planner

import (
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/aggregate"
	"github.com/lakepg/lakepg/sql/planner/estimate"
	"github.com/lakepg/lakepg/sql/planner/optree"
)

// dynamicFilters gives every inner, right and semi hash join whose probe
// key is a plain integer column of a table scan below it a KeyRange: once
// the join's build side is in memory, that scan skips the row groups whose
// statistics put the key outside the build keys' range (exec/keyrange.go).
// A fact table joined with a date dimension filtered to a few weeks reads
// only the row groups of those weeks (TPC-DS q37 reads 11.7 M inventory
// rows without it). A join on one key also hands the scan its build side
// (exec.KeySet): the scan reads the key column first and decodes its other
// columns only at the rows whose key the build side has. Joins that keep
// unmatched probe rows (left, full, anti) get none. It runs on the
// finished plan, after column pruning.
func (qc *QueryCtx) dynamicFilters(op exec.Operator) {
	if !qc.ruleOn(ruleDynamicFilters) {
		return
	}
	// a subtree read twice (a WITH query's MaterializedReaders) is wired
	// once: a second visit would replace the join's range and key set with
	// new ones and leave the scan the first pair, never filled
	seen := map[exec.Operator]bool{}
	var visit func(op exec.Operator)
	visit = func(op exec.Operator) {
		if seen[op] {
			return
		}
		seen[op] = true
		if j, ok := op.(*exec.HashJoin); ok && j.Shared == nil {
			switch j.Type {
			case exec.JoinInner, exec.JoinRight, exec.JoinSemi, exec.JoinRightSemi, exec.JoinRightAnti:
				for i, k := range j.LeftKeys {
					ref, ok := k.(*exec.ColRef)
					if !ok || !exec.KeyRangeType(ref.T) || !exec.KeyRangeType(j.RightKeys[i].Type()) {
						continue
					}
					scan, col, ok := scanColumn(j.Left, ref.Idx)
					if !ok || scan.Cols[col].T != ref.T {
						continue
					}
					if j.KeyRanges == nil {
						j.KeyRanges = make([]*exec.KeyRange, len(j.LeftKeys))
					}
					j.KeyRanges[i] = &exec.KeyRange{}
					scan.Dynamic = append(scan.Dynamic, exec.DynamicBound{Col: col, Range: j.KeyRanges[i]})
					if len(j.LeftKeys) == 1 && !scan.WithPos {
						j.KeySet = &exec.KeySet{}
						scan.Keys = append(scan.Keys, exec.DynamicKeys{Col: col, Set: j.KeySet})
					}
					qc.fired(ruleDynamicFilters)
				}
			}
		}
		for _, in := range optree.Inputs(op) {
			visit(*in)
		}
	}
	visit(op)
}

// scanColumn follows output column idx of op down to the table scan
// column it is, through filters, column projections, joins and GROUP BY
// keys.
func scanColumn(op exec.Operator, idx int) (*exec.TableScan, int, bool) {
	switch o := op.(type) {
	case *exec.TableScan:
		return o, idx, idx < len(o.Cols)
	case *exec.Timed:
		return scanColumn(o.Input, idx)
	case *exec.Filter:
		return scanColumn(o.Input, idx)
	case *exec.Project:
		if idx < len(o.Exprs) {
			if ref, ok := o.Exprs[idx].(*exec.ColRef); ok {
				return scanColumn(o.Input, ref.Idx)
			}
		}
	case *aggregate.HashAgg:
		// a group key is its input column; the rows a filter on it drops
		// make only groups the join would drop (TPC-H Q17's average
		// quantity per part, of the parts the outer query kept)
		if idx < o.NGroup && o.GroupingSets == nil {
			return scanColumn(o.Input, idx)
		}
	case *exec.HashJoin:
		return joinedColumn(o.Type, o.Left, o.Right, idx)
	case *exec.NestedLoopJoin:
		return joinedColumn(o.Type, o.Left, o.Right, idx)
	}
	return nil, 0, false
}

func joinedColumn(t exec.JoinType, l, r exec.Operator, idx int) (*exec.TableScan, int, bool) {
	if estimate.RightOnly(t) {
		return scanColumn(r, idx)
	}
	if n := len(l.Types()); idx >= n {
		if estimate.LeftOnly(t) {
			return nil, 0, false
		}
		return scanColumn(r, idx-n)
	}
	return scanColumn(l, idx)
}
