package aggregate

import (
	"context"
	"runtime"
	"sync"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/hashtab"
	"github.com/lakepg/lakepg/exec/memory"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
)

// Hash aggregation (and DISTINCT, which is a HashAgg without aggregates)
// spills by hybrid partitioning. When the table cannot grow, it is frozen:
// from then on a row whose group is already in it is aggregated there as
// before, and a row of a new group is written, whole, to one of
// aggPartitions spill files chosen by bits of its key hash. So when the input
// ends the frozen table is complete: its groups are emitted and its memory
// given back. Each partition is then aggregated by a HashAgg of its own that
// reads the file, and that one freezes and partitions again on the next hash
// bits if its partition is still too big.
//
// Rows go to disk rather than partial states because every aggregate can
// re-read rows, while states (string_agg's buffers, percentiles' values)
// have no serialised form; and no group ever has both rows on disk and a
// state in memory, so no state merge is needed.
//
// Parallel workers split their tables into partition tables and freeze and
// spill each partition on its own (aggradix.go). At the end partition p's
// tables are merged, and the merged table and the rows every worker spilled
// to partition p become one task: a HashAgg one level down that starts from
// the table and reads the files, freezing and partitioning again if it must.
// No row is routed or written twice before its task, and each table is
// given back as soon as its partition is done.
//
// Grouping sets freeze every set's table at once and spill each set's rows
// on their own (rollupspill.go).

const (
	aggPartBits    = 4
	aggPartitions  = 1 << aggPartBits
	aggMaxSpillLvl = 64/aggPartBits - 1
)

type aggSpill struct {
	h       *HashAgg
	parts   []*memory.SpillPart
	hs      []uint64
	keptHs  []uint64 // the key hashes of keep's rows, when the caller gave the batch's
	keep    []int32  // rows of the batch whose group is in the frozen table
	keepBuf *memory.ColBuf
	sub     *HashAgg
	cur     int // partition being aggregated
	freed   bool
	qs      *exec.QueryStats
	par     *aggPartWorkers
	// tasks, when not nil, are the partitions to aggregate instead of
	// parts: each a partition table and the workers' files (radixEnd)
	tasks []aggPartTask
	// probed and hits count the rows route looked up in the frozen table
	// and found, until it judges whether the lookups pay (skipProbe)
	probed, hits int
	// skipProbe: route writes every row out without looking it up, its
	// run's rows being looked up again later anyway (aggRun.rerouted)
	skipProbe bool
	// set is the run's set whose table is frozen: 0 but for grouping sets,
	// whose partitions are aggregated by sub-aggregations of that set
	// alone (cols)
	set  int
	cols [][]int
}

// probeJudgeRows is the rows route looks up before it judges whether the
// frozen table finds enough of them to go on looking: with nearly as many
// groups as rows (a GROUP BY or DISTINCT of unique keys) it finds almost
// none, and every lookup is a cache miss in a table of millions of groups.
const probeJudgeRows = 1 << 16

// aggPartTask is one partition of a parallel aggregation whose workers
// spilled: its table, merged from the workers' (radixEnd), and the rows
// the workers spilled to it.
type aggPartTask struct {
	seed  *aggRun
	files []*memory.SpillPart
}

func (h *HashAgg) canSpill() bool {
	return h.GroupingSets == nil && h.NGroup > 0 && h.spillLevel < aggMaxSpillLvl
}

