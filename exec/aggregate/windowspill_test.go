package aggregate

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/memory"
	"github.com/lakepg/lakepg/exec/order"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// windowSpillRows makes n rows of (partition key with NULLs, text, order
// value, padding) over parts partitions.
func windowSpillRows(rng *rand.Rand, n, parts int) [][]any {
	rows := make([][]any, n)
	for i := range rows {
		var p any = int64(rng.Intn(parts))
		if rng.Intn(50) == 0 {
			p = nil
		}
		rows[i] = []any{p, fmt.Sprintf("v%d", rng.Intn(1000)), int64(rng.Intn(n)), strings.Repeat("w", 30+rng.Intn(30))}
	}
	return rows
}

var wst = []types.T{types.Int64T, types.TextT, types.Int64T, types.TextT}

func spillWindowFuncs(t *testing.T) []WindowFunc {
	sum := mkAgg(t, AggSum, 2, types.Int64T)
	return []WindowFunc{
		{Kind: WinRowNumber},
		{Kind: WinRank},
		{Kind: WinDenseRank},
		{Kind: WinAgg, Agg: sum}, // default frame: running, peers included
		{Kind: WinAgg, Agg: sum, Frame: Frame{Mode: FrameRows, Start: FrameBound{Kind: BoundPreceding, Offset: 2}, End: FrameBound{Kind: BoundFollowing, Offset: 1}}},
		{Kind: WinAgg, Agg: mkAgg(t, AggCount, 2, types.Int64T), Frame: Frame{Mode: FrameRows, Start: FrameBound{Kind: BoundUnboundedPreceding}, End: FrameBound{Kind: BoundUnboundedFollowing}}},
		{Kind: WinLag, Args: []int{1}},
		{Kind: WinLead, Args: []int{2}},
		{Kind: WinCumeDist},
		{Kind: WinFirstValue, Args: []int{1}, Frame: Frame{Mode: FrameRows, Start: FrameBound{Kind: BoundPreceding, Offset: 3}, End: FrameBound{Kind: BoundCurrentRow}}},
	}
}

// TestWindowSpills: window functions over many partitions, under a pool a
// fraction of the input, give exactly the in-memory rows (in the same
// order), spill through the external sort and leave no file behind.
func TestWindowSpills(t *testing.T) {
	sp := testSpill(t, 0)
	rng := rand.New(rand.NewSource(21))
	rows := windowSpillRows(rng, 60000, 3000)
	// order by the order value then the text: peers exist (rank and the
	// default frame see them), and ties keep input order in both runs
	run := func(limit int64) ([]string, int64) {
		qs := &exec.QueryStats{}
		ctx := exec.WithQueryStats(context.Background(), qs)
		mem := memory.NewMemory(memory.NewMemoryPool(limit), 0)
		w := &Window{Env: env, Input: newRowsOp(wst, rows, 1000), PartitionBy: []int{0},
			OrderBy: []order.SortKey{{Col: 2}, {Col: 1, Desc: true}}, Funcs: spillWindowFuncs(t), Mem: mem}
		got := collectCtx(t, ctx, w)
		if limit > 0 && (w.stream == nil || w.stream.chunks < 2) {
			t.Fatal("the window was not computed a chunk of partitions at a time")
		}
		w.Close()
		if mem.Used() != 0 {
			t.Fatalf("%d bytes still reserved after Close", mem.Used())
		}
		return got, qs.SpillFiles()
	}
	want, files := run(0)
	if files != 0 {
		t.Fatal("spilled without a limit")
	}
	got, files := run(2 << 20)
	t.Logf("%d spill files", files)
	if files == 0 {
		t.Fatal("did not spill under a 2 MiB pool")
	}
	if len(got) != len(want) {
		t.Fatalf("%d rows, want %d", len(got), len(want))
	}
	if !slices.Equal(got, want) {
		sameRows(t, "spilled window", got, want)
		t.Fatal("same rows, different order")
	}
	if n := spillFilesLeft(t, sp); n != 0 || sp.Used() != 0 {
		t.Fatalf("%d spill files, %d bytes of temp space left", n, sp.Used())
	}
}

