package physical

import (
	"fmt"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/aggregate"
	"github.com/lakepg/lakepg/exec/order"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/sql/planner/logical"
)

// Build returns the operators of plan n; env is the statement's, which the
// operators evaluating expressions keep.
func Build(env *exec.Env, n logical.Node) (exec.Operator, error) {
	return (&Builder{Env: env}).Build(n)
}

// Builder builds the operators of logical plans. With Built (not nil) it
// builds a node once: the operators of a node built before are returned
// again, so a plan whose parts the planner built first (the FROM items of
// a join graph, which it estimates and decorrelates subqueries over as
// operators) gets those same operators, and what the planner learned of
// them (estimates keyed by operator, pruned files) holds.
type Builder struct {
	Env   *exec.Env
	Built map[logical.Node]exec.Operator
}

// Build returns the operators of plan n.
func (b *Builder) Build(n logical.Node) (exec.Operator, error) {
	if b.Built == nil {
		return b.build(n)
	}
	if op, ok := b.Built[n]; ok {
		return op, nil
	}
	op, err := b.build(n)
	if err == nil {
		b.Built[n] = op
	}
	return op, err
}

func (b *Builder) build(n logical.Node) (exec.Operator, error) {
	env := b.Env
	switch x := n.(type) {
	case *logical.Planned:
		return x.Op, nil
	case *logical.Get:
		return x.Scan, nil
	case *logical.Join:
		return b.join(x)
	case *logical.JoinGraph:
		return nil, pgerr.New(pgerr.Internal, "physical: a join graph whose order is not chosen")
	case *logical.Project:
		in, err := b.Build(x.Input)
		if err != nil {
			return nil, err
		}
		return &exec.Project{Env: env, Input: in, Exprs: x.Exprs}, nil
	case *logical.Filter:
		if g, ok := x.Input.(*logical.Get); ok && g.Prune != nil {
			g.Prune(x.Pred)
		}
		in, err := b.Build(x.Input)
		if err != nil {
			return nil, err
		}
		return &exec.Filter{Env: env, Input: in, Pred: x.Pred}, nil
	case *logical.Distinct:
		in, err := b.Build(x.Input)
		if err != nil {
			return nil, err
		}
		return &aggregate.HashAgg{Input: in, NGroup: len(x.Columns())}, nil
	case *logical.DistinctOn:
		in, err := b.Build(x.Input)
		if err != nil {
			return nil, err
		}
		return &exec.DistinctOn{Input: in, Keys: x.Keys}, nil
	case *logical.Aggregate:
		in, err := b.Build(x.Input)
		if err != nil {
			return nil, err
		}
		aggs := make([]aggregate.Agg, len(x.Aggs))
		for i, a := range x.Aggs {
			if aggs[i], err = Agg(a); err != nil {
				return nil, err
			}
		}
		agg := &aggregate.HashAgg{Input: in, NGroup: x.NGroup, Aggs: aggs, GroupingSets: x.Sets, GroupingID: x.Sets != nil}
		if x.Partial {
			agg.Partial = &aggregate.Partial{}
		}
		return agg, nil
	case *logical.SetOp:
		l, err := b.Build(x.Left)
		if err != nil {
			return nil, err
		}
		r, err := b.Build(x.Right)
		if err != nil {
			return nil, err
		}
		if x.Kind == logical.Union {
			var op exec.Operator = &exec.Append{Inputs: []exec.Operator{l, r}}
			if !x.All {
				op = &aggregate.HashAgg{Input: op, NGroup: len(x.Cols)}
			}
			return op, nil
		}
		return &exec.SetOp{Left: l, Right: r, Intersect: x.Kind == logical.Intersect, All: x.All}, nil
	case *logical.Window:
		return b.window(x)
	case *logical.Apply:
		in, err := b.Build(x.Input)
		if err != nil {
			return nil, err
		}
		return x.Sub.Over(in, x.Test), nil
	case *logical.Sort:
		in, err := b.Build(x.Input)
		if err != nil {
			return nil, err
		}
		keys := make([]order.SortKey, len(x.Keys))
		for i, k := range x.Keys {
			keys[i] = order.SortKey{Col: k.Col, Desc: k.Desc, NullsFirst: k.NullsFirst}
		}
		return &order.Sort{Input: in, Keys: keys}, nil
	case *logical.Limit:
		in, err := b.Build(x.Input)
		if err != nil {
			return nil, err
		}
		if x.TieKeys != nil {
			return &exec.LimitTies{Input: in, Offset: x.Offset, Count: x.Count, Keys: x.TieKeys}, nil
		}
		if _, sorted := x.Input.(*logical.Sort); sorted && x.Count >= 0 {
			// top-N: the sort keeps only what the limit can return (a sort
			// Build made, never one of a Planned leaf)
			in.(*order.Sort).Limit = x.Offset + x.Count
		}
		return &exec.Limit{Input: in, Offset: x.Offset, Count: x.Count}, nil
	}
	return nil, pgerr.New(pgerr.Internal, "physical: no operator for %s", fmt.Sprintf("%T", n))
}

