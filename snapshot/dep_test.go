package snapshot

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestDependencies: snapshot sits just above catalog; it must not know
// about operators, SQL or the wire, so catalog is its only lakepg import.
func TestDependencies(t *testing.T) {
	allowed := map[string]bool{"github.com/lakepg/lakepg/catalog": true}
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
			if strings.HasPrefix(path, "github.com/lakepg/lakepg/") && !allowed[path] {
				t.Errorf("%s imports %s: snapshot may import only catalog from lakepg", f, path)
			}
		}
	}
}
