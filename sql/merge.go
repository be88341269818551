package sql

import (
	"context"
	"fmt"

	"github.com/lakepg/lakepg/sql/planner"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// MERGE INTO t USING src ON cond WHEN [NOT] MATCHED [AND …] THEN …,
// set-wise:
//
//  1. one query, the source LEFT JOIN the target ON cond, gives every
//     source row the WHEN clause that applies to it (the first whose kind
//     and condition hold, as a CASE) and the row id of the target row it
//     matched; the rows are kept by clause;
//  2. a target row that two source rows would update or delete is a 21000;
//  3. each UPDATE clause runs as UPDATE t SET … FROM <its rows> WHERE
//     t.rowid = <its rows>.rowid, the DELETE clauses as one DELETE … USING,
//     then each INSERT clause as INSERT INTO t SELECT <values> FROM <its
//     rows> (dml.go, dml_join.go), so keys, defaults, sequences and
//     inlining work as in those statements;
//
// all in one block (the statement's implicit one outside BEGIN): one
// snapshot read, one commit. The updates and deletes run before the
// inserts because the rows a block inserts have no row ids yet: while
// MERGE runs, scans number them apart (pendingRowIDBase), so that they
// never join a committed row's id, the same way until their staged file is
// rewritten by the first write changing one of them; MERGE therefore
// refuses to change the rows of one such file through two WHEN clauses.

// mergeName names the source rows in the statements MERGE runs; the NUL
// byte keeps it out of reach of SQL names.
const mergeName = "\x00merge"

// pendingRowIDBase numbers the rows of a block's staged files without row
// ids while MERGE runs: the n-th file seen's rows from base + n<<32.
const pendingRowIDBase = int64(1) << 62

// mergeClause is one WHEN clause with the rows it applies to.
type mergeClause struct {
	w    *pg.MergeWhenClause
	rows *exec.RowBuffer
}

func (s *Session) merge(ctx context.Context, st *pg.MergeStmt, p *planner.Params, describeOnly bool) (*Result, error) {
	if st.WithClause != nil {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "MERGE with WITH is not supported yet")
	}
	if len(st.ReturningList) > 0 {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "MERGE … RETURNING is not supported (PostgreSQL 17 syntax)")
	}
	if !s.inTx && !describeOnly {
		// the clauses' writes commit as one snapshot
		s.inTx, s.implicit = true, true
		res, err := s.mergeIn(ctx, st, p, false)
		return s.endReturning(ctx, res, err)
	}
	return s.mergeIn(ctx, st, p, describeOnly)
}

