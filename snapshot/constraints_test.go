package snapshot

import (
	"errors"
	"testing"
)

// Two writers that checked their new keys of one keyed table at the same
// snapshot never both commit: the second conflicts (40001 in sql), on the
// SQLite and the PostgreSQL catalog.
func TestKeyedInsertsConflict(t *testing.T) { eachBackend(t, testKeyedInsertsConflict) }

func testKeyedInsertsConflict(t *testing.T, be backend) {
	e := newEnv(t, be)
	m := twoTables(t, e)
	a, _ := m.TableByName(0, "a")
	c, _ := e.begin()
	c.AddConstraint(*a, "a_pkey", "p", []int64{1})
	c.SetColumnNotNull(*a, 1)
	m = e.load(e.commit(c))
	if cons := m.ConstraintsOf(a.ID); len(cons) != 1 || cons[0].Name != "a_pkey" || !cons[0].Primary() || cons[0].Columns[0] != 1 {
		t.Fatalf("constraints after ADD: %+v", m.Constraints)
	}
	if col, _ := m.Tables[0].ColumnByID(1); col.NullsAllowed {
		t.Error("a primary key's column stayed nullable")
	}
	e.expectRows(`SELECT changes_made FROM ducklake_snapshot_changes ORDER BY snapshot_id DESC LIMIT 1`, "altered_table:2")

	base := m.Snapshot
	a, _ = m.TableByName(0, "a")
	b, _ := m.TableByName(0, "b")
	c1 := Begin(e.db, base, m)
	c1.AddDataFile(*a, file("a1.parquet", 3))
	c1.CheckedKeys(a.ID, base.ID)
	c2 := Begin(e.open(), base, m)
	c2.AddDataFile(*a, file("a2.parquet", 3))
	c2.CheckedKeys(a.ID, base.ID)
	e.commit(c1)
	if _, err := c2.Commit(e.ctx); !errors.Is(err, ErrConflict) {
		t.Fatalf("second keyed insert from the same base: %v, want a conflict", err)
	}
	// an insert into another table does not disturb a keyed one
	m = e.load(e.head())
	c3 := Begin(e.db, m.Snapshot, m)
	c3.AddDataFile(*b, file("b1.parquet", 1))
	c4 := Begin(e.db, m.Snapshot, m)
	c4.AddDataFile(*a, file("a3.parquet", 1))
	c4.CheckedKeys(a.ID, m.Snapshot.ID)
	e.commit(c3)
	e.commit(c4)
	// dropping the table ends its constraints
	m = e.load(e.head())
	a, _ = m.TableByName(0, "a")
	mainS, _ := m.SchemaByName("main")
	c5 := Begin(e.db, m.Snapshot, m)
	c5.DropTable(*mainS, *a)
	m = e.load(e.commit(c5))
	if len(m.Constraints) != 0 {
		t.Errorf("constraints of a dropped table: %+v", m.Constraints)
	}
	e.expectRows(`SELECT constraint_name, end_snapshot IS NOT NULL FROM lakepg_constraint`, "a_pkey|1")
}
