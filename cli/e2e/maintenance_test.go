package e2e

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// dataFiles lists the files under the lake's data directory with their sizes.
func (l lake) dataFiles(t *testing.T) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(filepath.Join(l.dir, "data"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		out = append(out, fmt.Sprintf("%s %d %d", p, info.Size(), info.ModTime().UnixNano()))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// maint runs lakepg maintenance on the lake and requires success.
func (l lake) maint(t *testing.T, args ...string) string {
	t.Helper()
	r := run(t, l.dir, "", append(append([]string{"maintenance"}, l.args...), args...)...)
	if r.code != 0 {
		t.Fatalf("lakepg maintenance %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	return r.stdout
}

func requireLines(t *testing.T, out string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
}

// TestMaintenance builds a lake of many small files, inlined rows and
// deleted rows; a dry run of every task reports what it would do and
// changes nothing; then flush, compaction, expiry and cleanup do it, the
// answers stay the same and the data directory ends up holding only the
// files the catalog references.
func TestMaintenance(t *testing.T) {
	l := newLake(t)
	// three rows kept in the catalog (data inlining is on by default) ...
	l.sh(t, nil, "CREATE TABLE m (id int, v text)", "INSERT INTO m VALUES (1, 'a'), (2, 'b'), (3, 'c')")
	// ... then six small files, one of them almost wholly deleted and one
	// with a few deletes
	stmts := []string{"CALL lakepg.set_option('data_inlining_row_limit', '0')"}
	for i := 1; i <= 6; i++ {
		stmts = append(stmts, fmt.Sprintf("INSERT INTO m SELECT g, 'v' || g::text FROM generate_series(%d, %d) g", i*100, i*100+99))
	}
	stmts = append(stmts, "DELETE FROM m WHERE id BETWEEN 100 AND 197 OR id IN (300, 301)")
	l.sh(t, nil, stmts...)
	const answer = "SELECT count(*) AS n, sum(id) AS s FROM m"
	want := l.sh(t, []string{"--format", "csv"}, answer)
	if want != "n,s\n503,224552\n" {
		t.Fatalf("before maintenance: %q", want)
	}
	snaps, files := l.snapshotCount(t), l.dataFiles(t)
	if len(files) != 8 { // six data files, two delete files
		t.Fatalf("want 8 files before maintenance, have:\n%s", strings.Join(files, "\n"))
	}

	dry := l.maint(t, "flush", "compact", "expire", "cleanup", "orphans", "--dry-run", "--older-than", "0s")
	requireLines(t, dry,
		"dry run (embedded: catalog sqlite:",
		"flush_inlined_data: would flush 3 inlined rows of 1 tables",
		"  public.m: 3 inlined rows, 0 inlined deletes of 0 data files",
		"rewrite_data_files: would rewrite 1 files",
		"(100 rows, 98 deleted)",
		"merge_adjacent_files: would merge 4 files into 1",
		"  public.m: 4 files (400 rows, ",
		"expire_snapshots: would expire ",
		"created_table:\"public\".\"m\"",
		"cleanup_old_files: would delete 0 files",
		"delete_orphaned_files: would delete 0 files and 0 temporary files",
	)
	// every data file is named, to be rewritten or merged, except the one
	// with a few deletes (below the rewrite threshold, and merging skips
	// files with deletes)
	named := 0
	for _, f := range files {
		if path := strings.Fields(f)[0]; !strings.HasSuffix(path, "-delete.parquet") && strings.Contains(dry, path+" (") {
			named++
		}
	}
	if named != 5 {
		t.Errorf("dry run names %d of the 6 data files, want 5:\n%s", named, dry)
	}
	if got := l.snapshotCount(t); got != snaps {
		t.Errorf("dry run changed the snapshot count: %s, was %s", got, snaps)
	}
	if got := l.dataFiles(t); strings.Join(got, "\n") != strings.Join(files, "\n") {
		t.Errorf("dry run changed the data files:\n%s\nwas:\n%s", strings.Join(got, "\n"), strings.Join(files, "\n"))
	}
	if got := l.sh(t, []string{"--format", "csv"}, answer); got != want {
		t.Errorf("dry run changed the answer: %q", got)
	}

	out := l.maint(t, "flush", "compact")
	// the flushed rows make a seventh small file, merged with the others
	requireLines(t, out,
		"flush_inlined_data: flushed 3 inlined rows of 1 tables",
		"rewrite_data_files: 1 files rewritten into 1",
		"merge_adjacent_files: 6 files merged into 1",
	)
	if got := l.sh(t, []string{"--format", "csv"}, answer); got != want {
		t.Errorf("compaction changed the answer: %q, want %q", got, want)
	}
	if again := l.maint(t, "compact", "--dry-run"); !strings.Contains(again, "merge_adjacent_files: would merge 0 files into 0") {
		t.Errorf("after compaction a dry run still finds work:\n%s", again)
	}
	before := len(l.dataFiles(t))

	// the dry run of expiry names the files it would leave unreadable
	snaps = l.snapshotCount(t)
	dryExpire := l.maint(t, "expire", "--older-than", "0s", "--dry-run")
	requireLines(t, dryExpire, "files would be scheduled for deletion (cleanup_old_files deletes them):")
	var doomed []string
	for _, line := range strings.Split(dryExpire, "\n") {
		if p, ok := strings.CutPrefix(line, "    "); ok && strings.HasSuffix(p, ".parquet") {
			doomed = append(doomed, p)
		}
	}
	if len(doomed) == 0 {
		t.Errorf("expiry dry run lists no files:\n%s", dryExpire)
	}
	if got := l.snapshotCount(t); got != snaps {
		t.Errorf("expiry dry run changed the snapshot count: %s, was %s", got, snaps)
	}
	if got := len(l.dataFiles(t)); got != before {
		t.Errorf("expiry dry run changed the files: %d, was %d", got, before)
	}

	out = l.maint(t, "expire", "cleanup", "--older-than", "0s")
	requireLines(t, out, "expire_snapshots: expired ", "cleanup_old_files: deleted ")
	if got := l.snapshotCount(t); got != "1" {
		t.Errorf("after expiring everything older than now: %s snapshots, want 1", got)
	}
	after := l.dataFiles(t)
	if len(after) >= before {
		t.Errorf("cleanup removed no files: %d before, %d after", before, len(after))
	}
	for _, p := range doomed {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s, which the dry run said expiry would schedule, survived cleanup: %v", p, err)
		}
	}
	r := run(t, l.dir, "", append([]string{"check"}, l.args...)...)
	if r.code != 0 || !strings.Contains(r.stdout, fmt.Sprintf("and %d files under", len(after))) || !strings.HasSuffix(r.stdout, ": 0 problem(s)\n") {
		t.Errorf("check after cleanup: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if got := l.sh(t, []string{"--format", "csv"}, answer); got != want {
		t.Errorf("expiry changed the answer: %q, want %q", got, want)
	}

	// an orphan is reported by a dry run, then deleted
	orphan := filepath.Join(l.dir, "data", "public", "m", "ducklake-stray.parquet")
	if err := os.WriteFile(orphan, []byte("PAR1"), 0o644); err != nil {
		t.Fatal(err)
	}
	requireLines(t, l.maint(t, "orphans", "--all", "--dry-run"), "delete_orphaned_files: would delete 1 files and 0 temporary files", "  "+orphan+" (4 bytes")
	if _, err := os.Stat(orphan); err != nil {
		t.Errorf("dry run deleted the orphan: %v", err)
	}
	requireLines(t, l.maint(t, "orphans", "--all"), "delete_orphaned_files: deleted 1 files and 0 temporary files")
	if _, err := os.Stat(orphan); !os.IsNotExist(err) {
		t.Errorf("orphan still there: %v", err)
	}
}

// TestMaintenanceUsage: bad tasks and flags are usage errors, and a
// missing lake is not created.
func TestMaintenanceUsage(t *testing.T) {
	l := newLake(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "name at least one task"},
		{[]string{"vacuum"}, `unknown task "vacuum"`},
		{[]string{"expire", "--older-than", "last tuesday"}, "--older-than: want a duration"},
		{[]string{"expire", "--older-than", "1d", "--versions", "1"}, "not both"},
		{[]string{"expire", "--versions", "x"}, `"x" is not a snapshot id`},
		{[]string{"rewrite", "--delete-threshold", "2"}, "between 0 and 1"},
	} {
		r := run(t, l.dir, "", append(append([]string{"maintenance"}, l.args...), c.args...)...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("maintenance %v: exit %d, stderr %q; want exit 2 and %q", c.args, r.code, r.stderr, c.want)
		}
	}
	r := run(t, l.dir, "", append(append([]string{"maintenance"}, l.args...), "merge")...)
	if r.code != 1 || !strings.Contains(r.stderr, "catalog.sqlite") {
		t.Errorf("maintenance of a missing lake: exit %d, stderr %q", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(l.dir, "catalog.sqlite")); err == nil {
		t.Errorf("maintenance created a lake")
	}
}
