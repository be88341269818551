package aggregate

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/memory"
	"github.com/lakepg/lakepg/types"
)

// partialCase is a GROUP BY over rows (k1 int8, k2 text, i int4,
// d numeric(10,2), n numeric, f float8, r float4, s text) with NULL keys
// and arguments, computed at once, and as a partial aggregation whose
// results an aggregation above folds (as eager aggregation plans it).
type partialCase struct {
	ts    []types.T
	rows  [][]any
	aggs  []Agg // the query's
	parts []Agg // the partial aggregation's
	folds []Agg // the final one's, over the partial results
}

// The first few rows are of 100 groups only.
func newPartialCase(t *testing.T, n, groups, few int) *partialCase {
	ts := []types.T{types.Int64T, types.TextT, types.Int32T, types.NumericT(10, 2), types.NumericAnyT, types.Float64T, types.Float32T, types.TextT}
	rng := rand.New(rand.NewSource(int64(n + groups)))
	c := &partialCase{ts: ts}
	for i := 0; i < n; i++ {
		g := rng.Intn(groups)
		if i < few {
			g = rng.Intn(100)
		}
		// exact floats (quarters): their sums do not depend on the order
		r := []any{int64(g % 1000), fmt.Sprintf("g%d", g/1000), int64(rng.Intn(2000) - 1000), int64(rng.Intn(1000000) - 500000),
			fmt.Sprintf("%d.%03d", rng.Intn(1000)-500, rng.Intn(1000)), float64(rng.Intn(400)) / 4, float64(rng.Intn(40)) / 4,
			fmt.Sprintf("s%05d", rng.Intn(100000))}
		for col := range r {
			if rng.Intn(13) == 0 {
				r[col] = nil
			}
		}
		c.rows = append(c.rows, r)
	}
	add := func(k AggKind, col int) {
		a := mkAgg(t, k, col, ts[col])
		c.aggs = append(c.aggs, a)
		p := a
		p.Arg = 2 + len(c.parts) // the partial input: the keys, then each aggregate's argument
		c.parts = append(c.parts, p)
		// counts and integer sums fold as sums of bigints
		f := Agg{Kind: k, Arg: 2 + len(c.folds), In: a.Out, Out: a.Out}
		if k == AggCountStar || k == AggCount || k == AggSum && ts[col].IsInteger() {
			f.Kind = AggSum
		}
		c.folds = append(c.folds, f)
	}
	add(AggCountStar, 0)
	for _, col := range []int{2, 3, 4, 5, 6} {
		add(AggSum, col)
		add(AggCount, col)
		add(AggMin, col)
		add(AggMax, col)
	}
	add(AggMin, 7)
	add(AggMax, 7)
	return c
}

// whole is the aggregation without a partial one.
func (c *partialCase) whole() *HashAgg {
	return &HashAgg{Input: newRowsOp(c.ts, c.rows, 700), NGroup: 2, Aggs: c.aggs}
}

// partialInput projects the keys and each partial aggregate's argument.
func (c *partialCase) partialInput() exec.Operator {
	exprs := []exec.Expr{col(0, c.ts[0]), col(1, c.ts[1])}
	for _, a := range c.aggs {
		arg := a.Arg
		if a.Kind == AggCountStar {
			arg = 0
		}
		exprs = append(exprs, col(arg, c.ts[arg]))
	}
	return &exec.Project{Env: env, Input: newRowsOp(c.ts, c.rows, 700), Exprs: exprs}
}

// twoStep is the final aggregation over the partial one (p nil: a
// partial aggregation that never passes rows through).
func (c *partialCase) twoStep(p *Partial, mem *memory.Memory) (final, partial *HashAgg) {
	partial = &HashAgg{Input: c.partialInput(), NGroup: 2, Aggs: c.parts, Partial: p, Mem: mem}
	return &HashAgg{Input: partial, NGroup: 2, Aggs: c.folds, Mem: mem}, partial
}

