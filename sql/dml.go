package sql

import (
	"context"
	"fmt"
	"slices"
	"sort"

	"github.com/lakepg/lakepg/sql/planner"
	"github.com/lakepg/lakepg/sql/privileges"
	"github.com/lakepg/lakepg/sql/sequences"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/parquetio"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/snapshot"
	"github.com/lakepg/lakepg/sql/datafile"
	"github.com/lakepg/lakepg/types"
)

// planWrite runs INSERT, UPDATE or DELETE. With describeOnly it only binds
// (to infer parameter types) and returns nil.
func (s *Session) planWrite(ctx context.Context, n *pg.Node, p *planner.Params, describeOnly bool) (*Result, error) {
	if res, ok, err := s.tempWrite(ctx, n, p, describeOnly); ok { // temp_dml.go
		return res, err
	}
	switch x := n.Node.(type) {
	case *pg.Node_InsertStmt:
		if x.InsertStmt.OnConflictClause != nil && !describeOnly && !s.inTx {
			// its update and its insert commit as one snapshot (upsert.go)
			s.inTx, s.implicit, s.upsertBlock = true, true, true
			res, err := s.insert(ctx, x.InsertStmt, p, describeOnly)
			s.upsertBlock = false
			return s.endReturning(ctx, res, err)
		}
		return s.insert(ctx, x.InsertStmt, p, describeOnly)
	case *pg.Node_MergeStmt:
		return s.merge(ctx, x.MergeStmt, p, describeOnly) // merge.go
	case *pg.Node_DeleteStmt:
		st := x.DeleteStmt
		done, err := s.statementCTEs(ctx, st.WithClause, p, describeOnly) // with_write.go
		if err != nil {
			return nil, err
		}
		defer done()
		// USING items join the target as UPDATE's FROM items do (dml_join.go)
		return s.modify(ctx, st.Relation, st.UsingClause, st.WhereClause, nil, st.ReturningList, p, describeOnly)
	case *pg.Node_UpdateStmt:
		st := x.UpdateStmt
		done, err := s.statementCTEs(ctx, st.WithClause, p, describeOnly) // with_write.go
		if err != nil {
			return nil, err
		}
		defer done()
		return s.modify(ctx, st.Relation, st.FromClause, st.WhereClause, st.TargetList, st.ReturningList, p, describeOnly)
	}
	return nil, pgerr.New(pgerr.FeatureNotSupported, "statement not supported")
}

// notNullCheck rejects NULLs in NOT NULL columns.
func notNullCheck(t *catalog.Table) func(b *vec.Batch) error {
	return func(b *vec.Batch) error {
		for i, c := range t.Columns {
			if c.NullsAllowed || i >= len(b.Vecs) {
				continue
			}
			v := b.Vecs[i]
			for r := 0; r < b.N; r++ {
				if v.IsNull(r) {
					e := pgerr.New(pgerr.NotNullViolation, "null value in column \"%s\" of relation \"%s\" violates not-null constraint", c.Name, t.Name)
					return e
				}
			}
		}
		return nil
	}
}

