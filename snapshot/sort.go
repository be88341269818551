package snapshot

import "github.com/lakepg/lakepg/catalog"

// A table's sort order (ALTER TABLE … SET/RESET SORTED BY) is kept as DuckDB
// 1.5 keeps it: a ducklake_sort_info row (sort_id from next_catalog_id)
// with one ducklake_sort_expression row per key; a change end-dates the
// live row. It is an ALTER for changes_made (altered_table) and the schema
// version, but not a structural one: no schema_versions row, no new
// inlined-data table.

type sortChange struct {
	tableID int64
	provID  int64 // the new sort_id; unused for a reset
	keys    []catalog.SortKey
}

// SetSortKeys stages table t's new sort order; nil keys reset it.
func (c *Commit) SetSortKeys(t catalog.Table, keys []catalog.SortKey) {
	keys = append([]catalog.SortKey(nil), keys...)
	for _, sc := range c.sorts {
		if sc.tableID == t.ID {
			sc.keys = keys
			if len(keys) > 0 && sc.provID == 0 {
				sc.provID = c.allocCatalogID()
			}
			return
		}
	}
	sc := &sortChange{tableID: t.ID, keys: keys}
	if len(keys) > 0 {
		sc.provID = c.allocCatalogID()
	}
	c.sorts = append(c.sorts, sc)
}

// StagedSortKeys is the sort order this commit gives table tableID, if it
// changes it.
func (c *Commit) StagedSortKeys(tableID int64) ([]catalog.SortKey, bool) {
	for _, sc := range c.sorts {
		if sc.tableID == tableID {
			return sc.keys, true
		}
	}
	return nil, false
}

func (c *Commit) mineSorts(m *mine) {
	for _, sc := range c.sorts {
		if !c.isProvisional(sc.tableID) {
			m.altered.add(sc.tableID)
		}
	}
}

func (w *writer) writeSorts() error {
	for _, sc := range w.c.sorts {
		if w.droppedTable(sc.tableID) {
			continue
		}
		tid := w.fid(sc.tableID)
		if !w.c.isProvisional(sc.tableID) {
			if err := w.tableLive(tid); err != nil {
				return err
			}
			if _, err := w.endLive("ducklake_sort_info", "table_id = ?", tid); err != nil {
				return err
			}
			w.done.altered.add(tid)
		}
		if len(sc.keys) == 0 {
			continue
		}
		sid := w.fid(sc.provID)
		if err := w.put(`INSERT INTO ducklake_sort_info VALUES (?, ?, ?, NULL)`, sid, tid, w.snapID); err != nil {
			return err
		}
		for i, k := range sc.keys {
			dir, nulls := "ASC", "NULLS_LAST"
			if k.Desc {
				dir = "DESC"
			}
			if k.NullsFirst {
				nulls = "NULLS_FIRST"
			}
			if err := w.put(`INSERT INTO ducklake_sort_expression VALUES (?, ?, ?, ?, 'duckdb', ?, ?)`, sid, tid, i, k.Expression, dir, nulls); err != nil {
				return err
			}
		}
	}
	return nil
}
