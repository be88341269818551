package sql

import (
	"context"
	"strings"

	"github.com/lakepg/lakepg/sql/planner"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/snapshot"
	"github.com/lakepg/lakepg/sql/pgcatalog"
)

// Views are kept in ducklake_view, so DuckDB sees them too. lakepg writes
// the query as PostgreSQL SQL deparsed from its parse tree with every
// relation schema-qualified (a view keeps reading the tables it was created
// against, whatever the search_path of the session using it), in dialect
// snapshot.ViewDialect. A view is planned afresh, from its SQL, by every
// query that uses it; nothing tracks which tables a view reads, so dropping
// one makes the view fail when used (PostgreSQL refuses the DROP instead).

// relationKinds names the kinds of relation DROP takes, as PostgreSQL's
// messages do.
var relationKinds = map[pg.ObjectType]string{
	pg.ObjectType_OBJECT_TABLE:   "table",
	pg.ObjectType_OBJECT_VIEW:    "view",
	pg.ObjectType_OBJECT_MATVIEW: "materialized view",
}

// ResolveRelation finds a table or view by (optional) schema and name.
func (s *Session) ResolveRelation(meta *catalog.Metadata, schemaName, name string, loc int32) (planner.Relation, error) {
	if t := s.TempLookup(schemaName, name); t != nil {
		// a temporary table shadows lake relations; the lake code paths
		// that get here cannot serve it (temp.go)
		return planner.Relation{}, errTempNotSupported(name, "", loc)
	}
	find := func(sch *catalog.Schema) (planner.Relation, bool) {
		if t, ok := meta.TableByName(sch.ID, name); ok {
			return planner.Relation{Schema: sch, Table: t}, true
		}
		if v, ok := meta.ViewByName(sch.ID, name); ok {
			return planner.Relation{Schema: sch, View: v}, true
		}
		return planner.Relation{}, false
	}
	if schemaName != "" {
		// a schema that does not exist is 42P01 too, as PostgreSQL says
		if sch, ok := meta.SchemaByName(schemaName); ok {
			if r, ok := find(sch); ok {
				return r, nil
			}
		}
		return planner.Relation{}, planner.ErrAt(pgerr.New(pgerr.UndefinedTable, "relation \"%s.%s\" does not exist", schemaName, name), loc)
	}
	for _, sp := range s.SearchPath() {
		if sch, ok := meta.SchemaByName(sp); ok && s.SchemaUsable(sch) {
			if r, ok := find(sch); ok {
				return r, nil
			}
		}
	}
	return planner.Relation{}, planner.ErrAt(pgerr.New(pgerr.UndefinedTable, "relation \"%s\" does not exist", name), loc)
}

