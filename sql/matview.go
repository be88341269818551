package sql

import (
	"context"

	"github.com/lakepg/lakepg/sql/planner"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/lakepg/lakepg/pgerr"
)

// Materialized views are lake tables marked with their query (a
// catalog.MatViewKey tag): DuckDB reads them as the tables they are, lakepg
// shows them as PostgreSQL does (pg_class relkind 'm', pg_matviews) and
// refuses to write into them but by REFRESH, which replaces every row in
// one snapshot. CREATE MATERIALIZED VIEW is CREATE TABLE AS (ctas.go).

// refreshMatView runs REFRESH MATERIALIZED VIEW: the stored query runs
// again and its rows replace the old ones, both in one snapshot.
// CONCURRENTLY changes nothing here: readers never wait for a refresh, they
// read the snapshot before it until it commits.
func (s *Session) refreshMatView(ctx context.Context, st *pg.RefreshMatViewStmt) (*Result, error) {
	rv := st.Relation
	_, sch, t, err := s.tableAtHead(ctx, rv) // dml.go
	if err != nil {
		return nil, err
	}
	if t.MatView == "" {
		// PostgreSQL's code for it
		return nil, planner.ErrAt(pgerr.New(pgerr.FeatureNotSupported, "\"%s\" is not a materialized view", t.Name), rv.Location)
	}
	if err := s.CheckRelOwner(ctx, t.ID, "materialized view", t.Name); err != nil { // sql/privileges/privileges.go
		return nil, err
	}
	tree, err := pg.Parse(t.MatView)
	if err != nil || len(tree.Stmts) != 1 || tree.Stmts[0].Stmt.GetSelectStmt() == nil {
		return nil, pgerr.New(pgerr.DataCorrupted, "materialized view \"%s\" has a query lakepg cannot parse", t.Name)
	}
	target := &pg.RangeVar{Schemaname: sch.Name, Relname: t.Name, Inh: true, Relpersistence: "p", Location: rv.Location}
	own := !s.inTx
	if own {
		s.inTx = true
	}
	s.refreshing = true
	p := &planner.Params{Values: [][]byte{}, Bound: true}
	_, err = s.modify(ctx, target, nil, nil, nil, nil, p, false)
	if err == nil && !st.SkipData {
		ins := &pg.Node{Node: &pg.Node_InsertStmt{InsertStmt: &pg.InsertStmt{Relation: target, SelectStmt: tree.Stmts[0].Stmt,
			Override: pg.OverridingKind_OVERRIDING_NOT_SET}}}
		_, err = s.planWrite(ctx, ins, p, false)
	}
	s.refreshing = false
	if own {
		s.inTx = false
		if cerr := s.endTxn(ctx, err == nil); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return nil, err
	}
	return tagResult("REFRESH MATERIALIZED VIEW"), nil
}

// checkNotMatView refuses writes into a materialized view's table other
// than REFRESH's own, as PostgreSQL does.
func (s *Session) checkNotMatView(name, matView string, loc int32) error {
	if matView == "" || s.refreshing {
		return nil
	}
	return planner.ErrAt(pgerr.New(pgerr.WrongObjectType, "cannot change materialized view \"%s\"", name), loc)
}
