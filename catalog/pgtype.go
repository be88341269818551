package catalog

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
)

// lakepg keeps what DuckLake's types cannot say about a column's declared
// PostgreSQL type (varchar has no length; there is no character(n)) as a
// table tag in ducklake_tag: key PGTypeTagPrefix + column_id, value e.g.
// 'varchar(40)' or 'bpchar(10)'. Not a ducklake_column_tag: DuckDB 1.5
// refuses to load a table whose column tags have any key but 'comment'
// ("Only comment tags are supported for columns currently"), while it keeps
// table tags of any key.
const PGTypeTagPrefix = "lakepg.type."

// PGTypeTagKey is the ducklake_tag key of column columnID's declared type.
func PGTypeTagKey(columnID int64) string {
	return PGTypeTagPrefix + strconv.FormatInt(columnID, 10)
}

// loadPGTypes sets Column.PGType from the lakepg.type tags visible at snap.
func loadPGTypes(ctx context.Context, q queryer, m *Metadata, byID map[int64]int, snap int64, only []string) error {
	rows, err := q.QueryContext(ctx, `SELECT object_id, key, value FROM ducklake_tag
WHERE key LIKE ? AND `+visibleAt("")+onlyTables("object_id", only)+` ORDER BY object_id, begin_snapshot`, PGTypeTagPrefix+"%", snap, snap)
	if err != nil {
		return fmt.Errorf("catalog: load tags: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var tid int64
		var key string
		var v sql.NullString
		if err := rows.Scan(&tid, &key, &v); err != nil {
			return fmt.Errorf("catalog: load tags: %w", err)
		}
		i, ok := byID[tid]
		if !ok || !strings.HasPrefix(key, PGTypeTagPrefix) {
			continue
		}
		cid, err := strconv.ParseInt(key[len(PGTypeTagPrefix):], 10, 64)
		if err != nil {
			continue // not ours after all
		}
		if c, ok := m.Tables[i].ColumnByID(cid); ok {
			c.PGType = v.String
		}
	}
	return rows.Err()
}