// join is the hash join of x on its keys (a nested loop without keys),
// then a Filter for each of its filters: one each, as for a FROM item's
// conjuncts, so that each narrows the rows the next evaluates.
func (b *Builder) join(x *logical.Join) (exec.Operator, error) {
	l, err := b.Build(x.Left)
	if err != nil {
		return nil, err
	}
	r, err := b.Build(x.Right)
	if err != nil {
		return nil, err
	}
	if int(x.Kind) >= len(joinTypes) {
		return nil, pgerr.New(pgerr.Internal, "physical: join kind %d", x.Kind)
	}
	typ := joinTypes[x.Kind]
	var op exec.Operator
	switch {
	case len(x.LeftKeys) > 0 && (x.Kind == logical.LeftJoin || x.Kind == logical.AntiJoin || x.Kind == logical.SemiJoin) && x.LeftSmall:
		op = b.leftBuildsLeft(x, l, r)
	case len(x.LeftKeys) > 0:
		op = &exec.HashJoin{Env: b.Env, Left: l, Right: r, LeftKeys: x.LeftKeys, RightKeys: x.RightKeys, Extra: x.On, Type: typ}
	default:
		op = &exec.NestedLoopJoin{Env: b.Env, Left: l, Right: r, On: x.On, Type: typ}
	}
	for _, f := range x.Filters {
		op = &exec.Filter{Env: b.Env, Input: op, Pred: f}
	}
	return op, nil
}

var joinTypes = [...]exec.JoinType{logical.InnerJoin: exec.JoinInner, logical.LeftJoin: exec.JoinLeft,
	logical.RightJoin: exec.JoinRight, logical.FullJoin: exec.JoinFull, logical.AntiJoin: exec.JoinAnti,
	logical.SemiJoin: exec.JoinSemi, logical.AntiNullAwareJoin: exec.JoinAntiNullAware}

// leftBuildsLeft is LEFT, semi or anti join x whose side l, the one it
// keeps rows of, is the smaller: a RIGHT (semi, anti) hash join with the
// sides swapped builds its table on l, and a projection puts a RIGHT
// join's columns back in order.
func (b *Builder) leftBuildsLeft(x *logical.Join, l, r exec.Operator) exec.Operator {
	nl, nr := len(x.Left.Columns()), len(x.Right.Columns())
	swap := func(i int) int {
		if i < nl {
			return nr + i
		}
		return i - nl
	}
	on := x.On
	if on != nil {
		on = exec.MapColumns(on, swap)
	}
	j := &exec.HashJoin{Env: b.Env, Left: r, Right: l, LeftKeys: x.RightKeys, RightKeys: x.LeftKeys, Extra: on, Type: exec.JoinRight}
	switch x.Kind {
	case logical.AntiJoin:
		j.Type = exec.JoinRightAnti // l's unmatched rows: its columns alone
		return j
	case logical.SemiJoin:
		j.Type = exec.JoinRightSemi // l's matched rows, each once
		return j
	}
	ts := j.Types()
	back := make([]exec.Expr, nl+nr)
	for i := range back {
		back[i] = &exec.ColRef{Idx: swap(i), T: ts[swap(i)]}
	}
	return &exec.Project{Env: b.Env, Input: j, Exprs: back}
}

// Agg is the executor's aggregate of logical aggregate a.
func Agg(a logical.Agg) (aggregate.Agg, error) {
	if int(a.Func) >= len(aggKinds) || a.Func == 0 {
		return aggregate.Agg{}, pgerr.New(pgerr.Internal, "physical: aggregate %d", a.Func)
	}
	agg := aggregate.Agg{Kind: aggKinds[a.Func], Arg: a.Arg, Arg2: a.Arg2, In: a.In, Out: a.Out,
		Distinct: a.Distinct, Filter: a.Filter, Desc: a.Desc}
	if a.Order != nil {
		agg.Order = make([]aggregate.AggOrder, len(a.Order))
		for k, o := range a.Order {
			agg.Order[k] = aggregate.AggOrder{Col: o.Col, Desc: o.Desc, NullsFirst: o.NullsFirst}
		}
	}
	return agg, nil
}

// LogicalAgg is the logical aggregate of the executor's a.
func LogicalAgg(a aggregate.Agg) (logical.Agg, error) {
	f, ok := AggFunc(a.Kind)
	if !ok {
		return logical.Agg{}, pgerr.New(pgerr.Internal, "no logical aggregate for %s", a.Kind.Name())
	}
	la := logical.Agg{Func: f, Arg: a.Arg, Arg2: a.Arg2, Distinct: a.Distinct, Filter: a.Filter,
		Desc: a.Desc, In: a.In, Out: a.Out}
	if a.Order != nil {
		la.Order = make([]logical.SortKey, len(a.Order))
		for k, o := range a.Order {
			la.Order[k] = logical.SortKey{Col: o.Col, Desc: o.Desc, NullsFirst: o.NullsFirst}
		}
	}
	return la, nil
}

// aggKinds are the executor's aggregates of the logical ones.
var aggKinds = [...]aggregate.AggKind{
	logical.AggCountStar: aggregate.AggCountStar, logical.AggCount: aggregate.AggCount,
	logical.AggSum: aggregate.AggSum, logical.AggAvg: aggregate.AggAvg,
	logical.AggMin: aggregate.AggMin, logical.AggMax: aggregate.AggMax,
	logical.AggStddevSamp: aggregate.AggStddevSamp, logical.AggStddevPop: aggregate.AggStddevPop,
	logical.AggVarSamp: aggregate.AggVarSamp, logical.AggVarPop: aggregate.AggVarPop,
	logical.AggBoolAnd: aggregate.AggBoolAnd, logical.AggBoolOr: aggregate.AggBoolOr,
	logical.AggStringAgg: aggregate.AggStringAgg, logical.AggPercentileCont: aggregate.AggPercentileCont,
	logical.AggPercentileDisc: aggregate.AggPercentileDisc, logical.AggMode: aggregate.AggMode,
}

// AggFunc is the logical aggregate of the executor's kind k.
func AggFunc(k aggregate.AggKind) (logical.AggFunc, bool) {
	for f, kind := range aggKinds {
		if f != 0 && kind == k {
			return logical.AggFunc(f), true
		}
	}
	return 0, false
}
