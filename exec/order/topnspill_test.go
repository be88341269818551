package order

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/memory"
	"github.com/lakepg/lakepg/pgerr"
)

// TestTopNSpills: a top-N whose heap outgrows the budget becomes the
// external sort and sends the first Limit rows of the merge: the same rows
// in the same order (ties in input order) as in memory.
func TestTopNSpills(t *testing.T) {
	sp := testSpill(t, 0)
	rng := rand.New(rand.NewSource(15))
	rows := sortRows(rng, 40000)
	for _, keys := range [][]SortKey{
		{{Col: 2}, {Col: 0, Desc: true}},
		{{Col: 4, NullsFirst: true}, {Col: 1}},
		{{Col: 0}}, // few distinct keys: ties keep input order across the heap's run and the rest
	} {
		for _, limit := range []int64{30000, 39999, 50000} {
			name := fmt.Sprintf("keys %+v limit %d", keys, limit)
			want := refSort(t, rows, keys, int(limit))
			qs := &exec.QueryStats{}
			ctx := exec.WithQueryStats(context.Background(), qs)
			mem := memory.NewMemory(memory.NewMemoryPool(1<<20), 0)
			s := &Sort{Input: newRowsOp(sortTypes, rows, 500), Keys: keys, Limit: limit, Mem: mem}
			got := collectCtx(t, ctx, s)
			if qs.SpillFiles() < 2 || qs.SpillBytes() == 0 {
				t.Fatalf("%s: spilled %d files, %d bytes; want runs on disk", name, qs.SpillFiles(), qs.SpillBytes())
			}
			if !slices.Equal(got, want) {
				t.Fatalf("%s: spilled top-N differs from the in-memory one (%d rows, want %d)", name, len(got), len(want))
			}
			s.Close()
			if n := spillFilesLeft(t, sp); n != 0 || sp.Used() != 0 || mem.Used() != 0 {
				t.Fatalf("%s: after Close: %d spill files, %d temp bytes, %d memory bytes held", name, n, sp.Used(), mem.Used())
			}
		}
	}
}

// TestTopNSpillEarlyClose: a spilled top-N closed after its first batch,
// or cancelled while it buffers, leaves no file.
func TestTopNSpillEarlyClose(t *testing.T) {
	sp := testSpill(t, 0)
	rng := rand.New(rand.NewSource(16))
	rows := sortRows(rng, 40000)
	for _, cancelIt := range []bool{false, true} {
		qs := &exec.QueryStats{}
		ctx, cancel := context.WithCancel(exec.WithQueryStats(context.Background(), qs))
		var in exec.Operator = newRowsOp(sortTypes, rows, 500)
		if cancelIt {
			in = &cancelAfter{Operator: in, N: 70, Cancel: cancel}
		}
		s := &Sort{Input: in, Keys: []SortKey{{Col: 2}}, Limit: 35000, Mem: memory.NewMemory(memory.NewMemoryPool(1<<20), 0)}
		_, err := s.Next(ctx)
		switch {
		case cancelIt && pgerr.Code(err) != pgerr.QueryCanceled:
			t.Fatalf("want cancellation, got %v", err)
		case !cancelIt && err != nil:
			t.Fatal(err)
		}
		if qs.SpillFiles() == 0 {
			t.Fatalf("cancel=%v: the top-N did not spill", cancelIt)
		}
		s.Close()
		cancel()
		if n := spillFilesLeft(t, sp); n != 0 || sp.Used() != 0 {
			t.Fatalf("cancel=%v: after Close: %d spill files, %d bytes held", cancelIt, n, sp.Used())
		}
	}
}
