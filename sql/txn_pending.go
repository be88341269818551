package sql

import (
	"context"

	"github.com/lakepg/lakepg/sql/planner"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/parquetio"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/snapshot"
	"github.com/lakepg/lakepg/sql/datafile"
	"github.com/lakepg/lakepg/types"
)

// Rows an open transaction block wrote itself live in staged data files
// that no catalog row names yet. An UPDATE or DELETE of such rows rewrites
// the staged file instead of writing a delete file: rows that never
// committed get no delete files and keep no stale row ids, as in DuckDB's
// transaction-local storage.

// rewritePending applies a DELETE (newVals nil) or UPDATE with a plain
// predicate to the k-th data file the open block staged for the table. It
// returns the number of rows that matched. With RETURNING it runs as a
// pendingPass, which shows the matched rows to the list.
func (s *Session) rewritePending(ctx context.Context, env *exec.Env, ref *planner.TableRef, k int, pred exec.Expr, newVals []exec.Expr, ret *returning) (int64, error) {
	if ret != nil {
		var op exec.Operator = pendingScan(s, ref, k, nil)
		if pred != nil {
			op = &exec.Filter{Env: env, Input: op, Pred: planner.CloneExpr(pred)}
		}
		pp := pendingPass{ref: ref, env: env, op: op}
		for _, e := range newVals {
			pp.newVals = append(pp.newVals, planner.CloneExpr(e))
		}
		defer op.Close()
		return pp.run(ctx, s, k, ret)
	}
	var matched []int64
	var op exec.Operator = pendingScan(s, ref, k, nil)
	if pred != nil {
		op = &exec.Filter{Env: env, Input: op, Pred: planner.CloneExpr(pred)}
	}
	ncols := len(ref.Scan.Cols)
	err := exec.Drain(ctx, op, func(b *vec.Batch) error {
		matched = append(matched, b.Vecs[ncols+1].I64[:b.N]...)
		return nil
	})
	op.Close()
	if err != nil || len(matched) == 0 {
		return 0, err
	}
	var files []snapshot.NewDataFile
	if newVals == nil {
		files, err = s.rewritePendingFile(ctx, env, ref, k, pendingScan(s, ref, k, matched), nil)
	} else {
		exprs := make([]exec.Expr, len(newVals))
		for i, c := range ref.Scan.Cols {
			exprs[i] = planner.CloneExpr(newVals[i])
			if pred != nil {
				exprs[i] = &exec.Case{When: []exec.Expr{planner.CloneExpr(pred)}, Then: []exec.Expr{exprs[i]}, Else: &exec.ColRef{Idx: i, T: c.T}, T: c.T}
			}
		}
		files, err = s.rewritePendingFile(ctx, env, ref, k, pendingScan(s, ref, k, nil), exprs)
	}
	if err != nil {
		return 0, err
	}
	s.txn.c.ReplaceAddedFiles(ref.Table.ID, ref.Pending[k].RelPath, files)
	return int64(len(matched)), nil
}

// pendingScan reads the k-th staged file of the table without the rows at
// the positions deleted, with file ordinal, position and row id.
func pendingScan(s *Session, ref *planner.TableRef, k int, deleted []int64) *exec.TableScan {
	sf := ref.PendingScan[k]
	sf.Deleted = deleted
	return &exec.TableScan{Store: s.eng.Store, Snapshot: ref.Snap.ID, Label: ref.Scan.Label, Cols: ref.Scan.Cols, Files: []exec.ScanFile{sf}, WithPos: true}
}

// rewritePendingFile writes what replaces the k-th staged file of the
// table: the rows of src, through exprs (nil: the columns as they are). A
// file that carries row ids (new versions of committed rows) keeps them.
// The replaced file is deleted once the block commits; the new ones when
// it does not.
func (s *Session) rewritePendingFile(ctx context.Context, env *exec.Env, ref *planner.TableRef, k int, src exec.Operator, exprs []exec.Expr) ([]snapshot.NewDataFile, error) {
	f := ref.Pending[k]
	cols := ref.Scan.Cols
	ncols := len(cols)
	if exprs == nil {
		for i, c := range cols {
			exprs = append(exprs, &exec.ColRef{Idx: i, T: c.T})
		}
	}
	pcols := datafile.ParquetColumns(cols)
	if f.EmbeddedRowIDs {
		exprs = append(exprs, &exec.ColRef{Idx: ncols + 2, T: types.Int64T})
		pcols = append(pcols, parquetio.Column{FieldID: exec.RowIDFieldID, Name: "_ducklake_internal_row_id", Type: types.Int64T})
	}
	// a partitioned table's rows go back to their partitions (an UPDATE
	// may move them to another)
	tw, err := s.writeTableFiles(ctx, ref.Schema, ref.Table, pcols, &exec.Project{Env: env, Input: src, Exprs: exprs}, notNullCheck(ref.Table))
	src.Close()
	if err != nil {
		return nil, err
	}
	t := s.txn
	t.superseded = append(t.superseded, ref.PendingScan[k].Path)
	s.undoFiles(ctx, tw)
	return tw.dataFiles(cols, f.EmbeddedRowIDs), nil
}