// TestWindowSpillCancelRemovesFiles: a window cancelled while its sort
// spills removes every file on Close.
func TestWindowSpillCancelRemovesFiles(t *testing.T) {
	sp := testSpill(t, 0)
	rng := rand.New(rand.NewSource(22))
	rows := windowSpillRows(rng, 60000, 3000)
	qs := &exec.QueryStats{}
	ctx, cancel := context.WithCancel(exec.WithQueryStats(context.Background(), qs))
	defer cancel()
	in := &cancelAfter{Operator: newRowsOp(wst, rows, 500), n: 100, cancel: cancel}
	w := &Window{Env: env, Input: in, PartitionBy: []int{0}, OrderBy: []order.SortKey{{Col: 2}},
		Funcs: []WindowFunc{{Kind: WinRowNumber}}, Mem: memory.NewMemory(memory.NewMemoryPool(2<<20), 0)}
	_, err := w.Next(ctx)
	if pgerr.Code(err) != pgerr.QueryCanceled {
		t.Fatalf("want cancellation, got %v", err)
	}
	if qs.SpillFiles() == 0 || spillFilesLeft(t, sp) == 0 {
		t.Fatal("the window did not spill before it was cancelled")
	}
	w.Close()
	if n := spillFilesLeft(t, sp); n != 0 || sp.Used() != 0 {
		t.Fatalf("after cancel and Close: %d spill files, %d bytes held", n, sp.Used())
	}
}

