package catalog

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// NameMapEntry is a ducklake_name_mapping row: how a file registered with
// ducklake_add_data_files (mapping_id set, no field ids) names a column.
// Index is the entry's column_id within its mapping, Parent the parent
// entry's (nil at the top level), FieldID the DuckLake column_id it feeds;
// IsPartition entries take their value from the file's hive path.
type NameMapEntry struct {
	Index       int64
	Source      string
	FieldID     int64
	Parent      *int64
	IsPartition bool
}

// fileNameMaps fills NameMap of the files that have a mapping_id.
func fileNameMaps(ctx context.Context, q queryer, files []DataFile) error {
	ids := map[int64]bool{}
	var list []string
	for _, f := range files {
		if f.MappingID != nil && !ids[*f.MappingID] {
			ids[*f.MappingID] = true
			list = append(list, fmt.Sprint(*f.MappingID))
		}
	}
	if len(list) == 0 {
		return nil
	}
	rows, err := q.QueryContext(ctx, `SELECT mapping_id, column_id, source_name, target_field_id, parent_column, is_partition
FROM ducklake_name_mapping WHERE mapping_id IN (`+strings.Join(list, ",")+`) ORDER BY mapping_id, column_id`)
	if err != nil {
		return fmt.Errorf("catalog: read name mappings: %w", err)
	}
	defer rows.Close()
	maps := map[int64][]NameMapEntry{}
	for rows.Next() {
		var (
			id     int64
			e      NameMapEntry
			parent sql.NullInt64
			part   NullBool
		)
		if err := rows.Scan(&id, &e.Index, &e.Source, &e.FieldID, &parent, &part); err != nil {
			return fmt.Errorf("catalog: read name mappings: %w", err)
		}
		e.Parent, e.IsPartition = nullInt(parent), part.Valid && part.Bool
		maps[id] = append(maps[id], e)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("catalog: read name mappings: %w", err)
	}
	for i := range files {
		if m := files[i].MappingID; m != nil {
			files[i].NameMap = maps[*m]
			if files[i].NameMap == nil {
				// a file whose columns cannot be found must not read as NULLs
				return fmt.Errorf("catalog: data file %d names mapping %d, which has no ducklake_name_mapping rows", files[i].ID, *m)
			}
		}
	}
	return nil
}
