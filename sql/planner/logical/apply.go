package logical

import (
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/types"
)

// SubqueryKind is what an Apply computes of its subquery.
type SubqueryKind uint8

const (
	SubScalar SubqueryKind = iota + 1 // (subquery): its only value, NULL without rows
	SubExists                         // EXISTS (subquery)
	SubArray                          // ARRAY(subquery)
	SubAny                            // test op ANY (subquery), IN
	SubAll                            // test op ALL (subquery)
)

var subqueryKindNames = [...]string{SubScalar: "scalar", SubExists: "exists", SubArray: "array", SubAny: "any", SubAll: "all"}

func (k SubqueryKind) String() string {
	if int(k) < len(subqueryKindNames) && subqueryKindNames[k] != "" {
		return subqueryKindNames[k]
	}
	return "?"
}

// Subquery is the correlated subquery of an Apply as the planner planned
// it, to run for each row of the Apply's input: the seam for subqueries
// until they are logical plans of their own (or decorrelated into joins).
// Rules see the Apply's input and columns, never the subquery.
type Subquery interface {
	// Over is the operator that adds the subquery's value to each row of
	// in, testing test (an IN/ANY/ALL's left operand over in's columns)
	// against its rows (physical planning calls it once, with the Apply's
	// input and Test).
	Over(in exec.Operator, test exec.Expr) exec.Operator
}

// Apply adds to each row of its input one column: the value of Sub, a
// correlated subquery, for that row (Kind says which value; for SubAny
// and SubAll, Test is the left operand over the input's columns, which
// rules that move those columns rewrite). Its columns are its input's,
// then that one.
type Apply struct {
	Input Node
	Kind  SubqueryKind
	Sub   Subquery
	Test  exec.Expr
	Cols  []Column
}

// NewApply is an Apply with its columns filled in: in's, then one of
// type t named after kind.
func NewApply(in Node, kind SubqueryKind, sub Subquery, test exec.Expr, t types.T) *Apply {
	ic := in.Columns()
	cols := append(append(make([]Column, 0, len(ic)+1), ic...), Column{Name: kind.String(), Type: t})
	return &Apply{Input: in, Kind: kind, Sub: sub, Test: test, Cols: cols}
}

func (n *Apply) Columns() []Column { return n.Cols }
func (n *Apply) Inputs() []Node    { return []Node{n.Input} }
