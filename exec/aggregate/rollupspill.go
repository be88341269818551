package aggregate

import (
	"context"

	"github.com/lakepg/lakepg/exec/memory"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
)

// Grouping sets spill set by set. When their tables cannot grow, every
// non-empty set's table is frozen as a plain aggregation's is (aggspill.go):
// from then on each set looks every row up on its own, aggregates the rows
// of its groups and writes the others, whole, to its own partition files by
// the hash of its own keys. So when the input ends each set's table is
// complete for the groups it holds, and each partition of each set is
// aggregated by a sub-aggregation of that one set, which spills again if it
// must. Whole rows go to the files, so every aggregate (DISTINCT, ordered,
// FILTER, percentiles) and grouping() come out as in memory.
//
// Sets rolled up from the finest (rollup.go) have not read the input until
// then: they are rolled up from the finest set's groups when the tables
// freeze (the finest set's table has just filled the budget, and each
// other set has at most its groups), and read the rest of the input
// themselves.
//
// Parallel workers freeze and spill each on their own; their tables are
// merged at the end and the rows they spilled are routed again through
// the merged tables into files of its own, as a worker's spilled row may be
// of a group another worker's table held.

// setsSpill reports whether the grouping sets' tables freeze and spill.
func (h *HashAgg) setsSpill() bool {
	return h.GroupingSets != nil && h.NGroup > 0 && h.spillLevel < aggMaxSpillLvl
}

// freezeSets freezes every set's table of r.
func (r *aggRun) freezeSets(ctx context.Context) error {
	if err := r.materialize(); err != nil {
		return err
	}
	r.ssp = make([]*aggSpill, len(r.sets))
	for si, s := range r.sets {
		if len(s.cols) > 0 {
			sp := r.h.newSpill(ctx)
			sp.set, sp.cols = si, [][]int{s.cols}
			r.ssp[si] = sp
		}
	}
	return nil
}

// materialize rolls the other sets up from the finest now, so that each
// set holds what it has read, for a run that reads the rest of the input
// into every set.
func (r *aggRun) materialize() error {
	if r.finest < 0 {
		return nil
	}
	if err := r.rollUp(); err != nil {
		return err
	}
	r.finest = -1
	r.recount()
	return nil
}

// recount counts what r's tables hold, past the budget if it must: a
// frozen table neither spills nor gives back what it holds until it has
// been sent.
func (r *aggRun) recount() {
	total := r.stateBytes()
	if d := total - r.accounted; d > 0 {
		if err := r.res.Grow(d); err == nil {
			r.accounted = total
		}
	}
}

// routeSets feeds b to every set of a frozen run.
func (r *aggRun) routeSets(ctx context.Context, b *vec.Batch) error {
	for si, sp := range r.ssp {
		if sp != nil {
			if err := sp.route(ctx, r, b); err != nil {
				return err
			}
			continue
		}
		// the empty set's one group is always there
		r.onlySet = si + 1
		err := r.consume(b)
		r.onlySet = 0
		if err != nil && pgerr.Code(err) != memory.OutOfMemory {
			return err
		}
	}
	return nil
}

// nextSets emits the sets' spilled partitions, set after set, once the
// frozen tables have been sent.
func (r *aggRun) nextSets(ctx context.Context) (*vec.Batch, error) {
	for len(r.ssp) > 0 {
		if sp := r.ssp[0]; sp != nil {
			b, err := sp.next(ctx)
			if err != nil || b != nil {
				return b, err
			}
		}
		r.ssp = r.ssp[1:]
	}
	return nil, nil
}

// mergeSpilledSets merges the workers' runs of a parallel grouping-set
// aggregation of which some froze: the rolled-up sets are filled in every
// run, the runs merged into runs[0] (past the budget if it must: the
// workers spilled at half their share for it), and every row the workers
// spilled is routed again through runs[0]'s frozen tables.
func (h *HashAgg) mergeSpilledSets(ctx context.Context, runs []*aggRun) error {
	for _, r := range runs {
		if err := r.materialize(); err != nil {
			return err
		}
	}
	r0 := runs[0]
	old := make([][]*aggSpill, 0, len(runs))
	for _, r := range runs {
		if r.ssp != nil {
			old = append(old, r.ssp)
			r.ssp = nil
		}
	}
	for _, r := range runs[1:] {
		if err := r0.merge(r); err != nil && pgerr.Code(err) != memory.OutOfMemory {
			return err
		}
	}
	r0.recount()
	if err := r0.freezeSets(ctx); err != nil {
		return err
	}
	for _, ssp := range old {
		for si, sp := range ssp {
			if sp == nil {
				continue
			}
			for p, pt := range sp.parts {
				if pt == nil {
					continue
				}
				if err := pt.Flush(); err != nil {
					return err
				}
				rd, err := pt.File.Reader()
				if err != nil {
					return err
				}
				scan := &memory.SpillScan{Rd: rd, Dec: memory.NewBlockDecoder(h.Input.Types())}
				for {
					b, err := scan.Next(ctx)
					if err != nil {
						return err
					}
					if b == nil {
						break
					}
					if err := r0.ssp[si].route(ctx, r0, b); err != nil {
						return err
					}
				}
				pt.File.Close()
				sp.parts[p] = nil
			}
		}
	}
	return nil
}
