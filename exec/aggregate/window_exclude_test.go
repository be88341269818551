package aggregate

import (
	"strings"
	"testing"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/order"
	"github.com/lakepg/lakepg/types"
)

// windowExcludeGolden holds PostgreSQL 15's answers (ordered by id) over the
// window tests' table w for the frames with EXCLUDE spelled out next to each
// case of TestWindowExcludeLikePostgres.
var windowExcludeGolden = map[string]string{
	"M": `0|23|2|5
1|54|0|17
2|54|0|17
3|57|1|15
4|62|1|15
5|63|1|15
6|59|1|15
7|60|1|15
8|61|1|15
9|48|0|17
10|59|1|15
11|57|0|17
12|57|0|17
13|57|0|17
14|56|1|15
15|57|0|17
16|62|1|15
17|55|1|15
18|56|0|17
19|57|0|17
20|54|1|15
21|63|1|15
22|55|0|17
23|22|2|5
24|59|1|15
25|21|2|5
26|55|0|17
27|23|2|5
28|58|1|15
29|53|0|17
30|48|0|17
31|50|0|17
32|52|0|17
33|56|1|15
34|25|2|5
35|51|0|17
36|53|0|17
37|26|3|5
38|55|0|17
39|61|1|15`,
	"N": `0|43|9|4.71|4
1|35|12|4.61|2
2|35|12|4.61|2
3|54|9|4.78|5
4|13|9|4.7|0
5|27|4|2.37|9
6|36|9|4.71|3
7|35|12|4.61|2
8|17|8|4.69|1
9|17|7|4.78|8
10|36|9|4.71|3
11|3|4|4.7|0
12|27|4|2.37|9
13|27|4|4.78|9
14|33|5|4.58|6
15|27|4|3.99|9
16|13|9|4.7|0
17|63|8|4.78|7
18|13|9|4.7|0
19|3|4|3.61|0
20|17|7|4.78|8
21|27|4|2.37|9
22|17|8|4.69|1
23|54|9|4.78|5
24|36|9|4.71|3
25|33|5|4.58|6
26|17|8|4.69|1
27|43|9|4.61|4
28|43|9|4.61|4
29|36|9|4.71|3
30|17|7|4.78|8
31|33|5|4.58|6
32|43|9|4.61|4
33|33|5|4.78|6
34|35|12|4.69|2
35|54|9|4.78|5
36|36|9|4.71|3
37|17|8|4.69|1
38|17|8|4.69|1
39|17|8|4.69|1`,
	"O": `0|5|4.0600000000000005|3|3
1|7|3.8100000000000005|2|0
2|10|3.9480000000000004|3|0
3|26|2.7422222222222223|5|1
4||||
5|63|2.8507692307692305|9|1
6|9|2.836|3|1
7|6|2.4275|2|1
8|2|2.825|1|1
9|39|2.9318181818181817|7|0
10|13|2.5283333333333333|4|1
11||||
12|57|2.885|9|0
13|57|2.8038461538461537||0
14|32|2.9259999999999997|6|1
15|57|2.945||0
16|1|3.09|1|
17|46|2.9841666666666664|7|1
18|0|4.7|0|0
19|0|4.7|0|
20|54|2.9841666666666664|8|1
21|63|2.7221428571428565||1
22|1|4.155|1|0
23|15|3.8225000000000007|5|3
24|17|2.392857142857143|4|1
25|21|3.492|6|3
26|3|3.7100000000000004|2|0
27|10|4.276666666666667|5|3
28|21|2.67|4|1
29|13|3.3750000000000004|3|0
30|48|2.9318181818181817|9|0
31|32|2.9750000000000005|6|0
32|21|2.7137500000000006|4|0
33|39|2.820909090909091|7|1
34|2|3.43|2|
35|26|2.8722222222222227|5|0
36|17|3.081428571428572|4|0
37||||
38|5|3.8100000000000005|2|0
39|4|2.3233333333333337|2|1`,
	"P": `0|38|8|0.14|6
1|32|11|0.14|4
2|32|11|0.14|4
3|48|8|1.59|7
4|12|8|1.32|2
5||0||
6|32|8|0.51|5
7|32|11|0.14|4
8|15|7|0.51|3
9|8|1||8
10|32|8|0.51|5
11|3|3|2.56|1
12||0||
13||0||
14|26|4|2.17|8
15||0||
16|12|8|1.32|2
17|55|7|1.25|9
18|12|8|1.32|2
19|3|3|2.56|1
20|8|1||8
21||0||
22|15|7|0.51|3
23|48|8|1.59|7
24|32|8|0.51|5
25|26|4|2.17|8
26|15|7|0.51|3
27|38|8|0.14|6
28|38|8|0.14|6
29|32|8|0.51|5
30|8|1||8
31|26|4|2.17|8
32|38|8|0.14|6
33|26|4|2.17|8
34|32|11|0.14|4
35|48|8|1.59|7
36|32|8|0.51|5
37|15|7|0.51|3
38|15|7|0.51|3
39|15|7|0.51|3`,
}

