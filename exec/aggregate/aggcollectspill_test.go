package aggregate

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"strconv"
	"testing"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/memory"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// collectRows makes rows (k int: 3 groups, v int, s text, delimiter,
// f float, fraction, w int: few values) for collecting aggregates.
func collectRows(n int) ([]types.T, [][]any) {
	rng := rand.New(rand.NewSource(17))
	ts := []types.T{types.Int64T, types.Int64T, types.TextT, types.TextT, types.Float64T, types.Float64T, types.Int64T}
	rows := make([][]any, n)
	for i := range rows {
		var v, s any = int64(rng.Intn(n / 2)), "s" + strconv.Itoa(rng.Intn(n/3))
		if i%101 == 0 {
			v = nil
		}
		if i%103 == 0 {
			s = nil
		}
		rows[i] = []any{int64(rng.Intn(3)), v, s, ",", float64(rng.Intn(1000)) / 8, 0.3, int64(rng.Intn(50))}
	}
	return ts, rows
}

func collectAggs(t *testing.T) []Agg {
	cd := mkAgg(t, AggCount, 1, types.Int64T)
	cd.Distinct = true
	sd := mkAgg(t, AggSum, 1, types.Int64T)
	sd.Distinct = true
	so := Agg{Kind: AggStringAgg, Arg: 2, Arg2: 3, In: types.TextT, Out: types.TextT, Order: []AggOrder{{Col: 1, Desc: true, NullsFirst: true}, {Col: 2}}}
	sdist := Agg{Kind: AggStringAgg, Arg: 2, Arg2: 3, In: types.TextT, Out: types.TextT, Distinct: true}
	pc := mkAgg(t, AggPercentileCont, 4, types.Float64T)
	pc.Arg2 = 5
	pd := mkAgg(t, AggPercentileDisc, 1, types.Int64T)
	pd.Arg2, pd.Desc = 5, true
	mode := mkAgg(t, AggMode, 6, types.Int64T)
	return []Agg{mkAgg(t, AggCountStar, 0, types.Int64T), cd, sd, so, sdist, pc, pd, mode}
}

// TestCollectingAggregatesSpill: DISTINCT aggregates, string_agg with
// ORDER BY, percentiles and mode over one group (no GROUP BY) and over
// three write their rows to disk past the budget and give the answers
// they give in memory; Close leaves no file and no memory held.
func TestCollectingAggregatesSpill(t *testing.T) {
	sp := testSpill(t, 0)
	ts, rows := collectRows(60000)
	aggs := collectAggs(t)
	for _, ng := range []int{0, 1} {
		for a := range aggs {
			name := fmt.Sprintf("ngroup=%d %s distinct=%v", ng, aggs[a].Kind.Name(), aggs[a].Distinct)
			// the key column leads: group by k (col 0) or nothing
			one := []Agg{aggs[a]}
			want := collect(t, &HashAgg{Input: newRowsOp(ts, rows, 700), NGroup: ng, Aggs: one})
			qs := &exec.QueryStats{}
			ctx := exec.WithQueryStats(context.Background(), qs)
			mem := memory.NewMemory(memory.NewMemoryPool(256<<10), 0)
			h := &HashAgg{Input: newRowsOp(ts, rows, 700), NGroup: ng, Aggs: one, Mem: mem}
			got := collectCtx(t, ctx, h)
			if a > 0 && (qs.SpillFiles() == 0 || qs.SpillBytes() == 0) {
				t.Fatalf("%s: did not spill", name)
			}
			if !slices.Equal(sorted(got), sorted(want)) {
				t.Fatalf("%s: spilled state differs:\n%.300q\nwant\n%.300q", name, got, want)
			}
			h.Close()
			if n := spillFilesLeft(t, sp); n != 0 || sp.Used() != 0 || mem.Used() != 0 {
				t.Fatalf("%s: after Close %d spill files, %d temp bytes, %d memory bytes held", name, n, sp.Used(), mem.Used())
			}
		}
	}
}

// TestCollectingAggregatesSpillAll: all of them at once, with FILTER-free
// grouping sets too.
func TestCollectingAggregatesSpillAll(t *testing.T) {
	sp := testSpill(t, 0)
	ts, rows := collectRows(60000)
	aggs := collectAggs(t)
	for _, sets := range [][][]int{nil, {{0}, {}}} {
		ng := 0
		if sets != nil {
			ng = 1
		}
		want := collect(t, &HashAgg{Input: newRowsOp(ts, rows, 700), NGroup: ng, Aggs: aggs, GroupingSets: sets})
		qs := &exec.QueryStats{}
		ctx := exec.WithQueryStats(context.Background(), qs)
		mem := memory.NewMemory(memory.NewMemoryPool(256<<10), 0)
		h := &HashAgg{Input: newRowsOp(ts, rows, 700), NGroup: ng, Aggs: aggs, GroupingSets: sets, Mem: mem}
		got := collectCtx(t, ctx, h)
		if qs.SpillFiles() < 2 {
			t.Fatalf("sets %v: %d spill files", sets, qs.SpillFiles())
		}
		if !slices.Equal(sorted(got), sorted(want)) {
			t.Fatalf("sets %v: spilled states differ", sets)
		}
		h.Close()
		if n := spillFilesLeft(t, sp); n != 0 || sp.Used() != 0 || mem.Used() != 0 {
			t.Fatalf("sets %v: after Close %d spill files, %d temp bytes, %d memory bytes held", sets, n, sp.Used(), mem.Used())
		}
	}
}

