package testserver

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder is a testing.TB that records Errorf instead of failing.
type recorder struct {
	testing.TB
	errors []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func TestBaselineCheck(t *testing.T) {
	path := filepath.Join(t.TempDir(), "baseline.txt")
	if err := os.WriteFile(path, []byte("# comment\na 10\nb 5\nc 3\nq01\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bc := BaselineCheck{Path: path, UpdateHint: "rerun with -update"}

	// Equal, more, fewer but covered by undecided, fewer: one regression (c) and one raise (b).
	r := &recorder{TB: t}
	report := bc.Check(r, Baseline{"a": 10, "b": 7, "c": 2, "q01": 0, "new": 4}, Baseline{"q01": 1})
	if len(r.errors) != 1 || !strings.Contains(r.errors[0], "c: 2 passing, baseline 3") {
		t.Errorf("errors %q, want one regression of c", r.errors)
	}
	joined := strings.Join(report, "\n")
	for _, want := range []string{"raise the baseline", "b: 7 passing, baseline 5", "new: 4 passing, baseline 0", "q01: 0 passing, baseline 1; not a regression"} {
		if !strings.Contains(joined, want) {
			t.Errorf("report lacks %q:\n%s", want, joined)
		}
	}

	// A key that did not run is no regression.
	r = &recorder{TB: t}
	bc.Check(r, Baseline{"a": 10}, nil)
	if len(r.errors) != 0 {
		t.Errorf("errors %q for a partial run, want none", r.errors)
	}

	// Update rewrites the counts of the keys that ran and keeps the others; List writes only
	// the keys at 1.
	bc.Update, bc.List, bc.Header = true, true, []string{"header"}
	bc.Check(&recorder{TB: t}, Baseline{"q01": 1, "q02": 0, "q03": 1}, nil)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(b), "# header\nq01\nq03\n"; got != want {
		t.Errorf("rewritten list baseline %q, want %q", got, want)
	}
	bc.List = false
	bc.Check(&recorder{TB: t}, Baseline{"q02": 2}, nil)
	got, err := ReadBaseline(path)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != "map[q01:1 q02:2 q03:1]" {
		t.Errorf("rewritten baseline %v", got)
	}
}
