package snapshot

import (
	"database/sql"
	"errors"
	"fmt"
	"slices"

	"github.com/google/uuid"

	"github.com/lakepg/lakepg/catalog"
)

// ViewDialect is what lakepg writes in ducklake_view.dialect: its views hold
// PostgreSQL SQL. DuckDB 1.5 does not look at the dialect and parses the text
// with its own PostgreSQL-derived parser when the view is queried, so a view
// that uses only the common syntax works in both; one that does not fails
// in DuckDB when queried, never at ATTACH.
const ViewDialect = "postgres"

type newView struct {
	provID   int64
	schemaID int64 // may be a provisional id
	schema   string
	name     string
	uuid     string
	sql      string
	aliases  []string
	dropped  bool
}

type droppedView struct {
	s catalog.Schema
	v catalog.View
}

type renamedView struct {
	s       catalog.Schema
	v       catalog.View // as the statement saw it (v.Name is the old name)
	newName string
}

// CreateView creates a view in schema s (which may be created in this
// commit); sql is its query text in ViewDialect. It returns the view's
// provisional id.
func (c *Commit) CreateView(s catalog.Schema, name, sql string, aliases []string) int64 {
	id := c.allocCatalogID()
	schemaName := s.Name
	if ns := c.findNewSchema(s.ID); ns != nil && schemaName == "" {
		schemaName = ns.name
	}
	c.newViews = append(c.newViews, &newView{provID: id, schemaID: s.ID, schema: schemaName, name: name,
		uuid: uuid.Must(uuid.NewV7()).String(), sql: sql, aliases: slices.Clone(aliases)})
	return id
}

func (c *Commit) findNewView(id int64) *newView {
	for _, v := range c.newViews {
		if v.provID == id {
			return v
		}
	}
	return nil
}

// DropView drops a view.
func (c *Commit) DropView(s catalog.Schema, v catalog.View) {
	if nv := c.findNewView(v.ID); nv != nil {
		nv.dropped = true
		return
	}
	c.renamedViews = slices.DeleteFunc(c.renamedViews, func(r *renamedView) bool { return r.v.ID == v.ID })
	c.droppedViews = append(c.droppedViews, droppedView{s: s, v: v})
}

// RenameView renames a view; its id stays.
func (c *Commit) RenameView(s catalog.Schema, v catalog.View, newName string) {
	if nv := c.findNewView(v.ID); nv != nil {
		nv.name = newName
		return
	}
	for i, r := range c.renamedViews {
		if r.v.ID == v.ID {
			if newName == r.v.Name {
				c.renamedViews = slices.Delete(c.renamedViews, i, i+1)
			} else {
				r.newName = newName
			}
			return
		}
	}
	c.renamedViews = append(c.renamedViews, &renamedView{s: s, v: v, newName: newName})
}

func (c *Commit) viewsChanged() bool {
	if len(c.droppedViews) > 0 || len(c.renamedViews) > 0 {
		return true
	}
	return slices.ContainsFunc(c.newViews, func(v *newView) bool { return !v.dropped })
}

// overlayViews is the views part of Overlay.
func (c *Commit) overlayViews(meta *catalog.Metadata, out *catalog.Metadata) {
	for _, v := range meta.Views {
		if slices.ContainsFunc(c.droppedViews, func(d droppedView) bool { return d.v.ID == v.ID }) ||
			slices.ContainsFunc(c.droppedSchemas, func(d droppedSchema) bool { return d.s.ID == v.SchemaID }) {
			continue
		}
		for _, r := range c.renamedViews {
			if r.v.ID == v.ID {
				v.Name = r.newName
			}
		}
		out.Views = append(out.Views, v)
	}
	for _, nv := range c.newViews {
		if nv.dropped {
			continue
		}
		out.Views = append(out.Views, catalog.View{ID: nv.provID, UUID: nv.uuid, SchemaID: nv.schemaID, Name: nv.name,
			Dialect: ViewDialect, SQL: nv.sql, ColumnAliases: slices.Clone(nv.aliases), BeginSnapshot: meta.Snapshot.ID + 1})
	}
}

