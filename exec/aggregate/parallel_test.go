package aggregate

import (
	"context"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/memory"
	"github.com/lakepg/lakepg/exec/parquetio"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/storage"
	"github.com/lakepg/lakepg/types"
)

// scanFixture writes files of rows (id BIGINT, g BIGINT = id % 7, s TEXT)
// with small row groups, deleting every 10th row of the second file.
func scanFixture(t testing.TB, files, rowsPerFile, rowGroup int) (storage.Backend, []exec.ScanFile, int) {
	t.Helper()
	ctx := context.Background()
	store := storage.NewLocal()
	dir := t.TempDir()
	cols := []parquetio.Column{{FieldID: 1, Name: "id", Type: types.Int64T}, {FieldID: 2, Name: "g", Type: types.Int64T}, {FieldID: 3, Name: "s", Type: types.TextT}}
	var out []exec.ScanFile
	live := 0
	id := int64(0)
	for f := 0; f < files; f++ {
		path := filepath.Join(dir, fmt.Sprintf("f%d.parquet", f))
		w, err := store.Create(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		pw, err := parquetio.NewWriter(w, cols, parquetio.WriterOptions{RowGroupRows: rowGroup})
		if err != nil {
			t.Fatal(err)
		}
		b := vec.NewBatch([]types.T{types.Int64T, types.Int64T, types.TextT}, vec.BatchSize)
		for r := 0; r < rowsPerFile; r++ {
			b.Vecs[0].AppendInt(id)
			b.Vecs[1].AppendInt(id % 7)
			if id%5 == 0 {
				b.Vecs[2].AppendNull()
			} else {
				b.Vecs[2].AppendString(fmt.Sprintf("s%d", id%13))
			}
			b.N++
			id++
			if b.N == vec.BatchSize || r == rowsPerFile-1 {
				if err := pw.Write(b); err != nil {
					t.Fatal(err)
				}
				b.Reset()
			}
		}
		if _, err := pw.Close(); err != nil {
			t.Fatal(err)
		}
		if err := w.Commit(); err != nil {
			t.Fatal(err)
		}
		sf := exec.ScanFile{Path: path}
		live += rowsPerFile
		if f == 1 {
			var dels []int64
			for p := int64(0); p < int64(rowsPerFile); p += 10 {
				dels = append(dels, p)
			}
			wf, err := exec.WriteDeletes(ctx, store, dir+"/", path, dels, false)
			if err != nil {
				t.Fatal(err)
			}
			sf.DeletePath = wf.Path
			live -= len(dels)
		}
		out = append(out, sf)
	}
	return store, out, live
}

func newFixtureScan(store storage.Backend, files []exec.ScanFile) *exec.TableScan {
	return &exec.TableScan{Store: store, Snapshot: 1, Files: files, Cols: []exec.ScanCol{
		{FieldID: 1, Name: "id", T: types.Int64T}, {FieldID: 2, Name: "g", T: types.Int64T}, {FieldID: 3, Name: "s", T: types.TextT}}}
}

func TestParallelHashAggMergesPartials(t *testing.T) {
	store, files, live := scanFixture(t, 3, 5000, 700)
	build := func(w int, src exec.Operator) exec.Operator { return src }
	aggs := []Agg{mkAgg(t, AggCountStar, 0, types.Int64T), mkAgg(t, AggSum, 0, types.Int64T), mkAgg(t, AggMin, 2, types.TextT),
		mkAgg(t, AggCount, 2, types.TextT), mkAgg(t, AggAvg, 0, types.Int64T), mkAgg(t, AggVarPop, 0, types.Int64T)}
	cd := mkAgg(t, AggCount, 2, types.TextT)
	cd.Distinct = true
	aggs = append(aggs, cd)
	// group by g (int fast path), by s (text, with NULLs) and by nothing
	for _, key := range []int{1, 2, -1} {
		mk := func(input exec.Operator) *HashAgg {
			var exprs []exec.Expr
			ng := 0
			if key >= 0 {
				exprs = append(exprs, col(key, []types.T{types.Int64T, types.Int64T, types.TextT}[key]))
				ng = 1
			}
			exprs = append(exprs, col(0, types.Int64T), col(1, types.Int64T), col(2, types.TextT))
			as := make([]Agg, len(aggs))
			for i, a := range aggs {
				a.Arg += ng
				as[i] = a
			}
			if p, ok := input.(*exec.Parallel); ok {
				p.Build = func(w int, src exec.Operator) exec.Operator {
					return &exec.Project{Env: env, Input: build(w, src), Exprs: exprs}
				}
				return &HashAgg{Input: p, NGroup: ng, Aggs: as}
			}
			return &HashAgg{Input: &exec.Project{Env: env, Input: input, Exprs: exprs}, NGroup: ng, Aggs: as}
		}
		serial := runAgg(t, mk(newFixtureScan(store, files)))
		par := runAgg(t, mk(&exec.Parallel{Scan: newFixtureScan(store, files), Workers: 3}))
		sameRows(t, fmt.Sprintf("parallel group by %d", key), par, serial)
		if key < 0 && (len(serial) != 1 || serial[0][:len(fmt.Sprint(live))] != fmt.Sprint(live)) {
			t.Errorf("count(*) = %v, want %d", serial, live)
		}
	}
}

// TestParallelHashAggManyGroups: with more groups than radixSplitMin the
// workers split their tables into partition tables (aggradix.go), merged
// partition by partition, with and without spilling; the answers are the
// serial ones.
func TestParallelHashAggManyGroups(t *testing.T) {
	defer func(n, m int) { radixSplitMin, radixSplitMinInts = n, m }(radixSplitMin, radixSplitMinInts)
	radixSplitMin, radixSplitMinInts = 1000, 1000
	store, files, _ := scanFixture(t, 3, 40000, 4000)
	ts := []types.T{types.Int64T, types.Int64T, types.TextT}
	for _, keys := range [][]int{{0}, {2, 0}, {1, 2, 0}} {
		mk := func(input exec.Operator, mem *memory.Memory) *HashAgg {
			var exprs []exec.Expr
			for _, k := range keys {
				exprs = append(exprs, col(k, ts[k]))
			}
			exprs = append(exprs, col(0, types.Int64T), col(2, types.TextT))
			ng := len(keys)
			aggs := []Agg{mkAgg(t, AggCountStar, 0, types.Int64T), mkAgg(t, AggSum, ng, types.Int64T), mkAgg(t, AggMax, ng+1, types.TextT)}
			if p, ok := input.(*exec.Parallel); ok {
				p.Build = func(w int, src exec.Operator) exec.Operator { return &exec.Project{Env: env, Input: src, Exprs: exprs} }
				return &HashAgg{Input: p, NGroup: ng, Aggs: aggs, Mem: mem}
			}
			return &HashAgg{Input: &exec.Project{Env: env, Input: input, Exprs: exprs}, NGroup: ng, Aggs: aggs, Mem: mem}
		}
		serial := runAgg(t, mk(newFixtureScan(store, files), nil))
		for _, limit := range []int64{0, 1 << 20} {
			sp := testSpill(t, 0)
			var mem *memory.Memory
			if limit > 0 {
				mem = memory.NewMemory(memory.NewMemoryPool(limit), 0)
			}
			qs := &exec.QueryStats{}
			h := mk(&exec.Parallel{Scan: newFixtureScan(store, files), Workers: 2}, mem)
			par := collectCtx(t, exec.WithQueryStats(context.Background(), qs), h)
			tasksRan := false
			for _, s := range h.spills {
				tasksRan = tasksRan || len(s.tasks) == aggPartitions
			}
			h.Close()
			sameRows(t, fmt.Sprintf("parallel group by %v, limit %d", keys, limit), par, serial)
			if !tasksRan {
				t.Errorf("group by %v, limit %d: the %d partition tables were not emitted by tasks", keys, limit, aggPartitions)
			}
			if limit == 0 && qs.SpillFiles() != 0 {
				t.Errorf("group by %v without a limit: %d spill files", keys, qs.SpillFiles())
			}
			if limit > 0 && (qs.SpillFiles() == 0 || !tasksRan) {
				t.Errorf("group by %v under %d bytes: spill files %d, partition tasks %v", keys, limit, qs.SpillFiles(), tasksRan)
			}
			if n := spillFilesLeft(t, sp); n != 0 || (mem != nil && mem.Used() != 0) {
				t.Fatalf("after Close: %d spill files, %d bytes held", n, mem.Used())
			}
		}
	}
}

func TestParallelErrorsStopWorkers(t *testing.T) {
	store, files, _ := scanFixture(t, 2, 3000, 500)
	p := &exec.Parallel{Scan: newFixtureScan(store, files), Workers: 2, Build: func(w int, src exec.Operator) exec.Operator {
		// 1 / (id - 4001) fails on one row
		return &exec.Project{Env: env, Input: src, Exprs: []exec.Expr{&exec.Arith{Op: '/', L: exec.NewConst(ints(types.Int64T, 1)),
			R: &exec.Arith{Op: '-', L: col(0, types.Int64T), R: exec.NewConst(ints(types.Int64T, 4001)), T: types.Int64T}, T: types.Int64T}}}
	}}
	err := exec.Drain(context.Background(), p, func(*vec.Batch) error { return nil })
	if pgerr.Code(err) != pgerr.DivisionByZero {
		t.Errorf("want division by zero, got %v", err)
	}
	p.Close()
	// a panic inside a worker becomes XX000, for the merged stream and for
	// per-worker aggregation alike
	mkp := func() *exec.Parallel {
		return &exec.Parallel{Scan: newFixtureScan(store, files), Workers: 2, Build: func(w int, src exec.Operator) exec.Operator {
			return &panicOp{Operator: src}
		}}
	}
	p = mkp()
	if err := exec.Drain(context.Background(), p, func(*vec.Batch) error { return nil }); pgerr.Code(err) != pgerr.Internal {
		t.Errorf("panic in a worker: %v", err)
	}
	p.Close()
	h := &HashAgg{Input: mkp(), Aggs: []Agg{mkAgg(t, AggCountStar, 0, types.Int64T)}}
	if _, err := h.Next(context.Background()); pgerr.Code(err) != pgerr.Internal {
		t.Errorf("panic in an aggregating worker: %v", err)
	}
	h.Close()
}

type panicOp struct{ exec.Operator }

func (p *panicOp) Next(ctx context.Context) (*vec.Batch, error) {
	b, err := p.Operator.Next(ctx)
	if b != nil && b.Vecs[0].I64[0] > 1000 {
		panic("boom")
	}
	return b, err
}

// TestParallelUnionOfScans: a Parallel without a Scan runs over the union
// of its Then parts — each with its own pipeline, one a union itself — as
// an Operator and under a HashAgg, with as many rows as the parts
// serially, and closes every part's scans.
func TestParallelUnionOfScans(t *testing.T) {
	store, files, _ := scanFixture(t, 3, 5000, 700)
	keep := func(g int64) func(w int, src exec.Operator) exec.Operator {
		return func(w int, src exec.Operator) exec.Operator {
			return &exec.Filter{Env: env, Input: src, Pred: &exec.Cmp{Op: exec.EQ, L: col(1, types.Int64T), R: exec.NewConst(ints(types.Int64T, g))}}
		}
	}
	serialPart := func(g int64) exec.Operator {
		return &exec.Filter{Env: env, Input: newFixtureScan(store, files), Pred: &exec.Cmp{Op: exec.EQ, L: col(1, types.Int64T), R: exec.NewConst(ints(types.Int64T, g))}}
	}
	var want []string
	for _, g := range []int64{1, 2, 3} {
		want = append(want, collect(t, serialPart(g))...)
	}
	union := func(workers int) (*exec.Parallel, []*exec.TableScan) {
		scans := []*exec.TableScan{newFixtureScan(store, files), newFixtureScan(store, files), newFixtureScan(store, files)}
		inner := &exec.Parallel{Then: []*exec.Parallel{{Scan: scans[1], Build: keep(2)}, {Scan: scans[2], Build: keep(3)}}}
		return &exec.Parallel{Workers: workers, Then: []*exec.Parallel{{Scan: scans[0], Build: keep(1)}, inner}}, scans
	}
	for _, workers := range []int{1, 2, 3} {
		p, scans := union(workers)
		sameRows(t, fmt.Sprintf("union, %d workers", workers), collect(t, p), want)
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
		for i, s := range scans {
			if s.RowGroupsScanned != 3*8 {
				t.Errorf("%d workers: part %d scanned %d row groups, want 24", workers, i, s.RowGroupsScanned)
			}
		}
		if _, exact := exec.ExactRowsOf(p); exact {
			t.Errorf("a union's rows taken for a scan's exact count")
		}
		// grouped on g, summed and counted by worker, merged once
		p, _ = union(workers)
		agg := &HashAgg{Input: p, NGroup: 1, Aggs: []Agg{mkAgg(t, AggCountStar, 0, types.Int64T), mkAgg(t, AggSum, 0, types.Int64T)}}
		p.Build = func(w int, src exec.Operator) exec.Operator {
			return &exec.Project{Env: env, Input: src, Exprs: []exec.Expr{col(1, types.Int64T), col(0, types.Int64T)}}
		}
		serial := &HashAgg{Input: &exec.Project{Env: env, Input: &exec.Append{Inputs: []exec.Operator{serialPart(1), serialPart(2), serialPart(3)}},
			Exprs: []exec.Expr{col(1, types.Int64T), col(0, types.Int64T)}}, NGroup: 1, Aggs: agg.Aggs}
		sameRows(t, fmt.Sprintf("aggregate over union, %d workers", workers), runAgg(t, agg), runAgg(t, serial))
	}
}

// stopAfter cancels the query (cancel set) at the n-th batch the workers
// sharing seen read between them, or fails (err set) every read after it.
type stopAfter struct {
	exec.Operator
	seen   *atomic.Int64
	n      int64
	cancel func()
	err    error
}

func (s *stopAfter) Next(ctx context.Context) (*vec.Batch, error) {
	k := s.seen.Add(1)
	if s.err != nil && k > s.n {
		return nil, s.err
	}
	if s.cancel != nil && k == s.n {
		s.cancel()
	}
	return s.Operator.Next(ctx)
}

// TestParallelHashAggStopsWhileHandingOn: radix workers that hand rows to
// each other (aggradix.go) all stop when the query is cancelled or one of
// them fails, whether the others are reading, handing on or waiting for
// rows; the error is the query's, and Close leaves no file and no memory.
func TestParallelHashAggStopsWhileHandingOn(t *testing.T) {
	defer func(n, m int) { radixSplitMin, radixSplitMinInts = n, m }(radixSplitMin, radixSplitMinInts)
	radixSplitMin, radixSplitMinInts = 100, 100
	store, files, _ := scanFixture(t, 4, 15000, 1000)
	fail := pgerr.New(pgerr.DivisionByZero, "division by zero")
	for _, c := range []struct {
		name   string
		cancel bool
		limit  int64
	}{{"cancel", true, 0}, {"cancel spilling", true, 1 << 20}, {"fail", false, 0}, {"fail spilling", false, 1 << 20}} {
		for _, after := range []int{1, 4, 12} {
			sp := testSpill(t, 0)
			ctx, cancel := context.WithCancel(context.Background())
			var mem *memory.Memory
			if c.limit > 0 {
				mem = memory.NewMemory(memory.NewMemoryPool(c.limit), 0)
			}
			p := &exec.Parallel{Scan: newFixtureScan(store, files), Workers: 2}
			// the workers count their batches together: the one reading
			// the n-th cancels or fails (one worker alone may read fewer
			// than n when the other takes most morsels)
			seen := new(atomic.Int64)
			p.Build = func(w int, src exec.Operator) exec.Operator {
				op := &stopAfter{Operator: &exec.Project{Env: env, Input: src, Exprs: []exec.Expr{col(0, types.Int64T), col(2, types.TextT)}},
					seen: seen, n: int64(after)}
				if c.cancel {
					op.cancel = cancel
				} else {
					op.err = fail
				}
				return op
			}
			h := &HashAgg{Input: p, NGroup: 2, Aggs: []Agg{mkAgg(t, AggCountStar, 0, types.Int64T)}, Mem: mem}
			_, err := h.Next(ctx)
			want := pgerr.QueryCanceled
			if !c.cancel {
				want = pgerr.DivisionByZero
			}
			if pgerr.Code(err) != want {
				t.Fatalf("%s after %d batches: got %v, want %s", c.name, after, err, want)
			}
			h.Close()
			cancel()
			if n := spillFilesLeft(t, sp); n != 0 || sp.Used() != 0 || (mem != nil && mem.Used() != 0) {
				t.Fatalf("%s after %d batches, closed: %d spill files, %d bytes of temp space, %d bytes of memory", c.name, after, n, sp.Used(), mem.Used())
			}
		}
	}
}

// watchDealt records, at each batch a worker reads, the bytes the radix
// workers' buffers in flight are counted for and what the account holds.
type watchDealt struct {
	exec.Operator
	h         **HashAgg
	mem       *memory.Memory
	most      *atomic.Int64
	uncounted *atomic.Bool
}

func (w *watchDealt) Next(ctx context.Context) (*vec.Batch, error) {
	d := (*w.h).dealtHeld.Load()
	if d > w.most.Load() {
		w.most.Store(d)
	}
	if w.mem.Used() < d {
		w.uncounted.Store(true)
	}
	return w.Operator.Next(ctx)
}

// TestRadixCountsDealtBuffers: the buffers radix workers deal rows into and
// hand each other are counted in the statement's memory while the workers
// run, and given back when they are done: the account then holds only the
// partition tables, and nothing once the HashAgg is closed.
func TestRadixCountsDealtBuffers(t *testing.T) {
	defer func(n, m int) { radixSplitMin, radixSplitMinInts = n, m }(radixSplitMin, radixSplitMinInts)
	radixSplitMin, radixSplitMinInts = 100, 100
	store, files, live := scanFixture(t, 4, 15000, 1000)
	mem := memory.NewMemory(memory.NewMemoryPool(1<<30), 0)
	var h *HashAgg
	most, uncounted := new(atomic.Int64), new(atomic.Bool)
	p := &exec.Parallel{Scan: newFixtureScan(store, files), Workers: 2}
	p.Build = func(w int, src exec.Operator) exec.Operator {
		return &watchDealt{Operator: &exec.Project{Env: env, Input: src, Exprs: []exec.Expr{col(0, types.Int64T), col(2, types.TextT)}},
			h: &h, mem: mem, most: most, uncounted: uncounted}
	}
	h = &HashAgg{Input: p, NGroup: 2, Aggs: []Agg{mkAgg(t, AggCountStar, 0, types.Int64T)}, Mem: mem}
	groups, rows := 0, int64(0)
	for {
		b, err := h.Next(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if b == nil {
			break
		}
		if groups == 0 {
			// the workers are done: their buffers are no longer counted
			if d := h.dealtHeld.Load(); d != 0 {
				t.Fatalf("after the workers: %d bytes still counted for dealt buffers", d)
			}
		}
		groups += b.N
		for _, c := range b.Vecs[2].I64[:b.N] {
			rows += c
		}
	}
	// the ids are distinct: one group per live row
	if groups != live || rows != int64(live) {
		t.Fatalf("%d groups of %d rows, want %d of %d", groups, rows, live, live)
	}
	// a buffer holds vec.BatchSize rows of an int and a text column and their hashes
	if m := most.Load(); m < int64(vec.BatchSize)*(8+16+8) {
		t.Fatalf("dealt buffers counted for at most %d bytes while the workers ran", m)
	}
	if uncounted.Load() {
		t.Fatal("the account held less than the dealt buffers are counted for")
	}
	h.Close()
	if mem.Used() != 0 {
		t.Fatalf("closed: %d bytes of memory still held", mem.Used())
	}
}
