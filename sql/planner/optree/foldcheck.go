package optree

import "github.com/lakepg/lakepg/exec"

// FoldErrors raises what PostgreSQL's planner raises while folding the
// constant subexpressions of a plan (see exec.FoldError): the expressions
// of every operator still in the plan once unused columns are pruned, as
// PostgreSQL never folds a subquery's output that nothing reads.
func FoldErrors(env *exec.Env, op exec.Operator) error {
	var exprs []exec.Expr
	switch o := op.(type) {
	case *exec.Project:
		exprs = o.Exprs
	case *exec.Filter:
		exprs = []exec.Expr{o.Pred}
	case *exec.HashJoin:
		exprs = append(append(append(exprs, o.LeftKeys...), o.RightKeys...), o.Extra)
	case *exec.NestedLoopJoin:
		exprs = []exec.Expr{o.On}
	}
	for _, e := range exprs {
		if err := exec.FoldError(env, e); err != nil {
			return err
		}
	}
	for _, in := range Inputs(op) {
		if err := FoldErrors(env, *in); err != nil {
			return err
		}
	}
	return nil
}