// createView stages CREATE [OR REPLACE] VIEW. The query is planned first
// (describe only) to check it and learn its columns, as PostgreSQL does.
func (s *Session) createView(ctx context.Context, st *pg.ViewStmt) (*Result, error) {
	rv := st.View
	if rv.Relpersistence == "t" {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "temporary views are not supported yet")
	}
	if st.WithCheckOption != pg.ViewCheckOption_NO_CHECK_OPTION {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "WITH CHECK OPTION is not supported: lakepg views are read-only")
	}
	sel := st.Query.GetSelectStmt()
	if sel == nil {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "a view must be defined by a SELECT")
	}
	if sel.IntoClause != nil {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "views must not contain SELECT INTO")
	}
	cols, err := s.viewColumns(ctx, sel, planner.StrNodes(st.Aliases))
	if err != nil {
		return nil, err
	}
	snap, err := s.writeHead(ctx)
	if err != nil {
		return nil, err
	}
	meta, err := s.Metadata(ctx, snap)
	if err != nil {
		return nil, err
	}
	rvs, ctes := planner.RelationsIn(st.Query)
	for _, r := range rvs {
		if (r.Schemaname != "" || !ctes[r.Relname]) && s.TempLookup(r.Schemaname, r.Relname) != nil {
			// PostgreSQL makes such a view temporary; lakepg has none (temp.go)
			return nil, planner.ErrAt(pgerr.New(pgerr.FeatureNotSupported, "a view cannot read temporary table \"%s\": temporary views are not supported", r.Relname), r.Location)
		}
	}
	text, err := s.storedQuery(meta, st.Query, rv)
	if err != nil {
		return nil, err
	}
	err = s.commit(ctx, func(c *snapshot.Commit, meta *catalog.Metadata) error {
		sch, err := s.targetSchema(meta, rv.Schemaname, rv.Location)
		if err != nil {
			return err
		}
		if _, ok := meta.TableByName(sch.ID, rv.Relname); ok {
			if st.Replace {
				return planner.ErrAt(pgerr.New(pgerr.WrongObjectType, "\"%s\" is not a view", rv.Relname), rv.Location)
			}
			return planner.ErrAt(pgerr.New(pgerr.DuplicateTable, "relation \"%s\" already exists", rv.Relname), rv.Location)
		}
		if old, ok := meta.ViewByName(sch.ID, rv.Relname); ok {
			if !st.Replace {
				return planner.ErrAt(pgerr.New(pgerr.DuplicateTable, "relation \"%s\" already exists", rv.Relname), rv.Location)
			}
			if err := s.checkViewReplace(ctx, meta, sch, old, cols); err != nil {
				return err
			}
			if err := s.ReplacingView(ctx, old.ID, old.Name); err != nil { // sql/privileges/privileges_check.go
				return err
			}
			c.DropView(*sch, *old) // DuckDB replaces a view the same way: a new id
		}
		c.CreateView(*sch, rv.Relname, text, planner.StrNodes(st.Aliases))
		return nil
	}, nil)
	if err != nil {
		return nil, err
	}
	return tagResult("CREATE VIEW"), nil
}

// storedQuery is the SQL a view (or materialized view) rv keeps of its
// query: no database names (DuckDB would take one for a catalog of its own)
// and every relation schema-qualified as resolved now. It changes query.
func (s *Session) storedQuery(meta *catalog.Metadata, query *pg.Node, rv *pg.RangeVar) (string, error) {
	rvs, _ := planner.RelationsIn(query)
	for _, r := range append(rvs, rv) {
		if r.Catalogname != "" && r.Catalogname != s.Database {
			return "", planner.ErrAt(pgerr.New(pgerr.FeatureNotSupported, "cross-database references are not implemented: %s", rangeVarName(r)), r.Location)
		}
		r.Catalogname = ""
	}
	planner.QualifyRelations(query, func(name string) string {
		if r, err := s.ResolveRelation(meta, "", name, -1); err == nil {
			return r.Schema.Name
		}
		return ""
	})
	text, err := pg.Deparse(&pg.ParseResult{Version: planner.ParseTreeVersion, Stmts: []*pg.RawStmt{{Stmt: query}}})
	if err != nil {
		return "", pgerr.Wrap(pgerr.Internal, err, "cannot store the query")
	}
	return text, nil
}

// viewColumns plans a view's query without running it and applies the
// column names given.
func (s *Session) viewColumns(ctx context.Context, sel *pg.SelectStmt, aliases []string) ([]Column, error) {
	q, err := s.PlanQuery(ctx, sel, &planner.Params{}, true)
	if err != nil {
		return nil, err
	}
	q.Op.Close()
	if len(aliases) > len(q.Cols) {
		return nil, pgerr.New(pgerr.SyntaxError, "CREATE VIEW specifies more column names than columns")
	}
	cols := append([]Column(nil), q.Cols...)
	seen := map[string]bool{}
	for i := range cols {
		if i < len(aliases) {
			cols[i].Name = aliases[i]
		}
		if seen[cols[i].Name] {
			return nil, pgerr.New(pgerr.DuplicateColumn, "column \"%s\" specified more than once", cols[i].Name)
		}
		seen[cols[i].Name] = true
	}
	return cols, nil
}

