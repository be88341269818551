package aggregate

import (
	"context"
	"testing"
	"time"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/order"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

var env = &exec.Env{Loc: time.UTC, Now: time.Now()}

func TestAggregatesWithNullsAndGroups(t *testing.T) {
	g := texts("a", "b", "a", "a")
	x := ints(types.Int32T, 1, 5, 2, 0)
	x.Nulls = []bool{false, false, false, true}
	in := &exec.Values{Env: env, T: []types.T{types.TextT, types.Int32T}}
	for i := 0; i < 4; i++ {
		in.Rows = append(in.Rows, []exec.Expr{exec.NewConst(vec.Constant(g, i, 1)), exec.NewConst(vec.Constant(x, i, 1))})
	}
	avgT, _ := AggResultType(AggAvg, types.Int32T)
	sumT, _ := AggResultType(AggSum, types.Int32T)
	agg := &HashAgg{Input: in, NGroup: 1, Aggs: []Agg{
		{Kind: AggCountStar, Out: types.Int64T},
		{Kind: AggCount, Arg: 1, In: types.Int32T, Out: types.Int64T},
		{Kind: AggSum, Arg: 1, In: types.Int32T, Out: sumT},
		{Kind: AggAvg, Arg: 1, In: types.Int32T, Out: avgT},
		{Kind: AggMax, Arg: 1, In: types.Int32T, Out: types.Int32T},
	}}
	srt := &order.Sort{Input: agg, Keys: []order.SortKey{{Col: 0}}}
	var got []string
	err := exec.Drain(context.Background(), srt, func(b *vec.Batch) error {
		for i := 0; i < b.N; i++ {
			row := ""
			for _, v := range b.Vecs {
				if v.IsNull(i) {
					row += "NULL|"
				} else {
					row += string(v.AppendText(nil, i, time.UTC)) + "|"
				}
			}
			got = append(got, row)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a|3|2|3|1.5000000000000000|2|", "b|1|1|5|5.0000000000000000|5|"}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("got %q, want %q", got, want)
	}
}
