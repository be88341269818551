package planner

import (
	"slices"
	"testing"

	"github.com/lakepg/lakepg/sql/planner/optimize"
)

// The rules over the logical plan are listed in Rules (the names
// lakepg.disabled_rules accepts and EXPLAIN (VERBOSE) prints in order) in
// the order the optimizer runs them.
func TestLogicalRulesListed(t *testing.T) {
	last := -1
	for _, r := range optimize.Rules {
		i := slices.Index(Rules, r.Name())
		if i < 0 {
			t.Fatalf("rule %s is not in Rules", r.Name())
		}
		if i < last {
			t.Fatalf("rule %s is listed before the rule the optimizer runs before it", r.Name())
		}
		last = i
	}
}
