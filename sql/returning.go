package sql

import (
	"context"

	"github.com/lakepg/lakepg/sql/planner"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// INSERT/UPDATE/DELETE … RETURNING. The RETURNING list is bound over a
// scope whose first columns are the target table's: the row as written
// (INSERT, UPDATE) or as it was (DELETE); UPDATE … FROM and DELETE … USING
// add the FROM items' columns after it (dml_join.go). The write pipeline
// shows each written row to a returning, which evaluates the list and keeps
// the results in a RowBuffer; the rows go to the client once the write has
// succeeded. In autocommit the statement runs in an implicit block
// (Execute) that the end of the rows commits, so a write whose rows could
// not be sent commits nothing; a portal suspended part-way commits at Sync,
// as in PostgreSQL.

// returning evaluates a statement's RETURNING list over written rows.
type returning struct {
	env   *exec.Env
	exprs []exec.Expr
	cols  []Column
	buf   *exec.RowBuffer
	one   oneBatch
	proj  exec.Project
	// extraT are the types of the FROM items' columns an UPDATE … FROM or
	// DELETE … USING carries after the position columns (dml_join.go)
	extraT []types.T
}

// bindReturning binds list over sc. nil list: nil, no RETURNING.
func (s *Session) bindReturning(b *planner.Binder, sc *planner.Scope, list []*pg.Node) (*returning, error) {
	if len(list) == 0 {
		return nil, nil
	}
	rb := *b
	rb.NoAggMsg = "aggregate functions are not allowed in RETURNING"
	rb.Aggs, rb.Win, rb.Post = nil, nil, nil
	r := &returning{env: b.Env}
	for _, n := range list {
		rt := n.GetResTarget()
		if cr := rt.Val.GetColumnRef(); cr != nil && cr.Fields[len(cr.Fields)-1].GetAStar() != nil {
			qual := ""
			if len(cr.Fields) > 1 {
				qual = cr.Fields[len(cr.Fields)-2].GetString_().Sval
			}
			found := 0
			for i, c := range sc.Cols {
				if qual == "" && !c.Hidden || qual != "" && c.Table == qual && !c.System {
					if c.Used != nil {
						*c.Used = true
					}
					r.exprs = append(r.exprs, &exec.ColRef{Idx: i, T: c.T})
					r.cols = append(r.cols, Column{Name: c.Name, Type: c.T, TableOID: c.Orig.Rel, Attnum: c.Orig.Att, Rec: c.Rec})
					found++
				}
			}
			if qual != "" && found == 0 {
				return nil, planner.ErrAt(pgerr.New(pgerr.UndefinedTable, "missing FROM-clause entry for table \"%s\"", qual), cr.Location)
			}
			continue
		}
		if containsSRF(rt.Val) {
			return nil, planner.ErrAt(pgerr.New(pgerr.FeatureNotSupported, "set-returning functions are not allowed in RETURNING"), planner.NodeLoc(rt.Val))
		}
		e, err := rb.Bind(rt.Val, sc)
		if err != nil {
			return nil, err
		}
		if e.Type().ID == types.Unknown {
			if e, err = rb.Cast(e, types.TextT, false, -1); err != nil {
				return nil, err
			}
		}
		col := Column{Name: planner.TargetName(rt), Type: e.Type()}
		if cr := rt.Val.GetColumnRef(); cr != nil {
			if i, err := rb.FindColumn(sc, planner.StrNodes(cr.Fields), -1); err == nil {
				col.TableOID, col.Attnum, col.Rec = sc.Cols[i].Orig.Rel, sc.Cols[i].Orig.Att, sc.Cols[i].Rec
			}
		}
		r.exprs = append(r.exprs, e)
		r.cols = append(r.cols, col)
	}
	if b.Qc == nil || !b.Qc.(*planner.QueryCtx).DescribeOnly {
		// constants fail while planning, as in a query (planner/optree/foldcheck.go)
		for _, e := range r.exprs {
			if err := exec.FoldError(b.Env, e); err != nil {
				return nil, err
			}
		}
	}
	r.buf = exec.NewRowBuffer(planner.TypesOfColumns(r.cols), nil)
	r.proj = exec.Project{Env: r.env, Input: &r.one, Exprs: r.exprs}
	return r, nil
}

// containsSRF reports a set-returning function call outside subqueries.
func containsSRF(n *pg.Node) bool {
	found := false
	planner.Walk(n, func(x *pg.Node) bool {
		if x.GetSubLink() != nil {
			return false
		}
		if fc := x.GetFuncCall(); fc != nil && fc.Over == nil && planner.IsSRF(planner.FuncName(fc)) {
			found = true
		}
		return !found
	})
	return found
}

// add evaluates the list over b (laid out as the scope it was bound over)
// and keeps the results.
func (r *returning) add(ctx context.Context, b *vec.Batch) error {
	if b == nil || b.N == 0 {
		return nil
	}
	r.one.b = b
	out, err := r.proj.Next(ctx)
	if err != nil {
		return err
	}
	return r.buf.Append(ctx, out)
}

// tap shows each batch of op to the returning list on its way through.
func (r *returning) tap(op exec.Operator) exec.Operator {
	return &errTap{Operator: op, fn: r.add}
}

// result is the statement's result: the kept rows, then tag.
func (r *returning) result(tag string) *Result {
	return &Result{cols: r.cols, op: r.buf.Reader(), tag: tag, rows: r.buf}
}

// oneBatch is an operator that gives its batch once per Next (a Project's
// input for evaluating expressions over a batch in hand).
type oneBatch struct{ b *vec.Batch }

func (o *oneBatch) Types() []types.T { return nil }
func (o *oneBatch) Close() error     { return nil }
func (o *oneBatch) Next(context.Context) (*vec.Batch, error) {
	b := o.b
	o.b = nil
	return b, nil
}

// errTap passes batches through, showing each to fn first; an error from
// fn fails the pipeline.
type errTap struct {
	exec.Operator
	fn func(context.Context, *vec.Batch) error
}

func (t *errTap) Next(ctx context.Context) (*vec.Batch, error) {
	b, err := t.Operator.Next(ctx)
	if err != nil || b == nil {
		return b, err
	}
	if err := t.fn(ctx, b); err != nil {
		return nil, err
	}
	return b, nil
}

// hasReturning reports an INSERT, UPDATE or DELETE with RETURNING.
func hasReturning(n *pg.Node) bool {
	switch x := n.Node.(type) {
	case *pg.Node_InsertStmt:
		return len(x.InsertStmt.ReturningList) > 0
	case *pg.Node_UpdateStmt:
		return len(x.UpdateStmt.ReturningList) > 0
	case *pg.Node_DeleteStmt:
		return len(x.DeleteStmt.ReturningList) > 0
	}
	return false
}

// targetScope is the scope of a write's target table columns named by
// alias, for RETURNING.
func targetScope(alias string, t *catalog.Table, cols []exec.ScanCol) *planner.Scope {
	sc := &planner.Scope{}
	for i, c := range cols {
		sc.Cols = append(sc.Cols, planner.ScopeCol{Table: alias, Name: c.Name, T: c.T, Orig: planner.TableColOrigin(t, i)})
	}
	return sc
}

// beginReturning opens an implicit block for a write with RETURNING run
// outside any block, so that its rows reach the client before it commits
// (see above). It reports whether it did.
func (s *Session) beginReturning(n *pg.Node) bool {
	if s.inTx || !hasReturning(n) && writableWith(n) == nil {
		return false
	}
	s.inTx, s.implicit = true, true
	return true
}

// endReturning ends the block beginReturning opened: at once when the
// statement failed, else when its rows have all been read (or at Sync, for
// a portal suspended part-way).
func (s *Session) endReturning(ctx context.Context, res *Result, err error) (*Result, error) {
	if err != nil || res == nil {
		if s.implicit {
			s.implicit, s.inTx, s.failed = false, false, false
			s.endTxn(ctx, false)
		}
		return nil, err
	}
	if res.op == nil {
		s.implicit, s.inTx, s.failed = false, false, false
		if err := s.endTxn(ctx, true); err != nil {
			return nil, err
		}
		return res, nil
	}
	blk := s.txn
	after := res.after
	res.after = func() error {
		if after != nil {
			if err := after(); err != nil {
				return err
			}
		}
		if !s.implicit || s.txn != blk {
			return nil // ended meanwhile (Sync, or made explicit by BEGIN)
		}
		s.implicit, s.inTx, s.failed = false, false, false
		return s.endTxn(ctx, true)
	}
	return res, nil
}

// versions is an UPDATE's new row versions for the writer (the table's
// columns, then the row id) from in, laid out as the target's columns, the
// position columns and the extra columns: newVals are shown to the
// RETURNING list with the position and extra columns, once, so that a
// volatile SET value is returned as it is written.
func (r *returning) versions(env *exec.Env, in exec.Operator, newVals []exec.Expr, ncols int) exec.Operator {
	full := append([]exec.Expr(nil), newVals[:ncols]...)
	for k := 0; k < 3; k++ {
		full = append(full, &exec.ColRef{Idx: ncols + k, T: types.Int64T})
	}
	for j, t := range r.extraT {
		full = append(full, &exec.ColRef{Idx: ncols + 3 + j, T: t})
	}
	trim := make([]exec.Expr, 0, ncols+1)
	for i := 0; i < ncols; i++ {
		trim = append(trim, &exec.ColRef{Idx: i, T: newVals[i].Type()})
	}
	trim = append(trim, &exec.ColRef{Idx: ncols + 2, T: types.Int64T})
	return &exec.Project{Env: env, Input: r.tap(&exec.Project{Env: env, Input: in, Exprs: full}), Exprs: trim}
}
