package sql

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/catalog/catalogtest"
)

// TestSelectRoundTrips counts the catalog round trips of a one-table SELECT
// on a PostgreSQL catalog: one (the statement's head) over the simple
// protocol and two over the extended one (describing it reads the head
// too), for a table whose rows are inlined and one with a data file, also
// after another server committed to another table. A commit to the table
// itself makes the next read fetch its rows again, and every read returns
// the rows committed.
func TestSelectRoundTrips(t *testing.T) {
	open := pgLakeOpener(t)
	a, b := open(), open() // two servers on one lake
	must(t, b, `CREATE TABLE small (id bigint, name text)`)
	must(t, b, `INSERT INTO small VALUES (1, 'a'), (2, 'b')`)
	must(t, b, `CREATE TABLE big (id bigint)`)
	must(t, b, `CALL lakepg.set_option('data_inlining_row_limit', '0', table_name => 'big')`)
	must(t, b, `INSERT INTO big SELECT * FROM generate_series(1, 100)`)
	must(t, b, `CREATE TABLE other (id bigint)`)

	ctx := context.Background()
	simple := func(q string) []string {
		t.Helper()
		stmts, err := a.PrepareSimple(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		return drain(t, a, stmts[0])
	}
	extended := func(q string) []string {
		t.Helper()
		stmts, err := a.Prepare(ctx, q, nil)
		if err != nil {
			t.Fatal(err)
		}
		return drain(t, a, stmts[0])
	}
	check := func(what string, run func(string) []string, q string, trips int64, want ...string) {
		t.Helper()
		before := catalog.CatalogQueries()
		got := run(q)
		n := catalog.CatalogQueries() - before
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("%s: %s: rows %q, want %q", what, q, got, want)
		}
		if trips >= 0 && n != trips {
			t.Errorf("%s: %s: %d catalog round trips, want %d", what, q, n, trips)
		}
	}
	const qs, qb = `SELECT id, name FROM small ORDER BY id`, `SELECT count(*), sum(id) FROM big WHERE id > 90`
	check("first read", simple, qs, -1, "1|a", "2|b")
	check("first read", simple, qb, -1, "10|955")
	check("simple protocol", simple, qs, 1, "1|a", "2|b")
	check("simple protocol", simple, qb, 1, "10|955")
	check("extended protocol", extended, qs, 2, "1|a", "2|b")
	check("extended protocol", extended, qb, 2, "10|955")

	must(t, b, `INSERT INTO other VALUES (1)`)
	check("after a commit to another table", simple, qs, 1, "1|a", "2|b")
	check("after a commit to another table", simple, qb, 1, "10|955")

	must(t, b, `INSERT INTO small VALUES (3, 'c')`)
	must(t, b, `INSERT INTO big VALUES (1000)`)
	check("after commits to the tables", simple, qs, -1, "1|a", "2|b", "3|c")
	check("after commits to the tables", simple, qb, -1, "11|1955")
	check("again", simple, qs, 1, "1|a", "2|b", "3|c")
	check("again", simple, qb, 1, "11|1955")
}