func TestWindowExcludeLikePostgres(t *testing.T) {
	const id, g, x, f = 0, 1, 2, 3
	aggFunc := func(k AggKind, arg int, in types.T) WindowFunc {
		return WindowFunc{Kind: WinAgg, Agg: mkAgg(t, k, arg, in)}
	}
	withFrame := func(fr Frame, fs ...WindowFunc) []WindowFunc {
		for i := range fs {
			fs[i].Frame = fr
		}
		return fs
	}
	pre := func(n int64) FrameBound { return FrameBound{Kind: BoundPreceding, Offset: n} }
	fol := func(n int64) FrameBound { return FrameBound{Kind: BoundFollowing, Offset: n} }
	cur := FrameBound{Kind: BoundCurrentRow}
	unbP, unbF := FrameBound{Kind: BoundUnboundedPreceding}, FrameBound{Kind: BoundUnboundedFollowing}
	const two = 6 // windowInput's constant 2, the argument of nth_value
	cases := []struct {
		name  string
		part  []int
		order []order.SortKey
		funcs []WindowFunc
	}{
		// M: (partition by g order by x range between unbounded preceding and
		// unbounded following exclude current row): sum(x), min(x), count(*)
		{"M", []int{g}, []order.SortKey{{Col: x}}, withFrame(Frame{Mode: FrameRange, Start: unbP, End: unbF, Exclude: ExcludeCurrentRow},
			aggFunc(AggSum, x, types.Int32T), aggFunc(AggMin, x, types.Int32T), aggFunc(AggCountStar, 0, types.Int32T))},
		// N: (order by x groups between 1 preceding and 1 following exclude
		// ties): sum(x), count(*), max(f), first_value(x)
		{"N", nil, []order.SortKey{{Col: x}}, withFrame(Frame{Mode: FrameGroups, Start: pre(1), End: fol(1), Exclude: ExcludeTies},
			aggFunc(AggSum, x, types.Int32T), aggFunc(AggCountStar, 0, types.Int32T), aggFunc(AggMax, f, types.Float64T), WindowFunc{Kind: WinFirstValue, Args: []int{x}})},
		// O: (partition by g order by x, id rows between unbounded preceding
		// and current row exclude current row): sum(x), avg(f), last_value(x),
		// nth_value(x, 2)
		{"O", []int{g}, []order.SortKey{{Col: x}, {Col: id}}, withFrame(Frame{Mode: FrameRows, Start: unbP, End: cur, Exclude: ExcludeCurrentRow},
			aggFunc(AggSum, x, types.Int32T), aggFunc(AggAvg, f, types.Float64T), WindowFunc{Kind: WinLastValue, Args: []int{x}}, WindowFunc{Kind: WinNthValue, Args: []int{x, two}})},
		// P: (order by x range between 1 preceding and 1 following exclude
		// group): sum(x), count(x), min(f), last_value(x)
		{"P", nil, []order.SortKey{{Col: x}}, withFrame(Frame{Mode: FrameRange, Start: pre(1), End: fol(1), Exclude: ExcludeGroup},
			aggFunc(AggSum, x, types.Int32T), aggFunc(AggCount, x, types.Int32T), aggFunc(AggMin, f, types.Float64T), WindowFunc{Kind: WinLastValue, Args: []int{x}})},
	}
	for _, c := range cases {
		in := windowInput()
		w := &Window{Env: env, Input: in, PartitionBy: c.part, OrderBy: c.order, Funcs: c.funcs}
		nin := len(in.Types())
		proj := []exec.Expr{col(id, types.Int32T)}
		wt := w.Types()
		for i := range c.funcs {
			proj = append(proj, col(nin+i, wt[nin+i]))
		}
		got := collect(t, &exec.Project{Env: env, Input: w, Exprs: proj})
		for i, r := range got { // psql -A prints NULL as nothing
			fs := strings.Split(r, "|")
			for k := range fs {
				if fs[k] == "NULL" {
					fs[k] = ""
				}
			}
			got[i] = strings.Join(fs, "|")
		}
		sameRows(t, c.name, got, strings.Split(windowExcludeGolden[c.name], "\n"))
	}
}
