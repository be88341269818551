package logical

import (
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/types"
)

// Column is one output column of a node.
type Column struct {
	Name string
	Type types.T
}

// Node is a relational operator of the logical plan.
type Node interface {
	// Columns are the node's output columns, in order. Callers must not
	// modify the slice.
	Columns() []Column
	// Inputs are the node's inputs, left to right (none for a leaf).
	Inputs() []Node
}

// Planned is a subtree the planner has already planned into exec
// operators: the seam between the part of planning that builds logical
// nodes and the part that does not yet. Distinct says its rows are known
// to be distinct over all its columns (the planner decides it from the
// operators, which rules do not look at).
type Planned struct {
	Op       exec.Operator
	Cols     []Column
	Distinct bool
}

// Project computes Exprs over its input's rows, one output column each.
type Project struct {
	Input Node
	Exprs []exec.Expr
	Cols  []Column
}

// NewProject is a Project naming its columns names (unnamed past the end).
func NewProject(in Node, exprs []exec.Expr, names []string) *Project {
	cols := make([]Column, len(exprs))
	for i, e := range exprs {
		if i < len(names) {
			cols[i].Name = names[i]
		}
		cols[i].Type = e.Type()
	}
	return &Project{Input: in, Exprs: exprs, Cols: cols}
}

// Filter keeps the rows for which Pred is true.
type Filter struct {
	Input Node
	Pred  exec.Expr
}

// Distinct keeps one row of each group of equal rows (NULLs equal).
type Distinct struct {
	Input Node
}

// DistinctOn keeps the first row of each run of rows equal on Keys (NULLs
// equal): with its input sorted by them, one row per distinct key.
type DistinctOn struct {
	Input Node
	Keys  []int
}

// AggFunc is an aggregate function of Aggregate: one per kind of
// aggregate the executor computes (array_agg is a StringAgg of encoded
// elements, as the binder plans it).
type AggFunc uint8

const (
	AggCountStar AggFunc = iota + 1
	AggCount
	AggSum
	AggAvg
	AggMin
	AggMax
	AggStddevSamp
	AggStddevPop
	AggVarSamp
	AggVarPop
	AggBoolAnd
	AggBoolOr
	AggStringAgg
	AggPercentileCont
	AggPercentileDisc
	AggMode
)

var aggFuncNames = [...]string{AggCountStar: "count", AggCount: "count", AggSum: "sum", AggAvg: "avg",
	AggMin: "min", AggMax: "max", AggStddevSamp: "stddev_samp", AggStddevPop: "stddev_pop",
	AggVarSamp: "var_samp", AggVarPop: "var_pop", AggBoolAnd: "bool_and", AggBoolOr: "bool_or",
	AggStringAgg: "string_agg", AggPercentileCont: "percentile_cont", AggPercentileDisc: "percentile_disc",
	AggMode: "mode"}

func (f AggFunc) String() string {
	if int(f) < len(aggFuncNames) && aggFuncNames[f] != "" {
		return aggFuncNames[f]
	}
	return "?"
}

// Agg is one aggregate of Aggregate over input column Arg (unused by
// count(*)).
type Agg struct {
	Func AggFunc
	Arg  int
	// Arg2 is the second input column: string_agg's delimiter, the
	// fraction of percentile_cont / percentile_disc.
	Arg2     int
	Distinct bool
	// Filter is 1 + the boolean input column of FILTER (WHERE …), 0 for
	// none: one-based so that an Agg written without it has none.
	Filter int
	// Desc orders a WITHIN GROUP or DISTINCT aggregate's values descending.
	Desc bool
	// Order is the aggregate's own ORDER BY, over input columns.
	Order []SortKey
	// In is the type the aggregate reads its argument as (array_agg reads
	// encoded elements, not Arg's type) and Out its result type; left
	// Unknown (the zero value) they are Arg's type, as for min and max.
	In, Out types.T
}

// Aggregate groups its rows by the first NGroup input columns (NULLs
// equal) and computes Aggs per group: its columns are the group columns,
// then one per aggregate. With Sets (GROUPING SETS, ROLLUP, CUBE; indexes
// of group columns) it groups by each set in turn, the group columns not
// in a set NULL, and a last int4 column holds grouping()'s bitmask: bit
// NGroup-1-c set when group column c is not in the row's set.
//
// Partial marks the partial aggregation of an aggregation above it
// (eager_aggregation): its results are folded again, so it may give up
// grouping at run time and pass its rows through, folded one each, when
// its groups are about as many as its rows. Rows, when not 0, is the
// estimate of its groups from before a rule rewrote what is under it
// (eager_aggregation): the planner keeps it for the plans that read the
// aggregation, so that they are costed the same with the rule or without.
type Aggregate struct {
	Input   Node
	NGroup  int
	Aggs    []Agg
	Sets    [][]int
	Partial bool
	Rows    float64
	Cols    []Column
}

// NewAggregate is an Aggregate with its columns filled in.
func NewAggregate(in Node, ngroup int, aggs []Agg) *Aggregate {
	return NewGroupingSets(in, ngroup, aggs, nil)
}