// feed aggregates b into r, freezing r's table and spilling when memory runs
// out.
func (h *HashAgg) feed(ctx context.Context, r *aggRun, b *vec.Batch) error {
	if r.sp != nil {
		return r.sp.route(ctx, r, b)
	}
	if h.canSpill() {
		if err := r.reserveAhead(b.N); err != nil {
			if pgerr.Code(err) != memory.OutOfMemory {
				return err
			}
			r.sp = h.newSpill(ctx)
			return r.sp.route(ctx, r, b)
		}
	}
	if r.ssp != nil {
		return r.routeSets(ctx, b)
	}
	err := r.consume(b)
	if err != nil && pgerr.Code(err) == memory.OutOfMemory && h.setsSpill() {
		// as below, b went into the tables
		return r.freezeSets(ctx)
	}
	if err == nil || pgerr.Code(err) != memory.OutOfMemory || !h.canSpill() {
		return err
	}
	// b went into the table; only its reservation failed. The table keeps
	// what it holds and grows no more.
	r.sp = h.newSpill(ctx)
	return nil
}

// aheadMin is the groups from which a table reserves its growth before it
// grows (reserveAhead): below it a doubling is small next to the budget,
// and a table is not frozen before it holds a batch or two.
const aheadMin = 1 << 14

// reserveAhead reserves, before n rows go into r's table, what the table
// will hold once they make its arrays grow and it fills them: about as
// much again as it holds when they double. It fails when the budget cannot
// afford even a quarter more (hashtab's Tight growth): the caller then
// freezes the table as it is.
//
// Near the limit a table grows by quarters: it doubles only while that
// takes at most an eighth of the room left. The 16 partition tables of
// lineitem's 6 M-group GROUP BY under 512 MiB grow in step; doubling, they
// all did so at 262,144 groups and filled the budget with empty capacity,
// froze together a few thousand groups later having each paid for a rehash
// and a copy of its columns, and spilled 1.8 M of the rows. Grown by
// quarters, they hold a fifth more groups in the same memory.
func (r *aggRun) reserveAhead(n int) error {
	if len(r.sets) != 1 {
		return nil
	}
	s := r.sets[0]
	if s.ngroups < aheadMin {
		return nil
	}
	var g int64
	var at [2]int
	switch {
	case s.htab != nil:
		if !s.htab.Tight && 8*s.bytes() > r.res.Room() {
			s.htab.Tight, s.keys.Tight = true, true
		}
		g = s.htab.GrowthAhead(s.keys, n)
		at = [2]int{len(s.htab.Slots), s.keys.Cap()}
	case s.itab != nil:
		g = s.itab.GrowthAhead(n)
		at = [2]int{len(s.itab.Slots), cap(s.itab.Dense)}
	}
	if g == 0 || at == r.aheadAt {
		return nil
	}
	// the arrays grown, and the groups that fill them: text, states. An
	// integer table, which has no tight growth, reserves only its arrays,
	// freezing before it doubles when it cannot afford them.
	now := s.bytes()
	var fill int64
	switch {
	case s.htab != nil && s.htab.Tight:
		fill = now / 4
	case s.htab != nil:
		fill = now
	}
	if need := now + max(g, fill) - r.accounted; need > 0 {
		if err := r.res.Grow(need); err != nil {
			if s.htab == nil || s.htab.Tight || pgerr.Code(err) != memory.OutOfMemory {
				return err
			}
			s.htab.Tight, s.keys.Tight = true, true
			return r.reserveAhead(n)
		}
		// counted now: consume reserves only past it
		r.accounted += need
	}
	r.aheadAt = at
	return nil
}

func (h *HashAgg) newSpill(ctx context.Context) *aggSpill {
	sp := &aggSpill{h: h, qs: exec.QueryStatsOf(ctx)}
	h.spillMu.Lock()
	h.spills = append(h.spills, sp)
	h.spillMu.Unlock()
	return sp
}

