package parse

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// sameAsPgQuery fails t unless pg_query parses query to the tree fastInsert
// built.
func sameAsPgQuery(t *testing.T, query string, fast *pg.ParseResult) {
	t.Helper()
	want, err := pg.Parse(query)
	if err != nil {
		t.Fatalf("%q: fast path accepted what pg_query refuses: %v", query, err)
	}
	if !proto.Equal(fast, want) {
		t.Fatalf("%q:\nfast path %s\npg_query  %s", query, protojson.Format(fast), protojson.Format(want))
	}
}

// TestFastInsertMatchesPgQuery: every INSERT the fast path takes gets
// exactly pg_query's tree (values, names, locations, statement length),
// over hand-picked and generated statements; those it must leave to
// pg_query it does.
func TestFastInsertMatchesPgQuery(t *testing.T) {
	taken := []string{
		"INSERT INTO t VALUES (1, 2)",
		"insert into t values (1,2);",
		"INSERT INTO t VALUES (1, 2) ; ",
		"  \n\tINSERT INTO t VALUES (-1, - 2, -0, 0, 007)",
		"INSERT INTO t VALUES (2147483647, -2147483647, -2147483648, 2147483648, 99999999999999999999999)",
		"INSERT INTO t VALUES (1.5, -1.5, 0.0, 10.250, - 3.25)",
		"INSERT INTO t VALUES ('', 'a''b', 'back\\slash', 'ü€😀', '''', 'line\nbreak')",
		"INSERT INTO t VALUES (NULL, null, TRUE, false, True)",
		`INSERT INTO "T" VALUES (1)`,
		`INSERT INTO "a""b" VALUES (1)`,
		`INSERT INTO s.t VALUES (1)`,
		`INSERT INTO "S" . "T" (a, "B", c_1) VALUES (1, 2, 3)`,
		"INSERT INTO T (A) VALUES (1), (2), (3)",
		"INSERT INTO t(a,b)VALUES(1,'x'),(2,'y')",
		"INSERT INTO data (name, value, int, VALUES) VALUES (1, 2, 3, 4)",
		"INSERT INTO int VALUES (1)",
		"INSERT INTO between VALUES (1)",
		"INSERT INTO \"" + strings.Repeat("x", 63) + "\" VALUES (1)",
		"INSERT INTO " + strings.Repeat("y", 63) + " VALUES (1)",
	}
	for _, q := range taken {
		fast, ok := fastInsert(q)
		if !ok {
			t.Errorf("%q: not taken by the fast path", q)
			continue
		}
		sameAsPgQuery(t, q, fast)
	}
	left := []string{
		"INSERT INTO t VALUES (1, 2), (3, 4, 5)", // PostgreSQL's error to word
		"INSERT INTO t VALUES (1) -- comment",
		"INSERT INTO t VALUES (--1\n2)",
		"INSERT INTO t /* c */ VALUES (1)",
		"INSERT INTO t VALUES (+1)",
		"INSERT INTO t VALUES (1e3)",
		"INSERT INTO t VALUES (1.)",
		"INSERT INTO t VALUES (.5)",
		"INSERT INTO t VALUES (0x1F)",
		"INSERT INTO t VALUES (1_000)",
		"INSERT INTO t VALUES (1abc)",
		"INSERT INTO t VALUES (E'a\\nb')",
		"INSERT INTO t VALUES ($$a$$)",
		"INSERT INTO t VALUES ($1)",
		"INSERT INTO t VALUES ('a' 'b')",
		"INSERT INTO t VALUES ('a'\n'b')",
		"INSERT INTO t VALUES (DEFAULT)",
		"INSERT INTO t VALUES (1 + 1)",
		"INSERT INTO t VALUES ('1'::int)",
		"INSERT INTO t VALUES (1) RETURNING *",
		"INSERT INTO t VALUES (1) ON CONFLICT DO NOTHING",
		"INSERT INTO t VALUES (1); INSERT INTO t VALUES (2)",
		"INSERT INTO t SELECT 1",
		"INSERT INTO t DEFAULT VALUES",
		"INSERT INTO c.s.t VALUES (1)",
		"INSERT INTO t AS x VALUES (1)",
		"INSERT INTO select VALUES (1)",
		"INSERT INTO t (user) VALUES (1)",
		"INSERT INTO t (left) VALUES (1)", // a type or function name keyword
		"INSERT INTO t (inner) VALUES (1)",
		`INSERT INTO "" VALUES (1)`,
		"INSERT INTO \"" + strings.Repeat("x", 64) + "\" VALUES (1)",
		"INSERT INTO " + strings.Repeat("y", 64) + " VALUES (1)",
		"INSERT INTO tü VALUES (1)",
		"INSERT INTO t$ VALUES (1)",
		"INSERT INTO t VALUES ('unterminated)",
		"INSERT INTO t VALUES (1",
		"INSERT INTO t VALUES ()",
		"INSERT INTO t () VALUES (1)",
		"INSERT INTO t VALUES (1),",
		"INSERT t VALUES (1)",
		"WITH x AS (SELECT 1) INSERT INTO t VALUES (1)",
		"INSERT INTO t VALUES (U&'a')",
		"INSERT INTO t VALUES (B'101')",
		"INSERT INTO t VALUES (X'1F')",
		"INSERT INTO t VALUES (N'a')",
		"INSERT INTO t VALUES (1)\x00",
		"INSERT INTO t VALUES ('\xff')",
	}
	for _, q := range left {
		if fast, ok := fastInsert(q); ok {
			t.Errorf("%q: taken by the fast path: %s", q, protojson.Format(fast))
		}
	}

	// generated statements: names plain, quoted, qualified, keywords;
	// values of every kind; spacing and case varied
	r := rand.New(rand.NewSource(7))
	names := []string{"t", "T", "tab_1", "_x", `"Mixed Case"`, `"a""q"`, `"select"`, "user", "data", "name", "x9", "int", "left", "values", "Between", "inner", "time"}
	sp := func() string { return []string{"", " ", "  ", "\n", "\t", " \r\n "}[r.Intn(6)] }
	must := func() string { return []string{" ", "  ", "\n", "\t"}[r.Intn(4)] }
	kw := func(w string) string {
		switch r.Intn(3) {
		case 0:
			return strings.ToUpper(w)
		case 1:
			return w
		}
		return strings.ToUpper(w[:1]) + w[1:]
	}
	val := func() string {
		switch r.Intn(9) {
		case 0:
			return fmt.Sprint(r.Int63n(1 << 33))
		case 1:
			return "-" + sp() + fmt.Sprint(r.Int63n(1<<33))
		case 2:
			return fmt.Sprintf("%d.%d", r.Intn(1000), r.Intn(1000))
		case 3:
			return "-" + fmt.Sprintf("%d.%0*d", r.Intn(1000), 1+r.Intn(4), r.Intn(10))
		case 4:
			return kw("null")
		case 5:
			return kw([]string{"true", "false"}[r.Intn(2)])
		case 6:
			return fmt.Sprint([]int64{2147483647, 2147483648, -2147483648, 0}[r.Intn(4)])
		}
		s := []string{"", "a", "it''s", "ü", "x y", "\\", "''''"}[r.Intn(7)]
		return "'" + s + "'"
	}
	taken2 := 0
	for i := 0; i < 3000; i++ {
		var b strings.Builder
		b.WriteString(sp() + kw("insert") + must() + kw("into") + must())
		if r.Intn(3) == 0 {
			b.WriteString(names[r.Intn(len(names))] + sp() + "." + sp())
		}
		b.WriteString(names[r.Intn(len(names))])
		ncols := 1 + r.Intn(4)
		if r.Intn(2) == 0 {
			b.WriteString(sp() + "(")
			for c := 0; c < ncols; c++ {
				if c > 0 {
					b.WriteString(sp() + "," + sp())
				}
				b.WriteString(names[r.Intn(len(names))])
			}
			b.WriteString(")")
		}
		b.WriteString(sp() + kw("values"))
		rows := 1 + r.Intn(3)
		for row := 0; row < rows; row++ {
			if row > 0 {
				b.WriteString(sp() + ",")
			}
			b.WriteString(sp() + "(" + sp())
			for c := 0; c < ncols; c++ {
				if c > 0 {
					b.WriteString(sp() + "," + sp())
				}
				b.WriteString(val())
			}
			b.WriteString(sp() + ")")
		}
		if r.Intn(2) == 0 {
			b.WriteString(sp() + ";" + sp())
		}
		q := b.String()
		fast, ok := fastInsert(q)
		if !ok {
			continue
		}
		taken2++
		sameAsPgQuery(t, q, fast)
	}
	if taken2 < 1000 {
		t.Errorf("the fast path took only %d of 3000 generated INSERTs", taken2)
	}
}

// FuzzFastInsert: whatever the fast path takes, pg_query parses to the
// same tree.
func FuzzFastInsert(f *testing.F) {
	for _, s := range []string{
		"INSERT INTO t VALUES (1, 2)", "insert into s.\"T\" (a) values (-1.5), ('x''y');", "INSERT INTO t VALUES (NULL, true)",
		"INSERT INTO t VALUES (-2147483648)", "INSERT INTO t VALUES (1) -- c",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		fast, ok := fastInsert(q)
		if !ok {
			return
		}
		sameAsPgQuery(t, q, fast)
	})
}
