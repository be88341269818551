package catalog

import (
	"context"
	"testing"
)

// TestTableExistsCache: tableExists answers from its cache only while the
// answer holds. Two handles stand for two servers on one catalog: what one
// creates or drops, the other sees at its next question; lakepg's own
// tables, once seen, cost no more probes; a table created inside a
// transaction that rolls back is not remembered as there.
func TestTableExistsCache(t *testing.T) {
	eachBackend(t, func(t *testing.T, be backend) {
		ctx := context.Background()
		a, dsn, opts, data := openNewOn(t, be)
		b, err := OpenWithOptions(ctx, dsn, data, opts)
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		exists := func(db *DB, name string) (bool, int64) {
			t.Helper()
			before := tableProbes.Load()
			ok, err := db.tableExists(ctx, db.sql, name)
			if err != nil {
				t.Fatal(err)
			}
			return ok, tableProbes.Load() - before
		}
		wantExists := func(db *DB, name string, want bool, maxProbes int64) {
			t.Helper()
			ok, probes := exists(db, name)
			if ok != want || probes > maxProbes {
				t.Fatalf("%s: exists %v with %d probes, want %v with at most %d", name, ok, probes, want, maxProbes)
			}
		}
		sqlite := be.name == "sqlite"

		// absent: SQLite remembers it until the schema changes, PostgreSQL asks again
		wantExists(a, "lakepg_sequence", false, 1)
		if sqlite {
			wantExists(a, "lakepg_sequence", false, 0)
		} else if _, probes := exists(a, "lakepg_sequence"); probes != 1 {
			t.Fatalf("PostgreSQL: absence answered from the cache (%d probes)", probes)
		}
		// the other server creates it: seen at once, then remembered
		if err := b.EnsureSequenceTable(ctx); err != nil {
			t.Fatal(err)
		}
		wantExists(a, "lakepg_sequence", true, 1)
		wantExists(a, "lakepg_sequence", true, 0)
		if seqs, err := a.Sequences(ctx); err != nil || len(seqs) != 0 {
			t.Fatalf("Sequences: %v, %v", seqs, err)
		}

		// a table that comes and goes (DuckLake's inlined tables do)
		const inl = "ducklake_inlined_delete_999"
		wantExists(a, inl, false, 1)
		if _, err := b.sql.ExecContext(ctx, `CREATE TABLE `+inl+` (file_id BIGINT, row_id BIGINT, begin_snapshot BIGINT)`); err != nil {
			t.Fatal(err)
		}
		wantExists(a, inl, true, 1)
		if sqlite {
			wantExists(a, inl, true, 0)
		}
		if _, err := b.sql.ExecContext(ctx, `DROP TABLE `+inl); err != nil {
			t.Fatal(err)
		}
		wantExists(a, inl, false, 1)

		// created in a transaction that rolls back: not remembered
		tx, err := a.BeginWrite(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := tx.EnsureConstraintTable(ctx); err != nil {
			t.Fatal(err)
		}
		if ok, err := tx.ConstraintTableExists(ctx); err != nil || !ok {
			t.Fatalf("inside the transaction that made it: %v, %v", ok, err)
		}
		if err := tx.Rollback(); err != nil {
			t.Fatal(err)
		}
		wantExists(a, "lakepg_constraint", false, 1)
	})
}
