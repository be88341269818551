package sql

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var updatePlans = flag.Bool("update", false, "rewrite the expected plans in testdata/plans/*.txt")

// TestPlans runs the cases of testdata/plans/*.txt, one file per planner
// rule, on the joinLake tables (fact, dim, week, ret, one): SQL in, the
// plan EXPLAIN (VERBOSE) prints out, without its figures (rows, costs,
// bytes, files), which depend on the data's layout rather than the rule. A
// case is
//
//	plan [disable=<rule>,<rule>]
//	<SQL, one or more lines>
//	----
//	<the plan>
//
// and cases are separated by a blank line. `go test -run TestPlans
// -update` rewrites the plans; review the diff before committing it.
func TestPlans(t *testing.T) {
	files, _ := filepath.Glob("testdata/plans/*.txt")
	if len(files) == 0 {
		t.Fatal("no testdata/plans")
	}
	s := joinLake(t)
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var out strings.Builder
			for i, c := range strings.Split(strings.TrimSpace(string(data)), "\n\n") {
				in, want, _ := strings.Cut(c, "\n----")
				head, query, ok := strings.Cut(in, "\n")
				if !ok || !strings.HasPrefix(head, "plan") {
					t.Fatalf("case %d: starts with %q, not plan", i+1, head)
				}
				disabled := ""
				for _, f := range strings.Fields(head)[1:] {
					v, ok := strings.CutPrefix(f, "disable=")
					if !ok {
						t.Fatalf("case %d: unknown option %q", i+1, f)
					}
					disabled = strings.ReplaceAll(v, ",", ", ")
				}
				must(t, s, `SET lakepg.disabled_rules = '`+disabled+`'`)
				got := planShape(explainLines(t, s, "EXPLAIN (VERBOSE) "+query))
				if *updatePlans {
					fmt.Fprintf(&out, "%s\n----\n%s\n\n", in, got)
					continue
				}
				if strings.TrimSpace(want) != strings.TrimSpace(got) {
					t.Errorf("case %d:\n%s\ngot:\n%s\nwant:\n%s", i+1, in, got, strings.TrimSpace(want))
				}
			}
			must(t, s, `RESET lakepg.disabled_rules`)
			if *updatePlans {
				if err := os.WriteFile(file, []byte(strings.TrimSuffix(out.String(), "\n")), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
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
