package snapshot

import (
	"testing"

	"github.com/lakepg/lakepg/catalog"
)

// TestListColumnIDsDepthFirst: a list column is its row plus an element row with
// parent_column set, ids handed out depth-first as DuckDB does (default_value_type empty
// on the parent), in CREATE TABLE, in ADD COLUMN to a table created in the same commit and
// to an existing one; the overlay and Load give the same tree.
func TestListColumnIDsDepthFirst(t *testing.T) {
	eachBackend(t, func(t *testing.T, be backend) {
		e := newEnv(t, be)
		list := func(name, elem string) ColumnDef {
			return ColumnDef{Name: name, Type: "list", NullsAllowed: true, Children: []ColumnDef{{Name: "element", Type: elem, NullsAllowed: true}}}
		}
		c, m := e.begin()
		sch, _ := m.SchemaByName("main")
		tid := c.CreateTable(*sch, "l", []ColumnDef{{Name: "id", Type: "int32", NullsAllowed: true}, list("a", "int32"), {Name: "b", Type: "varchar", NullsAllowed: true}})
		if id := c.AddColumn(catalog.Table{ID: tid}, list("c", "float64")); id != 5 {
			t.Errorf("ADD COLUMN in the creating commit got id %d, want 5", id)
		}
		ov := c.Overlay(m)
		ot, _ := ov.TableByName(sch.ID, "l")
		if len(ot.Columns) != 4 || ot.Columns[1].ID != 2 || len(ot.Columns[1].Children) != 1 || ot.Columns[1].Children[0].ID != 3 ||
			*ot.Columns[1].Children[0].ParentID != 2 || ot.Columns[2].ID != 4 || ot.Columns[3].Children[0].ID != 6 {
			t.Errorf("overlay columns %+v", ot.Columns)
		}
		s1 := e.commit(c)
		e.expectRows(`SELECT column_id, column_order, column_name, column_type, default_value, nulls_allowed, parent_column, default_value_type
			FROM ducklake_column ORDER BY column_id`,
			"1|1|id|int32|NULL|1|~|literal",
			"2|2|a|list|NULL|1|~|",
			"3|3|element|int32|NULL|1|2|literal",
			"4|4|b|varchar|NULL|1|~|literal",
			"5|5|c|list|NULL|1|~|",
			"6|6|element|float64|NULL|1|5|literal")

		m1 := e.load(s1)
		lt, _ := m1.TableByName(sch.ID, "l")
		c, _ = e.begin()
		if id := c.AddColumn(*lt, list("d", "varchar")); id != 7 {
			t.Errorf("ADD COLUMN got id %d, want 7", id)
		}
		if id := c.AddColumn(*lt, ColumnDef{Name: "e", Type: "int32", NullsAllowed: true}); id != 9 {
			t.Errorf("second ADD COLUMN got id %d, want 9", id)
		}
		e.commit(c)
		e.expectRows(`SELECT column_id, begin_snapshot, column_name, column_type, parent_column FROM ducklake_column WHERE column_id > 6 ORDER BY column_id`,
			"7|2|d|list|~", "8|2|element|varchar|7", "9|2|e|int32|~")
		m2 := e.load(e.head())
		lt2, _ := m2.TableByName(sch.ID, "l")
		if n := len(lt2.Columns); n != 6 || len(lt2.Columns[4].Children) != 1 || lt2.Columns[4].Children[0].ID != 8 {
			t.Errorf("loaded columns %+v", lt2.Columns)
		}
	})
}
