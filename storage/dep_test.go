package storage

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestDependencies: storage is a leaf that knows nothing of Parquet,
// catalogs or queries, so it imports no lakepg package (its tests may use
// storage/s3test).
func TestDependencies(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range af.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(path, "github.com/lakepg/lakepg/") {
				t.Errorf("%s imports %s: storage may import no lakepg package", f, path)
			}
		}
	}
}
