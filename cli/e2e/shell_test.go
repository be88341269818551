package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func orders(t *testing.T) lake {
	l := newLake(t)
	createOrders(t, l)
	return l
}

// createOrders creates sales.orders with three rows in lake l.
func createOrders(t *testing.T, l lake) {
	t.Helper()
	l.sh(t, nil,
		"CREATE SCHEMA sales",
		"CREATE TABLE sales.orders (id int, name varchar, amount double precision)",
		"INSERT INTO sales.orders VALUES (1, 'alice', 100.5), (2, 'bob, jr', 250), (3, NULL, NULL)")
}

// TestShellFormats runs shell -c in each output format.
func TestShellFormats(t *testing.T) {
	l := orders(t)
	q := "SELECT id, name, amount FROM sales.orders ORDER BY id"
	cases := []struct{ format, want string }{
		{"table", `┌────┬─────────┬────────┐
│ id │ name    │ amount │
├────┼─────────┼────────┤
│  1 │ alice   │  100.5 │
│  2 │ bob, jr │    250 │
│  3 │         │        │
└────┴─────────┴────────┘
(3 rows)
`},
		{"csv", "id,name,amount\n1,alice,100.5\n2,\"bob, jr\",250\n3,,\n"},
		{"json", `[
  {"id": 1, "name": "alice", "amount": 100.5},
  {"id": 2, "name": "bob, jr", "amount": 250},
  {"id": 3, "name": null, "amount": null}
]
`},
	}
	for _, c := range cases {
		if got := l.sh(t, []string{"--format", c.format}, q); got != c.want {
			t.Errorf("--format %s:\ngot\n%s\nwant\n%s", c.format, got, c.want)
		}
	}

	// the timing follows the row count by default
	r := run(t, l.dir, "", append(append([]string{"shell"}, l.args...), "-c", "SELECT 1 AS one")...)
	if r.code != 0 || !timingLine.MatchString(r.stdout) || !strings.Contains(r.stdout, "(1 row)\nTime: ") {
		t.Errorf("timing: exit %d, stdout:\n%s", r.code, r.stdout)
	}

	// several statements in one -c, shortcuts in -c, commands print their tag
	got := l.sh(t, nil, "INSERT INTO sales.orders VALUES (4, 'dan', 1); SELECT count(*) AS n FROM sales.orders", "delete sales orders id = 4")
	want := "INSERT 0 1\n┌───┐\n│ n │\n├───┤\n│ 4 │\n└───┘\n(1 row)\nDELETE 1\n"
	if got != want {
		t.Errorf("statements in -c:\ngot\n%s\nwant\n%s", got, want)
	}
}

// TestShellErrors: an error prints ERROR: message (SQLSTATE) on stderr,
// stops a script and makes the exit status non-zero.
func TestShellErrors(t *testing.T) {
	l := orders(t)
	r := run(t, l.dir, "", append(append([]string{"shell"}, l.args...), "-c", "SELECT 1/0")...)
	if r.code == 0 || strings.TrimSpace(r.stderr) != "ERROR: division by zero (SQLSTATE 22012)" {
		t.Errorf("-c error: exit %d, stderr %q", r.code, r.stderr)
	}

	script := filepath.Join(l.dir, "script.sql")
	os.WriteFile(script, []byte("INSERT INTO sales.orders VALUES (5, 'eve', 5);\n-- a comment; not a statement\nSELECT 'a;b' AS s,\n  $$c;d$$ AS t;\nSELECT * FROM missing;\nINSERT INTO sales.orders VALUES (6, 'never', 6);\n"), 0o644)
	r = run(t, l.dir, "", append(append([]string{"shell", "--timing=false", "--format", "csv"}, l.args...), "-f", script)...)
	if r.code == 0 {
		t.Errorf("-f with a failing statement exited 0")
	}
	if r.stdout != "s,t\na;b,c;d\n" {
		t.Errorf("-f stdout %q", r.stdout)
	}
	if !strings.Contains(r.stderr, `ERROR: relation "missing" does not exist (SQLSTATE 42P01)`) {
		t.Errorf("-f stderr %q", r.stderr)
	}
	if got := l.sh(t, []string{"--format", "csv"}, "SELECT count(*) AS n FROM sales.orders WHERE id >= 5"); got != "n\n1\n" {
		t.Errorf("the script went on after its error: %q", got)
	}

	// piped standard input works like -f
	r = run(t, l.dir, "SELECT 2 AS two;\nSELECT 3 AS three\n", append([]string{"shell", "--format", "csv"}, l.args...)...)
	if r.code != 0 || r.stdout != "two\n2\nthree\n3\n" {
		t.Errorf("stdin: exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
}

// TestSnapshotsCommand lists the snapshots as a boxed table. The three-row INSERT is
// inlined into the catalog (data_inlining_row_limit 10): inlined_insert.
func TestSnapshotsCommand(t *testing.T) {
	l := orders(t)
	r := run(t, l.dir, "", append([]string{"snapshots"}, l.args...)...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if len(lines) != 9 || !strings.HasPrefix(lines[1], "│ snapshot_id │ snapshot_time ") || lines[8] != "(4 rows)" {
		t.Fatalf("snapshots:\n%s", r.stdout)
	}
	for i, want := range []string{"created_schema:\"main\",created_schema:\"public\"", "created_schema:\"sales\"", "created_table:\"sales\".\"orders\"", "inlined_insert:"} {
		if !strings.Contains(lines[3+i], want) {
			t.Errorf("snapshot %d: %q lacks %q", i, lines[3+i], want)
		}
	}
	// a lake that does not exist is an error, not a new lake
	r = run(t, l.dir, "", "snapshots", "--catalog", "sqlite:"+filepath.Join(l.dir, "none.sqlite"), "--data", filepath.Join(l.dir, "nodata"))
	if r.code == 0 {
		t.Errorf("snapshots of a missing lake exited 0")
	}
	if _, err := os.Stat(filepath.Join(l.dir, "none.sqlite")); err == nil {
		t.Errorf("snapshots created a catalog")
	}
}
