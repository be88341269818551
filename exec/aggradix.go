package exec

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
)

// Radix-partitioned parallel aggregation. Each worker of a parallel HashAgg
// starts with one table. Once it holds radixSplitMin groups it is split into
// aggPartitions partition tables by the top bits of the key hash (the bits a
// spill picks its partition by), and from then on the worker hashes each
// batch, deals its rows out to the partitions, and aggregates a partition's
// rows a batch at a time into that partition's table. Each partition table
// spills on its own: when memory runs out, the table that asked for more is
// frozen, and its new groups' rows go to its partition's file.
//
// At the end partition p of every worker is merged into one table, one
// goroutine per partition at a time and each into the largest of them, so
// no phase runs on one core; with two workers a single table merged into
// another on one goroutine was about an eighth of a 6 M-group GROUP BY's
// wall time. Workers whose tables never grew that large merge them into one
// as before: sixteen small tables cost more than one merge.
//
// Partition p's merged table and the rows every worker spilled to partition
// p, if any, make one task (aggPartTask): a HashAgg one level down that
// starts from the table and reads the files, freezing and partitioning again
// if it must, and emits the groups. The tasks run side by side (aggspill.go).
// A worker's own frozen tables therefore need not look the rows up
// (aggRun.rerouted): the task will.
//
// The partition tables need no half share of memory (reservation.spillHalf):
// merging partition p holds at most one partition's tables twice.

// radixSplitMin is the groups at which a worker's table is split into
// partition tables. Tests lower it.
var radixSplitMin = 1 << 16

// aggWorker is one parallel worker's aggregation.
type aggWorker struct {
	run   *aggRun   // the worker's table until it is split; nil after
	parts []*aggRun // after the split: partition p's table
	bufs  []*colBuf // rows dealt to each partition, not yet aggregated
	bhs   [][]uint64
	hs    []uint64
	rows  [aggPartitions][]int32
}

// feedWorker aggregates b into the worker's table or tables.
func (h *HashAgg) feedWorker(ctx context.Context, wk *aggWorker, b *vec.Batch) error {
	if wk.parts == nil {
		if err := h.feed(ctx, wk.run, b); err != nil {
			return err
		}
		if wk.run.sp == nil && wk.run.sets[0].ngroups >= radixSplitMin {
			return h.splitWorker(ctx, wk)
		}
		return nil
	}
	n := b.N
	if n == 0 {
		return nil
	}
	wk.hs = resizeSlice(wk.hs, n)
	for c := 0; c < h.NGroup; c++ {
		hashColumn(wk.hs, b.Vecs[c], n, c == 0)
	}
	shift := h.partShift()
	for p := range wk.rows {
		wk.rows[p] = wk.rows[p][:0]
	}
	for i, x := range wk.hs {
		p := int(x>>shift) & (aggPartitions - 1)
		wk.rows[p] = append(wk.rows[p], int32(i))
	}
	if wk.bufs == nil {
		wk.bufs = make([]*colBuf, aggPartitions)
		wk.bhs = make([][]uint64, aggPartitions)
	}
	for p, rows := range wk.rows {
		if len(rows) == 0 {
			continue
		}
		buf := wk.bufs[p]
		if buf == nil {
			buf = newColBuf(h.Input.Types(), vec.BatchSize)
			wk.bufs[p] = buf
		}
		for c, v := range b.Vecs {
			buf.gather(c, v, rows)
		}
		buf.N += len(rows)
		bh := wk.bhs[p]
		for _, i := range rows {
			bh = append(bh, wk.hs[i])
		}
		wk.bhs[p] = bh
		if buf.N >= vec.BatchSize {
			if err := h.flushPart(ctx, wk, p); err != nil {
				return err
			}
		}
	}
	return nil
}

// flushPart aggregates the rows dealt to partition p.
func (h *HashAgg) flushPart(ctx context.Context, wk *aggWorker, p int) error {
	buf := wk.bufs[p]
	if buf == nil || buf.N == 0 {
		return nil
	}
	r := wk.parts[p]
	r.pre = wk.bhs[p]
	err := h.feed(ctx, r, &buf.Batch)
	r.pre = nil
	buf.reset()
	wk.bhs[p] = wk.bhs[p][:0]
	return err
}

