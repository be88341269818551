package snapshot

import (
	"testing"

	"github.com/lakepg/lakepg/catalog"
)

// TestOptionSetInStatement: a statement that sets an option reads the new
// value afterwards, although its head read gathered ducklake_metadata
// before (catalog.WithStatement).
func TestOptionSetInStatement(t *testing.T) {
	eachBackend(t, func(t *testing.T, be backend) {
		e := newEnv(t, be)
		stmt := catalog.WithStatement(e.ctx)
		if _, err := e.db.Head(stmt); err != nil {
			t.Fatal(err)
		}
		if _, ok, err := Option(stmt, e.db, "target_file_size", -1, -1); err != nil || ok {
			t.Fatalf("before: %v, %v", ok, err)
		}
		if err := SetOption(stmt, e.db, "target_file_size", "1MB", "", 0); err != nil {
			t.Fatal(err)
		}
		if v, ok, err := Option(stmt, e.db, "target_file_size", -1, -1); err != nil || !ok || v != "1MB" {
			t.Fatalf("after: %q, %v, %v", v, ok, err)
		}
	})
}
