package catalog

import (
	"context"
	"database/sql"
	"fmt"
)

// PartitionKey is a ducklake_partition_column row: one key of a table's
// partitioning.
type PartitionKey struct {
	Index    int   // partition_key_index, from 0
	ColumnID int64 // the source column (top level)
	// Transform is DuckDB's name for what is applied to the column:
	// identity, year, month, day, hour or bucket(N).
	Transform string
}

// PartitionSpec is a ducklake_partition_info row with its keys. A spec
// without keys is what DuckDB leaves after RESET PARTITIONED BY: the
// table is not partitioned.
type PartitionSpec struct {
	ID   int64 // partition_id (from next_catalog_id)
	Keys []PartitionKey
}

// Partitioned reports whether the spec has keys.
func (p *PartitionSpec) Partitioned() bool { return p != nil && len(p.Keys) > 0 }

// PartitionValue is one ducklake_file_partition_value row of a data file,
// with the key it belongs to (from the spec the file was written under).
type PartitionValue struct {
	PartitionKey
	// Value is the transformed value as text (DuckDB's text of the value),
	// nil for NULL.
	Value *string
}

// loadPartitions reads the partition spec of every table visible at s.
func loadPartitions(ctx context.Context, q queryer, s int64) (map[int64]*PartitionSpec, error) {
	rows, err := q.QueryContext(ctx, `SELECT pi.table_id, pi.partition_id, pc.partition_key_index, pc.column_id, pc.transform
FROM ducklake_partition_info pi
LEFT JOIN ducklake_partition_column pc ON pc.partition_id = pi.partition_id AND pc.table_id = pi.table_id
WHERE `+visibleAt("pi.")+`
ORDER BY pi.table_id, pi.partition_id, pc.partition_key_index`, s, s)
	if err != nil {
		return nil, fmt.Errorf("catalog: load partition keys: %w", err)
	}
	defer rows.Close()
	out := map[int64]*PartitionSpec{}
	for rows.Next() {
		var (
			tid, pid  int64
			idx, col  sql.NullInt64
			transform sql.NullString
		)
		if err := rows.Scan(&tid, &pid, &idx, &col, &transform); err != nil {
			return nil, fmt.Errorf("catalog: load partition keys: %w", err)
		}
		spec := out[tid]
		// a broken catalog with two live specs: the newest wins
		if spec == nil || spec.ID < pid {
			spec = &PartitionSpec{ID: pid}
			out[tid] = spec
		}
		if spec.ID == pid && idx.Valid {
			spec.Keys = append(spec.Keys, PartitionKey{Index: int(idx.Int64), ColumnID: col.Int64, Transform: transform.String})
		}
	}
	return out, rows.Err()
}

// LivePartition is the partition spec of a table live at the head
// (end_snapshot IS NULL), nil when it never had one.
func (t *Tx) LivePartition(ctx context.Context, tableID int64) (*PartitionSpec, error) {
	rows, err := t.QueryContext(ctx, `SELECT pi.partition_id, pc.partition_key_index, pc.column_id, pc.transform
FROM ducklake_partition_info pi
LEFT JOIN ducklake_partition_column pc ON pc.partition_id = pi.partition_id AND pc.table_id = pi.table_id
WHERE pi.table_id = ? AND pi.end_snapshot IS NULL
ORDER BY pi.partition_id, pc.partition_key_index`, tableID)
	if err != nil {
		return nil, fmt.Errorf("catalog: read partition keys of table %d: %w", tableID, err)
	}
	defer rows.Close()
	var spec *PartitionSpec
	for rows.Next() {
		var (
			pid       int64
			idx, col  sql.NullInt64
			transform sql.NullString
		)
		if err := rows.Scan(&pid, &idx, &col, &transform); err != nil {
			return nil, fmt.Errorf("catalog: read partition keys of table %d: %w", tableID, err)
		}
		if spec == nil || spec.ID < pid {
			spec = &PartitionSpec{ID: pid}
		}
		if spec.ID == pid && idx.Valid {
			spec.Keys = append(spec.Keys, PartitionKey{Index: int(idx.Int64), ColumnID: col.Int64, Transform: transform.String})
		}
	}
	return spec, rows.Err()
}

// filePartitionValues attaches to files (indexed by data_file_id) their
// partition values, each with its key as the spec the file was written
// under defines it.
func filePartitionValues(ctx context.Context, q queryer, tableID, snap int64, files []DataFile, index *fileIndex) error {
	rows, err := q.QueryContext(ctx, `SELECT fpv.data_file_id, fpv.partition_key_index, fpv.partition_value, pc.column_id, pc.transform
FROM ducklake_file_partition_value fpv
JOIN ducklake_data_file df ON df.data_file_id = fpv.data_file_id
JOIN ducklake_partition_column pc ON pc.partition_id = df.partition_id AND pc.table_id = df.table_id
	AND pc.partition_key_index = fpv.partition_key_index
WHERE fpv.table_id = ? AND df.table_id = ? AND `+visibleAt("df.")+`
ORDER BY fpv.data_file_id, fpv.partition_key_index`, tableID, tableID, snap, snap)
	if err != nil {
		return fmt.Errorf("catalog: read partition values of table %d: %w", tableID, err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			fileID    int64
			pv        PartitionValue
			idx       int64
			val       sql.NullString
			transform sql.NullString
		)
		if err := rows.Scan(&fileID, &idx, &val, &pv.ColumnID, &transform); err != nil {
			return fmt.Errorf("catalog: read partition values of table %d: %w", tableID, err)
		}
		pv.Index, pv.Transform, pv.Value = int(idx), transform.String, nullStr(val)
		if i, ok := index.of(fileID); ok {
			files[i].Partition = append(files[i].Partition, pv)
		}
	}
	return rows.Err()
}
