package optimize

import (
	"testing"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/sql/planner/logical"
	"github.com/lakepg/lakepg/types"
)

// fakeEstimates answer for the nodes they list: rows, each column's
// distinct values (a key reading another expression has none), groups as
// the product of the keys' distinct values up to the rows, and the nodes
// that filter.
type fakeEstimates struct {
	rows     map[logical.Node]float64
	ndv      map[logical.Node][]float64
	filtered map[logical.Node]bool
}

func (f fakeEstimates) Rows(n logical.Node) (float64, bool) {
	r, ok := f.rows[n]
	return r, ok
}

func (f fakeEstimates) Distinct(n logical.Node, key exec.Expr) float64 {
	if c, ok := key.(*exec.ColRef); ok && c.Idx < len(f.ndv[n]) {
		return f.ndv[n][c.Idx]
	}
	return 0
}

func (f fakeEstimates) Groups(n logical.Node, keys []exec.Expr) (float64, bool) {
	rows, ok := f.rows[n]
	if !ok {
		return 0, false
	}
	g := 1.0
	for _, k := range keys {
		d := f.Distinct(n, k)
		if d == 0 {
			return rows / 10, true
		}
		g *= d
	}
	return min(g, rows), true
}

func (f fakeEstimates) Filtered(n logical.Node) bool { return f.filtered[n] }

// salesPlan is GROUP BY kind, year over sales (dk, yr, amount numeric,
// price float8) joined to dim (dk, kind) on dk, with aggs over the
// projection kind, yr, amount, price, dim.dk: the estimates say sales has
// rows rows, sales.dk ndvDK values, yr 5, and the join keeps every row.
func salesPlan(rows, ndvDK float64, aggs ...logical.Agg) (*logical.Aggregate, fakeEstimates) {
	i64, num, f8, text := types.Int64T, types.NumericT(12, 2), types.Float64T, types.TextT
	sales := leaf(false, i64, i64, num, f8)
	dim := leaf(false, i64, text)
	col := func(i int, t types.T) exec.Expr { return &exec.ColRef{Idx: i, T: t} }
	j := logical.NewJoin(sales, dim, []exec.Expr{col(0, i64)}, []exec.Expr{col(0, i64)}, nil, rows, rows)
	pre := logical.NewProject(j, []exec.Expr{col(5, text), col(1, i64), col(2, num), col(3, f8), col(4, i64)}, nil)
	est := fakeEstimates{
		rows: map[logical.Node]float64{j: rows, sales: rows, dim: 100},
		ndv:  map[logical.Node][]float64{sales: {ndvDK, 5, rows, rows}},
	}
	return logical.NewAggregate(pre, 2, aggs), est
}

func optimizeWith(t *testing.T, n logical.Node, est Estimates) (logical.Node, int) {
	t.Helper()
	fired := 0
	out, err := Optimize(n, est, func(r string) bool { return r == EagerAggregation }, func(_ string, k int) { fired += k })
	if err != nil {
		t.Fatal(err)
	}
	return out, fired
}

// With few partial groups (100 customers × 5 years of 1,000,000 rows) the
// sum, minimum, count and count(*) are folded per (year, dk) below the
// join, and the counts folded above as sums; a second run changes nothing.
func TestEagerAggregationRewrites(t *testing.T) {
	agg, est := salesPlan(1e6, 100,
		logical.Agg{Func: logical.AggSum, Arg: 2}, logical.Agg{Func: logical.AggMin, Arg: 2},
		logical.Agg{Func: logical.AggCountStar, Out: types.Int64T}, logical.Agg{Func: logical.AggCount, Arg: 3, Out: types.Int64T})
	out, fired := optimizeWith(t, agg, est)
	want := `Aggregate group by (#0, #1) sum(#2), min(#3), sum(#4), sum(#5)
  Project #7, #0, #2, #3, #4, #5
    Join hash (#1 = #0) rows 1e+06
      Aggregate partial group by (#0, #1) sum(#2), min(#2), count(*), count(#3)
        Project #1, #0, #2, #3
          Planned Values (c bigint, c bigint, c numeric(12,2), c double precision)
      Planned Values (c bigint, c text)`
	if got := logical.String(out); fired != 1 || got != want {
		t.Fatalf("fired %d, got\n%s\nwant\n%s", fired, got, want)
	}
	// its groups as estimated over the join (no distinct values known
	// there: a tenth of its rows) are kept for the plans reading it
	if r := out.(*logical.Aggregate).Rows; r != 1e5 {
		t.Fatalf("kept estimate %g, want 1e5", r)
	}
	// a plan rewritten once is not rewritten again, also when its new
	// nodes have estimates (built, as a derived table's plan is when it is
	// optimized again in the plan reading it)
	agg, est = salesPlan(1e6, 100, logical.Agg{Func: logical.AggSum, Arg: 2})
	out, _ = optimizeWith(t, agg, est)
	j := out.(*logical.Aggregate).Input.(*logical.Project).Input.(*logical.Join)
	est.rows[j], est.rows[j.Left] = 1e6, 500
	est.ndv[j.Left] = []float64{5, 100}
	if again, k := optimizeWith(t, out, est); k != 0 {
		t.Fatalf("a second run rewrote the plan again (%d):\n%s", k, logical.String(again))
	}
}

