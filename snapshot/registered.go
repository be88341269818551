package snapshot

import "github.com/lakepg/lakepg/catalog"

// writeNameMap writes a registered file's map_by_name mapping as DuckDB's
// ducklake_add_data_files does: its id from next_file_id (taken before the
// file's own), one ducklake_name_mapping row per entry. It returns the
// mapping_id for the data file row, nil when the file has no mapping.
func (w *writer) writeNameMap(tableID int64, m []catalog.NameMapEntry) (any, error) {
	if len(m) == 0 {
		return nil, nil
	}
	id := w.nextFile
	w.nextFile++
	if err := w.put(`INSERT INTO ducklake_column_mapping VALUES (?, ?, 'map_by_name')`, id, tableID); err != nil {
		return nil, err
	}
	for _, e := range m {
		var parent any
		if e.Parent != nil {
			parent = *e.Parent
		}
		if err := w.put(`INSERT INTO ducklake_name_mapping VALUES (?, ?, ?, ?, ?, ?)`, id, e.Index, e.Source, e.FieldID, parent, e.IsPartition); err != nil {
			return nil, err
		}
	}
	return id, nil
}
