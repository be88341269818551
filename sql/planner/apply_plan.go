package planner

import (
	"context"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/fn"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/sql/planner/bind"
	"github.com/lakepg/lakepg/sql/planner/logical"
	"github.com/lakepg/lakepg/sql/planner/optree"
	"github.com/lakepg/lakepg/types"
)

// Planning a correlated subquery per outer key (applyOp, apply.go). The
// subquery is planned like any query, with one more scope: the outer row
// (an outerFrame). A name that resolves in none of the subquery's own
// scopes resolves there and binds as a constant, the row's value, so the
// plan for one key filters, prunes files and runs exactly as the same
// query with that value written in. Planning it first with no row
// (discovery, typed NULLs, nothing listed or run) tells its columns and
// which outer columns it reads: those make the cache key.
//
// Every key's plan reads the table sources the first one listed (same
// snapshot, files and inlined rows: qc.tables), so per-key planning costs
// no catalog round trips.

// outerFrame is an enclosing query's row, as seen from a subquery planned
// per outer key.
type outerFrame struct {
	sc *Scope
	// vals are the row's values by column of sc (one-row vectors); nil
	// while discovering
	vals []*vec.Vector
	plan *applyPlan
	// barrier: a query level between the subquery and the frames beyond,
	// planned by the join rewrites; its names are not constants, and
	// they hide the same names further out
	barrier bool
	// ungrouped: the input columns of an aggregation whose groups the
	// subquery reads; reaching one of them is an error
	ungrouped bool
}

// OuterColumn resolves, for b, a column reference that failed (err) in its
// own query against the enclosing rows of per-key planning; ok is false
// when none has it, and the caller reports err.
func (qc *QueryCtx) OuterColumn(b *Binder, names []string, loc int32, err error) (exec.Expr, bool, error) {
	if len(qc.outer) == 0 {
		return nil, false, nil
	}
	if pe, isPG := pgerr.As(err); !isPG || (pe.Code != pgerr.UndefinedColumn && pe.Code != pgerr.UndefinedTable) {
		return nil, false, nil
	}
	table, col := "", names[len(names)-1]
	if len(names) > 1 {
		table = names[len(names)-2]
	}
	for i := len(qc.outer) - 1; i >= 0; i-- {
		f := qc.outer[i]
		if !f.sc.Resolves(table, col) {
			continue
		}
		if f.barrier {
			return nil, false, nil
		}
		if f.ungrouped {
			name := col
			if table != "" {
				name = table + "." + col
			}
			return nil, false, ErrAt(pgerr.New(pgerr.GroupingError, "subquery uses ungrouped column \"%s\" from outer query", name), loc)
		}
		idx, ferr := b.FindColumn(f.sc, names, loc)
		if ferr != nil {
			return nil, false, ferr
		}
		f.plan.read(idx)
		if f.vals == nil {
			// finding what the subquery reads (and describing it): a
			// value planning does not fold, as an outer row's is not known
			c := exec.NullConst(f.sc.Cols[idx].T)
			c.Param = true
			return c, true, nil
		}
		return exec.NewConst(f.vals[idx]), true, nil
	}
	return nil, false, nil
}

// applyPlan plans one correlated subquery for each outer key.
type applyPlan struct {
	qc    *QueryCtx // copied for each key's planning
	sel   *pg.SelectStmt
	sc    *Scope // the outer row's columns
	reads []bool // outer columns the subquery reads
	keys  []int  // the same, in the order they were found
	want  []types.T
	// pins keep WITH results that the key plans share alive between keys
	pins []*exec.MaterializedReader
	// volatile: the subquery calls random() or the like, so every outer
	// row runs it afresh, as PostgreSQL does; nothing is cached
	volatile bool
}

// callsVolatile reports a call of a volatile function anywhere in n, its
// subqueries included.
func callsVolatile(n proto.Message) bool {
	found := false
	var visit func(m protoreflect.Message)
	visit = func(m protoreflect.Message) {
		if fc, ok := m.Interface().(*pg.FuncCall); ok && fn.Volatile(FuncName(fc)) {
			found = true
		}
		m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			switch {
			case found:
			case fd.IsList() && fd.Message() != nil:
				for i := 0; i < v.List().Len(); i++ {
					visit(v.List().Get(i).Message())
				}
			case fd.Message() != nil && !fd.IsMap():
				visit(v.Message())
			}
			return !found
		})
	}
	visit(n.ProtoReflect())
	return found
}