// drain runs a prepared statement and renders its rows as run does.
func drain(t *testing.T, s *Session, st *Stmt) []string {
	t.Helper()
	ctx := context.Background()
	res, err := st.Execute(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	var rows []string
	for {
		b, err := res.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if b == nil {
			return rows
		}
		for i := 0; i < b.N; i++ {
			var cells []string
			for _, v := range b.Vecs {
				if v.IsNull(i) {
					cells = append(cells, "NULL")
				} else {
					cells = append(cells, string(v.AppendText(nil, i, s.Location())))
				}
			}
			rows = append(rows, strings.Join(cells, "|"))
		}
	}
}

// TestColdReadRoundTrips counts the catalog round trips of the first read of
// a small table by a server that has its metadata but has not read the table
// yet (a point read after a restart): the head, the file list (one statement,
// no transaction, when the table has no files), the probe for its inlined
// file deletes, its inlined tables and their rows. Tables whose columns were
// renamed, added or dropped after rows were inlined read them through the
// layout of their schema version instead, with the right answers.
func TestColdReadRoundTrips(t *testing.T) {
	open := pgLakeOpener(t)
	w := open()
	for _, q := range []string{
		`CREATE TABLE warm (id bigint)`,
		`CREATE TABLE small (id bigint, name text, v double precision)`,
		`INSERT INTO small VALUES (1, 'a', 1.5), (2, 'b', 2.5), (3, 'c', 3.5)`,
		`CREATE TABLE renamed (id bigint, name text)`,
		`INSERT INTO renamed VALUES (1, 'a')`,
		`ALTER TABLE renamed RENAME COLUMN name TO label`,
		`CREATE TABLE dropped (id bigint, gone text, name text)`,
		`INSERT INTO dropped VALUES (1, 'x', 'a')`,
		`ALTER TABLE dropped DROP COLUMN gone`,
		`INSERT INTO dropped VALUES (2, 'b')`,
		`CREATE TABLE described (id bigint, name text, v double precision)`,
		`INSERT INTO described VALUES (1, 'a', 1.5), (2, 'b', 2.5), (3, 'c', 3.5)`,
		`CREATE TABLE added (id bigint)`,
		`INSERT INTO added VALUES (1)`,
		`ALTER TABLE added ADD COLUMN name text`,
		`INSERT INTO added VALUES (2, 'b')`,
	} {
		must(t, w, q)
	}

	ctx := context.Background()
	r := open() // another server, which has read nothing yet
	read := func(q string) ([]string, int64) {
		t.Helper()
		before := catalog.CatalogQueries()
		stmts, err := r.PrepareSimple(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		rows := drain(t, r, stmts[0])
		return rows, catalog.CatalogQueries() - before
	}
	read(`SELECT * FROM warm`) // loads the metadata
	rows, n := read(`SELECT id, name, v FROM small ORDER BY id`)
	if want := "1|a|1.5 2|b|2.5 3|c|3.5"; strings.Join(rows, " ") != want {
		t.Fatalf("small: rows %q, want %s", rows, want)
	}
	if n != 5 {
		t.Errorf("first read of small: %d catalog round trips, want 5", n)
	}
	if rows, n = read(`SELECT id, name, v FROM small ORDER BY id`); n != 1 || len(rows) != 3 {
		t.Errorf("second read of small: %d rows, %d catalog round trips, want 3 and 1", len(rows), n)
	}
	// the extended protocol describes the statement at Parse: one head
	// read more, and nothing else (lakepg's own tables, as lakepg_role for
	// the privilege checks, are answered from that read as when it runs),
	// also as a connection's first statement, which has checked no
	// privilege yet
	r.ResetPrivCache()
	before := catalog.CatalogQueries()
	stmts, err := r.Prepare(ctx, `SELECT id, name, v FROM described ORDER BY id`, nil)
	if err != nil {
		t.Fatal(err)
	}
	described := catalog.CatalogQueries() - before
	if rows := drain(t, r, stmts[0]); strings.Join(rows, " ") != "1|a|1.5 2|b|2.5 3|c|3.5" {
		t.Fatalf("described: rows %q", rows)
	}
	if n := catalog.CatalogQueries() - before; described != 1 || n != 6 {
		t.Errorf("first read of described, prepared: %d catalog round trips at Parse, %d in all; want 1 and 6", described, n)
	}
	for _, c := range []struct{ q, want string }{
		{`SELECT id, label FROM renamed ORDER BY id`, "1|a"},
		{`SELECT * FROM dropped ORDER BY id`, "1|a 2|b"},
		{`SELECT id, name FROM added ORDER BY id`, "1|NULL 2|b"},
	} {
		if rows, _ := read(c.q); strings.Join(rows, " ") != c.want {
			t.Errorf("%s: rows %q, want %s", c.q, rows, c.want)
		}
	}
}

// pgLakeOpener returns a function that opens a session on one lake whose
// catalog is a fresh schema of the test PostgreSQL: each call is another
// server on that lake.
func pgLakeOpener(t *testing.T) func() *Session {
	t.Helper()
	admin := catalogtest.PostgresDSN(t)
	if admin == "" {
		t.Skip("LAKEPG_TEST_PG_DSN is not set")
	}
	schema := catalogtest.NewSchema(t, admin)
	data := filepath.Join(t.TempDir(), "data") + "/"
	return func() *Session {
		db, err := catalog.OpenWithOptions(context.Background(), admin, data, catalog.Options{Schema: schema})
		if err != nil {
			t.Fatal(err)
		}
		return sessionOn(t, db)
	}
}
