package exec

import (
	"context"
	"strings"
	"testing"

	"github.com/lakepg/lakepg/exec/memory"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// recursiveRows runs WITH RECURSIVE t(k, s) AS (n base rows UNION [ALL]
// SELECT k + step, s FROM t WHERE k < bound), the base rows' keys
// 0..n-1 with dup copies each, under a pool of limit bytes (0: none).
func recursiveRows(t *testing.T, n, dup int, step, bound int64, all bool, limit int64) ([]string, int64, error) {
	t.Helper()
	ts := []types.T{types.Int64T, types.TextT}
	var base [][]any
	for i := 0; i < n; i++ {
		for d := 0; d < dup; d++ {
			base = append(base, []any{int64(i), strings.Repeat("y", 40)})
		}
	}
	work := &WorkTable{T: ts}
	mem := memory.NewMemory(memory.NewMemoryPool(limit), 0)
	r := &RecursiveUnion{Base: newRowsOp(ts, base, 1000), Work: work, All: all, Mem: mem,
		Step: func() (Operator, error) {
			f := &Filter{Env: env, Input: &WorkTableScan{W: work},
				Pred: &Cmp{Op: LT, L: col(0, types.Int64T), R: NewConst(ints(types.Int64T, bound))}}
			return &Project{Env: env, Input: f, Exprs: []Expr{
				&Arith{Op: '+', L: col(0, types.Int64T), R: NewConst(ints(types.Int64T, step)), T: types.Int64T},
				col(1, types.TextT)}}, nil
		}}
	qs := &QueryStats{}
	ctx := WithQueryStats(context.Background(), qs)
	var got []string
	var err error
	for {
		b, e := r.Next(ctx)
		if e != nil || b == nil {
			err = e
			break
		}
		for i := 0; i < b.N; i++ {
			got = append(got, rowText(b, i))
		}
	}
	if e := r.Close(); e != nil {
		t.Fatal(e)
	}
	if mem.Used() != 0 {
		t.Fatalf("%d bytes still reserved after Close", mem.Used())
	}
	return got, qs.SpillFiles(), err
}

// TestRecursiveUnionSpills: a work table bigger than the pool goes to a
// file, and UNION's set of rows produced, once its map is full, keeps the
// rest in files by hash, against which each iteration's rows are checked
// at its end: the answers are those of the run without a limit.
func TestRecursiveUnionSpills(t *testing.T) {
	sp := testSpill(t, 0)
	for _, all := range []bool{true, false} {
		want, files, err := recursiveRows(t, 20000, 1, 20000, 100000, all, 0)
		if err != nil || files != 0 {
			t.Fatalf("without a limit: %v, %d files", err, files)
		}
		if len(want) != 20000*6 {
			t.Fatalf("%d rows, want %d", len(want), 20000*6)
		}
		got, files, err := recursiveRows(t, 20000, 1, 20000, 100000, all, 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		if files < 5 {
			t.Fatalf("all=%v: %d spill files under a 1 MiB pool; want one per iteration at least", all, files)
		}
		sameRows(t, "UNION ALL", got, want)
		if n := spillFilesLeft(t, sp); n != 0 || sp.Used() != 0 {
			t.Fatalf("%d spill files left, %d bytes held", n, sp.Used())
		}
	}
	// UNION drops the base's duplicates and the rows an iteration makes
	// again (k+3 of one row is k of another), in memory and from files
	want, _, err := recursiveRows(t, 3000, 2, 3, 6000, false, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(want) != 6003 {
		t.Fatalf("UNION: %d rows, want 6003", len(want))
	}
	got, files, err := recursiveRows(t, 3000, 2, 3, 6000, false, 256<<10)
	if err != nil {
		t.Fatal(err)
	}
	if files == 0 {
		t.Fatal("UNION of 6,003 rows under 256 KiB: no spill file")
	}
	sameRows(t, "UNION", got, want)
	if n := spillFilesLeft(t, sp); n != 0 || sp.Used() != 0 {
		t.Fatalf("%d spill files left, %d bytes held", n, sp.Used())
	}
}

// TestRecursiveUnionSpillCancelRemovesFiles: a recursion cancelled after
// its set of rows produced went to files removes them on Close.
func TestRecursiveUnionSpillCancelRemovesFiles(t *testing.T) {
	sp := testSpill(t, 0)
	ts := []types.T{types.Int64T, types.TextT}
	var base [][]any
	for i := 0; i < 40000; i++ {
		base = append(base, []any{int64(i), strings.Repeat("y", 40)})
	}
	qs := &QueryStats{}
	ctx, cancel := context.WithCancel(WithQueryStats(context.Background(), qs))
	defer cancel()
	work := &WorkTable{T: ts}
	r := &RecursiveUnion{Base: &cancelAfter{Operator: newRowsOp(ts, base, 1000), N: 30, Cancel: cancel}, Work: work,
		Mem:  memory.NewMemory(memory.NewMemoryPool(256<<10), 0),
		Step: func() (Operator, error) { return &WorkTableScan{W: work}, nil }}
	var err error
	for err == nil {
		var b *vec.Batch
		b, err = r.Next(ctx)
		if b == nil && err == nil {
			t.Fatal("the recursion ended before it was cancelled")
		}
	}
	if pgerr.Code(err) != pgerr.QueryCanceled {
		t.Fatalf("want cancellation, got %v", err)
	}
	if qs.SpillFiles() == 0 || spillFilesLeft(t, sp) == 0 {
		t.Fatal("the recursion did not spill before it was cancelled")
	}
	r.Close()
	if n := spillFilesLeft(t, sp); n != 0 || sp.Used() != 0 {
		t.Fatalf("after cancel and Close: %d spill files, %d bytes held", n, sp.Used())
	}
}