func (p *applyPlan) read(i int) {
	if !p.reads[i] {
		p.reads[i] = true
		p.keys = append(p.keys, i)
	}
}

func (p *applyPlan) keyCols() []int { return p.keys }

// discoverApply plans sel once without an outer row: its columns, the
// outer columns it reads, and the errors a wrong query gets at planning.
func (qc *QueryCtx) discoverApply(cur *Source, sel *pg.SelectStmt) (*applyPlan, *query, error) {
	p := &applyPlan{sel: sel, reads: make([]bool, len(cur.Sc.Cols)), volatile: callsVolatile(sel)}
	d := *qc
	d.DescribeOnly = true
	d.subCols, d.srfCols = map[*pg.SubLink]exec.Expr{}, map[*pg.FuncCall]exec.Expr{}
	d.outer = append(qc.outer[:len(qc.outer):len(qc.outer)], &outerFrame{sc: cur.Sc, plan: p})
	q, err := d.PlanSelect(sel)
	if err != nil {
		return nil, nil, err
	}
	q.Op.Close()
	for _, c := range q.Cols {
		p.want = append(p.want, c.Type)
	}
	base := *qc
	base.corr = nil
	if base.tables == nil {
		base.tables = map[*pg.RangeVar]*Source{}
	}
	p.qc = &base
	// the key plans bind the outer columns as constants: they must not
	// mark the running outer scan's columns
	p.sc = &Scope{Cols: append([]ScopeCol{}, cur.Sc.Cols...)}
	for i := range p.sc.Cols {
		p.sc.Cols[i].Used = nil
	}
	return p, q, nil
}

// open plans the subquery for row i of in (the outer rows); grew reports
// that it read an outer column no earlier key did.
func (p *applyPlan) open(ctx context.Context, in *vec.Batch, i int) (exec.Operator, bool, error) {
	vals := make([]*vec.Vector, len(p.sc.Cols))
	for c := range vals {
		vals[c] = vec.Constant(in.Vecs[c], i, 1)
	}
	sub := *p.qc
	sub.ctx = ctx
	sub.subCols, sub.srfCols = map[*pg.SubLink]exec.Expr{}, map[*pg.FuncCall]exec.Expr{}
	sub.outer = append(p.qc.outer[:len(p.qc.outer):len(p.qc.outer)], &outerFrame{sc: p.sc, vals: vals, plan: p})
	nkeys := len(p.keys)
	q, err := sub.PlanSelect(p.sel)
	if err != nil {
		return nil, false, err
	}
	for c, col := range q.Cols {
		if c >= len(p.want) || col.Type != p.want[c] {
			q.Op.Close()
			return nil, false, pgerr.New(pgerr.Internal, "subquery planned for an outer row returns %s, not %s", col.Type, p.want[c])
		}
	}
	p.pin(q.Op)
	return q.Op, len(p.keys) > nkeys, nil
}

// pin keeps a WITH query that the key plans read through a shared
// Materialized from being released when one key's plan closes its reader.
func (p *applyPlan) pin(op exec.Operator) {
	if par, ok := op.(*exec.Parallel); ok && par.Rows != nil {
		op = par.Rows
	}
	if r, ok := op.(*exec.MaterializedReader); ok {
		for _, x := range p.pins {
			if x.M == r.M {
				return
			}
		}
		p.pins = append(p.pins, r.M.Reader())
		return
	}
	for _, in := range optree.Inputs(op) {
		p.pin(*in)
	}
}

func (p *applyPlan) close() {
	for _, r := range p.pins {
		r.Close()
	}
	p.pins = nil
}

