package snapshot

import (
	"cmp"
	"slices"

	"github.com/lakepg/lakepg/catalog"
)

// Overlay returns meta as this commit would leave it, with the provisional
// ids of the schemas, tables and columns it creates: what the later
// statements of a transaction block see. New schemas and tables have the
// uuids and directories the commit will write.
func (c *Commit) Overlay(meta *catalog.Metadata) *catalog.Metadata {
	out := &catalog.Metadata{Snapshot: meta.Snapshot}
	for _, s := range meta.Schemas {
		if !slices.ContainsFunc(c.droppedSchemas, func(d droppedSchema) bool { return d.s.ID == s.ID }) {
			out.Schemas = append(out.Schemas, s)
		}
	}
	for _, ns := range c.newSchemas {
		if ns.dropped {
			continue
		}
		out.Schemas = append(out.Schemas, catalog.Schema{ID: ns.provID, UUID: ns.loc.UUID, Name: ns.name, Path: ns.loc.Path, PathIsRelative: true, BeginSnapshot: meta.Snapshot.ID + 1})
	}
	for _, t := range meta.Tables {
		if slices.ContainsFunc(c.droppedTables, func(d droppedTable) bool { return d.t.ID == t.ID }) {
			continue
		}
		for _, r := range c.renamed {
			if r.t.ID == t.ID {
				t.Name = r.newName
			}
		}
		var cols []catalog.Column
		for _, col := range t.Columns {
			if ch := c.findChange(t.ID, col.ID); ch != nil {
				if ch.drop {
					continue
				}
				if ch.rename != nil {
					col.Name = *ch.rename
				}
				if ch.typ != nil {
					col.Type = *ch.typ
				}
				if ch.setDefault {
					col.DefaultValue = ch.def
					col.DefaultValueType = "literal"
					if ch.defExpr {
						col.DefaultValueType = "expression"
					}
				}
				if ch.pgType != nil {
					col.PGType = *ch.pgType
				}
				if ch.notNull {
					col.NullsAllowed = false
				}
			}
			col.Children = c.retypeChildren(t.ID, col.Children)
			cols = append(cols, col)
		}
		for _, a := range c.addedCols {
			if a.tableID == t.ID {
				cols = append(cols, columnOf(a.provID, a.def))
			}
		}
		// a column put in a dropped one's place (ColumnDef.Order) reads there
		slices.SortStableFunc(cols, func(a, b catalog.Column) int { return cmp.Compare(a.Order, b.Order) })
		t.Columns = cols
		if pc := c.findPartitionChange(t.ID); pc != nil {
			t.Partition = pc.spec()
		}
		out.Tables = append(out.Tables, t)
	}
	for _, nt := range c.newTables {
		if nt.dropped {
			continue
		}
		t := catalog.Table{ID: nt.provID, UUID: nt.loc.UUID, SchemaID: nt.schemaID, Name: nt.name, Path: nt.loc.Path, PathIsRelative: true, BeginSnapshot: meta.Snapshot.ID + 1}
		ids := nt.columnIDs()
		for i, def := range nt.cols {
			if !nt.colDrop[i] {
				t.Columns = append(t.Columns, columnOf(ids[i], def))
			}
		}
		if pc := c.findPartitionChange(nt.provID); pc != nil {
			t.Partition = pc.spec()
		}
		out.Tables = append(out.Tables, t)
	}
	c.overlayViews(meta, out)       // views.go
	c.overlayComments(out)          // comments.go
	c.overlayConstraints(meta, out) // constraints.go
	return out
}

// retypeChildren applies type changes to nested columns (an array's
// element widened by ALTER COLUMN … TYPE); kids is copied, not changed.
func (c *Commit) retypeChildren(tableID int64, kids []catalog.Column) []catalog.Column {
	if len(kids) == 0 {
		return kids
	}
	out := make([]catalog.Column, len(kids))
	for i, k := range kids {
		if ch := c.findChange(tableID, k.ID); ch != nil && ch.typ != nil {
			k.Type = *ch.typ
		}
		k.Children = c.retypeChildren(tableID, k.Children)
		out[i] = k
	}
	return out
}

func (c *Commit) findChange(tableID, columnID int64) *columnChange {
	for _, ch := range c.colChanges {
		if ch.tableID == tableID && ch.columnID == columnID {
			return ch
		}
	}
	return nil
}

// columnOf is the catalog view of def with id, its children numbered
// depth-first after it.
func columnOf(id int64, def ColumnDef) catalog.Column {
	c := catalog.Column{ID: id, Order: id, Name: def.Name, Type: def.Type, InitialDefault: def.InitialDefault,
		DefaultValue: def.DefaultValue, DefaultValueType: defaultValueType(def), NullsAllowed: def.NullsAllowed,
		PGType: def.PGType}
	if def.Order != 0 {
		c.Order = def.Order
	}
	next := id + 1
	for _, ch := range def.Children {
		cc := columnOf(next, ch)
		cc.ParentID = &c.ID
		c.Children = append(c.Children, cc)
		next += idWidth(ch)
	}
	return c
}

// defaultValueType is what DuckDB writes in default_value_type: nothing
// for a nested parent, 'literal' otherwise.
func defaultValueType(def ColumnDef) string {
	if len(def.Children) > 0 {
		return ""
	}
	if def.DefaultIsExpression {
		return "expression"
	}
	return "literal"
}
