package snapshot

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/lakepg/lakepg/catalog"
)

// TestCloneIsIndependent: changes to a Commit after Clone, including the
// ones made in place on records both could share, do not reach the clone.
func TestCloneIsIndependent(t *testing.T) {
	base := catalog.Snapshot{ID: 5, NextCatalogID: 10}
	meta := &catalog.Metadata{Snapshot: base, Schemas: []catalog.Schema{{ID: 1, Name: "main", Path: "main/"}}}
	c := Begin(nil, base, meta)
	id := c.CreateTable(meta.Schemas[0], "t", []ColumnDef{{Name: "a", Type: "int32"}, {Name: "b", Type: "varchar"}})
	tbl := catalog.Table{ID: id, SchemaID: 1, Name: "t"}
	c.AddDataFile(tbl, NewDataFile{RelPath: "f1.parquet", RecordCount: 3})
	c.SetPartitionKeys(tbl, []PartitionKeyDef{{ColumnID: 1, Transform: "identity"}})
	view := func(c *Commit) string {
		m := c.Overlay(meta)
		out := fmt.Sprintf("%d schemas; files %+v", len(m.Schemas), c.AddedFiles(id))
		for _, t := range m.Tables {
			out += fmt.Sprintf("; table %d %s %+v", t.ID, t.Name, t.Columns)
			if t.Partition != nil {
				out += fmt.Sprintf(" partitioned %+v", *t.Partition)
			}
		}
		return out
	}
	want := view(c)
	cp := c.Clone()

	c.RenameTable(meta.Schemas[0], tbl, "t2")
	c.RenameColumn(tbl, 2, "bee")
	c.SetColumnType(tbl, 1, "int64")
	c.DropColumn(tbl, 1)
	c.AddColumn(tbl, ColumnDef{Name: "c", Type: "int32"})
	c.ReplaceAddedFiles(id, "f1.parquet", []NewDataFile{{RelPath: "f2.parquet", RecordCount: 1}})
	c.AddDataFile(tbl, NewDataFile{RelPath: "f3.parquet", RecordCount: 1})
	c.SetPartitionKeys(tbl, nil)
	c.CreateSchema("other")
	if got := view(cp); got != want {
		t.Errorf("the clone changed with the original:\n got %s\nwant %s", got, want)
	}
	if view(c) == want {
		t.Error("the original did not change")
	}
	// and the other way round
	cp2 := c.Clone()
	after := view(c)
	cp2.DropTable(meta.Schemas[0], catalog.Table{ID: id})
	if view(c) != after {
		t.Error("a change to the clone reached the original")
	}
}

// TestCloneKnowsEveryField: Clone copies Commit field by field. A new field
// must be looked at there (is it changed in place? then copy it deeply)
// and then added to this list.
func TestCloneKnowsEveryField(t *testing.T) {
	known := []string{"db", "base", "meta", "author", "message", "catalogIDs", "newSchemas", "droppedSchemas",
		"newTables", "droppedTables", "renamed", "addedCols", "addedColsAll", "colChanges", "addedFiles",
		"replaced", "ended", "inlinedDeletes", "inl", "partitions", "newViews", "droppedViews", "renamedViews", "comments",
		"extras", "finalCatalogBase", "committed", "beforeCommit", "cons", "sorts"}
	rt := reflect.TypeOf(Commit{})
	for i := range rt.NumField() {
		if name := rt.Field(i).Name; !slices.Contains(known, name) {
			t.Errorf("Commit has a field %s that Clone (savepoint.go) does not know about", name)
		}
	}
}
