package snapshot

import (
	"maps"
	"slices"
)

// Clone returns a copy of what c has staged that later changes to either
// do not reach: a transaction block keeps one per SAVEPOINT and goes back
// to it at ROLLBACK TO. The records a Commit changes in place (new schemas
// and tables, renames, added and changed columns, replaced files) are
// copied; the rest is shared because it is only ever replaced.
func (c *Commit) Clone() *Commit {
	cp := *c
	cp.newSchemas = make([]*newSchema, len(c.newSchemas))
	for i, ns := range c.newSchemas {
		v := *ns
		cp.newSchemas[i] = &v
	}
	cp.newTables = make([]*newTable, len(c.newTables))
	for i, nt := range c.newTables {
		v := *nt
		v.cols = slices.Clone(nt.cols)
		v.colDrop = slices.Clone(nt.colDrop)
		cp.newTables[i] = &v
	}
	cp.renamed = make([]*renamedTable, len(c.renamed))
	for i, r := range c.renamed {
		v := *r
		cp.renamed[i] = &v
	}
	// addedCols is a subset of addedColsAll and both are searched by
	// identity: one copy per record keeps them that way
	copies := make(map[*addedColumn]*addedColumn, len(c.addedColsAll))
	cp.addedColsAll = make([]*addedColumn, len(c.addedColsAll))
	for i, a := range c.addedColsAll {
		v := *a
		copies[a] = &v
		cp.addedColsAll[i] = &v
	}
	cp.addedCols = make([]*addedColumn, len(c.addedCols))
	for i, a := range c.addedCols {
		if v, ok := copies[a]; ok {
			cp.addedCols[i] = v
		} else {
			v := *a
			cp.addedCols[i] = &v
		}
	}
	cp.colChanges = make([]*columnChange, len(c.colChanges))
	for i, ch := range c.colChanges {
		v := *ch
		cp.colChanges[i] = &v
	}
	cp.partitions = make([]*partitionChange, len(c.partitions))
	for i, pc := range c.partitions {
		v := *pc
		cp.partitions[i] = &v
	}
	cp.newViews = make([]*newView, len(c.newViews))
	for i, nv := range c.newViews {
		v := *nv
		v.aliases = slices.Clone(nv.aliases)
		cp.newViews[i] = &v
	}
	cp.renamedViews = make([]*renamedView, len(c.renamedViews))
	for i, r := range c.renamedViews {
		v := *r
		cp.renamedViews[i] = &v
	}
	cp.droppedViews = slices.Clone(c.droppedViews)
	cp.sorts = make([]*sortChange, len(c.sorts))
	for i, sc := range c.sorts {
		x := *sc
		cp.sorts[i] = &x
	}
	cp.comments = make([]*commentChange, len(c.comments))
	for i, ch := range c.comments {
		v := *ch
		cp.comments[i] = &v
	}
	cp.cons = c.cons.clone() // constraints.go
	cp.droppedSchemas = slices.Clone(c.droppedSchemas)
	cp.extras = slices.Clone(c.extras)
	cp.droppedTables = slices.Clone(c.droppedTables)
	cp.addedFiles = slices.Clone(c.addedFiles)
	cp.replaced = slices.Clone(c.replaced)
	cp.ended = slices.Clone(c.ended)
	cp.inlinedDeletes = slices.Clone(c.inlinedDeletes)
	cp.inl.inserts = slices.Clone(c.inl.inserts)
	cp.inl.fileDeletes = slices.Clone(c.inl.fileDeletes)
	cp.inl.on = maps.Clone(c.inl.on)
	cp.inl.targets = maps.Clone(c.inl.targets)
	return &cp
}
