package order

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/memory"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// workerRows is a WorkerSource over rows dealt out to workers in blocks of
// 300 (so that every worker gets rows from all over the input), each
// worker's share read by its own goroutine as a Parallel's would be.
type workerRows struct {
	ts      []types.T
	parts   [][][]any
	wrap    func(w int, op exec.Operator) exec.Operator
	started bool
}

func newWorkerRows(ts []types.T, rows [][]any, workers int) *workerRows {
	wr := &workerRows{ts: ts, parts: make([][][]any, workers)}
	for i := 0; i < len(rows); i += 300 {
		w := (i / 300) % workers
		wr.parts[w] = append(wr.parts[w], rows[i:min(i+300, len(rows))]...)
	}
	return wr
}

func (wr *workerRows) Types() []types.T { return wr.ts }
func (wr *workerRows) Close() error     { return nil }
func (wr *workerRows) NumWorkers() int  { return len(wr.parts) }
func (wr *workerRows) Next(ctx context.Context) (*vec.Batch, error) {
	panic("workerRows is read worker by worker")
}

func (wr *workerRows) Run(ctx context.Context, fn func(ctx context.Context, w int, op exec.Operator) error) error {
	wr.started = true
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var first error
	var once sync.Once
	var wg sync.WaitGroup
	for w, part := range wr.parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var op exec.Operator = newRowsOp(wr.ts, part, 250)
			if wr.wrap != nil {
				op = wr.wrap(w, op)
			}
			if err := exec.Guard(func() error { return fn(ctx, w, op) }); err != nil {
				once.Do(func() { first = err; cancel() })
			}
		}()
	}
	wg.Wait()
	return first
}

// byNumber maps rows of sortTypes as collect returns them back to the
// source rows, by the row number in their last column.
func byNumber(t *testing.T, got []string, rows [][]any) [][]any {
	out := make([][]any, len(got))
	for i, r := range got {
		n, err := strconv.Atoi(r[strings.LastIndexByte(r, '|')+1:])
		if err != nil {
			t.Fatalf("row %q: %v", r, err)
		}
		out[i] = rows[n]
	}
	return out
}

// sameKeys reports whether rows a[i] and b[i] have equal keys for every i
// (by CompareKeys: text of ±0 or of decimals of other scales may differ).
func sameKeys(t *testing.T, a, b [][]any, keys []SortKey) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) == 0 {
		return true
	}
	bt, err := newRowsOp(sortTypes, append(slices.Clone(a), b...), 2*len(a)).Next(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for i := range a {
		if CompareKeys(bt, keys, i, len(a)+i) != 0 {
			return false
		}
	}
	return true
}

// TestParallelSortMatchesSerial sorts random rows (NULLs, DESC, NULLS
// FIRST/LAST, text with NUL and 0xff bytes, decimals of mixed scales) read
// by several workers, in memory and spilled, against the serial order.
// With the row number as the last key there are no ties and the order must
// be the same row for row; without it rows of equal keys may come in any
// order, so the keys must match position by position and the rows as a
// set.
func TestParallelSortMatchesSerial(t *testing.T) {
	sp := testSpill(t, 0)
	rng := rand.New(rand.NewSource(23))
	for _, n := range []int{0, 1, 17, 3*vec.BatchSize + 5, 40000} {
		rows := sortRows(rng, n)
		for trial := 0; trial < 6; trial++ {
			var keys []SortKey
			for _, c := range rng.Perm(6)[:1+rng.Intn(3)] {
				keys = append(keys, SortKey{Col: c, Desc: rng.Intn(2) == 0, NullsFirst: rng.Intn(2) == 0})
			}
			total := append(slices.Clone(keys), SortKey{Col: 6})
			for _, spill := range []bool{false, true} {
				if spill && n < 10000 {
					continue
				}
				workers := 2 + trial%3
				for _, ks := range [][]SortKey{total, keys} {
					name := fmt.Sprintf("n=%d workers=%d keys=%+v spill=%v", n, workers, ks, spill)
					qs := &exec.QueryStats{}
					ctx := exec.WithQueryStats(context.Background(), qs)
					var mem *memory.Memory
					if spill {
						mem = memory.NewMemory(memory.NewMemoryPool(1<<20), 0)
					}
					in := newWorkerRows(sortTypes, rows, workers)
					s := &Sort{Input: in, Keys: ks, Mem: mem}
					got := collectCtx(t, ctx, s)
					if !in.started {
						t.Fatalf("%s: the sort did not read its input worker by worker", name)
					}
					if spill && qs.SpillFiles() < 2 {
						t.Fatalf("%s: %d spill files, want runs on disk", name, qs.SpillFiles())
					}
					if !spill && qs.SpillFiles() != 0 {
						t.Fatalf("%s: spilled %d files without a memory limit", name, qs.SpillFiles())
					}
					want := refSort(t, rows, ks, 0)
					if len(ks) == len(total) {
						if !slices.Equal(got, want) {
							t.Fatalf("%s: order differs from the serial sort (%d rows, want %d)", name, len(got), len(want))
						}
					} else {
						if !sameKeys(t, byNumber(t, got, rows), byNumber(t, want, rows), ks) {
							t.Fatalf("%s: keys out of order", name)
						}
						sameRows(t, name, got, want)
					}
					s.Close()
					if mem != nil && mem.Used() != 0 {
						t.Fatalf("%s: memory not returned: %d", name, mem.Used())
					}
					if k := spillFilesLeft(t, sp); k != 0 || sp.Used() != 0 {
						t.Fatalf("%s: after Close: %d spill files, %d bytes of temp space held", name, k, sp.Used())
					}
				}
			}
		}
	}
}

