package exec

import (
	"context"
	"strings"
	"testing"

	"github.com/lakepg/lakepg/exec/memory"
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

// TestRecursiveUnionSpillsWorkTable: a work table bigger than the pool goes
// to a file, with the answer of the run without a limit; UNION's set of
// rows seen is counted, and a query whose set outgrows the budget fails
// with 53200.
func TestRecursiveUnionSpillsWorkTable(t *testing.T) {
	sp := testSpill(t, 0)
	want, files, err := recursiveRows(t, 20000, 1, 20000, 100000, true, 0)
	if err != nil || files != 0 {
		t.Fatalf("without a limit: %v, %d files", err, files)
	}
	if len(want) != 20000*6 {
		t.Fatalf("%d rows, want %d", len(want), 20000*6)
	}
	got, files, err := recursiveRows(t, 20000, 1, 20000, 100000, true, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if files < 5 {
		t.Fatalf("%d spill files under a 1 MiB pool; want one per iteration", files)
	}
	sameRows(t, "UNION ALL", got, want)
	if n := spillFilesLeft(t, sp); n != 0 || sp.Used() != 0 {
		t.Fatalf("%d spill files left, %d bytes held", n, sp.Used())
	}
	// UNION drops the base's duplicates and the rows an iteration makes
	// again (k+3 of one row is k of another)
	want, _, err = recursiveRows(t, 3000, 2, 3, 6000, false, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(want) != 6003 {
		t.Fatalf("UNION: %d rows, want 6003", len(want))
	}
	got, _, err = recursiveRows(t, 3000, 2, 3, 6000, false, 4<<20)
	if err != nil {
		t.Fatal(err)
	}
	sameRows(t, "UNION", got, want)
	_, _, err = recursiveRows(t, 20000, 1, 20000, 100000, false, 1<<20)
	if pgerr.Code(err) != memory.OutOfMemory {
		t.Fatalf("UNION's set of 120,000 rows under 1 MiB: %v, want 53200", err)
	}
}
