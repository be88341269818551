package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// shAll runs lakepg shell -c for each statement and requires success; it
// returns stdout and stderr (where notices go).
func (l lake) shAll(t *testing.T, stmts ...string) (string, string) {
	t.Helper()
	args := append([]string{"shell", "--timing=false"}, l.args...)
	for _, s := range stmts {
		args = append(args, "-c", s)
	}
	r := run(t, l.dir, "", args...)
	if r.code != 0 {
		t.Fatalf("lakepg %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	return r.stdout, r.stderr
}

func exists(t *testing.T, p string) bool {
	t.Helper()
	_, err := os.Stat(p)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return err == nil
}

func stray(t *testing.T, p string) {
	t.Helper()
	if err := os.WriteFile(p, []byte("PAR1 stray PAR1"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestMisplacedDataFile simulates what a rename inside a transaction block
// once did: the catalog names public/t1/ducklake-<uuid>.parquet while the
// file sits in public/t1__tmp/. check must say how to move it back, neither
// delete_orphaned_files nor `maintenance orphans` may delete it (even with
// cleanup_all), genuine orphans still go, and after the move the lake is
// sound and reads back. Then the catalog row is respelled (absolute, with
// "./", ".." and "//"): the file is still the catalog's, to check and to the
// sweep.
func TestMisplacedDataFile(t *testing.T) {
	l := newLake(t)
	l.sh(t, nil,
		"CALL lakepg.set_option('data_inlining_row_limit', '0')",
		"CREATE TABLE t1 (id int, v text)",
		"INSERT INTO t1 SELECT g, 'v' || g::text FROM generate_series(1, 1000) g")
	const answer = "SELECT count(*) AS n, sum(id) AS s FROM t1"
	const want = "n,s\n1000,500500\n"
	if got := l.sh(t, []string{"--format", "csv"}, answer); got != want {
		t.Fatalf("before: %q", got)
	}
	dir := filepath.Join(l.dir, "data", "public", "t1")
	files, _ := filepath.Glob(filepath.Join(dir, "ducklake-*.parquet"))
	if len(files) != 1 {
		t.Fatalf("want one data file in %s, have %v", dir, files)
	}
	named := files[0]
	wrongDir := filepath.Join(l.dir, "data", "public", "t1__tmp")
	misplaced := filepath.Join(wrongDir, filepath.Base(named))
	if err := os.MkdirAll(wrongDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(named, misplaced); err != nil {
		t.Fatal(err)
	}

	// check: one line that pairs the missing file with its orphan
	r := run(t, l.dir, "", append([]string{"check"}, l.args...)...)
	if r.code != 1 {
		t.Errorf("check of a lake with a misplaced file: exit %d", r.code)
	}
	requireLines(t, r.stdout,
		"missing: "+named+" (data file ",
		"— the file is at "+misplaced+"; move it to the path the catalog names (mkdir -p '"+dir+"' && mv '"+misplaced+"' '"+named+"') and run lakepg check again; do not delete orphans before that",
		": 1 problem(s)")
	if strings.Contains(r.stdout, "orphan: ") {
		t.Errorf("check reports the misplaced file as an orphan too:\n%s", r.stdout)
	}

	keptLine := "kept: " + misplaced + ": named by the catalog as " + named
	// the SQL procedure: a dry run, then the real thing, with cleanup_all
	stray1 := filepath.Join(dir, "ducklake-stray1.parquet")
	stray(t, stray1)
	_, notice := l.shAll(t, "CALL lakepg.delete_orphaned_files(cleanup_all => true, dry_run => true)")
	requireLines(t, notice, "delete_orphaned_files: would delete 1 files and 0 temporary files", stray1+" (15 bytes", keptLine)
	if !exists(t, stray1) || !exists(t, misplaced) {
		t.Fatalf("the dry run deleted a file")
	}
	_, notice = l.shAll(t, "CALL lakepg.delete_orphaned_files(cleanup_all => true)")
	requireLines(t, notice, "delete_orphaned_files: deleted 1 files and 0 temporary files", keptLine)
	if exists(t, stray1) {
		t.Errorf("delete_orphaned_files(cleanup_all => true) left the stray file %s", stray1)
	}
	if !exists(t, misplaced) {
		t.Fatalf("delete_orphaned_files(cleanup_all => true) deleted the misplaced data file %s", misplaced)
	}

	// the CLI task, with --all
	stray2 := filepath.Join(dir, "ducklake-stray2.parquet")
	stray(t, stray2)
	out := l.maint(t, "orphans", "--all")
	requireLines(t, out, "delete_orphaned_files: deleted 1 files and 0 temporary files", "  "+keptLine)
	if exists(t, stray2) || !exists(t, misplaced) {
		t.Fatalf("maintenance orphans --all: stray2 there %v, misplaced file there %v", exists(t, stray2), exists(t, misplaced))
	}

	// without --all or --older-than: DuckDB's default grace period of two
	// days (delete_older_than) keeps a fresh stray file
	stray3 := filepath.Join(dir, "ducklake-stray3.parquet")
	stray(t, stray3)
	out = l.maint(t, "orphans")
	requireLines(t, out, "delete_orphaned_files: deleted 0 files and 0 temporary files", "  "+keptLine)
	if !exists(t, stray3) {
		t.Errorf("maintenance orphans without a cut-off deleted a file modified just now")
	}
	requireLines(t, l.maint(t, "orphans", "--older-than", "0s"), "delete_orphaned_files: deleted 1 files and 0 temporary files")
	if exists(t, stray3) || !exists(t, misplaced) {
		t.Fatalf("maintenance orphans --older-than 0s: stray3 there %v, misplaced file there %v", exists(t, stray3), exists(t, misplaced))
	}

	// the repair check proposed
	if err := os.Rename(misplaced, named); err != nil {
		t.Fatal(err)
	}
	r = run(t, l.dir, "", append([]string{"check"}, l.args...)...)
	if r.code != 0 || !strings.HasSuffix(r.stdout, ": 0 problem(s)\n") {
		t.Errorf("check after moving the file back: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if got := l.sh(t, []string{"--format", "csv"}, answer); got != want {
		t.Errorf("after the repair: %q, want %q", got, want)
	}

	// another spelling of the same path in the catalog row
	cat := filepath.Join(l.dir, "catalog.sqlite")
	odd := dir + "/./..//t1/" + filepath.Base(named)
	catalogExec(t, cat, "UPDATE ducklake_data_file SET path = '"+odd+"', path_is_relative = 0")
	r = run(t, l.dir, "", append([]string{"check"}, l.args...)...)
	if r.code != 0 || !strings.HasSuffix(r.stdout, ": 0 problem(s)\n") {
		t.Errorf("check with the row spelled %s: exit %d\n%s%s", odd, r.code, r.stdout, r.stderr)
	}
	out = l.maint(t, "orphans", "--all")
	requireLines(t, out, "delete_orphaned_files: deleted 0 files and 0 temporary files")
	if strings.Contains(out, "kept: ") || !exists(t, named) {
		t.Errorf("maintenance orphans --all with the row spelled %s:\n%s", odd, out)
	}
	if got := l.sh(t, []string{"--format", "csv"}, answer); got != want {
		t.Errorf("with the row spelled %s: %q, want %q", odd, got, want)
	}
}
