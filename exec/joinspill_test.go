package exec

import (
	"context"
	"fmt"
	"math/rand"
	"strings"
	"sync"
	"testing"

	"github.com/lakepg/lakepg/exec/joinspill"
	"github.com/lakepg/lakepg/exec/memory"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// joinSpillRows makes n rows of (int key, text key, int payload, text
// padding) with NULL keys and duplicates; the padding makes the build side
// big without making the output huge.
func joinSpillRows(rng *rand.Rand, n, keyRange int) [][]any {
	rows := randRows(rng, n, keyRange, 0.05)
	for i, r := range rows {
		rows[i] = append(r, strings.Repeat("x", 20+rng.Intn(20)))
	}
	return rows
}

var jst = []types.T{types.Int64T, types.TextT, types.Int64T, types.TextT}

// spillJoin runs one join, its build side under a pool of limit bytes (0:
// unlimited), and returns its rows and how many spill files it made.
func spillJoin(t *testing.T, L, R [][]any, typ JoinType, keys []int, extra Expr, limit int64) ([]string, int64) {
	t.Helper()
	var lk, rk []Expr
	for _, k := range keys {
		lk = append(lk, col(k, jst[k]))
		rk = append(rk, col(k, jst[k]))
	}
	qs := &QueryStats{}
	ctx := WithQueryStats(context.Background(), qs)
	mem := memory.NewMemory(memory.NewMemoryPool(limit), 0)
	j := &HashJoin{Env: env, Left: newRowsOp(jst, L, 1000), Right: newRowsOp(jst, R, 1000),
		LeftKeys: lk, RightKeys: rk, Type: typ, Extra: extra, Mem: mem}
	got := collectCtx(t, ctx, j)
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	if mem.Used() != 0 {
		t.Fatalf("%s: %d bytes still reserved after Close", typ, mem.Used())
	}
	return got, qs.SpillFiles()
}

// TestHashJoinSpillsAllTypes: every join type, on an integer key, a text
// key and both, with and without a residual condition, under a pool far
// smaller than the build side, gives exactly the rows of the same join
// without a limit, and leaves no file behind.
func TestHashJoinSpillsAllTypes(t *testing.T) {
	sp := testSpill(t, 0)
	rng := rand.New(rand.NewSource(11))
	L := joinSpillRows(rng, 15000, 10000)
	R := joinSpillRows(rng, 20000, 10000)
	// l.payload % 3 <> r.payload % 3, over left ++ right
	extra := &Cmp{Op: NE,
		L: &Arith{Op: '%', L: col(2, types.Int64T), R: NewConst(ints(types.Int64T, 3)), T: types.Int64T},
		R: &Arith{Op: '%', L: col(6, types.Int64T), R: NewConst(ints(types.Int64T, 3)), T: types.Int64T}}
	for _, keys := range [][]int{{0}, {1}, {0, 1}} {
		for _, typ := range allJoinTypes {
			for _, ex := range []Expr{nil, extra} {
				name := fmt.Sprintf("keys%v/%s/extra=%v", keys, typ, ex != nil)
				want, files := spillJoin(t, L, R, typ, keys, ex, 0)
				if files != 0 {
					t.Fatalf("%s: spilled without a limit", name)
				}
				got, files := spillJoin(t, L, R, typ, keys, ex, 1<<20)
				if files == 0 {
					t.Fatalf("%s: did not spill under a 1 MiB pool", name)
				}
				sameRows(t, name, got, want)
				if n := spillFilesLeft(t, sp); n != 0 || sp.Used() != 0 {
					t.Fatalf("%s: %d spill files, %d bytes of temp space left", name, n, sp.Used())
				}
			}
		}
	}
}

// TestNotInSpillNullSemantics: NOT IN keeps its NULL rules when its build
// side spills: a NULL in the subquery rejects every row, a NULL probe key is
// rejected by any subquery row and kept only when the subquery is empty.
func TestNotInSpillNullSemantics(t *testing.T) {
	testSpill(t, 0)
	rng := rand.New(rand.NewSource(12))
	L := joinSpillRows(rng, 5000, 40000)
	R := joinSpillRows(rng, 30000, 40000)
	withNull := func(rows [][]any, null bool) [][]any {
		out := make([][]any, 0, len(rows))
		for _, r := range rows {
			c := append([]any{}, r...)
			if c[0] == nil && !null {
				c[0] = int64(-1)
			}
			out = append(out, c)
		}
		return out
	}
	Rn, Rnn := withNull(R, true), withNull(R, false)
	Ln := withNull(L, true)
	cases := []struct {
		name     string
		l, r     [][]any
		wantNone bool
	}{
		{"NULL in subquery", Ln, Rn, true},
		{"no NULL in subquery, NULL probe keys", Ln, Rnn, false},
	}
	for _, c := range cases {
		want, _ := spillJoin(t, c.l, c.r, JoinAntiNullAware, []int{0}, nil, 0)
		got, files := spillJoin(t, c.l, c.r, JoinAntiNullAware, []int{0}, nil, 1<<20)
		if files == 0 {
			t.Fatalf("%s: did not spill", c.name)
		}
		if c.wantNone != (len(want) == 0) {
			t.Fatalf("%s: reference has %d rows", c.name, len(want))
		}
		sameRows(t, c.name, got, want)
		for _, row := range got {
			if strings.HasPrefix(row, "NULL|") {
				t.Fatalf("%s: a NULL probe key qualified against a non-empty subquery", c.name)
			}
		}
	}
	// an empty subquery keeps every row, NULL keys too: nothing to spill,
	// but the chunk join's last pass decides it when the build spilled
	// nothing
	got, _ := spillJoin(t, Ln, nil, JoinAntiNullAware, []int{0}, nil, 1<<20)
	if len(got) != len(Ln) {
		t.Fatalf("NOT IN (empty): %d rows, want %d", len(got), len(Ln))
	}
}

// TestHashJoinSpillsRecursively: a build side many times the pool spills
// partitions that are still too big, which are partitioned again.
func TestHashJoinSpillsRecursively(t *testing.T) {
	sp := testSpill(t, 0)
	rng := rand.New(rand.NewSource(13))
	L := joinSpillRows(rng, 20000, 1<<30)
	R := joinSpillRows(rng, 250000, 1<<30)
	for i := range L {
		L[i][0] = R[rng.Intn(len(R))][0] // matches
	}
	for _, typ := range []JoinType{JoinInner, JoinFull, JoinRightAnti} {
		want, _ := spillJoin(t, L, R, typ, []int{0}, nil, 0)
		got, files := spillJoin(t, L, R, typ, []int{0}, nil, 1<<20)
		if files <= 2*joinspill.Partitions {
			t.Fatalf("%s: %d spill files; want partitions of partitions", typ, files)
		}
		sameRows(t, typ.String(), got, want)
	}
	if n := spillFilesLeft(t, sp); n != 0 {
		t.Fatalf("%d spill files left", n)
	}
}

// TestHashJoinSpillGiantKey: a key with more build rows than memory cannot
// be split by hashing; its partition is joined by chunks.
func TestHashJoinSpillGiantKey(t *testing.T) {
	sp := testSpill(t, 0)
	rng := rand.New(rand.NewSource(14))
	L := joinSpillRows(rng, 3000, 500)
	R := joinSpillRows(rng, 40000, 500)
	for i, r := range R {
		if i%4 != 0 {
			r[0] = int64(7)
		}
	}
	for i, r := range L {
		if i%300 == 0 {
			r[0] = int64(7)
		}
	}
	extra := &Cmp{Op: NE,
		L: &Arith{Op: '%', L: col(2, types.Int64T), R: NewConst(ints(types.Int64T, 3)), T: types.Int64T},
		R: &Arith{Op: '%', L: col(6, types.Int64T), R: NewConst(ints(types.Int64T, 3)), T: types.Int64T}}
	for _, typ := range allJoinTypes {
		for _, ex := range []Expr{nil, extra} {
			name := fmt.Sprintf("%s/extra=%v", typ, ex != nil)
			want, _ := spillJoin(t, L, R, typ, []int{0}, ex, 0)
			got, files := spillJoin(t, L, R, typ, []int{0}, ex, 1<<20)
			if files == 0 {
				t.Fatalf("%s: did not spill", name)
			}
			sameRows(t, name, got, want)
		}
	}
	if n := spillFilesLeft(t, sp); n != 0 {
		t.Fatalf("%d spill files left", n)
	}
}

// TestHashJoinSpillCancelRemovesFiles: a join cancelled while it writes its
// probe side to disk removes every file on Close.
func TestHashJoinSpillCancelRemovesFiles(t *testing.T) {
	sp := testSpill(t, 0)
	rng := rand.New(rand.NewSource(15))
	L := joinSpillRows(rng, 60000, 20000)
	R := joinSpillRows(rng, 30000, 20000)
	qs := &QueryStats{}
	ctx, cancel := context.WithCancel(WithQueryStats(context.Background(), qs))
	defer cancel()
	left := &cancelAfter{Operator: newRowsOp(jst, L, 500), N: 60, Cancel: cancel}
	j := &HashJoin{Env: env, Left: left, Right: newRowsOp(jst, R, 500), LeftKeys: []Expr{col(1, types.TextT)},
		RightKeys: []Expr{col(1, types.TextT)}, Type: JoinFull, Mem: memory.NewMemory(memory.NewMemoryPool(1<<20), 0)}
	_, err := j.Next(ctx)
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

// TestSharedHashJoinSpills: parallel probes of one shared build side that
// spilled each write their rows to the shared partitions; the last one joins
// them, and the union is the in-memory answer.
func TestSharedHashJoinSpills(t *testing.T) {
	sp := testSpill(t, 0)
	rng := rand.New(rand.NewSource(16))
	L := joinSpillRows(rng, 30000, 20000)
	R := joinSpillRows(rng, 30000, 20000)
	for _, typ := range []JoinType{JoinInner, JoinLeft, JoinSemi, JoinAnti, JoinAntiNullAware, JoinRightSemi, JoinRightAnti} {
		want, _ := spillJoin(t, L, R, typ, []int{1}, nil, 0)
		qs := &QueryStats{}
		ctx := WithQueryStats(context.Background(), qs)
		mem := memory.NewMemory(memory.NewMemoryPool(1<<20), 0)
		sb := &SharedBuild{Env: env, Right: newRowsOp(jst, R, 1000), RightKeys: []Expr{col(1, types.TextT)}, KeyTypes: []types.T{types.TextT}, Mem: mem, Probes: 3}
		var mu sync.Mutex
		var got []string
		var wg sync.WaitGroup
		joins := make([]*HashJoin, 3)
		errs := make([]error, 3)
		for w := range joins {
			joins[w] = &HashJoin{Env: env, Left: newRowsOp(jst, L[w*10000:(w+1)*10000], 700), LeftKeys: []Expr{col(1, types.TextT)}, Type: typ, Shared: sb, Mem: mem}
			wg.Add(1)
			go func(j *HashJoin, w int) {
				defer wg.Done()
				errs[w] = Drain(ctx, j, func(b *vec.Batch) error {
					mu.Lock()
					defer mu.Unlock()
					for i := 0; i < b.N; i++ {
						got = append(got, rowText(b, i))
					}
					return nil
				})
			}(joins[w], w)
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				t.Fatalf("%s: %v", typ, err)
			}
		}
		if qs.SpillFiles() == 0 {
			t.Fatalf("%s: the shared build did not spill", typ)
		}
		sameRows(t, "shared "+typ.String(), got, want)
		for _, j := range joins {
			j.Close()
		}
		if n := spillFilesLeft(t, sp); n != 0 || mem.Used() != 0 {
			t.Fatalf("%s: %d spill files, %d bytes of memory left", typ, n, mem.Used())
		}
	}
}

// TestHashJoinSpillUnderFullPool: a join whose pool another holder has
// filled to the spilling share (a WITH query's rows, temporary tables)
// spills at its first batch, and its partitions' joins get the floor:
// they are joined in memory after one level (the partition of the NULL
// keys, 5 % of the rows, after two), where without it each spilled again
// at its first batch until partitions held a row or two (thousands of
// files). The answers are the in-memory ones.
func TestHashJoinSpillUnderFullPool(t *testing.T) {
	sp := testSpill(t, 0)
	rng := rand.New(rand.NewSource(17))
	L := joinSpillRows(rng, 20000, 40000)
	R := joinSpillRows(rng, 30000, 40000)
	const limit = 8 << 20
	for _, typ := range []JoinType{JoinInner, JoinFull, JoinAnti, JoinAntiNullAware, JoinRightSemi} {
		want, _ := spillJoin(t, L, R, typ, []int{1}, nil, 0)
		pool, other := fullPool(t, limit)
		qs := &QueryStats{}
		ctx := WithQueryStats(context.Background(), qs)
		mem := memory.NewMemory(pool, 0)
		j := &HashJoin{Env: env, Left: newRowsOp(jst, L, 1000), Right: newRowsOp(jst, R, 1000),
			LeftKeys: []Expr{col(1, types.TextT)}, RightKeys: []Expr{col(1, types.TextT)}, Type: typ, Mem: mem}
		got := collectCtx(t, ctx, j)
		j.Close()
		sameRows(t, typ.String(), got, want)
		if f := qs.SpillFiles(); f == 0 || (typ != JoinAntiNullAware && f > 4*joinspill.Partitions) {
			t.Errorf("%s: %d spill files; want two levels of partitions at most, %d files", typ, f, 4*joinspill.Partitions)
		}
		if mem.Used() != 0 || pool.Used() != limit-limit/8 {
			t.Fatalf("%s: %d bytes still reserved, pool %d", typ, mem.Used(), pool.Used())
		}
		other.Close()
	}
	if n := spillFilesLeft(t, sp); n != 0 {
		t.Fatalf("%d spill files left", n)
	}
}

// fullPool is a memory pool of limit bytes that other, another holder,
// has filled to 7/8, the share spilling operators leave to others.
func fullPool(t *testing.T, limit int64) (pool *memory.MemoryPool, other *memory.Memory) {
	t.Helper()
	pool = memory.NewMemoryPool(limit)
	other = memory.NewMemory(pool, 0)
	if err := other.Grow(limit - limit/8); err != nil {
		t.Fatal(err)
	}
	return pool, other
}