// applyRows joins cur with the rows of the correlated subquery sel for
// each of its rows (LATERAL); left keeps outer rows without any (LEFT JOIN
// LATERAL … ON). on, when set, filters the subquery's rows (it may read
// both sides).
func (qc *QueryCtx) applyRows(cur *Source, sel *pg.SelectStmt, alias *pg.Alias, on *pg.Node, left bool) (*Source, error) {
	name, colAliases := "", []string(nil)
	if alias != nil {
		name, colAliases = alias.Aliasname, StrNodes(alias.Colnames)
	}
	if on != nil {
		// SELECT * FROM (sel) alias WHERE on: the subquery's rows that meet
		// the join condition, for one outer row
		rs := &pg.RangeSubselect{Subquery: &pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: sel}}, Alias: alias}
		star := &pg.Node{Node: &pg.Node_ColumnRef{ColumnRef: &pg.ColumnRef{Fields: []*pg.Node{{Node: &pg.Node_AStar{AStar: &pg.A_Star{}}}}, Location: -1}}}
		sel = &pg.SelectStmt{
			TargetList:  []*pg.Node{{Node: &pg.Node_ResTarget{ResTarget: &pg.ResTarget{Val: star, Location: -1}}}},
			FromClause:  []*pg.Node{{Node: &pg.Node_RangeSubselect{RangeSubselect: rs}}},
			WhereClause: on,
			Op:          pg.SetOperation_SETOP_NONE,
		}
		colAliases = nil
	}
	p, q, err := qc.discoverApply(cur, sel)
	if err != nil {
		return nil, err
	}
	mode := applyJoin
	if left {
		mode = applyLeftJoin
	}
	op := &applyOp{env: qc.env, input: cur.op, mode: mode, cols: p.want, plan: p}
	op.cache.off = p.volatile
	nOuter := len(cur.Sc.Cols)
	sc := &Scope{Cols: append([]ScopeCol{}, cur.Sc.Cols...)}
	for _, c := range q.Cols {
		sc.Cols = append(sc.Cols, ScopeCol{Table: name, Name: c.Name, T: c.Type, Rec: c.Rec})
	}
	if err := renameCols(&Scope{Cols: sc.Cols[nOuter:]}, colAliases, name); err != nil {
		return nil, err
	}
	return &Source{op: op, Sc: sc, scans: cur.scans, rows: cur.rows}, nil
}

// applyValue computes the value of the correlated subquery of sl (a
// scalar subquery, EXISTS, ARRAY or ANY/ALL) for each row of cur, as a
// hidden column remembered for the binder.
func (qc *QueryCtx) applyValue(cur *Source, sl *pg.SubLink, sel *pg.SelectStmt) (*Source, error) {
	op, err := qc.applyValueOver(cur.Sc, nil, sl, sel)
	if err != nil {
		return nil, err
	}
	op.input = cur.op
	t := op.cols[0]
	sc := &Scope{Cols: append([]ScopeCol{}, cur.Sc.Cols...)}
	sc.Cols = append(sc.Cols, ScopeCol{Name: "\x00sub", T: t, Hidden: true})
	qc.subCols[sl] = &exec.ColRef{Idx: len(sc.Cols) - 1, T: t}
	return &Source{op: op, Sc: sc, scans: cur.scans, rows: cur.rows}, nil
}

// applyValueOver plans the value of sl per row of an input whose first
// columns are sc (the caller sets the input); beyond, when set, is a
// frame the subquery's names reach after sc's.
func (qc *QueryCtx) applyValueOver(sc *Scope, beyond *outerFrame, sl *pg.SubLink, sel *pg.SelectStmt) (*applyOp, error) {
	b := qc.binder()
	return qc.applyValueWith(func(n *pg.Node) (exec.Expr, error) { return b.Bind(n, sc) }, sc, beyond, sl, sel)
}

