package aggregate

import (
	"context"
	"math"
	"math/rand"
	"slices"
	"testing"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/memory"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// havingRows are groups of integers and numeric(12,2) values of every
// size: one-row groups (no sample deviation), zero and negative sums,
// sums past int64 and quotients past 64 bits (the text way), small
// averages whose quotient has more than 19 fractional digits.
func havingRows(rng *rand.Rand) ([]types.T, [][]any) {
	ts := []types.T{types.Int64T, types.Int64T, types.NumericT(12, 2)}
	var rows [][]any
	for g := int64(0); g < 3000; g++ {
		n := 1 + rng.Intn(5)
		for range n {
			var x int64
			switch g % 6 {
			case 0:
				x = rng.Int63n(1000)
			case 1:
				x = rng.Int63n(2001) - 1000
			case 2:
				x = math.MaxInt64/2 + rng.Int63n(1<<40)
			case 3:
				x = rng.Int63n(3) - 1
			case 4:
				x = 0
			default:
				x = rng.Int63() >> rng.Intn(63)
			}
			rows = append(rows, []any{g, x, rng.Int63n(2_000_000_000_00) - 1_000_000_000_00})
		}
	}
	return ts, rows
}

func havingAggs(t *testing.T) []Agg {
	var as []Agg
	for _, k := range []AggKind{AggAvg, AggStddevSamp, AggStddevPop, AggVarSamp, AggVarPop, AggSum} {
		as = append(as, mkAgg(t, k, 1, types.Int64T), mkAgg(t, k, 2, types.NumericT(12, 2)))
	}
	return as
}

// The float8 the aggregation tests a group by is, bit for bit, what
// CAST(result AS float8) gives for every aggregate a filter may read so,
// where it comes from the exact quotient and where it takes the text way.
func TestHavingFloatsAreTheCasts(t *testing.T) {
	ts, rows := havingRows(rand.New(rand.NewSource(7)))
	aggs := havingAggs(t)
	all := make([]int, len(aggs))
	for i := range all {
		all[i] = i
	}
	h := &HashAgg{Input: newRowsOp(ts, rows, 1000), NGroup: 1, Aggs: aggs,
		Having: &Having{Env: env, New: func() exec.Expr { return exec.NewConst(boolConst(true)) }, Aggs: all}}
	if _, err := h.Next(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	s := h.runs[0].sets[0]
	st := h.newHaving()
	fast := 0
	for k, a := range all {
		fn := s.fns[a]
		tv := vec.New(types.Float64T, s.ngroups)
		if err := st.twin(fn, k, tv, 0, s.ngroups); err != nil {
			t.Fatal(err)
		}
		want := vec.New(types.Float64T, s.ngroups)
		for g := 0; g < s.ngroups; g++ {
			if err := st.textTwin(fn, k, want, g); err != nil {
				t.Fatal(err)
			}
		}
		for g := 0; g < s.ngroups; g++ {
			one := vec.New(h.Types()[1+a], 1)
			if err := fn.final(one, g, g+1); err != nil {
				t.Fatal(err)
			}
			if tv.IsNull(g) != want.IsNull(g) || !tv.IsNull(g) && math.Float64bits(tv.F64[g]) != math.Float64bits(want.F64[g]) {
				t.Fatalf("%s(%s) of group %d (%s): float %v, the cast gives %v", aggs[a].Kind.Name(), aggs[a].In, g, show1(one), tv.F64[g], want.F64[g])
			}
		}
		fast++
	}
	if fast != len(all) {
		t.Fatalf("%d aggregates checked", fast)
	}
}

// A condition given to the aggregation leaves out exactly the groups it
// rejects, on one goroutine and on the workers of a split; one that fails
// on a batch leaves the batch's groups in, for the filter above to fail.
func TestHavingLeavesOutRejectedGroups(t *testing.T) {
	ts, rows := havingRows(rand.New(rand.NewSource(8)))
	aggs := []Agg{mkAgg(t, AggAvg, 1, types.Int64T), mkAgg(t, AggStddevSamp, 2, types.NumericT(12, 2)), mkAgg(t, AggCount, 1, types.Int64T)}
	plain := runAgg(t, &HashAgg{Input: newRowsOp(ts, rows, 1000), NGroup: 1, Aggs: aggs})
	// CASE avg WHEN 0 THEN 0 ELSE stddev / avg END > 1, on the casts
	cond := func(avg, sd *vec.Vector, i int) bool {
		if avg.IsNull(i) || sd.IsNull(i) {
			return false
		}
		return avg.F64[i] != 0 && sd.F64[i]/avg.F64[i] > 1
	}
	var want []string
	h := &HashAgg{Input: newRowsOp(ts, rows, 1000), NGroup: 1, Aggs: aggs}
	for {
		b, err := h.Next(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if b == nil || b.N == 0 {
			break
		}
		avg, err := exec.CastVector(env, b.Vecs[1], b.N, types.Float64T, false)
		if err != nil {
			t.Fatal(err)
		}
		sd, err := exec.CastVector(env, b.Vecs[2], b.N, types.Float64T, false)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < b.N; i++ {
			if cond(avg, sd, i) {
				want = append(want, rowText(b, i))
			}
		}
	}
	h.Close()
	if len(want) == 0 || len(want) > len(plain)/2 {
		t.Fatalf("the condition keeps %d of %d groups", len(want), len(plain))
	}
	f64 := types.Float64T
	having := func() exec.Expr {
		avg, sd := &exec.ColRef{Idx: 1, T: f64}, &exec.ColRef{Idx: 2, T: f64}
		return &exec.Cmp{Op: exec.GT, L: &exec.Case{
			When: []exec.Expr{&exec.Cmp{Op: exec.EQ, L: avg, R: exec.NewConst(floatConst(0))}},
			Then: []exec.Expr{exec.NewConst(floatConst(0))},
			Else: &exec.Arith{Op: '/', L: sd, R: avg, T: f64}, T: f64,
		}, R: exec.NewConst(floatConst(1))}
	}
	got := runAgg(t, &HashAgg{Input: newRowsOp(ts, rows, 1000), NGroup: 1, Aggs: aggs,
		Having: &Having{Env: env, New: having, Aggs: []int{0, 1}}})
	sameRows(t, "serial", got, want)

	split := &HashAgg{Input: newRowsOp(ts, rows, 1000), NGroup: 1, Aggs: aggs,
		Having: &Having{Env: env, New: having, Aggs: []int{0, 1}}}
	got = splitRows(t, split)
	sameRows(t, "split", got, want)

	// stddev / avg without the CASE divides by zero on every batch
	failing := func() exec.Expr {
		return &exec.Cmp{Op: exec.GT, L: &exec.Arith{Op: '/', L: &exec.ColRef{Idx: 2, T: f64}, R: &exec.ColRef{Idx: 1, T: f64}, T: f64},
			R: exec.NewConst(floatConst(1))}
	}
	got = runAgg(t, &HashAgg{Input: newRowsOp(ts, rows, 1000), NGroup: 1, Aggs: aggs,
		Having: &Having{Env: env, New: failing, Aggs: []int{0, 1}}})
	sameRows(t, "failing condition", got, plain)
}

// splitRows reads h's groups as the workers of a Parallel take them, two
// workers over the parts in turn.
func splitRows(t *testing.T, h *HashAgg) []string {
	t.Helper()
	n, ok, err := h.SplitParts(context.Background())
	if err != nil || !ok {
		t.Fatalf("split: %v %v", ok, err)
	}
	defer h.Close()
	workers := []func(int, *memory.ColBuf) error{h.SplitWorker(), h.SplitWorker()}
	var got []string
	for i := range n {
		out := memory.NewColBuf(h.Types(), vec.BatchSize)
		if err := workers[i%2](i, out); err != nil {
			t.Fatal(err)
		}
		for r := 0; r < out.N; r++ {
			got = append(got, rowText(&out.Batch, r))
		}
	}
	return slices.Clone(got)
}

func boolConst(b bool) *vec.Vector {
	v := vec.New(types.BoolT, 1)
	v.AppendBool(b)
	return v
}

func floatConst(f float64) *vec.Vector {
	v := vec.New(types.Float64T, 1)
	v.AppendFloat(f)
	return v
}

func show1(v *vec.Vector) string {
	b := &vec.Batch{Vecs: []*vec.Vector{v}, N: 1}
	return rowText(b, 0)
}
