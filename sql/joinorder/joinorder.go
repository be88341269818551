// Package joinorder chooses the order of a block of inner joins. The
// planner describes the block as a Graph — the estimated rows of each
// relation and the predicates between them with their selectivities — and
// gets back a Tree of joins to build. The package knows no SQL and no
// operators, so join enumeration is tested on graphs alone
// (testdata/*.txt) and the cost model lives in one place.
//
// Up to MaxDPRelations relations, the order comes from dynamic programming
// over subsets (DPsub with a connectivity check, in the spirit of DPccp):
// every subset that two smaller ones joined along a predicate can form gets
// its cheapest plan, bushy trees included; cross products are considered
// only when the predicates leave relations unconnected. Above that, a
// greedy left-deep order adds the connected relation that leaves the fewest
// rows, one at a time. Either way the written order of relations and
// predicates plays no part (the greedy order breaks ties by relation
// names). Written gives the order as written, for when reordering is
// switched off.
package joinorder

import (
	"math"
	"math/bits"
	"sort"
)

// MaxDPRelations bounds the dynamic programming, whose work grows as 3^n.
const MaxDPRelations = 12

// BuildWeight is what a row put into a hash table costs relative to a row
// probing it or a row coming out of a join: an insert (with its share of
// growing and materialising the table) costs more than a probe; 2 is a
// chosen weight, checked only by the TPC-H and TPC-DS timings it gave.
const BuildWeight = 2

// KeyWeight is what a row going into or probing a hash table on keys
// columns costs relative to one on a single column: each further key
// column is hashed and compared again, a quarter of a row's worth.
// Without it a three-column join whose probe rows come out fewer looked
// cheaper than a one-column join that narrows them first: TPC-DS q25,
// q17 and q29 probed all of store_sales against store_returns on
// (customer, item, ticket) and only then against a month of dates. The
// weight is chosen by TPC-DS timings: at a half, q72's inventory
// (11.7 M rows) avoided its two-column join with dates for a one-column
// join with catalog_sales whose rows were underestimated (5x the CPU).
//
// A hash table estimated at fewer than KeyWeightMinRows rows weighs
// nothing more: probing it stays in cache, and the weight would only
// break ties the enumeration used to settle (TPC-DS q85's two joins with
// customer_demographics on an estimated 11 rows: the tie left the
// unfiltered one as the probe, whose dynamic filter skips all but one of
// its row groups, which the cost does not know; weighed, q85 took 30 %
// more CPU).
func KeyWeight(keys int, buildRows float64) float64 {
	if buildRows < KeyWeightMinRows {
		return 1
	}
	return 1 + 0.25*float64(max(keys, 1)-1)
}

// KeyWeightMinRows is the smallest hash table KeyWeight weighs.
const KeyWeightMinRows = 64

// Edge is a predicate over two or more relations.
type Edge struct {
	Mask uint64  // the relations it references, as bits
	Sel  float64 // the fraction of row combinations it keeps
	// Hash: an equality between a column of one relation and one of
	// another, usable as a hash key
	Hash bool
}

// Graph is a block of inner joins.
type Graph struct {
	Rows  []float64 // estimated rows of each relation (at least 1)
	Names []string  // each relation's name, for ties
	Edges []Edge
}

// Tree is a join order: a leaf (Rel ≥ 0) or a join of Left (probing) and
// Right (built into the hash table).
type Tree struct {
	Rel         int
	Left, Right *Tree
	Mask        uint64  // the relations below
	Rows        float64 // estimated rows out
	Cost        float64 // of the whole subtree
}

// Order returns the cheapest join tree found for g and how it was found
// ("dynamic programming" or "greedy order"); nil for more than 64
// relations.
func Order(g Graph) (*Tree, string) {
	switch {
	case len(g.Rows) > 64:
		return nil, "" // beyond the masks: the caller keeps the written order
	case len(g.Rows) <= MaxDPRelations:
		return dp(g), How(len(g.Rows))
	}
	return greedy(g), How(len(g.Rows))
}

