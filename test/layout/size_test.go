package layout

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxPackageLines bounds a package's non-test source: past it, a package
// has more than one job and its pieces belong in packages of their own
// (issue 16 set the figure).
const maxPackageLines = 12000

// TestPackageSize fails when a package's non-test Go files hold more than
// maxPackageLines lines.
func TestPackageSize(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	lines := map[string]int{}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		lines[filepath.ToSlash(rel)] += bytes.Count(src, []byte("\n"))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if lines["exec"] < 1000 || lines["sql/planner"] < 1000 {
		t.Fatalf("counted too little: exec %d, sql/planner %d lines", lines["exec"], lines["sql/planner"])
	}
	for pkg, n := range lines {
		if n > maxPackageLines {
			t.Errorf("package %s has %d lines of non-test Go, more than %d: move a piece with one job into a package of its own", pkg, n, maxPackageLines)
		}
	}
}
