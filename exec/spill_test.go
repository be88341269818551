package exec

import (
	"context"
	"math/rand"
	"os"
	"slices"
	"testing"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
)

// testSpill points GlobalSpill at a fresh directory for one test and
// returns the space; the old one comes back when the test ends.
func testSpill(t *testing.T, maxBytes int64) *SpillSpace {
	t.Helper()
	old := GlobalSpill
	sp := &SpillSpace{base: t.TempDir()}
	if err := sp.Configure("", maxBytes); err != nil {
		t.Fatal(err)
	}
	GlobalSpill = sp
	t.Cleanup(func() { GlobalSpill = old })
	return sp
}

// spillFilesLeft counts the files in the space's directory.
func spillFilesLeft(t *testing.T, sp *SpillSpace) int {
	t.Helper()
	dir, err := sp.Dir()
	if err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

func collectCtx(t *testing.T, ctx context.Context, op Operator) []string {
	t.Helper()
	var out []string
	err := Drain(ctx, op, func(b *vec.Batch) error {
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
		qs := &QueryStats{}
		ctx := WithQueryStats(context.Background(), qs)
		mem := NewMemory(NewMemoryPool(1<<20), 0)
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

// cancelAfter cancels its context once n batches have passed through.
type cancelAfter struct {
	Operator
	n      int
	cancel func()
}

func (c *cancelAfter) Next(ctx context.Context) (*vec.Batch, error) {
	if c.n--; c.n == 0 {
		c.cancel()
	}
	return c.Operator.Next(ctx)
}

func TestSortSpillCancelRemovesFiles(t *testing.T) {
	sp := testSpill(t, 0)
	rng := rand.New(rand.NewSource(6))
	rows := sortRows(rng, 40000)
	qs := &QueryStats{}
	ctx, cancel := context.WithCancel(WithQueryStats(context.Background(), qs))
	defer cancel()
	in := &cancelAfter{Operator: newRowsOp(sortTypes, rows, 500), n: 60, cancel: cancel}
	s := &Sort{Input: in, Keys: []SortKey{{Col: 2}}, Mem: NewMemory(NewMemoryPool(1<<20), 0)}
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
	s := &Sort{Input: newRowsOp(sortTypes, sortRows(rng, 60000), 500), Keys: []SortKey{{Col: 2}}, Mem: NewMemory(NewMemoryPool(1<<20), 0)}
	defer s.Close()
	_, err := s.Next(context.Background())
	if err == nil || !isOutOfMemory(err) {
		t.Fatalf("want 53200 when temp space runs out, got %v", err)
	}
}

func isOutOfMemory(err error) bool { return pgerr.Code(err) == OutOfMemory }
