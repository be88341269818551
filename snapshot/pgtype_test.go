package snapshot

import (
	"testing"

	"github.com/lakepg/lakepg/catalog"
)

// The lakepg.type.<column_id> table tag is written with the column, versioned, replaced by a
// type change, carried by ADD COLUMN and end-dated by DROP COLUMN.
func TestPGTypeTag(t *testing.T) { eachBackend(t, testPGTypeTag) }

func testPGTypeTag(t *testing.T, be backend) {
	e := newEnv(t, be)
	c, m := e.begin()
	main, _ := m.SchemaByName("main")
	c.CreateTable(*main, "p", []ColumnDef{
		{Name: "id", Type: "int32", NullsAllowed: true},
		{Name: "v", Type: "varchar", NullsAllowed: true, PGType: "varchar(40)"},
		{Name: "c", Type: "varchar", NullsAllowed: true, PGType: "bpchar(10)"},
		{Name: "t", Type: "varchar", NullsAllowed: true},
	})
	s1 := e.commit(c)
	e.expectRows(`SELECT object_id, begin_snapshot, end_snapshot, key, value FROM ducklake_tag ORDER BY key`,
		"2|1|~|lakepg.type.2|varchar(40)",
		"2|1|~|lakepg.type.3|bpchar(10)")
	e.expectRows(`SELECT count(*) FROM ducklake_column_tag`, "0")
	tbl := pgTypeTable(t, e.load(s1))
	if tbl.Columns[1].PGType != "varchar(40)" || tbl.Columns[2].PGType != "bpchar(10)" || tbl.Columns[3].PGType != "" {
		t.Fatalf("PGType at s1: %+v", tbl.Columns)
	}

	// ALTER COLUMN v TYPE varchar(80); ADD COLUMN a char(2); DROP COLUMN c
	c, _ = e.begin()
	c.SetColumnPGType(*tbl, 2, "varchar(80)")
	aid := c.AddColumn(*tbl, ColumnDef{Name: "a", Type: "varchar", NullsAllowed: true, PGType: "bpchar(2)"})
	c.DropColumn(*tbl, 3)
	s2 := e.commit(c)
	if s2.SchemaVersion != s1.SchemaVersion+1 {
		t.Errorf("schema_version %d after %d", s2.SchemaVersion, s1.SchemaVersion)
	}
	e.expectRows(`SELECT key, begin_snapshot, end_snapshot, value FROM ducklake_tag ORDER BY key, begin_snapshot`,
		"lakepg.type.2|1|2|varchar(40)",
		"lakepg.type.2|2|~|varchar(80)",
		"lakepg.type.3|1|2|bpchar(10)",
		"lakepg.type.5|2|~|bpchar(2)")
	if aid != 5 {
		t.Errorf("added column id %d", aid)
	}
	tbl2 := pgTypeTable(t, e.load(s2))
	if got := tbl2.Columns[1].PGType; got != "varchar(80)" {
		t.Errorf("PGType of v at s2 = %q", got)
	}
	if a, ok := tbl2.ColumnByID(5); !ok || a.PGType != "bpchar(2)" {
		t.Errorf("added column: %+v", a)
	}
	// time travel sees the old declaration
	if got := pgTypeTable(t, e.load(s1)).Columns[1].PGType; got != "varchar(40)" {
		t.Errorf("PGType of v at s1 = %q", got)
	}
	e.expectRows(`SELECT changes_made FROM ducklake_snapshot_changes WHERE snapshot_id = 2`, "altered_table:2")
}

func pgTypeTable(t *testing.T, m *catalog.Metadata) *catalog.Table {
	t.Helper()
	main, _ := m.SchemaByName("main")
	tbl, ok := m.TableByName(main.ID, "p")
	if !ok {
		t.Fatal("table p not visible")
	}
	return tbl
}
