package snapshot

import "github.com/lakepg/lakepg/catalog"

// A column's declared PostgreSQL type that DuckLake cannot hold (varchar
// length, character(n)) is a ducklake_tag row of its table with key
// catalog.PGTypeTagKey(column_id) (catalog/pgtype.go says why not a column
// tag), versioned like DuckDB's comment tags: a change end-dates the live
// row and inserts the new one in the same snapshot.
// The tag rides on commits that change the column anyway (CREATE TABLE,
// ADD COLUMN, ALTER COLUMN TYPE), so it needs no changes_made token of its
// own.

// SetColumnPGType sets (or with "", removes) the declared PostgreSQL type
// of a column; call it with SetColumnType when a column's type changes.
func (c *Commit) SetColumnPGType(t catalog.Table, columnID int64, pgType string) {
	if nt := c.findNewTable(t.ID); nt != nil {
		if d, _ := newTableColumn(nt, columnID); d != nil {
			d.PGType = pgType
		}
		return
	}
	if a := c.findAddedColumn(t.ID, columnID); a != nil {
		a.def.PGType = pgType
		return
	}
	c.change(t.ID, columnID).pgType = &pgType
}

// insertPGTypeTag writes a new column's tag.
func (w *writer) insertPGTypeTag(tableID, columnID int64, pgType string) error {
	if pgType == "" {
		return nil
	}
	_, err := w.exec(`INSERT INTO ducklake_tag VALUES (?, ?, NULL, ?, ?)`,
		tableID, w.snapID, catalog.PGTypeTagKey(columnID), pgType)
	return err
}

// writePGTypeChanges replaces the tags of altered columns and end-dates
// those of dropped ones.
func (w *writer) writePGTypeChanges() error {
	for _, ch := range w.c.colChanges {
		if w.droppedTable(ch.tableID) || (!ch.drop && ch.pgType == nil) {
			continue
		}
		if _, err := w.endLive("ducklake_tag", "object_id = ? AND key = ?", ch.tableID, catalog.PGTypeTagKey(ch.columnID)); err != nil {
			return err
		}
		if ch.drop {
			continue
		}
		if err := w.insertPGTypeTag(ch.tableID, ch.columnID, *ch.pgType); err != nil {
			return err
		}
	}
	return nil
}