// NewGroupingSets is an Aggregate over grouping sets sets (nil: a plain
// GROUP BY) with its columns filled in, and the types aggs leave Unknown
// (in place).
func NewGroupingSets(in Node, ngroup int, aggs []Agg, sets [][]int) *Aggregate {
	ic := in.Columns()
	cols := append(make([]Column, 0, ngroup+len(aggs)+1), ic[:ngroup]...)
	for i, a := range aggs {
		if a.In.ID == types.Unknown {
			aggs[i].In = ic[a.Arg].Type
		}
		if a.Out.ID == types.Unknown {
			aggs[i].Out = ic[a.Arg].Type
		}
		cols = append(cols, Column{Name: a.Func.String(), Type: aggs[i].Out})
	}
	if sets != nil {
		cols = append(cols, Column{Name: "grouping", Type: types.Int32T})
	}
	return &Aggregate{Input: in, NGroup: ngroup, Aggs: aggs, Sets: sets, Cols: cols}
}

// SetOpKind is UNION, INTERSECT or EXCEPT.
type SetOpKind uint8

const (
	Union SetOpKind = iota + 1
	Intersect
	Except
)

func (k SetOpKind) String() string {
	switch k {
	case Union:
		return "UNION"
	case Intersect:
		return "INTERSECT"
	case Except:
		return "EXCEPT"
	}
	return "?"
}

// SetOp is UNION, INTERSECT or EXCEPT [ALL] of two inputs whose columns
// have the types of Cols already (the binder casts them).
type SetOp struct {
	Kind        SetOpKind
	All         bool
	Left, Right Node
	Cols        []Column
}

// SortKey is one key of Sort: an input column and its direction.
type SortKey struct {
	Col        int
	Desc       bool
	NullsFirst bool
}

// Sort orders its rows by Keys.
type Sort struct {
	Input Node
	Keys  []SortKey
}

// Limit skips Offset rows and returns at most Count (-1: all). With
// TieKeys (WITH TIES) it also returns the rows after the last that equal
// it on those columns.
type Limit struct {
	Input         Node
	Offset, Count int64
	TieKeys       []int
}

func (n *Planned) Columns() []Column    { return n.Cols }
func (n *Project) Columns() []Column    { return n.Cols }
func (n *Filter) Columns() []Column     { return n.Input.Columns() }
func (n *Distinct) Columns() []Column   { return n.Input.Columns() }
func (n *DistinctOn) Columns() []Column { return n.Input.Columns() }
func (n *Aggregate) Columns() []Column  { return n.Cols }
func (n *SetOp) Columns() []Column      { return n.Cols }
func (n *Sort) Columns() []Column       { return n.Input.Columns() }
func (n *Limit) Columns() []Column      { return n.Input.Columns() }

func (n *Planned) Inputs() []Node    { return nil }
func (n *Project) Inputs() []Node    { return []Node{n.Input} }
func (n *Filter) Inputs() []Node     { return []Node{n.Input} }
func (n *Distinct) Inputs() []Node   { return []Node{n.Input} }
func (n *DistinctOn) Inputs() []Node { return []Node{n.Input} }
func (n *Aggregate) Inputs() []Node  { return []Node{n.Input} }
func (n *SetOp) Inputs() []Node      { return []Node{n.Left, n.Right} }
func (n *Sort) Inputs() []Node       { return []Node{n.Input} }
func (n *Limit) Inputs() []Node      { return []Node{n.Input} }

// WithInputs is a copy of n over inputs in (as many as n.Inputs()); n
// itself is unchanged, so rules may share subtrees between plans.
func WithInputs(n Node, in []Node) Node {
	switch x := n.(type) {
	case *Planned, *Get:
		return x
	case *JoinGraph:
		c := *x
		c.Rels = in
		return &c
	case *Join:
		c := *x
		c.Left, c.Right = in[0], in[1]
		return &c
	case *Project:
		c := *x
		c.Input = in[0]
		return &c
	case *Filter:
		c := *x
		c.Input = in[0]
		return &c
	case *Distinct:
		c := *x
		c.Input = in[0]
		return &c
	case *DistinctOn:
		c := *x
		c.Input = in[0]
		return &c
	case *Aggregate:
		c := *x
		c.Input = in[0]
		return &c
	case *SetOp:
		c := *x
		c.Left, c.Right = in[0], in[1]
		return &c
	case *Sort:
		c := *x
		c.Input = in[0]
		return &c
	case *Limit:
		c := *x
		c.Input = in[0]
		return &c
	case *Window:
		c := *x
		c.Input = in[0]
		return &c
	case *Apply:
		c := *x
		c.Input = in[0]
		return &c
	}
	panic("logical: WithInputs of an unknown node")
}

// DistinctRows reports whether n's rows are known to be distinct over all
// its columns: a Distinct, a set operation without ALL, an aggregation
// without aggregates, a Planned subtree the planner knows to be distinct, and what
// keeps those rows or only renames or casts their columns one to one (a
// Filter, Sort or Limit; a Project of each input column in order).
func DistinctRows(n Node) bool {
	switch x := n.(type) {
	case *Planned:
		return x.Distinct
	case *Distinct:
		return true
	case *SetOp:
		return !x.All
	case *Aggregate:
		// over grouping sets a row's keys repeat in other sets: only the
		// grouping column tells them apart
		return len(x.Aggs) == 0 && x.Sets == nil
	case *Filter:
		return DistinctRows(x.Input)
	case *Sort:
		return DistinctRows(x.Input)
	case *Limit:
		return DistinctRows(x.Input)
	case *Project:
		if len(x.Exprs) != len(x.Input.Columns()) {
			return false
		}
		for i, e := range x.Exprs {
			if c, ok := e.(*exec.ColRef); !ok || c.Idx != i {
				return false
			}
		}
		return DistinctRows(x.Input)
	}
	return false
}
