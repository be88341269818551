package logical

import "github.com/lakepg/lakepg/exec"

// Get reads a lake table: the scan the planner set up for it (its
// snapshot, its files, the filters pushed to it prune them). Its columns
// are the table's.
type Get struct {
	Scan *exec.TableScan
	Cols []Column
	// Prune, when set, drops the files and row groups of the scan that a
	// filter of its rows rules out (the planner's file pruning); physical
	// planning calls it for the filters rules placed over the Get.
	Prune func(pred exec.Expr)
}

// JoinGraph is a block of inner joins whose order is not chosen yet: the
// relations in FROM order, the predicates over two or more of them, and
// the estimates join ordering weighs (rows of each relation, each
// predicate's selectivity), which the planner makes where it knows the
// catalog. Its columns are the relations' in order; the join_order rule
// (sql/planner/optimize) turns it into a tree of Joins that gives them
// back in that order.
type JoinGraph struct {
	Rels  []Node
	Rows  []float64 // estimated rows of each relation (at least 1)
	Names []string  // each relation's name, to break ties the same way however FROM is written
	Preds []JoinPred
	Cols  []Column
}

// JoinPred is a predicate of a JoinGraph, over the graph's columns.
type JoinPred struct {
	Rels uint64  // the relations it references, as bits
	Sel  float64 // the fraction of row combinations it keeps
	// Hash: an equality of KeyA, over relation A's columns alone, and
	// KeyB, over B's: a hash key when A and B meet on two sides of a join
	Hash       bool
	A, B       int
	KeyA, KeyB exec.Expr
	// Cond is any other predicate, filtering the first join that holds
	// all its relations.
	Cond exec.Expr
}

// NewJoinGraph is a JoinGraph over rels, its columns filled in.
func NewJoinGraph(rels []Node, rows []float64, names []string, preds []JoinPred) *JoinGraph {
	var cols []Column
	for _, r := range rels {
		cols = append(cols, r.Columns()...)
	}
	return &JoinGraph{Rels: rels, Rows: rows, Names: names, Preds: preds, Cols: cols}
}

// JoinKind is which rows a Join keeps besides the matching pairs.
type JoinKind uint8

const (
	InnerJoin JoinKind = iota // the matching pairs
	LeftJoin                  // and each unmatched left row, its right columns NULL
	RightJoin                 // and each unmatched right row, its left columns NULL
	FullJoin                  // and the unmatched rows of both sides
	AntiJoin                  // only the unmatched left rows, its columns Left's alone
	SemiJoin                  // only the matched left rows, each once, its columns Left's alone (EXISTS, IN)
	// AntiNullAwareJoin is NOT IN: the left rows whose comparison with
	// every right row (those On picks for it) is false; a NULL key on
	// either side makes a comparison unknown, so a NULL among the right
	// keys keeps no row, and a left row with a NULL key is kept only when
	// it has no right rows. Left's columns alone.
	AntiNullAwareJoin
)

var joinKindNames = [...]string{InnerJoin: "", LeftJoin: "left ", RightJoin: "right ", FullJoin: "full ", AntiJoin: "anti ", SemiJoin: "semi ", AntiNullAwareJoin: "null-aware anti "}

// LeftOnly reports whether a join of kind k gives Left's columns alone.
func (k JoinKind) LeftOnly() bool { return k == AntiJoin || k == SemiJoin || k == AntiNullAwareJoin }

// Join joins Left and Right: each row of Left probes a hash table of
// Right's rows on LeftKeys = RightKeys (over each side's own columns;
// none: every pair) and On (over Left's columns then Right's) decides
// which probed pairs match; Kind says which unmatched rows it keeps too.
// Filters, over the joined columns, keep the joined rows that pass them
// all, tested in order (an inner join's conditions beyond its keys, each
// its own filter; an outer join's ON condition is On, since it decides
// matches, not rows). Rows and Cost are the estimates the join order was
// chosen by (the rows out, the cost of the subtree).
//
// LeftSmall says the planner estimated Left smaller than Right: a LEFT,
// semi or anti join with keys then builds its hash table on Left, the
// side whose rows it keeps (a RIGHT, right semi or right anti join of the
// sides swapped), rather than probing a hash table of the larger side
// with every Left row. LeftRows and RightRows are those estimates of each
// side's rows, which the planner records on the outer joins it plans (0:
// not known): a rule that joins more relations to Left below the join
// (outer_join_reorder) weighs Left alone in a join graph by them and
// decides LeftSmall again.
type Join struct {
	Kind                JoinKind
	Left, Right         Node
	LeftKeys, RightKeys []exec.Expr
	On                  exec.Expr
	Filters             []exec.Expr
	LeftSmall           bool
	LeftRows, RightRows float64
	Rows, Cost          float64
	Cols                []Column
}

// NewJoin is an inner Join with its columns filled in.
func NewJoin(l, r Node, lkeys, rkeys, filters []exec.Expr, rows, cost float64) *Join {
	lc, rc := l.Columns(), r.Columns()
	cols := append(append(make([]Column, 0, len(lc)+len(rc)), lc...), rc...)
	return &Join{Left: l, Right: r, LeftKeys: lkeys, RightKeys: rkeys, Filters: filters, Rows: rows, Cost: cost, Cols: cols}
}

// NewOuterJoin is a Join of kind k on keys and condition on, its
// columns filled in.
func NewOuterJoin(k JoinKind, l, r Node, lkeys, rkeys []exec.Expr, on exec.Expr, leftSmall bool) *Join {
	j := NewJoin(l, r, lkeys, rkeys, nil, 0, 0)
	j.Kind, j.On, j.LeftSmall = k, on, leftSmall
	if k.LeftOnly() {
		j.Cols = j.Cols[:len(l.Columns()):len(l.Columns())]
	}
	return j
}

// NullSides reports which sides' columns k fills with NULLs for the rows
// it keeps unmatched.
func (k JoinKind) NullSides() (left, right bool) {
	return k == RightJoin || k == FullJoin, k == LeftJoin || k == FullJoin
}

func (n *Get) Columns() []Column       { return n.Cols }
func (n *JoinGraph) Columns() []Column { return n.Cols }
func (n *Join) Columns() []Column      { return n.Cols }

func (n *Get) Inputs() []Node       { return nil }
func (n *JoinGraph) Inputs() []Node { return n.Rels }
func (n *Join) Inputs() []Node      { return []Node{n.Left, n.Right} }
