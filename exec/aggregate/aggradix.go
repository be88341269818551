package aggregate

import (
	"context"
	"sync/atomic"

	"github.com/lakepg/lakepg/exec/memory"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
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
var radixSplitMin = 1 << 17

// radixSplitMinInts is radixSplitMin for keys that are all fixed-width.
var radixSplitMinInts = 1 << 21

// aggWorker is one parallel worker's aggregation.
type aggWorker struct {
	run   *aggRun   // the worker's table until it is split; nil after
	parts []*aggRun // after the split: partition p's table
	pend  []*dealt  // rows dealt to each partition, not yet handed on
	hs    []uint64
	rows  [aggPartitions][]int32
	w     int          // the worker's index
	ex    *aggExchange // nil: the worker aggregates every partition itself
	free  chan *dealt  // buffers its partitions' owners have done with
}

// dealt is a buffer of rows of one partition, with their key hashes.
type dealt struct {
	p    int
	buf  *memory.ColBuf
	hs   []uint64
	from *aggWorker
	held int64 // bytes counted in the HashAgg's memory for it (countDealt)
}

// countDealt brings what the memory account holds for d up to what it holds
// now: its columns' and hashes' capacity and, while it holds rows, their
// text. The buffers in flight are the exchange's, about 80 per worker, each
// of vec.BatchSize rows of the aggregation's whole input (some 11 MB for
// lineitem's GROUP BY on two workers), and their text keeps the scan's
// pages alive. They are counted past the limit (GrowPast) since the
// exchange needs them to progress: the tables, which can spill, give way.
func (h *HashAgg) countDealt(d *dealt) {
	n := int64(8 * cap(d.hs))
	for _, v := range d.buf.Vecs {
		n += int64(8*cap(v.I64)+8*cap(v.F64)+cap(v.B)+16*cap(v.S)+16*cap(v.Iv)) + int64(cap(v.Nulls))
		for _, s := range v.S {
			n += int64(len(s))
		}
	}
	if n > d.held {
		h.Mem.GrowPast(n - d.held)
	} else {
		h.Mem.Shrink(d.held - n)
	}
	h.dealtHeld.Add(n - d.held)
	d.held = n
}

// dropDealt gives back what d is counted for: it is left to the collector.
func (h *HashAgg) dropDealt(d *dealt) {
	h.Mem.Shrink(d.held)
	h.dealtHeld.Add(-d.held)
	d.held = 0
}

// aggExchange hands the rows dealt to a partition to the worker that owns
// it (partition p is worker p mod W's), so that once every worker has split
// its table each partition's groups are mostly in one table: merging
// partition p at the end then moves only the groups the other workers held
// before they split, where merging every worker's whole partition table
// inserted about half of all groups a second time (0.8 s of a 6 M-group
// DISTINCT's 4.2 s of CPU).
//
// A worker hands a full buffer to its owner's inbox, and while the inbox is
// full it aggregates what its own inbox holds, so two workers handing to
// each other never wait on each other. When its input ends it hands on what
// it still holds and aggregates its inbox until every worker has done so.
type aggExchange struct {
	inbox     []chan *dealt
	producing atomic.Int32 // workers still reading their input
}

func newAggExchange(workers int) *aggExchange {
	ex := &aggExchange{inbox: make([]chan *dealt, workers)}
	for w := range ex.inbox {
		ex.inbox[w] = make(chan *dealt, 2*aggPartitions)
	}
	ex.producing.Store(int32(workers))
	return ex
}

// feedWorker aggregates b into the worker's table or tables.
func (h *HashAgg) feedWorker(ctx context.Context, wk *aggWorker, b *vec.Batch) error {
	if err := h.takeInbox(ctx, wk, false); err != nil {
		return err
	}
	if wk.parts == nil {
		return h.feedWhole(ctx, wk, b, nil)
	}
	n := b.N
	if n == 0 {
		return nil
	}
	wk.hs = memory.ResizeSlice(wk.hs, n)
	for c := 0; c < h.NGroup; c++ {
		memory.HashColumn(wk.hs, b.Vecs[c], n, c == 0)
	}
	shift := h.partShift()
	for p := range wk.rows {
		wk.rows[p] = wk.rows[p][:0]
	}
	for i, x := range wk.hs {
		p := int(x>>shift) & (aggPartitions - 1)
		wk.rows[p] = append(wk.rows[p], int32(i))
	}
	if wk.pend == nil {
		wk.pend = make([]*dealt, aggPartitions)
	}
	for p, rows := range wk.rows {
		if len(rows) == 0 {
			continue
		}
		d := wk.pend[p]
		if d == nil {
			d = h.newDealt(wk, p)
			wk.pend[p] = d
		}
		for c, v := range b.Vecs {
			d.buf.Gather(c, v, rows)
		}
		d.buf.N += len(rows)
		for _, i := range rows {
			d.hs = append(d.hs, wk.hs[i])
		}
		if d.buf.N >= vec.BatchSize {
			wk.pend[p] = nil
			if err := h.handOn(ctx, wk, d); err != nil {
				return err
			}
		}
	}
	return nil
}

// splitAt is the groups at which a worker's table is split: radixSplitMin
// when a key is text, whose hashing and comparing in a table past the
// caches the partitions pay for; for integer keys only past
// radixSplitMinInts, since dealing rows out costs more than a cheap
// insert (TPC-DS q97's 2.7 M customer and item pairs and q78 took a third
// more CPU split at 65,536). Text keys wait for 131,072 groups: TPC-DS
// q39's 90,000 groups of warehouse name, item and month, every one in each
// worker's table, took a third more CPU split at 65,536 than merged at the
// end, while the 6 M-group GROUP BY of lineitem gains from splitting early.
func (h *HashAgg) splitAt() int {
	for _, t := range h.Input.Types()[:h.NGroup] {
		if t.Storage() == types.StoreBytes {
			return radixSplitMin
		}
	}
	return radixSplitMinInts
}

// feedWhole aggregates b into the worker's unsplit table (hs: the rows'
// key hashes, or nil), splitting it once it holds radixSplitMin groups.
func (h *HashAgg) feedWhole(ctx context.Context, wk *aggWorker, b *vec.Batch, hs []uint64) error {
	wk.run.pre = hs
	err := h.feed(ctx, wk.run, b)
	wk.run.pre = nil
	if err != nil {
		return err
	}
	if wk.run.sp == nil && wk.run.sets[0].ngroups >= h.splitAt() {
		return h.splitWorker(ctx, wk)
	}
	return nil
}

func (h *HashAgg) newDealt(wk *aggWorker, p int) *dealt {
	select {
	case d := <-wk.free:
		d.p = p
		return d
	default:
	}
	d := &dealt{p: p, buf: memory.NewColBuf(h.Input.Types(), vec.BatchSize), from: wk}
	h.countDealt(d)
	return d
}

// handOn gives d to its partition's owner, or aggregates it when that is wk.
func (h *HashAgg) handOn(ctx context.Context, wk *aggWorker, d *dealt) error {
	h.countDealt(d)
	if wk.ex == nil || d.p%len(wk.ex.inbox) == wk.w {
		return h.aggregateDealt(ctx, wk, d)
	}
	to, mine := wk.ex.inbox[d.p%len(wk.ex.inbox)], wk.ex.inbox[wk.w]
	for {
		select {
		case to <- d:
			return nil
		case o := <-mine:
			if err := h.aggregateDealt(ctx, wk, o); err != nil {
				return err
			}
		case <-ctx.Done():
			return memory.ErrCanceled(ctx)
		}
	}
}

// takeInbox aggregates the buffers handed to wk: those waiting, or with
// all, every one until no worker is left to hand any.
func (h *HashAgg) takeInbox(ctx context.Context, wk *aggWorker, all bool) error {
	if wk.ex == nil {
		return nil
	}
	mine := wk.ex.inbox[wk.w]
	for {
		if all {
			select {
			case d, ok := <-mine:
				if !ok {
					return nil
				}
				if err := h.aggregateDealt(ctx, wk, d); err != nil {
					return err
				}
			case <-ctx.Done():
				return memory.ErrCanceled(ctx)
			}
			continue
		}
		select {
		case d := <-mine:
			if err := h.aggregateDealt(ctx, wk, d); err != nil {
				return err
			}
		default:
			return nil
		}
	}
}

// aggregateDealt aggregates a buffer of rows into wk's table of its
// partition (its one table, if not split yet) and gives the buffer back.
func (h *HashAgg) aggregateDealt(ctx context.Context, wk *aggWorker, d *dealt) error {
	var err error
	if wk.parts == nil {
		err = h.feedWhole(ctx, wk, &d.buf.Batch, d.hs)
	} else {
		r := wk.parts[d.p]
		r.pre = d.hs
		err = h.feed(ctx, r, &d.buf.Batch)
		r.pre = nil
	}
	d.buf.Clear()
	d.hs = d.hs[:0]
	h.countDealt(d)
	select {
	case d.from.free <- d:
	default:
		h.dropDealt(d)
	}
	return err
}

// endWorker hands on the rows still dealt out when the worker's input ends,
// then aggregates what is handed to it until every worker's input has ended.
func (h *HashAgg) endWorker(ctx context.Context, wk *aggWorker) error {
	for p, d := range wk.pend {
		if d != nil && d.buf.N > 0 {
			wk.pend[p] = nil
			if err := h.handOn(ctx, wk, d); err != nil {
				return err
			}
		}
	}
	wk.pend = nil
	if wk.ex == nil {
		return nil
	}
	if wk.ex.producing.Add(-1) == 0 {
		for _, c := range wk.ex.inbox {
			close(c)
		}
	}
	return h.takeInbox(ctx, wk, true)
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
			r.res.Cap = max(h.workMem/aggPartitions, 1)
		}
	}
	wk.parts = parts
	return nil
}

