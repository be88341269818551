package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// maintTask is one task of `lakepg maintenance`: a DuckLake maintenance
// procedure, run as CALL lakepg.<proc>(…) embedded or on a server.
type maintTask struct {
	name, proc, summary string
	// scoped tasks take --table and --schema
	scoped bool
}

// maintTasks in the order they run, whatever the order on the command
// line: inlined rows become files before compaction looks at files, files
// with many deletes are rewritten before small files are merged (merging
// skips files with deletes), and expiry schedules the files cleanup deletes.
var maintTasks = []maintTask{
	{"flush", "flush_inlined_data", "write rows kept in the catalog (data inlining) to Parquet files", true},
	{"rewrite", "rewrite_data_files", "rewrite data files whose deleted fraction reaches --delete-threshold", true},
	{"merge", "merge_adjacent_files", "merge small adjacent data files into files of up to target_file_size", true},
	{"expire", "expire_snapshots", "expire snapshots (--older-than or --versions); the files only they saw are scheduled for deletion", false},
	{"cleanup", "cleanup_old_files", "delete files scheduled for deletion (--older-than, or --all)", false},
	{"orphans", "delete_orphaned_files", "delete Parquet files under the data path the catalog does not know (--older-than, or --all)", false},
}

// maintAliases name groups of tasks.
var maintAliases = map[string][]string{
	"compact":    {"rewrite", "merge"},
	"compaction": {"rewrite", "merge"},
	"expiry":     {"expire"},
}

func maintenanceFlags(fs *flag.FlagSet) func(context.Context, []string, Info) int {
	lf := addLakeFlags(fs, true)
	dry := fs.Bool("dry-run", false, "report what each task would do (files, snapshots, rows) and change nothing")
	table := fs.String("table", "", "flush, rewrite, merge: only this table ([schema.]table)")
	schema := fs.String("schema", "", "flush, rewrite, merge: only the tables of this schema")
	olderThan := fs.String("older-than", "", "expire: snapshots taken, cleanup: files scheduled, orphans: files modified before this: a DURATION ago (90m, 36h, 7d) or a TIMESTAMP (2026-01-02, 2026-01-02 15:04:05, RFC 3339; local time unless it has a zone)")
	versions := fs.String("versions", "", "expire: these snapshot ids (comma-separated) instead of --older-than")
	all := fs.Bool("all", false, "cleanup, orphans: every such file, whatever its age")
	threshold := fs.String("delete-threshold", "", "rewrite: the fraction (0 to 1) of a file's rows that must be deleted; default the lake's rewrite_delete_threshold, else 0.95")
	maxFiles := fs.Int("max-files", 0, "merge: at most this many files into one (0: no limit)")
	return func(ctx context.Context, args []string, info Info) int {
		fail := func(code int, format string, a ...any) int {
			fmt.Fprintf(info.Stderr, "lakepg maintenance: "+format+"\n", a...)
			return code
		}
		if len(args) == 0 {
			return fail(ExitUsage, "name at least one task: %s (or compact = rewrite merge)", maintTaskNames())
		}
		chosen := map[string]bool{}
		for _, a := range args {
			names, ok := maintAliases[strings.ToLower(a)]
			if !ok {
				names = []string{strings.ToLower(a)}
			}
			for _, n := range names {
				if _, ok := findMaintTask(n); !ok {
					return fail(ExitUsage, "unknown task %q; tasks are %s (or compact = rewrite merge)", a, maintTaskNames())
				}
				chosen[n] = true
			}
		}
		if *olderThan != "" {
			if _, err := parseOlderThan(*olderThan, time.Now()); err != nil {
				return fail(ExitUsage, "--older-than: %v", err)
			}
			if *versions != "" && chosen["expire"] {
				return fail(ExitUsage, "expire: give --older-than or --versions, not both")
			}
			if *all && (chosen["cleanup"] || chosen["orphans"]) {
				return fail(ExitUsage, "cleanup, orphans: give --older-than or --all, not both")
			}
		}
		var ids []string
		if *versions != "" {
			for _, v := range strings.Split(*versions, ",") {
				if _, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err != nil {
					return fail(ExitUsage, "--versions: %q is not a snapshot id", v)
				}
				ids = append(ids, strings.TrimSpace(v))
			}
		}
		if *threshold != "" {
			if f, err := strconv.ParseFloat(*threshold, 64); err != nil || f < 0 || f > 1 {
				return fail(ExitUsage, "--delete-threshold %q: want a fraction between 0 and 1", *threshold)
			}
		}

		var (
			conn Conn
			err  error
		)
		if *lf.connect != "" {
			conn, err = OpenClient(ctx, *lf.connect)
		} else if err = lakeExists(ctx, lf.lake()); err == nil {
			// maintenance must not create a lake where there was none
			conn, err = OpenEmbedded(ctx, lf.lake(), nil)
		}
		if err != nil {
			return fail(ExitError, "%v", err)
		}
		defer conn.Close()
		var notices []Notice
		if n, ok := conn.(noticer); ok {
			n.OnNotice(func(x Notice) { notices = append(notices, x) })
		}
		if *dry {
			fmt.Fprintf(info.Stdout, "dry run (%s): nothing will be changed\n", lf.describe())
		}
		for _, t := range maintTasks {
			if !chosen[t.name] {
				continue
			}
			// the cut-off is taken when the task starts, so that cleanup
			// after expire sees the files expire has just scheduled
			stmt := maintCall(t, maintOptions{
				dry: *dry, table: *table, schema: *schema, olderThan: *olderThan, versions: ids,
				all: *all, threshold: *threshold, maxFiles: *maxFiles,
			}, time.Now())
			notices = notices[:0]
			start := time.Now()
			if _, err := conn.Run(ctx, stmt, discard{}); err != nil {
				if *dry && *lf.connect != "" && SQLState(err) == "42883" && strings.Contains(err.Error(), `"dry_run"`) {
					return fail(ExitError, "%s: the server does not support dry runs of %s; run the dry run embedded (--catalog/--data) or upgrade the server", t.name, t.proc)
				}
				fmt.Fprintf(info.Stderr, "%s: %s\n", t.name, errorLine(err))
				return ExitError
			}
			printMaintNotices(info.Stdout, t, notices, time.Since(start))
		}
		return ExitOK
	}
}