// route aggregates the rows of existing groups and writes the others out.
func (sp *aggSpill) route(ctx context.Context, r *aggRun, b *vec.Batch) error {
	n := b.N
	if n == 0 {
		return nil
	}
	h := sp.h
	s := r.sets[sp.set]
	hs := r.pre
	if hs == nil {
		if cap(sp.hs) < n {
			sp.hs = make([]uint64, n, max(n, vec.BatchSize))
		}
		hs = sp.hs[:n]
		// as the set's table hashes its keys (groupIDs)
		for k, c := range s.cols {
			memory.HashColumn(hs, b.Vecs[c], n, k == 0)
		}
	}
	sp.keep = sp.keep[:0]
	shift := 64 - aggPartBits*(h.spillLevel+1)
	// rows of each partition, gathered per partition to write a block at a time
	var byPart [aggPartitions][]int32
	for i := 0; i < n; i++ {
		if !sp.skipProbe && s.has(b, i, hs[i]) {
			sp.keep = append(sp.keep, int32(i))
			continue
		}
		p := int(hs[i]>>shift) & (aggPartitions - 1)
		byPart[p] = append(byPart[p], int32(i))
	}
	if r.rerouted && !sp.skipProbe && sp.probed < probeJudgeRows {
		sp.probed += n
		sp.hits += len(sp.keep)
		sp.skipProbe = sp.probed >= probeJudgeRows && 8*sp.hits < sp.probed
	}
	for p, rows := range byPart {
		if len(rows) > 0 {
			if err := sp.write(ctx, p, b, rows); err != nil {
				return err
			}
		}
	}
	if len(sp.keep) == 0 {
		return nil
	}
	if len(sp.keep) == n {
		// every row's group is in the table (a grouping set of few groups,
		// say): aggregated from the batch itself, not a copy of it
		r.onlySet = sp.set + 1
		defer func() { r.onlySet = 0 }()
		if err := r.consume(b); err != nil && pgerr.Code(err) != memory.OutOfMemory {
			return err
		}
		return nil
	}
	if sp.keepBuf == nil {
		sp.keepBuf = memory.NewColBuf(h.Input.Types(), vec.BatchSize)
	}
	sp.keepBuf.Clear()
	for c, v := range b.Vecs {
		sp.keepBuf.Gather(c, v, sp.keep)
	}
	sp.keepBuf.N = len(sp.keep)
	sub := &sp.keepBuf.Batch
	// all these groups exist: the table does not grow; states that collect
	// values (string_agg, percentiles) still do, and go past the budget
	// rather than fail. The kept rows' hashes are gathered too.
	if pre := r.pre; pre != nil {
		sp.keptHs = sp.keptHs[:0]
		for _, i := range sp.keep {
			sp.keptHs = append(sp.keptHs, pre[i])
		}
		r.pre = sp.keptHs
		defer func() { r.pre = pre }()
	}
	r.onlySet = sp.set + 1
	defer func() { r.onlySet = 0 }()
	if err := r.consume(sub); err != nil && pgerr.Code(err) != memory.OutOfMemory {
		return err
	}
	return nil
}

func (sp *aggSpill) write(ctx context.Context, p int, b *vec.Batch, rows []int32) error {
	if sp.parts == nil {
		sp.parts = make([]*memory.SpillPart, aggPartitions)
	}
	pt := sp.parts[p]
	if pt == nil {
		f, err := memory.NewSpillFile(memory.GlobalSpill, sp.qs.Spill(), "agg")
		if err != nil {
			return err
		}
		pt = &memory.SpillPart{File: f, Buf: memory.NewColBuf(sp.h.Input.Types(), vec.BatchSize)}
		sp.parts[p] = pt
	}
	for c, v := range b.Vecs {
		pt.Buf.Gather(c, v, rows)
	}
	pt.Buf.N += len(rows)
	pt.Rows += int64(len(rows))
	if pt.Buf.N >= vec.BatchSize {
		return pt.Flush()
	}
	return nil
}

// has reports whether row i of b (hash h) belongs to a group of the set.
func (s *aggSet) has(b *vec.Batch, i int, h uint64) bool {
	if s.itab == nil {
		for k, c := range s.cols {
			s.kv[k] = b.Vecs[c]
		}
	}
	return s.hasKeys(s.kv, b, i, h)
}

