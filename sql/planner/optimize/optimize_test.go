package optimize

import (
	"strings"
	"testing"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/sql/planner/logical"
	"github.com/lakepg/lakepg/types"
)

func leaf(distinct bool, ts ...types.T) *logical.Planned {
	cols := make([]logical.Column, len(ts))
	for i, t := range ts {
		cols[i] = logical.Column{Name: "c", Type: t}
	}
	return &logical.Planned{Op: &exec.Values{T: ts}, Cols: cols, Distinct: distinct}
}

func intersect(l, r logical.Node) *logical.SetOp {
	return &logical.SetOp{Kind: logical.Intersect, Left: l, Right: r, Cols: l.Columns()}
}

func run(t *testing.T, n logical.Node, disabled ...string) (logical.Node, map[string]int) {
	t.Helper()
	fired := map[string]int{}
	on := func(rule string) bool {
		for _, d := range disabled {
			if d == rule {
				return false
			}
		}
		return true
	}
	out, err := Optimize(n, nil, on, func(rule string, k int) { fired[rule] += k })
	if err != nil {
		t.Fatal(err)
	}
	return out, fired
}

// The driver runs each rule to its fixed point once: a second
// optimization of its result changes nothing, and the input plan is left
// as it was (rules copy the nodes they change).
func TestFixedPointAndNoMutation(t *testing.T) {
	in := intersect(intersect(leaf(false, types.Int64T), leaf(true, types.Int64T)), leaf(false, types.Int64T))
	before := logical.String(in)
	out, fired := run(t, in)
	if fired[SetOpDistinctInputs] != 2 || fired[SetOpAggregate] != 2 {
		t.Fatalf("fired %v, want 2 of each (the inner INTERSECT is distinct, and so is one leaf)", fired)
	}
	if logical.String(in) != before {
		t.Fatalf("the input plan changed:\n%s", logical.String(in))
	}
	again, fired2 := run(t, out)
	if len(fired2) != 0 || logical.String(again) != logical.String(out) {
		t.Fatalf("a second run changed the plan (%v)", fired2)
	}
}

func TestDisabledRules(t *testing.T) {
	in := intersect(leaf(false, types.TextT), leaf(false, types.TextT))
	out, fired := run(t, in, SetOpAggregate)
	if _, ok := out.(*logical.SetOp); !ok || fired[SetOpAggregate] != 0 || fired[SetOpDistinctInputs] != 2 {
		t.Fatalf("with setop_aggregate off: %v\n%s", fired, logical.String(out))
	}
	out, fired = run(t, in, SetOpAggregate, SetOpDistinctInputs)
	if out != logical.Node(in) || len(fired) != 0 {
		t.Fatalf("with both off the plan changed: %v", fired)
	}
	// numerics print their scale: the aggregation could print the right
	// side's 1.00 for the left's 1.0
	_, fired = run(t, intersect(leaf(false, types.NumericAnyT), leaf(false, types.NumericAnyT)))
	if fired[SetOpAggregate] != 0 {
		t.Fatal("setop_aggregate applied to numeric columns")
	}
}

type retype struct{}

func (retype) Name() string { return "retype" }
func (retype) Apply(n logical.Node) (logical.Node, int) {
	if p, ok := n.(*logical.Planned); ok && p.Cols[0].Type == types.Int64T {
		return leaf(false, types.TextT), 1
	}
	return n, 0
}

type flip struct{}

func (flip) Name() string { return "flip" }
func (flip) Apply(n logical.Node) (logical.Node, int) {
	if s, ok := n.(*logical.SetOp); ok {
		c := *s
		c.Left, c.Right = s.Right, s.Left
		return &c, 1
	}
	return n, 0
}

// A rule that changes a node's column types, or one that never settles,
// is an internal error, not a wrong plan.
func TestBrokenRules(t *testing.T) {
	saved := Rules
	defer func() { Rules = saved }()
	for _, c := range []struct {
		rule Rule
		msg  string
	}{{retype{}, "column 1 of type bigint became text"}, {flip{}, "does not reach a fixed point"}} {
		Rules = []Rule{c.rule}
		_, err := Optimize(intersect(leaf(false, types.Int64T), leaf(false, types.Int64T)), nil, func(string) bool { return true }, func(string, int) {})
		if err == nil || pgerr.Code(err) != pgerr.Internal || !strings.Contains(err.Error(), c.msg) {
			t.Fatalf("rule %s: %v", c.rule.Name(), err)
		}
	}
}
