package aggregate

import (
	"context"

	"github.com/lakepg/lakepg/exec/memory"
	"github.com/lakepg/lakepg/exec/vec"
)

// A HashAgg is an exec.SplitSource: once it has aggregated, a Parallel
// above takes its groups vec.BatchSize at a time on every worker, and the
// operators over it (the joins, filters and projections up to the next
// aggregation or sort) run on all cores. The groups are turned into rows
// one part at a time (splitMu): the aggregates' final steps keep scratch
// of their own, and what the workers then do with the rows is most of the
// work.

// aggPart is groups [lo, hi) of one grouping set's table.
type aggPart struct {
	s      *aggSet
	lo, hi int
}

// SplitParts aggregates the input and cuts the groups into parts. An
// aggregation that spilled is read with Next: its partitions are
// aggregated again as they are read.
func (h *HashAgg) SplitParts(ctx context.Context) (int, bool, error) {
	if h.started {
		return 0, false, nil
	}
	h.started = true
	h.workMem = memory.WorkMemOf(ctx)
	h.Mem = memory.MemFor(ctx, h.Mem)
	if err := h.aggregate(ctx); err != nil {
		return 0, false, err
	}
	if h.run != nil && h.run.sp != nil && !h.takeSeeds() {
		return 0, false, h.finish()
	}
	if err := h.finish(); err != nil {
		return 0, false, err
	}
	for _, r := range h.runs {
		for _, s := range r.sets {
			for lo := 0; lo < s.ngroups; lo += vec.BatchSize {
				h.parts = append(h.parts, aggPart{s: s, lo: lo, hi: min(lo+vec.BatchSize, s.ngroups)})
			}
		}
	}
	// Next, if called, has nothing more to emit
	h.emitRun = len(h.runs)
	return len(h.parts), true, nil
}

// takeSeeds makes the partition tables of a parallel aggregation that did
// not spill (radixEnd leaves them as tasks without files) the runs to
// emit, and reports whether it did.
func (h *HashAgg) takeSeeds() bool {
	sp := h.run.sp
	if sp.tasks == nil || sp.par != nil || sp.sub != nil || len(sp.parts) > 0 {
		return false
	}
	for _, t := range sp.tasks {
		if t.seed == nil || len(t.files) > 0 {
			return false
		}
	}
	runs := make([]*aggRun, 0, len(sp.tasks))
	for i := range sp.tasks {
		runs = append(runs, sp.tasks[i].seed)
		sp.tasks[i].seed = nil
	}
	sp.close()
	h.run, h.runs = &aggRun{h: h}, runs
	return true
}

// SplitPart fills out with part i's groups.
func (h *HashAgg) SplitPart(i int, out *memory.ColBuf) error {
	p := h.parts[i]
	h.splitMu.Lock()
	defer h.splitMu.Unlock()
	return h.emitTo(out, p.s, p.lo, p.hi)
}
