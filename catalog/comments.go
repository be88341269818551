package catalog

import (
	"context"
	"database/sql"
	"fmt"
)

// Comments (COMMENT ON) are DuckLake tags with key 'comment', as DuckDB
// keeps them: ducklake_tag for tables and views (object_id is the table or
// view id), ducklake_column_tag for columns.
const CommentKey = "comment"

// loadComments sets Table.Comment, View.Comment and Column.Comment from the
// comment tags visible at snapshot s.
func loadComments(ctx context.Context, q queryer, m *Metadata, byID map[int64]int, s int64) error {
	rows, err := q.QueryContext(ctx, `SELECT object_id, value FROM ducklake_tag WHERE key = ? AND `+visibleAt("")+` ORDER BY begin_snapshot`, CommentKey, s, s)
	if err != nil {
		return fmt.Errorf("catalog: load comments: %w", err)
	}
	views := map[int64]*View{}
	for i := range m.Views {
		views[m.Views[i].ID] = &m.Views[i]
	}
	for rows.Next() {
		var id int64
		var v sql.NullString
		if err := rows.Scan(&id, &v); err != nil {
			rows.Close()
			return fmt.Errorf("catalog: load comments: %w", err)
		}
		if i, ok := byID[id]; ok {
			m.Tables[i].Comment = v.String
		} else if vw, ok := views[id]; ok {
			vw.Comment = v.String
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("catalog: load comments: %w", err)
	}
	rows, err = q.QueryContext(ctx, `SELECT table_id, column_id, value FROM ducklake_column_tag WHERE key = ? AND `+visibleAt("")+` ORDER BY begin_snapshot`, CommentKey, s, s)
	if err != nil {
		return fmt.Errorf("catalog: load column comments: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var tid, cid int64
		var v sql.NullString
		if err := rows.Scan(&tid, &cid, &v); err != nil {
			return fmt.Errorf("catalog: load column comments: %w", err)
		}
		if i, ok := byID[tid]; ok {
			if c, ok := m.Tables[i].ColumnByID(cid); ok {
				c.Comment = v.String
			}
		}
	}
	return rows.Err()
}