// hasKeys is has with the set's key columns of b given (kv): it writes
// nothing, so several routers may call it at once.
func (s *aggSet) hasKeys(kv []*vec.Vector, b *vec.Batch, i int, h uint64) bool {
	if s.itab != nil {
		v := b.Vecs[s.cols[0]]
		if v.IsNull(i) {
			return s.nullG >= 0
		}
		return s.itab.Lookup(v.I64[i]) >= 0
	}
	t := s.htab
	mask := uint64(len(t.Slots) - 1)
	tag := hashtab.SlotTag(h)
	for j := t.Home(h); ; j = (j + 1) & mask {
		sl := t.Slots[j]
		if sl == 0 {
			return false
		}
		if hashtab.SlotTag(sl) == tag && s.keys.Equal(int(hashtab.SlotVal(sl)-1), kv, i) {
			return true
		}
	}
}

// next emits the partitions' groups, after the frozen table's.
func (sp *aggSpill) next(ctx context.Context) (*vec.Batch, error) {
	h := sp.h
	if !sp.freed {
		sp.freed = true
		// the frozen table is emitted: give its memory back for the partitions
		h.run.res.Release()
		h.run.sets = nil
		for _, r := range h.runs {
			r.res.Release()
			r.sets = nil
		}
		for _, pt := range sp.parts {
			if pt != nil {
				if err := pt.Flush(); err != nil {
					return nil, err
				}
			}
		}
	}
	if sp.par != nil || sp.tasks != nil || (h.spillLevel == 0 && runtime.GOMAXPROCS(0) > 1 && sp.spilledParts() > 1) {
		return sp.parNext(ctx)
	}
	for sp.cur < len(sp.parts) {
		pt := sp.parts[sp.cur]
		if pt == nil {
			sp.cur++
			continue
		}
		if sp.sub == nil {
			rd, err := pt.File.Reader()
			if err != nil {
				return nil, err
			}
			sp.sub = &HashAgg{Input: &memory.SpillScan{Rd: rd, Dec: memory.NewBlockDecoder(h.Input.Types())},
				NGroup: h.NGroup, Aggs: h.Aggs, Mem: h.Mem, spillLevel: h.spillLevel + 1,
				SizeHint: h.partSizeHint([]*memory.SpillPart{pt}), GroupingSets: sp.cols, GroupingID: h.GroupingID}
		}
		b, err := sp.sub.Next(ctx)
		if err != nil || b != nil {
			return b, err
		}
		sp.sub.Close()
		sp.sub = nil
		pt.File.Close()
		sp.parts[sp.cur] = nil
		sp.cur++
	}
	return nil, nil
}

func (sp *aggSpill) close() {
	if sp.par != nil {
		sp.par.stop()
		sp.par = nil
	}
	if sp.sub != nil {
		sp.sub.Close()
		sp.sub = nil
	}
	for _, pt := range sp.parts {
		if pt != nil {
			pt.File.Close()
		}
	}
	sp.parts = nil
	for _, t := range sp.tasks {
		// a task not run (the query ended early) still holds its table
		if t.seed != nil {
			t.seed.res.Release()
		}
		for _, pt := range t.files {
			pt.File.Close()
		}
	}
}

// partSizeHint presizes the table of a partition's aggregation for its
// rows, the most groups it can have, up to maxPartHint: the rows spilled
// are mostly of new groups (the frozen table held the others), and growing
// from nothing doubles the table a dozen times. The cap keeps a presized
// table small beside the budget: up to 32 bytes a group with the slots'
// rounding up, at most 1/32 of the budget.
func (h *HashAgg) partSizeHint(files []*memory.SpillPart) int {
	var rows int64
	for _, pt := range files {
		rows += pt.Rows
	}
	budget := 4 * h.Mem.MergeBudget()
	if h.workMem > 0 {
		budget = min(budget, h.workMem)
	}
	return int(min(rows, maxPartHint, budget/1024))
}

const maxPartHint = 1 << 18

