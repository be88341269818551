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

// MatViewKey is the ducklake_tag key lakepg marks a table with that holds a
// materialized view: the value is the view's query (PostgreSQL SQL, as a
// view's). DuckDB sees an ordinary table.
const MatViewKey = "lakepg.matview"

// loadComments sets Table.Comment, View.Comment, View.ColumnComments and
// Column.Comment from the comment tags visible at snapshot s; view columns
// only when the catalog has ducklake_view_column_tag (DuckLake 1.1).
func loadComments(ctx context.Context, q queryer, m *Metadata, byID map[int64]int, s int64, viewCols bool, only []string) error {
	rows, err := q.QueryContext(ctx, `SELECT object_id, key, value FROM ducklake_tag WHERE key IN (?, ?) AND `+visibleAt("")+onlyTables("object_id", only)+` ORDER BY begin_snapshot`, CommentKey, MatViewKey, s, s)
	if err != nil {
		return fmt.Errorf("catalog: load comments: %w", err)
	}
	views := map[int64]*View{}
	for i := range m.Views {
		views[m.Views[i].ID] = &m.Views[i]
	}
	for rows.Next() {
		var id int64
		var key string
		var v sql.NullString
		if err := rows.Scan(&id, &key, &v); err != nil {
			rows.Close()
			return fmt.Errorf("catalog: load comments: %w", err)
		}
		if i, ok := byID[id]; ok {
			if key == MatViewKey {
				m.Tables[i].MatView = v.String
			} else {
				m.Tables[i].Comment = v.String
			}
		} else if vw, ok := views[id]; ok && key == CommentKey {
			vw.Comment = v.String
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("catalog: load comments: %w", err)
	}
	if viewCols {
		if err := loadViewColumnComments(ctx, q, views, s); err != nil {
			return err
		}
	}
	rows, err = q.QueryContext(ctx, `SELECT table_id, column_id, value FROM ducklake_column_tag WHERE key = ? AND `+visibleAt("")+onlyTables("table_id", only)+` ORDER BY begin_snapshot`, CommentKey, s, s)
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

// loadViewColumnComments reads DuckLake 1.1's ducklake_view_column_tag:
// comments on view columns, keyed by the column's name (views have no
// column ids), as DuckDB 2.0 writes them.
func loadViewColumnComments(ctx context.Context, q queryer, views map[int64]*View, s int64) error {
	rows, err := q.QueryContext(ctx, `SELECT view_id, column_name, value FROM ducklake_view_column_tag WHERE key = ? AND `+visibleAt("")+` ORDER BY begin_snapshot`, CommentKey, s, s)
	if err != nil {
		return fmt.Errorf("catalog: load view column comments: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var col string
		var v sql.NullString
		if err := rows.Scan(&id, &col, &v); err != nil {
			return fmt.Errorf("catalog: load view column comments: %w", err)
		}
		vw, ok := views[id]
		if !ok || !v.Valid || v.String == "" {
			continue
		}
		if vw.ColumnComments == nil {
			vw.ColumnComments = map[string]string{}
		}
		vw.ColumnComments[col] = v.String
	}
	return rows.Err()
}
