package runtimefilter

import (
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/aggregate"
	"github.com/lakepg/lakepg/sql/planner/estimate"
	"github.com/lakepg/lakepg/sql/planner/optree"
)

// Dynamic gives every inner, right and semi hash join whose probe
// key is a plain integer column of a table scan below it a KeyRange: once
// the join's build side is in memory, that scan skips the row groups whose
// statistics put the key outside the build keys' range (exec/keyrange.go).
// A fact table joined with a date dimension filtered to a few weeks reads
// only the row groups of those weeks (TPC-DS q37 reads 11.7 M inventory
// rows without it). A join on one key also hands the scan its build side
// (exec.KeySet): the scan reads the key column first and decodes its other
// columns only at the rows whose key the build side has. A join on several
// keys hands it, for each such key, the build side's values of that key
// alone (exec.ColKeySet): TPC-DS q17's catalog sales whose item or
// customer no store return of the quarter has are dropped at the scan. Joins that keep
// unmatched probe rows (left, full, anti) get none. It runs on the
// finished plan, after column pruning.
func Dynamic(op exec.Operator, fired func()) {
	// joins whose build side already filters the rows below them
	// (exec.InJoinBuild: a decorrelated subquery's key filter) get no
	// column key sets: the scan would test every row before the filters
	// between it and that key filter drop most (TPC-H Q20's lineitem of
	// one year: 46 -> 55 ms with them)
	keyFiltered := map[*exec.HashJoin]bool{}
	optree.EachOnce(op, func(op exec.Operator) {
		if f, ok := op.(*exec.Filter); ok {
			if kf, ok := f.Pred.(*exec.InJoinBuild); ok {
				keyFiltered[kf.Join] = true
			}
		}
	})
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
					switch {
					case scan.WithPos:
					case len(j.LeftKeys) == 1:
						j.KeySet = &exec.KeySet{}
						scan.Keys = append(scan.Keys, exec.DynamicKeys{Col: col, Set: j.KeySet})
					case keyFiltered[j]:
					default:
						ks := &exec.KeySet{}
						j.ColKeySets = append(j.ColKeySets, exec.ColKeySet{Key: i, Set: ks})
						scan.Keys = append(scan.Keys, exec.DynamicKeys{Col: col, Set: ks})
					}
					fired()
				}
			}
		}
		for _, in := range optree.Inputs(op) {
			visit(*in)
		}
	}
	visit(op)
	clear(seen)
	var share func(op exec.Operator)
	share = func(op exec.Operator) {
		if seen[op] {
			return
		}
		seen[op] = true
		if j, ok := op.(*exec.HashJoin); ok {
			shareKeySets(j, fired)
		}
		for _, in := range optree.Inputs(op) {
			share(*in)
		}
	}
	share(op)
}

// shareKeySets hands j's build side the key sets of the joins below on
// its probe side that probe the same column: TPC-H Q9 joins lineitem to
// the parts named green (10,800 of 200,000) and then to partsupp on
// (l_partkey, l_suppkey), and the 800,000 rows of partsupp were all
// hashed although only the 43,000 of green parts can meet a lineitem row
// that got that far. The joins below are then built first
// (exec.HashJoin.BuildLeftFirst). Only for joins where a build row no
// probe row can match makes no row: inner and semi joins.
func shareKeySets(j *exec.HashJoin, fired func()) {
	if j.Shared != nil || (j.Type != exec.JoinInner && j.Type != exec.JoinSemi) {
		return
	}
	for i, k := range j.LeftKeys {
		pref, ok := k.(*exec.ColRef)
		if !ok {
			continue
		}
		pscan, pcol, ok := scanColumn(j.Left, pref.Idx)
		if !ok {
			continue
		}
		below := keySetBelow(j.Left, pscan, pcol)
		if below == nil {
			continue
		}
		bref, ok := j.RightKeys[i].(*exec.ColRef)
		if !ok {
			continue
		}
		bscan, bcol, ok := scanColumn(j.Right, bref.Idx)
		if !ok || bscan.WithPos || bscan.Cols[bcol].T != pscan.Cols[pcol].T || bscan.Cols[bcol].T != below.RightKeys[0].Type() {
			continue
		}
		bscan.Keys = append(bscan.Keys, exec.DynamicKeys{Col: bcol, Set: below.KeySet})
		if len(below.KeyRanges) == 1 && below.KeyRanges[0] != nil {
			bscan.Dynamic = append(bscan.Dynamic, exec.DynamicBound{Col: bcol, Range: below.KeyRanges[0]})
		}
		j.BuildLeftFirst = true
		fired()
	}
}

// keySetBelow finds, below op through filters, projections and inner or
// semi hash joins (either side of an inner join: its rows passed the joins
// of both), a join with a key set whose probe key is column col of scan.
// TPC-H Q5's customers are built on their nation too, and the suppliers
// on the probe side were joined to the nations of one region.
func keySetBelow(op exec.Operator, scan *exec.TableScan, col int) *exec.HashJoin {
	switch o := op.(type) {
	case *exec.Filter:
		return keySetBelow(o.Input, scan, col)
	case *exec.Project:
		return keySetBelow(o.Input, scan, col)
	case *exec.HashJoin:
		if o.Shared != nil || (o.Type != exec.JoinInner && o.Type != exec.JoinSemi) {
			return nil
		}
		if o.KeySet != nil {
			if ref, ok := o.LeftKeys[0].(*exec.ColRef); ok {
				if s, c, ok := scanColumn(o.Left, ref.Idx); ok && s == scan && c == col {
					return o
				}
			}
		}
		if j := keySetBelow(o.Left, scan, col); j != nil || o.Type != exec.JoinInner {
			return j
		}
		return keySetBelow(o.Right, scan, col)
	}
	return nil
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
