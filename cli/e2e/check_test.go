package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheck: a sound lake passes; after deleting a data file and adding a
// stray one, check reports both and exits non-zero.
func TestCheck(t *testing.T) {
	l := newLake(t)
	// check is about the Parquet files behind the catalog: the small writes below must
	// write data and delete files, not be inlined into the catalog.
	l.sh(t, nil, "CALL lakepg.set_option('data_inlining_row_limit', '0')")
	createOrders(t, l)
	l.sh(t, nil, "INSERT INTO sales.orders VALUES (4, 'dan', 4)", "DELETE FROM sales.orders WHERE id = 1")
	r := run(t, l.dir, "", append([]string{"check"}, l.args...)...)
	if r.code != 0 || !strings.HasSuffix(r.stdout, ": 0 problem(s)\n") {
		t.Fatalf("check of a sound lake: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "checked 2 data files, 1 delete files") {
		t.Errorf("check summary: %q", r.stdout)
	}

	dir := filepath.Join(l.dir, "data", "sales", "orders")
	files, err := filepath.Glob(filepath.Join(dir, "ducklake-*.parquet"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no data files under %s (%v)", dir, err)
	}
	var victim string
	for _, f := range files {
		if !strings.HasSuffix(f, "-delete.parquet") {
			victim = f
			break
		}
	}
	if err := os.Remove(victim); err != nil {
		t.Fatal(err)
	}
	orphan := filepath.Join(dir, "ducklake-stray.parquet")
	if err := os.WriteFile(orphan, []byte("PAR1 not really"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = run(t, l.dir, "", append([]string{"check"}, l.args...)...)
	if r.code == 0 {
		t.Errorf("check exited 0 with a missing and an orphaned file:\n%s", r.stdout)
	}
	for _, want := range []string{"missing: " + victim + " (data file ", "orphan: " + orphan + " (15 bytes", ": 2 problem(s)"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("check output lacks %q:\n%s", want, r.stdout)
		}
	}

	// a size that disagrees with file_size_bytes
	os.Remove(orphan)
	rest, _ := filepath.Glob(filepath.Join(dir, "ducklake-*.parquet"))
	for _, f := range rest {
		if f != victim {
			fh, _ := os.OpenFile(f, os.O_APPEND|os.O_WRONLY, 0)
			fh.Write([]byte("xx"))
			fh.Close()
			r = run(t, l.dir, "", append([]string{"check"}, l.args...)...)
			if r.code == 0 || !strings.Contains(r.stdout, "size mismatch: "+f) {
				t.Errorf("grown file %s not reported:\n%s", f, r.stdout)
			}
			break
		}
	}
}
