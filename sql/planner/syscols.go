package planner

import (
	"google.golang.org/protobuf/reflect/protoreflect"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/sql/pgcatalog"
	"github.com/lakepg/lakepg/sql/planner/bind"
	"github.com/lakepg/lakepg/types"
)

// System columns. PostgreSQL gives every table hidden columns that `*`
// does not expand; of them, admin tools read tableoid (pgAdmin joins
// pg_depend.classid = pg_class.tableoid). lakepg has tableoid on lake
// tables and on the emulated catalog relations: the relation's pg_class
// OID. A real column appended to the relation's rows, not a constant,
// so that an outer join NULLs it as PostgreSQL does; it is added only
// to statements that mention the name, leaving every other plan as it
// was. xmin exists on the catalog relations, where tools read it to
// notice changed objects (pgcatalog/xmin.go says what it holds); lake
// tables have no row versions to show, and ctid and the others have
// nothing to show in a lake.

const (
	tableOIDColumn = "tableoid"
	xminColumn     = "xmin"
)

// systemTableSource is the source reading a system relation's rows, with
// the xmin system column when the statement names it.
func (qc *QueryCtx) systemTableSource(t *pgcatalog.Table, c *pgcatalog.Context, alias string) (*Source, error) {
	withXmin := qc.xmin && t.HasXmin()
	var b *vec.Batch
	var lazy *exec.LazyBatch
	if n, mk, ok := t.Lazy(c, withXmin); ok {
		// made at the first read, of the columns the plan kept
		// (optree.PruneColumns)
		lazy = &exec.LazyBatch{N: n, Make: mk}
	} else {
		rows := t.Rows
		if withXmin {
			rows = t.RowsWithXmin
		}
		var err error
		if b, err = rows(c); err != nil {
			return nil, err
		}
	}
	sc := &Scope{}
	ts := make([]types.T, 0, len(t.Cols)+1)
	for _, col := range t.Cols {
		sc.Cols = append(sc.Cols, ScopeCol{Table: alias, Name: col.Name, T: col.Type, Elem: col.Elem})
		ts = append(ts, col.Type)
	}
	if withXmin {
		sc.Cols = append(sc.Cols, ScopeCol{Table: alias, Name: xminColumn, T: types.Int64T, Hidden: true, System: true})
		ts = append(ts, types.Int64T)
	}
	src := &exec.BatchSource{B: b, T: ts, Lazy: lazy}
	return &Source{op: src, Sc: sc, rows: float64(src.Rows())}, nil
}

// mentionsColumn reports whether a parse tree has a column reference
// whose last name is col (qualified or not, in any subquery).
func mentionsColumn(m protoreflect.Message, col string) bool {
	found := false
	var visit func(m protoreflect.Message)
	visit = func(m protoreflect.Message) {
		if found {
			return
		}
		if cr, ok := m.Interface().(*pg.ColumnRef); ok {
			if n := len(cr.Fields); n > 0 && cr.Fields[n-1].GetString_().GetSval() == col {
				found = true
			}
			return
		}
		m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			switch {
			case fd.IsList() && fd.Message() != nil:
				l := v.List()
				for i := 0; i < l.Len() && !found; i++ {
					visit(l.Get(i).Message())
				}
			case fd.Message() != nil && !fd.IsMap():
				visit(v.Message())
			}
			return !found
		})
	}
	visit(m)
	return found
}

// withTableOID appends the tableoid system column of the relation with
// pg_class OID oid to a base relation's source. A table DuckDB wrote may
// have a column of that name (PostgreSQL forbids one): it keeps it.
func (qc *QueryCtx) withTableOID(src *Source, oid int64, alias string) *Source {
	for _, c := range src.Sc.Cols {
		if c.Name == tableOIDColumn {
			return src
		}
	}
	n := len(src.Sc.Cols)
	exprs := make([]exec.Expr, n+1)
	for i, c := range src.Sc.Cols {
		exprs[i] = &exec.ColRef{Idx: i, T: c.T}
	}
	exprs[n] = bind.ConstOf(types.Int64T, func(v *vec.Vector) { v.AppendInt(oid) })
	out := *src
	out.op = &exec.Project{Env: qc.env, Input: src.op, Exprs: exprs}
	out.Sc = &Scope{Cols: append(append([]ScopeCol{}, src.Sc.Cols...),
		ScopeCol{Table: alias, Name: tableOIDColumn, T: types.Int64T, Hidden: true, System: true})}
	return &out
}

// catalogRelationOID is the pg_class OID of a system relation.
func catalogRelationOID(schema, name string) (int64, bool) {
	if schema == "" {
		schema = "pg_catalog"
	}
	t, ok := pgcatalog.Lookup(schema, name)
	if !ok {
		return 0, false
	}
	return t.OID, true
}
