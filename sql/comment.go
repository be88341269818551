package sql

import (
	"context"
	"strings"

	"github.com/lakepg/lakepg/sql/planner"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/snapshot"
)

// comment stages COMMENT ON TABLE | VIEW | COLUMN … IS 'text' | NULL. The
// text is a DuckLake comment tag (snapshot/comments.go), which DuckDB shows
// as the table's, view's or column's comment; NULL or an empty text removes
// it.
func (s *Session) comment(ctx context.Context, c *snapshot.Commit, meta *catalog.Metadata, st *pg.CommentStmt) (string, error) {
	var text *string
	if st.Comment != "" {
		t := st.Comment
		text = &t
	}
	var names []string
	if l := st.Object.GetList(); l != nil {
		names = planner.StrNodes(l.Items)
	}
	switch st.Objtype {
	case pg.ObjectType_OBJECT_TABLE, pg.ObjectType_OBJECT_VIEW:
		if len(names) == 0 || len(names) > 2 {
			return "", pgerr.New(pgerr.SyntaxError, "improper relation name (too many dotted names): %s", strings.Join(names, "."))
		}
		r, err := s.ResolveRelation(meta, qualifier(names), names[len(names)-1], -1)
		if err != nil {
			return "", err
		}
		wantView := st.Objtype == pg.ObjectType_OBJECT_VIEW
		if (r.View != nil) != wantView {
			return "", pgerr.New(pgerr.WrongObjectType, "\"%s\" is not a %s", names[len(names)-1], map[bool]string{true: "view", false: "table"}[wantView])
		}
		if r.View != nil {
			c.SetComment(r.View.ID, true, text)
		} else {
			c.SetComment(r.Table.ID, false, text)
		}
	case pg.ObjectType_OBJECT_COLUMN:
		if len(names) < 2 || len(names) > 3 {
			return "", pgerr.New(pgerr.SyntaxError, "column name must be qualified")
		}
		rel := names[:len(names)-1]
		r, err := s.ResolveRelation(meta, qualifier(rel), rel[len(rel)-1], -1)
		if err != nil {
			return "", err
		}
		if r.View != nil {
			return "COMMENT", s.commentViewColumn(ctx, c, meta, r.View, names[len(names)-1], text)
		}
		col, ok := r.Table.ColumnByName(names[len(names)-1])
		if !ok {
			return "", pgerr.New(pgerr.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", names[len(names)-1], r.Table.Name)
		}
		c.SetColumnComment(r.Table.ID, col.ID, text)
	default:
		return "", pgerr.New(pgerr.FeatureNotSupported, "COMMENT ON %s is not supported: lakepg keeps comments on tables, views and columns", strings.TrimPrefix(st.Objtype.String(), "OBJECT_"))
	}
	return "COMMENT", nil
}

// qualifier is the schema of a possibly qualified name's parts ("" when
// unqualified).
func qualifier(names []string) string {
	if len(names) > 1 {
		return names[len(names)-2]
	}
	return ""
}

// commentViewColumn stages COMMENT ON COLUMN of a view: a row of DuckLake
// 1.1's ducklake_view_column_tag (keyed by the column's name, as views have
// no column ids), which a 1.0 catalog has no place for.
func (s *Session) commentViewColumn(ctx context.Context, c *snapshot.Commit, meta *catalog.Metadata, v *catalog.View, col string, text *string) error {
	db := s.eng.DB
	if db.Format() != catalog.Format11 {
		if f, err := db.RecheckFormat(ctx, db.SQL()); err != nil || f != catalog.Format11 {
			e := pgerr.New(pgerr.FeatureNotSupported, "comments on view columns need a DuckLake 1.1 catalog, and this one is %s", db.Format())
			e.Hint = "DuckLake 1.0 keeps column comments for tables only; lakepg migrate --to 1.1 moves the catalog on (DuckDB 1.5 cannot open it afterwards)."
			return e
		}
	}
	found := false
	for _, vc := range s.catalogViewColumns(meta, v) {
		if vc.Name == col {
			found = true
			break
		}
	}
	if !found {
		return pgerr.New(pgerr.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", col, v.Name)
	}
	c.SetViewColumnComment(v.ID, col, text)
	return nil
}
