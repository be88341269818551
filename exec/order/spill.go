package order

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"runtime"
	"slices"
	"sync"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/memory"
	"github.com/lakepg/lakepg/exec/vec"
)

// External merge sort. When the sort's buffer cannot grow, the rows buffered
// so far are sorted and written to a spill file as one run, the memory is
// given back and buffering goes on; at the end the runs are merged. Each
// run's rows are stored with their normalised keys, so the merge compares
// bytes only and never decodes a key column again.
//
// Keys must encode the same way in every run: a spilling sort keeps the NULL
// marker on every key column (dropNullMarkers would decide per run).

// sortRun is one run being merged: its current block decoded, and its keys.
type sortRun struct {
	file  *memory.SpillFile
	rd    *memory.SpillReader
	dec   *memory.BlockDecoder
	arena []byte
	offs  []int
	pos   int
	n     int
	idx   int        // run order: on equal keys the earlier run's row goes first (stable)
	b     *vec.Batch // the current block's rows
	mem   *memRun    // set for a run held in memory (parallel.go); file is nil then
}

func (r *sortRun) key() []byte { return r.arena[r.offs[r.pos]:r.offs[r.pos+1]] }

// load decodes the next block; false at the end of the run.
func (r *sortRun) load() (bool, error) {
	if r.mem != nil {
		return r.loadMem(), nil
	}
	blk, err := r.rd.Next()
	if err != nil || blk == nil {
		return false, err
	}
	rest, err := r.dec.Decode(blk)
	if err != nil {
		return false, err
	}
	// the keys stay in the reader's buffer, which holds this block until
	// the next load; loadMem, for runs in memory, fills an arena instead
	r.arena, r.offs, _, err = memory.ByteStringsIn(rest, r.dec.B.N, r.offs)
	if err != nil {
		return false, err
	}
	r.pos, r.n = 0, r.dec.B.N
	r.b = &r.dec.B
	return r.n > 0, nil
}

func runLess(a, b *sortRun) bool {
	ka, kb := a.key(), b.key()
	// most keys differ in their first 8 bytes: one integer compare
	if len(ka) >= 8 && len(kb) >= 8 {
		if pa, pb := binary.BigEndian.Uint64(ka), binary.BigEndian.Uint64(kb); pa != pb {
			return pa < pb
		}
	}
	if c := bytes.Compare(ka, kb); c != 0 {
		return c < 0
	}
	return a.idx < b.idx
}

// runWriter is what sorting and writing one run takes: with several
// processors the buffered rows are cut into as many runs, sorted and
// written side by side.
type runWriter struct {
	enc  KeyEncoder
	blk  []byte
	ints []int64 // AppendBlockAt's scratch
	keys [][]byte
	cols []*vec.Vector
	view []vec.Vector
}

