package order

import (
	"context"
	"math/rand"
	"runtime"
	"slices"
	"testing"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/memory"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

func TestSortSpills(t *testing.T) {
	sp := testSpill(t, 0)
	rng := rand.New(rand.NewSource(5))
	rows := sortRows(rng, 40000)
	for _, keys := range [][]SortKey{
		{{Col: 2}, {Col: 0, Desc: true}},
		{{Col: 4, NullsFirst: true}, {Col: 1}},
		{{Col: 0}}, // few distinct keys: ties must keep input order across runs
	} {
		want := refSort(t, rows, keys, 0)
		qs := &exec.QueryStats{}
		ctx := exec.WithQueryStats(context.Background(), qs)
		mem := memory.NewMemory(memory.NewMemoryPool(1<<20), 0)
		s := &Sort{Input: newRowsOp(sortTypes, rows, 500), Keys: keys, Mem: mem}
		got := collectCtx(t, ctx, s)
		if qs.SpillFiles() < 2 || qs.SpillBytes() == 0 {
			t.Fatalf("keys %+v: spilled %d files, %d bytes; want runs on disk", keys, qs.SpillFiles(), qs.SpillBytes())
		}
		if !slices.Equal(got, want) {
			t.Fatalf("keys %+v: spilled sort differs from the in-memory order (%d rows, want %d)", keys, len(got), len(want))
		}
		s.Close()
		if n := spillFilesLeft(t, sp); n != 0 || sp.Used() != 0 {
			t.Fatalf("after Close: %d spill files, %d bytes of temp space held", n, sp.Used())
		}
		if mem.Used() != 0 {
			t.Fatalf("memory not returned: %d", mem.Used())
		}
	}
}

func TestSortSpillCancelRemovesFiles(t *testing.T) {
	sp := testSpill(t, 0)
	rng := rand.New(rand.NewSource(6))
	rows := sortRows(rng, 40000)
	qs := &exec.QueryStats{}
	ctx, cancel := context.WithCancel(exec.WithQueryStats(context.Background(), qs))
	defer cancel()
	in := &cancelAfter{Operator: newRowsOp(sortTypes, rows, 500), N: 60, Cancel: cancel}
	s := &Sort{Input: in, Keys: []SortKey{{Col: 2}}, Mem: memory.NewMemory(memory.NewMemoryPool(1<<20), 0)}
	_, err := s.Next(ctx)
	if pgerr.Code(err) != pgerr.QueryCanceled {
		t.Fatalf("want cancellation, got %v", err)
	}
	if qs.SpillFiles() == 0 {
		t.Fatal("the sort did not spill before it was cancelled")
	}
	if spillFilesLeft(t, sp) == 0 {
		t.Fatal("no spill file on disk before Close")
	}
	s.Close()
	if n := spillFilesLeft(t, sp); n != 0 || sp.Used() != 0 {
		t.Fatalf("after cancel and Close: %d spill files, %d bytes held", n, sp.Used())
	}
}

func TestSortTempSpaceExhausted(t *testing.T) {
	testSpill(t, 1<<20)
	rng := rand.New(rand.NewSource(7))
	s := &Sort{Input: newRowsOp(sortTypes, sortRows(rng, 60000), 500), Keys: []SortKey{{Col: 2}}, Mem: memory.NewMemory(memory.NewMemoryPool(1<<20), 0)}
	defer s.Close()
	_, err := s.Next(context.Background())
	if err == nil || !isOutOfMemory(err) {
		t.Fatalf("want 53200 when temp space runs out, got %v", err)
	}
}

func isOutOfMemory(err error) bool { return pgerr.Code(err) == memory.OutOfMemory }

// TestSpillBlockRoundTrip: every storage kind, with and without NULLs,
// comes back from a block as it went in.
func TestSpillBlockRoundTrip(t *testing.T) {
	ts := []types.T{types.Int64T, types.Float64T, types.BoolT, types.IntervalT, types.TextT, types.ByteaT}
	rows := [][]any{
		{int64(-5), 1.5, true, types.IntervalValue{Months: 1, Days: -2, Micros: 3}, "a\x00b", "\xff"},
		{nil, nil, nil, nil, nil, nil},
		{int64(1 << 62), -0.25, false, types.IntervalValue{Micros: -1}, "", ""},
	}
	in := newRowsOp(ts, rows, 10)
	b, err := in.Next(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := collect(t, newRowsOp(ts, rows, 10))
	blk := memory.AppendBlock(nil, b.Vecs, 0, b.N)
	blk = memory.AppendByteStrings(blk, [][]byte{[]byte("k1"), nil, []byte("k3")})
	d := memory.NewBlockDecoder(ts)
	rest, err := d.Decode(blk)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for i := 0; i < d.B.N; i++ {
		got = append(got, rowText(&d.B, i))
	}
	if !slices.Equal(got, want) {
		t.Fatalf("round trip: %q, want %q", got, want)
	}
	arena, offs, rest, err := memory.DecodeByteStrings(rest, 3, nil, nil)
	if err != nil || len(rest) != 0 || string(arena[offs[0]:offs[1]]) != "k1" || offs[2] != offs[1] || string(arena[offs[2]:offs[3]]) != "k3" {
		t.Fatalf("keys: %q %v %v (rest %d)", arena, offs, err, len(rest))
	}
	if _, err := d.Decode(blk[:len(blk)/2]); !isOutOfMemory(err) {
		t.Fatalf("a truncated block: %v, want the corrupt temp file error", err)
	}
}

// TestSortSpillRunsSideBySide: with two processors a big buffer is written
// as two runs sorted side by side; the merge still gives the in-memory
// order, ties in input order.
func TestSortSpillRunsSideBySide(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	testSpill(t, 0)
	rng := rand.New(rand.NewSource(9))
	rows := sortRows(rng, 120000)
	for _, keys := range [][]SortKey{{{Col: 0}}, {{Col: 2}, {Col: 0, Desc: true}}} {
		want := refSort(t, rows, keys, 0)
		ctx := exec.WithQueryStats(context.Background(), &exec.QueryStats{})
		s := &Sort{Input: newRowsOp(sortTypes, rows, 1000), Keys: keys, Mem: memory.NewMemory(memory.NewMemoryPool(12<<20), 0)}
		got := collectCtx(t, ctx, s)
		if s.splitRuns == 0 {
			t.Fatalf("keys %+v: no buffer was written as runs side by side", keys)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("keys %+v: spilled sort differs from the in-memory order", keys)
		}
		s.Close()
	}
}

// TestSortMergesRunsInPasses: when a quarter of the pool has no room to
// merge every run at once, runs are first merged a few at a time into
// longer ones; the order is the in-memory one, ties in input order, and no
// file is left.
func TestSortMergesRunsInPasses(t *testing.T) {
	sp := testSpill(t, 0)
	rng := rand.New(rand.NewSource(11))
	rows := sortRows(rng, 120000)
	for _, keys := range [][]SortKey{{{Col: 0}}, {{Col: 2}, {Col: 0, Desc: true}}} {
		want := refSort(t, rows, keys, 0)
		mem := memory.NewMemory(memory.NewMemoryPool(3<<20), 0)
		s := &Sort{Input: newRowsOp(sortTypes, rows, 500), Keys: keys, Mem: mem}
		got := collectCtx(t, exec.WithQueryStats(context.Background(), &exec.QueryStats{}), s)
		if s.mergePasses == 0 {
			t.Fatalf("keys %+v: every run merged at once", keys)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("keys %+v: sort merged in passes differs from the in-memory order (%d rows, want %d)", keys, len(got), len(want))
		}
		s.Close()
		if n := spillFilesLeft(t, sp); n != 0 || sp.Used() != 0 || mem.Used() != 0 {
			t.Fatalf("after Close: %d spill files, %d bytes of temp space, %d bytes of memory held", n, sp.Used(), mem.Used())
		}
	}
}
