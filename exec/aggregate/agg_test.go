package aggregate

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/memory"
	"github.com/lakepg/lakepg/exec/order"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// mkAgg builds an Agg with its PostgreSQL result type.
func mkAgg(t testing.TB, kind AggKind, arg int, in types.T) Agg {
	t.Helper()
	out, err := AggResultType(kind, in)
	if err != nil {
		t.Fatal(err)
	}
	return Agg{Kind: kind, Arg: arg, In: in, Out: out}
}

func runAgg(t *testing.T, h *HashAgg) []string {
	t.Helper()
	got := collect(t, h)
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	return got
}

// Expected values below were produced by PostgreSQL 15 for the same input.
func TestAggregateResultsLikePostgres(t *testing.T) {
	i4 := []types.T{types.Int32T}
	one := func(xs ...any) [][]any {
		var rows [][]any
		for _, x := range xs {
			rows = append(rows, []any{x})
		}
		return rows
	}
	aggs := func(in types.T, kinds ...AggKind) []Agg {
		var as []Agg
		for _, k := range kinds {
			as = append(as, mkAgg(t, k, 0, in))
		}
		return as
	}
	stats := []AggKind{AggVarSamp, AggStddevSamp, AggVarPop, AggStddevPop, AggAvg, AggSum}
	cases := []struct {
		name string
		ts   []types.T
		rows [][]any
		aggs []Agg
		want string
	}{
		{"int stats", i4, one(1, 2, 3, 4), aggs(types.Int32T, stats...),
			"1.6666666666666667|1.2909944487358056|1.2500000000000000|1.1180339887498948|2.5000000000000000|10"},
		{"numeric(10,2) stats", []types.T{types.NumericT(10, 2)}, one(150, 225, 300), aggs(types.NumericT(10, 2), stats...),
			"0.56250000000000000000|0.75000000000000000000|0.37500000000000000000|0.61237243569579452455|2.2500000000000000|6.75"},
		{"equal values", i4, one(1, 1), aggs(types.Int32T, AggVarSamp, AggStddevSamp), "0|0"},
		{"float stats", []types.T{types.Float64T}, one(1.5, 2.25, 3e10), aggs(types.Float64T, AggVarSamp, AggStddevSamp, AggVarPop, AggAvg, AggSum),
			"2.999999999625e+20|17320508074.60624|1.9999999997499998e+20|10000000001.25|30000000003.75"},
		{"one bigint", []types.T{types.Int64T}, one(1), aggs(types.Int64T, AggVarSamp, AggStddevSamp, AggStddevPop), "NULL|NULL|0"},
		{"dynamic numeric", []types.T{types.NumericAnyT}, one("1.5", "2.25000", "-3.1"), aggs(types.NumericAnyT, AggVarSamp, AggStddevSamp, AggSum, AggMax, AggMin),
			"8.3908333333333333|2.8966935173285650|0.65000|2.25000|-3.1"},
		{"dynamic numeric sums past int64 and across scales", []types.T{types.NumericAnyT},
			one("999999999999999999", "999999999999999999", "999999999999999999", "-0.5", "1e2", "0.25", " 3", "-999999999999999999"),
			aggs(types.NumericAnyT, AggSum, AggAvg, AggCount), "2000000000000000100.75|250000000000000012.59|8"},
		{"bigint sum never overflows", []types.T{types.Int64T}, one(int64(math.MaxInt64), int64(math.MaxInt64)), aggs(types.Int64T, AggSum, AggAvg, AggVarSamp),
			"18446744073709551614|9223372036854775807|0"},
		{"bigint sum back into range", []types.T{types.Int64T}, one(int64(math.MaxInt64), int64(math.MaxInt64), int64(math.MinInt64), int64(math.MinInt64)), aggs(types.Int64T, AggSum),
			"-2"},
		{"real sums in real", []types.T{types.Float32T}, one(1.0, 2.5), aggs(types.Float32T, AggSum, AggAvg), "3.5|1.75"},
		{"bool", []types.T{types.BoolT}, one(true, nil, false), aggs(types.BoolT, AggBoolAnd, AggBoolOr, AggCount, AggCountStar), "f|t|2|3"},
		{"empty input, no groups", i4, nil, aggs(types.Int32T, AggCountStar, AggSum, AggAvg, AggVarSamp, AggMin), "0|NULL|NULL|NULL|NULL"},
	}
	for _, c := range cases {
		h := &HashAgg{Input: newRowsOp(c.ts, c.rows, 2), Aggs: c.aggs}
		got := runAgg(t, h)
		if len(got) != 1 || got[0] != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}

func TestOrderedSetAndDistinctAggregates(t *testing.T) {
	ts := []types.T{types.Int32T, types.Float64T, types.TextT, types.TextT, types.BoolT}
	var rows [][]any
	vals := []any{3, 1, 4, 1, 5, 9, 2, 6, nil}
	for _, v := range vals {
		var f any
		if v != nil {
			f = float64(v.(int))
		}
		rows = append(rows, []any{v, f, "0.5", ",", v != nil && v.(int) > 1})
	}
	frac := func(k AggKind, f float64, desc bool) Agg {
		a := mkAgg(t, k, 1, types.Float64T)
		if k != AggPercentileCont {
			a = mkAgg(t, k, 0, types.Int32T)
		}
		a.Arg2, a.Desc = 5, desc
		return a
	}
	// column 5: the fraction, computed per case
	for _, c := range []struct {
		frac float64
		agg  Agg
		want string
	}{
		{0.5, frac(AggPercentileCont, 0.5, false), "3.5"},
		{0.25, frac(AggPercentileCont, 0.25, true), "5.25"},
		{0.5, frac(AggPercentileDisc, 0.5, false), "3"},
		{0, frac(AggPercentileDisc, 0, false), "1"},
		{1, frac(AggPercentileDisc, 1, false), "9"},
		{0.5, mkAgg(t, AggMode, 0, types.Int32T), "1"},
	} {
		var rs [][]any
		for _, r := range rows {
			rs = append(rs, append(append([]any{}, r...), c.frac))
		}
		h := &HashAgg{Input: newRowsOp(append(append([]types.T{}, ts...), types.Float64T), rs, 4), Aggs: []Agg{c.agg}}
		if got := runAgg(t, h); len(got) != 1 || got[0] != c.want {
			t.Errorf("%s(%v): got %v, want %s", c.agg.Kind.Name(), c.frac, got, c.want)
		}
	}
	var rs [][]any
	for _, r := range rows {
		rs = append(rs, append(append([]any{}, r...), 1.5))
	}
	h := &HashAgg{Input: newRowsOp(append(append([]types.T{}, ts...), types.Float64T), rs, 4), Aggs: []Agg{frac(AggPercentileCont, 1.5, false)}}
	if _, err := h.Next(context.Background()); pgerr.Code(err) != pgerr.NumericValueOutOfRange {
		t.Errorf("fraction 1.5: %v", err)
	}

	// DISTINCT and FILTER; string_agg keeps input order, DISTINCT sorts
	st := []types.T{types.TextT, types.TextT, types.Int32T, types.BoolT}
	srows := [][]any{{"b", ",", 1, false}, {"a", ",", 2, true}, {nil, ",", 2, true}, {"b", ",", 3, true}, {"c", ",", nil, false}}
	sa := mkAgg(t, AggStringAgg, 0, types.TextT)
	sa.Arg2 = 1
	sad := sa
	sad.Distinct = true
	cd := mkAgg(t, AggCount, 0, types.TextT)
	cd.Distinct = true
	sumd := mkAgg(t, AggSum, 2, types.Int32T)
	sumd.Distinct = true
	avgd := mkAgg(t, AggAvg, 2, types.Int32T)
	avgd.Distinct = true
	sumf := mkAgg(t, AggSum, 2, types.Int32T)
	sumf.Filter = FilterColumn(3)
	cntf := mkAgg(t, AggCountStar, 0, types.Int32T)
	cntf.Filter = FilterColumn(3)
	h = &HashAgg{Input: newRowsOp(st, srows, 2), Aggs: []Agg{sa, sad, cd, sumd, avgd, sumf, cntf}}
	want := "b,a,b,c|a,b,c|3|6|2.0000000000000000|7|3"
	if got := runAgg(t, h); len(got) != 1 || got[0] != want {
		t.Errorf("distinct/filter: got %v, want %s", got, want)
	}
	// a NULL delimiter appends nothing
	h = &HashAgg{Input: newRowsOp([]types.T{types.TextT, types.TextT}, [][]any{{"a", "1"}, {"b", "2"}, {"c", nil}, {"d", "4"}}, 3),
		Aggs: []Agg{{Kind: AggStringAgg, Arg: 0, Arg2: 1, In: types.TextT, Out: types.TextT}}}
	if got := runAgg(t, h); got[0] != "a2bc4d" {
		t.Errorf("string_agg delimiters: %v", got)
	}
}

func TestFloatOverflowInAvg(t *testing.T) {
	h := &HashAgg{Input: newRowsOp([]types.T{types.Float64T}, [][]any{{1e200}, {-1e200}}, 1), Aggs: []Agg{mkAgg(t, AggAvg, 0, types.Float64T)}}
	if _, err := h.Next(context.Background()); pgerr.Code(err) != pgerr.NumericValueOutOfRange {
		t.Errorf("avg overflow: %v", err)
	}
}

func TestGroupingSets(t *testing.T) {
	ts := []types.T{types.Int32T, types.TextT}
	rows := [][]any{{1, "x"}, {1, "y"}, {2, "x"}}
	h := &HashAgg{Input: newRowsOp(ts, rows, 2), NGroup: 2, Aggs: []Agg{mkAgg(t, AggCountStar, 0, types.Int32T)},
		GroupingSets: [][]int{{0, 1}, {0}, {}}, GroupingID: true}
	want := []string{"1|x|1|0", "1|y|1|0", "1|NULL|2|1", "2|x|1|0", "2|NULL|1|1", "NULL|NULL|3|3"}
	sameRows(t, "rollup", runAgg(t, h), want)
	// the empty set yields its row even without input; the others yield none
	h = &HashAgg{Input: newRowsOp(ts, nil, 2), NGroup: 2, Aggs: []Agg{mkAgg(t, AggCountStar, 0, types.Int32T), mkAgg(t, AggSum, 0, types.Int32T)},
		GroupingSets: [][]int{{0, 1}, {0}, {}}}
	sameRows(t, "rollup of nothing", runAgg(t, h), []string{"NULL|NULL|0|NULL"})
	// cube over an int key (fast path) and a text key (general path)
	h = &HashAgg{Input: newRowsOp(ts, rows, 2), NGroup: 2, Aggs: []Agg{mkAgg(t, AggCountStar, 0, types.Int32T)},
		GroupingSets: [][]int{{0, 1}, {0}, {1}, {}}, GroupingID: true}
	sameRows(t, "cube", runAgg(t, h), append(want, "NULL|x|2|2", "NULL|y|1|2"))
}

// TestGroupByAgainstReference checks many groups over several batches, with
// NULL keys, on every key path, against a map-based reference.
func TestGroupByAgainstReference(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for _, n := range []int{0, 1, 5000, 30000} {
		rows := randRows(rng, n, 3000, 0.05)
		for _, keys := range [][]int{{0}, {1}, {0, 1}} {
			type acc struct {
				cnt, cntx, sum int64
				min, max       int64
				has            bool
			}
			ref := map[string]*acc{}
			var order []string
			for _, r := range rows {
				var kv []any
				for _, k := range keys {
					kv = append(kv, r[k])
				}
				key := fmtRow(kv...)
				a := ref[key]
				if a == nil {
					a = &acc{}
					ref[key] = a
					order = append(order, key)
				}
				a.cnt++
				x := r[2].(int64)
				a.cntx++
				a.sum += x
				if !a.has || x < a.min {
					a.min = x
				}
				if !a.has || x > a.max {
					a.max = x
				}
				a.has = true
			}
			var want []string
			for _, k := range order {
				a := ref[k]
				want = append(want, fmt.Sprintf("%s|%d|%d|%d|%d|%d", k, a.cnt, a.cntx, a.sum, a.min, a.max))
			}
			// reorder columns so the group keys come first
			var cols []exec.Expr
			var kts []types.T
			for _, k := range keys {
				cols = append(cols, col(k, kst[k]))
				kts = append(kts, kst[k])
			}
			cols = append(cols, col(2, types.Int64T))
			ng := len(keys)
			in := &exec.Project{Env: env, Input: newRowsOp(kst, rows, 1000), Exprs: cols}
			h := &HashAgg{Input: in, NGroup: ng, Aggs: []Agg{
				mkAgg(t, AggCountStar, ng, types.Int64T), mkAgg(t, AggCount, ng, types.Int64T),
				mkAgg(t, AggSum, ng, types.Int64T), mkAgg(t, AggMin, ng, types.Int64T), mkAgg(t, AggMax, ng, types.Int64T)}}
			sameRows(t, fmt.Sprintf("n=%d keys=%v", n, keys), runAgg(t, h), want)
		}
	}
}

// TestAggMemoryLimit: past its memory the aggregation spills, and fails with
// 53200 only when the temp space runs out too.
func TestAggMemoryLimit(t *testing.T) {
	testSpill(t, 1<<20)
	rng := rand.New(rand.NewSource(3))
	rows := randRows(rng, 50000, 1<<30, 0)
	mem := memory.NewMemory(nil, 256<<10)
	h := &HashAgg{Input: newRowsOp(kst, rows, 0), NGroup: 2, Mem: mem}
	if _, err := h.Next(context.Background()); pgerr.Code(err) != memory.OutOfMemory {
		t.Fatalf("want 53200, got %v", err)
	}
	h.Close()
	if mem.Used() != 0 {
		t.Errorf("memory not returned: %d", mem.Used())
	}
}

func BenchmarkGroupByInt64(b *testing.B) {
	const n = 1 << 21
	for _, groups := range []int{16, 1 << 10, 1 << 16, 1 << 20} {
		keys := vecOfInts(n, func(i int) int64 { return int64((i * 7919) % groups) })
		b.Run(fmt.Sprintf("groups=%d", groups), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				src := &pairSource{A: keys, B: keys, N: n}
				h := &HashAgg{Input: src, NGroup: 1, Aggs: []Agg{mkAgg(b, AggCountStar, 0, types.Int64T), mkAgg(b, AggSum, 1, types.Int64T)}}
				for {
					out, err := h.Next(context.Background())
					if err != nil {
						b.Fatal(err)
					}
					if out == nil {
						break
					}
				}
				h.Close()
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mrows/s")
		})
	}
}