// spillRun sorts the buffered rows and writes them out as runs.
func (s *Sort) spillRun(ctx context.Context) error {
	if err := memory.ErrCanceled(ctx); err != nil {
		return err
	}
	n := s.data.N
	s.startSpilling()
	// a run is cut only where each piece is still worth a file
	k := min(len(s.writers), max(1, n/(4*vec.BatchSize)))
	if k > 1 {
		s.splitRuns++
	}
	errs := make([]error, k)
	var wg sync.WaitGroup
	for j := 0; j < k; j++ {
		f, err := memory.NewSpillFile(memory.GlobalSpill, exec.QueryStatsOf(ctx).Spill(), "sort")
		if err != nil {
			wg.Wait()
			return err
		}
		// runs are numbered in input order: rows of equal keys come out of
		// the merge as they came in
		s.runs = append(s.runs, &sortRun{file: f, idx: len(s.runs)})
		w, lo, hi := s.writers[j], n*j/k, n*(j+1)/k
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[j] = exec.Guard(func() error { return w.write(s.data, lo, hi, f) })
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	s.data.Clear()
	s.res.Release()
	// the emptied buffer keeps its capacity for the next run, reserved again;
	// if the pool no longer has it (another query took it), the buffer goes
	if s.res.Grow(capBytes(s.data)) != nil {
		s.data = memory.NewColBuf(s.Input.Types(), vec.BatchSize)
	}
	return nil
}

// startSpilling makes the sort external, at its first run.
func (s *Sort) startSpilling() {
	if s.spilling {
		return
	}
	s.spilling = true
	ts := s.Input.Types()
	s.out = memory.NewColBuf(ts, vec.BatchSize)
	s.writers = make([]*runWriter, max(1, min(runtime.GOMAXPROCS(0), 4)))
	for i := range s.writers {
		w := &runWriter{cols: make([]*vec.Vector, len(ts)), view: make([]vec.Vector, len(ts))}
		w.enc.Init(s.Keys, s.data.Vecs) // every column keeps its NULL marker
		s.writers[i] = w
	}
}

// topNToSort turns a top-N whose heap outgrew the budget into the
// external sort, as PostgreSQL's bounded sort turns back into a full one:
// the heap's rows, in the order the top-N would have sent them, are the
// first run (their keys are encoded as a spilling sort's: the top-N's
// encoder keeps every NULL marker too), and the rest of the input is
// buffered and spilled as any sort's; Next sends the first Limit rows of
// the merge. The heap's rows all came before the rest, so as the first run
// they come first among equal keys, as in memory.
func (s *Sort) topNToSort(ctx context.Context, heap []int32, keys [][]byte, seq []int64) error {
	slices.SortFunc(heap, func(a, b int32) int {
		if c := bytes.Compare(keys[a], keys[b]); c != 0 {
			return c
		}
		return cmp.Compare(seq[a], seq[b])
	})
	s.startSpilling()
	f, err := memory.NewSpillFile(memory.GlobalSpill, exec.QueryStatsOf(ctx).Spill(), "sort")
	if err != nil {
		return err
	}
	s.runs = append(s.runs, &sortRun{file: f, idx: len(s.runs)})
	w := s.writers[0]
	for lo := 0; lo < len(heap); lo += vec.BatchSize {
		hi := min(lo+vec.BatchSize, len(heap))
		w.blk, w.ints = memory.AppendBlockAt(w.blk[:0], s.data.Vecs, heap[lo:hi], w.ints)
		w.keys = w.keys[:0]
		for _, i := range heap[lo:hi] {
			w.keys = append(w.keys, keys[i])
		}
		w.blk = memory.AppendByteStrings(w.blk, w.keys)
		if err := f.WriteBlock(w.blk); err != nil {
			return err
		}
	}
	s.data = memory.NewColBuf(s.Input.Types(), vec.BatchSize)
	s.res.Release()
	return nil
}

// limited cuts the merged rows of a top-N that became a full sort after
// its first Limit rows.
func (s *Sort) limited(b *vec.Batch, err error) (*vec.Batch, error) {
	if s.Limit <= 0 || b == nil || err != nil {
		return b, err
	}
	left := s.Limit - s.sent
	if left <= 0 {
		return nil, nil
	}
	if int64(b.N) <= left {
		s.sent += int64(b.N)
		return b, nil
	}
	s.sent = s.Limit
	n := int(left)
	if len(s.cutVecs) != len(b.Vecs) {
		s.cutVecs = make([]vec.Vector, len(b.Vecs))
		s.cut.Vecs = make([]*vec.Vector, len(b.Vecs))
	}
	for c, v := range b.Vecs {
		v.SliceInto(&s.cutVecs[c], 0, n)
		s.cut.Vecs[c] = &s.cutVecs[c]
	}
	s.cut.N = n
	return &s.cut, nil
}

// write sorts rows [lo, hi) of data and writes them to f, a block at a time
// with each row's key.
func (w *runWriter) write(data *memory.ColBuf, lo, hi int, f *memory.SpillFile) error {
	n := hi - lo
	for c, v := range data.Vecs {
		v.SliceInto(&w.view[c], lo, hi)
		w.cols[c] = &w.view[c]
	}
	w.enc.Encode(w.cols, n)
	perm := w.enc.Order(n)
	for lo := 0; lo < n; lo += vec.BatchSize {
		hi := min(lo+vec.BatchSize, n)
		w.blk, w.ints = memory.AppendBlockAt(w.blk[:0], w.cols, perm[lo:hi], w.ints)
		w.keys = w.keys[:0]
		for _, i := range perm[lo:hi] {
			w.keys = append(w.keys, w.enc.key(int(i)))
		}
		w.blk = memory.AppendByteStrings(w.blk, w.keys)
		if err := f.WriteBlock(w.blk); err != nil {
			return err
		}
	}
	return nil
}

// capBytes is the memory c's column slices hold, by capacity.
func capBytes(c *memory.ColBuf) int64 {
	var n int64
	for _, v := range c.Vecs {
		n += memory.VecCapBytes(v)
	}
	return n
}

// startMerge writes the last run and opens every run for merging.
func (s *Sort) startMerge(ctx context.Context) error {
	if s.data.N > 0 {
		if err := s.spillRun(ctx); err != nil {
			return err
		}
	}
	// the buffer and keys are no longer needed: let them and their
	// reservation go before the merge's blocks come in, and reserve
	// those instead — a run's reader buffer and its decoded block with
	// the keys, about the block's bytes in the file twice over — so that
	// an operator above (a window cutting the merged rows into
	// partitions) has the rest.
	s.data, s.enc, s.writers = nil, KeyEncoder{}, nil
	s.res.Release()
	perRun := perRunOf(s.runs)
	s.res.Spill = false
	// more runs than a quarter of the budget has room for: they are merged
	// that many at a time into longer runs first, so that the last merge
	// holds no more than that and an operator above has the rest. A merge
	// whose reservation still fails (another statement holds the pool)
	// goes on unreserved, as does one of runs so long that not even two
	// fit.
	if k := int(s.res.Mem.MergeBudget() / perRun); k >= 2 {
		for len(s.runs) > k {
			if err := s.mergePass(ctx, k, perRun); err != nil {
				s.res.Spill = true
				return err
			}
		}
	}
	if s.res.Grow(int64(len(s.runs))*perRun) != nil {
		s.res.Release()
	}
	s.res.Spill = true
	return s.openRuns(s.runs)
}

// openRuns opens runs for reading and heaps the first row of each.
func (s *Sort) openRuns(runs []*sortRun) error {
	types := s.Input.Types()
	s.heap = s.heap[:0]
	for _, r := range runs {
		if r.mem == nil {
			rd, err := r.file.Reader()
			if err != nil {
				return err
			}
			r.rd, r.dec = rd, memory.NewBlockDecoder(types)
		}
		ok, err := r.load()
		if err != nil {
			return err
		}
		if ok {
			s.heap = append(s.heap, r)
		}
	}
	for i := len(s.heap)/2 - 1; i >= 0; i-- {
		s.heapDown(i)
	}
	return nil
}

// perRunOf is what merging one of runs holds: its reader's buffer and a
// decoded block with its keys, about the block's bytes in the file twice.
func perRunOf(runs []*sortRun) int64 {
	var n int64
	for _, r := range runs {
		if r.file.Blocks > 0 {
			n = max(n, 2*r.file.Size/r.file.Blocks)
		}
	}
	return n + 128<<10
}

// mergePass merges the runs k at a time, neighbours together so that rows
// of equal keys keep their input order, each group into one run.
func (s *Sort) mergePass(ctx context.Context, k int, perRun int64) error {
	// without room the pass goes on unreserved: it holds less than the
	// merge of all runs would
	if s.res.Grow(int64(k)*perRun) != nil {
		s.res.Release()
	}
	defer s.res.Release()
	var runs []*sortRun
	for i := 0; i < len(s.runs); i += k {
		g := s.runs[i:min(i+k, len(s.runs))]
		if len(g) == 1 {
			runs = append(runs, g[0])
			continue
		}
		r, err := s.mergeRuns(ctx, g)
		if err != nil {
			for _, r := range runs {
				r.file.Close()
			}
			return err
		}
		runs = append(runs, r)
	}
	s.runs = runs
	s.mergePasses++
	return nil
}

// mergeRuns merges runs into a new run (with each row's key, as spillRun
// writes them) and removes their files.
func (s *Sort) mergeRuns(ctx context.Context, runs []*sortRun) (*sortRun, error) {
	f, err := memory.NewSpillFile(memory.GlobalSpill, exec.QueryStatsOf(ctx).Spill(), "sort")
	if err != nil {
		return nil, err
	}
	defer func() {
		for _, r := range runs {
			r.file.Close()
		}
	}()
	if err := s.mergeInto(ctx, runs, f); err != nil {
		f.Close()
		return nil, err
	}
	return &sortRun{file: f, idx: runs[0].idx}, nil
}

// mergeInto writes the merged rows of runs to f.
func (s *Sort) mergeInto(ctx context.Context, runs []*sortRun, f *memory.SpillFile) error {
	if err := s.openRuns(runs); err != nil {
		return err
	}
	types := s.Input.Types()
	buf := memory.NewColBuf(types, vec.BatchSize)
	var (
		blk, arena []byte
		offs       []int
		keys       [][]byte
	)
	flush := func() error {
		keys = keys[:0]
		for j := 0; j+1 < len(offs); j++ {
			keys = append(keys, arena[offs[j]:offs[j+1]])
		}
		blk = memory.AppendBlock(blk[:0], buf.Vecs, 0, buf.N)
		blk = memory.AppendByteStrings(blk, keys)
		buf.Clear()
		arena, offs = arena[:0], offs[:0]
		return f.WriteBlock(blk)
	}
	for len(s.heap) > 0 {
		if err := memory.ErrCanceled(ctx); err != nil {
			return err
		}
		r := s.heap[0]
		if len(offs) == 0 {
			offs = append(offs, 0)
		}
		// the row's key is copied: the run's arena is reused by its next block
		arena = append(arena, r.key()...)
		offs = append(offs, len(arena))
		for c, v := range r.b.Vecs {
			buf.AppendRange(c, v, r.pos, r.pos+1)
		}
		buf.N++
		r.pos++
		if r.pos == r.n {
			ok, err := r.load()
			if err != nil {
				return err
			}
			if !ok {
				last := len(s.heap) - 1
				s.heap[0] = s.heap[last]
				s.heap[last] = nil
				s.heap = s.heap[:last]
				r.close()
			}
		}
		if len(s.heap) > 0 {
			s.heapDown(0)
		}
		if buf.N == vec.BatchSize {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if buf.N > 0 {
		return flush()
	}
	return nil
}

func (s *Sort) heapDown(i int) {
	h := s.heap
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		m := l
		if r := l + 1; r < len(h) && runLess(h[r], h[l]) {
			m = r
		}
		if !runLess(h[m], h[i]) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

// mergeNext emits the next batch of the merged runs. The run on top of the
// heap gives rows as long as they order before the best of the other runs,
// taken as one piece: runs over presorted or clustered data move whole
// blocks at a time rather than a row per heap step. The pieces are copied
// into the batch a column at a time (AppendSegs), before a run's block is
// replaced by its next and at the end.
func (s *Sort) mergeNext(ctx context.Context) (*vec.Batch, error) {
	if err := memory.ErrCanceled(ctx); err != nil {
		return nil, err
	}
	s.out.Clear()
	segs := s.segs[:0]
	n := 0
	for n < vec.BatchSize && len(s.heap) > 0 {
		h := s.heap
		r := h[0]
		var bound *sortRun
		if len(h) > 1 {
			bound = h[1]
			if len(h) > 2 && runLess(h[2], h[1]) {
				bound = h[2]
			}
		}
		start := r.pos
		limit := min(r.n, start+vec.BatchSize-n)
		r.pos++
		for r.pos < limit && (bound == nil || runLess(r, bound)) {
			r.pos++
		}
		segs = append(segs, memory.Seg{B: r.b, Lo: int32(start), Hi: int32(r.pos)})
		n += r.pos - start
		if r.pos == r.n {
			// the run's next block is decoded over this one
			s.out.AppendSegs(segs)
			segs = segs[:0]
			ok, err := r.load()
			if err != nil {
				return nil, err
			}
			if !ok {
				last := len(h) - 1
				h[0] = h[last]
				h[last] = nil
				s.heap = h[:last]
				r.close()
			}
		}
		s.heapDown(0)
	}
	s.out.AppendSegs(segs)
	clear(segs) // no batch kept reachable past its run
	s.segs = segs[:0]
	if s.out.N == 0 {
		s.closeRuns()
		return nil, nil
	}
	return &s.out.Batch, nil
}

// closeRuns removes every run's file and gives back the workers' buffers.
func (s *Sort) closeRuns() {
	for _, r := range s.runs {
		r.close()
	}
	s.runs, s.heap = nil, nil
	s.releaseWorkers()
}

// close removes the run's file, or lets its in-memory rows go.
func (r *sortRun) close() {
	if r.file != nil {
		r.file.Close()
	}
	r.mem = nil
}
