package testserver

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// The conformance suites (sqllogictest, TPC-H, PostgreSQL differential) run against an
// engine that is still growing, so most of them cannot pass in full yet. Each keeps a
// checked-in baseline of what it achieves: a count of passing records per file, or the list
// of passing queries. Fewer passes than the baseline fail the test (a regression); more passes
// only print "raise the baseline" with the new figures, and the suite's -update flag rewrites
// the file. The engine can thus grow with CI green while every result stays asserted.

// Baseline is the content of a baseline file: a count of passes per key.
//
// File format: one key per line, "key count" or a bare "key" (count 1, used for lists of
// passing queries); blank lines and lines starting with '#' are ignored.
type Baseline map[string]int

// ReadBaseline reads a baseline file; a missing file is an empty baseline.
func ReadBaseline(path string) (Baseline, error) {
	b := Baseline{}
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return b, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		switch len(fields) {
		case 1:
			b[fields[0]] = 1
		case 2:
			c, err := strconv.Atoi(fields[1])
			if err != nil || c < 0 {
				return nil, fmt.Errorf("%s:%d: bad count %q", path, n, fields[1])
			}
			b[fields[0]] = c
		default:
			return nil, fmt.Errorf("%s:%d: want \"key count\" or \"key\", got %q", path, n, line)
		}
	}
	return b, sc.Err()
}

// BaselineCheck compares the figures of one run with a checked-in baseline.
type BaselineCheck struct {
	Path   string   // the baseline file
	Header []string // comment lines written at the top of the file on update
	List   bool     // write the file as a list of the keys whose count is 1 (others omitted)
	Update bool     // rewrite the file with the figures of this run instead of comparing
	// UpdateHint is the command that rewrites the file, for the messages.
	UpdateHint string
}

// Check compares passed (the figures of the keys that ran) with the baseline. undecided
// counts, per key, the cases whose outcome the run could not establish (timed out, or not
// run when a time budget was spent): a slower machine must not turn a pass into a
// regression, and speed is measured by benchmarks, not tests. A key regresses when
// passed+undecided is below its baseline: at least one case that passed before now
// definitely fails (an error or a wrong result). Regressions are reported with t.Errorf;
// keys with more passes, and keys not in the baseline that pass, are returned as "raise the
// baseline" lines. Keys of the baseline that did not run are left alone. With Update, the
// baseline is rewritten from passed (keeping the entries of keys that did not run) and
// nothing is compared.
func (bc BaselineCheck) Check(t testing.TB, passed, undecided Baseline) (report []string) {
	got := passed
	t.Helper()
	base, err := ReadBaseline(bc.Path)
	if err != nil {
		t.Fatalf("reading baseline: %v", err)
	}
	if bc.Update {
		for k, v := range got {
			base[k] = v
		}
		if err := bc.write(base); err != nil {
			t.Fatalf("writing baseline: %v", err)
		}
		return []string{fmt.Sprintf("baseline %s rewritten (-update)", bc.Path)}
	}
	var regressions, raises []string
	ran := Baseline{}
	for k := range got {
		ran[k] = 1
	}
	for k := range undecided {
		ran[k] = 1
	}
	for _, k := range sortedKeys(ran) {
		g, u, b := got[k], undecided[k], base[k]
		switch {
		case g+u < b && u > 0:
			regressions = append(regressions, fmt.Sprintf("%s: %d passing (+%d timed out or not run), baseline %d", k, g, u, b))
		case g+u < b:
			regressions = append(regressions, fmt.Sprintf("%s: %d passing, baseline %d", k, g, b))
		case g < b:
			report = append(report, fmt.Sprintf("%s: %d passing, baseline %d; not a regression: %d timed out or not run", k, g, b, u))
		case g > b:
			raises = append(raises, fmt.Sprintf("%s: %d passing, baseline %d", k, g, b))
		}
	}
	for _, r := range regressions {
		t.Errorf("REGRESSION against %s: %s", bc.Path, r)
	}
	if len(regressions) > 0 {
		report = append(report, fmt.Sprintf("REGRESSIONS against %s:", bc.Path))
		for _, r := range regressions {
			report = append(report, "  "+r)
		}
	}
	if len(raises) > 0 {
		report = append(report, fmt.Sprintf("more passes than the baseline: raise the baseline (%s):", bc.UpdateHint))
		for _, r := range raises {
			report = append(report, "  "+r)
		}
	}
	if len(regressions) == 0 && len(raises) == 0 && len(report) == 0 {
		report = append(report, fmt.Sprintf("figures equal the baseline %s", bc.Path))
	}
	return report
}

func (bc BaselineCheck) write(b Baseline) error {
	var sb strings.Builder
	for _, h := range bc.Header {
		sb.WriteString("# " + h + "\n")
	}
	for _, k := range sortedKeys(b) {
		switch {
		case bc.List && b[k] == 1:
			sb.WriteString(k + "\n")
		case bc.List:
		default:
			fmt.Fprintf(&sb, "%s %d\n", k, b[k])
		}
	}
	if err := os.MkdirAll(filepath.Dir(bc.Path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(bc.Path, []byte(sb.String()), 0o644)
}

func sortedKeys(b Baseline) []string {
	keys := make([]string, 0, len(b))
	for k := range b {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// ReportDirEnv names a directory where suites write their summaries (one file per suite);
// scripts/test.sh sets it and prints the summaries after the tests, since `go test ./...`
// shows the output of passing tests only with -v.
const ReportDirEnv = "LAKEPG_TEST_REPORT_DIR"

// Report logs a suite's summary and, when ReportDirEnv is set, writes it to
// $LAKEPG_TEST_REPORT_DIR/<name>.txt.
func Report(t testing.TB, name, text string) {
	t.Helper()
	t.Log("\n" + text)
	dir := os.Getenv(ReportDirEnv)
	if dir == "" {
		return
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Logf("writing report: %v", err)
		return
	}
	if err := os.WriteFile(filepath.Join(dir, name+".txt"), []byte(text), 0o644); err != nil {
		t.Logf("writing report: %v", err)
	}
}