// TestCollectingAggregatesSpillCancel: cancelled while its states spill,
// the aggregation leaves no file.
func TestCollectingAggregatesSpillCancel(t *testing.T) {
	sp := testSpill(t, 0)
	ts, rows := collectRows(60000)
	qs := &exec.QueryStats{}
	ctx, cancel := context.WithCancel(exec.WithQueryStats(context.Background(), qs))
	defer cancel()
	in := &cancelAfter{Operator: newRowsOp(ts, rows, 500), n: 100, cancel: cancel}
	h := &HashAgg{Input: in, Aggs: collectAggs(t), Mem: memory.NewMemory(memory.NewMemoryPool(256<<10), 0)}
	_, err := h.Next(ctx)
	if pgerr.Code(err) != pgerr.QueryCanceled {
		t.Fatalf("want cancellation, got %v", err)
	}
	if qs.SpillFiles() == 0 || spillFilesLeft(t, sp) == 0 {
		t.Fatal("the states did not spill before the cancel")
	}
	h.Close()
	if n := spillFilesLeft(t, sp); n != 0 || sp.Used() != 0 {
		t.Fatalf("after cancel and Close: %d spill files, %d bytes held", n, sp.Used())
	}
}

// TestParallelCollectingAggregatesSpill: the workers' states write their
// rows to disk on their own; merged, the rows on disk are moved to the
// merged state's files with their groups mapped.
func TestParallelCollectingAggregatesSpill(t *testing.T) {
	sp := testSpill(t, 0)
	store, files, _ := scanFixture(t, 4, 15000, 2000)
	ts := []types.T{types.Int64T, types.Int64T, types.TextT}
	for _, ng := range []int{0, 1} {
		mk := func(input exec.Operator, mem *memory.Memory) *HashAgg {
			// (g % 3, id, s)
			exprs := func() []exec.Expr { return []exec.Expr{col(1, ts[1]), col(0, ts[0]), col(2, ts[2])} }
			cd := mkAgg(t, AggCount, 1, types.Int64T)
			cd.Distinct = true
			sd := Agg{Kind: AggStringAgg, Arg: 2, Arg2: 2, In: types.TextT, Out: types.TextT, Distinct: true}
			md := mkAgg(t, AggMode, 2, types.TextT)
			aggs := []Agg{cd, sd, md}
			if p, ok := input.(*exec.Parallel); ok {
				p.Build = func(w int, src exec.Operator) exec.Operator {
					return &exec.Project{Env: env, Input: src, Exprs: exprs()}
				}
				return &HashAgg{Input: p, NGroup: ng, Aggs: aggs, Mem: mem}
			}
			return &HashAgg{Input: &exec.Project{Env: env, Input: input, Exprs: exprs()}, NGroup: ng, Aggs: aggs, Mem: mem}
		}
		want := runAgg(t, mk(newFixtureScan(store, files), nil))
		qs := &exec.QueryStats{}
		ctx := exec.WithQueryStats(context.Background(), qs)
		mem := memory.NewMemory(memory.NewMemoryPool(1<<20), 0)
		h := mk(&exec.Parallel{Scan: newFixtureScan(store, files), Workers: 2}, mem)
		var got []string
		if err := exec.Drain(ctx, h, func(b *vec.Batch) error {
			for i := 0; i < b.N; i++ {
				got = append(got, rowText(b, i))
			}
			return nil
		}); err != nil {
			t.Fatalf("ngroup=%d: %+v %#v", ng, err, err)
		}
		if qs.SpillFiles() == 0 {
			t.Fatalf("ngroup=%d: the states did not spill", ng)
		}
		if !slices.Equal(sorted(got), sorted(want)) {
			t.Fatalf("ngroup=%d: parallel spilled states: %.200q, want %.200q", ng, got, want)
		}
		h.Close()
		if n := spillFilesLeft(t, sp); n != 0 || sp.Used() != 0 || mem.Used() != 0 {
			t.Fatalf("ngroup=%d: after Close: %d spill files, %d bytes, %d memory held", ng, n, sp.Used(), mem.Used())
		}
	}
}

// atEnd calls f when its input ends.
type atEnd struct {
	exec.Operator
	f func()
}

func (a *atEnd) Next(ctx context.Context) (*vec.Batch, error) {
	b, err := a.Operator.Next(ctx)
	if b == nil && err == nil && a.f != nil {
		a.f()
		a.f = nil
	}
	return b, err
}

// TestCollectingSortWithoutRoom: when the statement's budget is full as
// the input ends (another operator took it), a collecting state's sort of
// its spilled rows runs in a small budget of its own instead of failing,
// and the answer is the one in memory.
func TestCollectingSortWithoutRoom(t *testing.T) {
	sp := testSpill(t, 0)
	ts, rows := collectRows(60000)
	aggs := collectAggs(t)
	want := collect(t, &HashAgg{Input: newRowsOp(ts, rows, 700), Aggs: aggs})
	pool := memory.NewMemoryPool(256 << 10)
	mem := memory.NewMemory(pool, 0)
	other := memory.NewMemory(pool, 0)
	qs := &exec.QueryStats{}
	ctx := exec.WithQueryStats(context.Background(), qs)
	in := &atEnd{Operator: newRowsOp(ts, rows, 700), f: func() { other.GrowPast(pool.Limit()) }}
	h := &HashAgg{Input: in, Aggs: aggs, Mem: mem}
	got := collectCtx(t, ctx, h)
	if qs.SpillFiles() == 0 {
		t.Fatal("the states did not spill")
	}
	if !slices.Equal(got, want) {
		t.Fatalf("sorted in a budget of its own: %.200q, want %.200q", got, want)
	}
	h.Close()
	other.Shrink(pool.Limit())
	if n := spillFilesLeft(t, sp); n != 0 || sp.Used() != 0 || mem.Used() != 0 {
		t.Fatalf("after Close: %d spill files, %d bytes, %d memory held", n, sp.Used(), mem.Used())
	}
}
