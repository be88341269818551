package snapshot

import (
	"reflect"
	"testing"
)

// TestInlinedTableLifecycle: a table created with inlining on gets its inlined-data table
// in the same snapshot, so inlined inserts are no catalog change; a rename starts a new one;
// SET DEFAULT does not; inlined deletes leave next_file_id; a table created with inlining
// off gets one at its first inlined insert, which then bumps schema_version without a
// schema_versions row (DuckDB 1.5.5 does each of these the same way).
func TestInlinedTableLifecycle(t *testing.T) { eachBackend(t, testInlinedTableLifecycle) }

func testInlinedTableLifecycle(t *testing.T, be backend) {
	e := newEnv(t, be)
	layout := []InlinedColumn{{Name: "id", Type: "int32"}, {Name: "v", Type: "int64"}}
	cols := []ColumnDef{{Name: "id", Type: "int32", NullsAllowed: true}, {Name: "v", Type: "int64", NullsAllowed: true}}

	c, m := e.begin()
	mainS, _ := m.SchemaByName("main")
	tid := c.CreateTable(*mainS, "t", cols)
	if got, want := c.NewLayouts(), []LayoutTable{{TableID: tid, SchemaID: mainS.ID}}; !reflect.DeepEqual(got, want) {
		t.Errorf("NewLayouts after CREATE TABLE = %v, want %v", got, want)
	}
	c.InliningOn(tid)
	s1 := e.commit(c)
	e.expectRows(`SELECT * FROM ducklake_inlined_data_tables`, "2|ducklake_inlined_data_2_1|1")
	e.expectRows(`SELECT * FROM ducklake_schema_versions`, "1|1|2")

	c, m = e.begin()
	tb, _ := m.TableByID(tid)
	c.InsertInlinedRows(*tb, layout, [][]any{{int64(1), int64(10)}, {int64(2), nil}}, nil)
	s2 := e.commit(c)
	if s2.SchemaVersion != s1.SchemaVersion || s2.NextFileID != s1.NextFileID+1 || s2.Changes != "inlined_insert:2" {
		t.Errorf("inlined insert: %+v after %+v; want the same schema_version, next_file_id+1, inlined_insert:2", s2, s1)
	}
	e.expectRows(`SELECT * FROM ducklake_inlined_data_2_1 ORDER BY row_id`, "0|2|~|1|10", "1|2|~|2|~")

	c, m = e.begin()
	tb, _ = m.TableByID(tid)
	c.DeleteInlinedRows(*tb, "ducklake_inlined_data_2_1", []int64{1})
	s3 := e.commit(c)
	if s3.SchemaVersion != s2.SchemaVersion || s3.NextFileID != s2.NextFileID || s3.Changes != "inlined_delete:2" {
		t.Errorf("inlined delete: %+v after %+v; want schema_version and next_file_id unchanged, inlined_delete:2", s3, s2)
	}

	c, m = e.begin()
	tb, _ = m.TableByID(tid)
	c.RenameTable(*mainS, *tb, "t2")
	if got, want := c.NewLayouts(), []LayoutTable{{TableID: tid, SchemaID: mainS.ID}}; !reflect.DeepEqual(got, want) {
		t.Errorf("NewLayouts after RENAME = %v, want %v", got, want)
	}
	c.InliningOn(tid)
	s4 := e.commit(c)
	e.expectRows(`SELECT * FROM ducklake_inlined_data_tables ORDER BY schema_version`,
		"2|ducklake_inlined_data_2_1|1", "2|ducklake_inlined_data_2_2|2")
	if s4.SchemaVersion != 2 {
		t.Errorf("rename: schema_version %d, want 2", s4.SchemaVersion)
	}

	c, m = e.begin()
	tb, _ = m.TableByID(tid)
	c.SetColumnDefault(*tb, 2, p("5"))
	if got := c.NewLayouts(); len(got) != 0 {
		t.Errorf("NewLayouts after SET DEFAULT = %v, want none", got)
	}
	e.commit(c)
	e.expectRows(`SELECT COUNT(*) FROM ducklake_inlined_data_tables`, "2")

	// Inlining off at CREATE TABLE: no inlined-data table until the first inlined insert.
	c, m = e.begin()
	uid := c.CreateTable(*mainS, "u", cols)
	s6 := e.commit(c)
	if uid = c.FinalID(uid); uid != 3 {
		t.Fatalf("table u has id %d, want 3", uid)
	}
	e.expectRows(`SELECT COUNT(*) FROM ducklake_inlined_data_tables WHERE table_id = 3`, "0")
	c, m = e.begin()
	ub, _ := m.TableByID(uid)
	c.InsertInlinedRows(*ub, layout, [][]any{{int64(7), int64(70)}}, nil)
	s7 := e.commit(c)
	if s7.SchemaVersion != s6.SchemaVersion+1 {
		t.Errorf("first inlined insert without an inlined-data table: schema_version %d, want %d", s7.SchemaVersion, s6.SchemaVersion+1)
	}
	e.expectRows(`SELECT table_name, schema_version FROM ducklake_inlined_data_tables WHERE table_id = 3`,
		"ducklake_inlined_data_3_5|5")
	e.expectRows(`SELECT * FROM ducklake_schema_versions WHERE table_id = 3`, "6|4|3")
	e.expectRows(`SELECT * FROM ducklake_inlined_data_3_5`, "0|7|~|7|70")
}
