package wire

import (
	"go/parser"
	"go/token"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestImports keeps wire on its side of the design: it may use the shared
// leaves (types, pgerr) and the vectors it encodes, never the SQL layer,
// the executor's internals, catalogs, snapshots or storage.
func TestImports(t *testing.T) {
	allowed := map[string]bool{
		"github.com/lakepg/lakepg/types":    true,
		"github.com/lakepg/lakepg/pgerr":    true,
		"github.com/lakepg/lakepg/exec/vec": true,
	}
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(path, "github.com/lakepg/lakepg/") && !allowed[path] {
				t.Errorf("%s imports %s", name, path)
			}
			for _, banned := range []string{"github.com/parquet-go/", "github.com/pganalyze/", "modernc.org/sqlite", "github.com/aws/"} {
				if strings.HasPrefix(path, banned) {
					t.Errorf("%s imports %s", name, path)
				}
			}
		}
	}
}
