package sql

import (
	"context"
	"fmt"

	"github.com/lakepg/lakepg/sql/planner"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// tempAppend appends the rows of src (in the table's column layout) to the
// temporary table whose definition a statement resolved, and returns how
// many. The table's last chunk, when small, is rebuilt with the new rows
// rather than followed by another small one.
func (s *Session) tempAppend(ctx context.Context, id int64, src exec.Operator, check func(*vec.Batch) error) (int64, error) {
	t := s.tempByID(id)
	if t == nil {
		return 0, pgerr.New(pgerr.UndefinedTable, "temporary table was dropped while in use")
	}
	keep := t.Chunks
	var seed *exec.TableChunk
	if n := len(keep); n > 0 && keep[n-1].N < vec.BatchSize {
		seed, keep = keep[n-1], keep[:n-1]
	}
	w, err := exec.NewChunkWriter(planner.TypesOf(t.Cols), s.tempMemory(), seed)
	if err != nil {
		return 0, err
	}
	var rows int64
	err = exec.Drain(ctx, src, func(b *vec.Batch) error {
		if check != nil {
			if err := check(b); err != nil {
				return err
			}
		}
		rows += int64(b.N)
		return w.Append(b)
	})
	if err != nil {
		w.Abort()
		return 0, err
	}
	if rows == 0 {
		w.Abort()
		return 0, nil
	}
	cs, err := w.Chunks()
	if err != nil {
		return 0, err
	}
	s.tempHold(cs)
	s.tempPut(t.Tbl.Name, t.WithChunks(append(append(keep[:0:0], keep...), cs...)))
	return rows, nil
}

// tempWrite runs UPDATE and DELETE on a temporary table; ok is false when
// the statement changes a lake table.
func (s *Session) tempWrite(ctx context.Context, n *pg.Node, p *planner.Params, describeOnly bool) (*Result, bool, error) {
	var rv *pg.RangeVar
	switch x := n.Node.(type) {
	case *pg.Node_UpdateStmt:
		rv = x.UpdateStmt.Relation
	case *pg.Node_DeleteStmt:
		rv = x.DeleteStmt.Relation
	default:
		return nil, false, nil
	}
	t := s.TempLookup(rv.Schemaname, rv.Relname)
	if t == nil {
		return nil, false, nil
	}
	var res *Result
	var err error
	switch x := n.Node.(type) {
	case *pg.Node_UpdateStmt:
		st := x.UpdateStmt
		if st.WithClause != nil {
			return nil, true, pgerr.New(pgerr.FeatureNotSupported, "UPDATE with WITH is not supported yet")
		}
		res, err = s.tempModify(ctx, t, rv, st.FromClause, st.WhereClause, st.TargetList, true, st.ReturningList, p, describeOnly)
	case *pg.Node_DeleteStmt:
		st := x.DeleteStmt
		if st.WithClause != nil {
			return nil, true, pgerr.New(pgerr.FeatureNotSupported, "DELETE with WITH is not supported yet")
		}
		res, err = s.tempModify(ctx, t, rv, st.UsingClause, st.WhereClause, nil, false, st.ReturningList, p, describeOnly)
	}
	return res, true, err
}

// tempModify runs UPDATE (update) or DELETE on a temporary table, set-wise:
// a query over the table (joined with the FROM/USING items) returns the
// ordinal of every row to change, with its new values for UPDATE; the
// table's new version keeps its untouched chunks as they are, rebuilds the
// chunks that lost rows, and appends the new row versions at the end (as
// PostgreSQL's heap puts them).
func (s *Session) tempModify(ctx context.Context, t *planner.TempTable, rv *pg.RangeVar, from []*pg.Node, where *pg.Node, set []*pg.Node, update bool, retList []*pg.Node, p *planner.Params, describeOnly bool) (*Result, error) {
	alias := rv.Relname
	if rv.Alias != nil {
		alias = rv.Alias.Aliasname
	}
	if err := checkFromNames(alias, from); err != nil {
		return nil, err
	}
	env := s.NewEnv()
	qc := s.NewQueryCtx(ctx, p, describeOnly)
	b := &planner.Binder{Sess: &s.Session, Env: env, Params: p, Qc: qc}
	src := planner.TempScanSource(t, alias, true)
	var assign []*pg.ResTarget
	if update {
		var err error
		if assign, err = setTargets(t.Cols, set, t.Tbl.Name); err != nil {
			return nil, err
		}
	}
	resTarget := func(n *pg.Node) *pg.Node {
		return &pg.Node{Node: &pg.Node_ResTarget{ResTarget: &pg.ResTarget{Val: n, Location: -1}}}
	}
	// a bare literal or parameter takes the column's type, as in
	// PostgreSQL: bound apart from the query, as is DEFAULT
	direct := func(rt *pg.ResTarget) bool {
		return rt != nil && (rt.Val.GetAConst() != nil || rt.Val.GetParamRef() != nil || rt.Val.GetSetToDefault() != nil)
	}
	tl := []*pg.Node{resTarget(planner.ColRefNode(planner.ScopeCol{Table: alias, Name: planner.TempOrdColumn}))}
	wantRows := update || len(retList) > 0
	if wantRows {
		for i, c := range t.Cols {
			val := planner.ColRefNode(planner.ScopeCol{Table: alias, Name: c.Name})
			if update && assign[i] != nil && !direct(assign[i]) {
				if planner.ContainsAgg(assign[i].Val) {
					return nil, planner.ErrAt(pgerr.New(pgerr.GroupingError, "aggregate functions are not allowed in UPDATE"), planner.NodeLoc(assign[i].Val))
				}
				val = assign[i].Val
			}
			tl = append(tl, resTarget(val))
		}
	}
	self := &pg.Node{Node: &pg.Node_RangeVar{RangeVar: rv}}
	sel := &pg.SelectStmt{TargetList: tl, FromClause: append([]*pg.Node{self}, from...), WhereClause: where, Op: pg.SetOperation_SETOP_NONE}
	qc.DmlTarget = &planner.DmlTarget{Rv: rv, Src: src, Sel: sel, Alias: alias}
	q, err := qc.PlanSelect(sel)
	qc.DmlTarget = nil
	if err != nil {
		return nil, err
	}
	op := q.Op
	// the changed rows: ordinal, then the row as it is written (UPDATE) or
	// as it was (DELETE with RETURNING)
	exprs := []exec.Expr{&exec.ColRef{Idx: 0, T: types.Int64T}}
	if wantRows {
		for i, c := range t.Cols {
			var e exec.Expr = &exec.ColRef{Idx: 1 + i, T: q.Cols[1+i].Type}
			if update && assign[i] != nil {
				rt := assign[i]
				switch {
				case rt.Val.GetSetToDefault() != nil:
					if e, err = s.defaultExpr(b, t.Tbl.Columns[i], c.T); err != nil {
						op.Close()
						return nil, err
					}
				case direct(rt):
					if e, err = b.Bind(rt.Val, &planner.Scope{}); err != nil {
						op.Close()
						return nil, err
					}
				}
				if e, err = b.CoerceAssign(e, c.T, c.Name, planner.NodeLoc(rt.Val)); err != nil {
					op.Close()
					return nil, err
				}
			}
			exprs = append(exprs, e)
		}
	}
	op = &exec.Project{Env: env, Input: op, Exprs: exprs}
	ret, err := s.bindReturning(b, targetScope(alias, t.Tbl, t.Cols), retList) // returning.go
	if err != nil {
		op.Close()
		return nil, err
	}
	if describeOnly {
		op.Close()
		if ret != nil {
			return &Result{cols: ret.cols}, nil
		}
		return nil, nil
	}
	defer op.Close()
	if err := planner.FoldErrors(env, op); err != nil {
		return nil, err
	}
	// a row joined to several FROM rows changes once, with the first
	hit := make([]bool, t.Rows)
	var count int64
	ts := planner.TypesOf(t.Cols)
	var upd *exec.ChunkWriter
	if update {
		if upd, err = exec.NewChunkWriter(ts, s.tempMemory(), nil); err != nil {
			return nil, err
		}
	}
	check := notNullCheck(t.Tbl)
	var sel32 []int
	err = exec.Drain(ctx, op, func(bt *vec.Batch) error {
		sel32 = sel32[:0]
		ords := bt.Vecs[0].I64
		for i := 0; i < bt.N; i++ {
			if o := ords[i]; !hit[o] {
				hit[o] = true
				sel32 = append(sel32, i)
			}
		}
		if len(sel32) == 0 {
			return nil
		}
		count += int64(len(sel32))
		if !wantRows {
			return nil
		}
		rows := &vec.Batch{N: len(sel32)}
		for k := range ts {
			v := vec.New(ts[k], len(sel32))
			v.Gather(bt.Vecs[1+k], sel32)
			rows.Vecs = append(rows.Vecs, v)
		}
		if update {
			if err := check(rows); err != nil {
				return err
			}
			if err := upd.Append(rows); err != nil {
				return err
			}
		}
		if ret != nil {
			return ret.add(ctx, rows)
		}
		return nil
	})
	if err != nil {
		if upd != nil {
			upd.Abort()
		}
		return nil, err
	}
	verb := "DELETE"
	if update {
		verb = "UPDATE"
	}
	tag := fmt.Sprintf("%s %d", verb, count)
	if count > 0 {
		cs, err := s.tempKeep(ctx, t, hit)
		if err != nil {
			if upd != nil {
				upd.Abort()
			}
			return nil, err
		}
		if upd != nil {
			nc, err := upd.Chunks()
			if err != nil {
				s.tempDropChunks(cs)
				return nil, err
			}
			s.tempHold(nc)
			cs = append(cs, nc...)
		}
		s.tempPut(t.Tbl.Name, t.WithChunks(cs))
	} else if upd != nil {
		upd.Abort()
	}
	if ret != nil {
		return ret.result(tag), nil
	}
	return tagResult(tag), nil
}

// tempKeep is t's chunks without the rows hit marks: untouched chunks are
// kept as they are, the others rebuilt (a chunk on disk read a batch at a
// time).
func (s *Session) tempKeep(ctx context.Context, t *planner.TempTable, hit []bool) ([]*exec.TableChunk, error) {
	var out []*exec.TableChunk
	base := 0
	ts := planner.TypesOf(t.Cols)
	var keep []int
	fail := func(err error) ([]*exec.TableChunk, error) {
		s.tempDropChunks(out)
		return nil, err
	}
	for _, c := range t.Chunks {
		kept := 0
		for i := 0; i < c.N; i++ {
			if !hit[base+i] {
				kept++
			}
		}
		switch {
		case kept == c.N:
			out = append(out, c)
			base += c.N
			continue
		case kept == 0:
			base += c.N
			continue
		}
		if err := ctx.Err(); err != nil {
			return fail(err)
		}
		w, err := exec.NewChunkWriter(ts, s.tempMemory(), nil)
		if err != nil {
			return fail(err)
		}
		err = exec.Drain(ctx, &exec.ChunkScan{T: ts, Chunks: []*exec.TableChunk{c}}, func(b *vec.Batch) error {
			keep = keep[:0]
			for i := 0; i < b.N; i++ {
				if !hit[base+i] {
					keep = append(keep, i)
				}
			}
			base += b.N
			if len(keep) == 0 {
				return nil
			}
			rows := &vec.Batch{N: len(keep)}
			for k := range ts {
				v := vec.New(ts[k], len(keep))
				v.Gather(b.Vecs[k], keep)
				rows.Vecs = append(rows.Vecs, v)
			}
			return w.Append(rows)
		})
		if err != nil {
			w.Abort()
			return fail(err)
		}
		cs, err := w.Chunks()
		if err != nil {
			return fail(err)
		}
		s.tempHold(cs)
		out = append(out, cs...)
	}
	return out, nil
}
