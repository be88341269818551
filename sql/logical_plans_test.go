package sql

import (
	"strings"
	"testing"

	"github.com/lakepg/lakepg/test/datadriven"
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
	s := joinLake(t)
	datadriven.Run(t, "testdata/logical/*.txt", func(t *testing.T, in string) string {
		head, query, ok := strings.Cut(in, "\n")
		if !ok || !strings.HasPrefix(head, "logical") {
			t.Fatalf("a case starts with %q, not logical", head)
		}
		disabled := ""
		for _, f := range strings.Fields(head)[1:] {
			v, ok := strings.CutPrefix(f, "disable=")
			if !ok {
				t.Fatalf("unknown option %q", f)
			}
			disabled = strings.ReplaceAll(v, ",", ", ")
		}
		must(t, s, `SET lakepg.disabled_rules = '`+disabled+`'`)
		defer must(t, s, `RESET lakepg.disabled_rules`)
		return strings.Join(explainLines(t, s, "EXPLAIN (LOGICAL, VERBOSE) "+query), "\n")
	})
}