// applyValueWith is applyValueOver binding the left operand of IN/ANY/ALL
// with bindTest.
func (qc *QueryCtx) applyValueWith(bindTest func(*pg.Node) (exec.Expr, error), sc *Scope, beyond *outerFrame, sl *pg.SubLink, sel *pg.SelectStmt) (*applyOp, error) {
	op := &applyOp{env: qc.env}
	switch sl.SubLinkType {
	case pg.SubLinkType_EXPR_SUBLINK:
		op.mode = applyScalar
	case pg.SubLinkType_EXISTS_SUBLINK:
		op.mode = applyExists
	case pg.SubLinkType_ARRAY_SUBLINK:
		op.mode = applyArray
	case pg.SubLinkType_ANY_SUBLINK:
		op.mode = applyAny
	case pg.SubLinkType_ALL_SUBLINK:
		op.mode = applyAll
	default:
		return nil, ErrAt(pgerr.New(pgerr.FeatureNotSupported, "this kind of correlated subquery is not supported yet"), sl.Location)
	}
	base := qc
	if beyond != nil {
		b := *qc
		b.outer = append(qc.outer[:len(qc.outer):len(qc.outer)], beyond)
		base = &b
	}
	p, q, err := base.discoverApply(&Source{Sc: sc}, sel)
	if err != nil {
		return nil, err
	}
	op.plan = p
	op.cache.off = p.volatile
	if op.mode != applyExists && len(q.Cols) != 1 {
		msg := "subquery must return only one column"
		if op.mode == applyAny || op.mode == applyAll {
			msg = "subquery has too many columns"
		}
		return nil, ErrAt(pgerr.New(pgerr.SyntaxError, "%s", msg), sl.Location)
	}
	var t types.T
	switch op.mode {
	case applyScalar:
		t = q.Cols[0].Type
	case applyExists:
		t = types.BoolT
	case applyArray:
		et := q.Cols[0].Type
		if et.ID == types.Array {
			return nil, ErrAt(pgerr.New(pgerr.FeatureNotSupported, "ARRAY(subquery) over arrays (multidimensional arrays) is not supported"), sl.Location)
		}
		t = types.ArrayOf(et)
		op.arrayT = t
	default:
		if sl.Testexpr.GetRowExpr() != nil {
			return nil, ErrAt(pgerr.New(pgerr.FeatureNotSupported, "row comparisons with correlated subqueries are not supported yet"), sl.Location)
		}
		test, err := bindTest(sl.Testexpr)
		if err != nil {
			return nil, err
		}
		b := qc.binder()
		name := "="
		if names := StrNodes(sl.OperName); len(names) > 0 {
			name = names[len(names)-1]
		}
		cmp, err := b.BinaryOp(name, &exec.ColRef{Idx: 0, T: test.Type()}, &exec.ColRef{Idx: 1, T: q.Cols[0].Type}, sl.Location)
		if err != nil {
			return nil, err
		}
		if cmp, err = b.CoerceBool(cmp, sl.Testexpr, "operator of ANY/ALL"); err != nil {
			return nil, err
		}
		op.test, op.cmp, t = test, cmp, types.BoolT
	}
	op.cols = []types.T{t}
	return op, nil
}

// joinable reports whether the join rewrites of plan_subquery.go can
// plan a correlated subquery of sel's shape; the rest runs per outer key.
func joinable(sel *pg.SelectStmt) bool {
	return sel.Op == pg.SetOperation_SETOP_NONE && sel.WithClause == nil && len(sel.ValuesLists) == 0 &&
		len(sel.GroupClause) == 0 && sel.HavingClause == nil && sel.LimitCount == nil && sel.LimitOffset == nil &&
		len(sel.DistinctClause) == 0 && len(sel.SortClause) == 0 && len(sel.WindowClause) == 0 && !hasWindowCall(sel.TargetList)
}

// aggregates reports whether sel's select list or ORDER BY calls an
// aggregate: without GROUP BY, sel then has one row (or, with HAVING,
// at most one) whatever rows its FROM and WHERE keep, not one per row.
func aggregates(sel *pg.SelectStmt) bool {
	for _, t := range sel.TargetList {
		if rt := t.GetResTarget(); rt != nil && ContainsAgg(rt.Val) {
			return true
		}
	}
	for _, s := range sel.SortClause {
		if sb := s.GetSortBy(); sb != nil && ContainsAgg(sb.Node) {
			return true
		}
	}
	return false
}

// oneRow reports whether sel, whatever its FROM and WHERE keep, has
// exactly one row: an aggregation without GROUP BY, HAVING, LIMIT,
// OFFSET, set operation or set-returning function (EXISTS over it is
// true, as PostgreSQL answers).
func oneRow(sel *pg.SelectStmt) bool {
	return sel.Op == pg.SetOperation_SETOP_NONE && len(sel.GroupClause) == 0 && sel.HavingClause == nil &&
		sel.LimitCount == nil && sel.LimitOffset == nil && aggregates(sel) && len(srfCalls(sel.TargetList)) == 0
}