// release gives back the memory of every table the worker holds.
func (wk *aggWorker) release() {
	if wk.run != nil {
		wk.run.res.Release()
	}
	for _, r := range wk.parts {
		if r != nil {
			r.res.Release()
		}
	}
}

// radixEnd ends a parallel aggregation in which some worker split its table
// or spilled: the workers' tables are split (those that were not) and
// merged partition by partition, and each partition becomes a task of
// h.run's spill.
func (h *HashAgg) radixEnd(ctx context.Context, ws []*aggWorker) error {
	files := make([][]*memory.SpillPart, aggPartitions)
	take := func(sp *aggSpill) error {
		if sp == nil {
			return nil
		}
		for p, pt := range sp.parts {
			if pt == nil {
				continue
			}
			if err := pt.Flush(); err != nil {
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
			r.res.Cap = h.workMem
		}
	}
	parts := make([]*aggRun, aggPartitions)
	err := inPartitions(ctx, func() func(p int) error {
		return func(p int) error {
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
				if err := dst.merge(r); err != nil && (pgerr.Code(err) != memory.OutOfMemory || !h.canSpill()) {
					return err
				}
				r.sets = nil
			}
			parts[p] = dst
			return nil
		}
	})
	for _, wk := range ws {
		for p, r := range wk.parts {
			if r != parts[p] {
				r.res.Release()
			}
		}
		wk.parts = nil
	}
	if err != nil {
		for _, r := range parts {
			if r != nil {
				r.res.Release()
			}
		}
		for _, fs := range files {
			for _, pt := range fs {
				pt.File.Close()
			}
		}
		return err
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
