package optimize

import (
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/sql/joinorder"
	"github.com/lakepg/lakepg/sql/planner/logical"
)

// joinOrder chooses the order of a block of inner joins: a JoinGraph
// becomes the cheapest tree of Joins sql/joinorder finds for its
// estimates (dynamic programming over connected subsets, a greedy order
// above joinorder.MaxDPRelations), each predicate at the lowest join that
// holds its relations, an equality between the two sides a hash key; a
// Project over the tree gives the columns back in FROM order. The written
// order of FROM items and predicates plays no part. Switched off, the
// planner joins the relations as written (WrittenOrder).
type joinOrder struct{}

func (joinOrder) Name() string { return "join_order" }

func (joinOrder) Apply(n logical.Node) (logical.Node, int) {
	g, ok := n.(*logical.JoinGraph)
	if !ok {
		return n, 0
	}
	t, _ := joinorder.Order(graphOf(g))
	if t == nil {
		return n, 0 // beyond the enumeration's 64 relations: as written
	}
	return joinTree(g, t), 1
}

// WrittenOrder joins the relations of g left-deep as written, each one
// built into a hash table the ones before it probe: the plan of a
// JoinGraph the join_order rule did not reorder.
func WrittenOrder(g *logical.JoinGraph) logical.Node {
	return joinTree(g, joinorder.Written(graphOf(g)))
}

// WrittenOrders is plan n with each join graph in it joined as written
// (WrittenOrder): the plan with join_order switched off.
func WrittenOrders(n logical.Node) logical.Node {
	ins := n.Inputs()
	var newIns []logical.Node
	for i, in := range ins {
		if out := WrittenOrders(in); out != in {
			if newIns == nil {
				newIns = append([]logical.Node{}, ins...)
			}
			newIns[i] = out
		}
	}
	if newIns != nil {
		n = logical.WithInputs(n, newIns)
	}
	if g, ok := n.(*logical.JoinGraph); ok {
		return WrittenOrder(g)
	}
	return n
}

// graphOf is what join enumeration sees of g.
func graphOf(g *logical.JoinGraph) joinorder.Graph {
	jg := joinorder.Graph{Rows: g.Rows, Names: g.Names, Edges: make([]joinorder.Edge, len(g.Preds))}
	for i, p := range g.Preds {
		jg.Edges[i] = joinorder.Edge{Mask: p.Rels, Sel: p.Sel, Hash: p.Hash}
	}
	return jg
}

// joinTree builds the Joins of tree t over g's relations. Each predicate
// goes to the first join (bottom-up) whose sides both hold some of its
// relations and which holds all of them, in the order of g's predicates.
func joinTree(g *logical.JoinGraph, t *joinorder.Tree) logical.Node {
	start := make([]int, len(g.Rels)+1) // where relation i's columns start in g
	for i, r := range g.Rels {
		start[i+1] = start[i] + len(r.Columns())
	}
	used := make([]bool, len(g.Preds))
	// pos maps a column of g to its position in a subtree's output (or -1)
	positions := func(t *joinorder.Tree) []int {
		pos := make([]int, len(g.Cols))
		for i := range pos {
			pos[i] = -1
		}
		off := 0
		for _, r := range t.Leaves() {
			for c := start[r]; c < start[r+1]; c++ {
				pos[c] = off
				off++
			}
		}
		return pos
	}
	remap := func(e exec.Expr, pos []int) exec.Expr {
		return exec.MapColumns(e, func(i int) int { return pos[i] })
	}
	var build func(t *joinorder.Tree) logical.Node
	build = func(t *joinorder.Tree) logical.Node {
		if t.Rel >= 0 {
			return g.Rels[t.Rel]
		}
		l, r := build(t.Left), build(t.Right)
		var lpos, rpos, pos []int
		var lkeys, rkeys, filters []exec.Expr
		for i, p := range g.Preds {
			if used[i] || p.Rels&^t.Mask != 0 || p.Rels&t.Left.Mask == 0 || p.Rels&t.Right.Mask == 0 {
				continue
			}
			used[i] = true
			if p.Hash {
				if lpos == nil {
					lpos, rpos = positions(t.Left), positions(t.Right)
				}
				ka, kb := p.KeyA, p.KeyB
				if t.Left.Mask&(1<<p.A) == 0 {
					ka, kb = kb, ka
				}
				lkeys, rkeys = append(lkeys, remap(ka, lpos)), append(rkeys, remap(kb, rpos))
				continue
			}
			if pos == nil {
				pos = positions(t)
			}
			filters = append(filters, remap(p.Cond, pos))
		}
		return logical.NewJoin(l, r, lkeys, rkeys, filters, t.Rows, t.Cost)
	}
	root := build(t)
	order := t.Leaves()
	inOrder := true
	for k, i := range order {
		inOrder = inOrder && k == i
	}
	if inOrder {
		return root
	}
	pos := positions(t)
	exprs := make([]exec.Expr, len(g.Cols))
	names := make([]string, len(g.Cols))
	for c, col := range g.Cols {
		exprs[c] = &exec.ColRef{Idx: pos[c], T: col.Type}
		names[c] = col.Name
	}
	return logical.NewProject(root, exprs, names)
}