// endWorker aggregates the rows still dealt out when the worker's input ends.
func (h *HashAgg) endWorker(ctx context.Context, wk *aggWorker) error {
	if wk.parts == nil {
		return nil
	}
	for p := range wk.parts {
		if err := h.flushPart(ctx, wk, p); err != nil {
			return err
		}
	}
	wk.bufs, wk.bhs = nil, nil
	return nil
}

// splitWorker splits the worker's table into partition tables.
func (h *HashAgg) splitWorker(ctx context.Context, wk *aggWorker) error {
	parts, err := h.mergeParts(ctx, []*aggRun{wk.run})
	if err != nil {
		return err
	}
	wk.run.sets = nil
	wk.run = nil
	for _, r := range parts {
		r.rerouted = true
		if h.workMem > 0 {
			// work_mem is the whole operator's, as for one table
			r.res.cap = max(h.workMem/aggPartitions, 1)
		}
	}
	wk.parts = parts
	return nil
}

// release gives back the memory of every table the worker holds.
func (wk *aggWorker) release() {
	if wk.run != nil {
		wk.run.res.release()
	}
	for _, r := range wk.parts {
		if r != nil {
			r.res.release()
		}
	}
}

// radixEnd ends a parallel aggregation in which some worker split its table
// or spilled: the workers' tables are split (those that were not) and
// merged partition by partition, and each partition becomes a task of
// h.run's spill.
func (h *HashAgg) radixEnd(ctx context.Context, ws []*aggWorker) error {
	files := make([][]*spillPart, aggPartitions)
	take := func(sp *aggSpill) error {
		if sp == nil {
			return nil
		}
		for p, pt := range sp.parts {
			if pt == nil {
				continue
			}
			if err := pt.flush(); err != nil {
				return err
			}
			files[p] = append(files[p], pt)
		}
		return nil
	}
	for _, wk := range ws {
		if wk.run != nil {
			if err := take(wk.run.sp); err != nil {
				return err
			}
			wk.run.sp = nil
			if err := h.splitWorker(ctx, wk); err != nil {
				return err
			}
		}
		for _, r := range wk.parts {
			if err := take(r.sp); err != nil {
				return err
			}
			r.sp, r.rerouted = nil, false
			r.res.cap = h.workMem
		}
	}
	parts := make([]*aggRun, aggPartitions)
	var (
		next atomic.Int32
		wg   sync.WaitGroup
	)
	workers := max(1, min(runtime.GOMAXPROCS(0), aggPartitions))
	errs := make([]error, workers)
	for w := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[w] = guard(func() error {
				for {
					p := int(next.Add(1)) - 1
					if p >= aggPartitions {
						return nil
					}
					if err := errCanceled(ctx); err != nil {
						return err
					}
					// into the largest: its groups stay where they are
					dst := ws[0].parts[p]
					for _, wk := range ws[1:] {
						if r := wk.parts[p]; r.sets[0].ngroups > dst.sets[0].ngroups {
							dst = r
						}
					}
					for _, wk := range ws {
						r := wk.parts[p]
						if r == dst {
							continue
						}
						// the merged table is no bigger than the workers' were,
						// and each is given back as merged: running out here is
						// only a table doubling, tolerated when the aggregation
						// can spill
						if err := dst.merge(r); err != nil && (pgerr.Code(err) != OutOfMemory || !h.canSpill()) {
							return err
						}
						r.sets = nil
					}
					parts[p] = dst
				}
			})
		}()
	}
	wg.Wait()
	for _, wk := range ws {
		for p, r := range wk.parts {
			if r != parts[p] {
				r.res.release()
			}
		}
		wk.parts = nil
	}
	for _, err := range errs {
		if err != nil {
			for _, r := range parts {
				if r != nil {
					r.res.release()
				}
			}
			for _, fs := range files {
				for _, pt := range fs {
					pt.file.Close()
				}
			}
			return err
		}
	}
	// each partition is a task, with spilled rows or without: the tasks
	// emit their tables side by side, where the emitting goroutine alone
	// would turn every group into output rows
	final := h.newSpill(ctx)
	for p, seed := range parts {
		final.tasks = append(final.tasks, aggPartTask{seed: seed, files: files[p]})
	}
	// the partition tables are emitted by their tasks
	h.run, h.runs = &aggRun{h: h, sp: final}, nil
	return nil
}
