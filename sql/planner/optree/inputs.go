package optree

import (
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/aggregate"
	"github.com/lakepg/lakepg/exec/order"
)

// Inputs returns pointers to an operator's inputs so they can be wrapped.
func Inputs(op exec.Operator) []*exec.Operator {
	switch o := op.(type) {
	case *exec.Filter:
		return []*exec.Operator{&o.Input}
	case *exec.Project:
		return []*exec.Operator{&o.Input}
	case *aggregate.HashAgg:
		return []*exec.Operator{&o.Input}
	case *order.Sort:
		return []*exec.Operator{&o.Input}
	case *exec.Limit:
		return []*exec.Operator{&o.Input}
	case *exec.LimitTies:
		return []*exec.Operator{&o.Input}
	case *exec.DistinctOn:
		return []*exec.Operator{&o.Input}
	case *exec.RowNumber:
		return []*exec.Operator{&o.Input}
	case *exec.HashJoin:
		return []*exec.Operator{&o.Left, &o.Right}
	case *exec.NestedLoopJoin:
		return []*exec.Operator{&o.Left, &o.Right}
	case *exec.SetOp:
		return []*exec.Operator{&o.Left, &o.Right}
	case *exec.Append:
		out := make([]*exec.Operator, len(o.Inputs))
		for i := range o.Inputs {
			out[i] = &o.Inputs[i]
		}
		return out
	case *exec.RecursiveUnion:
		return []*exec.Operator{&o.Base}
	case *aggregate.Window:
		return []*exec.Operator{&o.Input}
	case *exec.Timed:
		return []*exec.Operator{&o.Input}
	case *exec.MaterializedReader:
		return []*exec.Operator{&o.M.Input}
	}
	return nil
}

// EachOnce calls fn for every operator of op's tree, an operator's inputs
// before it, and an operator read twice (a WITH query's rows) once.
func EachOnce(op exec.Operator, fn func(exec.Operator)) {
	seen := map[exec.Operator]bool{}
	var walk func(op exec.Operator)
	walk = func(op exec.Operator) {
		if op == nil || seen[op] {
			return
		}
		seen[op] = true
		for _, in := range Inputs(op) {
			walk(*in)
		}
		fn(op)
	}
	walk(op)
}