// TestWindowOnePartitionOverBudget: a single partition bigger than the
// budget is computed from temp files (windowpaged.go): every row numbered
// in order, no file left.
func TestWindowOnePartitionOverBudget(t *testing.T) {
	sp := testSpill(t, 0)
	rng := rand.New(rand.NewSource(23))
	rows := windowSpillRows(rng, 60000, 1)
	for _, r := range rows {
		r[0] = int64(1)
	}
	w := &Window{Env: env, Input: newRowsOp(wst, rows, 1000), PartitionBy: []int{0}, OrderBy: []order.SortKey{{Col: 2}},
		Funcs: []WindowFunc{{Kind: WinRowNumber}}, Mem: memory.NewMemory(memory.NewMemoryPool(2<<20), 0)}
	var n, prev int64
	err := exec.Drain(context.Background(), w, func(b *vec.Batch) error {
		for i := 0; i < b.N; i++ {
			n++
			if rn := b.Vecs[4].I64[i]; rn != n {
				return fmt.Errorf("row %d numbered %d", n, rn)
			}
			if o := b.Vecs[2].I64[i]; o < prev {
				return fmt.Errorf("row %d out of order", n)
			} else {
				prev = o
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != int64(len(rows)) || w.stream == nil || w.stream.pagedParts != 1 {
		t.Fatalf("%d rows; computed from temp files: %v", n, w.stream != nil && w.stream.pagedParts > 0)
	}
	w.Close()
	if n := spillFilesLeft(t, sp); n != 0 {
		t.Fatalf("%d spill files left", n)
	}
}

// TestWindowSharedPrefixKeys: text order keys that share long prefixes (and
// hold NUL bytes, and end where others go on) number their rows as an
// independent ordering of the rows says, computed in memory and spilled:
// the multikey ordering and the merge of spilled runs must agree with
// plain string order.
func TestWindowSharedPrefixKeys(t *testing.T) {
	sp := testSpill(t, 0)
	rng := rand.New(rand.NewSource(5))
	const n = 40000
	rows := make([][]any, n)
	for i := range rows {
		var p any = int64(rng.Intn(40))
		if rng.Intn(60) == 0 {
			p = nil
		}
		s := "a shared head longer than eight bytes/" + strings.Repeat("x", rng.Intn(3))
		for k := rng.Intn(4); k > 0; k-- {
			s += string([]byte{"\x00ab"[rng.Intn(3)]})
		}
		rows[i] = []any{p, s, int64(i), strings.Repeat("w", 40)}
	}
	// the expected numbers: partitions by key, each ordered by (text, id)
	want := map[int64]int64{}
	byPart := map[any][]int{}
	for i, r := range rows {
		byPart[r[0]] = append(byPart[r[0]], i)
	}
	for _, idx := range byPart {
		slices.SortFunc(idx, func(a, b int) int {
			if c := strings.Compare(rows[a][1].(string), rows[b][1].(string)); c != 0 {
				return c
			}
			return a - b
		})
		for k, i := range idx {
			want[int64(i)] = int64(k + 1)
		}
	}
	for _, limit := range []int64{0, 2 << 20} {
		qs := &exec.QueryStats{}
		ctx := exec.WithQueryStats(context.Background(), qs)
		mem := memory.NewMemory(memory.NewMemoryPool(limit), 0)
		w := &Window{Env: env, Input: newRowsOp(wst, rows, 1000), PartitionBy: []int{0},
			OrderBy: []order.SortKey{{Col: 1}, {Col: 2}}, Funcs: []WindowFunc{{Kind: WinRowNumber}}, Mem: mem}
		seen := 0
		var prevPart any = int64(-1)
		err := exec.Drain(ctx, w, func(b *vec.Batch) error {
			for i := 0; i < b.N; i++ {
				id, rn := b.Vecs[2].I64[i], b.Vecs[4].I64[i]
				if want[id] != rn {
					return fmt.Errorf("row %d numbered %d, want %d", id, rn, want[id])
				}
				var p any
				if !b.Vecs[0].IsNull(i) {
					p = b.Vecs[0].I64[i]
				}
				if p != prevPart {
					if prevPart == nil || (p != nil && p.(int64) < prevPart.(int64)) {
						return fmt.Errorf("partition %v after %v", p, prevPart)
					}
					prevPart = p
				}
				seen++
			}
			return nil
		})
		if err != nil {
			t.Fatalf("limit %d: %v", limit, err)
		}
		if seen != n {
			t.Fatalf("limit %d: %d rows, want %d", limit, seen, n)
		}
		if limit > 0 && qs.SpillFiles() == 0 {
			t.Fatal("did not spill under a 2 MiB pool")
		}
		w.Close()
	}
	if n := spillFilesLeft(t, sp); n != 0 {
		t.Fatalf("%d spill files left", n)
	}
}

// TestWindowAggStateCounted: a windowed string_agg's state, which holds
// every value of its frame, is counted against the memory budget as it
// grows, past the budget when it must (a state can neither spill nor be
// given up), and given back when the function is done. A window over one
// partition whose rows and state together outgrow the budget still
// answers.
func TestWindowAggStateCounted(t *testing.T) {
	testSpill(t, 0)
	sa := Agg{Kind: AggStringAgg, Arg: 2, Arg2: 3, In: types.TextT, Out: types.TextT}
	val := strings.Repeat("x", 4095)

	// the state alone, under a pool of 512 KiB
	mem := memory.NewMemory(memory.NewMemoryPool(512<<10), 0)
	fn, _, _, err := newFrameAgg(sa)
	if err != nil {
		t.Fatal(err)
	}
	fm := newFrameMem(mem, fn)
	update := fm.counted(fn, fn.update)
	v, d := vec.New(types.TextT, 256), vec.New(types.TextT, 256)
	for i := 0; i < 256; i++ {
		v.AppendString(val)
		d.AppendString(",")
	}
	rows := make([]int32, 256)
	for i := range rows {
		rows[i] = int32(i)
	}
	if err := update(&aggIn{rows: rows, all: true, gids: make([]int32, 256), v: v, v2: d}); err != nil {
		t.Fatal(err)
	}
	if mem.Used() < 1<<20 || mem.ActivePool().Used() < 1<<20 {
		t.Fatalf("a 1 MiB state: %d bytes counted (pool %d)", mem.Used(), mem.ActivePool().Used())
	}
	fm.res.Release()
	if mem.Used() != 0 || mem.ActivePool().Used() != 0 {
		t.Fatalf("after release: %d bytes counted (pool %d)", mem.Used(), mem.ActivePool().Used())
	}

	// a window over 1 MiB of rows, with the whole partition as the frame
	ts := []types.T{types.Int64T, types.Int64T, types.TextT, types.TextT}
	var in [][]any
	for i := 0; i < 256; i++ {
		in = append(in, []any{int64(1), int64(i), val, ","})
	}
	whole := Frame{Mode: FrameRows, Start: FrameBound{Kind: BoundUnboundedPreceding}, End: FrameBound{Kind: BoundUnboundedFollowing}}
	mem = memory.NewMemory(memory.NewMemoryPool(2<<20), 0)
	w := &Window{Env: env, Input: newRowsOp(ts, in, 100), PartitionBy: []int{0}, OrderBy: []order.SortKey{{Col: 1}},
		Funcs: []WindowFunc{{Kind: WinAgg, Agg: sa, Frame: whole}}, Mem: mem}
	n := 0
	err = exec.Drain(context.Background(), w, func(b *vec.Batch) error {
		for i := 0; i < b.N; i++ {
			if got := len(b.Vecs[4].S[i]); got != 256*4096-1 {
				return fmt.Errorf("row %d: string_agg of %d bytes, want %d", n, got, 256*4096-1)
			}
			n++
		}
		return nil
	})
	w.Close()
	if err != nil || n != len(in) {
		t.Fatalf("%d rows, %v", n, err)
	}
	if mem.Used() != 0 || mem.ActivePool().Used() != 0 {
		t.Errorf("%d bytes still reserved (pool %d)", mem.Used(), mem.ActivePool().Used())
	}
}
