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
	var ids []int64
	for _, f := range files {
		if f.MappingID != nil {
			ids = append(ids, *f.MappingID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	maps, err := nameMaps(ctx, q, ids)
	if err != nil {
		return err
	}
	for i := range files {
		if m := files[i].MappingID; m != nil {
			files[i].NameMap = maps[*m]
		}
	}
	return nil
}

// NameMaps reads the name mappings with the given ids.
func (db *DB) NameMaps(ctx context.Context, ids []int64) (map[int64][]NameMapEntry, error) {
	return nameMaps(ctx, db.sql, ids)
}

func nameMaps(ctx context.Context, q queryer, ids []int64) (map[int64][]NameMapEntry, error) {
	seen := map[int64]bool{}
	var list []string
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			list = append(list, fmt.Sprint(id))
		}
	}
	rows, err := q.QueryContext(ctx, `SELECT mapping_id, column_id, source_name, target_field_id, parent_column, is_partition
FROM ducklake_name_mapping WHERE mapping_id IN (`+strings.Join(list, ",")+`) ORDER BY mapping_id, column_id`)
	if err != nil {
		return nil, fmt.Errorf("catalog: read name mappings: %w", err)
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
			return nil, fmt.Errorf("catalog: read name mappings: %w", err)
		}
		e.Parent, e.IsPartition = nullInt(parent), part.Valid && part.Bool
		maps[id] = append(maps[id], e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("catalog: read name mappings: %w", err)
	}
	for id := range seen {
		if maps[id] == nil {
			// a file whose columns cannot be found must not read as NULLs
			return nil, fmt.Errorf("catalog: name mapping %d has no ducklake_name_mapping rows", id)
		}
	}
	return maps, nil
}

// TableNameMaps reads every name mapping of a table, by mapping_id.
func (db *DB) TableNameMaps(ctx context.Context, tableID int64) (map[int64][]NameMapEntry, error) {
	rows, err := db.sql.QueryContext(ctx, db.Rebind(`SELECT mapping_id FROM ducklake_column_mapping WHERE table_id = ? AND type = 'map_by_name'`), tableID)
	if err != nil {
		return nil, fmt.Errorf("catalog: read name mappings: %w", err)
	}
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, fmt.Errorf("catalog: read name mappings: %w", err)
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("catalog: read name mappings: %w", err)
	}
	if len(ids) == 0 {
		return nil, nil
	}
	return nameMaps(ctx, db.sql, ids)
}
