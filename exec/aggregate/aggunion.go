package aggregate

import (
	"sync"

	"github.com/lakepg/lakepg/exec/hashtab"
	"github.com/lakepg/lakepg/exec/memory"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
)

// The end of a parallel aggregation whose workers' tables stayed whole
// (below splitAt, aggradix.go). Merging one table into another adds the
// groups that are new to it one by one on one goroutine, growing the table
// as it fills: TPC-DS q97's two aggregations of some 270,000 customer and
// item pairs per worker, nearly all of them in one worker's table only,
// spent a sixth of their CPU, and more of their wall time, so.
//
// unionRuns instead looks every group of a later worker's table up in the
// tables kept before it, reading them only, on all cores. Where few groups
// are found the table is kept as a run of its own: the groups found are
// folded into theirs and marked dead (aggSet.dead), left out when the run is
// emitted, and no group is inserted anywhere. Where many are found (q39's
// 90,000 groups of warehouse, item and month are in every worker's table)
// the rest are placed in the last table kept without a second look-up,
// and the table is dropped, as a merge would.
//
// The groups come out in the order a merge gave them: the first table's,
// then each later table's groups that were new, in that table's order.

// unionKeepMost is the largest share of a table's groups found elsewhere
// (1/unionKeepMost) for which it is kept as a run of its own: its dead
// groups' results are computed and dropped when it is emitted.
const unionKeepMost = 8

// unionRuns ends the aggregation with runs, the workers' whole tables, as
// h.run and h.runs. The runs' reservations are given back as they are
// merged, or kept with their runs.
func (h *HashAgg) unionRuns(runs []*aggRun) error {
	dst := runs[0]
	kept := []*aggRun{dst}
	h.run, h.runs = dst, nil
	for _, r := range runs[1:] {
		s, src := dst.sets[0], r.sets[0]
		if s.htab == nil || src.ngroups == 0 {
			// the integer table merges with one probe a group anyway
			err := dst.merge(r)
			r.sets = nil
			if err != nil && (pgerr.Code(err) != memory.OutOfMemory || !h.canSpill()) {
				return err
			}
			continue
		}
		// to[k][g]: src group g's group in kept[k], or -1
		to := make([][]int32, len(kept))
		found := 0
		for k, o := range kept {
			to[k] = make([]int32, src.ngroups)
			found += findGroups(o.sets[0], src, to[k], len(runs))
		}
		if len(kept) > 1 {
			// a group the first table holds may be held dead by another
			// kept table too: it is the first table's
			for g, id := range to[0] {
				if id < 0 {
					continue
				}
				for k := 1; k < len(kept); k++ {
					if to[k][g] >= 0 {
						to[k][g] = -1
						found--
					}
				}
			}
		}
		if found*unionKeepMost > src.ngroups {
			err := unionInto(kept, r, to)
			r.sets = nil
			if err != nil && (pgerr.Code(err) != memory.OutOfMemory || !h.canSpill()) {
				return err
			}
			continue
		}
		for k, o := range kept {
			for a, fn := range o.sets[0].fns {
				if err := fn.merge(src.fns[a], nil, to[k]); err != nil {
					return err
				}
			}
		}
		if found > 0 {
			src.dead = make([]bool, src.ngroups)
			for _, t := range to {
				for g, id := range t {
					if id >= 0 {
						src.dead[g] = true
					}
				}
			}
		}
		r.res.SpillHalf = false
		kept = append(kept, r)
	}
	dst.res.SpillHalf = false
	if len(kept) > 1 {
		h.runs = kept
	}
	return nil
}

// unionInto folds src's table into the kept ones, to[k] giving src's
// groups that kept[k] holds, and places the others in the last kept table,
// whose groups are emitted last: after every group before them, as a
// merge would have them.
func unionInto(kept []*aggRun, src *aggRun, to [][]int32) error {
	dst := kept[len(kept)-1]
	s, o := dst.sets[0], src.sets[0]
	gmap := to[len(to)-1]
	var fresh []int32
	for g := range gmap {
		held := false
		for _, t := range to {
			held = held || t[g] >= 0
		}
		if !held {
			fresh = append(fresh, int32(g))
		}
	}
	want := s.htab.N + len(fresh)
	s.htab.Reserve(want)
	s.keyBytes += s.keys.Reserve(want)
	tags := o.htab.Tags(nil)
	for _, g := range fresh {
		gmap[g] = s.htab.PlaceNew(tags[g])
	}
	// the other worker's text keys are already copies of their own,
	// which nothing changes or frees: shared, not copied again
	s.keyBytes += s.keys.AppendRows(o.keys, fresh)
	s.ngroups = s.htab.N
	if s.dead != nil {
		s.dead = growTo(s.dead, s.ngroups)
	}
	for _, fn := range s.fns {
		fn.grow(s.ngroups)
	}
	for k, t := range to {
		for a, fn := range kept[k].sets[0].fns {
			if err := fn.merge(o.fns[a], nil, t); err != nil {
				return err
			}
		}
	}
	total := s.bytes()
	src.res.Release()
	if d := total - dst.accounted; d > 0 {
		if err := dst.res.Grow(d); err != nil {
			return err
		}
		dst.accounted = total
	}
	return nil
}

// unionSlice is the groups findGroups looks up at a time.
const unionSlice = 1 << 12

// findGroups sets to[g] to the group of s that holds src's group g, or -1,
// looking them up on workers goroutines, and returns how many it found.
func findGroups(s, src *aggSet, to []int32, workers int) int {
	n := src.ngroups
	if s.htab == nil || s.htab.N == 0 {
		for g := range to {
			to[g] = -1
		}
		return 0
	}
	tags := src.htab.Tags(nil)
	slices := (n + unionSlice - 1) / unionSlice
	workers = max(1, min(workers, slices))
	found := make([]int, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var sc hashtab.FindScratch
			views := make([]*vec.Vector, len(src.keys.Cols))
			for c := range views {
				views[c] = &vec.Vector{Type: src.keys.Cols[c].Type}
			}
			// slices dealt out in turn: every worker's share of the table
			// spans it, whatever part of the key space the groups came in
			for i := w; i < slices; i += workers {
				lo, hi := i*unionSlice, min((i+1)*unionSlice, n)
				for c := range views {
					src.keys.ColViewInto(views[c], c, lo, hi)
				}
				found[w] += s.htab.Find(s.keys, views, tags[lo:hi], to[lo:hi], &sc)
			}
		}()
	}
	wg.Wait()
	total := 0
	for _, f := range found {
		total += f
	}
	return total
}