// mineViews adds the views part of mine: names created (they share the
// namespace of tables) and views dropped or renamed.
func (c *Commit) mineViews(m *mine) {
	for _, v := range c.newViews {
		if v.dropped {
			continue
		}
		sid := v.schemaID
		if c.isProvisional(sid) {
			sid = -1
		}
		m.createdTables = append(m.createdTables, createdName{schema: v.schema, name: v.name, schemaID: sid})
	}
	for _, r := range c.renamedViews {
		m.createdTables = append(m.createdTables, createdName{schema: r.s.Name, name: r.newName, schemaID: r.v.SchemaID, rename: true})
		m.changedViews.add(r.v.ID)
	}
	for _, d := range c.droppedViews {
		m.changedViews.add(d.v.ID)
	}
}

// checkViews: a view this commit drops or renames must not have been
// dropped or altered by another writer since.
func (m *mine) checkViews(other *changeSet) error {
	for _, id := range m.changedViews.sorted() {
		switch {
		case other.droppedViews[id]:
			return conflictf("attempting to change view with index %d, but another transaction dropped it", id)
		case other.alteredViews[id]:
			return conflictf("attempting to change view with index %d, but another transaction altered it", id)
		}
	}
	return nil
}

func (w *writer) writeDroppedViews() error {
	for _, d := range w.c.droppedViews {
		n, err := w.endLive("ducklake_view", "view_id = ?", d.v.ID)
		if err != nil {
			return err
		}
		if n == 0 {
			return conflictf("attempting to drop view %q, but another transaction dropped it already", d.v.Name)
		}
		if _, err := w.endLive("ducklake_tag", "object_id = ?", d.v.ID); err != nil {
			return err
		}
		if w.tx.DB().Format() == catalog.Format11 {
			if _, err := w.endLive("ducklake_view_column_tag", "view_id = ?", d.v.ID); err != nil {
				return err
			}
		}
		w.done.droppedViews = append(w.done.droppedViews, d.v.ID)
	}
	return nil
}

// writeViewRenames end-dates each renamed view's row and writes it again
// under the new name, as DuckDB does (its changes_made says created_view).
func (w *writer) writeViewRenames() error {
	for _, r := range w.c.renamedViews {
		var (
			uid, dialect, text, aliases sql.NullString
			sid                         int64
			name                        string
		)
		err := w.tx.QueryRowContext(w.ctx, `SELECT view_uuid, schema_id, view_name, dialect, sql, column_aliases FROM ducklake_view WHERE view_id = ? AND end_snapshot IS NULL`, r.v.ID).
			Scan(&uid, &sid, &name, &dialect, &text, &aliases)
		if errors.Is(err, sql.ErrNoRows) {
			return conflictf("attempting to rename view %q, but another transaction dropped it", r.v.Name)
		}
		if err != nil {
			return fmt.Errorf("snapshot: read view %d: %w", r.v.ID, err)
		}
		if name != r.v.Name {
			return conflictf("attempting to rename view %q, but another transaction renamed it to %q", r.v.Name, name)
		}
		if _, err := w.endLive("ducklake_view", "view_id = ?", r.v.ID); err != nil {
			return err
		}
		if taken, err := w.nameTaken(sid, r.newName); err != nil {
			return err
		} else if taken {
			return conflictf("relation %q already exists", r.newName)
		}
		if _, err := w.exec(`INSERT INTO ducklake_view VALUES (?, ?, ?, NULL, ?, ?, ?, ?, ?)`,
			r.v.ID, nullString(uid), w.snapID, sid, r.newName, nullString(dialect), nullString(text), nullString(aliases)); err != nil {
			return err
		}
		w.done.createdViews = append(w.done.createdViews, quoteName(r.s.Name)+"."+quoteName(r.newName))
	}
	return nil
}

func (w *writer) writeNewViews() error {
	for _, nv := range w.c.newViews {
		if nv.dropped {
			continue
		}
		sid := w.fid(nv.schemaID)
		if taken, err := w.nameTaken(sid, nv.name); err != nil {
			return err
		} else if taken {
			return conflictf("relation %q already exists", nv.name)
		}
		if _, err := w.exec(`INSERT INTO ducklake_view VALUES (?, ?, ?, NULL, ?, ?, ?, ?, ?)`,
			w.fid(nv.provID), nv.uuid, w.snapID, sid, nv.name, ViewDialect, nv.sql, catalog.FormatColumnAliases(nv.aliases)); err != nil {
			return err
		}
		w.done.createdViews = append(w.done.createdViews, quoteName(nv.schema)+"."+quoteName(nv.name))
	}
	return nil
}

func nullString(s sql.NullString) any {
	if s.Valid {
		return s.String
	}
	return nil
}
