package exec

import (
	"context"
	"fmt"
	"math/rand"
	"testing"

	"github.com/lakepg/lakepg/exec/memory"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// spillNLJoin runs one nested-loop join, its right side under a pool of
// limit bytes (0: unlimited), and returns its rows and how many spill files
// it made.
func spillNLJoin(t *testing.T, L, R [][]any, typ JoinType, on Expr, limit int64) ([]string, int64) {
	t.Helper()
	qs := &QueryStats{}
	ctx := WithQueryStats(context.Background(), qs)
	mem := memory.NewMemory(memory.NewMemoryPool(limit), 0)
	j := &NestedLoopJoin{Env: env, Left: newRowsOp(jst, L, 700), Right: newRowsOp(jst, R, 1000), On: on, Type: typ, Mem: mem}
	got := collectCtx(t, ctx, j)
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	if mem.Used() != 0 {
		t.Fatalf("%s: %d bytes still reserved after Close", typ, mem.Used())
	}
	return got, qs.SpillFiles()
}

// TestNestedLoopJoinSpillsAllTypes: every join type, with a condition that
// is NULL for NULL keys and one without, and without a condition where the
// output stays small, under a pool far smaller than the right side, gives
// exactly the rows of the same join without a limit, and leaves no file.
func TestNestedLoopJoinSpillsAllTypes(t *testing.T) {
	sp := testSpill(t, 0)
	rng := rand.New(rand.NewSource(21))
	L := joinSpillRows(rng, 250, 3000)
	R := joinSpillRows(rng, 30000, 3000)
	mod3 := func(c int) Expr {
		return &Arith{Op: '%', L: col(c, types.Int64T), R: NewConst(ints(types.Int64T, 3)), T: types.Int64T}
	}
	// l.k = r.k and l.payload % 3 <> r.payload % 3; l.k < r.k - 2990
	eqNe := &Logic{And: true, Args: []Expr{&Cmp{Op: EQ, L: col(0, types.Int64T), R: col(4, types.Int64T)}, &Cmp{Op: NE, L: mod3(2), R: mod3(6)}}}
	less := &Cmp{Op: LT, L: col(0, types.Int64T),
		R: &Arith{Op: '-', L: col(4, types.Int64T), R: NewConst(ints(types.Int64T, 2990)), T: types.Int64T}}
	ons := []struct {
		name string
		on   Expr
	}{{"eq-ne", eqNe}, {"less", less}, {"none", nil}}
	for _, o := range ons {
		for _, typ := range allJoinTypes {
			if o.on == nil && !typ.leftOnly() && !typ.rightOnly() {
				continue // every pair: too many rows for a test
			}
			name := fmt.Sprintf("%s/%s", o.name, typ)
			want, files := spillNLJoin(t, L, R, typ, o.on, 0)
			if files != 0 {
				t.Fatalf("%s: spilled without a limit", name)
			}
			got, files := spillNLJoin(t, L, R, typ, o.on, 1<<20)
			if files < 2 {
				t.Fatalf("%s: %d spill files under a 1 MiB pool; want the right side's and the left side's", name, files)
			}
			sameRows(t, name, got, want)
			if n := spillFilesLeft(t, sp); n != 0 || sp.Used() != 0 {
				t.Fatalf("%s: %d spill files left, %d bytes held", name, n, sp.Used())
			}
		}
	}
}

// TestNestedLoopJoinNotInSpillNulls: NOT IN by nested loop keeps its NULL
// rules by chunks: a NULL in the subquery rejects every row (the NULL may
// be in any chunk), a NULL left value is rejected by any subquery row.
func TestNestedLoopJoinNotInSpillNulls(t *testing.T) {
	testSpill(t, 0)
	rng := rand.New(rand.NewSource(22))
	L := joinSpillRows(rng, 300, 40000)
	R := joinSpillRows(rng, 30000, 40000)
	noNull := make([][]any, 0, len(R))
	for _, r := range R {
		c := append([]any{}, r...)
		if c[0] == nil {
			c[0] = int64(-1)
		}
		noNull = append(noNull, c)
	}
	lastNull := append(append([][]any{}, noNull...), []any{nil, "x", int64(1), "y"})
	on := &Cmp{Op: EQ, L: col(0, types.Int64T), R: col(4, types.Int64T)}
	for _, c := range []struct {
		name     string
		r        [][]any
		wantNone bool
	}{{"NULL in the last chunk", lastNull, true}, {"no NULL", noNull, false}} {
		want, _ := spillNLJoin(t, L, c.r, JoinAntiNullAware, on, 0)
		got, files := spillNLJoin(t, L, c.r, JoinAntiNullAware, on, 1<<20)
		if files == 0 {
			t.Fatalf("%s: did not spill", c.name)
		}
		if c.wantNone != (len(want) == 0) {
			t.Fatalf("%s: reference has %d rows", c.name, len(want))
		}
		sameRows(t, c.name, got, want)
	}
}

// TestNestedLoopJoinSpillOneChunk: a right side that spilled while other
// reservations held the pool, then fits once they are gone, is joined as
// one chunk with the left side streamed, not written to a file.
func TestNestedLoopJoinSpillOneChunk(t *testing.T) {
	testSpill(t, 0)
	rng := rand.New(rand.NewSource(23))
	L := joinSpillRows(rng, 400, 3000)
	R := joinSpillRows(rng, 12000, 3000)
	on := &Cmp{Op: EQ, L: col(0, types.Int64T), R: col(4, types.Int64T)}
	want, _ := spillNLJoin(t, L, R, JoinLeft, on, 0)
	qs := &QueryStats{}
	ctx := WithQueryStats(context.Background(), qs)
	mem := memory.NewMemory(memory.NewMemoryPool(4<<20), 0)
	var other memory.Reservation
	other.Mem = mem
	if err := other.Grow(3 << 20); err != nil {
		t.Fatal(err)
	}
	release := &releaseAfter{Operator: newRowsOp(jst, R, 1000), res: &other}
	j := &NestedLoopJoin{Env: env, Left: newRowsOp(jst, L, 700), Right: release, On: on, Type: JoinLeft, Mem: mem}
	got := collectCtx(t, ctx, j)
	j.Close()
	if qs.SpillFiles() != 1 {
		t.Fatalf("%d spill files; want the right side's alone", qs.SpillFiles())
	}
	sameRows(t, "one chunk", got, want)
}

// releaseAfter gives a reservation back when its input ends.
type releaseAfter struct {
	Operator
	res *memory.Reservation
}

func (r *releaseAfter) Next(ctx context.Context) (*vec.Batch, error) {
	b, err := r.Operator.Next(ctx)
	if b == nil && err == nil {
		r.res.Release()
	}
	return b, err
}

// TestNestedLoopJoinSpillCancelRemovesFiles: a join cancelled while it
// streams its left side past a chunk removes every file on Close.
func TestNestedLoopJoinSpillCancelRemovesFiles(t *testing.T) {
	sp := testSpill(t, 0)
	rng := rand.New(rand.NewSource(24))
	L := joinSpillRows(rng, 5000, 3000)
	R := joinSpillRows(rng, 30000, 3000)
	qs := &QueryStats{}
	ctx, cancel := context.WithCancel(WithQueryStats(context.Background(), qs))
	defer cancel()
	left := &cancelAfter{Operator: newRowsOp(jst, L, 500), N: 5, Cancel: cancel}
	on := &Cmp{Op: LT, L: col(0, types.Int64T), R: col(4, types.Int64T)}
	j := &NestedLoopJoin{Env: env, Left: left, Right: newRowsOp(jst, R, 500), On: on, Type: JoinFull,
		Mem: memory.NewMemory(memory.NewMemoryPool(1<<20), 0)}
	var err error
	for err == nil {
		var b *vec.Batch
		b, err = j.Next(ctx)
		if b == nil && err == nil {
			t.Fatal("the join ended before it was cancelled")
		}
	}
	if pgerr.Code(err) != pgerr.QueryCanceled {
		t.Fatalf("want cancellation, got %v", err)
	}
	if qs.SpillFiles() == 0 || spillFilesLeft(t, sp) == 0 {
		t.Fatal("the join did not spill before it was cancelled")
	}
	j.Close()
	if n := spillFilesLeft(t, sp); n != 0 || sp.Used() != 0 {
		t.Fatalf("after cancel and Close: %d spill files, %d bytes held", n, sp.Used())
	}
}
