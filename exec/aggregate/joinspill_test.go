package aggregate

import (
	"context"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/memory"
	"github.com/lakepg/lakepg/exec/order"
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

// TestWorkMemSpillsEarly: with a per-operator budget in the context (the
// session's work_mem) a sort, an aggregation, a join and a window spill at
// that budget although the pool has room, and answer as without it.
func TestWorkMemSpillsEarly(t *testing.T) {
	sp := testSpill(t, 0)
	rng := rand.New(rand.NewSource(31))
	rows := joinSpillRows(rng, 40000, 30000)
	R := joinSpillRows(rng, 30000, 30000)
	ops := map[string]func() exec.Operator{
		"sort": func() exec.Operator {
			return &order.Sort{Input: newRowsOp(jst, rows, 1000), Keys: []order.SortKey{{Col: 3}, {Col: 2}}}
		},
		"group by": func() exec.Operator {
			return &HashAgg{Input: newRowsOp(jst, rows, 1000), NGroup: 2, Aggs: []Agg{mkAgg(t, AggSum, 2, types.Int64T)}}
		},
		"join": func() exec.Operator {
			return &exec.HashJoin{Env: env, Left: newRowsOp(jst, rows, 1000), Right: newRowsOp(jst, R, 1000),
				LeftKeys: []exec.Expr{col(1, types.TextT)}, RightKeys: []exec.Expr{col(1, types.TextT)}, Type: exec.JoinFull}
		},
		"window": func() exec.Operator {
			return &Window{Env: env, Input: newRowsOp(jst, rows, 1000), PartitionBy: []int{0}, OrderBy: []order.SortKey{{Col: 2}, {Col: 3}},
				Funcs: []WindowFunc{{Kind: WinRowNumber}, {Kind: WinAgg, Agg: mkAgg(t, AggSum, 2, types.Int64T)}}}
		},
	}
	for name, mk := range ops {
		run := func(workMem int64) ([]string, int64) {
			qs := &exec.QueryStats{}
			ctx := memory.WithWorkMem(exec.WithQueryStats(context.Background(), qs), workMem)
			op := mk()
			got := collectCtx(t, ctx, op)
			op.Close()
			return got, qs.SpillFiles()
		}
		want, files := run(0)
		if files != 0 {
			t.Fatalf("%s: spilled without work_mem", name)
		}
		got, files := run(1 << 20)
		if files == 0 {
			t.Fatalf("%s: did not spill with work_mem = 1MB", name)
		}
		if name == "group by" || name == "join" {
			sameRows(t, name, got, want)
		} else if !slices.Equal(got, want) {
			t.Fatalf("%s: with work_mem the rows differ from the in-memory ones", name)
		}
		if n := spillFilesLeft(t, sp); n != 0 {
			t.Fatalf("%s: %d spill files left", name, n)
		}
	}
}