// spilledParts counts the partitions that have rows.
func (sp *aggSpill) spilledParts() int {
	n := 0
	for _, pt := range sp.parts {
		if pt != nil {
			n++
		}
	}
	return n
}

// aggPartWorkers aggregate the spilled partitions of a top-level HashAgg
// several at a time, one goroutine per processor: the partitions are
// independent, and aggregating them is most of a spilled aggregation's
// work after its input has been read. A worker hands each output batch over
// and waits until it has been consumed before reusing it.
type aggPartWorkers struct {
	out     chan aggPartBatch
	quit    chan struct{}
	wg      sync.WaitGroup
	running int
	ack     chan struct{} // of the batch last returned
	err     error
}

type aggPartBatch struct {
	b    *vec.Batch
	err  error
	ack  chan struct{}
	done bool // the worker has no partition left
}

func (sp *aggSpill) parNext(ctx context.Context) (*vec.Batch, error) {
	w := sp.par
	if w == nil {
		w = &aggPartWorkers{out: make(chan aggPartBatch), quit: make(chan struct{})}
		sp.par = w
		tasks := sp.tasks
		if tasks == nil {
			for _, pt := range sp.parts {
				if pt != nil {
					tasks = append(tasks, aggPartTask{files: []*memory.SpillPart{pt}})
				}
			}
		}
		queue := make(chan *aggPartTask, len(tasks))
		for i := range tasks {
			queue <- &tasks[i]
		}
		close(queue)
		w.running = min(runtime.GOMAXPROCS(0), len(queue))
		for i := 0; i < w.running; i++ {
			w.wg.Add(1)
			go func() {
				defer w.wg.Done()
				ack := make(chan struct{})
				err := exec.Guard(func() error { return sp.aggregateParts(ctx, queue, ack) })
				select {
				case w.out <- aggPartBatch{err: err, done: true}:
				case <-w.quit:
				}
			}()
		}
	}
	if w.err != nil {
		return nil, w.err
	}
	if w.ack != nil {
		w.ack <- struct{}{}
		w.ack = nil
	}
	for w.running > 0 {
		r := <-w.out
		if r.done {
			w.running--
			if r.err != nil {
				w.err = r.err
				return nil, r.err
			}
			continue
		}
		w.ack = r.ack
		return r.b, nil
	}
	return nil, nil
}

// aggregateParts aggregates partitions from queue until it is empty.
func (sp *aggSpill) aggregateParts(ctx context.Context, queue <-chan *aggPartTask, ack chan struct{}) error {
	h, w := sp.h, sp.par
	for t := range queue {
		scan := &memory.SpillScan{Dec: memory.NewBlockDecoder(h.Input.Types())}
		for _, pt := range t.files {
			scan.Rest = append(scan.Rest, pt.File)
		}
		// the task's table, if any, is the sub-aggregation's from now on
		sub := &HashAgg{Input: scan, NGroup: h.NGroup, Aggs: h.Aggs, Mem: h.Mem, spillLevel: h.spillLevel + 1, seed: t.seed,
			GroupingSets: sp.cols, GroupingID: h.GroupingID}
		if t.seed == nil {
			sub.SizeHint = h.partSizeHint(t.files)
		}
		t.seed = nil
		for {
			b, err := sub.Next(ctx)
			if err != nil || b == nil {
				sub.Close()
				if err != nil {
					return err
				}
				break
			}
			select {
			case w.out <- aggPartBatch{b: b, ack: ack}:
			case <-w.quit:
				sub.Close()
				return nil
			}
			select {
			case <-ack:
			case <-w.quit:
				sub.Close()
				return nil
			}
		}
		for _, pt := range t.files {
			pt.File.Close()
		}
	}
	return nil
}

// stop ends the workers; the partitions' files are closed after.
func (w *aggPartWorkers) stop() {
	close(w.quit)
	w.wg.Wait()
}
