package snapshot

import "github.com/lakepg/lakepg/catalog"

// COMMENT ON is a versioned tag, as DuckDB keeps it: the live
// ducklake_tag (table, view) or ducklake_column_tag (column) row with key
// 'comment' is end-dated and the new text inserted in the same snapshot;
// the change reads altered_table or altered_view. A materialized view's
// query is a table tag of the same kind (catalog.MatViewKey).

type commentChange struct {
	objectID int64 // table or view id, possibly provisional
	columnID int64 // 0: the table or view itself
	view     bool
	// viewColumn names the view column commented on (DuckLake 1.1's
	// ducklake_view_column_tag); "" for the view itself
	viewColumn string
	key        string  // catalog.CommentKey, or catalog.MatViewKey on a table
	text       *string // nil removes the tag
}

// SetComment sets (or with nil, removes) the comment of a table or view.
func (c *Commit) SetComment(objectID int64, view bool, text *string) {
	c.setComment(commentChange{objectID: objectID, view: view, key: catalog.CommentKey, text: text})
}

// SetColumnComment sets (or with nil, removes) a column's comment.
func (c *Commit) SetColumnComment(tableID, columnID int64, text *string) {
	c.setComment(commentChange{objectID: tableID, columnID: columnID, key: catalog.CommentKey, text: text})
}

// SetViewColumnComment sets (or with nil, removes) the comment of column
// column of view viewID. Only a DuckLake 1.1 catalog can hold it; the
// caller checks.
func (c *Commit) SetViewColumnComment(viewID int64, column string, text *string) {
	c.setComment(commentChange{objectID: viewID, view: true, viewColumn: column, key: catalog.CommentKey, text: text})
}

// SetMatView records the query of the materialized view that table
// tableID holds.
func (c *Commit) SetMatView(tableID int64, query string) {
	c.setComment(commentChange{objectID: tableID, key: catalog.MatViewKey, text: &query})
}

func (c *Commit) setComment(ch commentChange) {
	for _, old := range c.comments {
		if old.objectID == ch.objectID && old.columnID == ch.columnID && old.view == ch.view && old.viewColumn == ch.viewColumn && old.key == ch.key {
			*old = ch
			return
		}
	}
	c.comments = append(c.comments, &ch)
}

// commentDropped reports whether the object a comment is on goes in this
// commit.
func (c *Commit) commentDropped(ch *commentChange) bool {
	if !ch.view {
		return c.dropsTable(ch.objectID)
	}
	if nv := c.findNewView(ch.objectID); nv != nil {
		return nv.dropped
	}
	for _, d := range c.droppedViews {
		if d.v.ID == ch.objectID {
			return true
		}
	}
	return false
}

// overlayComments is the comments part of Overlay.
func (c *Commit) overlayComments(out *catalog.Metadata) {
	for _, ch := range c.comments {
		text := ""
		if ch.text != nil {
			text = *ch.text
		}
		switch {
		case ch.key == catalog.MatViewKey:
			for i := range out.Tables {
				if out.Tables[i].ID == ch.objectID {
					out.Tables[i].MatView = text
				}
			}
		case ch.view && ch.viewColumn != "":
			for i := range out.Views {
				v := &out.Views[i]
				if v.ID != ch.objectID {
					continue
				}
				// a copy: the map is shared with the metadata overlaid
				m := make(map[string]string, len(v.ColumnComments)+1)
				for k, x := range v.ColumnComments {
					m[k] = x
				}
				if text == "" {
					delete(m, ch.viewColumn)
				} else {
					m[ch.viewColumn] = text
				}
				v.ColumnComments = m
			}
		case ch.view:
			for i := range out.Views {
				if out.Views[i].ID == ch.objectID {
					out.Views[i].Comment = text
				}
			}
		default:
			for i := range out.Tables {
				t := &out.Tables[i]
				if t.ID != ch.objectID {
					continue
				}
				if ch.columnID == 0 {
					t.Comment = text
				} else if col, ok := t.ColumnByID(ch.columnID); ok {
					col.Comment = text
				}
			}
		}
	}
}

// mineComments: a comment alters its table or view for the conflict rules.
func (c *Commit) mineComments(m *mine) {
	for _, ch := range c.comments {
		switch {
		case c.isProvisional(ch.objectID):
		case ch.view:
			m.changedViews.add(ch.objectID)
		default:
			m.altered.add(ch.objectID)
		}
	}
}

// writeComments replaces the comment tags that changed, and ends those of
// dropped columns.
func (w *writer) writeComments() error {
	for _, ch := range w.c.colChanges {
		if ch.drop && !w.droppedTable(ch.tableID) {
			if _, err := w.endLive("ducklake_column_tag", "table_id = ? AND column_id = ?", ch.tableID, ch.columnID); err != nil {
				return err
			}
		}
	}
	for _, ch := range w.c.comments {
		if w.c.commentDropped(ch) {
			continue
		}
		id := w.fid(ch.objectID)
		var err error
		if ch.viewColumn != "" {
			_, err = w.endLive("ducklake_view_column_tag", "view_id = ? AND column_name = ? AND key = ?", id, ch.viewColumn, ch.key)
			if err == nil && ch.text != nil {
				_, err = w.exec(`INSERT INTO ducklake_view_column_tag VALUES (?, ?, ?, NULL, ?, ?)`, id, ch.viewColumn, w.snapID, ch.key, *ch.text)
			}
		} else if ch.columnID == 0 {
			_, err = w.endLive("ducklake_tag", "object_id = ? AND key = ?", id, ch.key)
			if err == nil && ch.text != nil {
				_, err = w.exec(`INSERT INTO ducklake_tag VALUES (?, ?, NULL, ?, ?)`, id, w.snapID, ch.key, *ch.text)
			}
		} else {
			_, err = w.endLive("ducklake_column_tag", "table_id = ? AND column_id = ? AND key = ?", id, ch.columnID, catalog.CommentKey)
			if err == nil && ch.text != nil {
				_, err = w.exec(`INSERT INTO ducklake_column_tag VALUES (?, ?, ?, NULL, ?, ?)`, id, ch.columnID, w.snapID, catalog.CommentKey, *ch.text)
			}
		}
		if err != nil {
			return err
		}
		if w.c.isProvisional(ch.objectID) {
			continue // created in this commit: created_table/created_view says it
		}
		if ch.view {
			w.done.alteredViews.add(id)
		} else {
			w.done.altered.add(id)
		}
	}
	return nil
}
