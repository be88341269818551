package aggregate

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/memory"
	"github.com/lakepg/lakepg/exec/order"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// pagedRows makes n rows of (partition, text, order int, float, date,
// padding, filter bool, small offset, delimiter) with NULLs, ties and a few
// NaNs; parts <= 1 puts every row in partition 1.
func pagedRows(rng *rand.Rand, n, parts int) [][]any {
	rows := make([][]any, n)
	for i := range rows {
		var p any = int64(1)
		if parts > 1 {
			p = int64(rng.Intn(parts))
			if rng.Intn(10) < 6 {
				p = int64(0) // one partition far bigger than the others
			}
		}
		var s any = fmt.Sprintf("s%d", rng.Intn(500))
		if rng.Intn(30) == 0 {
			s = nil
		}
		var o any = int64(rng.Intn(n / 3))
		if rng.Intn(40) == 0 {
			o = nil
		}
		var f any = float64(rng.Intn(n/4)) / 4
		switch rng.Intn(60) {
		case 0:
			f = nil
		case 1:
			f = math.NaN()
		}
		var d any = int64(rng.Intn(n / 5))
		if rng.Intn(50) == 0 {
			d = nil
		}
		var k any = int64(1 + rng.Intn(5))
		if rng.Intn(40) == 0 {
			k = nil
		}
		rows[i] = []any{p, s, o, f, d, strings.Repeat("p", 10+rng.Intn(10)), rng.Intn(3) > 0, k, ","}
	}
	return rows
}

var pagedTypes = []types.T{types.Int64T, types.TextT, types.Int64T, types.Float64T, types.DateT, types.TextT, types.BoolT, types.Int64T, types.TextT}

func rows(s, e FrameBound) Frame   { return Frame{Mode: FrameRows, Start: s, End: e} }
func rng(s, e FrameBound) Frame    { return Frame{Mode: FrameRange, Start: s, End: e} }
func groups(s, e FrameBound) Frame { return Frame{Mode: FrameGroups, Start: s, End: e} }

var (
	unbPre = FrameBound{Kind: BoundUnboundedPreceding}
	unbFol = FrameBound{Kind: BoundUnboundedFollowing}
	curRow = FrameBound{Kind: BoundCurrentRow}
)

func preN(n int64) FrameBound { return FrameBound{Kind: BoundPreceding, Offset: n} }
func folN(n int64) FrameBound { return FrameBound{Kind: BoundFollowing, Offset: n} }

// pagedFuncs are window functions of every kind over every frame kind,
// with rangeCol's RANGE offsets given by rpre and rfol.
func pagedFuncs(t *testing.T, rpre, rfol FrameBound) []WindowFunc {
	sum := mkAgg(t, AggSum, 2, types.Int64T)
	minT := mkAgg(t, AggMin, 1, types.TextT)
	maxF := mkAgg(t, AggMax, 3, types.Float64T)
	avg := mkAgg(t, AggAvg, 2, types.Int64T)
	cnt := mkAgg(t, AggCountStar, 0, types.Int64T)
	cntF := mkAgg(t, AggCount, 1, types.TextT)
	cntF.Filter = FilterColumn(6)
	sumF := sum
	sumF.Filter = FilterColumn(6)
	sagg := mkAgg(t, AggStringAgg, 1, types.TextT)
	sagg.Arg2 = 8
	ex := func(f Frame, e FrameExclude) Frame { f.Exclude = e; return f }
	return []WindowFunc{
		{Kind: WinRowNumber},
		{Kind: WinRank},
		{Kind: WinDenseRank},
		{Kind: WinPercentRank},
		{Kind: WinCumeDist},
		{Kind: WinNtile, Args: []int{7}},
		{Kind: WinLag, Args: []int{1}},
		{Kind: WinLead, Args: []int{2, 7, 4}},
		{Kind: WinLag, Args: []int{3, 7}},
		{Kind: WinFirstValue, Args: []int{1}},
		{Kind: WinLastValue, Args: []int{1}},
		{Kind: WinNthValue, Args: []int{2, 7}, Frame: rows(preN(3), folN(3))},
		{Kind: WinFirstValue, Args: []int{2}, Frame: rows(preN(2), folN(1))},
		{Kind: WinLastValue, Args: []int{1}, Frame: groups(preN(1), folN(2))},
		{Kind: WinLastValue, Args: []int{4}, Frame: rng(rpre, rfol)},
		{Kind: WinFirstValue, Args: []int{1}, Frame: ex(rows(preN(1), folN(1)), ExcludeCurrentRow)},
		{Kind: WinNthValue, Args: []int{1, 7}, Frame: ex(groups(preN(1), folN(1)), ExcludeTies)},
		{Kind: WinLastValue, Args: []int{3}, Frame: rows(unbPre, unbFol)},
		{Kind: WinAgg, Agg: sum},
		{Kind: WinAgg, Agg: sum, Frame: rows(preN(2), folN(1))},
		{Kind: WinAgg, Agg: sum, Frame: rows(folN(1), folN(40))},
		{Kind: WinAgg, Agg: sum, Frame: rows(curRow, unbFol)},
		{Kind: WinAgg, Agg: sum, Frame: rows(unbPre, unbFol)},
		{Kind: WinAgg, Agg: avg, Frame: groups(preN(2), folN(1))},
		{Kind: WinAgg, Agg: avg, Frame: rng(rpre, rfol)},
		{Kind: WinAgg, Agg: cnt, Frame: rng(rpre, curRow)},
		{Kind: WinAgg, Agg: cnt, Frame: rng(curRow, rfol)},
		{Kind: WinAgg, Agg: minT, Frame: rows(preN(5), curRow)},
		{Kind: WinAgg, Agg: maxF, Frame: rng(rpre, rfol)},
		{Kind: WinAgg, Agg: maxF, Frame: groups(curRow, folN(3))},
		{Kind: WinAgg, Agg: cntF, Frame: rows(preN(3), folN(3))},
		{Kind: WinAgg, Agg: sumF},
		{Kind: WinAgg, Agg: sagg, Frame: rows(preN(2), curRow)},
		{Kind: WinAgg, Agg: sum, Frame: ex(rows(preN(2), folN(2)), ExcludeCurrentRow)},
		{Kind: WinAgg, Agg: sum, Frame: ex(groups(preN(1), folN(1)), ExcludeGroup)},
		{Kind: WinAgg, Agg: minT, Frame: ex(rng(rpre, rfol), ExcludeTies)},
	}
}

