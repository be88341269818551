package snapshot

import (
	"fmt"
	"strings"

	"github.com/lakepg/lakepg/catalog"
)

// writeNameMap writes a registered file's map_by_name mapping as DuckDB's
// ducklake_add_data_files does: its id from next_file_id (taken before the
// file's own), one ducklake_name_mapping row per entry; a mapping identical
// to one already in the catalog (f.Mapping) or written by this commit is
// reused. It returns the mapping_id for the data file row, nil when the
// file has no mapping.
func (w *writer) writeNameMap(tableID int64, f NewDataFile) (any, error) {
	if f.Mapping != nil {
		return *f.Mapping, nil
	}
	if len(f.NameMap) == 0 {
		return nil, nil
	}
	key := NameMapKey(tableID, f.NameMap)
	if id, ok := w.nameMaps[key]; ok {
		return id, nil
	}
	id := w.nextFile
	w.nextFile++
	if w.nameMaps == nil {
		w.nameMaps = map[string]int64{}
	}
	w.nameMaps[key] = id
	if err := w.put(`INSERT INTO ducklake_column_mapping VALUES (?, ?, 'map_by_name')`, id, tableID); err != nil {
		return nil, err
	}
	for _, e := range f.NameMap {
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

// newNameMaps counts the distinct mappings the added files need written.
func newNameMaps(files []addedFile) int64 {
	seen := map[string]bool{}
	for _, a := range files {
		if a.f.Mapping == nil && len(a.f.NameMap) > 0 {
			seen[NameMapKey(a.tableID, a.f.NameMap)] = true
		}
	}
	return int64(len(seen))
}

// NameMapKey identifies a mapping's content: two files of one table with
// the same key can share a mapping.
func NameMapKey(tableID int64, m []catalog.NameMapEntry) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d", tableID)
	for _, e := range m {
		parent := int64(-1)
		if e.Parent != nil {
			parent = *e.Parent
		}
		fmt.Fprintf(&b, "|%d:%q:%d:%d:%t", e.Index, e.Source, e.FieldID, parent, e.IsPartition)
	}
	return b.String()
}

// allNullAcc is the statistics of a column every row of a file has NULL
// in: no value, so no NaN either.
func allNullAcc() colAcc {
	yes, no := true, false
	return colAcc{containsNull: &yes, containsNaN: &no, empty: true}
}
