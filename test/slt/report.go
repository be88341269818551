package slt

import (
	"fmt"
	"sort"
	"strings"
	"text/tabwriter"
	"time"
)

// Summary renders the figures of a run: a table of records passed, failed and skipped per
// file, the most frequent causes of failure over all files, and the first failures of each
// file with their SQL (at most examples per file).
func Summary(title string, results []FileResult, examples int) string {
	var sb strings.Builder
	sb.WriteString(title + "\n")
	tw := tabwriter.NewWriter(&sb, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "file\trecords\tpassed\tfailed\ttimed out\tnot run\tskipped\ttime\t")
	row := func(r *FileResult) {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t\n", r.Name, r.Records(), r.Passed, r.Failed,
			r.TimedOut, r.NotRun, r.Skipped, r.Duration.Round(100*time.Millisecond))
	}
	tot := FileResult{Name: "total"}
	causes := map[string]int{}
	for i := range results {
		r := &results[i]
		row(r)
		tot.Passed += r.Passed
		tot.Failed += r.Failed
		tot.TimedOut += r.TimedOut
		tot.NotRun += r.NotRun
		tot.Skipped += r.Skipped
		tot.Duration += r.Duration
		for c, n := range r.Causes {
			causes[c] += n
		}
	}
	row(&tot)
	tw.Flush()
	if tot.NotRun > 0 {
		sb.WriteString("\nnot run: the file's time budget (-slt.budget) was spent before its end; " +
			"timed-out and not-run records count neither as passes nor as regressions\n")
	}
	if len(causes) > 0 {
		sb.WriteString("\nfailures by cause (most frequent first):\n")
		for _, c := range topCauses(causes, 15) {
			fmt.Fprintf(&sb, "  %6d  %s\n", causes[c], c)
		}
	}
	var slow []string
	for _, r := range results {
		if len(r.Slowest) > 0 && r.Slowest[0].Duration >= time.Second {
			var ts []string
			for _, s := range r.Slowest {
				ts = append(ts, fmt.Sprintf("line %d %s", s.Line, s.Duration.Round(10*time.Millisecond)))
			}
			slow = append(slow, fmt.Sprintf("  %s: %s", r.Name, strings.Join(ts, ", ")))
		}
	}
	if len(slow) > 0 {
		sb.WriteString("\nslowest records:\n" + strings.Join(slow, "\n") + "\n")
	}
	for _, r := range results {
		if len(r.Failures) == 0 || examples == 0 {
			continue
		}
		fmt.Fprintf(&sb, "\nfirst failure of each cause in %s:\n", r.Name)
		for i, f := range r.Failures {
			if i == examples {
				break
			}
			fmt.Fprintf(&sb, "  [%d× %s]\n", r.Causes[f.Cause], f.Cause)
			sb.WriteString("  " + strings.ReplaceAll(f.String(), "\n", "\n  ") + "\n")
		}
	}
	return sb.String()
}

func topCauses(causes map[string]int, n int) []string {
	keys := make([]string, 0, len(causes))
	for c := range causes {
		keys = append(keys, c)
	}
	sort.Slice(keys, func(i, j int) bool {
		if causes[keys[i]] != causes[keys[j]] {
			return causes[keys[i]] > causes[keys[j]]
		}
		return keys[i] < keys[j]
	})
	if len(keys) > n {
		keys = keys[:n]
	}
	return keys
}
