package catalog

import (
	"context"
	"testing"
)

// TestStatementFacts: within one statement (WithStatement), what lakepg's own
// tables and ducklake_metadata looked like at the statement's head read
// answers its later questions with no more queries; another server's
// changes after that read are seen by the next statement, and a table this
// process creates is seen at once. Outside a statement every question asks
// the database, as before.
func TestStatementFacts(t *testing.T) {
	eachBackend(t, func(t *testing.T, be backend) {
		bg := context.Background()
		a, dsn, opts, data := openNewOn(t, be)
		b, err := OpenWithOptions(bg, dsn, data, opts)
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		pg := be.name == "postgres"
		option := func(ctx context.Context, db *DB) string {
			t.Helper()
			rows, err := db.MetadataRows(ctx, "data_inlining_row_limit")
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) == 0 {
				return "none"
			}
			return rows[len(rows)-1].Value
		}
		exists := func(ctx context.Context, db *DB, name string) (bool, int64) {
			t.Helper()
			before := tableProbes.Load()
			ok, err := db.tableExists(ctx, db.sql, name)
			if err != nil {
				t.Fatal(err)
			}
			return ok, tableProbes.Load() - before
		}

		stmt := WithStatement(bg)
		if _, err := a.Head(stmt); err != nil {
			t.Fatal(err)
		}
		// another server creates lakepg_sequence and sets an option after
		// the statement's head read
		if err := b.EnsureSequenceTable(bg); err != nil {
			t.Fatal(err)
		}
		if _, err := b.sql.ExecContext(bg, b.d.rebind(`INSERT INTO ducklake_metadata ("key", "value") VALUES (?, ?)`), "data_inlining_row_limit", "7"); err != nil {
			t.Fatal(err)
		}
		before := CatalogQueries()
		ok, probes := exists(stmt, a, "lakepg_sequence")
		got := option(stmt, a)
		if pg {
			// the statement's view: as at its head read, with no query
			if ok || probes != 0 || got != "none" || CatalogQueries() != before {
				t.Errorf("in the statement: lakepg_sequence %v (%d probes), option %s, %d queries; want false, 0, none, 0",
					ok, probes, got, CatalogQueries()-before)
			}
		} else if !ok || got != "7" {
			// SQLite gathers nothing: every answer is the database's now
			t.Errorf("SQLite: lakepg_sequence %v, option %s; want true, 7", ok, got)
		}

		// the next statement sees both
		next := WithStatement(bg)
		if _, err := a.Head(next); err != nil {
			t.Fatal(err)
		}
		if ok, _ := exists(next, a, "lakepg_sequence"); !ok {
			t.Error("the next statement does not see lakepg_sequence")
		}
		if got := option(next, a); got != "7" {
			t.Errorf("the next statement reads option %s, want 7", got)
		}

		// a table this process creates in the statement is there at once
		stmt = WithStatement(bg)
		if _, err := a.Head(stmt); err != nil {
			t.Fatal(err)
		}
		if ok, _ := exists(stmt, a, "lakepg_privilege"); ok {
			t.Fatal("lakepg_privilege exists before it was made")
		}
		if err := a.EnsurePrivilegeTable(stmt); err != nil {
			t.Fatal(err)
		}
		if ok, _ := exists(stmt, a, "lakepg_privilege"); !ok {
			t.Error("lakepg_privilege made by the statement is not seen by it")
		}
		// and the other server, asking outside a statement, probes
		if ok, probes := exists(bg, b, "lakepg_privilege"); !ok || (pg && probes != 1) {
			t.Errorf("outside a statement: lakepg_privilege %v with %d probes, want true with 1", ok, probes)
		}
	})
}