// How is how Order orders n relations: "dynamic programming" or "greedy
// order".
func How(n int) string {
	if n <= MaxDPRelations {
		return "dynamic programming"
	}
	return "greedy order"
}

// joinCost is the cost of joining two plans into one of out rows: the rows
// into the hash table (weighted), the rows probing it, both by the number
// of key columns, and the rows out; a join without a hash key (keys 0)
// compares every pair.
func joinCost(probe, build, out float64, keys int) float64 {
	if keys > 0 {
		return out + (probe+BuildWeight*build)*KeyWeight(keys, build)
	}
	return out + probe*build
}

// between reports whether any predicate joins a and b (every relation it
// references in a∪b, some in each), and how many of them are hash keys.
func (g *Graph) between(a, b uint64) (connected bool, keys int) {
	m := a | b
	for _, e := range g.Edges {
		if e.Mask&^m != 0 || e.Mask&a == 0 || e.Mask&b == 0 {
			continue
		}
		connected = true
		if e.Hash {
			keys++
		}
	}
	return connected, keys
}

// rawRows is the rows of joining the relations of m before clamping: their
// rows times the selectivity of every predicate among them, as a product,
// so that it is the same whatever order the relations come in.
func (g *Graph) rawRows(m uint64) float64 {
	c := 1.0
	for r := m; r != 0; r &= r - 1 {
		c *= g.Rows[bits.TrailingZeros64(r)]
	}
	for _, e := range g.Edges {
		if e.Mask&^m == 0 {
			c *= e.Sel
		}
	}
	return c
}

func leaf(g *Graph, i int) *Tree {
	return &Tree{Rel: i, Mask: 1 << i, Rows: math.Max(1, g.Rows[i])}
}

func join(l, r *Tree, rows, cost float64) *Tree {
	return &Tree{Rel: -1, Left: l, Right: r, Mask: l.Mask | r.Mask, Rows: rows, Cost: cost}
}

// dp is the dynamic programming over subsets.
func dp(g Graph) *Tree {
	n := len(g.Rows)
	if n == 0 {
		return nil
	}
	full := uint64(1)<<n - 1
	card := make([]float64, full+1)
	raw := make([]float64, full+1)
	for m := uint64(1); m <= full; m++ {
		low := bits.TrailingZeros64(m)
		rest := m &^ (1 << low)
		c := g.Rows[low]
		if rest != 0 {
			c *= raw[rest]
			for _, e := range g.Edges {
				if e.Mask&(1<<low) != 0 && e.Mask&^m == 0 {
					c *= e.Sel
				}
			}
		}
		raw[m], card[m] = c, math.Max(1, c)
	}
	best := make([]*Tree, full+1)
	for i := 0; i < n; i++ {
		best[1<<i] = leaf(&g, i)
	}
	for _, cross := range []bool{false, true} {
		for m := uint64(1); m <= full; m++ {
			if bits.OnesCount64(m) < 2 {
				continue
			}
			for sub := (m - 1) & m; sub > 0; sub = (sub - 1) & m {
				other := m ^ sub
				if sub > other || best[sub] == nil || best[other] == nil {
					continue // each split once; both halves must be plannable
				}
				connected, keys := g.between(sub, other)
				if !connected && !cross {
					continue
				}
				probe, build := sub, other
				if buildBias(build, card[build]) > buildBias(probe, card[probe]) {
					probe, build = build, probe
				}
				cost := best[sub].Cost + best[other].Cost + joinCost(card[probe], card[build], card[m], keys)
				if best[m] == nil || cost < best[m].Cost {
					best[m] = join(best[probe], best[build], card[m], cost)
				}
			}
		}
		if best[full] != nil {
			break
		}
	}
	return best[full]
}

// minTurnRows is the smallest relation a greedy join turns for: building
// a smaller one costs little, and each turn ends a pipeline (sqllogictest's
// 60-table joins of 10-row tables ran 19% slower turning freely).
const minTurnRows = 1 << 14