// undoFiles deletes what tw wrote if the block does not commit.
func (s *Session) undoFiles(ctx context.Context, tw *tableWrite) {
	for _, w := range tw.files {
		path := w.Path
		s.txn.undo = append(s.txn.undo, func() { s.eng.Store.Delete(context.WithoutCancel(ctx), path) })
	}
}

// pendingPass is an UPDATE or DELETE planned as a query (FROM items,
// correlated subqueries) over one staged file of the target table, the
// only one its ref holds.
type pendingPass struct {
	ref     *planner.TableRef
	env     *exec.Env
	op      exec.Operator
	newVals []exec.Expr // nil for DELETE
}

// planPendingPasses plans the statement once per staged file of the table,
// each over that file alone, all before any of them runs: every pass, and
// the pass over the committed files, must see the table as it was before
// the statement.
func (s *Session) planPendingPasses(ctx context.Context, head catalog.Snapshot, rv *pg.RangeVar, alias string, from []*pg.Node, where *pg.Node, set []*pg.Node, returning bool, p *planner.Params) ([]pendingPass, error) {
	var passes []pendingPass
	fail := func(err error) ([]pendingPass, error) {
		for _, pp := range passes {
			pp.op.Close()
		}
		return nil, err
	}
	for k := 0; ; k++ {
		src, err := s.TableSource(ctx, head, rv.Schemaname, rv.Relname, alias, rv.Location, false)
		if err != nil {
			return fail(err)
		}
		ref := src.Ref
		if k >= len(ref.Pending) {
			return passes, nil
		}
		// the reference holds that file alone, since pushed-down filters
		// rebuild the scan's list from it
		ref.Files, ref.ScanFiles, ref.Inlined = []catalog.DataFile{}, nil, nil
		ref.Pending, ref.PendingScan = ref.Pending[k:k+1], ref.PendingScan[k:k+1]
		ref.Scan.WithPos = true
		ref.Scan.Files = ref.PendingScan
		ref.Scan.Inlined = nil
		env := s.NewEnv()
		b := &planner.Binder{Sess: &s.Session, Env: env, Params: p, NoAggMsg: "aggregate functions are not allowed in WHERE", Qc: s.NewQueryCtx(ctx, p, false)}
		op, newVals, _, _, err := s.planJoinedModify(b, src, rv, alias, from, where, set, returning)
		if err != nil {
			return fail(err)
		}
		passes = append(passes, pendingPass{ref: ref, env: env, op: op, newVals: newVals})
	}
}

// run applies the pass to the k-th staged file of its ref: the matched rows
// leave the staged file, which is rewritten without them, and an UPDATE's
// new versions are written beside it (with the row ids the file carries, if
// it carries them). ret, when set, is shown the deleted rows or the new
// versions. The caller closes the pass's operator.
func (pp *pendingPass) run(ctx context.Context, s *Session, k int, ret *returning) (int64, error) {
	ref, f := pp.ref, pp.ref.Pending[k]
	cols := ref.Scan.Cols
	ncols := len(cols)
	var matched []int64
	tap := &tapOp{Operator: pp.op, fn: func(b *vec.Batch) {
		matched = append(matched, b.Vecs[ncols+1].I64[:b.N]...)
	}}
	var versions []snapshot.NewDataFile
	if pp.newVals == nil {
		var del exec.Operator = tap
		if ret != nil {
			del = ret.tap(tap)
		}
		if err := exec.Drain(ctx, del, func(*vec.Batch) error { return nil }); err != nil {
			return 0, err
		}
	} else {
		exprs := append([]exec.Expr(nil), pp.newVals...)
		pcols := datafile.ParquetColumns(cols)
		var in exec.Operator = tap
		if ret != nil {
			// the new versions with the row id, as RETURNING saw them
			in = ret.versions(pp.env, tap, pp.newVals, ncols)
			exprs = exprs[:0]
			for i, c := range cols {
				exprs = append(exprs, &exec.ColRef{Idx: i, T: c.T})
			}
			if f.EmbeddedRowIDs {
				exprs = append(exprs, &exec.ColRef{Idx: ncols, T: types.Int64T})
			}
		} else if f.EmbeddedRowIDs {
			exprs = append(exprs, &exec.ColRef{Idx: ncols + 2, T: types.Int64T})
		}
		if f.EmbeddedRowIDs {
			pcols = append(pcols, parquetio.Column{FieldID: exec.RowIDFieldID, Name: "_ducklake_internal_row_id", Type: types.Int64T})
		}
		tw, err := s.writeTableFiles(ctx, ref.Schema, ref.Table, pcols, &exec.Project{Env: pp.env, Input: in, Exprs: exprs}, notNullCheck(ref.Table))
		if err != nil {
			return 0, err
		}
		s.undoFiles(ctx, tw)
		versions = tw.dataFiles(cols, f.EmbeddedRowIDs)
	}
	if len(matched) == 0 {
		return 0, nil // the new-versions file, if any, holds no rows and is undone with the block
	}
	files, err := s.rewritePendingFile(ctx, pp.env, ref, k, pendingScan(s, ref, k, uniqueSorted(matched)), nil)
	if err != nil {
		return 0, err
	}
	s.txn.c.ReplaceAddedFiles(ref.Table.ID, f.RelPath, append(files, versions...))
	return int64(len(matched)), nil
}