func (s *Session) insert(ctx context.Context, st *pg.InsertStmt, p *planner.Params, describeOnly bool) (*Result, error) {
	sel := st.SelectStmt.GetSelectStmt()
	if st.WithClause != nil && sel != nil {
		// WITH before INSERT: the query's (its data-modifying queries run
		// first, with_write.go)
		if w := writableWith(&pg.Node{Node: &pg.Node_InsertStmt{InsertStmt: st}}); w != nil {
			done, err := s.runWritableCTEs(ctx, w, p, describeOnly)
			if err != nil {
				return nil, err
			}
			defer done()
			defer func() { s.WrittenCTEs, s.cteReads = nil, nil }()
		}
		sel = proto.Clone(sel).(*pg.SelectStmt)
		with := proto.Clone(st.WithClause).(*pg.WithClause)
		if sel.WithClause != nil {
			with.Ctes = append(with.Ctes, sel.WithClause.Ctes...)
		}
		sel.WithClause = with
	}
	sch, t, cols, err := s.writeTarget(ctx, st.Relation)
	if err != nil {
		return nil, err
	}
	if len(st.ReturningList) > 0 && !describeOnly && s.TempLookup(st.Relation.Schemaname, st.Relation.Relname) == nil {
		if err := s.CheckRelation(ctx, sch, t.ID, planner.RelationWord(t, nil), t.Name, "r"); err != nil { // RETURNING reads (sql/privileges/privileges.go)
			return nil, err
		}
	}
	// target column positions
	var target []int
	if len(st.Cols) == 0 {
		for i := range cols {
			target = append(target, i)
		}
	} else {
		seen := map[int]bool{}
		for _, cn := range st.Cols {
			rt := cn.GetResTarget()
			found := -1
			for i, c := range cols {
				if c.Name == rt.Name {
					found = i
				}
			}
			if found < 0 {
				return nil, planner.ErrAt(pgerr.New(pgerr.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", rt.Name, t.Name), rt.Location)
			}
			if seen[found] {
				return nil, planner.ErrAt(pgerr.New(pgerr.DuplicateColumn, "column \"%s\" specified more than once", rt.Name), rt.Location)
			}
			seen[found] = true
			target = append(target, found)
		}
	}
	// identity columns: GENERATED ALWAYS takes no value unless OVERRIDING
	// SYSTEM VALUE; OVERRIDING USER VALUE drops the values given (sql/sequences/serial.go)
	ident, err := s.seq.IdentityColumns(ctx, t)
	if err != nil {
		return nil, err
	}
	explicit := func(ci int) (use bool, err error) {
		switch {
		case ident[ci] == "":
			return true, nil
		case st.Override == pg.OverridingKind_OVERRIDING_USER_VALUE:
			return false, nil
		case ident[ci] == "a" && st.Override != pg.OverridingKind_OVERRIDING_SYSTEM_VALUE:
			return false, sequences.IdentityInsertError(cols[ci].Name)
		}
		return true, nil
	}
	env := s.NewEnv()
	// uncorrelated subqueries in VALUES run once, through a query context
	b := &planner.Binder{Sess: &s.Session, Env: env, Params: p, NoAggMsg: "aggregate functions are not allowed in VALUES", Qc: s.NewQueryCtx(ctx, p, describeOnly)}
	defaults := make([]exec.Expr, len(cols))
	for i, c := range t.Columns {
		if defaults[i], err = s.defaultExpr(b, c, cols[i].T); err != nil {
			return nil, err
		}
	}
	var src exec.Operator
	if sel == nil {
		// INSERT ... DEFAULT VALUES
		row := append([]exec.Expr{}, defaults...)
		src = &exec.Values{Env: env, Rows: [][]exec.Expr{row}, T: planner.TypesOf(cols)}
	} else if len(sel.ValuesLists) > 0 && len(sel.SortClause) == 0 && sel.LimitCount == nil && sel.WithClause == nil {
		var rows [][]exec.Expr
		for _, l := range sel.ValuesLists {
			items := l.GetList().Items
			if len(items) > len(target) {
				return nil, planner.ErrAt(pgerr.New(pgerr.SyntaxError, "INSERT has more expressions than target columns"), planner.NodeLoc(items[len(target)]))
			}
			if n := len(sel.ValuesLists[0].GetList().Items); len(items) != n {
				return nil, planner.ErrAt(pgerr.New(pgerr.SyntaxError, "VALUES lists must all be the same length"), planner.NodeLoc(items[0]))
			}
			// without a column list the values fill the first columns and
			// the rest take their defaults, as in PostgreSQL
			if len(items) < len(target) && len(st.Cols) > 0 {
				return nil, pgerr.New(pgerr.SyntaxError, "INSERT has more target columns than expressions")
			}
			row := append([]exec.Expr{}, defaults...)
			for k, it := range items {
				ci := target[k]
				if it.GetSetToDefault() != nil {
					continue
				}
				if use, err := explicit(ci); err != nil {
					return nil, err
				} else if !use {
					continue
				}
				e, err := b.Bind(it, &planner.Scope{})
				if err != nil {
					return nil, err
				}
				if e, err = b.CoerceAssign(e, cols[ci].T, cols[ci].Name, planner.NodeLoc(it)); err != nil {
					return nil, err
				}
				row[ci] = e
			}
			rows = append(rows, row)
		}
		src = &exec.Values{Env: env, Rows: rows, T: planner.TypesOf(cols)}
	} else {
		q, err := s.PlanQuery(ctx, sel, p, describeOnly)
		if err != nil {
			return nil, err
		}
		if len(q.Cols) > len(target) {
			return nil, pgerr.New(pgerr.SyntaxError, "INSERT has more expressions than target columns")
		}
		if len(q.Cols) < len(target) && len(st.Cols) > 0 {
			return nil, pgerr.New(pgerr.SyntaxError, "INSERT has more target columns than expressions")
		}
		proj := append([]exec.Expr{}, defaults...)
		for k, ci := range target[:len(q.Cols)] {
			if use, err := explicit(ci); err != nil {
				q.Op.Close()
				return nil, err
			} else if !use {
				continue
			}
			var e exec.Expr = &exec.ColRef{Idx: k, T: q.Cols[k].Type}
			if e, err = b.CoerceAssign(e, cols[ci].T, cols[ci].Name, -1); err != nil {
				return nil, err
			}
			proj[ci] = e
		}
		src = &exec.Project{Env: env, Input: q.Op, Exprs: proj}
	}
	// ON CONFLICT: the conflicting rows are skipped or updated, the rest
	// inserted (upsert.go)
	var upserted *upsertResult
	if st.OnConflictClause != nil && describeOnly {
		if err := s.describeOnConflict(ctx, st, p, t, cols); err != nil {
			src.Close()
			return nil, err
		}
	} else if st.OnConflictClause != nil {
		if upserted, err = s.onConflict(ctx, st, p, sch, t, cols, src); err != nil {
			return nil, err
		}
		src = upserted.rest
		if upserted.rows != nil {
			defer upserted.rows.op.Close()
		}
	}
	alias := t.Name
	if st.Relation.Alias != nil {
		alias = st.Relation.Alias.Aliasname
	}
	rb := *b
	rb.NoAggMsg = ""
	ret, err := s.bindReturning(&rb, targetScope(alias, t, cols), st.ReturningList) // returning.go
	if err != nil {
		src.Close()
		return nil, err
	}
	if describeOnly {
		src.Close()
		if ret != nil {
			return &Result{cols: ret.cols}, nil
		}
		return nil, nil
	}
	if ret != nil {
		src = ret.tap(src)
	}
	// new keys are checked among themselves as they pass, and against the
	// table at the commit (unique.go)
	defer func() { s.keyChecks = nil }()
	if kc, err := s.keyCheckFor(ctx, t, cols); err != nil {
		src.Close()
		return nil, err
	} else if kc != nil {
		src = kc.tap(src)
		s.keyChecks = append(s.keyChecks, kc)
	}
	defer src.Close()
	withRows := func(res *Result) (*Result, error) {
		if upserted != nil {
			res.tag = addToTag(res.tag, upserted.updated)
		}
		if ret == nil {
			return res, nil
		}
		if upserted != nil && upserted.rows != nil {
			// DO UPDATE's rows join the inserted ones in input order (upsert.go)
			if err := upserted.mergeReturning(ctx, ret); err != nil {
				return nil, err
			}
		}
		return ret.result(res.tag), nil
	}
	if isTempTable(t) { // temp_dml.go
		n, err := s.tempAppend(ctx, t.ID, src, notNullCheck(t))
		if err != nil {
			return nil, err
		}
		return withRows(tagResult(fmt.Sprintf("INSERT 0 %d", n)))
	}
	if upserted != nil && s.upsertBlock {
		// the last write of the statement's own block: nothing reads the
		// block after it, so a few rows may stay inlined as in autocommit
		s.inlineInBlock = true
		defer func() { s.inlineInBlock = false }()
	}
	if res, rest, err := s.inlineInsert(ctx, sch, t, cols, src); res != nil || err != nil {
		if err != nil {
			return nil, err
		}
		return withRows(res) // inlined into the catalog (inlinewrite.go)
	} else if rest != nil {
		src = rest
	}
	// one file, or one per partition (partition_write.go)
	tw, err := s.writeTableFiles(ctx, sch, t, datafile.ParquetColumns(cols), src, notNullCheck(t))
	if err != nil {
		return nil, err
	}
	if tw.rows == 0 {
		return withRows(tagResult("INSERT 0 0"))
	}
	err = s.commitInsert(ctx, func(c *snapshot.Commit, m *catalog.Metadata) error {
		cur, ok := m.TableByName(sch.ID, t.Name)
		if !ok || cur.ID != t.ID || !datafile.SameColumns(cur, t) || !tw.sameSpec(cur) {
			return pgerr.New(pgerr.SerializationFailure, "could not serialize access: table \"%s\" changed while inserting", t.Name)
		}
		for _, f := range tw.dataFiles(cols, false) {
			c.AddDataFile(*cur, f)
		}
		return nil
	}, func() { tw.remove(ctx, s.eng.Store) })
	if err != nil {
		return nil, err
	}
	s.settled(writtenPaths(tw)...) // inflight.go
	return withRows(tagResult(fmt.Sprintf("INSERT 0 %d", tw.rows)))
}

// defaultExpr builds a column's DEFAULT (NULL when none).
func (s *Session) defaultExpr(b *planner.Binder, c catalog.Column, t types.T) (exec.Expr, error) {
	if c.DefaultValue == nil || *c.DefaultValue == "NULL" {
		return exec.NullConst(t), nil
	}
	if c.DefaultValueType == "expression" {
		tree, err := pg.Parse("SELECT " + *c.DefaultValue)
		if err != nil {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "cannot evaluate DEFAULT %s of column \"%s\"", *c.DefaultValue, c.Name)
		}
		node := tree.Stmts[0].Stmt.GetSelectStmt().TargetList[0].GetResTarget().Val
		e, err := b.Bind(node, &planner.Scope{})
		if err != nil {
			return nil, err
		}
		return b.CoerceAssign(e, t, c.Name, -1)
	}
	v := vec.New(t, 1)
	if err := exec.ParseInto(v, *c.DefaultValue, s.Loc, true); err != nil {
		return nil, err
	}
	return exec.NewConst(v), nil
}

// modify runs DELETE (set == nil) or UPDATE: it finds matching rows with
// their file positions, writes delete files (and for UPDATE a data file of
// new row versions keeping their row ids), and commits one snapshot. The
// RETURNING list retList sees the new versions (UPDATE) or the deleted rows.
func (s *Session) modify(ctx context.Context, rv *pg.RangeVar, from []*pg.Node, where *pg.Node, set []*pg.Node, retList []*pg.Node, p *planner.Params, describeOnly bool) (*Result, error) {
	head, err := s.writeHead(ctx)
	if err != nil {
		return nil, err
	}
	alias := rv.Relname
	if rv.Alias != nil {
		alias = rv.Alias.Aliasname
	}
	if err := checkFromNames(alias, from); err != nil { // dml_join.go
		return nil, err
	}
	src, err := s.TableSource(ctx, head, rv.Schemaname, rv.Relname, alias, rv.Location, describeOnly)
	if err != nil {
		return nil, err
	}
	ref := src.Ref
	if err := s.checkNotMatView(ref.Table.Name, ref.Table.MatView, rv.Location); err != nil { // matview.go
		return nil, err
	}
	if !describeOnly { // sql/privileges/privileges_check.go
		reads := where != nil || len(retList) > 0 || len(from) > 0 || privileges.ReadsColumns(set)
		if err := s.CheckRelation(ctx, ref.Schema, ref.Table.ID, planner.RelationWord(ref.Table, nil), ref.Table.Name, s.WriteLetters(set != nil, reads)); err != nil {
			return nil, err
		}
	}
	scan := ref.Scan
	scan.WithPos = true
	ncols := len(scan.Cols)
	if s.upsert != nil {
		s.upsert.onlyMatched(ref) // upsert.go
	}
	env := s.NewEnv()
	// uncorrelated subqueries in SET and WHERE run once, through a query context
	b := &planner.Binder{Sess: &s.Session, Env: env, Params: p, NoAggMsg: "aggregate functions are not allowed in WHERE", Qc: s.NewQueryCtx(ctx, p, describeOnly)}
	var op exec.Operator = scan
	var pred exec.Expr
	var newVals []exec.Expr
	// FROM items and correlated subqueries: planned as a query (dml_join.go)
	var fileOrd func(int) int
	joined, err := needsJoinedModify(b.Qc.(*planner.QueryCtx), from, where, set)
	if err != nil {
		return nil, err
	}
	// rows the open block wrote itself are changed by rewriting their staged
	// files (txn_pending.go); a query plan over them is made per staged
	// file, and the plan below reads the committed files only
	var pendingPasses []pendingPass
	if joined && len(ref.Pending) > 0 && !describeOnly {
		scan.Files = scan.Files[:len(scan.Files)-len(ref.PendingScan)]
		ref.Pending, ref.PendingScan = nil, nil // pushed-down filters must not bring them back
		if pendingPasses, err = s.planPendingPasses(ctx, head, rv, alias, from, where, set, len(retList) > 0, p); err != nil {
			return nil, err
		}
		defer func() {
			for _, pp := range pendingPasses {
				pp.op.Close()
			}
		}()
	}
	var extras []planner.ScopeCol // FROM items' columns for RETURNING (dml_join.go)
	if joined {
		if op, newVals, fileOrd, extras, err = s.planJoinedModify(b, src, rv, alias, from, where, set, len(retList) > 0); err != nil {
			return nil, err
		}
	} else if where != nil {
		// the query path's rewrites of the conjuncts: an OR of ranges that
		// join up is one range, conjuncts common to an OR's branches are
		// pulled out of it (scalar subqueries become constants as they are
		// bound, in both)
		if pred, err = b.Bind(b.Qc.(*planner.QueryCtx).RewriteWhere(where), src.Sc); err != nil {
			return nil, err
		}
		if pred, err = b.CoerceBool(pred, where, "argument of WHERE"); err != nil {
			return nil, err
		}
		// files and row groups the filter rules out are not read, as in a
		// query; the positions found are then by the kept files' order
		planner.PushFilters(ref, pred) // planner/from.go
		if ref.Pruned {
			kept := ref.Kept
			fileOrd = func(f int) int { return kept[f] }
		}
		op = &exec.Filter{Env: env, Input: op, Pred: pred}
	}
	if set != nil && !joined {
		for i := range scan.Needed {
			scan.Needed[i] = true
		}
		newVals = make([]exec.Expr, ncols)
		for i, c := range scan.Cols {
			newVals[i] = &exec.ColRef{Idx: i, T: c.T}
		}
		assigned := map[int]bool{}
		for _, tn := range set {
			rt := tn.GetResTarget()
			ci := -1
			for i, c := range scan.Cols {
				if c.Name == rt.Name {
					ci = i
				}
			}
			if ci < 0 {
				return nil, planner.ErrAt(pgerr.New(pgerr.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", rt.Name, ref.Table.Name), rt.Location)
			}
			if len(rt.Indirection) > 0 {
				return nil, planner.ErrAt(pgerr.New(pgerr.FeatureNotSupported, "subfield assignment is not supported"), rt.Location)
			}
			if assigned[ci] {
				return nil, planner.ErrAt(pgerr.New(pgerr.SyntaxError, "multiple assignments to same column \"%s\"", rt.Name), rt.Location)
			}
			assigned[ci] = true
			if rt.Val.GetSetToDefault() == nil {
				ident, err := s.seq.IdentityColumns(ctx, ref.Table) // sql/sequences/serial.go
				if err != nil {
					return nil, err
				}
				if ident[ci] == "a" {
					e := pgerr.New(sequences.CodeGeneratedAlways, "column \"%s\" can only be updated to DEFAULT", rt.Name)
					e.Detail = fmt.Sprintf("Column \"%s\" is an identity column defined as GENERATED ALWAYS.", rt.Name)
					return nil, planner.ErrAt(e, rt.Location)
				}
			}
			var e exec.Expr
			if rt.Val.GetSetToDefault() != nil {
				if e, err = s.defaultExpr(b, ref.Table.Columns[ci], scan.Cols[ci].T); err != nil {
					return nil, err
				}
			} else {
				ub := *b
				ub.NoAggMsg = "aggregate functions are not allowed in UPDATE"
				if e, err = ub.Bind(rt.Val, src.Sc); err != nil {
					return nil, err
				}
			}
			if e, err = b.CoerceAssign(e, scan.Cols[ci].T, rt.Name, planner.NodeLoc(rt.Val)); err != nil {
				return nil, err
			}
			newVals[ci] = e
		}
	}
	// RETURNING: over the target's columns (as the row is written, or as
	// it was for DELETE), the position columns, then the FROM items' columns
	var ret *returning
	if len(retList) > 0 {
		rsc := &planner.Scope{}
		for i, c := range scan.Cols {
			sc := planner.ScopeCol{Table: alias, Name: c.Name, T: c.T, Orig: planner.TableColOrigin(ref.Table, i)}
			if !joined {
				sc.Used = &scan.Needed[i]
			}
			rsc.Cols = append(rsc.Cols, sc)
		}
		for _, n := range posColumns {
			rsc.Cols = append(rsc.Cols, planner.ScopeCol{Table: alias, Name: n, T: types.Int64T, Hidden: true, System: true})
		}
		for _, c := range extras {
			c.Used = nil
			rsc.Cols = append(rsc.Cols, c)
		}
		if ret, err = s.bindReturning(b, rsc, retList); err != nil { // returning.go
			op.Close()
			return nil, err
		}
		for _, c := range extras {
			ret.extraT = append(ret.extraT, c.T)
		}
	}
	if describeOnly {
		op.Close()
		if ret != nil {
			return &Result{cols: ret.cols}, nil
		}
		return nil, nil
	}
	defer op.Close()
	withRows := func(tag string) *Result {
		if ret == nil {
			return tagResult(tag)
		}
		return ret.result(tag)
	}
	// constants fail while planning, as in a query (planner/optree/foldcheck.go)
	if err := planner.FoldErrors(env, op); err != nil {
		return nil, err
	}
	for _, e := range newVals {
		if err := exec.FoldError(env, e); err != nil {
			return nil, err
		}
	}

	// rows the open transaction block wrote itself: their staged files are
	// rewritten; the scan below reads only committed files
	var pendingCount int64
	switch {
	case joined:
		for i := range pendingPasses {
			n, err := pendingPasses[i].run(ctx, s, 0, ret)
			if err != nil {
				return nil, err
			}
			pendingCount += n
		}
	case len(ref.Pending) > 0:
		scan.Files = scan.Files[:len(scan.Files)-len(ref.PendingScan)]
		for k := range ref.Pending {
			n, err := s.rewritePending(ctx, env, ref, k, pred, newVals, ret)
			if err != nil {
				return nil, err
			}
			pendingCount += n
		}
	}

	// collect matching positions per file; UPDATE also writes the new rows
	hits := map[int][]int64{}
	inlinedHits := map[int][]int64{} // by inlined table: row ids
	var count int64
	var written []*exec.WrittenFile
	var upd *tableWrite      // UPDATE's new row versions (partition_write.go)
	var inl *inlinedVersions // or kept in the catalog (inlinewrite.go)
	var updKeys *keyCheck    // an UPDATE's new keys (unique.go)
	cleanup := func() {
		for _, w := range written {
			if w != nil && w.Path != "" {
				s.writeStore().Delete(context.WithoutCancel(ctx), w.Path)
			}
		}
		if upd != nil {
			upd.remove(ctx, s.eng.Store)
		}
	}
	record := func(bt *vec.Batch) {
		fv, pv := bt.Vecs[ncols], bt.Vecs[ncols+1]
		for i := 0; i < bt.N; i++ {
			if f := int(fv.I64[i]); f >= 0 {
				if fileOrd != nil {
					f = fileOrd(f)
				}
				hits[f] = append(hits[f], pv.I64[i])
			} else {
				inlinedHits[-1-f] = append(inlinedHits[-1-f], pv.I64[i])
			}
		}
		count += int64(bt.N)
	}
	dir := s.eng.DB.TableDir(ref.Schema, ref.Table)
	if set == nil {
		var del exec.Operator = op
		if ret != nil {
			del = ret.tap(op)
		}
		if err := exec.Drain(ctx, del, func(bt *vec.Batch) error { record(bt); return nil }); err != nil {
			return nil, err
		}
	} else {
		proj := append(newVals, &exec.ColRef{Idx: ncols + 2, T: types.Int64T})
		tap := &tapOp{Operator: op, fn: record}
		var vals exec.Operator = &exec.Project{Env: env, Input: tap, Exprs: proj}
		if ret != nil {
			vals = ret.versions(env, tap, newVals, ncols)
		}
		// new versions of key columns are checked (unique.go)
		defer func() { s.keyChecks = nil }()
		if kc, err := s.updateKeyCheck(ctx, ref, set); err != nil {
			return nil, err
		} else if kc != nil {
			vals = kc.tap(vals)
			updKeys = kc
		}
		// a few new versions stay in the catalog (inlinewrite.go)
		v, rest, err := s.inlineUpdate(ctx, ref, scan.Cols, vals)
		if err != nil {
			return nil, err
		}
		if inl = v; rest != nil {
			vals = rest
		}
		if inl == nil {
			cols := append(datafile.ParquetColumns(scan.Cols), parquetio.Column{FieldID: exec.RowIDFieldID, Name: "_ducklake_internal_row_id", Type: types.Int64T})
			tw, err := s.writeTableFiles(ctx, ref.Schema, ref.Table, cols, vals, notNullCheck(ref.Table))
			if err != nil {
				return nil, err
			}
			upd = tw
		}
	}
	verb := "DELETE"
	if set != nil {
		verb = "UPDATE"
	}
	if count == 0 {
		cleanup()
		return withRows(fmt.Sprintf("%s %d", verb, pendingCount)), nil
	}
	type fileDeletes struct {
		df    catalog.DataFile
		all   bool
		write *exec.WrittenFile
		file  snapshot.NewDeleteFile
		inl   []int64 // positions kept as inlined file deletes (inlinewrite.go)
	}
	if updKeys != nil {
		updKeys.skipRows(ref, hits, inlinedHits)
		s.keyChecks = append(s.keyChecks, updKeys)
	}
	var plans []fileDeletes
	ordinals := make([]int, 0, len(hits))
	for fi := range hits {
		ordinals = append(ordinals, fi)
	}
	sort.Ints(ordinals)
	for _, fi := range ordinals {
		df := ref.Files[fi]
		pos := hits[fi]
		if s.inlineFileDelete(ctx, ref, len(pos)) {
			plans = append(plans, fileDeletes{df: df, inl: uniqueSorted(pos)})
			continue
		}
		md, err := s.mergeDeletes(ctx, ref, fi, pos, head.ID+1, dir) // deletefiles.go
		if err != nil {
			cleanup()
			return nil, err
		}
		if md.all {
			plans = append(plans, fileDeletes{df: df, all: true})
			continue
		}
		written = append(written, md.write)
		plans = append(plans, fileDeletes{df: df, write: md.write, file: md.file})
	}
	err = s.commit(ctx, func(c *snapshot.Commit, m *catalog.Metadata) error {
		if m.Snapshot.ID != head.ID {
			// another statement committed since we read: our positions may be stale
			cur, ok := m.TableByName(ref.Schema.ID, ref.Table.Name)
			if !ok || cur.ID != ref.Table.ID || !datafile.SameColumns(cur, ref.Table) {
				return pgerr.New(pgerr.SerializationFailure, "could not serialize access due to concurrent update")
			}
			files, err := s.eng.DB.Files(ctx, ref.Schema, cur, m.Snapshot)
			if err != nil {
				return err
			}
			for _, pl := range plans {
				if !sameDeleteState(files, pl.df) {
					return pgerr.New(pgerr.SerializationFailure, "could not serialize access due to concurrent update")
				}
			}
			// rows deleted through inlined file deletes count as well: the
			// other statement may have deleted or updated the same rows
			if len(plans) > 0 {
				dels, err := s.eng.DB.InlinedFileDeletes(ctx, cur.ID, m.Snapshot)
				if err != nil {
					return err
				}
				for _, fi := range ordinals {
					if !slices.Equal(dels[ref.Files[fi].ID], ref.ScanFiles[fi].Deleted) {
						return pgerr.New(pgerr.SerializationFailure, "could not serialize access due to concurrent update")
					}
				}
			}
		}
		for _, pl := range plans {
			if pl.inl != nil {
				c.DeleteInlinedPositions(*ref.Table, pl.df, pl.inl)
			} else if pl.all {
				c.EndDataFile(*ref.Table, pl.df)
			} else {
				c.ReplaceDeleteFile(*ref.Table, pl.df, pl.file)
			}
		}
		for k, ids := range inlinedHits {
			c.DeleteInlinedRowsSeenAt(*ref.Table, ref.Inlined[k], uniqueSorted(ids), head.ID)
		}
		if inl != nil {
			c.InsertInlinedRowVersions(*ref.Table, inl.layout, inl.rows, inl.rowIDs, inl.stats)
		}
		if upd != nil {
			if cur, ok := m.TableByID(ref.Table.ID); !ok || !upd.sameSpec(cur) {
				return pgerr.New(pgerr.SerializationFailure, "could not serialize access due to concurrent update")
			}
			for _, f := range upd.dataFiles(scan.Cols, true) {
				c.AddDataFile(*ref.Table, f)
			}
		}
		return nil
	}, cleanup)
	if err != nil {
		return nil, err
	}
	s.settled(append(datafile.FilePaths(written...), writtenPaths(upd)...)...) // inflight.go
	if s.txn != nil {
		// staged delete files this statement replaced are garbage once the
		// block commits
		for _, fi := range ordinals {
			if ref.ScanFiles[fi].DeletePath != "" && (ref.Files[fi].Delete == nil || ref.ScanFiles[fi].DeletePath != ref.Files[fi].Delete.Path) {
				s.txn.superseded = append(s.txn.superseded, ref.ScanFiles[fi].DeletePath)
			}
		}
	}
	return withRows(fmt.Sprintf("%s %d", verb, count+pendingCount)), nil
}

// sameDeleteState reports whether df is still live with the same delete file.
func sameDeleteState(files []catalog.DataFile, df catalog.DataFile) bool {
	for _, f := range files {
		if f.ID == df.ID {
			if (f.Delete == nil) != (df.Delete == nil) {
				return false
			}
			return f.Delete == nil || f.Delete.ID == df.Delete.ID
		}
	}
	return false
}

func uniqueSorted(xs []int64) []int64 {
	sort.Slice(xs, func(i, j int) bool { return xs[i] < xs[j] })
	out := xs[:0]
	for i, x := range xs {
		if i == 0 || x != xs[i-1] {
			out = append(out, x)
		}
	}
	return out
}

// tapOp passes batches through, showing each to fn first.
type tapOp struct {
	exec.Operator
	fn func(*vec.Batch)
}

func (t *tapOp) Next(ctx context.Context) (*vec.Batch, error) {
	b, err := t.Operator.Next(ctx)
	if b != nil {
		t.fn(b)
	}
	return b, err
}

// writeTarget resolves the table an INSERT or COPY FROM writes, as the
// statement's write snapshot sees it, with its scan columns.
// tableAtHead resolves the table rv names in the catalog writes build on
// (the block's, else the latest).
func (s *Session) tableAtHead(ctx context.Context, rv *pg.RangeVar) (*catalog.Metadata, *catalog.Schema, *catalog.Table, error) {
	head, err := s.writeHead(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	meta, err := s.Metadata(ctx, head)
	if err != nil {
		return nil, nil, nil, err
	}
	sch, t, err := s.ResolveTable(meta, rv.Schemaname, rv.Relname, rv.Location)
	return meta, sch, t, err
}

func (s *Session) writeTarget(ctx context.Context, rv *pg.RangeVar) (*catalog.Schema, *catalog.Table, []exec.ScanCol, error) {
	if t := s.TempLookup(rv.Schemaname, rv.Relname); t != nil {
		return s.tempSchema(), t.Tbl, t.Cols, nil // temp.go
	}
	_, sch, t, err := s.tableAtHead(ctx, rv)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := s.checkNotMatView(t.Name, t.MatView, rv.Location); err != nil { // matview.go
		return nil, nil, nil, err
	}
	if err := s.CheckRelation(ctx, sch, t.ID, planner.RelationWord(t, nil), t.Name, "a"); err != nil { // sql/privileges/privileges.go
		return nil, nil, nil, err
	}
	cols, err := planner.ScanColumns(t)
	if err != nil {
		return nil, nil, nil, err
	}
	return sch, t, cols, nil
}
