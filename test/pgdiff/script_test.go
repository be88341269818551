package pgdiff

import (
	"reflect"
	"testing"
)

func TestParse(t *testing.T) {
	src := `-- a comment; with a semicolon
CREATE TABLE t (a int, b text);
INSERT INTO t VALUES (1, 'x;y'), (2, 'it''s'), (3, E'a\';b');

-- @error
SELECT 1/0;
/* block; /* nested; */ still comment */ SELECT "semi;colon" FROM t;
-- @rowsort
SELECT $$a;b$$, $tag$c;$$d$tag$
  FROM t; SELECT 2;
`
	got, err := Parse(src, "src")
	if err != nil {
		t.Fatal(err)
	}
	want := []Stmt{
		{Line: 2, SQL: "CREATE TABLE t (a int, b text)"},
		{Line: 3, SQL: `INSERT INTO t VALUES (1, 'x;y'), (2, 'it''s'), (3, E'a\';b')`},
		{Line: 6, SQL: "SELECT 1/0", ExpectError: true},
		{Line: 7, SQL: `SELECT "semi;colon" FROM t`},
		{Line: 9, SQL: "SELECT $$a;b$$, $tag$c;$$d$tag$\n  FROM t", RowSort: true},
		{Line: 10, SQL: "SELECT 2"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Parse:\n got %#v\nwant %#v", got, want)
	}
	for _, bad := range []string{"SELECT 1", "SELECT 'x;", "-- @frob\nSELECT 1;", "SELECT 1; -- @error\n"} {
		if _, err := Parse(bad, "bad"); err == nil {
			t.Errorf("Parse(%q) succeeded, want an error", bad)
		}
	}
}