func TestIntervalAggregatesAndSort(t *testing.T) {
	iv := func(s string) any {
		v, err := types.ParseInterval(s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	ts := []types.T{types.IntervalT}
	rows := [][]any{{iv("1 mon 2 days")}, {iv("30 days")}, {iv("-3 hours")}, {nil}, {iv("1 day 00:00:01.5")}}
	cd := mkAgg(t, AggCount, 0, types.IntervalT)
	cd.Distinct = true
	h := &HashAgg{Input: newRowsOp(ts, rows, 2), Aggs: []Agg{mkAgg(t, AggSum, 0, types.IntervalT), mkAgg(t, AggAvg, 0, types.IntervalT),
		mkAgg(t, AggMin, 0, types.IntervalT), mkAgg(t, AggMax, 0, types.IntervalT), cd}}
	// PostgreSQL 15
	want := "1 mon 33 days -02:59:58.5|15 days 17:15:00.375|-03:00:00|1 mon 2 days|4"
	if got := runAgg(t, h); len(got) != 1 || got[0] != want {
		t.Errorf("interval aggregates: %v, want %s", got, want)
	}
	// '1 mon' = '30 days' = '29 days 24:00:00' when grouping and sorting
	rows = append(rows, []any{iv("29 days 24:00:00")}, []any{iv("1 mon")})
	h = &HashAgg{Input: newRowsOp(ts, rows, 2), NGroup: 1, Aggs: []Agg{mkAgg(t, AggCountStar, 0, types.IntervalT)}}
	s := &order.Sort{Input: h, Keys: []order.SortKey{{Col: 0, Desc: true}}}
	got := collect(t, s)
	if fmt := strings.Join(got, ";"); fmt != "1 mon 2 days|1;30 days|3;1 day 00:00:01.5|1;-03:00:00|1;NULL|1" {
		t.Errorf("interval groups: %s", fmt)
	}
}

// TestMergeEqualsSerial splits the input between two partial aggregations,
// merges them as a parallel HashAgg does, and compares with one serial
// aggregation, for every aggregate state.
func TestMergeEqualsSerial(t *testing.T) {
	iv := func(s string) types.IntervalValue {
		v, err := types.ParseInterval(s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	ts := []types.T{types.Int64T, types.TextT, types.Int32T, types.NumericT(10, 2), types.NumericAnyT, types.Float64T,
		types.Float32T, types.BoolT, types.IntervalT, types.TextT, types.Float64T}
	rng := rand.New(rand.NewSource(9))
	var rows [][]any
	for i := 0; i < 6000; i++ {
		r := []any{int64(rng.Intn(40)), fmt.Sprintf("k%d", rng.Intn(30)), int64(rng.Intn(1000) - 500), int64(rng.Intn(100000)),
			fmt.Sprintf("%d.%d", rng.Intn(100), rng.Intn(1000)), float64(rng.Intn(1000)) / 8, float64(rng.Intn(100)) / 4,
			rng.Intn(3) > 0, iv(fmt.Sprintf("%d days %d hours", rng.Intn(50), rng.Intn(30))), fmt.Sprintf("s%d", rng.Intn(5)), 0.3}
		for c := 0; c < 9; c++ {
			if rng.Intn(15) == 0 {
				r[c] = nil
			}
		}
		rows = append(rows, r)
	}
	var aggs []Agg
	add := func(k AggKind, col int) Agg {
		a := mkAgg(t, k, col, ts[col])
		aggs = append(aggs, a)
		return a
	}
	add(AggCountStar, 0)
	for _, c := range []int{2, 3, 4, 5, 6, 8} {
		add(AggCount, c)
		add(AggSum, c)
		add(AggAvg, c)
		add(AggMin, c)
		add(AggMax, c)
	}
	for _, c := range []int{2, 3, 4, 5} {
		for _, k := range []AggKind{AggVarSamp, AggVarPop, AggStddevSamp, AggStddevPop} {
			add(k, c)
		}
	}
	add(AggMin, 1)
	add(AggMax, 7)
	add(AggBoolAnd, 7)
	add(AggBoolOr, 7)
	sa := Agg{Kind: AggStringAgg, Arg: 9, Arg2: 1, In: types.TextT, Out: types.TextT, Distinct: true}
	aggs = append(aggs, sa)
	for _, k := range []AggKind{AggPercentileCont, AggPercentileDisc} {
		a := mkAgg(t, k, 5, types.Float64T)
		a.Arg2 = 10
		aggs = append(aggs, a)
	}
	add(AggMode, 2)
	d := mkAgg(t, AggSum, 3, ts[3])
	d.Distinct = true
	aggs = append(aggs, d)
	for _, ng := range []int{0, 1, 2} {
		var exprs []exec.Expr
		for c, ty := range ts {
			exprs = append(exprs, col(c, ty))
		}
		mk := func() *HashAgg {
			return &HashAgg{Input: &exec.Project{Env: env, Input: newRowsOp(ts, rows, 700), Exprs: exprs}, NGroup: ng, Aggs: aggs}
		}
		serial := runAgg(t, mk())
		// into one table, and into partition tables (aggmerge.go)
		for _, parts := range []bool{false, true} {
			h := mk()
			if parts && !h.partitionable() {
				continue
			}
			runs := make([]*aggRun, 2)
			for i := range runs {
				r, err := h.newRun()
				if err != nil {
					t.Fatal(err)
				}
				runs[i] = r
			}
			k := 0
			err := exec.Drain(context.Background(), h.Input, func(b *vec.Batch) error {
				k++
				return runs[k%len(runs)].consume(b)
			})
			if err != nil {
				t.Fatal(err)
			}
			h.run, h.started = runs[0], true
			if parts {
				ps, err := h.mergeParts(context.Background(), runs)
				if err != nil {
					t.Fatal(err)
				}
				h.run, h.runs = ps[0], ps
			} else {
				for _, r := range runs[1:] {
					if err := runs[0].merge(r); err != nil {
						t.Fatal(err)
					}
				}
			}
			if err := h.finish(); err != nil {
				t.Fatal(err)
			}
			merged := runAgg(t, h)
			// float sums may differ in the last digits once the order of
			// addition changes; compare those columns loosely
			sameRowsApprox(t, fmt.Sprintf("merge (partitioned %v), %d group keys", parts, ng), merged, serial)
		}
	}
}

// sameRowsApprox is sameRows with floating-point fields equal to 1e-9.
func sameRowsApprox(t *testing.T, what string, got, want []string) {
	t.Helper()
	g, w := sorted(got), sorted(want)
	if len(g) != len(w) {
		t.Fatalf("%s: %d rows, want %d", what, len(g), len(w))
	}
	for i := range g {
		gf, wf := strings.Split(g[i], "|"), strings.Split(w[i], "|")
		for c := range gf {
			if gf[c] == wf[c] {
				continue
			}
			var x, y float64
			_, e1 := fmt.Sscan(gf[c], &x)
			_, e2 := fmt.Sscan(wf[c], &y)
			if e1 != nil || e2 != nil || math.Abs(x-y) > 1e-9*math.Max(1, math.Abs(y)) {
				t.Fatalf("%s: row %d column %d = %q, want %q", what, i, c, gf[c], wf[c])
			}
		}
	}
}

// BenchmarkGroupByTwoText is TPC-H Q1's shape: two one-letter text keys,
// four groups, several sums.
func BenchmarkGroupByTwoText(b *testing.B) {
	const n = 1 << 20
	f1, f2 := vec.New(types.TextT, n), vec.New(types.TextT, n)
	x := vec.New(types.NumericT(12, 2), n)
	for i := 0; i < n; i++ {
		f1.AppendString([]string{"A", "N", "R"}[i%3])
		f2.AppendString([]string{"F", "O"}[(i/7)%2])
		x.AppendInt(int64(i % 10000))
	}
	ts := []types.T{types.TextT, types.TextT, types.NumericT(12, 2)}
	b.ReportAllocs()
	for b.Loop() {
		src := &multiSource{T: ts, V: []*vec.Vector{f1, f2, x}, N: n}
		h := &HashAgg{Input: src, NGroup: 2, Aggs: []Agg{mkAgg(b, AggCountStar, 0, types.Int64T), mkAgg(b, AggSum, 2, ts[2]),
			mkAgg(b, AggAvg, 2, ts[2]), mkAgg(b, AggSum, 2, ts[2]), mkAgg(b, AggMax, 2, ts[2])}}
		if got := collect(b, h); len(got) != 6 {
			b.Fatalf("%d groups", len(got))
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mrows/s")
}

// countByKeys runs count(*) GROUP BY the first len(kt) columns of 20,000
// rows whose key values gen makes, and checks the groups, in order of first
// appearance, against a map.
func countByKeys(t *testing.T, name string, kt []types.T, gen func(c int) any) {
	t.Helper()
	nk := len(kt)
	ts := append(append([]types.T{}, kt...), types.Int64T)
	count := map[string]int64{}
	var order []string
	var rows [][]any
	for i := range 20000 {
		r := make([]any, nk+1)
		for c := range nk {
			r[c] = gen(c)
		}
		r[nk] = int64(i)
		rows = append(rows, r)
		key := fmtRow(r[:nk]...)
		if _, ok := count[key]; !ok {
			order = append(order, key)
		}
		count[key]++
	}
	var want []string
	for _, k := range order {
		want = append(want, fmt.Sprintf("%s|%d", k, count[k]))
	}
	h := &HashAgg{Input: newRowsOp(ts, rows, 1000), NGroup: nk, Aggs: []Agg{mkAgg(t, AggCountStar, nk, types.Int64T)}}
	sameRows(t, name, runAgg(t, h), want)
}

// TestGroupByShortTextKeys groups text keys that mostly pack into the
// keyPacker's int64 (short values, empty strings, NULLs) mixed with values
// too long for it, with one, two and four key columns, against a map.
func TestGroupByShortTextKeys(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	vals := []any{"", "A", "N", "R", "ab", "abc", "abcdefg", "abcdefgh", "a long value", nil, "\x00", "\x00\x00"}
	for _, nk := range []int{1, 2, 4} {
		for _, longFrac := range []float64{0, 0.1, 0.9} {
			kt := make([]types.T, nk)
			for i := range kt {
				kt[i] = types.TextT
			}
			countByKeys(t, fmt.Sprintf("keys=%d long=%v", nk, longFrac), kt, func(int) any {
				if rng.Float64() < longFrac {
					return vals[7+rng.Intn(2)]
				}
				return vals[rng.Intn(len(vals))]
			})
		}
	}
}

// TestGroupByPackedIntegerKeys groups integer and mixed integer/text keys
// that mostly pack into the keyPacker's int64 (small non-negative values,
// NULLs) mixed with values that cannot (negative, beyond the column's bits),
// with two, three and four key columns, against a map.
func TestGroupByPackedIntegerKeys(t *testing.T) {
	rng := rand.New(rand.NewSource(12))
	ints := []any{int64(0), int64(1), int64(2), int64(17), int64(65534), nil}
	wide := []any{int64(-1), int64(65535), int64(1) << 40, int64(-1) << 62, int64(1<<63 - 1)}
	texts := []any{"", "A", "ab", nil, "a long value"}
	for _, kt := range [][]types.T{
		{types.Int64T, types.Int32T},
		{types.Int32T, types.TextT, types.Int64T},
		{types.Int64T, types.Int64T, types.Int16T, types.Int64T},
	} {
		for _, wideFrac := range []float64{0, 0.1, 0.9} {
			countByKeys(t, fmt.Sprintf("keys=%v wide=%v", kt, wideFrac), kt, func(c int) any {
				var v any
				switch {
				case kt[c].ID == types.Text:
					return texts[rng.Intn(len(texts))]
				case rng.Float64() < wideFrac:
					v = wide[rng.Intn(len(wide))]
				default:
					v = ints[rng.Intn(len(ints))]
				}
				if x, ok := v.(int64); ok {
					switch kt[c].ID {
					case types.Int16:
						v = int64(int16(x))
					case types.Int32:
						v = int64(int32(x))
					}
				}
				return v
			})
		}
	}
}

// TestRolledUpSetsEqualSeparateOnes: grouping sets built from the finest
// set's groups (rollup.go) give what aggregating each set on its own
// gives, for ROLLUP, CUBE and GROUPING SETS over an integer key with NULLs
// (fast table) and a text key (general table), on empty input too; sets that cannot be rolled up (no set holds the others'
// columns, a DISTINCT aggregate) are aggregated from the input.
func TestRolledUpSetsEqualSeparateOnes(t *testing.T) {
	rng := rand.New(rand.NewSource(21))
	aggs := func() []Agg {
		return []Agg{mkAgg(t, AggCountStar, 0, types.Int64T), mkAgg(t, AggCount, 1, types.TextT),
			mkAgg(t, AggSum, 2, types.Int64T), mkAgg(t, AggMin, 1, types.TextT), mkAgg(t, AggMax, 2, types.Int64T),
			mkAgg(t, AggAvg, 2, types.Int64T), mkAgg(t, AggVarSamp, 2, types.Int64T)}
	}
	for _, n := range []int{0, 1, 3000} {
		rows := randRows(rng, n, 40, 0.1)
		for _, sets := range [][][]int{
			{{0, 1}, {0}, {}},
			{{0, 1}, {0}, {1}, {}},
			{{1}, {0, 1}},
			{{0}, {1}},
		} {
			var want []string
			for _, s := range sets {
				h := &HashAgg{Input: newRowsOp(kst, rows, 500), NGroup: 2, Aggs: aggs(), GroupingSets: [][]int{s}, GroupingID: true}
				want = append(want, runAgg(t, h)...)
			}
			h := &HashAgg{Input: newRowsOp(kst, rows, 500), NGroup: 2, Aggs: aggs(), GroupingSets: sets, GroupingID: true}
			sameRowsApprox(t, fmt.Sprintf("n=%d sets=%v", n, sets), runAgg(t, h), want)
		}
	}
}

// TestRolledUpChainEqualsSeparateSets: with three keys each set is rolled
// up from the smallest finer set already filled (ROLLUP chains (a,b,c) →
// (a,b) → (a) → (), CUBE picks among several), and every set still equals
// aggregating it on its own; the sums of unconstrained numerics mix scales
// and values past int64 so both of sumBigAgg's representations merge.
func TestRolledUpChainEqualsSeparateSets(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	dyn := types.T{ID: types.Numeric, Scale: -1}
	ts := []types.T{types.Int64T, types.TextT, types.Int32T, dyn, types.Int64T}
	nums := []string{"1.5", "-2.25", "3", "0.125", "99999999999999999.99", "-123456789012345678901234.5", "7"}
	var rows [][]any
	for i := 0; i < 4000; i++ {
		var a, b, c any = int64(rng.Intn(5)), fmt.Sprintf("t%d", rng.Intn(7)), int64(rng.Intn(9))
		if rng.Intn(20) == 0 {
			b = nil
		}
		if rng.Intn(25) == 0 {
			c = nil
		}
		rows = append(rows, []any{a, b, c, nums[rng.Intn(len(nums))], int64(rng.Intn(1000))})
	}
	aggs := func() []Agg {
		return []Agg{mkAgg(t, AggCountStar, 0, types.Int64T), mkAgg(t, AggSum, 3, dyn), mkAgg(t, AggAvg, 3, dyn),
			mkAgg(t, AggSum, 4, types.Int64T), mkAgg(t, AggMin, 1, types.TextT), mkAgg(t, AggMax, 4, types.Int64T)}
	}
	for _, sets := range [][][]int{
		{{0, 1, 2}, {0, 1}, {0}, {}},
		{{0, 1, 2}, {0, 1}, {0, 2}, {1, 2}, {0}, {1}, {2}, {}},
		{{2}, {1, 2}, {0, 1, 2}, {}},
	} {
		var want []string
		for _, s := range sets {
			h := &HashAgg{Input: newRowsOp(ts, rows, 700), NGroup: 3, Aggs: aggs(), GroupingSets: [][]int{s}, GroupingID: true}
			want = append(want, runAgg(t, h)...)
		}
		h := &HashAgg{Input: newRowsOp(ts, rows, 700), NGroup: 3, Aggs: aggs(), GroupingSets: sets, GroupingID: true}
		got := runAgg(t, h)
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("sets %v: got %d rows, want %d; first rows %q vs %q", sets, len(got), len(want), got[:min(3, len(got))], want[:min(3, len(want))])
		}
	}
}

// TestAvgBesideSum: an avg beside a sum of the same column and FILTER
// reads the sum's state (avgOfSum); with another FILTER or column it keeps
// its own. Each aggregate's groups equal those of the aggregate alone.
func TestAvgBesideSum(t *testing.T) {
	ts := []types.T{types.Int64T, types.NumericT(12, 2), types.BoolT, types.Int32T}
	rng := rand.New(rand.NewSource(3))
	var rows [][]any
	for i := 0; i < 5000; i++ {
		r := []any{int64(rng.Intn(7)), int64(rng.Intn(100000) - 30000), rng.Intn(3) == 0, int64(rng.Intn(50))}
		if rng.Intn(10) == 0 {
			r[1] = nil
		}
		rows = append(rows, r)
	}
	filtered := func(a Agg) Agg { a.Filter = 3; return a }
	aggs := []Agg{mkAgg(t, AggAvg, 1, ts[1]), mkAgg(t, AggSum, 1, ts[1]), filtered(mkAgg(t, AggAvg, 1, ts[1])),
		mkAgg(t, AggAvg, 3, ts[3]), filtered(mkAgg(t, AggSum, 1, ts[1])), mkAgg(t, AggSum, 3, ts[3]), filtered(mkAgg(t, AggAvg, 3, ts[3]))}
	r, err := (&HashAgg{Input: newRowsOp(ts, rows, 3), NGroup: 1, Aggs: aggs}).newRun()
	if err != nil {
		t.Fatal(err)
	}
	shared := 0
	for _, fn := range r.sets[0].fns {
		if _, ok := fn.(avgOfSum); ok {
			shared++
		}
	}
	// avg(x) by sum(x), avg(x) FILTER by sum(x) FILTER, avg(y) by sum(y)
	if shared != 3 {
		t.Errorf("%d averages read a sum's state, want 3", shared)
	}
	all := runAgg(t, &HashAgg{Input: newRowsOp(ts, rows, 3), NGroup: 1, Aggs: aggs})
	slices.Sort(all)
	for a := range aggs {
		alone := runAgg(t, &HashAgg{Input: newRowsOp(ts, rows, 3), NGroup: 1, Aggs: []Agg{aggs[a]}})
		slices.Sort(alone)
		for g := range all {
			if want, got := alone[g], strings.Split(all[g], "|"); strings.Split(want, "|")[1] != got[1+a] {
				t.Errorf("group %s, aggregate %d: %s beside the others, %s alone", got[0], a, got[1+a], want)
			}
		}
	}
}

// TestFewGroupsSums: batches of few groups take the group-ordered kernels
// (aggRun.byGroup); their sums, past int64 too, and counts are the
// reference's, beside a FILTERed aggregate that keeps the row-wise path.
func TestFewGroupsSums(t *testing.T) {
	ts := []types.T{types.Int64T, types.Int64T, types.BoolT}
	rng := rand.New(rand.NewSource(11))
	type acc struct {
		n, nf int64
		sum   big.Int
	}
	ref := map[int64]*acc{}
	var rows [][]any
	for i := 0; i < 20000; i++ {
		g := int64(rng.Intn(5))
		x := rng.Int63n(1<<62) - 1<<61
		if g == 3 {
			x = math.MaxInt64 - rng.Int63n(1000) // overflows int64 within two rows
		}
		f := rng.Intn(2) == 0
		rows = append(rows, []any{g, x, f})
		a := ref[g]
		if a == nil {
			a = &acc{}
			ref[g] = a
		}
		a.n++
		if f {
			a.nf++
		}
		a.sum.Add(&a.sum, big.NewInt(x))
	}
	var want []string
	for g, a := range ref {
		want = append(want, fmt.Sprintf("%d|%d|%d|%s|%d", g, a.n, a.n, a.sum.String(), a.nf))
	}
	countF := mkAgg(t, AggCount, 1, types.Int64T)
	countF.Filter = 3
	h := &HashAgg{Input: newRowsOp(ts, rows, vec.BatchSize), NGroup: 1, Aggs: []Agg{
		mkAgg(t, AggCountStar, 1, types.Int64T), mkAgg(t, AggCount, 1, types.Int64T),
		mkAgg(t, AggSum, 1, types.Int64T), countF}}
	sameRows(t, "few groups", runAgg(t, h), want)
}
