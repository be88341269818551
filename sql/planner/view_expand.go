package planner

import (
	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/pgerr"
	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Relation is what a name resolves to through the search path: a table or a
// view of the first schema that has one of that name.
type Relation struct {
	Schema *catalog.Schema
	Table  *catalog.Table
	View   *catalog.View
	meta   *catalog.Metadata // set by viewFor: the catalog the view was found in
}

// viewFor reports whether rv names a view at the statement's snapshot.
func (qc *QueryCtx) viewFor(rv *pg.RangeVar) (Relation, bool, error) {
	snap, err := qc.s.Host.ReadSnapshot(qc.ctx)
	if err != nil {
		return Relation{}, false, err
	}
	meta, err := qc.s.Host.Metadata(qc.ctx, snap)
	if err != nil {
		return Relation{}, false, err
	}
	if len(meta.Views) == 0 {
		return Relation{}, false, nil
	}
	r, err := qc.s.Host.ResolveRelation(meta, rv.Schemaname, rv.Relname, rv.Location)
	if err != nil || r.View == nil {
		return Relation{}, false, nil // tableSource reports a missing relation
	}
	r.meta = meta
	return r, true, nil
}

// viewSource plans a view as a subquery of its own: none of the enclosing
// query's WITH names are visible in it.
func (qc *QueryCtx) viewSource(r Relation, alias string, colAliases []string, loc int32) (*Source, error) {
	if qc.viewDepth >= maxViewDepth {
		return nil, ErrAt(pgerr.New(pgerr.InvalidObjectDefinition, "infinite recursion detected in rules for relation \"%s\"", r.View.Name), loc)
	}
	sel, err := ViewQuery(r.meta, r.Schema, r.View)
	if err != nil {
		return nil, err
	}
	ctes := qc.Ctes
	qc.Ctes = nil
	qc.viewDepth++
	leave := qc.s.Host.EnterView(qc.ctx, r.View.ID) // its tables are read with its owner's privileges (sql/privileges/privileges_check.go)
	q, err := qc.PlanSelect(sel)
	leave()
	qc.viewDepth--
	qc.Ctes = ctes
	if err != nil {
		return nil, err
	}
	src, err := querySource(q, alias, r.View.ColumnAliases)
	if err != nil {
		return nil, err
	}
	return src, renameCols(src.Sc, colAliases, alias)
}

// maxViewDepth bounds views expanding views: a cycle (possible through
// renames, since nothing records dependencies) ends with 42P17, not a stack
// overflow.
const maxViewDepth = 64

// ViewQuery parses a view's SQL. Names left unqualified (DuckDB writes them
// as the user did) resolve in the view's own schema first, as DuckDB binds
// them.
func ViewQuery(meta *catalog.Metadata, sch *catalog.Schema, v *catalog.View) (*pg.SelectStmt, error) {
	tree, err := pg.Parse(v.SQL)
	if err != nil || len(tree.Stmts) != 1 || tree.Stmts[0].Stmt.GetSelectStmt() == nil {
		e := pgerr.New(pgerr.FeatureNotSupported, "view \"%s\" cannot be read: its %s SQL is not a query lakepg can parse", v.Name, v.Dialect)
		if err != nil {
			e.Detail = err.Error()
		}
		return nil, e
	}
	stmt := tree.Stmts[0].Stmt
	QualifyRelations(stmt, func(name string) string {
		if TableOrView(meta, sch.ID, name) {
			return sch.Name
		}
		return ""
	})
	return stmt.GetSelectStmt(), nil
}

// QualifyRelations sets the schema of every unqualified relation name in n
// that is not the name of a WITH query anywhere in n (conservative: such a
// name is left for the binder) to schemaOf(name), when that is not "".
func QualifyRelations(n *pg.Node, schemaOf func(string) string) {
	rvs, ctes := RelationsIn(n)
	for _, rv := range rvs {
		if rv.Schemaname != "" || ctes[rv.Relname] {
			continue
		}
		if sch := schemaOf(rv.Relname); sch != "" {
			rv.Schemaname = sch
		}
	}
}

// TableOrView reports whether schema schemaID has a table or view name.
func TableOrView(meta *catalog.Metadata, schemaID int64, name string) bool {
	_, t := meta.TableByName(schemaID, name)
	_, v := meta.ViewByName(schemaID, name)
	return t || v
}

// RelationsIn lists the relation names in n, subqueries included, and the
// names of its WITH queries.
func RelationsIn(n *pg.Node) ([]*pg.RangeVar, map[string]bool) {
	ctes := map[string]bool{}
	var rvs []*pg.RangeVar
	EachMessage(n.ProtoReflect(), func(m protoreflect.Message) {
		switch x := m.Interface().(type) {
		case *pg.CommonTableExpr:
			ctes[x.Ctename] = true
		case *pg.RangeVar:
			rvs = append(rvs, x)
		}
	})
	return rvs, ctes
}

// Kind is what r is, as relationKinds names it.
func (r Relation) Kind() string {
	switch {
	case r.View != nil:
		return "view"
	case r.Table.MatView != "":
		return "materialized view"
	}
	return "table"
}