// existsShape is sel without what cannot change whether it has a row,
// or which values it has for IN: ORDER BY, DISTINCT and (exists) a LIMIT
// of at least one; ok is false when the rest is still not joinable.
func existsShape(sel *pg.SelectStmt, exists bool) (*pg.SelectStmt, bool) {
	if aggregates(sel) {
		return nil, false // one row per outer row, not one per inner row
	}
	if joinable(sel) {
		return sel, true
	}
	if sel.Op != pg.SetOperation_SETOP_NONE || sel.WithClause != nil || len(sel.ValuesLists) > 0 ||
		len(sel.GroupClause) > 0 || sel.HavingClause != nil || sel.LimitOffset != nil || len(sel.WindowClause) > 0 || hasWindowCall(sel.TargetList) {
		return nil, false
	}
	if distinctOn := len(sel.DistinctClause) > 0 && sel.DistinctClause[0] != nil && sel.DistinctClause[0].Node != nil; distinctOn && !exists {
		return nil, false // DISTINCT ON picks which values there are
	}
	if sel.LimitCount != nil {
		c := sel.LimitCount.GetAConst()
		if !exists || c == nil || c.GetIval() == nil || c.GetIval().Ival < 1 || sel.LimitOption != pg.LimitOption_LIMIT_OPTION_COUNT && sel.LimitOption != pg.LimitOption_LIMIT_OPTION_DEFAULT {
			return nil, false
		}
	}
	s := proto.Clone(sel).(*pg.SelectStmt)
	s.SortClause, s.DistinctClause, s.LimitCount, s.LimitOption = nil, nil, nil, pg.LimitOption_LIMIT_OPTION_DEFAULT
	return s, true
}

func hasWindowCall(targets []*pg.Node) bool {
	found := false
	for _, t := range targets {
		Walk(t, func(x *pg.Node) bool {
			if f := x.GetFuncCall(); f != nil && f.Over != nil {
				found = true
			}
			return !found && x.GetSubLink() == nil
		})
	}
	return found
}

// retryable reports whether a join rewrite's failure may be a shape it
// does not handle (or a name it cannot place), so that planning per
// outer key is worth trying; that planning reports real errors itself.
func retryable(err error) bool {
	pe, ok := pgerr.As(err)
	return ok && (pe.Code == pgerr.FeatureNotSupported || pe.Code == pgerr.UndefinedColumn || pe.Code == pgerr.UndefinedTable)
}

// subColsMark and undoSubCols forget what a failed join rewrite
// remembered for the binder, before planning per key instead.
func (qc *QueryCtx) subColsMark() map[*pg.SubLink]bool {
	m := make(map[*pg.SubLink]bool, len(qc.subCols))
	for k := range qc.subCols {
		m[k] = true
	}
	return m
}

func (qc *QueryCtx) undoSubCols(mark map[*pg.SubLink]bool) {
	for k := range qc.subCols {
		if !mark[k] {
			delete(qc.subCols, k)
		}
	}
}

// hideFrom marks the columns of src from n on hidden: subquery values
// joined in for the binder, which `*` must not show.
func hideFrom(src *Source, n int) *Source {
	if len(src.Sc.Cols) <= n {
		return src
	}
	out := *src
	out.Sc = &Scope{Cols: append([]ScopeCol{}, src.Sc.Cols...), Shadow: src.Sc.Shadow}
	for i := n; i < len(out.Sc.Cols); i++ {
		out.Sc.Cols[i].Hidden = true
	}
	return &out
}

// cachedTable is a fresh copy of the table source planned for rv by an
// earlier key of per-key planning.
func (qc *QueryCtx) cachedTable(rv *pg.RangeVar) (*Source, bool) {
	if qc.tables == nil || qc.DescribeOnly {
		return nil, false
	}
	t, ok := qc.tables[rv]
	if !ok {
		return nil, false
	}
	return qc.s.copyTableSource(t), true
}

// keepTable remembers a table source just planned for rv (before any
// filter is pushed into it) for the next keys of per-key planning.
func (qc *QueryCtx) keepTable(rv *pg.RangeVar, src *Source) {
	if qc.tables == nil || qc.DescribeOnly {
		return
	}
	if c := qc.s.copyTableSource(src); c != nil {
		qc.tables[rv] = c
	}
}

// copyTableSource copies a table or system-table source that has not run:
// the same files and rows, its own scan state; nil for other sources.
func (s *Session) copyTableSource(src *Source) *Source {
	out := *src
	out.Sc = &Scope{Cols: append([]ScopeCol{}, src.Sc.Cols...), Shadow: src.Sc.Shadow}
	switch o := src.op.(type) {
	case *exec.TableScan:
		scan := *o
		scan.Files = append([]exec.ScanFile(nil), o.Files...)
		scan.Needed = make([]bool, len(o.Needed))
		for i := range out.Sc.Cols {
			if out.Sc.Cols[i].Used != nil && i < len(scan.Needed) {
				out.Sc.Cols[i].Used = &scan.Needed[i]
			}
		}
		out.op, out.scans = &scan, []*exec.TableScan{&scan}
		if src.Ref != nil {
			ref := *src.Ref
			ref.Scan, ref.bounds = &scan, nil
			out.Ref = &ref
			if s.scanRefs != nil {
				s.scanRefs[&scan] = &ref
			}
		}
	case *exec.BatchSource:
		out.op = &exec.BatchSource{B: o.B, T: o.T, Lazy: o.Lazy}
	default:
		return nil
	}
	return &out
}

