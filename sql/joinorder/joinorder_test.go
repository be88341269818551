package joinorder

import (
	"fmt"
	"math"
	"math/rand"
	"strconv"
	"strings"
	"testing"

	"github.com/lakepg/lakepg/test/datadriven"
)

// TestOrderData runs the cases of testdata/*.txt: a graph in, the join
// tree out. A case's input is
//
//	order
//	rel <name> <rows>
//	edge <name> <name> [<name> …] <selectivity> [hash]
//
// and `go test -update` rewrites the trees from what Order returns.
func TestOrderData(t *testing.T) {
	datadriven.Run(t, "testdata/*.txt", func(t *testing.T, in string) string {
		g, err := parseGraph(in)
		if err != nil {
			t.Fatal(err)
		}
		return printTree(g)
	})
}

func parseGraph(in string) (Graph, error) {
	var g Graph
	index := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(in), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) == 0 || strings.HasPrefix(f[0], "#") || f[0] == "order":
		case f[0] == "rel" && len(f) == 3:
			rows, err := strconv.ParseFloat(f[2], 64)
			if err != nil {
				return g, err
			}
			index[f[1]] = len(g.Rows)
			g.Names, g.Rows = append(g.Names, f[1]), append(g.Rows, rows)
		case f[0] == "edge" && len(f) >= 4:
			e := Edge{}
			if f[len(f)-1] == "hash" {
				e.Hash, f = true, f[:len(f)-1]
			}
			sel, err := strconv.ParseFloat(f[len(f)-1], 64)
			if err != nil {
				return g, err
			}
			e.Sel = sel
			for _, name := range f[1 : len(f)-1] {
				i, ok := index[name]
				if !ok {
					return g, fmt.Errorf("edge names %q, not a rel", name)
				}
				e.Mask |= 1 << i
			}
			g.Edges = append(g.Edges, e)
		default:
			return g, fmt.Errorf("cannot read %q", line)
		}
	}
	return g, nil
}

// printTree writes the tree Order picks, one node a line, the probing side
// first, with rows and cost.
func printTree(g Graph) string {
	t, how := Order(g)
	var b strings.Builder
	fmt.Fprintf(&b, "%s, cost %.4g\n", how, t.Cost)
	var walk func(t *Tree, depth int)
	walk = func(t *Tree, depth int) {
		pad := strings.Repeat("  ", depth)
		if t.Rel >= 0 {
			fmt.Fprintf(&b, "%s%s rows=%.4g\n", pad, g.Names[t.Rel], t.Rows)
			return
		}
		fmt.Fprintf(&b, "%sjoin rows=%.4g\n", pad, t.Rows)
		walk(t.Left, depth+1)
		walk(t.Right, depth+1)
	}
	walk(t, 0)
	return b.String()
}

// TestOrderIgnoresWrittenOrder: permuting the relations and the edges of a
// graph gives a tree of the same estimated cost, for the
// dynamic programming and the greedy order alike.
func TestOrderIgnoresWrittenOrder(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, n := range []int{3, 6, 9, 12, 16} {
		for trial := 0; trial < 20; trial++ {
			g := randomGraph(rng, n)
			want, _ := Order(g)
			perm := rng.Perm(n)
			p := permute(g, perm)
			rng.Shuffle(len(p.Edges), func(i, j int) { p.Edges[i], p.Edges[j] = p.Edges[j], p.Edges[i] })
			got, _ := Order(p)
			if math.Abs(got.Cost-want.Cost) > 1e-9*want.Cost {
				t.Fatalf("n=%d trial %d: permuted graph gives\n%s (cost %g)\nnot\n%s (cost %g)", n, trial, shape(got, p.Names), got.Cost, shape(want, g.Names), want.Cost)
			}
		}
	}
}

// TestDPNeverWorseThanGreedy: on graphs both can order, the dynamic
// programming's tree costs at most what the greedy order's does, and both
// cover every relation once.
func TestDPNeverWorseThanGreedy(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	for trial := 0; trial < 200; trial++ {
		g := randomGraph(rng, 2+rng.Intn(MaxDPRelations-1))
		d, gr := dp(g), greedy(g)
		if d.Cost > gr.Cost*(1+1e-9) {
			t.Fatalf("trial %d: dp cost %g > greedy %g\n%s\n%s", trial, d.Cost, gr.Cost, shape(d, g.Names), shape(gr, g.Names))
		}
		for _, tr := range []*Tree{d, gr} {
			seen := map[int]bool{}
			for _, r := range tr.Leaves() {
				if seen[r] {
					t.Fatalf("relation %d twice in %s", r, shape(tr, g.Names))
				}
				seen[r] = true
			}
			if len(seen) != len(g.Rows) {
				t.Fatalf("%d of %d relations in %s", len(seen), len(g.Rows), shape(tr, g.Names))
			}
		}
	}
}

func randomGraph(rng *rand.Rand, n int) Graph {
	var g Graph
	for i := 0; i < n; i++ {
		g.Names = append(g.Names, fmt.Sprintf("r%02d", i))
		g.Rows = append(g.Rows, float64(1+rng.Intn(1_000_000)))
	}
	for i := 1; i < n; i++ { // a random tree keeps it connected
		j := rng.Intn(i)
		g.Edges = append(g.Edges, Edge{Mask: 1<<i | 1<<j, Sel: 1 / (1 + float64(rng.Intn(100_000))), Hash: true})
	}
	for k := rng.Intn(n); k > 0; k-- { // and some cycles
		i, j := rng.Intn(n), rng.Intn(n)
		if i != j {
			g.Edges = append(g.Edges, Edge{Mask: 1<<i | 1<<j, Sel: 0.5, Hash: rng.Intn(2) == 0})
		}
	}
	return g
}

// permute renumbers g's relations: relation i becomes perm[i].
func permute(g Graph, perm []int) Graph {
	p := Graph{Rows: make([]float64, len(g.Rows)), Names: make([]string, len(g.Rows))}
	for i, j := range perm {
		p.Rows[j], p.Names[j] = g.Rows[i], g.Names[i]
	}
	for _, e := range g.Edges {
		var m uint64
		for i, j := range perm {
			if e.Mask&(1<<i) != 0 {
				m |= 1 << j
			}
		}
		p.Edges = append(p.Edges, Edge{Mask: m, Sel: e.Sel, Hash: e.Hash})
	}
	return p
}

// shape writes a tree by relation names, joins as (probe build).
func shape(t *Tree, names []string) string {
	if t.Rel >= 0 {
		return names[t.Rel]
	}
	return "(" + shape(t.Left, names) + " " + shape(t.Right, names) + ")"
}

// TestKeyWeight: each key column past the first weighs a quarter more,
// for hash tables of KeyWeightMinRows rows or more only.
func TestKeyWeight(t *testing.T) {
	for _, c := range []struct {
		keys int
		rows float64
		want float64
	}{{1, 1e6, 1}, {2, 1e6, 1.25}, {3, KeyWeightMinRows, 1.5}, {3, KeyWeightMinRows - 1, 1}, {0, 1e6, 1}} {
		if got := KeyWeight(c.keys, c.rows); got != c.want {
			t.Errorf("KeyWeight(%d, %g) = %g, want %g", c.keys, c.rows, got, c.want)
		}
	}
}
