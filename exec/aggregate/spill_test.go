package aggregate

import (
	"context"
	"fmt"
	"math/rand"
	"runtime"
	"slices"
	"strconv"
	"testing"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/memory"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

func collectCtx(t *testing.T, ctx context.Context, op exec.Operator) []string {
	t.Helper()
	var out []string
	err := exec.Drain(ctx, op, func(b *vec.Batch) error {
		for i := 0; i < b.N; i++ {
			out = append(out, rowText(b, i))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// cancelAfter cancels its context once n batches have passed through.
type cancelAfter struct {
	exec.Operator
	n      int
	cancel func()
}

func (c *cancelAfter) Next(ctx context.Context) (*vec.Batch, error) {
	if c.n--; c.n == 0 {
		c.cancel()
	}
	return c.Operator.Next(ctx)
}

// aggRows makes rows (k1 int, k2 text, v int, f float) with many groups, a
// few NULL keys, and rows of the same group spread over the whole input.
func aggRows(n, groups int) [][]any {
	rng := rand.New(rand.NewSource(9))
	rows := make([][]any, n)
	for i := range rows {
		g := rng.Intn(groups)
		var k1, k2 any = int64(g), "group-" + strconv.Itoa(g)
		if g%997 == 0 {
			k1 = nil
		}
		if g%991 == 0 {
			k2 = nil
		}
		rows[i] = []any{k1, k2, int64(rng.Intn(100)), float64(rng.Intn(8)) / 4}
	}
	return rows
}

var aggSpillTypes = []types.T{types.Int64T, types.TextT, types.Int64T, types.Float64T}

func TestHashAggSpills(t *testing.T) {
	sp := testSpill(t, 0)
	rows := aggRows(60000, 20000)
	aggs := []Agg{
		{Kind: AggCountStar},
		{Kind: AggSum, Arg: 2, In: types.Int64T},
		{Kind: AggMin, Arg: 3, In: types.Float64T},
		{Kind: AggCount, Arg: 3, In: types.Float64T, Distinct: true},
	}
	for _, c := range []struct {
		name   string
		ngroup int
		aggs   []Agg
	}{
		{"text+int keys with aggregates", 2, aggs},
		{"int key", 1, aggs[:2]},
		{"DISTINCT", 4, nil},
	} {
		// the keys are the first NGroup columns: reorder so that the text key leads for one case
		want := collect(t, &HashAgg{Input: newRowsOp(aggSpillTypes, rows, 700), NGroup: c.ngroup, Aggs: c.aggs})
		qs := &exec.QueryStats{}
		ctx := exec.WithQueryStats(context.Background(), qs)
		mem := memory.NewMemory(memory.NewMemoryPool(1<<20), 0)
		h := &HashAgg{Input: newRowsOp(aggSpillTypes, rows, 700), NGroup: c.ngroup, Aggs: c.aggs, Mem: mem}
		got := collectCtx(t, ctx, h)
		if qs.SpillFiles() == 0 || qs.SpillBytes() == 0 {
			t.Fatalf("%s: did not spill", c.name)
		}
		if !slices.Equal(sorted(got), sorted(want)) {
			t.Fatalf("%s: spilled aggregation differs: %d groups, want %d", c.name, len(got), len(want))
		}
		if len(want) < 10000 {
			t.Fatalf("%s: only %d groups", c.name, len(want))
		}
		h.Close()
		if n := spillFilesLeft(t, sp); n != 0 || sp.Used() != 0 || mem.Used() != 0 {
			t.Fatalf("%s: after Close %d spill files, %d temp bytes, %d memory bytes held", c.name, n, sp.Used(), mem.Used())
		}
	}
}

// TestHashAggSpillsRecursively gives so little memory that the partitions
// are still too big and must be partitioned again.
func TestHashAggSpillsRecursively(t *testing.T) {
	testSpill(t, 0)
	rows := aggRows(300000, 250000)
	want := collect(t, &HashAgg{Input: newRowsOp(aggSpillTypes, rows, 700), NGroup: 2, Aggs: []Agg{{Kind: AggCountStar}}})
	qs := &exec.QueryStats{}
	ctx := exec.WithQueryStats(context.Background(), qs)
	h := &HashAgg{Input: newRowsOp(aggSpillTypes, rows, 700), NGroup: 2, Aggs: []Agg{{Kind: AggCountStar}}, Mem: memory.NewMemory(memory.NewMemoryPool(256<<10), 0)}
	got := collectCtx(t, ctx, h)
	h.Close()
	if qs.SpillFiles() <= aggPartitions {
		t.Fatalf("%d spill files: want partitions of partitions", qs.SpillFiles())
	}
	if !slices.Equal(sorted(got), sorted(want)) {
		t.Fatalf("recursive spill: %d groups, want %d", len(got), len(want))
	}
}

func TestHashAggSpillCancelRemovesFiles(t *testing.T) {
	sp := testSpill(t, 0)
	rows := aggRows(60000, 20000)
	qs := &exec.QueryStats{}
	ctx, cancel := context.WithCancel(exec.WithQueryStats(context.Background(), qs))
	defer cancel()
	in := &cancelAfter{Operator: newRowsOp(aggSpillTypes, rows, 500), n: 100, cancel: cancel}
	h := &HashAgg{Input: in, NGroup: 2, Aggs: []Agg{{Kind: AggCountStar}}, Mem: memory.NewMemory(memory.NewMemoryPool(1<<20), 0)}
	_, err := h.Next(ctx)
	if pgerr.Code(err) != pgerr.QueryCanceled {
		t.Fatalf("want cancellation, got %v", err)
	}
	if qs.SpillFiles() == 0 || spillFilesLeft(t, sp) == 0 {
		t.Fatal("the aggregation did not spill before it was cancelled")
	}
	h.Close()
	if n := spillFilesLeft(t, sp); n != 0 || sp.Used() != 0 {
		t.Fatalf("after cancel and Close: %d spill files, %d bytes held", n, sp.Used())
	}
}

// TestParallelHashAggSpills: workers freeze and partition each on their
// own; the merged answer equals the serial one.
func TestParallelHashAggSpills(t *testing.T) {
	sp := testSpill(t, 0)
	store, files, live := scanFixture(t, 4, 15000, 2000)
	ts := []types.T{types.Int64T, types.Int64T, types.TextT}
	mk := func(input exec.Operator, mem *memory.Memory) *HashAgg {
		exprs := func() []exec.Expr { return []exec.Expr{col(2, ts[2]), col(0, ts[0]), col(1, ts[1])} }
		aggs := []Agg{mkAgg(t, AggCountStar, 0, types.Int64T), mkAgg(t, AggSum, 2, types.Int64T)}
		if p, ok := input.(*exec.Parallel); ok {
			p.Build = func(w int, src exec.Operator) exec.Operator {
				return &exec.Project{Env: env, Input: src, Exprs: exprs()}
			}
			return &HashAgg{Input: p, NGroup: 2, Aggs: aggs, Mem: mem}
		}
		return &HashAgg{Input: &exec.Project{Env: env, Input: input, Exprs: exprs()}, NGroup: 2, Aggs: aggs, Mem: mem}
	}
	want := runAgg(t, mk(newFixtureScan(store, files), nil))
	if len(want) != live {
		t.Fatalf("%d groups, want %d", len(want), live)
	}
	qs := &exec.QueryStats{}
	ctx := exec.WithQueryStats(context.Background(), qs)
	mem := memory.NewMemory(memory.NewMemoryPool(1<<20), 0)
	h := mk(&exec.Parallel{Scan: newFixtureScan(store, files), Workers: 2}, mem)
	got := collectCtx(t, ctx, h)
	if qs.SpillFiles() == 0 {
		t.Fatal("the parallel aggregation did not spill")
	}
	if !slices.Equal(sorted(got), sorted(want)) {
		t.Fatalf("parallel spilled aggregation: %d groups, want %d", len(got), len(want))
	}
	h.Close()
	if n := spillFilesLeft(t, sp); n != 0 || sp.Used() != 0 {
		t.Fatalf("after Close: %d spill files, %d bytes held", n, sp.Used())
	}
}

// TestHashAggRoutesSpilledRowsAcrossWorkers: rows one worker spilled
// because its table was frozen, of groups another worker's table holds, are
// aggregated with the merged partition table by their partition's task, and
// every group comes out once with all its rows. One worker's table was split
// into partition tables before it froze, the other's was not.
// With skip, the workers write every row they route out without looking
// it up in their frozen tables (aggSpill.skipProbe): the rows of their
// own groups are then found by the task.
func TestHashAggRoutesSpilledRowsAcrossWorkers(t *testing.T) {
	for _, skip := range []bool{false, true} {
		t.Run(fmt.Sprint("skip=", skip), func(t *testing.T) { routeSpilledRows(t, skip) })
	}
}

func routeSpilledRows(t *testing.T, skip bool) {
	sp := testSpill(t, 0)
	ts := []types.T{types.TextT, types.Int64T}
	var low, high [][]any // groups g0..g99, then g100..g199, each value 1..3
	for v := int64(1); v <= 3; v++ {
		for g := 0; g < 200; g++ {
			row := []any{"g" + strconv.Itoa(g), v}
			if g < 100 {
				low = append(low, row)
			} else {
				high = append(high, row)
			}
		}
	}
	ctx := context.Background()
	h := &HashAgg{Input: newRowsOp(ts, nil, 0), NGroup: 1,
		Aggs: []Agg{mkAgg(t, AggCountStar, 0, types.Int64T), mkAgg(t, AggSum, 1, types.Int64T)}, Mem: memory.NewMemory(nil, 0)}
	feed := func(r *aggRun, rows [][]any, frozen bool) {
		op := newRowsOp(ts, rows, 500)
		for {
			b, err := op.Next(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if b == nil {
				return
			}
			if frozen {
				err = r.sp.route(ctx, r, b)
			} else {
				err = r.consume(b)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	var ws []*aggWorker
	for w, rows := range [][][]any{low, high} {
		r, err := h.newRun()
		if err != nil {
			t.Fatal(err)
		}
		feed(r, rows[:len(rows)/3], false) // value 1 of its own groups
		wk := &aggWorker{run: r}
		frozen := []*aggRun{r}
		if w == 1 {
			if err := h.splitWorker(ctx, wk); err != nil {
				t.Fatal(err)
			}
			frozen = wk.parts
		}
		for _, r := range frozen {
			r.sp = h.newSpill(ctx)
			r.rerouted, r.sp.skipProbe = true, skip
		}
		route := func(rows [][]any) {
			if w == 0 {
				feed(r, rows, true)
				return
			}
			// dealt to the partition tables by a worker's feed
			op := newRowsOp(ts, rows, 500)
			for {
				b, err := op.Next(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if b == nil {
					break
				}
				if err := h.feedWorker(ctx, wk, b); err != nil {
					t.Fatal(err)
				}
			}
			if err := h.endWorker(ctx, wk); err != nil {
				t.Fatal(err)
			}
		}
		route(rows[len(rows)/3:])      // its own groups: aggregated
		route([][][]any{high, low}[w]) // the other's groups: spilled
		ws = append(ws, wk)
	}
	if spillFilesLeft(t, sp) == 0 {
		t.Fatal("nothing was spilled")
	}
	h.started = true
	if err := h.radixEnd(ctx, ws); err != nil {
		t.Fatal(err)
	}
	files := 0
	for _, task := range h.run.sp.tasks {
		files += len(task.files)
	}
	if len(h.run.sp.tasks) != aggPartitions || files == 0 {
		t.Fatalf("%d tasks with %d files, want %d tasks and the spilled files", len(h.run.sp.tasks), files, aggPartitions)
	}
	if err := h.finish(); err != nil {
		t.Fatal(err)
	}
	got := collectCtx(t, ctx, h)
	var want []string
	for g := 0; g < 200; g++ {
		want = append(want, "g"+strconv.Itoa(g)+"|6|12")
	}
	sameRows(t, "merged groups", got, want)
	h.Close()
	if n := spillFilesLeft(t, sp); n != 0 || sp.Used() != 0 {
		t.Fatalf("after Close: %d spill files, %d bytes held", n, sp.Used())
	}
}

// TestRouteJudgesLookups: a frozen worker table that finds almost none of
// the rows routed to it stops looking them up after probeJudgeRows rows;
// one that finds most goes on, and so does a table whose spilled rows are
// not looked up again later (not rerouted).
func TestRouteJudgesLookups(t *testing.T) {
	testSpill(t, 0)
	ts := []types.T{types.TextT, types.Int64T}
	ctx := context.Background()
	for _, c := range []struct {
		rerouted, unique, want bool
	}{{true, true, true}, {true, false, false}, {false, true, false}} {
		h := &HashAgg{Input: newRowsOp(ts, nil, 0), NGroup: 1,
			Aggs: []Agg{mkAgg(t, AggCountStar, 0, types.Int64T)}, Mem: memory.NewMemory(nil, 0)}
		r, err := h.newRun()
		if err != nil {
			t.Fatal(err)
		}
		var seen [][]any
		for g := 0; g < 100; g++ {
			seen = append(seen, []any{"g" + strconv.Itoa(g), int64(1)})
		}
		if err := r.consume(mustNext(t, newRowsOp(ts, seen, 100))); err != nil {
			t.Fatal(err)
		}
		r.sp = h.newSpill(ctx)
		r.rerouted = c.rerouted
		var rows [][]any
		for i := 0; i < probeJudgeRows+1000; i++ {
			k := "g" + strconv.Itoa(i%100)
			if c.unique {
				k = "u" + strconv.Itoa(i)
			}
			rows = append(rows, []any{k, int64(1)})
		}
		op := newRowsOp(ts, rows, 1000)
		for {
			b, err := op.Next(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if b == nil {
				break
			}
			if err := r.sp.route(ctx, r, b); err != nil {
				t.Fatal(err)
			}
		}
		if r.sp.skipProbe != c.want {
			t.Errorf("rerouted %v, unique keys %v: skipProbe %v, want %v", c.rerouted, c.unique, r.sp.skipProbe, c.want)
		}
		h.run = r
		h.Close()
	}
}

func mustNext(t *testing.T, op exec.Operator) *vec.Batch {
	t.Helper()
	b, err := op.Next(context.Background())
	if err != nil || b == nil {
		t.Fatalf("Next: %v, %v", b, err)
	}
	return b
}

// TestHashAggSpillPartitionsInParallel: with two processors the spilled
// partitions are aggregated two at a time and give the groups of the
// in-memory aggregation; closing the aggregation while partition workers
// are still running stops them and removes every file.
func TestHashAggSpillPartitionsInParallel(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	sp := testSpill(t, 0)
	rows := aggRows(80000, 40000)
	aggs := []Agg{{Kind: AggCountStar}, {Kind: AggSum, Arg: 2, In: types.Int64T}}
	want := collect(t, &HashAgg{Input: newRowsOp(aggSpillTypes, rows, 700), NGroup: 2, Aggs: aggs})
	for _, stopEarly := range []bool{false, true} {
		ctx := exec.WithQueryStats(context.Background(), &exec.QueryStats{})
		mem := memory.NewMemory(memory.NewMemoryPool(1<<20), 0)
		h := &HashAgg{Input: newRowsOp(aggSpillTypes, rows, 700), NGroup: 2, Aggs: aggs, Mem: mem}
		var got []string
		parallel := false
		for {
			b, err := h.Next(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if b == nil {
				break
			}
			parallel = parallel || (h.run.sp != nil && h.run.sp.par != nil)
			for i := 0; i < b.N; i++ {
				got = append(got, rowText(b, i))
			}
			if stopEarly && parallel {
				break
			}
		}
		if !parallel {
			t.Fatal("the partitions were not aggregated in parallel")
		}
		if !stopEarly && !slices.Equal(sorted(got), sorted(want)) {
			t.Fatalf("%d groups, want %d, or different ones", len(got), len(want))
		}
		h.Close()
		if n := spillFilesLeft(t, sp); n != 0 || sp.Used() != 0 || mem.Used() != 0 {
			t.Fatalf("stopEarly=%v: after Close %d spill files, %d temp bytes, %d memory bytes held", stopEarly, n, sp.Used(), mem.Used())
		}
	}
}

// TestHashAggFreezesFullNearTheLimit: a table that outgrows its budget is
// frozen with its slots well filled — grown by quarters near the limit
// rather than doubled into empty capacity it cannot afford to fill — and
// the spilled aggregation still gives the unspilled answer.
func TestHashAggFreezesFullNearTheLimit(t *testing.T) {
	sp := testSpill(t, 0)
	ts := []types.T{types.TextT, types.Int64T}
	const groups = 300000
	rows := make([][]any, 0, groups+groups/2)
	for i := range groups + groups/2 {
		g := i % groups
		rows = append(rows, []any{"comment of group " + strconv.Itoa(g), int64(g % 7)})
	}
	aggs := func() []Agg { return []Agg{mkAgg(t, AggCountStar, 0, types.Int64T)} }
	const pool = 16 << 20
	ctx := exec.WithQueryStats(context.Background(), &exec.QueryStats{})

	h := &HashAgg{Input: newRowsOp(ts, nil, 0), NGroup: 2, Aggs: aggs(), Mem: memory.NewMemory(memory.NewMemoryPool(pool), 0)}
	r, err := h.newRun()
	if err != nil {
		t.Fatal(err)
	}
	op := newRowsOp(ts, rows, 1024)
	for r.sp == nil {
		b, err := op.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if b == nil {
			t.Fatal("the aggregation did not freeze its table")
		}
		if err := h.feed(ctx, r, b); err != nil {
			t.Fatal(err)
		}
	}
	s := r.sets[0]
	if !s.htab.Tight {
		t.Fatal("the table did not grow by quarters near the limit")
	}
	if 8*s.htab.N < 3*len(s.htab.Slots) {
		t.Fatalf("frozen with %d groups in %d slots: the slots are mostly empty", s.htab.N, len(s.htab.Slots))
	}
	if r.res.Reserved > pool {
		t.Fatalf("the table reserved %d bytes of a %d-byte pool", r.res.Reserved, pool)
	}
	r.sp.close()
	r.res.Release()

	want := collect(t, &HashAgg{Input: newRowsOp(ts, rows, 1024), NGroup: 2, Aggs: aggs()})
	qs := &exec.QueryStats{}
	h = &HashAgg{Input: newRowsOp(ts, rows, 1024), NGroup: 2, Aggs: aggs(), Mem: memory.NewMemory(memory.NewMemoryPool(pool), 0)}
	got := collectCtx(t, exec.WithQueryStats(context.Background(), qs), h)
	h.Close()
	if qs.SpillFiles() == 0 {
		t.Fatal("the aggregation did not spill")
	}
	if len(want) != groups || !slices.Equal(sorted(got), sorted(want)) {
		t.Fatalf("spilled aggregation: %d groups, want %d", len(got), len(want))
	}
	if n := spillFilesLeft(t, sp); n != 0 || sp.Used() != 0 {
		t.Fatalf("after Close: %d spill files, %d bytes held", n, sp.Used())
	}
}
