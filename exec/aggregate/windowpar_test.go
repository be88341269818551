package aggregate

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/memory"
	"github.com/lakepg/lakepg/exec/order"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// lowParWindowMin lets the tests' inputs go parallel.
func lowParWindowMin(t *testing.T, n int) {
	old := parWindowMin
	parWindowMin = n
	t.Cleanup(func() { parWindowMin = old })
}

// winStackSpec is a window of a stack: its partition columns, its order.
type winStackSpec struct {
	part  []int
	order []order.SortKey
}

// parWindowStack builds the windows of specs one on another over rows
// (wst's columns), each with spillWindowFuncs, with workers.
func parWindowStack(t *testing.T, rows [][]any, specs []winStackSpec, workers int, mem *memory.Memory) []*Window {
	var op exec.Operator = newRowsOp(wst, rows, 700)
	var ws []*Window
	for _, s := range specs {
		w := &Window{Env: env, Input: op, PartitionBy: s.part, OrderBy: s.order, Funcs: spillWindowFuncs(t), Mem: mem, Workers: workers}
		ws = append(ws, w)
		op = w
	}
	return ws
}

// TestParallelWindowMatchesSerial: window stacks dealt to workers give the
// serial evaluation's rows (in another order), with many partitions, one,
// all-NULL keys, and stacks whose windows share partition columns or not;
// each share's copy of the stack runs it whole when they share one.
func TestParallelWindowMatchesSerial(t *testing.T) {
	lowParWindowMin(t, 100)
	byOrder := []order.SortKey{{Col: 2}, {Col: 1, Desc: true}}
	cases := []struct {
		name    string
		parts   int
		nulls   bool // every partition key NULL
		specs   []winStackSpec
		stacked bool // the top window deals for the whole stack
		uniq    bool // column 2 unique: the top orders its peers of the bottom's output alike whatever order that comes in
	}{
		{"many partitions", 3000, false, []winStackSpec{{[]int{0}, byOrder}}, true, false},
		{"one partition", 1, false, []winStackSpec{{[]int{0}, byOrder}}, true, false},
		{"NULL partitions", 5, true, []winStackSpec{{[]int{0}, byOrder}}, true, false},
		{"two keys", 40, false, []winStackSpec{{[]int{1, 0}, []order.SortKey{{Col: 2}}}}, true, false},
		// rank over (p ORDER BY o) below avg over (p, text): dealt once by p
		{"stack sharing a key", 300, false, []winStackSpec{{[]int{0}, byOrder}, {[]int{1, 0}, nil}}, true, false},
		{"stack sorted alike", 300, false, []winStackSpec{{[]int{0}, byOrder}, {[]int{0}, []order.SortKey{{Col: 2}}}}, true, false},
		// no key in common: each window deals its own
		{"stack without a shared key", 300, false, []winStackSpec{{[]int{0}, byOrder}, {[]int{1}, []order.SortKey{{Col: 3}, {Col: 2}}}}, false, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewSource(31))
			rows := windowSpillRows(rng, 9000, c.parts)
			for i, r := range rows {
				if c.nulls {
					r[0] = nil
				}
				if c.uniq {
					r[2] = int64(i)
				}
			}
			run := func(workers int) ([]string, []*Window) {
				mem := memory.NewMemory(memory.NewMemoryPool(0), 0)
				ws := parWindowStack(t, rows, c.specs, workers, mem)
				top := ws[len(ws)-1]
				got := collectCtx(t, context.Background(), top)
				if err := top.Close(); err != nil {
					t.Fatal(err)
				}
				if mem.Used() != 0 {
					t.Fatalf("%d bytes still reserved after Close", mem.Used())
				}
				return got, ws
			}
			want, _ := run(0)
			got, ws := run(2)
			top := ws[len(ws)-1]
			if top.par == nil {
				t.Fatal("the top window was not evaluated in parallel")
			}
			if len(ws) > 1 {
				if c.stacked == ws[0].started {
					t.Fatalf("stacked %v, yet the bottom window ran itself: %v", c.stacked, ws[0].started)
				}
				if !c.stacked && ws[0].par == nil {
					t.Fatal("the bottom window of a stack without a shared key was not parallel")
				}
			}
			if len(got) != len(want) {
				t.Fatalf("%d rows, want %d", len(got), len(want))
			}
			sameRows(t, c.name, got, want)
		})
	}
}

// TestParallelWindowFewRows: below parWindowMin a window stack is computed
// serially from the rows its top buffered, in the serial order.
func TestParallelWindowFewRows(t *testing.T) {
	rng := rand.New(rand.NewSource(32))
	rows := windowSpillRows(rng, 3000, 50)
	specs := []winStackSpec{{[]int{0}, []order.SortKey{{Col: 2}, {Col: 1}}}, {[]int{0, 1}, nil}}
	run := func(workers int) []string {
		ws := parWindowStack(t, rows, specs, workers, nil)
		top := ws[len(ws)-1]
		got := collectCtx(t, context.Background(), top)
		if top.par != nil {
			t.Fatal("3000 rows were dealt to workers")
		}
		top.Close()
		return got
	}
	want := run(0)
	if got := run(2); !slices.Equal(got, want) {
		sameRows(t, "few rows", got, want)
		t.Fatal("same rows, different order")
	}
}