// TestWindowPagedMatches: a window partition many times the memory limit —
// the only one, with or without PARTITION BY, or the biggest of several —
// is computed from temp files, for every function and frame kind, and gives
// exactly the rows the window gives in memory, in the same order; its
// files are gone at the end.
func TestWindowPagedMatches(t *testing.T) {
	sp := testSpill(t, 0)
	iv := func(s string) types.IntervalValue {
		v, err := types.ParseInterval(s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	type cfg struct {
		name       string
		parts      int
		partBy     []int
		order      []order.SortKey
		rpre, rfol FrameBound
	}
	cfgs := []cfg{
		{"int order, no partition by", 1, nil, []order.SortKey{{Col: 2}}, preN(3), folN(2)},
		{"int desc nulls first, one partition", 1, []int{0}, []order.SortKey{{Col: 2, Desc: true, NullsFirst: true}}, preN(0), folN(4)},
		{"float order", 1, nil, []order.SortKey{{Col: 3, Desc: true}},
			FrameBound{Kind: BoundPreceding, OffsetF: 2.5}, FrameBound{Kind: BoundFollowing, OffsetF: 0.75}},
		{"date order", 1, nil, []order.SortKey{{Col: 4, NullsFirst: true}},
			FrameBound{Kind: BoundPreceding, OffsetIv: iv("1 mon")}, FrameBound{Kind: BoundFollowing, OffsetIv: iv("3 days")}},
		{"one big partition among small ones", 200, []int{0}, []order.SortKey{{Col: 2}}, preN(5), folN(5)},
	}
	for _, c := range cfgs {
		t.Run(c.name, func(t *testing.T) {
			rows := pagedRows(rand.New(rand.NewSource(31)), 40000, c.parts)
			funcs := pagedFuncs(t, c.rpre, c.rfol)
			run := func(limit int64) ([]string, *Window, int64) {
				qs := &exec.QueryStats{}
				ctx := exec.WithQueryStats(context.Background(), qs)
				mem := memory.NewMemory(memory.NewMemoryPool(limit), 0)
				w := &Window{Env: env, Input: newRowsOp(pagedTypes, rows, 1000), PartitionBy: c.partBy,
					OrderBy: c.order, Funcs: funcs, Mem: mem}
				got := collectCtx(t, ctx, w)
				w.Close()
				if mem.Used() != 0 {
					t.Fatalf("%d bytes still reserved after Close", mem.Used())
				}
				return got, w, qs.SpillFiles()
			}
			want, _, files := run(0)
			if files != 0 {
				t.Fatal("spilled without a limit")
			}
			got, w, files := run(4 << 20)
			if files == 0 || w.stream == nil || w.stream.pagedParts == 0 {
				t.Fatal("no partition was computed from temp files under a 4 MiB pool")
			}
			if c.parts > 1 && w.stream.chunks == 0 {
				t.Fatal("the small partitions were not computed in memory")
			}
			if len(got) != len(want) {
				t.Fatalf("%d rows, want %d", len(got), len(want))
			}
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("row %d:\n got %s\nwant %s", i, got[i], want[i])
				}
			}
			if n := spillFilesLeft(t, sp); n != 0 || sp.Used() != 0 {
				d, _ := sp.Dir()
				ents, _ := os.ReadDir(d)
				for _, e := range ents {
					t.Log(e.Name())
				}
				t.Fatalf("%d spill files, %d bytes of temp space left", n, sp.Used())
			}
		})
	}
}

