package planner

import (
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/aggregate"
	"github.com/lakepg/lakepg/sql/planner/logical"
	"github.com/lakepg/lakepg/sql/planner/optimize"
	"github.com/lakepg/lakepg/sql/planner/physical"
	pg "github.com/pganalyze/pg_query_go/v6"
)

// The parts of a query planned as a logical plan (sql/planner/logical) so
// far: set operations, and the ORDER BY / LIMIT of a set operation or a
// VALUES list. Their plan is built here, rewritten by the optimizer's
// rules (sql/planner/optimize) and turned into operators by physical
// planning (sql/planner/physical) where a caller needs operators: once per
// such query, whatever the number of set operations nested in it.

// logicalSelect reports whether PlanSelect plans sel (which has no WITH)
// as a logical plan.
func logicalSelect(sel *pg.SelectStmt) bool {
	if sel.Op != pg.SetOperation_SETOP_NONE {
		return true
	}
	return len(sel.ValuesLists) > 0 && (len(sel.SortClause) > 0 || sel.LimitCount != nil || sel.LimitOffset != nil)
}

// selectNode plans sel (logicalSelect) as a logical plan, and the table
// scans under it.
func (qc *QueryCtx) selectNode(sel *pg.SelectStmt) (logical.Node, []*exec.TableScan, error) {
	if sel.Op != pg.SetOperation_SETOP_NONE {
		return qc.setOpNode(sel)
	}
	q, err := qc.s.planValues(qc.binder(), sel.ValuesLists)
	if err != nil {
		return nil, nil, err
	}
	n, err := qc.orderLimitNode(sel, planned(q))
	return n, q.scans, err
}

// inputNode is an input of a set operation: its logical plan when it has
// one, else the operators the planner builds for it as a Planned leaf.
func (qc *QueryCtx) inputNode(sel *pg.SelectStmt) (logical.Node, []Column, []*exec.TableScan, error) {
	if sel.WithClause == nil && logicalSelect(sel) {
		n, scans, err := qc.selectNode(sel)
		if err != nil {
			return nil, nil, nil, err
		}
		return n, columnsOf(n), scans, nil
	}
	q, err := qc.PlanSelect(sel)
	if err != nil {
		return nil, nil, nil, err
	}
	return planned(q), q.Cols, q.scans, nil
}

// planned is the leaf of a logical plan holding query q's operators.
func planned(q *query) *logical.Planned {
	cols := make([]logical.Column, len(q.Cols))
	for i, c := range q.Cols {
		cols[i] = logical.Column{Name: c.Name, Type: c.Type}
	}
	return &logical.Planned{Op: q.Op, Cols: cols, Distinct: distinctRows(q.Op, len(cols))}
}

func columnsOf(n logical.Node) []Column {
	lc := n.Columns()
	cols := make([]Column, len(lc))
	for i, c := range lc {
		cols[i] = Column{Name: c.Name, Type: c.Type}
	}
	return cols
}

// physicalQuery runs the rules over logical plan n and plans its operators.
func (qc *QueryCtx) physicalQuery(n logical.Node, scans []*exec.TableScan) (*query, error) {
	n, err := optimize.Optimize(n, qc.ruleOn, func(rule string, changes int) {
		for range changes {
			qc.fired(rule)
		}
	})
	if err != nil {
		return nil, err
	}
	if qc.s.logicalPlans != nil {
		*qc.s.logicalPlans = append(*qc.s.logicalPlans, logical.String(n))
	}
	op, err := physical.Build(qc.env, n)
	if err != nil {
		return nil, err
	}
	return &query{Op: op, Cols: columnsOf(n), scans: scans}, nil
}

// distinctRows reports whether op's rows of ncol columns are known to be
// distinct: a DISTINCT aggregate over exactly those columns, a set
// operation without ALL, or a projection that only renames or casts their
// columns one to one. It is what a Planned leaf tells the rules
// (logical.Planned.Distinct) until the operators it reads are logical
// nodes too.
func distinctRows(op exec.Operator, ncol int) bool {
	switch o := op.(type) {
	case *aggregate.HashAgg:
		return len(o.Aggs) == 0 && o.GroupingSets == nil && !o.GroupingID && o.NGroup == ncol
	case *exec.SetOp:
		return !o.All
	case *exec.Project:
		if len(o.Exprs) != ncol || len(o.Input.Types()) != ncol {
			return false
		}
		for i, e := range o.Exprs {
			if c, ok := e.(*exec.ColRef); !ok || c.Idx != i {
				return false
			}
		}
		return distinctRows(o.Input, ncol)
	}
	return false
}
