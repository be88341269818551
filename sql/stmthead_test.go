package sql

import (
	"context"
	"testing"
)

// TestStatementHeadPerStatement: a statement reads the head once, but only
// for itself. A statement prepared after another session changed the table
// is described against the change, and one run after it sees it, however
// recently this session ran or described other statements.
func TestStatementHeadPerStatement(t *testing.T) {
	a := setup(t)
	b, err := a.eng.NewSession("test", "lake", map[string]string{"TimeZone": "UTC"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	mustTag(t, a, `INSERT INTO t (g, x) VALUES ('p', 10)`, "INSERT 0 1")
	// described now: two parameters
	early, err := a.Prepare(ctx, `INSERT INTO t (g, x) VALUES ($1, $2)`, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(early[0].ParamTypes()); n != 2 {
		t.Fatalf("%d parameters, want 2", n)
	}
	mustTag(t, b, `ALTER TABLE t ADD COLUMN z integer`, "ALTER TABLE")
	late, err := a.Prepare(ctx, `INSERT INTO t VALUES ($1, $2, $3, $4, $5, $6)`, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(late[0].ParamTypes()); n != 6 {
		t.Fatalf("prepared after the ALTER: %d parameters, want 6", n)
	}
	if _, err := late[0].Execute(ctx, [][]byte{[]byte("q"), []byte("11"), nil, nil, nil, []byte("7")}); err != nil {
		t.Fatal(err)
	}
	mustTag(t, b, `ALTER TABLE t DROP COLUMN z`, "ALTER TABLE")
	must(t, a, `SELECT g, x FROM t WHERE x >= 10 ORDER BY x`, "p|10", "q|11")
	mustTag(t, a, `INSERT INTO t VALUES ('r', 12, NULL, NULL, NULL)`, "INSERT 0 1")
}
