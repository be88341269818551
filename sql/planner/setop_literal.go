package planner

import (
	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/types"
)

// setOpOperand is column i of one branch of a set operation as its type
// resolution sees it: a bare string literal or NULL in a simple SELECT is
// still untyped there (PostgreSQL resolves SELECT 1 UNION SELECT 'x' to
// integer and then rejects 'x'), even though the branch planned it as
// text.
func setOpOperand(branch *pg.SelectStmt, i int, e exec.Expr) exec.Expr {
	if branch == nil || branch.Op != pg.SetOperation_SETOP_NONE || len(branch.ValuesLists) > 0 || i >= len(branch.TargetList) {
		return e
	}
	rt := branch.TargetList[i].GetResTarget()
	if rt == nil {
		return e
	}
	c := rt.Val.GetAConst()
	if c == nil || !(c.Isnull || c.GetSval() != nil) {
		return e
	}
	return &exec.ColRef{Idx: i, T: types.UnknownT}
}