func findMaintTask(name string) (maintTask, bool) {
	for _, t := range maintTasks {
		if t.name == name {
			return t, true
		}
	}
	return maintTask{}, false
}

func maintTaskNames() string {
	names := make([]string, len(maintTasks))
	for i, t := range maintTasks {
		names[i] = t.name
	}
	return strings.Join(names, ", ")
}

type maintOptions struct {
	dry                      bool
	table, schema, olderThan string
	versions                 []string
	all                      bool
	threshold                string
	maxFiles                 int
}

// maintCall is the CALL statement of task t with the options that apply to
// it; now resolves a relative --older-than.
func maintCall(t maintTask, o maintOptions, now time.Time) string {
	var args []string
	named := func(name, value string) { args = append(args, name+" => "+value) }
	if t.scoped {
		if o.table != "" {
			named("table_name", strLit(o.table))
		}
		if o.schema != "" {
			named("schema", strLit(o.schema))
		}
	}
	cutoff := func() {
		if o.olderThan != "" {
			ts, _ := parseOlderThan(o.olderThan, now) // checked when the flags were read
			named("older_than", strLit(ts.UTC().Format("2006-01-02 15:04:05.999999-07"))+"::timestamptz")
		}
	}
	switch t.name {
	case "rewrite":
		if o.threshold != "" {
			named("delete_threshold", o.threshold)
		}
	case "merge":
		if o.maxFiles > 0 {
			named("max_compacted_files", strconv.Itoa(o.maxFiles))
		}
	case "expire":
		if len(o.versions) > 0 {
			named("versions", "ARRAY["+strings.Join(o.versions, ", ")+"]")
		} else {
			cutoff()
		}
	case "cleanup", "orphans":
		if o.all {
			named("cleanup_all", "true")
		} else {
			cutoff()
		}
	}
	if o.dry {
		named("dry_run", "true")
	}
	return "CALL lakepg." + t.proc + "(" + strings.Join(args, ", ") + ")"
}

// strLit is a SQL string literal.
func strLit(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// parseOlderThan reads --older-than: a duration before now (Go's 90m, 36h,
// or whole or fractional days, 7d) or a timestamp.
func parseOlderThan(v string, now time.Time) (time.Time, error) {
	v = strings.TrimSpace(v)
	if d, ok := strings.CutSuffix(v, "d"); ok {
		if n, err := strconv.ParseFloat(d, 64); err == nil && n >= 0 {
			return now.Add(-time.Duration(n * 24 * float64(time.Hour))), nil
		}
	}
	if d, err := time.ParseDuration(v); err == nil {
		if d < 0 {
			return time.Time{}, fmt.Errorf("%q: a duration must not be negative", v)
		}
		return now.Add(-d), nil
	}
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		return t, nil
	}
	for _, layout := range []string{"2006-01-02 15:04:05.999999999Z07:00", "2006-01-02 15:04:05.999999999-07", "2006-01-02T15:04:05.999999999-07"} {
		if t, err := time.Parse(layout, v); err == nil {
			return t, nil
		}
	}
	for _, layout := range []string{"2006-01-02 15:04:05.999999999", "2006-01-02T15:04:05.999999999", "2006-01-02 15:04", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, v, time.Local); err == nil {
			return t, nil
		}
	}
	return time.Time{}, errors.New("want a duration (90m, 36h, 7d) or a timestamp (2026-01-02 15:04:05)")
}

// printMaintNotices prints what a task reported: each notice's message,
// then its detail (a dry run's list of files, snapshots or tables)
// indented.
func printMaintNotices(w io.Writer, t maintTask, notices []Notice, took time.Duration) {
	if len(notices) == 0 {
		fmt.Fprintf(w, "%s: done (%.1f ms)\n", t.proc, float64(took.Microseconds())/1000)
		return
	}
	for _, n := range notices {
		prefix := ""
		if n.Severity != "" && n.Severity != "NOTICE" && n.Severity != "INFO" {
			prefix = n.Severity + ": "
		}
		fmt.Fprintf(w, "%s%s (%.1f ms)\n", prefix, n.Message, float64(took.Microseconds())/1000)
		if n.Detail != "" {
			for _, l := range strings.Split(n.Detail, "\n") {
				fmt.Fprintf(w, "  %s\n", l)
			}
		}
	}
}
