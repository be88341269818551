package planner

import (
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/sql/planner/bind"
	"github.com/lakepg/lakepg/sql/planner/logical"
	"github.com/lakepg/lakepg/sql/planner/physical"
	pg "github.com/pganalyze/pg_query_go/v6"
)

// windowNode puts the windows wc collected over in, in the order they
// were written (rule window_order reorders them): a Project of in's
// columns and the windows' inputs (their PARTITION BY, ORDER BY and
// arguments), then one Window per distinct PARTITION BY / ORDER BY,
// stacked. It points the expressions of lists that refer to window
// results (the binder's placeholders) at their columns, in place.
func (qc *QueryCtx) windowNode(sel *pg.SelectStmt, wc *bind.WindowCollector, in logical.Node, lists ...[]exec.Expr) (logical.Node, error) {
	if len(wc.Specs) == 0 {
		return in, nil
	}
	ic := in.Columns()
	n := len(ic)
	pre := make([]exec.Expr, 0, n+len(wc.Exprs))
	names := make([]string, n)
	for i, c := range ic {
		pre = append(pre, &exec.ColRef{Idx: i, T: c.Type})
		names[i] = c.Name
	}
	pre = append(pre, wc.Exprs...)
	var node logical.Node = logical.NewProject(in, pre, names)
	parallel := qc.parallelWindows(sel)
	pos := make([]int, wc.NRefs())
	width := len(pre)
	for _, s := range wc.Specs {
		part := make([]int, len(s.Partition))
		for i, p := range s.Partition {
			part[i] = n + p
		}
		order := logicalKeys(s.Order)
		for i := range order {
			order[i].Col += n
		}
		calls := make([]logical.WindowCall, len(s.Funcs))
		for i, f := range s.Funcs {
			c, err := physical.LogicalWindowCall(f, wc.RefType(s.Refs[i]))
			if err != nil {
				return nil, err
			}
			c.Args = make([]int, len(f.Args))
			for k, a := range f.Args {
				c.Args[k] = n + a
			}
			if c.Func == logical.WinAgg {
				c.Agg.Arg += n
				if c.Agg.Func == logical.AggStringAgg {
					c.Agg.Arg2 += n
				}
				if c.Agg.Filter > 0 {
					c.Agg.Filter += n
				}
			}
			calls[i] = c
			pos[s.Refs[i]] = width + i
		}
		w := logical.NewWindow(node, part, order, calls, parallel && len(part) > 0)
		if w.Parallel {
			qc.fired(ruleParallelWindows)
		}
		width += len(calls)
		node = w
	}
	remap := func(i int) int {
		if i >= bind.WinRefBase && i < bind.LateSubRef {
			return pos[i-bind.WinRefBase]
		}
		return i
	}
	for _, l := range lists {
		for i, e := range l {
			l[i] = exec.MapColumns(e, remap)
		}
	}
	return node, nil
}
