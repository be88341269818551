package exec

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/lakepg/lakepg/exec/parquetio"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/storage"
	"github.com/lakepg/lakepg/types"
)

// scanFixture writes files of rows (id BIGINT, g BIGINT = id % 7, s TEXT)
// with small row groups, deleting every 10th row of the second file.
func scanFixture(t testing.TB, files, rowsPerFile, rowGroup int) (storage.Backend, []ScanFile, int) {
	t.Helper()
	ctx := context.Background()
	store := storage.NewLocal()
	dir := t.TempDir()
	cols := []parquetio.Column{{FieldID: 1, Name: "id", Type: types.Int64T}, {FieldID: 2, Name: "g", Type: types.Int64T}, {FieldID: 3, Name: "s", Type: types.TextT}}
	var out []ScanFile
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
		sf := ScanFile{Path: path}
		live += rowsPerFile
		if f == 1 {
			var dels []int64
			for p := int64(0); p < int64(rowsPerFile); p += 10 {
				dels = append(dels, p)
			}
			wf, err := WriteDeletes(ctx, store, dir+"/", path, dels, false)
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

func newFixtureScan(store storage.Backend, files []ScanFile) *TableScan {
	return &TableScan{Store: store, Snapshot: 1, Files: files, Cols: []ScanCol{
		{FieldID: 1, Name: "id", T: types.Int64T}, {FieldID: 2, Name: "g", T: types.Int64T}, {FieldID: 3, Name: "s", T: types.TextT}}}
}

func TestParallelScanMatchesSerial(t *testing.T) {
	store, files, live := scanFixture(t, 3, 5000, 700)
	serial := collect(t, newFixtureScan(store, files))
	if len(serial) != live {
		t.Fatalf("serial scan: %d rows, want %d", len(serial), live)
	}
	for _, workers := range []int{1, 2, 4} {
		scan := newFixtureScan(store, files)
		p := &Parallel{Scan: scan, Workers: workers}
		sameRows(t, fmt.Sprintf("parallel scan, %d workers", workers), collect(t, p), serial)
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
		if scan.RowGroupsScanned != 3*8 {
			t.Errorf("%d row groups scanned, want 24", scan.RowGroupsScanned)
		}
	}
	// a pipeline per worker: filter then project
	p := &Parallel{Scan: newFixtureScan(store, files), Workers: 3, Build: func(w int, src Operator) Operator {
		f := &Filter{Env: env, Input: src, Pred: &Cmp{Op: EQ, L: col(1, types.Int64T), R: NewConst(ints(types.Int64T, 3))}}
		return &Project{Env: env, Input: f, Exprs: []Expr{col(0, types.Int64T), col(2, types.TextT)}}
	}}
	var want []string
	for _, r := range serial {
		var id, g int64
		var s string
		fmt.Sscanf(r, "%d|%d|%s", &id, &g, &s)
		if g == 3 {
			want = append(want, fmt.Sprintf("%d|%s", id, s))
		}
	}
	sameRows(t, "parallel filter+project", collect(t, p), want)
	p.Close()
}

func TestParallelHashAggMergesPartials(t *testing.T) {
	store, files, live := scanFixture(t, 3, 5000, 700)
	build := func(w int, src Operator) Operator { return src }
	aggs := []Agg{mkAgg(t, AggCountStar, 0, types.Int64T), mkAgg(t, AggSum, 0, types.Int64T), mkAgg(t, AggMin, 2, types.TextT),
		mkAgg(t, AggCount, 2, types.TextT), mkAgg(t, AggAvg, 0, types.Int64T), mkAgg(t, AggVarPop, 0, types.Int64T)}
	cd := mkAgg(t, AggCount, 2, types.TextT)
	cd.Distinct = true
	aggs = append(aggs, cd)
	// group by g (int fast path), by s (text, with NULLs) and by nothing
	for _, key := range []int{1, 2, -1} {
		mk := func(input Operator) *HashAgg {
			var exprs []Expr
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
			if p, ok := input.(*Parallel); ok {
				p.Build = func(w int, src Operator) Operator { return &Project{Env: env, Input: build(w, src), Exprs: exprs} }
				return &HashAgg{Input: p, NGroup: ng, Aggs: as}
			}
			return &HashAgg{Input: &Project{Env: env, Input: input, Exprs: exprs}, NGroup: ng, Aggs: as}
		}
		serial := runAgg(t, mk(newFixtureScan(store, files)))
		par := runAgg(t, mk(&Parallel{Scan: newFixtureScan(store, files), Workers: 3}))
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
		mk := func(input Operator, mem *Memory) *HashAgg {
			var exprs []Expr
			for _, k := range keys {
				exprs = append(exprs, col(k, ts[k]))
			}
			exprs = append(exprs, col(0, types.Int64T), col(2, types.TextT))
			ng := len(keys)
			aggs := []Agg{mkAgg(t, AggCountStar, 0, types.Int64T), mkAgg(t, AggSum, ng, types.Int64T), mkAgg(t, AggMax, ng+1, types.TextT)}
			if p, ok := input.(*Parallel); ok {
				p.Build = func(w int, src Operator) Operator { return &Project{Env: env, Input: src, Exprs: exprs} }
				return &HashAgg{Input: p, NGroup: ng, Aggs: aggs, Mem: mem}
			}
			return &HashAgg{Input: &Project{Env: env, Input: input, Exprs: exprs}, NGroup: ng, Aggs: aggs, Mem: mem}
		}
		serial := runAgg(t, mk(newFixtureScan(store, files), nil))
		for _, limit := range []int64{0, 1 << 20} {
			sp := testSpill(t, 0)
			var mem *Memory
			if limit > 0 {
				mem = NewMemory(NewMemoryPool(limit), 0)
			}
			qs := &QueryStats{}
			h := mk(&Parallel{Scan: newFixtureScan(store, files), Workers: 2}, mem)
			par := collectCtx(t, WithQueryStats(context.Background(), qs), h)
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
	p := &Parallel{Scan: newFixtureScan(store, files), Workers: 2, Build: func(w int, src Operator) Operator {
		// 1 / (id - 4001) fails on one row
		return &Project{Env: env, Input: src, Exprs: []Expr{&Arith{Op: '/', L: NewConst(ints(types.Int64T, 1)),
			R: &Arith{Op: '-', L: col(0, types.Int64T), R: NewConst(ints(types.Int64T, 4001)), T: types.Int64T}, T: types.Int64T}}}
	}}
	err := Drain(context.Background(), p, func(*vec.Batch) error { return nil })
	if pgerr.Code(err) != pgerr.DivisionByZero {
		t.Errorf("want division by zero, got %v", err)
	}
	p.Close()
	// a panic inside a worker becomes XX000, for the merged stream and for
	// per-worker aggregation alike
	mkp := func() *Parallel {
		return &Parallel{Scan: newFixtureScan(store, files), Workers: 2, Build: func(w int, src Operator) Operator {
			return &panicOp{Operator: src}
		}}
	}
	p = mkp()
	if err := Drain(context.Background(), p, func(*vec.Batch) error { return nil }); pgerr.Code(err) != pgerr.Internal {
		t.Errorf("panic in a worker: %v", err)
	}
	p.Close()
	h := &HashAgg{Input: mkp(), Aggs: []Agg{mkAgg(t, AggCountStar, 0, types.Int64T)}}
	if _, err := h.Next(context.Background()); pgerr.Code(err) != pgerr.Internal {
		t.Errorf("panic in an aggregating worker: %v", err)
	}
	h.Close()
}

type panicOp struct{ Operator }

func (p *panicOp) Next(ctx context.Context) (*vec.Batch, error) {
	b, err := p.Operator.Next(ctx)
	if b != nil && b.Vecs[0].I64[0] > 1000 {
		panic("boom")
	}
	return b, err
}

func TestParallelProbeWithSharedBuild(t *testing.T) {
	store, files, _ := scanFixture(t, 3, 5000, 700)
	// build: g -> name for g in 0..5 (6 has no match), twice for g = 2
	bt := []types.T{types.Int64T, types.TextT}
	brows := [][]any{{0, "zero"}, {1, "one"}, {2, "two"}, {2, "deux"}, {3, "three"}, {4, "four"}, {5, "five"}, {nil, "null"}}
	for _, typ := range []JoinType{JoinInner, JoinLeft, JoinSemi, JoinAnti, JoinRight, JoinFull, JoinRightSemi, JoinRightAnti} {
		serial := &HashJoin{Env: env, Left: newFixtureScan(store, files), Right: newRowsOp(bt, brows, 3),
			LeftKeys: []Expr{col(1, types.Int64T)}, RightKeys: []Expr{col(0, types.Int64T)}, Type: typ}
		want := collect(t, serial)
		serial.Close()
		right := newRowsOp(bt, brows, 3)
		shared := &SharedBuild{Env: env, Right: right, RightKeys: []Expr{col(0, types.Int64T)}, KeyTypes: []types.T{types.Int64T}}
		p := &Parallel{Scan: newFixtureScan(store, files), Workers: 3, Build: func(w int, src Operator) Operator {
			shared.Probes++ // as the planner counts them
			return &HashJoin{Env: env, Left: src, Shared: shared, LeftKeys: []Expr{col(1, types.Int64T)}, Type: typ}
		}}
		sameRows(t, "shared build "+typ.String(), collect(t, p), want)
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
		if !right.closed {
			t.Error("shared build side not closed")
		}
	}
}

func TestParallelEarlyClose(t *testing.T) {
	store, files, _ := scanFixture(t, 3, 5000, 700)
	done := make(chan struct{})
	go func() {
		defer close(done)
		p := &Parallel{Scan: newFixtureScan(store, files), Workers: 3}
		l := &Limit{Input: p, Count: 10}
		if got := collect(t, l); len(got) != 10 {
			t.Errorf("limit over parallel: %d rows", len(got))
		}
		l.Close()
		// cancelled context: workers stop
		ctx, cancel := context.WithCancel(context.Background())
		p = &Parallel{Scan: newFixtureScan(store, files), Workers: 2}
		if _, err := p.Next(ctx); err != nil {
			t.Error(err)
		}
		cancel()
		for {
			b, err := p.Next(ctx)
			if err != nil {
				if pgerr.Code(err) != pgerr.QueryCanceled {
					t.Errorf("after cancel: %v", err)
				}
				break
			}
			if b == nil {
				break
			}
		}
		p.Close()
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("parallel scan did not stop")
	}
}

// TestScanCountsReaderBuffers: a scan's Parquet readers' buffers (chunks,
// pages, dictionaries) are counted in the statement's account while a file
// is open, and given back when the scan ends.
func TestScanCountsReaderBuffers(t *testing.T) {
	store, files, live := scanFixture(t, 2, 5000, 700)
	for _, workers := range []int{0, 2} {
		pool := NewMemoryPool(1 << 30)
		mem := NewMemory(pool, 0)
		ctx := WithQueryMemory(context.Background(), mem)
		var op Operator = newFixtureScan(store, files)
		if workers > 0 {
			op = &Parallel{Scan: newFixtureScan(store, files), Workers: workers}
		}
		rows, peak := 0, int64(0)
		for {
			b, err := op.Next(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if b == nil {
				break
			}
			rows += b.N
			peak = max(peak, mem.Used())
		}
		if rows != live {
			t.Fatalf("workers %d: %d rows, want %d", workers, rows, live)
		}
		// a 700-row group of three columns is a few kilobytes of chunks and
		// pages, the text column's values alone 700 × 8 bytes or more
		if peak < 5000 {
			t.Errorf("workers %d: the account held at most %d bytes while scanning", workers, peak)
		}
		op.Close()
		if mem.Used() != 0 || pool.Used() != 0 {
			t.Errorf("workers %d: after Close the account holds %d, the pool %d", workers, mem.Used(), pool.Used())
		}
	}
	// a pool too small for the buffers: the scan runs, counting nothing
	// (a scan cannot spill; it leaves the pool to operators that can)
	pool := NewMemoryPool(4 << 10)
	mem := NewMemory(pool, 0)
	ctx := WithQueryMemory(context.Background(), mem)
	op := newFixtureScan(store, files)
	rows := 0
	for {
		b, err := op.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if b == nil {
			break
		}
		rows += b.N
	}
	op.Close()
	if rows != live || mem.Peak() != 0 {
		t.Errorf("4 KiB pool: %d rows (want %d), %d bytes counted (want none)", rows, live, mem.Peak())
	}
}

// TestParallelUnionOfScans: a Parallel without a Scan runs over the union
// of its Then parts — each with its own pipeline, one a union itself — as
// an Operator and under a HashAgg, with as many rows as the parts
// serially, and closes every part's scans.
func TestParallelUnionOfScans(t *testing.T) {
	store, files, _ := scanFixture(t, 3, 5000, 700)
	keep := func(g int64) func(w int, src Operator) Operator {
		return func(w int, src Operator) Operator {
			return &Filter{Env: env, Input: src, Pred: &Cmp{Op: EQ, L: col(1, types.Int64T), R: NewConst(ints(types.Int64T, g))}}
		}
	}
	serialPart := func(g int64) Operator {
		return &Filter{Env: env, Input: newFixtureScan(store, files), Pred: &Cmp{Op: EQ, L: col(1, types.Int64T), R: NewConst(ints(types.Int64T, g))}}
	}
	var want []string
	for _, g := range []int64{1, 2, 3} {
		want = append(want, collect(t, serialPart(g))...)
	}
	union := func(workers int) (*Parallel, []*TableScan) {
		scans := []*TableScan{newFixtureScan(store, files), newFixtureScan(store, files), newFixtureScan(store, files)}
		inner := &Parallel{Then: []*Parallel{{Scan: scans[1], Build: keep(2)}, {Scan: scans[2], Build: keep(3)}}}
		return &Parallel{Workers: workers, Then: []*Parallel{{Scan: scans[0], Build: keep(1)}, inner}}, scans
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
		if _, exact := ExactRowsOf(p); exact {
			t.Errorf("a union's rows taken for a scan's exact count")
		}
		// grouped on g, summed and counted by worker, merged once
		p, _ = union(workers)
		agg := &HashAgg{Input: p, NGroup: 1, Aggs: []Agg{mkAgg(t, AggCountStar, 0, types.Int64T), mkAgg(t, AggSum, 0, types.Int64T)}}
		p.Build = func(w int, src Operator) Operator {
			return &Project{Env: env, Input: src, Exprs: []Expr{col(1, types.Int64T), col(0, types.Int64T)}}
		}
		serial := &HashAgg{Input: &Project{Env: env, Input: &Append{Inputs: []Operator{serialPart(1), serialPart(2), serialPart(3)}},
			Exprs: []Expr{col(1, types.Int64T), col(0, types.Int64T)}}, NGroup: 1, Aggs: agg.Aggs}
		sameRows(t, fmt.Sprintf("aggregate over union, %d workers", workers), runAgg(t, agg), runAgg(t, serial))
	}
}

// failAfter fails with err once it has passed n batches on.
type failAfter struct {
	Operator
	n   int
	err error
}

func (f *failAfter) Next(ctx context.Context) (*vec.Batch, error) {
	if f.n--; f.n < 0 {
		return nil, f.err
	}
	return f.Operator.Next(ctx)
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
			var mem *Memory
			if c.limit > 0 {
				mem = NewMemory(NewMemoryPool(c.limit), 0)
			}
			p := &Parallel{Scan: newFixtureScan(store, files), Workers: 2}
			p.Build = func(w int, src Operator) Operator {
				var op Operator = &Project{Env: env, Input: src, Exprs: []Expr{col(0, types.Int64T), col(2, types.TextT)}}
				if w == 1 {
					if c.cancel {
						op = &cancelAfter{Operator: op, n: after, cancel: cancel}
					} else {
						op = &failAfter{Operator: op, n: after, err: fail}
					}
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