// TestParallelSortTiesLimit reads the first rows of a parallel sort with
// many ties, as a LIMIT above it does, and closes it early: the rows taken
// are the first by key (which of the tied rows is free), and closing
// returns the memory and the spill files.
func TestParallelSortTiesLimit(t *testing.T) {
	sp := testSpill(t, 0)
	rng := rand.New(rand.NewSource(29))
	rows := sortRows(rng, 30000)
	keys := []SortKey{{Col: 0, Desc: true, NullsFirst: true}, {Col: 3}}
	want := refSort(t, rows, keys, 0)
	for _, spill := range []bool{false, true} {
		for _, limit := range []int{1, 10, 5000} {
			qs := &exec.QueryStats{}
			ctx := exec.WithQueryStats(context.Background(), qs)
			mem := memory.NewMemory(memory.NewMemoryPool(1<<30), 0)
			if spill {
				mem = memory.NewMemory(memory.NewMemoryPool(1<<20), 0)
			}
			s := &Sort{Input: newWorkerRows(sortTypes, rows, 3), Keys: keys, Mem: mem}
			l := &exec.Limit{Input: s, Count: int64(limit)}
			got := collectCtx(t, ctx, l)
			if len(got) != limit {
				t.Fatalf("limit %d: %d rows", limit, len(got))
			}
			if !sameKeys(t, byNumber(t, got, rows), byNumber(t, want[:limit], rows), keys) {
				t.Fatalf("spill=%v limit %d: the first rows' keys differ from the serial sort's", spill, limit)
			}
			if spill != (qs.SpillFiles() > 0) {
				t.Fatalf("spill=%v: %d spill files", spill, qs.SpillFiles())
			}
			l.Close()
			if mem.Used() != 0 {
				t.Fatalf("spill=%v limit %d: memory not returned: %d", spill, limit, mem.Used())
			}
			if k := spillFilesLeft(t, sp); k != 0 {
				t.Fatalf("spill=%v limit %d: %d spill files left", spill, limit, k)
			}
		}
	}
}

// TestParallelSortCancelRemovesFiles cancels a parallel sort while its
// workers are spilling: it fails with 57014 and Close leaves no temp file.
func TestParallelSortCancelRemovesFiles(t *testing.T) {
	sp := testSpill(t, 0)
	rng := rand.New(rand.NewSource(31))
	rows := sortRows(rng, 60000)
	qs := &exec.QueryStats{}
	ctx, cancel := context.WithCancel(exec.WithQueryStats(context.Background(), qs))
	defer cancel()
	in := newWorkerRows(sortTypes, rows, 2)
	var once sync.Mutex
	in.wrap = func(w int, op exec.Operator) exec.Operator {
		if w != 1 {
			return op
		}
		// cancel once this worker's rows are well past the first runs
		return &cancelAfter{Operator: op, N: 100, Cancel: func() { once.Lock(); cancel(); once.Unlock() }}
	}
	mem := memory.NewMemory(memory.NewMemoryPool(1<<20), 0)
	s := &Sort{Input: in, Keys: []SortKey{{Col: 2}}, Mem: mem}
	_, err := s.Next(ctx)
	if pgerr.Code(err) != pgerr.QueryCanceled {
		t.Fatalf("want cancellation, got %v", err)
	}
	if qs.SpillFiles() == 0 {
		t.Fatal("the sort did not spill before it was cancelled")
	}
	s.Close()
	if k := spillFilesLeft(t, sp); k != 0 || sp.Used() != 0 {
		t.Fatalf("after cancel and Close: %d spill files, %d bytes held", k, sp.Used())
	}
	if mem.Used() != 0 {
		t.Fatalf("memory not returned: %d", mem.Used())
	}
}
