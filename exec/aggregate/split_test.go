package aggregate

import (
	"testing"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/memory"
	"github.com/lakepg/lakepg/types"
)

// TestSplitSource: a Parallel over an aggregation (exec.SplitSource) runs a
// filter and projection over its groups on every worker, and an outer
// aggregation over them gets the serial answer: groups of one table, of the
// partition tables of a parallel aggregation that split its tables, and of
// one that spilled (read by one worker with Next).
func TestSplitSource(t *testing.T) {
	defer func(n, m int) { radixSplitMin, radixSplitMinInts = n, m }(radixSplitMin, radixSplitMinInts)
	store, files, _ := scanFixture(t, 3, 20000, 3000)
	// inner: SELECT id % 997 AS k, s, count(*), sum(id), avg(id),
	// stddev_samp(id) [, count(DISTINCT s)] GROUP BY 1, 2; with the
	// distinct count (its states cannot be copied) the parts are emitted
	// one at a time
	distinct := false
	inner := func(parallel bool, mem *memory.Memory) *HashAgg {
		exprs := func() []exec.Expr {
			return []exec.Expr{&exec.Arith{Op: '%', L: col(0, types.Int64T), R: exec.NewConst(ints(types.Int64T, 997)), T: types.Int64T},
				col(2, types.TextT), col(0, types.Int64T)}
		}
		aggs := []Agg{mkAgg(t, AggCountStar, 0, types.Int64T), mkAgg(t, AggSum, 2, types.Int64T), mkAgg(t, AggAvg, 2, types.Int64T),
			mkAgg(t, AggStddevSamp, 2, types.Int64T)}
		if distinct {
			cd := mkAgg(t, AggCount, 1, types.TextT)
			cd.Distinct = true
			aggs = append(aggs, cd)
		}
		if parallel {
			p := &exec.Parallel{Scan: newFixtureScan(store, files), Workers: 2, Build: func(w int, src exec.Operator) exec.Operator {
				return &exec.Project{Env: env, Input: src, Exprs: exprs()}
			}}
			return &HashAgg{Input: p, NGroup: 2, Aggs: aggs, Mem: mem}
		}
		return &HashAgg{Input: &exec.Project{Env: env, Input: newFixtureScan(store, files), Exprs: exprs()}, NGroup: 2, Aggs: aggs, Mem: mem}
	}
	// above it: WHERE count > 2, projecting k and the sum, grouped again by k
	it := inner(false, nil).Types()
	chain := func(src exec.Operator) exec.Operator {
		f := &exec.Filter{Env: env, Input: src, Pred: &exec.Cmp{Op: exec.GT, L: col(2, types.Int64T), R: exec.NewConst(ints(types.Int64T, 2))}}
		return &exec.Project{Env: env, Input: f, Exprs: []exec.Expr{col(0, types.Int64T), col(3, it[3]), col(4, it[4]), col(5, it[5])}}
	}
	outer := func(in exec.Operator) *HashAgg {
		return &HashAgg{Input: in, NGroup: 1, Aggs: []Agg{mkAgg(t, AggCountStar, 0, types.Int64T), mkAgg(t, AggSum, 1, it[3]),
			mkAgg(t, AggMax, 2, it[4]), mkAgg(t, AggMin, 3, it[5])}}
	}
	for _, distinct = range []bool{false, true} {
		want := runAgg(t, outer(chain(inner(false, nil))))
		if len(want) != 997 {
			t.Fatalf("serial: %d groups, want 997", len(want))
		}
		for _, c := range []struct {
			name     string
			parallel bool
			splitMin int
			limit    int64
		}{
			{"serial inner", false, radixSplitMin, 0},
			{"one table", true, 1 << 30, 0},
			{"partition tables", true, 500, 0},
			{"spilled", true, 500, 1 << 20},
		} {
			radixSplitMin, radixSplitMinInts = c.splitMin, c.splitMin
			sp := testSpill(t, 0)
			var mem *memory.Memory
			if c.limit > 0 {
				mem = memory.NewMemory(memory.NewMemoryPool(c.limit), 0)
			}
			in := inner(c.parallel, mem)
			p := &exec.Parallel{Split: in, Workers: 3, Build: func(w int, src exec.Operator) exec.Operator { return chain(src) }}
			got := runAgg(t, outer(p))
			sameRows(t, c.name, got, want)
			if n := spillFilesLeft(t, sp); n != 0 || (mem != nil && mem.Used() != 0) {
				t.Fatalf("%s: after Close: %d spill files, %d bytes held", c.name, n, mem.Used())
			}
			if c.limit == 0 && len(in.parts) == 0 {
				t.Errorf("%s: the groups were not taken in parts", c.name)
			}
			if c.limit > 0 && len(in.parts) != 0 {
				t.Errorf("%s: a spilled aggregation was cut into %d parts", c.name, len(in.parts))
			}
		}
	}
}
