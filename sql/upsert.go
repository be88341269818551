package sql

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/lakepg/lakepg/sql/planner"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// INSERT … ON CONFLICT, set-wise rather than per row:
//
//  1. the proposed rows (VALUES or the query, with defaults, sequences and
//     NOT NULL checked) are kept in memory, and the keys of the arbiter
//     constraints (the inferred ones, the named one, or every key for DO
//     NOTHING without a target) go into hash sets;
//  2. one pruned probe of the table (unique.go's probeKeys: only the key
//     columns of the files whose min/max can hold a proposed key) finds
//     which keys exist;
//  3. in input order, a row whose key exists conflicts; DO NOTHING also
//     skips a row whose key an earlier row of the statement inserted, DO
//     UPDATE answers 21000 for a key proposed twice (with a WHERE, only
//     once an earlier row's WHERE held: checkSecondUpdates);
//  4. DO UPDATE runs as UPDATE t SET … FROM excluded WHERE t.key =
//     excluded.key [AND where] (dml_join.go) over the conflicting rows,
//     reading only the data files the probe found them in;
//  5. the other rows go through the normal insert path (key checks,
//     inlining, RETURNING).
//
// Both run in one block (the statement's implicit one outside BEGIN), so
// they read one snapshot and commit as one. RETURNING gives the updated
// and inserted rows in input order, as PostgreSQL does.

const excludedName = "excluded"

// upsertState is what the UPDATE of ON CONFLICT DO UPDATE reads.
// MERGE's UPDATE and DELETE read their source rows the same way
// (merge.go).
type upsertState struct {
	name     string // what the FROM item names: excludedName or mergeName
	excluded *planner.WrittenCTE
	files    map[int64]bool // data files holding a conflicting key; nil: all
}

// conflictStats count what the last ON CONFLICT probe read (tests).
type conflictStats struct {
	FilesRead, FilesPruned int
	Conflicts              int
	UpdateFiles            int // data files DO UPDATE reads
}

// onlyMatched keeps in ref the committed data files that hold a
// conflicting row (and the staged and inlined rows, always read).
func (u *upsertState) onlyMatched(ref *planner.TableRef) {
	scan := ref.Scan
	if u.files == nil || len(scan.Files) != len(ref.Files)+len(ref.PendingScan) {
		return // pruned already: read them all
	}
	files, sfs := ref.Files[:0:0], ref.ScanFiles[:0:0]
	for i, f := range ref.Files {
		if u.files[f.ID] {
			files, sfs = append(files, f), append(sfs, ref.ScanFiles[i])
		}
	}
	ref.Files, ref.ScanFiles = files, sfs
	scan.Files = append(append([]exec.ScanFile(nil), sfs...), ref.PendingScan...)
}

// upsertResult is what ON CONFLICT did before the insert of the rest.
type upsertResult struct {
	rest    exec.Operator // the rows to insert
	keptOrd []int64       // their positions in the input
	updated int64
	// DO UPDATE's RETURNING rows, each followed by its input position
	rows *Result
}

// ordName is the input position of a proposed row in excluded, out of
// reach of SQL names.
const ordName = "\x00ord"

// mergeReturning puts DO UPDATE's RETURNING rows among the inserted rows
// ret holds, in input order as PostgreSQL returns them.
func (u *upsertResult) mergeReturning(ctx context.Context, ret *returning) error {
	ts := planner.TypesOfColumns(ret.cols)
	collect := func(op exec.Operator, n int) ([]*vec.Vector, int, error) {
		vs := make([]*vec.Vector, n)
		for i := range vs {
			vs[i] = vec.New(op.Types()[i], 0)
		}
		rows := 0
		err := exec.Drain(ctx, op, func(b *vec.Batch) error {
			sel := make([]int, b.N)
			for i := range sel {
				sel[i] = i
			}
			for i := range vs {
				vs[i].Gather(b.Vecs[i], sel)
			}
			rows += b.N
			return nil
		})
		return vs, rows, err
	}
	upd, nu, err := collect(u.rows.op, len(ts)+1)
	if err != nil {
		return err
	}
	ins, ni, err := collect(ret.buf.Scan(), len(ts))
	if err != nil {
		return err
	}
	if ni != len(u.keptOrd) {
		return pgerr.New(pgerr.Internal, "ON CONFLICT returned %d inserted rows for %d", ni, len(u.keptOrd))
	}
	ord := upd[len(ts)].I64
	order := make([]int, nu)
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return ord[order[a]] < ord[order[b]] })
	out := exec.NewRowBuffer(ts, ret.buf.Mem)
	b := vec.NewBatch(ts, vec.BatchSize)
	flush := func() error {
		if b.N == 0 {
			return nil
		}
		err := out.Append(ctx, b)
		b.Reset()
		return err
	}
	for i, j := 0, 0; i < nu || j < ni; {
		src, r := ins, j
		if j == ni || i < nu && ord[order[i]] < u.keptOrd[j] {
			src, r = upd, order[i]
			i++
		} else {
			j++
		}
		for k := range ts {
			b.Vecs[k].AppendFrom(src[k], r)
		}
		if b.N++; b.N == vec.BatchSize {
			if err := flush(); err != nil {
				out.Release()
				return err
			}
		}
	}
	if err := flush(); err != nil {
		out.Release()
		return err
	}
	ret.buf.Release()
	ret.buf = out
	return nil
}

