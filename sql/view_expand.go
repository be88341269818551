package sql

import (
	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/pgerr"
	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// relation is what a name resolves to through the search path: a table or a
// view of the first schema that has one of that name.
type relation struct {
	schema *catalog.Schema
	table  *catalog.Table
	view   *catalog.View
	meta   *catalog.Metadata // set by viewFor: the catalog the view was found in
}

// viewFor reports whether rv names a view at the statement's snapshot.
func (qc *queryCtx) viewFor(rv *pg.RangeVar) (relation, bool, error) {
	snap, err := qc.s.host.readSnapshot(qc.ctx)
	if err != nil {
		return relation{}, false, err
	}
	meta, err := qc.s.host.metadata(qc.ctx, snap)
	if err != nil {
		return relation{}, false, err
	}
	if len(meta.Views) == 0 {
		return relation{}, false, nil
	}
	r, err := qc.s.host.resolveRelation(meta, rv.Schemaname, rv.Relname, rv.Location)
	if err != nil || r.view == nil {
		return relation{}, false, nil // tableSource reports a missing relation
	}
	r.meta = meta
	return r, true, nil
}

// viewSource plans a view as a subquery of its own: none of the enclosing
// query's WITH names are visible in it.
func (qc *queryCtx) viewSource(r relation, alias string, colAliases []string, loc int32) (*source, error) {
	if qc.viewDepth >= maxViewDepth {
		return nil, errAt(pgerr.New(pgerr.InvalidObjectDefinition, "infinite recursion detected in rules for relation \"%s\"", r.view.Name), loc)
	}
	sel, err := viewQuery(r.meta, r.schema, r.view)
	if err != nil {
		return nil, err
	}
	ctes := qc.ctes
	qc.ctes = nil
	qc.viewDepth++
	leave := qc.s.host.enterView(qc.ctx, r.view.ID) // its tables are read with its owner's privileges (privileges_check.go)
	q, err := qc.planSelect(sel)
	leave()
	qc.viewDepth--
	qc.ctes = ctes
	if err != nil {
		return nil, err
	}
	src, err := querySource(q, alias, r.view.ColumnAliases)
	if err != nil {
		return nil, err
	}
	return src, renameCols(src.sc, colAliases, alias)
}

// maxViewDepth bounds views expanding views: a cycle (possible through
// renames, since nothing records dependencies) ends with 42P17, not a stack
// overflow.
const maxViewDepth = 64

// viewQuery parses a view's SQL. Names left unqualified (DuckDB writes them
// as the user did) resolve in the view's own schema first, as DuckDB binds
// them.
func viewQuery(meta *catalog.Metadata, sch *catalog.Schema, v *catalog.View) (*pg.SelectStmt, error) {
	tree, err := pg.Parse(v.SQL)
	if err != nil || len(tree.Stmts) != 1 || tree.Stmts[0].Stmt.GetSelectStmt() == nil {
		e := pgerr.New(pgerr.FeatureNotSupported, "view \"%s\" cannot be read: its %s SQL is not a query lakepg can parse", v.Name, v.Dialect)
		if err != nil {
			e.Detail = err.Error()
		}
		return nil, e
	}
	stmt := tree.Stmts[0].Stmt
	qualifyRelations(stmt, func(name string) string {
		if tableOrView(meta, sch.ID, name) {
			return sch.Name
		}
		return ""
	})
	return stmt.GetSelectStmt(), nil
}

// qualifyRelations sets the schema of every unqualified relation name in n
// that is not the name of a WITH query anywhere in n (conservative: such a
// name is left for the binder) to schemaOf(name), when that is not "".
func qualifyRelations(n *pg.Node, schemaOf func(string) string) {
	rvs, ctes := relationsIn(n)
	for _, rv := range rvs {
		if rv.Schemaname != "" || ctes[rv.Relname] {
			continue
		}
		if sch := schemaOf(rv.Relname); sch != "" {
			rv.Schemaname = sch
		}
	}
}

// tableOrView reports whether schema schemaID has a table or view name.
func tableOrView(meta *catalog.Metadata, schemaID int64, name string) bool {
	_, t := meta.TableByName(schemaID, name)
	_, v := meta.ViewByName(schemaID, name)
	return t || v
}

// relationsIn lists the relation names in n, subqueries included, and the
// names of its WITH queries.
func relationsIn(n *pg.Node) ([]*pg.RangeVar, map[string]bool) {
	ctes := map[string]bool{}
	var rvs []*pg.RangeVar
	eachMessage(n.ProtoReflect(), func(m protoreflect.Message) {
		switch x := m.Interface().(type) {
		case *pg.CommonTableExpr:
			ctes[x.Ctename] = true
		case *pg.RangeVar:
			rvs = append(rvs, x)
		}
	})
	return rvs, ctes
}

// kind is what r is, as relationKinds names it.
func (r relation) kind() string {
	switch {
	case r.view != nil:
		return "view"
	case r.table.MatView != "":
		return "materialized view"
	}
	return "table"
}
