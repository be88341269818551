package aggregate

import (
	"slices"
	"sort"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
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

// rollUp fills every other grouping set from the groups of the set with
// the fewest groups among those already filled whose columns hold its own:
// for ROLLUP (a, …, h) each set is built from the next finer one rather
// than all from the finest, which hashed the finest set's groups once per
// set (TPC-DS q67: 8 times 400 k groups where the chain hashes about 500 k
// in all).
func (r *aggRun) rollUp() error {
	if r.finest < 0 {
		return nil
	}
	f := r.sets[r.finest]
	if f.ngroups == 0 {
		return nil
	}
	// the finer sets first, so that every set's source is filled
	order := make([]int, 0, len(r.sets))
	for si := range r.sets {
		if si != r.finest {
			order = append(order, si)
		}
	}
	sort.SliceStable(order, func(a, b int) bool { return len(r.sets[order[a]].cols) > len(r.sets[order[b]].cols) })
	done := []*aggSet{f}
	in := r.h.Input.Types()
	for _, si := range order {
		s := r.sets[si]
		src := f
		for _, d := range done {
			if d.ngroups < src.ngroups && holdsCols(d.cols, s.cols) {
				src = d
			}
		}
		n := src.ngroups
		b := src.keyBatch(in)
		s.groupIDs(b, zeroGidsN(n), nil)
		for a, fn := range s.fns {
			fn.grow(s.ngroups)
			if err := fn.merge(src.fns[a], nil, s.gids); err != nil {
				return err
			}
		}
		done = append(done, s)
	}
	return nil
}

// holdsCols reports whether every column of sub is in cols.
func holdsCols(cols, sub []int) bool {
	for _, c := range sub {
		if !slices.Contains(cols, c) {
			return false
		}
	}
	return true
}

// keyBatch lays the set's groups out as a batch like the input (types in),
// its key columns in place and the others absent, one row per group.
func (s *aggSet) keyBatch(in []types.T) *vec.Batch {
	n := s.ngroups
	b := &vec.Batch{N: n, Vecs: make([]*vec.Vector, len(in))}
	switch {
	case len(s.cols) == 0:
	case s.itab != nil:
		v := vec.New(in[s.cols[0]], 0)
		v.I64 = s.itab.Dense[:n]
		if s.nullG >= 0 {
			v.Nulls = make([]bool, n)
			v.Nulls[s.nullG] = true
		}
		b.Vecs[s.cols[0]] = v
	default:
		for i, c := range s.cols {
			b.Vecs[c] = s.keys.ColView(i, 0, n)
		}
	}
	return b
}
