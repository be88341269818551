package catalog

import (
	"context"
	"fmt"
)

// SortKey is one ducklake_sort_expression row of a table's sort order
// (ALTER TABLE … SET SORTED BY): the expression text (DuckDB's dialect; a
// column name for the sort orders lakepg writes), its direction and where
// NULLs go.
type SortKey struct {
	Expression string
	Desc       bool
	NullsFirst bool
}

// SortKeys reads the sort order of table tableID visible at snapshot snap,
// nil when the table has none.
func (db *DB) SortKeys(ctx context.Context, tableID, snap int64) ([]SortKey, error) {
	rows, err := db.sql.QueryContext(ctx, db.Rebind(`SELECT e.expression, e.sort_direction, e.null_order
FROM ducklake_sort_info i JOIN ducklake_sort_expression e ON e.sort_id = i.sort_id AND e.table_id = i.table_id
WHERE i.table_id = ? AND i.begin_snapshot <= ? AND (i.end_snapshot IS NULL OR i.end_snapshot > ?)
ORDER BY e.sort_key_index`), tableID, snap, snap)
	if err != nil {
		return nil, fmt.Errorf("catalog: read the sort order of table %d: %w", tableID, err)
	}
	defer rows.Close()
	var out []SortKey
	for rows.Next() {
		var k SortKey
		var dir, nulls string
		if err := rows.Scan(&k.Expression, &dir, &nulls); err != nil {
			return nil, fmt.Errorf("catalog: read the sort order of table %d: %w", tableID, err)
		}
		k.Desc, k.NullsFirst = dir == "DESC", nulls == "NULLS_FIRST"
		out = append(out, k)
	}
	return out, rows.Err()
}