// checkViewReplace applies PostgreSQL's rule for CREATE OR REPLACE VIEW:
// the new query keeps the old columns, same names and types in the same
// places, and may only add columns at the end.
func (s *Session) checkViewReplace(ctx context.Context, meta *catalog.Metadata, sch *catalog.Schema, old *catalog.View, cols []Column) error {
	sel, err := planner.ViewQuery(meta, sch, old)
	if err != nil {
		return nil // an old view lakepg cannot read is replaced as is
	}
	oldCols, err := s.viewColumns(ctx, sel, old.ColumnAliases)
	if err != nil {
		return nil
	}
	if len(cols) < len(oldCols) {
		return pgerr.New(pgerr.InvalidTableDefinition, "cannot drop columns from view")
	}
	for i, oc := range oldCols {
		if cols[i].Name != oc.Name {
			return pgerr.New(pgerr.InvalidTableDefinition, "cannot change name of view column \"%s\" to \"%s\"", oc.Name, cols[i].Name)
		}
		if cols[i].Type != oc.Type {
			return pgerr.New(pgerr.InvalidTableDefinition, "cannot change data type of view column \"%s\" from %s to %s", oc.Name, oc.Type, cols[i].Type)
		}
	}
	return nil
}

// dropRelations stages DROP TABLE and DROP VIEW: each name must be of the
// kind the statement says.
func (s *Session) dropRelations(ctx context.Context, c *snapshot.Commit, meta *catalog.Metadata, st *pg.DropStmt) (string, error) {
	kind, tag := relationKinds[st.RemoveType], "DROP "+strings.ToUpper(relationKinds[st.RemoveType])
	for _, o := range st.Objects {
		names := planner.StrNodes(o.GetList().Items)
		schemaName, name := "", names[len(names)-1]
		if len(names) > 1 {
			schemaName = names[len(names)-2]
			if _, ok := meta.SchemaByName(schemaName); !ok {
				if st.MissingOk {
					s.notice("schema \"%s\" does not exist, skipping", schemaName)
					continue
				}
				return "", pgerr.New(pgerr.InvalidSchemaName, "schema \"%s\" does not exist", schemaName)
			}
		}
		r, err := s.ResolveRelation(meta, schemaName, name, -1)
		if err != nil {
			if st.MissingOk {
				s.notice("%s \"%s\" does not exist, skipping", kind, name)
				continue
			}
			return "", pgerr.New(pgerr.UndefinedTable, "%s \"%s\" does not exist", kind, name)
		}
		if is := r.Kind(); is != kind {
			e := pgerr.New(pgerr.WrongObjectType, "\"%s\" is not a %s", name, kind)
			e.Hint = "Use DROP " + strings.ToUpper(is) + " to remove a " + is + "."
			return "", e
		}
		if r.View != nil {
			c.DropView(*r.Schema, *r.View)
			continue
		}
		c.DropTable(*r.Schema, *r.Table)
		if err := s.seq.DropOwnedSequences(ctx, c, r.Table.ID, 0); err != nil { // sql/sequences/sequence.go
			return "", err
		}
	}
	return tag, nil
}

// viewsIn lists the views of one schema.
func viewsIn(meta *catalog.Metadata, schemaID int64) []catalog.View {
	var out []catalog.View
	for _, v := range meta.Views {
		if v.SchemaID == schemaID {
			out = append(out, v)
		}
	}
	return out
}

// catalogViewColumns binds a view's query, without running it, for the
// columns pg_attribute and information_schema.columns list; nil when the
// view cannot be bound (a table it reads is gone).
func (s *Session) catalogViewColumns(meta *catalog.Metadata, v *catalog.View) []pgcatalog.ViewColumn {
	sch, ok := meta.SchemaByID(v.SchemaID)
	if !ok {
		return nil
	}
	sel, err := planner.ViewQuery(meta, sch, v)
	if err != nil {
		return nil
	}
	cols, err := s.viewColumns(context.Background(), sel, v.ColumnAliases)
	if err != nil {
		return nil
	}
	out := make([]pgcatalog.ViewColumn, len(cols))
	for i, c := range cols {
		out[i] = pgcatalog.ViewColumn{Name: c.Name, OID: int64(c.Type.OID()), Typmod: c.Type.Typmod()}
	}
	return out
}

// rangeVarName is a relation name as written, parts joined by dots.
func rangeVarName(rv *pg.RangeVar) string {
	var parts []string
	for _, p := range []string{rv.Catalogname, rv.Schemaname, rv.Relname} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, ".")
}
