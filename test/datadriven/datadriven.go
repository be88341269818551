// Package datadriven runs checked-in test cases of the form "input, a line
// ----, expected output", one case per blank-line-separated block of a text
// file, as the planner's tests keep them: SQL or a join graph in, a plan
// out. `go test … -update` rewrites the expected outputs from what the code
// gives, for review in the diff.
package datadriven

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the expected outputs of data-driven test files")

// Run runs every case of the files matching glob: run gives a case's
// output for its input (the lines before "----"). With -update the files
// are rewritten with those outputs; otherwise each must equal the file's.
func Run(t *testing.T, glob string, run func(t *testing.T, input string) string) {
	t.Helper()
	files, _ := filepath.Glob(glob)
	if len(files) == 0 {
		t.Fatalf("no test files match %s", glob)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var out strings.Builder
			for i, c := range strings.Split(strings.TrimSpace(string(data)), "\n\n") {
				in, want, _ := strings.Cut(c, "\n----")
				got := strings.TrimSpace(run(t, in))
				if *update {
					fmt.Fprintf(&out, "%s\n----\n%s\n\n", in, got)
					continue
				}
				if strings.TrimSpace(want) != got {
					t.Errorf("%s case %d:\n%s\ngot:\n%s\nwant:\n%s", filepath.Base(file), i+1, in, got, strings.TrimSpace(want))
				}
			}
			if *update {
				if err := os.WriteFile(file, []byte(strings.TrimSuffix(out.String(), "\n")), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}