// buildBias is the size a side counts with when choosing which side of a
// join to build: a join's estimate counts twice, because estimates of joins
// are the uncertain ones (TPC-DS q47: store_sales ⋈ a year of dates,
// taken for 17,000 rows, met item's 18,000 and was built; it held
// 670,000).
func buildBias(m uint64, rows float64) float64 {
	if bits.OnesCount64(m) > 1 {
		return 2 * rows
	}
	return rows
}

// greedy builds a left-deep order: it starts from the relation with the
// most rows, which streams through the joins, and adds one relation at a
// time, of those a predicate connects to what is joined so far the one
// that leaves the fewest rows (then the smaller, then by name); relations
// no predicate connects come last. The tree is left-deep, except that it
// turns where the rows so far are far fewer than a big next relation's,
// building them and letting the relation stream (a zig-zag tree); it never
// joins two joins: bushy trees from a greedy choice built hash tables of
// intermediate joins and ran sqllogictest's 60-table joins 1.7× slower.
func greedy(g Graph) *Tree {
	rank := nameRanks(g)
	start := 0
	for i := range g.Rows {
		if g.Rows[i] > g.Rows[start] || g.Rows[i] == g.Rows[start] && rank[i] < rank[start] {
			start = i
		}
	}
	t := leaf(&g, start)
	for t.Mask != uint64(1)<<len(g.Rows)-1 {
		best := -1
		var bRows float64
		var bConnected bool
		var bKeys int
		for i := range g.Rows {
			if t.Mask&(1<<i) != 0 {
				continue
			}
			connected, keys := g.between(t.Mask, 1<<i)
			if bConnected && !connected {
				continue
			}
			rows := math.Max(1, g.rawRows(t.Mask|1<<i))
			better := best < 0 || connected && !bConnected || rows < bRows ||
				rows == bRows && (g.Rows[i] < g.Rows[best] || g.Rows[i] == g.Rows[best] && rank[i] < rank[best])
			if better {
				best, bRows, bConnected, bKeys = i, rows, connected, keys
			}
		}
		r := leaf(&g, best)
		probe, build := t, r
		if r.Rows >= minTurnRows && 4*buildBias(t.Mask, t.Rows) < r.Rows {
			// the rows so far are far fewer than the relation's: build
			// them, and let the relation stream (TPC-DS q64 narrows
			// store_sales to a few hundred rows before it meets
			// customer_demographics' 1.9 million)
			probe, build = r, t
		}
		t = join(probe, build, bRows, t.Cost+joinCost(probe.Rows, build.Rows, bRows, bKeys))
	}
	return t
}

// nameRanks is each relation's position in name order (equal names by
// number).
func nameRanks(g Graph) []int {
	order := make([]int, len(g.Rows))
	for i := range order {
		order[i] = i
	}
	name := func(i int) string {
		if i < len(g.Names) {
			return g.Names[i]
		}
		return ""
	}
	sort.SliceStable(order, func(a, b int) bool { return name(order[a]) < name(order[b]) })
	rank := make([]int, len(order))
	for r, i := range order {
		rank[i] = r
	}
	return rank
}

// Written joins the relations left-deep in the order they are numbered,
// each one built into a hash table the ones before it probe.
func Written(g Graph) *Tree {
	if len(g.Rows) == 0 || len(g.Rows) > 64 {
		return nil
	}
	t := leaf(&g, 0)
	for i := 1; i < len(g.Rows); i++ {
		r := leaf(&g, i)
		_, keys := g.between(t.Mask, r.Mask)
		rows := math.Max(1, g.rawRows(t.Mask|r.Mask))
		t = join(t, r, rows, t.Cost+joinCost(t.Rows, r.Rows, rows, keys))
	}
	return t
}

// Leaves lists the relations of t in the order their columns come out of
// the joins: left before right.
func (t *Tree) Leaves() []int {
	if t.Rel >= 0 {
		return []int{t.Rel}
	}
	return append(t.Left.Leaves(), t.Right.Leaves()...)
}
