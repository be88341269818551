package aggregate

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/memory"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// gsSpillCases are grouping sets over (k1 int, k2 text) of aggRows with
// aggregates that roll up from the finest set and ones that do not (a
// DISTINCT aggregate reads the input in every set).
func gsSpillCases(t *testing.T) []struct {
	name string
	sets [][]int
	aggs []Agg
} {
	rolled := []Agg{mkAgg(t, AggCountStar, 0, types.Int64T), mkAgg(t, AggSum, 2, types.Int64T),
		mkAgg(t, AggMin, 3, types.Float64T), mkAgg(t, AggAvg, 2, types.Int64T)}
	distinct := append(slices.Clone(rolled[:2]), Agg{Kind: AggCount, Arg: 3, In: types.Float64T, Out: types.Int64T, Distinct: true})
	return []struct {
		name string
		sets [][]int
		aggs []Agg
	}{
		{"rollup rolled up", [][]int{{0, 1}, {0}, {}}, rolled},
		{"cube rolled up", [][]int{{0, 1}, {0}, {1}, {}}, rolled},
		{"rollup with DISTINCT", [][]int{{0, 1}, {0}, {}}, distinct},
		{"grouping sets with DISTINCT", [][]int{{1}, {0}, {}}, distinct},
	}
}

// TestGroupingSetsSpill: every set's table freezes and its new groups'
// rows go to its own files; the answer equals the one in memory, and Close
// leaves no file or memory held.
func TestGroupingSetsSpill(t *testing.T) {
	sp := testSpill(t, 0)
	rows := aggRows(60000, 20000)
	for _, c := range gsSpillCases(t) {
		want := collect(t, &HashAgg{Input: newRowsOp(aggSpillTypes, rows, 700), NGroup: 2, Aggs: c.aggs, GroupingSets: c.sets, GroupingID: true})
		qs := &exec.QueryStats{}
		ctx := exec.WithQueryStats(context.Background(), qs)
		mem := memory.NewMemory(memory.NewMemoryPool(1<<20), 0)
		h := &HashAgg{Input: newRowsOp(aggSpillTypes, rows, 700), NGroup: 2, Aggs: c.aggs, GroupingSets: c.sets, GroupingID: true, Mem: mem}
		got := collectCtx(t, ctx, h)
		if qs.SpillFiles() == 0 || qs.SpillBytes() == 0 {
			t.Fatalf("%s: did not spill", c.name)
		}
		if !slices.Equal(sorted(got), sorted(want)) {
			t.Fatalf("%s: spilled grouping sets differ: %d rows, want %d", c.name, len(got), len(want))
		}
		if len(want) < 20000 {
			t.Fatalf("%s: only %d rows", c.name, len(want))
		}
		h.Close()
		if n := spillFilesLeft(t, sp); n != 0 || sp.Used() != 0 || mem.Used() != 0 {
			t.Fatalf("%s: after Close %d spill files, %d temp bytes, %d memory bytes held", c.name, n, sp.Used(), mem.Used())
		}
	}
}

// TestGroupingSetsSpillRecursively: a set's partitions are still too big
// and are partitioned again by their own sub-aggregation.
func TestGroupingSetsSpillRecursively(t *testing.T) {
	sp := testSpill(t, 0)
	rows := aggRows(200000, 150000)
	aggs := []Agg{mkAgg(t, AggCountStar, 0, types.Int64T), mkAgg(t, AggSum, 2, types.Int64T)}
	sets := [][]int{{0, 1}, {1}, {}}
	want := collect(t, &HashAgg{Input: newRowsOp(aggSpillTypes, rows, 700), NGroup: 2, Aggs: aggs, GroupingSets: sets, GroupingID: true})
	qs := &exec.QueryStats{}
	ctx := exec.WithQueryStats(context.Background(), qs)
	h := &HashAgg{Input: newRowsOp(aggSpillTypes, rows, 700), NGroup: 2, Aggs: aggs, GroupingSets: sets, GroupingID: true,
		Mem: memory.NewMemory(memory.NewMemoryPool(256<<10), 0)}
	got := collectCtx(t, ctx, h)
	h.Close()
	if qs.SpillFiles() <= 2*aggPartitions {
		t.Fatalf("%d spill files: want partitions of partitions", qs.SpillFiles())
	}
	if !slices.Equal(sorted(got), sorted(want)) {
		t.Fatalf("recursive grouping-set spill: %d rows, want %d", len(got), len(want))
	}
	if n := spillFilesLeft(t, sp); n != 0 || sp.Used() != 0 {
		t.Fatalf("after Close: %d spill files, %d bytes held", n, sp.Used())
	}
}

