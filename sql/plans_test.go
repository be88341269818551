package sql

import (
	"regexp"
	"strings"
	"testing"

	"github.com/lakepg/lakepg/test/datadriven"
)

// TestPlans runs the cases of testdata/plans/*.txt, one file per planner
// rule, on the joinLake tables (fact, dim, week, ret, one): SQL in, the
// plan EXPLAIN (VERBOSE) prints out, without its figures (rows, costs,
// bytes, files), which depend on the data's layout rather than the rule. A
// case's input is
//
//	plan [disable=<rule>,<rule>]
//	<SQL, one or more lines>
//
// `go test ./sql -run TestPlans -update` rewrites the plans; review the
// diff before committing it.
func TestPlans(t *testing.T) {
	runPlanCases(t, "testdata/plans/*.txt", "plan", "EXPLAIN (VERBOSE) ", planShape)
}

// runPlanCases runs the data-driven cases of the files glob matches on the
// joinLake tables: a case is word [disable=<rule>,<rule>] on its first
// line, then SQL, explained with the explain prefix under those rules
// switched off; out makes the expected text of the lines printed.
func runPlanCases(t *testing.T, glob, word, explain string, out func([]string) string) {
	s := joinLake(t)
	datadriven.Run(t, glob, func(t *testing.T, in string) string {
		head, query, ok := strings.Cut(in, "\n")
		if !ok || !strings.HasPrefix(head, word) {
			t.Fatalf("a case starts with %q, not %s", head, word)
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
		return out(explainLines(t, s, explain+query))
	})
}

var (
	figureLine = regexp.MustCompile(`^\s*(Rows|Cost|Bytes to read|Files|Row groups|Pages|Join order):`)
	costFigure = regexp.MustCompile(`, estimated cost [0-9.e+]+$`)
)

// planShape is an EXPLAIN (VERBOSE) text without the lines of figures.
func planShape(lines []string) string {
	var out []string
	for _, l := range lines {
		if figureLine.MatchString(l) {
			continue
		}
		out = append(out, costFigure.ReplaceAllString(l, ""))
	}
	return strings.Join(out, "\n")
}