// tableSourceFor plans the lake table rv names (a copy of an earlier
// key's, in per-key planning).
func (qc *QueryCtx) tableSourceFor(rv *pg.RangeVar, alias string) (*Source, error) {
	if src, ok := qc.cachedTable(rv); ok {
		return src, nil
	}
	snap, err := qc.s.Host.ReadSnapshot(qc.ctx)
	if err != nil {
		return nil, err
	}
	src, err := qc.s.TableSource(qc.ctx, snap, rv.Schemaname, rv.Relname, alias, rv.Location, qc.DescribeOnly)
	if err == nil {
		qc.keepTable(rv, src)
	}
	return src, err
}

// systemTableFor is systemTable for rv, copied from an earlier key's in
// per-key planning.
func (qc *QueryCtx) systemTableFor(rv *pg.RangeVar, alias string) (*Source, bool, error) {
	if src, ok := qc.cachedTable(rv); ok {
		return src, true, nil
	}
	src, ok, err := qc.systemTable(rv.Schemaname, rv.Relname, alias)
	if ok && err == nil {
		qc.keepTable(rv, src)
	}
	return src, ok, err
}

// lateralJoinExpr plans `l [INNER | LEFT] JOIN LATERAL (subquery) ON …`
// when the subquery reads l: per outer key, its rows filtered by the join
// condition. ok is false for every other join, planned as usual.
func (qc *QueryCtx) lateralJoinExpr(l *Source, j *pg.JoinExpr) (*Source, bool, error) {
	rs := j.Rarg.GetRangeSubselect()
	if rs == nil || !rs.Lateral || len(j.UsingClause) > 0 || j.IsNatural {
		return nil, false, nil
	}
	if j.Jointype != pg.JoinType_JOIN_INNER && j.Jointype != pg.JoinType_JOIN_LEFT {
		return nil, false, nil
	}
	sel := rs.Subquery.GetSelectStmt()
	if _, ok, err := qc.standaloneIn(sel, l.Sc); err != nil || ok {
		return nil, false, err
	}
	on := j.Quals
	if c := on.GetAConst(); c != nil && c.GetBoolval() != nil && c.GetBoolval().Boolval {
		on = nil // ON true
	}
	out, err := qc.applyRows(l, sel, rs.Alias, on, j.Jointype == pg.JoinType_JOIN_LEFT)
	if err != nil {
		return nil, true, err
	}
	if j.Alias != nil {
		for i := range out.Sc.Cols {
			out.Sc.Cols[i].Table = j.Alias.Aliasname
		}
	}
	return out, true, nil
}

// prepareJoinSubLinks joins in the values of correlated subqueries in the
// ON condition of an explicit join: each is computed over the side it
// reads (l first, else r), so the condition binds over both sides.
func (qc *QueryCtx) prepareJoinSubLinks(l, r *Source, quals []*pg.Node) (*Source, *Source, error) {
	var onRight []*pg.SubLink
	for _, q := range quals {
		if !hasSubLink(q) {
			continue
		}
		mark := qc.subColsMark()
		l2, err := qc.prepareScalarSubLinks(l, q)
		if err == nil {
			l = l2
			continue
		}
		qc.undoSubCols(mark)
		r2, rerr := qc.prepareScalarSubLinks(r, q)
		if rerr != nil {
			qc.undoSubCols(mark)
			return nil, nil, err
		}
		r = r2
		for sl := range qc.subCols {
			if !mark[sl] {
				onRight = append(onRight, sl)
			}
		}
	}
	// values computed over r are columns of r: after l's in the join
	nl := len(l.Sc.Cols)
	for _, sl := range onRight {
		qc.subCols[sl] = exec.MapColumns(qc.subCols[sl], func(i int) int { return i + nl })
	}
	return l, r, nil
}