// TestGroupingSetsSpillEarlyClose: closed after its first batch, or
// cancelled while it spills, a grouping-set aggregation leaves no file.
func TestGroupingSetsSpillEarlyClose(t *testing.T) {
	sp := testSpill(t, 0)
	rows := aggRows(60000, 20000)
	aggs := []Agg{mkAgg(t, AggCountStar, 0, types.Int64T)}
	sets := [][]int{{0, 1}, {0}, {}}
	for _, cancelIt := range []bool{false, true} {
		qs := &exec.QueryStats{}
		ctx, cancel := context.WithCancel(exec.WithQueryStats(context.Background(), qs))
		var in exec.Operator = newRowsOp(aggSpillTypes, rows, 500)
		if cancelIt {
			in = &cancelAfter{Operator: in, n: 100, cancel: cancel}
		}
		h := &HashAgg{Input: in, NGroup: 2, Aggs: aggs, GroupingSets: sets, GroupingID: true, Mem: memory.NewMemory(memory.NewMemoryPool(1<<20), 0)}
		_, err := h.Next(ctx)
		switch {
		case cancelIt && pgerr.Code(err) != pgerr.QueryCanceled:
			t.Fatalf("want cancellation, got %v", err)
		case !cancelIt && err != nil:
			t.Fatal(err)
		}
		if qs.SpillFiles() == 0 || spillFilesLeft(t, sp) == 0 {
			t.Fatalf("cancel=%v: the aggregation did not spill before it was closed", cancelIt)
		}
		h.Close()
		cancel()
		if n := spillFilesLeft(t, sp); n != 0 || sp.Used() != 0 {
			t.Fatalf("cancel=%v: after Close: %d spill files, %d bytes held", cancelIt, n, sp.Used())
		}
	}
}

// TestParallelGroupingSetsSpill: the workers freeze on their own; their
// tables are merged and their spilled rows routed through the merged
// tables, so each group comes out once with all its rows.
func TestParallelGroupingSetsSpill(t *testing.T) {
	sp := testSpill(t, 0)
	store, files, _ := scanFixture(t, 4, 15000, 2000)
	ts := []types.T{types.Int64T, types.Int64T, types.TextT}
	for _, distinct := range []bool{false, true} {
		mk := func(input exec.Operator, mem *memory.Memory) *HashAgg {
			exprs := func() []exec.Expr { return []exec.Expr{col(2, ts[2]), col(0, ts[0]), col(1, ts[1])} }
			aggs := []Agg{mkAgg(t, AggCountStar, 0, types.Int64T), mkAgg(t, AggSum, 2, types.Int64T)}
			if distinct {
				aggs = append(aggs, Agg{Kind: AggCount, Arg: 2, In: types.Int64T, Out: types.Int64T, Distinct: true})
			}
			sets := [][]int{{0, 1}, {0}, {1}, {}}
			if p, ok := input.(*exec.Parallel); ok {
				p.Build = func(w int, src exec.Operator) exec.Operator {
					return &exec.Project{Env: env, Input: src, Exprs: exprs()}
				}
				return &HashAgg{Input: p, NGroup: 2, Aggs: aggs, GroupingSets: sets, GroupingID: true, Mem: mem}
			}
			return &HashAgg{Input: &exec.Project{Env: env, Input: input, Exprs: exprs()}, NGroup: 2, Aggs: aggs, GroupingSets: sets, GroupingID: true, Mem: mem}
		}
		name := fmt.Sprint("distinct=", distinct)
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
			t.Fatalf("%s: %#v", name, err)
		}
		if qs.SpillFiles() == 0 {
			t.Fatalf("%s: the parallel grouping sets did not spill", name)
		}
		if !slices.Equal(sorted(got), sorted(want)) {
			t.Fatalf("%s: parallel spilled grouping sets: %d rows, want %d", name, len(got), len(want))
		}
		h.Close()
		if n := spillFilesLeft(t, sp); n != 0 || sp.Used() != 0 || mem.Used() != 0 {
			t.Fatalf("%s: after Close: %d spill files, %d bytes, %d memory held", name, n, sp.Used(), mem.Used())
		}
	}
}
