package exec

import (
	"context"
	"fmt"
	"testing"

	"github.com/lakepg/lakepg/exec/memory"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// TestSharedBuildDrainsInParallel: a shared build over a parallel scan, or
// a serial join's parallel build side, is buffered by the scan's workers
// and joined into one (drainParallel); the
// join's answer is the serial join's, for an integer key, a text key with
// NULLs and a computed key, in memory and when the build spills (the
// workers move their rows to the partitions as they meet the limit).
func TestSharedBuildDrainsInParallel(t *testing.T) {
	sp := testSpill(t, 0)
	store, files, _ := scanFixture(t, 3, 20000, 1500)
	ft := []types.T{types.Int64T, types.Int64T, types.TextT}
	var probe [][]any
	for i := 0; i < 3000; i++ {
		var s any = fmt.Sprintf("s%d", i) // s0 to s12 match
		if i%11 == 0 {
			s = nil
		}
		probe = append(probe, []any{i * 19, i % 9, s})
	}
	keys := []struct {
		name string
		key  func() Expr
	}{
		{"id", func() Expr { return col(0, types.Int64T) }},
		{"text", func() Expr { return col(2, types.TextT) }},
		{"id*3", func() Expr { return mul(col(0, types.Int64T), NewConst(ints(types.Int64T, 3))) }},
	}
	for _, k := range keys {
		for _, typ := range []JoinType{JoinInner, JoinRightAnti} {
			serial := &HashJoin{Env: env, Left: newRowsOp(ft, probe, 500), Right: newFixtureScan(store, files),
				LeftKeys: []Expr{k.key()}, RightKeys: []Expr{k.key()}, Type: typ}
			want := collect(t, serial)
			serial.Close()
			if len(want) == 0 {
				t.Fatalf("%s %s: no rows to compare", k.name, typ)
			}
			for _, limit := range []int64{0, 1 << 20, 5 << 20} {
				for _, workers := range []int{1, 3} {
					for _, shared := range []bool{true, false} {
						qs := &QueryStats{}
						ctx := WithQueryStats(context.Background(), qs)
						var mem *memory.Memory
						if limit > 0 {
							mem = memory.NewMemory(memory.NewMemoryPool(limit), 0)
						}
						right := &Parallel{Scan: newFixtureScan(store, files), Workers: workers}
						j := &HashJoin{Env: env, Left: newRowsOp(ft, probe, 500), LeftKeys: []Expr{k.key()}, Type: typ, Mem: mem}
						if shared {
							j.Shared = &SharedBuild{Env: env, Right: right, RightKeys: []Expr{k.key()}, KeyTypes: []types.T{k.key().Type()}, Mem: mem, Probes: 1}
						} else {
							// a join the planner left serial over a parallel build side
							j.Right, j.RightKeys = right, []Expr{k.key()}
						}
						var got []string
						err := Drain(ctx, j, func(b *vec.Batch) error {
							for i := 0; i < b.N; i++ {
								got = append(got, rowText(b, i))
							}
							return nil
						})
						if err != nil {
							t.Fatalf("%s %s limit %d workers %d shared %v: %v", k.name, typ, limit, workers, shared, err)
						}
						what := fmt.Sprintf("%s %s limit %d workers %d shared %v", k.name, typ, limit, workers, shared)
						if spilled := qs.SpillFiles() > 0; spilled != (limit > 0) {
							t.Fatalf("%s: spilled %v", what, spilled)
						}
						sameRows(t, what, got, want)
						if err := j.Close(); err != nil {
							t.Fatal(err)
						}
						if n := spillFilesLeft(t, sp); n != 0 || mem != nil && mem.Used() != 0 {
							t.Fatalf("%s: %d spill files, %d bytes of memory left", what, n, mem.Used())
						}
					}
				}
			}
		}
	}
}