// TestPartialPassThrough: a partial aggregation that finds about as many
// groups as rows hands on its groups and passes the other rows through,
// and the aggregation above gives the same answers as without a partial
// aggregation, or with one that groups everything; one that finds few
// groups keeps grouping.
func TestPartialPassThrough(t *testing.T) {
	for _, tc := range []struct {
		name      string
		rows      int
		groups    int
		check     int64
		few       int
		passes    bool
		minPassed int
	}{
		{"groups as many as rows", 20000, 1000000, 1000, 0, true, 18000},
		{"groups past three quarters of the rows at a later look", 20000, 1000000, 2000, 3000, true, 3000},
		{"few groups", 20000, 300, 1000, 0, false, 0},
		{"groups under three quarters of the rows at each look", 20000, 3000, 4000, 0, false, 0},
		{"fewer rows than the first look", 900, 1000000, 1000, 0, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newPartialCase(t, tc.rows, tc.groups, tc.few)
			want := runAgg(t, c.whole())
			if len(want) < min(tc.groups, 300) {
				t.Fatalf("%d groups", len(want))
			}
			grouping, _ := c.twoStep(nil, nil)
			if got := runAgg(t, grouping); !slices.Equal(sorted(got), sorted(want)) {
				t.Fatalf("grouping partial aggregation: %d rows, want %d", len(got), len(want))
			}
			p := &Partial{CheckRows: tc.check}
			_, partial := c.twoStep(p, nil)
			n := len(runAgg(t, partial))
			final, _ := c.twoStep(p, nil)
			got := runAgg(t, final)
			if !slices.Equal(sorted(got), sorted(want)) {
				t.Fatalf("adaptive partial aggregation: %d rows, want %d", len(got), len(want))
			}
			if passing := p.Passing.Load() > 0; passing != tc.passes {
				t.Fatalf("passing %v, want %v (%d rows grouped into %d groups)", passing, tc.passes, p.Grouped.Load(), p.Groups.Load())
			}
			// the first run (collect) and the second (under final)
			if p.Workers.Load() != 2 || p.Grouped.Load()+p.Passed.Load() != 2*int64(tc.rows) {
				t.Fatalf("%d copies, %d rows grouped and %d passed, want 2 and %d", p.Workers.Load(), p.Grouped.Load(), p.Passed.Load(), 2*tc.rows)
			}
			if tc.passes && p.Grouped.Load() < 2*int64(tc.few) {
				t.Fatalf("%d rows grouped, want at least %d", p.Grouped.Load(), 2*tc.few)
			}
			if p.Passed.Load() < 2*int64(tc.minPassed) {
				t.Fatalf("%d rows passed through, want at least %d", p.Passed.Load(), 2*tc.minPassed)
			}
			if int64(n) != p.Groups.Load()/2+p.Passed.Load()/2 {
				t.Fatalf("%d partial rows, want the %d groups and %d rows passed", n, p.Groups.Load()/2, p.Passed.Load()/2)
			}
			// a partial aggregation of the partial results (eager
			// aggregation below another's join): counts and integer sums
			// are summed as bigints there
			_, partial = c.twoStep(&Partial{CheckRows: tc.check}, nil)
			mp := &Partial{CheckRows: tc.check}
			middle := &HashAgg{Input: partial, NGroup: 2, Aggs: c.folds, Partial: mp}
			if !middle.adaptive() {
				t.Fatal("the partial aggregation of partial results does not adapt")
			}
			got = runAgg(t, &HashAgg{Input: middle, NGroup: 2, Aggs: c.folds})
			if !slices.Equal(sorted(got), sorted(want)) {
				t.Fatalf("two partial aggregations: %d rows, want %d", len(got), len(want))
			}
			if passing := mp.Passing.Load() > 0; passing != tc.passes {
				t.Fatalf("the second partial aggregation: passing %v, want %v", passing, tc.passes)
			}
		})
	}
}