// TestWindowPagedCancel: a window computing a spilled partition holds temp
// files while it runs; cancelled half way through its rows, it fails with
// 57014 and Close leaves no file.
func TestWindowPagedCancel(t *testing.T) {
	sp := testSpill(t, 0)
	rows := pagedRows(rand.New(rand.NewSource(32)), 60000, 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sum := mkAgg(t, AggSum, 2, types.Int64T)
	w := &Window{Env: env, Input: newRowsOp(pagedTypes, rows, 1000), OrderBy: []order.SortKey{{Col: 2}},
		Funcs: []WindowFunc{{Kind: WinRank}, {Kind: WinAgg, Agg: sum, Frame: rows3()}}, Mem: memory.NewMemory(memory.NewMemoryPool(4<<20), 0)}
	for i := 0; i < 3; i++ {
		b, err := w.Next(ctx)
		if err != nil || b == nil {
			t.Fatalf("batch %d: %v", i, err)
		}
	}
	if w.pg == nil || spillFilesLeft(t, sp) == 0 {
		t.Fatal("the window is not computing a partition from temp files")
	}
	cancel()
	var err error
	for err == nil {
		_, err = w.Next(ctx)
	}
	if pgerr.Code(err) != pgerr.QueryCanceled {
		t.Fatalf("want 57014, got %v", err)
	}
	w.Close()
	if n := spillFilesLeft(t, sp); n != 0 || sp.Used() != 0 {
		t.Fatalf("after cancel and Close: %d spill files, %d bytes held", n, sp.Used())
	}
}

func rows3() Frame { return rows(preN(3), curRow) }

// TestWindowNoPartitionCancelWhileSorting: a window without PARTITION BY
// over more rows than memory spills (it used to fail with 53200); cancelled
// while its rows are sorted, it leaves no file after Close.
func TestWindowNoPartitionCancelWhileSorting(t *testing.T) {
	sp := testSpill(t, 0)
	rows := pagedRows(rand.New(rand.NewSource(33)), 24000, 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	in := &cancelAfter{Operator: newRowsOp(pagedTypes, rows, 500), n: 40, cancel: cancel}
	w := &Window{Env: env, Input: in, Funcs: []WindowFunc{{Kind: WinRowNumber}}, Mem: memory.NewMemory(memory.NewMemoryPool(1<<20), 0)}
	_, err := w.Next(ctx)
	if pgerr.Code(err) != pgerr.QueryCanceled {
		t.Fatalf("want 57014, got %v", err)
	}
	if spillFilesLeft(t, sp) == 0 {
		t.Fatal("nothing was spilled before the cancel")
	}
	w.Close()
	if n := spillFilesLeft(t, sp); n != 0 || sp.Used() != 0 {
		t.Fatalf("after cancel and Close: %d spill files, %d bytes held", n, sp.Used())
	}
}

// TestWindowPagedNoOrder: without PARTITION BY or ORDER BY every row is a
// peer of every other; spilled, the rows keep their input order and each
// gets the whole input's aggregate.
func TestWindowPagedNoOrder(t *testing.T) {
	testSpill(t, 0)
	rows := pagedRows(rand.New(rand.NewSource(34)), 60000, 1)
	var total int64
	for _, r := range rows {
		if r[2] != nil {
			total += r[2].(int64)
		}
	}
	sum := mkAgg(t, AggSum, 2, types.Int64T)
	for _, limit := range []int64{0, 4 << 20} {
		w := &Window{Env: env, Input: newRowsOp(pagedTypes, rows, 1000),
			Funcs: []WindowFunc{{Kind: WinRowNumber}, {Kind: WinAgg, Agg: sum}, {Kind: WinRank}}, Mem: memory.NewMemory(memory.NewMemoryPool(limit), 0)}
		got := collectCtx(t, context.Background(), w)
		if limit > 0 && (w.stream == nil || w.stream.pagedParts != 1) {
			t.Fatal("the rows were not computed from temp files")
		}
		w.Close()
		if len(got) != len(rows) {
			t.Fatalf("%d rows, want %d", len(got), len(rows))
		}
		for i, g := range got {
			f := strings.Split(g, "|")
			want := []string{fmt.Sprint(i + 1), fmt.Sprint(total), "1"}
			if !slices.Equal(f[len(f)-3:], want) || f[5] != rows[i][5].(string) {
				t.Fatalf("limit %d row %d: %s, want input row %v then %v", limit, i, g, rows[i][5], want)
			}
		}
	}
}