// lateSubLinks are correlated subqueries planned above an operator: above
// an aggregation (in its select list, HAVING or ORDER BY), where they read
// the groups' key columns and run per group over the aggregate's output,
// or above the window operators (windowTestSubLinks).
type lateSubLinks struct {
	ops  []*applyOp
	base int // lateSubRef or lateWinRef
	// sc and beyond are what the grouped subqueries see: the groups, and
	// the input rows' names beyond them
	sc     *Scope
	beyond *outerFrame
}

func (qc *QueryCtx) prepareGroupedSubLinks(sel *pg.SelectStmt, in *Scope, coll *bind.AggCollector, b *Binder, outerAggs map[*pg.SubLink]*bind.OuterAggLink) (*lateSubLinks, error) {
	g := &lateSubLinks{base: bind.LateSubRef}
	nodes := []*pg.Node{sel.HavingClause}
	for _, t := range sel.TargetList {
		nodes = append(nodes, t.GetResTarget().Val)
	}
	for _, sb := range sel.SortClause {
		nodes = append(nodes, sb.GetSortBy().Node)
	}
	var links []*pg.SubLink
	for _, n := range nodes {
		Walk(n, func(x *pg.Node) bool {
			if sl := x.GetSubLink(); sl != nil {
				links = append(links, sl)
				return false
			}
			return !bind.IsAggCall(x) // those in aggregate arguments run before it
		})
	}
	// aggregates of this query that its subqueries read (bind/outer_agg.go)
	var aggCols []bind.AggScopeCol
	for _, sl := range links {
		if link := outerAggs[sl]; link != nil {
			var err error
			if aggCols, err = coll.BindOuterAggs(b, link, in, aggCols); err != nil {
				return nil, err
			}
		}
	}
	// the groups as the subqueries see them: the key columns by name, then
	// the aggregates they read, by their synthetic names
	gsc := &Scope{}
	for i, e := range coll.Groups {
		c := ScopeCol{Name: "\x00group", T: e.Type(), Hidden: true}
		if k := coll.GroupCols[i]; k >= 0 && k < len(in.Cols) {
			c = in.Cols[k]
			c.Used, c.T = nil, e.Type()
		}
		gsc.Cols = append(gsc.Cols, c)
	}
	for _, a := range aggCols {
		for len(gsc.Cols) <= a.Col.Idx {
			gsc.Cols = append(gsc.Cols, ScopeCol{Name: "\x00agg", Hidden: true})
		}
		gsc.Cols[a.Col.Idx] = ScopeCol{Name: a.Name, T: a.Col.T}
	}
	ungrouped := &outerFrame{sc: in, ungrouped: true}
	g.sc, g.beyond = gsc, ungrouped
	for _, sl := range links {
		if _, done := qc.subCols[sl]; done {
			continue
		}
		sub := sl.Subselect.GetSelectStmt()
		link := outerAggs[sl]
		if link == nil || link.Sel == sub {
			if _, ok, err := qc.standaloneIn(sub, in); err != nil {
				return nil, err
			} else if ok {
				continue // uncorrelated: the binder runs it once
			}
		}
		planned := sl
		if link != nil {
			sub = link.Sel
			if link.Test != nil {
				planned = &pg.SubLink{SubLinkType: sl.SubLinkType, SubLinkId: sl.SubLinkId, Testexpr: link.Test, OperName: sl.OperName, Subselect: sl.Subselect, Location: sl.Location}
			}
		}
		op, err := qc.applyValueOver(gsc, ungrouped, planned, sub)
		if err != nil {
			return nil, err
		}
		qc.subCols[sl] = &exec.ColRef{Idx: bind.LateSubRef + len(g.ops), T: op.cols[0]}
		g.ops = append(g.ops, op)
	}
	return g, nil
}

// windowTestSubLinks reserves the late columns of the correlated IN, ANY
// and ALL subqueries of nodes whose left operand holds a window function:
// that operand has a value only above the window operators, so they run
// per row there (planWindowTests, nodes), and the joins of correlated
// subqueries below pass them by.
func (qc *QueryCtx) windowTestSubLinks(nodes []*pg.Node, sc *Scope) ([]*pg.SubLink, error) {
	var links []*pg.SubLink
	for _, n := range nodes {
		var err error
		Walk(n, func(x *pg.Node) bool {
			sl := x.GetSubLink()
			if sl == nil || err != nil {
				return sl == nil && err == nil
			}
			if sl.Testexpr == nil || !hasWindowCall([]*pg.Node{sl.Testexpr}) {
				return false
			}
			if _, done := qc.subCols[sl]; done {
				return false
			}
			var ok bool
			if _, ok, err = qc.standaloneIn(sl.Subselect.GetSelectStmt(), sc); err == nil && !ok {
				qc.subCols[sl] = &exec.ColRef{Idx: bind.LateWinRef + len(links), T: types.BoolT}
				links = append(links, sl)
			}
			return false
		})
		if err != nil {
			return nil, err
		}
	}
	return links, nil
}

