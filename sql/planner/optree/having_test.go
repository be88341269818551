package optree

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/aggregate"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

var havingEnv = &exec.Env{Loc: time.UTC, Now: time.Now()}

// q39's shape: groups of (k, x) with avg(x) and stddev_samp(x) * 1.000,
// kept where CASE avg WHEN 0 THEN 0 ELSE CAST(sd AS float8) / avg END > 1
// (avg cast to float8 for the division).
func q39Shape(t *testing.T, pred func(sd, avg exec.Expr) exec.Expr) (*exec.Filter, *aggregate.HashAgg) {
	t.Helper()
	k, x := vec.New(types.Int64T, 0), vec.New(types.Int64T, 0)
	for g := int64(0); g < 500; g++ {
		for r := int64(0); r <= g%4; r++ {
			k.AppendInt(g)
			x.AppendInt((g*7919 + r*r*104729) % (1 + g%50))
		}
	}
	src := &exec.BatchSource{B: &vec.Batch{Vecs: []*vec.Vector{k, x}, N: k.Len()}, T: []types.T{types.Int64T, types.Int64T}}
	mk := func(kind aggregate.AggKind) aggregate.Agg {
		out, err := aggregate.AggResultType(kind, types.Int64T)
		if err != nil {
			t.Fatal(err)
		}
		return aggregate.Agg{Kind: kind, Arg: 1, In: types.Int64T, Out: out}
	}
	h := &aggregate.HashAgg{Input: src, NGroup: 1, Aggs: []aggregate.Agg{mk(aggregate.AggStddevSamp), mk(aggregate.AggAvg)}}
	num := types.NumericAnyT
	one := vec.New(types.NumericT(4, 3), 1)
	one.AppendInt(1000)
	p := &exec.Project{Env: havingEnv, Input: h, Exprs: []exec.Expr{
		&exec.ColRef{Idx: 0, T: types.Int64T},
		&exec.Arith{Op: '*', L: &exec.ColRef{Idx: 1, T: num}, R: exec.NewConst(one), T: num},
		&exec.ColRef{Idx: 2, T: num},
	}}
	sd, avg := &exec.ColRef{Idx: 1, T: num}, &exec.ColRef{Idx: 2, T: num}
	return &exec.Filter{Env: havingEnv, Input: p, Pred: pred(sd, avg)}, h
}

func numConst(t types.T, x int64) *exec.Const {
	v := vec.New(t, 1)
	v.AppendInt(x)
	return exec.NewConst(v)
}

func f64Const(f float64) *exec.Const {
	v := vec.New(types.Float64T, 1)
	v.AppendFloat(f)
	return exec.NewConst(v)
}

func q39Cond(sd, avg exec.Expr) exec.Expr {
	f := types.Float64T
	return &exec.Cmp{Op: exec.GT, L: &exec.Case{
		When: []exec.Expr{&exec.Cmp{Op: exec.EQ, L: avg, R: numConst(types.NumericT(18, 0), 0)}},
		Then: []exec.Expr{f64Const(0)},
		Else: &exec.Arith{Op: '/', L: &exec.Cast{E: sd, To: f}, R: &exec.Cast{E: avg, To: f}, T: f},
		T:    f,
	}, R: f64Const(1)}
}

func filterRows(t *testing.T, op exec.Operator) []string {
	t.Helper()
	var rows []string
	for {
		b, err := op.Next(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if b == nil || b.N == 0 {
			break
		}
		for i := 0; i < b.N; i++ {
			var cols []string
			for _, v := range b.Vecs {
				cols = append(cols, string(v.AppendText(nil, i, time.UTC)))
			}
			rows = append(rows, strings.Join(cols, "|"))
		}
	}
	slices.Sort(rows)
	return rows
}

// The filter of q39's shape is given to the aggregation, reading both
// aggregates as float8, and the rows are the filter's alone.
func TestAggregateHavingQ39(t *testing.T) {
	f, _ := q39Shape(t, q39Cond)
	want := filterRows(t, f)
	f, h := q39Shape(t, q39Cond)
	if n := AggregateHaving(f); n != 1 || h.Having == nil || !slices.Equal(h.Having.Aggs, []int{1, 0}) {
		t.Fatalf("given %d, having %+v", n, h.Having)
	}
	got := filterRows(t, f)
	if len(want) == 0 || len(want) > 400 || !slices.Equal(got, want) {
		t.Fatalf("%d rows with the aggregation's test, %d without:\n%v\n%v", len(got), len(want), got, want)
	}
}

// Conditions whose rewrite could leave out a group the filter keeps, or
// fail where it does not, stay with the filter alone.
func TestAggregateHavingRefuses(t *testing.T) {
	for name, pred := range map[string]func(sd, avg exec.Expr) exec.Expr{
		// avg > 5 as numeric: the float8 of a value near 5 may equal 5's
		"numeric comparison": func(sd, avg exec.Expr) exec.Expr {
			return &exec.Cmp{Op: exec.GT, L: avg, R: numConst(types.NumericT(18, 0), 5)}
		},
		// sd * 1.000 read as numeric
		"scaled column": func(sd, avg exec.Expr) exec.Expr {
			return &exec.IsNull{E: sd, Not: true}
		},
		"function call": func(sd, avg exec.Expr) exec.Expr {
			return &exec.Func{Name: "f", Args: []exec.Expr{&exec.Cast{E: avg, To: types.Float64T}}, T: types.BoolT,
				Fn: func(out *vec.Vector, args []*vec.Vector, i int) error { out.AppendBool(true); return nil }}
		},
		"keys alone": func(sd, avg exec.Expr) exec.Expr {
			return &exec.Cmp{Op: exec.GT, L: &exec.ColRef{Idx: 0, T: types.Int64T}, R: numConst(types.Int64T, 3)}
		},
		"text of the average": func(sd, avg exec.Expr) exec.Expr {
			zero := vec.New(types.TextT, 1)
			zero.AppendString("0")
			return &exec.Cmp{Op: exec.EQ, L: &exec.Cast{E: avg, To: types.TextT}, R: exec.NewConst(zero)}
		},
	} {
		f, h := q39Shape(t, pred)
		if n := AggregateHaving(f); n != 0 || h.Having != nil {
			t.Errorf("%s: given to the aggregation", name)
		}
	}
	// the aggregation read by another operator too
	f, h := q39Shape(t, q39Cond)
	both := &exec.Append{Inputs: []exec.Operator{f, &exec.Project{Env: havingEnv, Input: h, Exprs: []exec.Expr{&exec.ColRef{Idx: 0, T: types.Int64T}}}}}
	if n := AggregateHaving(both); n != 0 || h.Having != nil {
		t.Errorf("an aggregation read twice: given to it")
	}
}
