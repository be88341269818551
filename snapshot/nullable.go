package snapshot

import "github.com/lakepg/lakepg/catalog"

// SetColumnNullable makes a column nullable again (ALTER COLUMN … DROP NOT NULL): a new
// ducklake_column row with nulls_allowed true, as DuckDB writes for the same statement.
func (c *Commit) SetColumnNullable(t catalog.Table, columnID int64) {
	if nt := c.findNewTable(t.ID); nt != nil {
		if d, _ := newTableColumn(nt, columnID); d != nil {
			d.NullsAllowed = true
		}
		return
	}
	if a := c.findAddedColumn(t.ID, columnID); a != nil {
		a.def.NullsAllowed = true
		return
	}
	ch := c.change(t.ID, columnID)
	ch.notNull, ch.nullable = false, true
}
