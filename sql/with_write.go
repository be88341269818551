package sql

import (
	"context"

	"github.com/lakepg/lakepg/sql/planner"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
)

// Data-modifying statements in WITH (writable CTEs):
//
//	WITH d AS (DELETE FROM a WHERE … RETURNING *) INSERT INTO b SELECT * FROM d
//	WITH x AS (INSERT INTO t … RETURNING id) SELECT * FROM x
//
// Each INSERT/UPDATE/DELETE of the statement's top-level WITH runs once, in
// order, before the primary statement is planned, inside the statement's
// block (an implicit one outside BEGIN, see returning.go), and its RETURNING
// rows stay in a RowBuffer that every reference to the WITH name reads. The
// primary statement and the writes commit together or not at all.
//
// Unlike PostgreSQL, where all of them see the snapshot the statement
// started with, a later one sees what an earlier one wrote (a primary query
// reading the table a WITH query changed sees the change).

// writableWith returns the WITH clause of a SELECT or INSERT when it holds
// a data-modifying query.
func writableWith(n *pg.Node) *pg.WithClause {
	var w *pg.WithClause
	switch x := n.Node.(type) {
	case *pg.Node_SelectStmt:
		w = x.SelectStmt.WithClause
	case *pg.Node_InsertStmt:
		w = x.InsertStmt.WithClause
	}
	if w == nil {
		return nil
	}
	for _, c := range w.Ctes {
		if planner.IsWriteNode(c.GetCommonTableExpr().Ctequery) {
			return w
		}
	}
	return nil
}

// runWritableCTEs runs (or with describeOnly, describes) the data-modifying
// queries of w and makes them visible to the planning of the primary
// statement. The returned func releases their rows once the statement's
// result is done with them.
func (s *Session) runWritableCTEs(ctx context.Context, w *pg.WithClause, p *planner.Params, describeOnly bool) (func(), error) {
	if w.Recursive {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "data-modifying statements in WITH RECURSIVE are not supported")
	}
	// PostgreSQL runs the primary query on the snapshot the statement
	// started with: it does not see what the WITH queries write
	var view *cteReadView
	if !describeOnly {
		view = s.captureReadView()
	}
	written := map[string]*planner.WrittenCTE{}
	release := func() {
		for _, wc := range written {
			if wc.Rows != nil {
				wc.Rows.Release()
			}
		}
	}
	for _, c := range w.Ctes {
		cte := c.GetCommonTableExpr()
		if !planner.IsWriteNode(cte.Ctequery) {
			continue
		}
		if !describeOnly {
			if err := s.checkWritable(); err != nil {
				release()
				return nil, err
			}
		}
		res, err := s.planWrite(ctx, cte.Ctequery, p, describeOnly)
		if err != nil {
			release()
			return nil, err
		}
		wc := &planner.WrittenCTE{}
		if res != nil {
			wc.Cols, wc.Rows = res.cols, res.rows
			if res.rows != nil {
				res.op = nil // the rows stay for the references; release frees them
			}
		}
		written[cte.Ctename] = wc
	}
	s.WrittenCTEs, s.cteReads = written, view
	return func() {
		release()
	}, nil
}

// cteReadView is the transaction block as it was before a statement's
// data-modifying WITH queries ran; tx nil: there was no block.
type cteReadView struct{ tx *txn }

// captureReadView copies what the reads of a statement see of the block
// now: its staged changes (a copy, the block goes on changing). Files the
// WITH queries replace stay in storage until the block ends (superseded),
// so the copy can still read them.
func (s *Session) captureReadView() *cteReadView {
	if s.txn == nil {
		return &cteReadView{}
	}
	t := *s.txn
	t.c = s.txn.c.Clone()
	return &cteReadView{tx: &t}
}

// readTxn is the block as the statement being planned reads it.
func (s *Session) readTxn() *txn {
	if s.cteReads != nil {
		return s.cteReads.tx
	}
	return s.txn
}

// releasing closes its input, then runs done (the rows of written WITH
// queries a query read).
type releasing struct {
	exec.Operator
	done func()
}

func (r *releasing) Close() error {
	err := r.Operator.Close()
	if r.done != nil {
		r.done()
		r.done = nil
	}
	return err
}

func (r *releasing) Next(ctx context.Context) (*vec.Batch, error) { return r.Operator.Next(ctx) }

// statementCTEs makes the WITH queries of an UPDATE or DELETE visible to
// everything the statement plans (its FROM/USING items, WHERE, SET and
// RETURNING), as a SELECT's WITH is to its query; the data-modifying ones
// run first, as for INSERT. The returned func ends that.
func (s *Session) statementCTEs(ctx context.Context, w *pg.WithClause, p *planner.Params, describeOnly bool) (func(), error) {
	if w == nil {
		return func() {}, nil
	}
	release := func() {}
	for _, c := range w.Ctes {
		if planner.IsWriteNode(c.GetCommonTableExpr().Ctequery) {
			done, err := s.runWritableCTEs(ctx, w, p, describeOnly)
			if err != nil {
				return nil, err
			}
			release = done
			break
		}
	}
	frame := map[string]*planner.CteDef{}
	for _, c := range w.Ctes {
		cte := c.GetCommonTableExpr()
		if _, dup := frame[cte.Ctename]; dup {
			release()
			s.WrittenCTEs = nil
			return nil, planner.ErrAt(pgerr.New(pgerr.DuplicateAlias, "WITH query name \"%s\" specified more than once", cte.Ctename), cte.Location)
		}
		frame[cte.Ctename] = &planner.CteDef{Name: cte.Ctename, Query: cte.Ctequery, Colps: planner.StrNodes(cte.Aliascolnames), Recursive: w.Recursive,
			Materialized: cte.Ctematerialized == pg.CTEMaterialize_CTEMaterializeAlways}
		if planner.IsWriteNode(cte.Ctequery) {
			frame[cte.Ctename].Written = s.WrittenCTEs[cte.Ctename]
		}
	}
	// an UPDATE or DELETE reads (and changes) the rows as its WITH queries
	// left them
	s.WrittenCTEs, s.cteReads = nil, nil
	s.StmtCTEs = frame
	return func() {
		s.StmtCTEs = nil
		release()
	}, nil
}