// The rewrite needs estimates saying it pays, and aggregates that fold.
func TestEagerAggregationDeclines(t *testing.T) {
	sum := logical.Agg{Func: logical.AggSum, Arg: 2}
	for _, c := range []struct {
		name  string
		plan  func() (*logical.Aggregate, fakeEstimates)
		fires bool
	}{
		{"few groups", func() (*logical.Aggregate, fakeEstimates) { return salesPlan(1e6, 100, sum) }, true},
		{"no estimates", func() (*logical.Aggregate, fakeEstimates) {
			a, _ := salesPlan(1e6, 100, sum)
			return a, fakeEstimates{}
		}, false},
		{"groups near the rows", func() (*logical.Aggregate, fakeEstimates) { return salesPlan(1e6, 1e6, sum) }, false},
		// the product (1e4 × 5) exceeds a quarter of 1e5 rows, but yr has
		// few values: a customer's rows split into no more groups by it
		{"a key of few values splits the join key's rows", func() (*logical.Aggregate, fakeEstimates) { return salesPlan(1e5, 1e4, sum) }, true},
		{"the join drops most rows", func() (*logical.Aggregate, fakeEstimates) {
			a, est := salesPlan(1e6, 100, sum)
			est.rows[a.Input.(*logical.Project).Input] = 1e5
			return a, est
		}, false},
		{"a filtered build side", func() (*logical.Aggregate, fakeEstimates) {
			a, est := salesPlan(1e6, 100, sum)
			est.filtered = map[logical.Node]bool{a.Input.(*logical.Project).Input.(*logical.Join).Right: true}
			return a, est
		}, false},
		{"a float sum over many rows", func() (*logical.Aggregate, fakeEstimates) {
			return salesPlan(1e6, 100, logical.Agg{Func: logical.AggSum, Arg: 3})
		}, true},
		{"a float sum over few rows", func() (*logical.Aggregate, fakeEstimates) {
			return salesPlan(1e4, 100, logical.Agg{Func: logical.AggSum, Arg: 3})
		}, false},
		{"an aggregate of the build side", func() (*logical.Aggregate, fakeEstimates) {
			return salesPlan(1e6, 100, logical.Agg{Func: logical.AggMax, Arg: 4})
		}, false},
		{"DISTINCT", func() (*logical.Aggregate, fakeEstimates) {
			return salesPlan(1e6, 100, logical.Agg{Func: logical.AggSum, Arg: 2, Distinct: true})
		}, false},
		{"an average", func() (*logical.Aggregate, fakeEstimates) {
			return salesPlan(1e6, 100, logical.Agg{Func: logical.AggAvg, Arg: 2, Out: types.NumericAnyT})
		}, false},
	} {
		a, est := c.plan()
		before := logical.String(a)
		out, fired := optimizeWith(t, a, est)
		if (fired == 1) != c.fires {
			t.Errorf("%s: fired %d, want %v:\n%s", c.name, fired, c.fires, logical.String(out))
		}
		if logical.String(a) != before {
			t.Errorf("%s: the input plan changed", c.name)
		}
	}
	// without the planner's estimates (nil), nothing is weighed
	a, _ := salesPlan(1e6, 100, sum)
	if _, fired := optimizeWith(t, a, nil); fired != 0 {
		t.Errorf("fired %d without estimates", fired)
	}
}

// A group key from the build side computed by the final grouping, a
// conditional aggregate whose condition reads the build side: the
// partial aggregation folds the probe value, the condition applies above.
func TestEagerAggregationConditional(t *testing.T) {
	agg, est := salesPlan(1e6, 100)
	pre := agg.Input.(*logical.Project)
	j := pre.Input.(*logical.Join)
	hot := &exec.Cmp{Op: exec.GT, L: &exec.ColRef{Idx: 5, T: types.TextT}, R: exec.NullConst(types.TextT)}
	cased := &exec.Case{When: []exec.Expr{hot}, Then: []exec.Expr{&exec.ColRef{Idx: 2, T: types.NumericT(12, 2)}}, Else: exec.NullConst(types.NumericT(12, 2)), T: types.NumericT(12, 2)}
	p := logical.NewProject(j, []exec.Expr{&exec.ColRef{Idx: 1, T: types.Int64T}, cased}, nil)
	a := logical.NewAggregate(p, 1, []logical.Agg{{Func: logical.AggSum, Arg: 1}})
	out, fired := optimizeWith(t, a, est)
	want := `Aggregate group by (#0) sum(#1)
  Project #0, Case(…)
    Join hash (#1 = #0) rows 1e+06
      Aggregate partial group by (#0, #1) sum(#2)
        Project #1, #0, #2
          Planned Values (c bigint, c bigint, c numeric(12,2), c double precision)
      Planned Values (c bigint, c text)`
	if got := logical.String(out); fired != 1 || got != want {
		t.Fatalf("fired %d, got\n%s\nwant\n%s", fired, got, want)
	}
}
