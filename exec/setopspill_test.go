package exec

import (
	"context"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/lakepg/lakepg/exec/joinspill"
	"github.com/lakepg/lakepg/exec/memory"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

var sst = []types.T{types.Int64T, types.TextT}

// setOpRows makes n rows of (key, text of the key) for keys below
// keyRange, some NULL: equal keys make equal rows, so rows repeat.
func setOpRows(rng *rand.Rand, n, keyRange int) [][]any {
	rows := make([][]any, n)
	for i := range rows {
		k := rng.Intn(keyRange)
		var kv any = int64(k)
		if k%97 == 0 {
			kv = nil
		}
		rows[i] = []any{kv, fmt.Sprintf("%c%s", 'a'+k%7, strings.Repeat("x", 30+k%40))}
	}
	return rows
}

// setOpWant is the set operation's answer by counting rows.
func setOpWant(L, R [][]any, intersect, all bool) []string {
	cl, cr := map[string]int{}, map[string]int{}
	for _, r := range L {
		cl[fmtRow(r...)]++
	}
	for _, r := range R {
		cr[fmtRow(r...)]++
	}
	var out []string
	for k, l := range cl {
		r := cr[k]
		n := 0
		switch {
		case intersect && all:
			n = min(l, r)
		case intersect && r > 0:
			n = 1
		case !intersect && all:
			n = max(l-r, 0)
		case !intersect && r == 0:
			n = 1
		}
		for ; n > 0; n-- {
			out = append(out, k)
		}
	}
	return out
}

func runSetOp(t *testing.T, L, R [][]any, intersect, all bool, limit int64) ([]string, int64) {
	t.Helper()
	qs := &QueryStats{}
	ctx := WithQueryStats(context.Background(), qs)
	mem := memory.NewMemory(memory.NewMemoryPool(limit), 0)
	s := &SetOp{Left: newRowsOp(sst, L, 1000), Right: newRowsOp(sst, R, 1000), Intersect: intersect, All: all, Mem: mem}
	got := collectCtx(t, ctx, s)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if mem.Used() != 0 {
		t.Fatalf("%d bytes still reserved after Close", mem.Used())
	}
	return got, qs.SpillFiles()
}

// TestSetOpSpills: INTERSECT and EXCEPT, with and without ALL, give the
// counted answer without a limit and under a pool far smaller than their
// keys — whether the right side's keys or EXCEPT's own left keys outgrow
// it — spilling to files that are gone after Close.
func TestSetOpSpills(t *testing.T) {
	sp := testSpill(t, 0)
	rng := rand.New(rand.NewSource(31))
	cases := []struct {
		name string
		L, R [][]any
	}{
		{"big right", setOpRows(rng, 20000, 30000), setOpRows(rng, 60000, 30000)},
		{"big left", setOpRows(rng, 60000, 40000), setOpRows(rng, 2000, 40000)},
	}
	for _, c := range cases {
		for _, intersect := range []bool{true, false} {
			for _, all := range []bool{false, true} {
				name := fmt.Sprintf("%s/intersect=%v/all=%v", c.name, intersect, all)
				want := setOpWant(c.L, c.R, intersect, all)
				got, files := runSetOp(t, c.L, c.R, intersect, all, 0)
				if files != 0 {
					t.Fatalf("%s: spilled without a limit", name)
				}
				sameRows(t, name+" (memory)", got, want)
				got, files = runSetOp(t, c.L, c.R, intersect, all, 1<<20)
				// EXCEPT ALL and INTERSECT keep nothing of a big left
				// side's own keys
				if files == 0 && (c.name == "big right" || (!intersect && !all)) {
					t.Fatalf("%s: did not spill under a 1 MiB pool", name)
				}
				sameRows(t, name, got, want)
				if n := spillFilesLeft(t, sp); n != 0 || sp.Used() != 0 {
					t.Fatalf("%s: %d spill files left, %d bytes held", name, n, sp.Used())
				}
			}
		}
	}
}

// TestSetOpSpillsRecursively: a right side many times the pool spills
// partitions that are split again.
func TestSetOpSpillsRecursively(t *testing.T) {
	sp := testSpill(t, 0)
	rng := rand.New(rand.NewSource(32))
	L := setOpRows(rng, 30000, 1<<30)
	R := setOpRows(rng, 150000, 1<<30)
	copy(L[:10000], R[:10000])
	want := setOpWant(L, R, false, true)
	got, files := runSetOp(t, L, R, false, true, 1<<20)
	if files <= joinspill.Partitions {
		t.Fatalf("%d spill files; want partitions of partitions", files)
	}
	sameRows(t, "EXCEPT ALL", got, want)
	if n := spillFilesLeft(t, sp); n != 0 {
		t.Fatalf("%d spill files left", n)
	}
}

// TestSetOpSpillCancelRemovesFiles: a set operation cancelled while it
// writes its rows to files removes them on Close.
func TestSetOpSpillCancelRemovesFiles(t *testing.T) {
	sp := testSpill(t, 0)
	rng := rand.New(rand.NewSource(33))
	L := setOpRows(rng, 60000, 1<<30)
	R := setOpRows(rng, 60000, 1<<30)
	qs := &QueryStats{}
	ctx, cancel := context.WithCancel(WithQueryStats(context.Background(), qs))
	defer cancel()
	left := &cancelAfter{Operator: newRowsOp(sst, L, 500), N: 20, Cancel: cancel}
	s := &SetOp{Left: left, Right: newRowsOp(sst, R, 500), Intersect: true, Mem: memory.NewMemory(memory.NewMemoryPool(1<<20), 0)}
	var err error
	for err == nil {
		var b *vec.Batch
		b, err = s.Next(ctx)
		if b == nil && err == nil {
			t.Fatal("the set operation ended before it was cancelled")
		}
	}
	if pgerr.Code(err) != pgerr.QueryCanceled {
		t.Fatalf("want cancellation, got %v", err)
	}
	if qs.SpillFiles() == 0 || spillFilesLeft(t, sp) == 0 {
		t.Fatal("the set operation did not spill before it was cancelled")
	}
	s.Close()
	if n := spillFilesLeft(t, sp); n != 0 || sp.Used() != 0 {
		t.Fatalf("after cancel and Close: %d spill files, %d bytes held", n, sp.Used())
	}
}

// TestSetOpSpillUnderFullPool: a set operation whose pool another holder
// has filled to the spilling share answers its partitions with the floor
// a hash join's partitions have: two levels of files at most, where
// without it each pair spilled again at its first key.
func TestSetOpSpillUnderFullPool(t *testing.T) {
	sp := testSpill(t, 0)
	rng := rand.New(rand.NewSource(33))
	L := setOpRows(rng, 20000, 30000)
	R := setOpRows(rng, 30000, 30000)
	const limit = 8 << 20
	for _, intersect := range []bool{true, false} {
		for _, all := range []bool{false, true} {
			name := fmt.Sprintf("intersect=%v/all=%v", intersect, all)
			pool, other := fullPool(t, limit)
			qs := &QueryStats{}
			ctx := WithQueryStats(context.Background(), qs)
			s := &SetOp{Left: newRowsOp(sst, L, 1000), Right: newRowsOp(sst, R, 1000), Intersect: intersect, All: all, Mem: memory.NewMemory(pool, 0)}
			got := collectCtx(t, ctx, s)
			s.Close()
			sameRows(t, name, got, setOpWant(L, R, intersect, all))
			if f := qs.SpillFiles(); f == 0 || f > 4*joinspill.Partitions {
				t.Errorf("%s: %d spill files; want two levels of partitions at most, %d files", name, f, 4*joinspill.Partitions)
			}
			other.Close()
			if pool.Used() != 0 {
				t.Fatalf("%s: pool holds %d after Close", name, pool.Used())
			}
		}
	}
	if n := spillFilesLeft(t, sp); n != 0 {
		t.Fatalf("%d spill files left", n)
	}
}
