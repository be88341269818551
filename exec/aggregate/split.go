package aggregate

import (
	"context"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/memory"
	"github.com/lakepg/lakepg/exec/vec"
)

// A HashAgg is an exec.SplitSource: once it has aggregated, a Parallel
// above takes its groups vec.BatchSize at a time on every worker, and the
// operators over it (the joins, filters and projections up to the next
// aggregation or sort) run on all cores. The groups are turned into rows
// on every worker too: the aggregates' final steps run on copies of the
// states that keep scratch (TPC-DS q39's averages and deviations, as
// numeric text, are half its work above the grouping).

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
	h.ctx, h.qs = ctx, exec.QueryStatsOf(ctx)
	if err := h.aggregate(ctx); err != nil {
		return 0, false, err
	}
	if h.run != nil && (h.run.ssp != nil || h.run.sp != nil && !h.takeSeeds()) {
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

// SplitWorker returns a reader of the parts for one worker. The aggregates
// whose final step keeps scratch in the state get copies of their own
// (splitFinals), so workers turn groups into rows side by side; a set with
// an aggregate that cannot be copied is emitted one part at a time.
func (h *HashAgg) SplitWorker() func(i int, out *memory.ColBuf) error {
	fns := map[*aggSet][]aggFn{}
	var views []*vec.Vector
	hv := h.newHaving()
	return func(i int, out *memory.ColBuf) error {
		p := h.parts[i]
		fs, ok := fns[p.s]
		if !ok {
			fs = splitFinals(p.s.fns)
			fns[p.s] = fs
		}
		if fs == nil {
			h.splitMu.Lock()
			defer h.splitMu.Unlock()
			return h.emitTo(out, p.s, p.s.fns, nil, hv, p.lo, p.hi)
		}
		if p.s.keys != nil {
			for len(views) < len(p.s.keys.Cols) {
				views = append(views, &vec.Vector{})
			}
			for j, c := range p.s.keys.Cols {
				views[j].Type = c.Type
			}
		}
		return h.emitTo(out, p.s, fs, views, hv, p.lo, p.hi)
	}
}

// splitFinals returns states whose final step can run on another goroutine
// beside fns' own, for other groups: the states themselves where it only
// reads them, copies with scratch of their own where it writes scratch
// (the text of averages and deviations), or nil when one of them cannot.
func splitFinals(fns []aggFn) []aggFn {
	// decided before any state is read: where one cannot be copied, the
	// workers emit with the states themselves, whose scratch they write
	for _, fn := range fns {
		switch fn.(type) {
		case *countAgg, *sumFloatAgg, *floatVarAgg, *minmaxInt, *minmaxFloat, *minmaxBool, *minmaxStr, *stringAgg, *minmaxInterval, *sumIntAgg, *numVarAgg, avgOfSum:
		default:
			return nil // sums of wide numerics flush their partial sums; intervals and ordered aggregates keep more
		}
	}
	out := make([]aggFn, len(fns))
	sums := map[*sumIntAgg]*sumIntAgg{} // the copies, for the averages that read them
	for i, fn := range fns {
		switch s := fn.(type) {
		case *countAgg, *sumFloatAgg, *floatVarAgg, *minmaxInt, *minmaxFloat, *minmaxBool, *minmaxStr, *stringAgg, *minmaxInterval:
			out[i] = fn
		case *sumIntAgg:
			c := *s
			c.txt, c.ends, c.chunks = nil, nil, vec.TextChunks{}
			out[i], sums[s] = &c, &c
		case *numVarAgg:
			c := *s
			c.v, c.txt, c.chunks = varScratch{}, nil, vec.TextChunks{}
			out[i] = &c
		}
	}
	for i, fn := range fns {
		if a, ok := fn.(avgOfSum); ok {
			out[i] = avgOfSum{sums[a.sum]}
		}
	}
	return out
}
