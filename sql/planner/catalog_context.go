package planner

// The planner's side of the pg_catalog functions (sql/planner/bind/pgcatalog_funcs.go):
// the statement's catalog Context and the catalog's set-returning
// functions in FROM.

import (
	"strings"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/sql/pgcatalog"
	"github.com/lakepg/lakepg/types"
)

// CatalogContext is the statement's catalog Context for meta: one for all
// its catalog tables and functions, which then share the model pgcatalog
// builds of it (10,000 relations in a big lake).
func (qc *QueryCtx) CatalogContext(meta *catalog.Metadata) *pgcatalog.Context {
	if qc.catalog == nil || qc.catalog.Meta != meta {
		qc.catalog = qc.s.Host.CatalogContext(meta)
	}
	return qc.catalog
}

// catalogTableFunction serves the catalog's set-returning functions in
// FROM (pg_get_keywords()); name may carry a pg_catalog qualification.
// ok is false for any other function. Call it from rangeFunction.
func (s *Session) catalogTableFunction(name, alias string) (*Source, bool, error) {
	t, ok := pgcatalog.TableFunction(strings.TrimPrefix(name, "pg_catalog."))
	if !ok {
		return nil, false, nil
	}
	if alias == "" {
		alias = t.Name
	}
	bt, err := t.Rows(s.Host.CatalogContext(nil))
	if err != nil {
		return nil, true, err
	}
	sc := &Scope{}
	ts := make([]types.T, len(t.Cols))
	for i, col := range t.Cols {
		sc.Cols = append(sc.Cols, ScopeCol{Table: alias, Name: col.Name, T: col.Type})
		ts[i] = col.Type
	}
	return &Source{op: &exec.BatchSource{B: bt, T: ts}, Sc: sc, rows: float64(bt.N)}, true, nil
}