// TestParallelWindowSpills: a stack whose input outgrows the pool goes the
// serial spilling way from the rows its top buffered; one whose shares
// outgrow their part of work_mem spills in each share. Both give the
// in-memory rows and leave no file.
func TestParallelWindowSpills(t *testing.T) {
	sp := testSpill(t, 0)
	lowParWindowMin(t, 1000)
	rng := rand.New(rand.NewSource(33))
	rows := windowSpillRows(rng, 60000, 3000)
	specs := []winStackSpec{{[]int{0}, []order.SortKey{{Col: 2}, {Col: 1, Desc: true}}}, {[]int{1, 0}, nil}}
	run := func(workers int, pool, workMem int64) ([]string, *Window, int64) {
		qs := &exec.QueryStats{}
		ctx := memory.WithWorkMem(exec.WithQueryStats(context.Background(), qs), workMem)
		mem := memory.NewMemory(memory.NewMemoryPool(pool), 0)
		ws := parWindowStack(t, rows, specs, workers, mem)
		top := ws[len(ws)-1]
		got := collectCtx(t, ctx, top)
		if err := top.Close(); err != nil {
			t.Fatal(err)
		}
		if mem.Used() != 0 {
			t.Fatalf("%d bytes still reserved after Close", mem.Used())
		}
		return got, top, qs.SpillFiles()
	}
	want, _, files := run(0, 0, 0)
	if files != 0 {
		t.Fatal("spilled without a limit")
	}
	// the pool cannot hold the input: no dealing, the bottom window spills
	got, top, files := run(2, 2<<20, 0)
	if top.par != nil || files == 0 {
		t.Fatalf("under a 2 MiB pool: parallel %v, %d spill files", top.par != nil, files)
	}
	sameRows(t, "spilled stack", got, want)
	// the input fits in work_mem, each share's half does not: the shares
	// spill on their own
	bottom := &Window{PartitionBy: specs[0].part, OrderBy: specs[0].order}
	workMem := inputBytes(t, rows, bottom.sortKeys()) * 21 / 20
	got, top, files = run(2, 0, workMem)
	if top.par == nil || files == 0 {
		t.Fatalf("work_mem %d: parallel %v, %d spill files", workMem, top.par != nil, files)
	}
	spilled := 0
	for _, s := range top.par.tops {
		for _, w := range []*Window{s, s.Input.(*Window)} {
			if w.stream != nil {
				spilled++
			}
		}
	}
	if spilled == 0 {
		t.Fatal("no share's window spilled")
	}
	sameRows(t, "shares spilled", got, want)
	if n := spillFilesLeft(t, sp); n != 0 || sp.Used() != 0 {
		t.Fatalf("%d spill files, %d bytes of temp space left", n, sp.Used())
	}
}

// inputBytes is what a window sorting by keys reserves for rows and their
// sort keys when it buffers them all.
func inputBytes(t *testing.T, rows [][]any, keys []order.SortKey) int64 {
	buf := memory.NewColBuf(wst, vec.BatchSize)
	var n int64
	err := exec.Drain(context.Background(), newRowsOp(wst, rows, 700), func(b *vec.Batch) error {
		n += memory.AppendCost(buf, b, b.N) + order.SortKeyCost(keys, b, b.N)
		buf.AppendBatch(b, 0, b.N)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// BenchmarkWindowStack is TPC-DS q47's pair of windows over 65,000 rows in
// 5,000 partitions, serial and dealt to two workers.
func BenchmarkWindowStack(b *testing.B) {
	rng := rand.New(rand.NewSource(34))
	rows := windowSpillRows(rng, 65000, 5000)
	sum := mkAgg(b, AggSum, 2, types.Int64T)
	// the rows held once, read as views: the loop times the windows only
	m := &exec.Materialized{Input: newRowsOp(wst, rows, vec.BatchSize)}
	pin := m.Reader()
	defer pin.Close()
	for _, workers := range []int{0, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				in := m.Reader()
				low := &Window{Env: env, Input: in, PartitionBy: []int{0}, OrderBy: []order.SortKey{{Col: 2}}, Funcs: []WindowFunc{{Kind: WinRank}}, Workers: workers}
				top := &Window{Env: env, Input: low, PartitionBy: []int{0, 1}, Funcs: []WindowFunc{{Kind: WinAgg, Agg: sum}}, Workers: workers}
				if err := exec.Drain(context.Background(), top, func(*vec.Batch) error { return nil }); err != nil {
					b.Fatal(err)
				}
				top.Close()
			}
		})
	}
}