// mergeIn runs MERGE in the open block; describeOnly binds every clause
// (to infer parameter types) and writes nothing.
func (s *Session) mergeIn(ctx context.Context, st *pg.MergeStmt, p *planner.Params, describeOnly bool) (*Result, error) {
	rv := st.Relation
	alias := rv.Relname
	if rv.Alias != nil {
		alias = rv.Alias.Aliasname
	}
	if s.TempLookup(rv.Schemaname, rv.Relname) != nil { // temp.go
		return nil, planner.ErrAt(pgerr.New(pgerr.FeatureNotSupported, "MERGE into a temporary table is not supported"), rv.Location)
	}
	srcAlias := ""
	switch x := st.SourceRelation.Node.(type) {
	case *pg.Node_RangeVar:
		srcAlias = x.RangeVar.Relname
		if x.RangeVar.Alias != nil {
			srcAlias = x.RangeVar.Alias.Aliasname
		}
	case *pg.Node_RangeSubselect:
		if x.RangeSubselect.Alias != nil {
			srcAlias = x.RangeSubselect.Alias.Aliasname
		}
	case *pg.Node_RangeFunction:
		if x.RangeFunction.Alias != nil {
			srcAlias = x.RangeFunction.Alias.Aliasname
		}
	}
	if srcAlias == "" {
		return nil, planner.ErrAt(pgerr.New(pgerr.FeatureNotSupported, "a MERGE source needs a name: write USING (…) AS name"), planner.NodeLoc(st.SourceRelation))
	}
	if srcAlias == alias {
		return nil, planner.ErrAt(pgerr.New(pgerr.DuplicateAlias, "name \"%s\" specified more than once", alias), planner.NodeLoc(st.SourceRelation))
	}
	var clauses []*mergeClause
	for _, n := range st.MergeWhenClauses {
		w := n.GetMergeWhenClause()
		if w.MatchKind == pg.MergeMatchKind_MERGE_WHEN_NOT_MATCHED_BY_SOURCE {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "WHEN NOT MATCHED BY SOURCE is not supported (PostgreSQL 17 syntax)")
		}
		clauses = append(clauses, &mergeClause{w: w})
	}
	defer func() {
		for _, c := range clauses {
			if c.rows != nil {
				c.rows.Release()
			}
		}
	}()
	head, err := s.writeHead(ctx)
	if err != nil {
		return nil, err
	}
	s.mergeFiles = map[string]int64{} // txn.go's overlay
	defer func() { s.mergeFiles = nil }()
	src, err := s.TableSource(ctx, head, rv.Schemaname, rv.Relname, alias, rv.Location, describeOnly)
	if err != nil {
		return nil, err
	}
	ref := src.Ref
	if err := s.checkNotMatView(ref.Table.Name, ref.Table.MatView, rv.Location); err != nil { // matview.go
		ref.Scan.Close()
		return nil, err
	}
	// rows of the block's staged files that carry no row ids (made by
	// INSERT) are found by the numbers the scans give them, which hold
	// until the file is rewritten: by the first write that changes one of
	// its rows, so one write may change them (groups)
	noIDs := map[string]bool{}
	groups := map[int64]int{} // staged file ordinal → the clause changing its rows (-1: the deletes)
	for k, f := range ref.Pending {
		if !f.EmbeddedRowIDs {
			noIDs[ref.PendingScan[k].Path] = true
		}
	}
	ref.Scan.WithPos = true
	for _, n := range posColumns {
		src.Sc.Cols = append(src.Sc.Cols, planner.ScopeCol{Table: alias, Name: n, T: types.Int64T, Hidden: true})
	}
	// 1. which clause applies to each source row
	posRef := func(n string) *pg.Node { return planner.ColRefNode(planner.ScopeCol{Table: alias, Name: n}) }
	matched := func(yes bool) *pg.Node {
		t := pg.NullTestType_IS_NULL
		if yes {
			t = pg.NullTestType_IS_NOT_NULL
		}
		return &pg.Node{Node: &pg.Node_NullTest{NullTest: &pg.NullTest{Arg: posRef(posColumns[0]), Nulltesttype: t, Location: -1}}}
	}
	var whens []*pg.Node
	for i, c := range clauses {
		cond := matched(c.w.MatchKind == pg.MergeMatchKind_MERGE_WHEN_MATCHED)
		if c.w.Condition != nil {
			cond = pg.MakeBoolExprNode(pg.BoolExprType_AND_EXPR, []*pg.Node{cond, c.w.Condition}, -1)
		}
		whens = append(whens, &pg.Node{Node: &pg.Node_CaseWhen{CaseWhen: &pg.CaseWhen{Expr: cond, Result: pg.MakeAConstIntNode(int64(i+1), -1), Location: -1}}})
	}
	action := &pg.Node{Node: &pg.Node_CaseExpr{CaseExpr: &pg.CaseExpr{Args: whens, Defresult: pg.MakeAConstIntNode(0, -1), Location: -1}}}
	star := &pg.Node{Node: &pg.Node_ColumnRef{ColumnRef: &pg.ColumnRef{Fields: []*pg.Node{pg.MakeStrNode(srcAlias), {Node: &pg.Node_AStar{AStar: &pg.A_Star{}}}}, Location: -1}}}
	res := func(n *pg.Node) *pg.Node {
		return &pg.Node{Node: &pg.Node_ResTarget{ResTarget: &pg.ResTarget{Val: n, Location: -1}}}
	}
	self := &pg.Node{Node: &pg.Node_RangeVar{RangeVar: rv}}
	join := &pg.Node{Node: &pg.Node_JoinExpr{JoinExpr: &pg.JoinExpr{Jointype: pg.JoinType_JOIN_LEFT, Larg: st.SourceRelation, Rarg: self, Quals: st.JoinCondition}}}
	sel := &pg.SelectStmt{TargetList: []*pg.Node{res(action), res(posRef(posColumns[0])), res(posRef(posColumns[2])), res(star)}, FromClause: []*pg.Node{join}, Op: pg.SetOperation_SETOP_NONE}
	env := s.NewEnv()
	b := &planner.Binder{Sess: &s.Session, Env: env, Params: p, NoAggMsg: "aggregate functions are not allowed in MERGE WHEN conditions", Qc: s.NewQueryCtx(ctx, p, describeOnly)}
	b.Qc.(*planner.QueryCtx).DmlTarget = &planner.DmlTarget{Rv: rv, Src: src, Sel: sel, Alias: alias}
	q, err := b.Qc.(*planner.QueryCtx).PlanSelect(sel)
	b.Qc.(*planner.QueryCtx).DmlTarget = nil
	if err != nil {
		ref.Scan.Close()
		return nil, err
	}
	srcCols := append([]Column(nil), q.Cols[3:]...)
	rowT := append([]types.T{types.Int64T}, planner.TypesOfColumns(srcCols)...)
	for _, c := range clauses {
		c.rows = exec.NewRowBuffer(rowT, nil)
	}
	// 2. a target row changed twice is an error
	touched := map[int64]bool{}
	// the data files holding a row to update or delete: the writes read
	// only those (upsert.go's onlyMatched)
	fileID := map[string]int64{}
	for _, f := range ref.Files {
		fileID[f.Path] = f.ID
	}
	var ordID []int64 // by the scan's file ordinal, once planned; -1 staged, -2 staged without row ids
	files := map[int64]bool{}
	out := vec.NewBatch(rowT, 0)
	sels := make([][]int, len(clauses))
	var rows exec.Operator = q.Op
	if describeOnly {
		rows = &exec.Values{Env: env, T: planner.TypesOfColumns(q.Cols)}
	}
	err = exec.Drain(ctx, rows, func(bt *vec.Batch) error {
		for i := range sels {
			sels[i] = sels[i][:0]
		}
		av, fv, rid := bt.Vecs[0], bt.Vecs[1], bt.Vecs[2]
		if ordID == nil {
			for _, sf := range ref.Scan.Files {
				id, ok := fileID[sf.Path]
				switch {
				case noIDs[sf.Path]:
					id = -2
				case !ok:
					id = -1 // staged by the open block: always read
				}
				ordID = append(ordID, id)
			}
		}
		for r := 0; r < bt.N; r++ {
			a := int(av.I64[r])
			if a == 0 {
				continue
			}
			c := clauses[a-1]
			if c.w.CommandType == pg.CmdType_CMD_UPDATE || c.w.CommandType == pg.CmdType_CMD_DELETE {
				id := rid.I64[r]
				if touched[id] {
					e := pgerr.New(pgerr.CardinalityViolation, "MERGE command cannot affect row a second time")
					e.Hint = "Ensure that not more than one source row matches any one target row."
					return e
				}
				touched[id] = true
				if f := fv.I64[r]; f >= 0 && int(f) < len(ordID) {
					switch fid := ordID[f]; {
					case fid >= 0:
						files[fid] = true
					case fid == -2:
						g := a - 1
						if c.w.CommandType == pg.CmdType_CMD_DELETE {
							g = -1
						}
						if was, ok := groups[f]; ok && was != g {
							return pgerr.New(pgerr.FeatureNotSupported, "MERGE cannot change rows inserted earlier in the same transaction block through two WHEN clauses yet")
						}
						groups[f] = g
					}
				}
			}
			sels[a-1] = append(sels[a-1], r)
		}
		for i, sel := range sels {
			if len(sel) == 0 || clauses[i].w.CommandType == pg.CmdType_CMD_NOTHING {
				continue
			}
			out.Reset()
			for k, v := range bt.Vecs[2:] {
				out.Vecs[k].Gather(v, sel)
			}
			out.N = len(sel)
			if err := clauses[i].rows.Append(ctx, out); err != nil {
				return err
			}
		}
		return nil
	})
	q.Op.Close()
	if err != nil {
		return nil, err
	}
	s.conflictStats = conflictStats{Conflicts: len(touched), UpdateFiles: len(files)}
	// 3. the writes: updates and deletes, then inserts
	wcCols := append([]Column{{Name: posColumns[2], Type: types.Int64T}}, srcCols...)
	fromRows := func(rows *exec.RowBuffer) []*pg.Node {
		s.upsert = &upsertState{name: mergeName, excluded: &planner.WrittenCTE{Cols: wcCols, Rows: rows}, files: files}
		return []*pg.Node{{Node: &pg.Node_RangeVar{RangeVar: &pg.RangeVar{Relname: mergeName, Inh: true, Relpersistence: "p", Alias: &pg.Alias{Aliasname: srcAlias}, Location: -1}}}}
	}
	defer func() { s.upsert = nil }()
	sameRow := pg.MakeAExprNode(pg.A_Expr_Kind_AEXPR_OP, []*pg.Node{pg.MakeStrNode("=")}, posRef(posColumns[2]),
		planner.ColRefNode(planner.ScopeCol{Table: srcAlias, Name: posColumns[2]}), -1)
	target := &pg.RangeVar{Schemaname: rv.Schemaname, Relname: rv.Relname, Inh: true, Relpersistence: "p", Alias: rv.Alias, Location: rv.Location}
	var count int64
	var deletes *exec.RowBuffer
	for _, c := range clauses {
		if c.rows.Len() == 0 {
			// bound all the same: errors in a clause no row reaches are
			// errors, as in PostgreSQL
			var err error
			switch c.w.CommandType {
			case pg.CmdType_CMD_UPDATE:
				_, err = s.modify(ctx, target, fromRows(c.rows), sameRow, c.w.TargetList, nil, p, true)
			case pg.CmdType_CMD_INSERT:
				_, err = s.mergeInsert(ctx, c, ref.Table.Columns, rv, srcAlias, wcCols, p, true)
			}
			if err != nil {
				return nil, err
			}
			continue
		}
		switch c.w.CommandType {
		case pg.CmdType_CMD_UPDATE:
			r, err := s.modify(ctx, target, fromRows(c.rows), sameRow, c.w.TargetList, nil, p, false)
			if err != nil {
				return nil, err
			}
			count += tagCount(r.tag)
		case pg.CmdType_CMD_DELETE:
			if deletes == nil {
				deletes = exec.NewRowBuffer(rowT, nil)
				defer deletes.Release()
			}
			if err := exec.Drain(ctx, c.rows.Scan(), func(b *vec.Batch) error { return deletes.Append(ctx, b) }); err != nil {
				return nil, err
			}
		}
	}
	if describeOnly {
		return nil, nil
	}
	if deletes != nil {
		r, err := s.modify(ctx, target, fromRows(deletes), sameRow, nil, nil, p, false)
		if err != nil {
			return nil, err
		}
		count += tagCount(r.tag)
	}
	s.upsert = nil
	for _, c := range clauses {
		if c.rows.Len() == 0 || c.w.CommandType != pg.CmdType_CMD_INSERT {
			continue
		}
		n, err := s.mergeInsert(ctx, c, ref.Table.Columns, rv, srcAlias, wcCols, p, false)
		if err != nil {
			return nil, err
		}
		count += n
	}
	return tagResult(fmt.Sprintf("MERGE %d", count)), nil
}

