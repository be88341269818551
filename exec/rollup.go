package exec

import (
	"github.com/lakepg/lakepg/exec/vec"
)

// Grouping sets rolled up: ROLLUP (a, b, c) groups by (a, b, c), (a, b),
// (a) and (); every set's groups are unions of the finest set's groups, and
// the aggregate states of those merge as a parallel worker's merge. So only
// the finest set reads the input and the others are built from its groups
// at the end: the input is hashed once instead of once per set (TPC-DS
// q67 groups 8 keys in 9 sets, q22 4 text keys in 5).

// finestSet returns the index of the grouping set holding every column of
// the others, when the aggregates' states can be merged and re-merged
// without changing the source state; -1 otherwise.
func finestSet(h *HashAgg, sets [][]int) int {
	if len(sets) < 2 {
		return -1
	}
	for _, a := range h.Aggs {
		if a.Distinct || len(a.Order) > 0 {
			return -1
		}
		switch a.Kind {
		case AggCountStar, AggCount, AggSum, AggAvg, AggMin, AggMax, AggBoolAnd, AggBoolOr,
			AggStddevSamp, AggStddevPop, AggVarSamp, AggVarPop:
		default:
			return -1
		}
	}
	best := -1
	for i, s := range sets {
		if best < 0 || len(s) > len(sets[best]) {
			best = i
		}
	}
	has := map[int]bool{}
	for _, c := range sets[best] {
		has[c] = true
	}
	for _, s := range sets {
		for _, c := range s {
			if !has[c] {
				return -1
			}
		}
	}
	return best
}

// rollUp fills every other grouping set from the finest one's groups.
func (r *aggRun) rollUp() error {
	if r.finest < 0 {
		return nil
	}
	f := r.sets[r.finest]
	n := f.ngroups
	if n == 0 {
		return nil
	}
	// the finest set's keys, as a batch of its groups laid out like the input
	in := r.h.Input.Types()
	b := &vec.Batch{N: n, Vecs: make([]*vec.Vector, len(in))}
	switch {
	case len(f.cols) == 0:
	case f.itab != nil:
		v := vec.New(in[f.cols[0]], 0)
		v.I64 = f.itab.dense[:n]
		if f.nullG >= 0 {
			v.Nulls = make([]bool, n)
			v.Nulls[f.nullG] = true
		}
		b.Vecs[f.cols[0]] = v
	default:
		for i, c := range f.cols {
			b.Vecs[c] = f.keys.colView(i, 0, n)
		}
	}
	for si, s := range r.sets {
		if si == r.finest {
			continue
		}
		s.groupIDs(b, zeroGidsN(n))
		for a, fn := range s.fns {
			fn.grow(s.ngroups)
			if err := fn.merge(f.fns[a], s.gids); err != nil {
				return err
			}
		}
	}
	return nil
}
