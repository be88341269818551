package exec_test

import (
	"context"
	"slices"
	"testing"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/exectest"
	"github.com/lakepg/lakepg/exec/memory"
	"github.com/lakepg/lakepg/exec/order"
)

// Sorting is package order's, above this one: its test over real scans
// is an external test here, where the scan fixture is.

// TestParallelSortOverScan sorts a real parallel scan (morsels, deletion
// files) and compares with the serial sort of the same scan.
func TestParallelSortOverScan(t *testing.T) {
	sp := exectest.UseSpill(t, 0)
	store, files, live := exec.ScanFixture(t, 3, 5000, 700)
	keys := []order.SortKey{{Col: 2, NullsFirst: true}, {Col: 0, Desc: true}}
	serial := &order.Sort{Input: exec.NewFixtureScan(store, files), Keys: keys}
	want := exectest.Collect(t, serial)
	serial.Close()
	if len(want) != live {
		t.Fatalf("serial sort: %d rows, want %d", len(want), live)
	}
	for _, limit := range []int64{1 << 30, 1 << 20} {
		qs := &exec.QueryStats{}
		ctx := exec.WithQueryStats(context.Background(), qs)
		p := &exec.Parallel{Scan: exec.NewFixtureScan(store, files), Workers: 3}
		s := &order.Sort{Input: p, Keys: keys, Mem: memory.NewMemory(memory.NewMemoryPool(limit), 0)}
		got := exectest.CollectCtx(t, ctx, s)
		if !slices.Equal(got, want) {
			t.Fatalf("pool %d: parallel sort differs from the serial one (%d rows, want %d)", limit, len(got), len(want))
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if k := exectest.SpillFilesLeft(t, sp); k != 0 {
			t.Fatalf("pool %d: %d spill files left", limit, k)
		}
	}
}