// arbiters finds the constraints an ON CONFLICT clause names.
func (s *Session) arbiters(meta *catalog.Metadata, t *catalog.Table, cl *pg.OnConflictClause) ([]catalog.Constraint, error) {
	cons := meta.ConstraintsOf(t.ID)
	inf := cl.Infer
	if inf == nil {
		if cl.Action == pg.OnConflictAction_ONCONFLICT_UPDATE {
			e := pgerr.New(pgerr.SyntaxError, "ON CONFLICT DO UPDATE requires inference specification or constraint name")
			e.Hint = "For example, ON CONFLICT (column_name)."
			return nil, planner.ErrAt(e, cl.Location)
		}
		return cons, nil
	}
	if inf.Conname != "" {
		for _, c := range cons {
			if c.Name == inf.Conname {
				return []catalog.Constraint{c}, nil
			}
		}
		return nil, planner.ErrAt(pgerr.New(pgerr.UndefinedObject, "constraint \"%s\" for table \"%s\" does not exist", inf.Conname, t.Name), inf.Location)
	}
	want := map[int64]bool{}
	noMatch := planner.ErrAt(pgerr.New(pgerr.InvalidColumnReference, "there is no unique or exclusion constraint matching the ON CONFLICT specification"), inf.Location)
	for _, n := range inf.IndexElems {
		ie := n.GetIndexElem()
		if ie == nil || ie.Name == "" {
			return nil, noMatch // an expression: lakepg has no expression indexes
		}
		found := int64(-1)
		for _, c := range t.Columns {
			if c.Name == ie.Name {
				found = c.ID
			}
		}
		if found < 0 {
			return nil, planner.ErrAt(pgerr.New(pgerr.UndefinedColumn, "column \"%s\" does not exist", ie.Name), inf.Location)
		}
		want[found] = true
	}
	var out []catalog.Constraint
	for _, c := range cons {
		same := len(c.Columns) > 0
		have := map[int64]bool{}
		for _, id := range c.Columns {
			have[id] = true
			same = same && want[id]
		}
		if same && len(have) == len(want) {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		return nil, noMatch
	}
	return out, nil
}

// onConflict runs the conflict part of INSERT … ON CONFLICT (see above)
// over the proposed rows src (laid out as the table's columns) and returns
// the rows left to insert.
func (s *Session) onConflict(ctx context.Context, st *pg.InsertStmt, p *planner.Params, sch *catalog.Schema, t *catalog.Table, cols []exec.ScanCol, src exec.Operator) (*upsertResult, error) {
	defer src.Close()
	cl := st.OnConflictClause
	if isTempTable(t) { // temp_dml.go
		return nil, pgerr.New(pgerr.FeatureNotSupported, "INSERT … ON CONFLICT into a temporary table is not supported")
	}
	head, err := s.writeHead(ctx)
	if err != nil {
		return nil, err
	}
	meta, err := s.Metadata(ctx, head)
	if err != nil {
		return nil, err
	}
	arb, err := s.arbiters(meta, t, cl)
	if err != nil {
		return nil, err
	}
	update := cl.Action == pg.OnConflictAction_ONCONFLICT_UPDATE
	if update {
		if _, err := setTargets(cols, cl.TargetList, t.Name); err != nil {
			return nil, err
		}
	}
	// 1. the proposed rows and their arbiter keys
	kc := s.newKeyCheck(meta, t, cols)
	var keys []*uniqueKeys
	if kc != nil {
		for _, u := range kc.keys {
			for _, a := range arb {
				if u.con.ID == a.ID {
					keys = append(keys, u)
				}
			}
		}
		kc.keys = keys
	}
	buf := exec.NewRowBuffer(planner.TypesOf(cols), nil)
	defer buf.Release()
	rowKey := make([][]int32, len(keys)) // per arbiter, per row: key id or -1
	nn := notNullCheck(t)
	err = exec.Drain(ctx, src, func(b *vec.Batch) error {
		if err := nn(b); err != nil {
			return err
		}
		for k, u := range keys {
			for r := 0; r < b.N; r++ {
				var ok bool
				u.buf, ok = u.encode(u.buf[:0], b.Vecs, r)
				if !ok {
					rowKey[k] = append(rowKey[k], -1)
					continue
				}
				id, seen := u.seen[string(u.buf)]
				if !seen {
					id = int32(u.vals[0].Len())
					u.seen[string(u.buf)] = id
					for j, p := range u.pos {
						u.vals[j].AppendFrom(b.Vecs[p], r)
					}
				}
				rowKey[k] = append(rowKey[k], id)
			}
		}
		return buf.Append(ctx, b)
	})
	if err != nil {
		return nil, err
	}
	// 2. which keys exist, and where
	exists := make([][]bool, len(keys))
	for k, u := range keys {
		exists[k] = make([]bool, u.vals[0].Len())
	}
	files := map[int64]bool{}
	if len(keys) > 0 && buf.Len() > 0 {
		idx := map[*uniqueKeys]int{}
		for k, u := range keys {
			idx[u] = k
		}
		err := s.probeKeys(ctx, head, sch, t, kc, func(u *uniqueKeys, _ *vec.Batch, _ int, id int32, fileID int64) error {
			exists[idx[u]][id] = true
			if fileID >= 0 {
				files[fileID] = true
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	s.conflictStats = conflictStats{FilesRead: s.uniqueStats.FilesRead, FilesPruned: s.uniqueStats.FilesPruned}
	// 3. split in input order
	used := make([][]bool, len(keys))
	for k, u := range keys {
		used[k] = make([]bool, u.vals[0].Len())
	}
	byKey := map[int32][]int64{} // DO UPDATE … WHERE: the conflicting rows by key
	rest := exec.NewRowBuffer(planner.TypesOf(cols), nil)
	mtypes := append(planner.TypesOf(cols), types.Int64T) // then the input position
	matched := exec.NewRowBuffer(mtypes, nil)
	row := 0
	var keep, hit []int
	var keptOrd []int64
	out := vec.NewBatch(mtypes, 0)
	gather := func(b *vec.Batch, sel []int, to *exec.RowBuffer, first int) error {
		if len(sel) == 0 {
			return nil
		}
		out.Reset()
		for i, v := range b.Vecs {
			out.Vecs[i].Gather(v, sel)
		}
		out.N = len(sel)
		if to == rest {
			return to.Append(ctx, &vec.Batch{Vecs: out.Vecs[:len(cols)], N: out.N})
		}
		for _, r := range sel {
			out.Vecs[len(cols)].AppendInt(int64(first + r))
		}
		return to.Append(ctx, out)
	}
	err = exec.Drain(ctx, buf.Scan(), func(b *vec.Batch) error {
		keep, hit = keep[:0], hit[:0]
		first := row
		for r := 0; r < b.N; r, row = r+1, row+1 {
			conflict, again := false, false
			for k := range keys {
				if id := rowKey[k][row]; id >= 0 {
					conflict = conflict || exists[k][id]
					again = again || used[k][id]
				}
			}
			switch {
			case update && again && !(conflict && cl.WhereClause != nil):
				return errSecondTime()
			case conflict && update:
				hit = append(hit, r)
				if cl.WhereClause != nil {
					// with a WHERE, a key proposed again is an error only
					// after a row that updated it (checked below)
					id := rowKey[0][row]
					byKey[id] = append(byKey[id], int64(row))
				}
			case conflict || again:
				continue // DO NOTHING
			default:
				keep = append(keep, r)
				keptOrd = append(keptOrd, int64(row))
			}
			for k := range keys {
				if id := rowKey[k][row]; id >= 0 {
					used[k][id] = true
				}
			}
		}
		if err := gather(b, keep, rest, first); err != nil {
			return err
		}
		return gather(b, hit, matched, first)
	})
	if err != nil {
		rest.Release()
		matched.Release()
		return nil, err
	}
	res := &upsertResult{rest: rest.Reader(), keptOrd: keptOrd}
	s.conflictStats.Conflicts = matched.Len()
	if !update || matched.Len() == 0 {
		matched.Release()
		return res, nil
	}
	// 4. DO UPDATE: the existing rows joined with the proposed ones
	defer matched.Release()
	if err := s.checkSecondUpdates(ctx, st, t, cols, arb, matched, byKey, p); err != nil {
		res.rest.Close()
		return nil, err
	}
	s.conflictStats.UpdateFiles = len(files)
	ures, err := s.conflictUpdate(ctx, st, t, cols, arb, matched, files, p, false)
	if err != nil {
		res.rest.Close()
		return nil, err
	}
	res.updated = tagCount(ures.tag)
	if ures.op != nil {
		res.rows = ures
	}
	return res, nil
}

func errSecondTime() error {
	e := pgerr.New(pgerr.CardinalityViolation, "ON CONFLICT DO UPDATE command cannot affect row a second time")
	e.Hint = "Ensure that no rows proposed for insertion within the same command have duplicate constrained values."
	return e
}

// checkSecondUpdates applies PostgreSQL's rule to an existing key proposed
// several times with DO UPDATE … WHERE: the rows are taken in input order,
// and once one of them has updated the row (its WHERE held), a later one
// is a 21000; rows whose WHERE fails update nothing. byKey lists the
// conflicting rows' input positions by key; the WHERE is evaluated for
// them all in one join of the table with the conflicting rows.
func (s *Session) checkSecondUpdates(ctx context.Context, st *pg.InsertStmt, t *catalog.Table, cols []exec.ScanCol, arb []catalog.Constraint, rows *exec.RowBuffer, byKey map[int32][]int64, p *planner.Params) error {
	many := false
	for _, ords := range byKey {
		many = many || len(ords) > 1
	}
	if !many {
		return nil
	}
	excl, where := s.conflictJoin(st, t, cols, arb)
	alias := t.Name
	if st.Relation.Alias != nil {
		alias = st.Relation.Alias.Aliasname
	}
	self := &pg.RangeVar{Schemaname: st.Relation.Schemaname, Relname: st.Relation.Relname, Inh: true, Relpersistence: "p", Alias: &pg.Alias{Aliasname: alias}, Location: -1}
	dummy := &pg.Node{Node: &pg.Node_InsertStmt{InsertStmt: &pg.InsertStmt{}}}
	sel := &pg.SelectStmt{
		TargetList:  []*pg.Node{{Node: &pg.Node_ResTarget{ResTarget: &pg.ResTarget{Val: planner.ColRefNode(planner.ScopeCol{Table: excludedName, Name: ordName}), Location: -1}}}},
		FromClause:  []*pg.Node{{Node: &pg.Node_RangeVar{RangeVar: self}}, {Node: &pg.Node_RangeVar{RangeVar: &pg.RangeVar{Relname: excludedName, Inh: true, Relpersistence: "p", Location: -1}}}},
		WhereClause: where,
		WithClause:  &pg.WithClause{Ctes: []*pg.Node{{Node: &pg.Node_CommonTableExpr{CommonTableExpr: &pg.CommonTableExpr{Ctename: excludedName, Ctequery: dummy, Location: -1}}}}},
		Op:          pg.SetOperation_SETOP_NONE,
	}
	s.WrittenCTEs = map[string]*planner.WrittenCTE{excludedName: {Cols: excl, Rows: rows, Qualified: true}}
	q, err := s.PlanQuery(ctx, sel, p, false)
	s.WrittenCTEs = nil
	if err != nil {
		return err
	}
	passed := map[int64]bool{}
	err = exec.Drain(ctx, q.Op, func(b *vec.Batch) error {
		for r := 0; r < b.N; r++ {
			passed[b.Vecs[0].I64[r]] = true
		}
		return nil
	})
	q.Op.Close()
	if err != nil {
		return err
	}
	for _, ords := range byKey {
		for i, o := range ords {
			if passed[o] && i < len(ords)-1 {
				return errSecondTime()
			}
		}
	}
	return nil
}

// conflictJoin is the excluded rows' columns and the condition joining
// them to the table: t.key = excluded.key [AND where].
func (s *Session) conflictJoin(st *pg.InsertStmt, t *catalog.Table, cols []exec.ScanCol, arb []catalog.Constraint) ([]Column, *pg.Node) {
	cl := st.OnConflictClause
	var excl []Column
	for _, c := range cols {
		excl = append(excl, Column{Name: c.Name, Type: c.T})
	}
	excl = append(excl, Column{Name: ordName, Type: types.Int64T})
	alias := t.Name
	if st.Relation.Alias != nil {
		alias = st.Relation.Alias.Aliasname
	}
	var conds []*pg.Node
	for _, id := range arb[0].Columns {
		for _, c := range t.Columns {
			if c.ID == id {
				conds = append(conds, pg.MakeAExprNode(pg.A_Expr_Kind_AEXPR_OP, []*pg.Node{pg.MakeStrNode("=")},
					planner.ColRefNode(planner.ScopeCol{Table: alias, Name: c.Name}), planner.ColRefNode(planner.ScopeCol{Table: excludedName, Name: c.Name}), -1))
			}
		}
	}
	if cl.WhereClause != nil {
		conds = append(conds, cl.WhereClause)
	}
	where := conds[0]
	if len(conds) > 1 {
		where = pg.MakeBoolExprNode(pg.BoolExprType_AND_EXPR, conds, -1)
	}
	return excl, where
}

// conflictUpdate runs DO UPDATE as UPDATE t SET … FROM excluded WHERE
// t.key = excluded.key [AND where] over the conflicting rows; with
// describeOnly (rows nil) it only binds.
func (s *Session) conflictUpdate(ctx context.Context, st *pg.InsertStmt, t *catalog.Table, cols []exec.ScanCol, arb []catalog.Constraint, rows *exec.RowBuffer, files map[int64]bool, p *planner.Params, describeOnly bool) (*Result, error) {
	cl := st.OnConflictClause
	excl, where := s.conflictJoin(st, t, cols, arb)
	retList := st.ReturningList
	if len(retList) > 0 {
		// each returned row says where it was in the input (mergeReturning)
		ord := &pg.Node{Node: &pg.Node_ResTarget{ResTarget: &pg.ResTarget{Val: planner.ColRefNode(planner.ScopeCol{Table: excludedName, Name: ordName}), Location: -1}}}
		retList = append(append([]*pg.Node(nil), retList...), ord)
	}
	from := []*pg.Node{{Node: &pg.Node_RangeVar{RangeVar: &pg.RangeVar{Relname: excludedName, Inh: true, Relpersistence: "p", Location: -1}}}}
	s.upsert = &upsertState{name: excludedName, excluded: &planner.WrittenCTE{Cols: excl, Rows: rows, Qualified: true}, files: files}
	defer func() { s.upsert = nil }()
	return s.modify(ctx, st.Relation, from, where, cl.TargetList, retList, p, describeOnly)
}

// describeOnConflict binds an ON CONFLICT clause (to infer the types of
// its parameters).
func (s *Session) describeOnConflict(ctx context.Context, st *pg.InsertStmt, p *planner.Params, t *catalog.Table, cols []exec.ScanCol) error {
	cl := st.OnConflictClause
	if cl.Action != pg.OnConflictAction_ONCONFLICT_UPDATE || isTempTable(t) {
		return nil
	}
	head, err := s.writeHead(ctx)
	if err != nil {
		return err
	}
	meta, err := s.Metadata(ctx, head)
	if err != nil {
		return err
	}
	arb, err := s.arbiters(meta, t, cl)
	if err != nil {
		return err
	}
	_, err = s.conflictUpdate(ctx, st, t, cols, arb, nil, nil, p, true)
	return err
}

// tagCount is the row count at the end of a command tag.
func tagCount(tag string) int64 {
	n, _ := strconv.ParseInt(tag[strings.LastIndexByte(tag, ' ')+1:], 10, 64)
	return n
}

// addToTag adds n to an INSERT tag's count (ON CONFLICT's updated rows).
func addToTag(tag string, n int64) string {
	if n == 0 {
		return tag
	}
	return fmt.Sprintf("%s%d", tag[:strings.LastIndexByte(tag, ' ')+1], tagCount(tag)+n)
}