// mergeInsert runs an INSERT clause over its source rows: INSERT INTO t
// (cols) SELECT values FROM rows AS source.
func (s *Session) mergeInsert(ctx context.Context, c *mergeClause, tcols []catalog.Column, rv *pg.RangeVar, srcAlias string, wcCols []Column, p *planner.Params, describeOnly bool) (int64, error) {
	w := c.w
	names := make([]string, 0, len(w.Values))
	for i, rt := range w.TargetList {
		if i < len(w.Values) {
			names = append(names, rt.GetResTarget().Name)
		}
	}
	if len(w.TargetList) == 0 {
		for i := range w.Values {
			if i < len(tcols) {
				names = append(names, tcols[i].Name)
			}
		}
	}
	if len(w.TargetList) > len(w.Values) {
		return 0, pgerr.New(pgerr.SyntaxError, "INSERT has more target columns than expressions")
	}
	if len(w.Values) > len(names) {
		return 0, planner.ErrAt(pgerr.New(pgerr.SyntaxError, "INSERT has more expressions than target columns"), planner.NodeLoc(w.Values[len(names)]))
	}
	var cols, vals []*pg.Node
	for i, v := range w.Values {
		if v.GetSetToDefault() != nil {
			continue // the column takes its default
		}
		cols = append(cols, &pg.Node{Node: &pg.Node_ResTarget{ResTarget: &pg.ResTarget{Name: names[i], Location: -1}}})
		vals = append(vals, &pg.Node{Node: &pg.Node_ResTarget{ResTarget: &pg.ResTarget{Val: v, Location: -1}}})
	}
	dummy := &pg.Node{Node: &pg.Node_InsertStmt{InsertStmt: &pg.InsertStmt{}}}
	sel := &pg.SelectStmt{
		TargetList: vals,
		FromClause: []*pg.Node{{Node: &pg.Node_RangeVar{RangeVar: &pg.RangeVar{Relname: mergeName, Inh: true, Relpersistence: "p", Alias: &pg.Alias{Aliasname: srcAlias}, Location: -1}}}},
		WithClause: &pg.WithClause{Ctes: []*pg.Node{{Node: &pg.Node_CommonTableExpr{CommonTableExpr: &pg.CommonTableExpr{Ctename: mergeName, Ctequery: dummy, Location: -1}}}}},
		Op:         pg.SetOperation_SETOP_NONE,
	}
	ins := &pg.InsertStmt{
		Relation:   &pg.RangeVar{Schemaname: rv.Schemaname, Relname: rv.Relname, Inh: true, Relpersistence: "p", Location: rv.Location},
		Cols:       cols,
		SelectStmt: &pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: sel}},
		Override:   w.Override,
	}
	s.WrittenCTEs = map[string]*planner.WrittenCTE{mergeName: {Cols: wcCols, Rows: c.rows}}
	defer func() { s.WrittenCTEs = nil }()
	r, err := s.insert(ctx, ins, p, describeOnly)
	if err != nil || r == nil {
		return 0, err
	}
	return tagCount(r.tag), nil
}