// TestPartialPassesWhenOutOfMemory: a partial aggregation whose table
// outgrows its memory passes the rest of its rows through instead of
// spilling them, while the final aggregation above, on the same small
// memory, spills; the answers stay the same.
func TestPartialPassesWhenOutOfMemory(t *testing.T) {
	sp := testSpill(t, 0)
	c := newPartialCase(t, 60000, 40000, 0)
	want := runAgg(t, c.whole())
	qs := &exec.QueryStats{}
	ctx := exec.WithQueryStats(context.Background(), qs)
	mem := memory.NewMemory(memory.NewMemoryPool(1<<20), 0)
	// no look at the groups before the end: only memory stops it
	p := &Partial{CheckRows: 1 << 30}
	final, _ := c.twoStep(p, mem)
	got := collectCtx(t, ctx, final)
	if !slices.Equal(sorted(got), sorted(want)) {
		t.Fatalf("%d rows, want %d", len(got), len(want))
	}
	if p.Passing.Load() != 1 || p.Passed.Load() == 0 || p.Grouped.Load() == 0 {
		t.Fatalf("%d of %d copies passed %d rows through after grouping %d", p.Passing.Load(), p.Workers.Load(), p.Passed.Load(), p.Grouped.Load())
	}
	if qs.SpillFiles() == 0 {
		t.Fatal("the final aggregation did not spill")
	}
	final.Close()
	if n := spillFilesLeft(t, sp); n != 0 || mem.Used() != 0 {
		t.Fatalf("after Close %d spill files, %d memory bytes held", n, mem.Used())
	}
	// alone, the partial aggregation spills nothing
	qs = &exec.QueryStats{}
	ctx = exec.WithQueryStats(context.Background(), qs)
	mem = memory.NewMemory(memory.NewMemoryPool(1<<20), 0)
	_, partial := c.twoStep(&Partial{CheckRows: 1 << 30}, mem)
	if rows := collectCtx(t, ctx, partial); len(rows) < len(want) {
		t.Fatalf("%d partial rows for %d groups", len(rows), len(want))
	}
	if qs.SpillFiles() != 0 {
		t.Fatalf("the partial aggregation spilled %d files", qs.SpillFiles())
	}
	partial.Close()
	if mem.Used() != 0 {
		t.Fatalf("after Close %d memory bytes held", mem.Used())
	}
}

// TestPartialAdaptsOnlyWhereFoldable: an aggregation without Partial, or
// with an aggregate whose one-row result is not its argument (an average,
// a DISTINCT count), never passes rows through.
func TestPartialAdaptsOnlyWhereFoldable(t *testing.T) {
	c := newPartialCase(t, 5000, 1000000, 0)
	in := c.partialInput()
	for _, tc := range []struct {
		name string
		h    *HashAgg
		want bool
	}{
		{"partial", &HashAgg{Input: in, NGroup: 2, Aggs: c.parts, Partial: &Partial{}}, true},
		{"not partial", &HashAgg{Input: in, NGroup: 2, Aggs: c.parts}, false},
		{"average", &HashAgg{Input: in, NGroup: 2, Aggs: []Agg{mkAgg(t, AggAvg, 3, types.Int32T)}, Partial: &Partial{}}, false},
		{"sum of bigint", &HashAgg{Input: in, NGroup: 2, Aggs: []Agg{mkAgg(t, AggSum, 2, types.Int64T)}, Partial: &Partial{}}, false},
		{"sum of bigint typed bigint", &HashAgg{Input: in, NGroup: 2, Aggs: []Agg{{Kind: AggSum, Arg: 2, In: types.Int64T, Out: types.Int64T}}, Partial: &Partial{}}, true},
		{"distinct", &HashAgg{Input: in, NGroup: 2, Aggs: []Agg{{Kind: AggCount, Arg: 3, In: types.Int32T, Out: types.Int64T, Distinct: true}}, Partial: &Partial{}}, false},
		{"grouping sets", &HashAgg{Input: in, NGroup: 2, Aggs: c.parts, GroupingSets: [][]int{{0}, {0, 1}}, Partial: &Partial{}}, false},
		{"no keys", &HashAgg{Input: in, NGroup: 0, Aggs: c.parts, Partial: &Partial{}}, false},
	} {
		if got := tc.h.adaptive(); got != tc.want {
			t.Errorf("%s: adaptive %v, want %v", tc.name, got, tc.want)
		}
	}
}