// planWindowTests plans the subqueries windowTestSubLinks reserved over
// sc (beyond: as applyValueOver), with bindTest binding their left
// operands, window calls included.
func (qc *QueryCtx) planWindowTests(links []*pg.SubLink, sc *Scope, beyond *outerFrame, bindTest func(*pg.Node) (exec.Expr, error)) (*lateSubLinks, error) {
	g := &lateSubLinks{base: bind.LateWinRef}
	for _, sl := range links {
		op, err := qc.applyValueWith(bindTest, sc, beyond, sl, sl.Subselect.GetSelectStmt())
		if err != nil {
			return nil, err
		}
		g.ops = append(g.ops, op)
	}
	return g, nil
}

// tests are the left operands of the subqueries, for remapping in place.
func (g *lateSubLinks) tests() []exec.Expr {
	out := make([]exec.Expr, len(g.ops))
	for i, a := range g.ops {
		out[i] = a.test
	}
	return out
}

func (g *lateSubLinks) setTests(tests []exec.Expr) {
	for i, a := range g.ops {
		a.test = tests[i]
	}
}

// nodes puts the subqueries above in as logical Apply nodes and points
// the expressions bound over its output at their values.
func (g *lateSubLinks) nodes(in logical.Node, lists [][]exec.Expr, having *exec.Expr) (logical.Node, error) {
	if len(g.ops) == 0 {
		return in, nil
	}
	n := len(in.Columns())
	for _, a := range g.ops {
		kind, ok := subqueryKinds[a.mode]
		if !ok || len(a.cols) != 1 {
			return nil, pgerr.New(pgerr.Internal, "no logical subquery of apply mode %d", a.mode)
		}
		in = logical.NewApply(in, kind, a, a.test, a.cols[0])
	}
	g.remap(n, lists, having)
	return in, nil
}

// subqueryKinds are the logical subqueries of the value modes of applyOp.
var subqueryKinds = map[applyMode]logical.SubqueryKind{applyScalar: logical.SubScalar, applyExists: logical.SubExists,
	applyArray: logical.SubArray, applyAny: logical.SubAny, applyAll: logical.SubAll}

// remap points the expressions of lists and having at the values of the
// subqueries, placed in order after the n columns below them.
func (g *lateSubLinks) remap(n int, lists [][]exec.Expr, having *exec.Expr) {
	remap := func(i int) int {
		if i >= g.base && i < g.base+len(g.ops) {
			return n + i - g.base
		}
		return i
	}
	for _, l := range lists {
		for i, e := range l {
			l[i] = exec.MapColumns(e, remap)
		}
	}
	if *having != nil {
		*having = exec.MapColumns(*having, remap)
	}
}

// prepareAggregateSubLinks joins in the values of correlated subqueries
// in the arguments, FILTER and ORDER BY of the aggregates of sel's select
// list, HAVING and ORDER BY: they are computed per input row of the
// aggregation, like any expression there.
func (qc *QueryCtx) prepareAggregateSubLinks(src *Source, sel *pg.SelectStmt) (*Source, error) {
	nodes := []*pg.Node{sel.HavingClause}
	for _, t := range sel.TargetList {
		nodes = append(nodes, t.GetResTarget().Val)
	}
	for _, sb := range sel.SortClause {
		nodes = append(nodes, sb.GetSortBy().Node)
	}
	var args []*pg.Node
	for _, n := range nodes {
		Walk(n, func(x *pg.Node) bool {
			if !bind.IsAggCall(x) {
				return true // walk enters a subquery's left operand only
			}
			f := x.GetFuncCall()
			args = append(args, f.Args...)
			args = append(args, f.AggFilter)
			for _, o := range f.AggOrder {
				args = append(args, o.GetSortBy().GetNode())
			}
			return false
		})
	}
	var err error
	for _, a := range args {
		if a != nil && hasSubLink(a) {
			if src, err = qc.prepareScalarSubLinks(src, a); err != nil {
				return nil, err
			}
		}
	}
	return src, nil
}
