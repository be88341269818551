package cli

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestDependencies keeps cli beside cmd/lakepg at the top of the import
// graph: it drives the engine through sql, never the protocol layer (wire)
// or the command, and no test helper leaks into the binary.
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
			for _, banned := range []string{"github.com/lakepg/lakepg/wire", "github.com/lakepg/lakepg/cmd", "github.com/lakepg/lakepg/test"} {
				if path == banned || strings.HasPrefix(path, banned+"/") {
					t.Errorf("%s imports %s", f, path)
				}
			}
		}
	}
}
