package sql

import (
	"strings"
	"testing"
)

// TestLogicalPlans runs the cases of testdata/logical/*.txt, one file per
// rule over the logical plan (sql/planner/optimize) and one per kind of
// node, on the joinLake tables: SQL in, the logical plans after the rules
// out, as EXPLAIN (LOGICAL, VERBOSE) prints them. A case's input is
//
//	logical [disable=<rule>,<rule>]
//	<SQL, one or more lines>
//
// `go test ./sql -run TestLogicalPlans -update` rewrites the plans; review
// the diff before committing it.
func TestLogicalPlans(t *testing.T) {
	runPlanCases(t, "testdata/logical/*.txt", "logical", "EXPLAIN (LOGICAL, VERBOSE) ", func(lines []string) string {
		return strings.Join(lines, "\n")
	})
}
