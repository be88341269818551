package planner

import (
	"context"
	"slices"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/fn"
	"github.com/lakepg/lakepg/exec/parquetio"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/snapshot"
	"github.com/lakepg/lakepg/sql/pgcatalog"
	"github.com/lakepg/lakepg/sql/planner/bind"
	"github.com/lakepg/lakepg/sql/planner/laketypes"
	"github.com/lakepg/lakepg/sql/planner/logical"
	"github.com/lakepg/lakepg/sql/pruning"
	"github.com/lakepg/lakepg/types"
)

// LakeSchema is the virtual schema holding lakepg's own tables and functions.
const LakeSchema = "lakepg"

// planFromItem plans one FROM entry.
func (qc *QueryCtx) planFromItem(item *pg.Node) (*Source, error) {
	s, ctx := qc.s, qc.ctx
	switch x := item.Node.(type) {
	case *pg.Node_RangeVar:
		rv := x.RangeVar
		if t := qc.DmlTarget; t != nil && t.Rv == rv {
			return t.Src, nil
		}
		alias := rv.Relname
		var colAliases []string
		if rv.Alias != nil {
			alias = rv.Alias.Aliasname
			colAliases = StrNodes(rv.Alias.Colnames)
		}
		if rv.Schemaname == "" {
			if cte := qc.lookupCTE(rv.Relname); cte != nil {
				return qc.cteSource(cte, alias, colAliases, rv.Location)
			}
		}
		if src, ok, err := qc.tempSource(rv, alias, colAliases); ok { // sql/temp_dml.go
			return src, err
		}
		if rv.Schemaname == LakeSchema {
			return s.lakeTable(ctx, qc.binder(), rv.Relname, alias, rv.Location)
		}
		if src, ok, err := qc.systemTableFor(rv, alias); ok || err != nil {
			if oid, ok := catalogRelationOID(rv.Schemaname, rv.Relname); ok && err == nil && qc.tableOID {
				src = qc.withTableOID(src, oid, alias)
			}
			return src, err
		}
		if r, ok, err := qc.viewFor(rv); err != nil {
			return nil, err
		} else if ok {
			if err := qc.checkSelect(r.Schema, r.View.ID, "view", r.View.Name); err != nil { // sql/privileges/privileges_check.go
				return nil, err
			}
			return qc.viewSource(r, alias, colAliases, rv.Location) // sql/views.go
		}
		src, err := qc.tableSourceFor(rv, alias)
		if err != nil {
			return nil, err
		}
		if t := src.Ref.Table; !qc.DescribeOnly {
			if err := qc.checkSelect(src.Ref.Schema, t.ID, RelationWord(t, nil), t.Name); err != nil { // sql/privileges/privileges_check.go
				return nil, err
			}
		}
		if err := renameCols(src.Sc, colAliases, alias); err != nil {
			return nil, err
		}
		if qc.tableOID {
			src = qc.withTableOID(src, pgcatalog.RelationOID(src.Ref.Table.ID), alias)
		}
		return src, nil
	case *pg.Node_RangeFunction:
		return s.rangeFunction(ctx, qc.binder(), x.RangeFunction, qc.DescribeOnly)
	case *pg.Node_RangeSubselect:
		rs := x.RangeSubselect

		q, err := qc.PlanSelect(rs.Subquery.GetSelectStmt())
		if err != nil {
			return nil, err
		}
		alias, colAliases := "", []string(nil)
		if rs.Alias != nil {
			alias, colAliases = rs.Alias.Aliasname, StrNodes(rs.Alias.Colnames)
		}
		return querySource(q, alias, colAliases)
	case *pg.Node_JoinExpr:
		return qc.planJoinExpr(x.JoinExpr)
	}
	return nil, pgerr.New(pgerr.FeatureNotSupported, "FROM item %s is not supported yet", NodeName(item))
}

// querySource wraps a planned subquery as a FROM item.
func querySource(q *query, alias string, colAliases []string) (*Source, error) {
	sc := &Scope{}
	for _, c := range q.Cols {
		sc.Cols = append(sc.Cols, ScopeCol{Table: alias, Name: c.Name, T: c.Type, Rec: c.Rec, Orig: c.Origin()})
	}
	if err := renameCols(sc, colAliases, alias); err != nil {
		return nil, err
	}
	src := &Source{op: q.Op, Sc: sc, scans: q.scans, rows: 1000}
	if q.node != nil && len(q.node.Columns()) == len(sc.Cols) {
		src.node, src.nodeOp = q.node, q.Op
	}
	return src, nil
}

func renameCols(sc *Scope, names []string, alias string) error {
	if len(names) > len(sc.Cols) {
		return pgerr.New(pgerr.InvalidColumnReference, "table \"%s\" has %d columns available but %d columns specified", alias, len(sc.Cols), len(names))
	}
	for i, n := range names {
		sc.Cols[i].Name = n
	}
	return nil
}

func (qc *QueryCtx) cteSource(cte *CteDef, alias string, colAliases []string, loc int32) (*Source, error) {
	if cte.Written != nil {
		return qc.writtenSource(cte, cte.Written, alias, colAliases, loc) // sql/with_write.go
	}
	sel := cte.Query.GetSelectStmt()
	if sel == nil {
		return nil, ErrAt(pgerr.New(pgerr.FeatureNotSupported, "WITH queries other than SELECT are not supported yet"), loc)
	}
	if cte.work != nil {
		// inside the recursive term: read the previous iteration's rows
		sc := &Scope{}
		for _, c := range cte.cols {
			sc.Cols = append(sc.Cols, ScopeCol{Table: alias, Name: c.Name, T: c.Type})
		}
		return &Source{op: &exec.WorkTableScan{W: cte.work}, Sc: sc, rows: 100}, renameCols(sc, colAliases, alias)
	}
	var q *query
	var err error
	switch {
	case cte.Recursive:
		q, err = qc.planRecursive(cte, sel)
	case cte.runOnce() && !qc.DescribeOnly:
		// referenced more than once: run it once, every reference reads
		// the rows (a plan that only describes must not make the rows
		// every later plan reads: apply_plan.go describes first)
		if cte.mat == nil {
			body := sel
			if shared := qc.sharedBody(cte); shared != nil {
				body = shared // cte_filter.go
			}
			mq, err := qc.PlanSelect(proto.Clone(body).(*pg.SelectStmt))
			if err != nil {
				return nil, err
			}
			cte.mat, cte.matQ = &exec.Materialized{Input: mq.Op}, mq
			q = &query{Op: cte.mat.Reader(), Cols: mq.Cols, scans: mq.scans}
		} else {
			q = &query{Op: cte.mat.Reader(), Cols: cte.matQ.Cols}
		}
	default:
		// each planning reads a copy of its own: what planning remembers
		// is keyed by the tree's nodes (qc.subCols), and the body is
		// planned once per reference when not materialized, or per
		// reference of an enclosing WITH query
		q, err = qc.PlanSelect(proto.Clone(sel).(*pg.SelectStmt))
	}
	if err != nil {
		return nil, err
	}
	src, err := querySource(q, alias, cte.Colps)
	if err != nil {
		return nil, err
	}
	return src, renameCols(src.Sc, colAliases, alias)
}

// planJoinExpr plans outer joins and USING/NATURAL joins as written.
func (qc *QueryCtx) planJoinExpr(j *pg.JoinExpr) (*Source, error) {
	l, err := qc.planFromItem(j.Larg)
	if err != nil {
		return nil, err
	}
	if src, ok, err := qc.lateralJoinExpr(l, j); ok || err != nil {
		return src, err // LEFT JOIN LATERAL (apply_plan.go)
	}
	r, err := qc.planFromItem(j.Rarg)
	if err != nil {
		return nil, err
	}
	return qc.joinPlanned(j, l, r)
}

// joinPlanned joins the planned sides of j by its type and condition.
func (qc *QueryCtx) joinPlanned(j *pg.JoinExpr, l, r *Source) (*Source, error) {
	var typ exec.JoinType
	switch j.Jointype {
	case pg.JoinType_JOIN_INNER:
		typ = exec.JoinInner
	case pg.JoinType_JOIN_LEFT:
		typ = exec.JoinLeft
	case pg.JoinType_JOIN_RIGHT:
		typ = exec.JoinRight
	case pg.JoinType_JOIN_FULL:
		typ = exec.JoinFull
	default:
		return nil, pgerr.New(pgerr.FeatureNotSupported, "join type %s is not supported", j.Jointype)
	}
	quals := splitAnd(j.Quals)
	// an ON condition on the non-preserved side alone only filters that side
	var kept []*pg.Node
	for _, q := range quals {
		refs, outer := refItems(q, []*Source{l, r})
		if outer || hasSubLink(q) || len(refs) != 1 {
			kept = append(kept, q)
			continue
		}
		var err error
		switch {
		case refs[1] && (typ == exec.JoinLeft || typ == exec.JoinInner):
			r, err = qc.filter(r, q)
		case refs[0] && (typ == exec.JoinRight || typ == exec.JoinInner):
			l, err = qc.filter(l, q)
		default:
			kept = append(kept, q)
		}
		if err != nil {
			return nil, err
		}
	}
	quals = kept
	var err error
	if l, r, err = qc.prepareJoinSubLinks(l, r, quals); err != nil {
		return nil, err // correlated subqueries in ON (apply_plan.go)
	}
	using := StrNodes(j.UsingClause)
	if j.IsNatural {
		for _, lc := range l.Sc.Cols {
			if !lc.Hidden && r.Sc.Resolves("", lc.Name) {
				using = append(using, lc.Name)
			}
		}
	}
	sc := concatScope(l.Sc, r.Sc)
	var lkeys, rkeys []exec.Expr
	var extras []exec.Expr
	var lidx, ridx []int
	b := qc.binder()
	for _, name := range using {
		li, err := b.FindColumn(l.Sc, []string{name}, j.Rtindex)
		if err != nil {
			return nil, err
		}
		ri, err := b.FindColumn(r.Sc, []string{name}, -1)
		if err != nil {
			return nil, err
		}
		lk, rk, err := qc.keyPair(&exec.ColRef{Idx: li, T: l.Sc.Cols[li].T}, &exec.ColRef{Idx: ri, T: r.Sc.Cols[ri].T})
		if err != nil {
			return nil, err
		}
		lkeys, rkeys = append(lkeys, lk), append(rkeys, rk)
		lidx, ridx = append(lidx, li), append(ridx, ri)
	}
	for _, q := range quals {
		if lk, rk, ok, err := qc.equiKeys(q, l.Sc, r.Sc); err != nil {
			return nil, err
		} else if ok {
			lkeys, rkeys = append(lkeys, lk), append(rkeys, rk)
			continue
		}
		e, err := b.Bind(q, sc)
		if err != nil {
			return nil, err
		}
		if e, err = b.CoerceBool(e, q, "argument of JOIN/ON"); err != nil {
			return nil, err
		}
		extras = append(extras, e)
	}
	var extra exec.Expr
	if len(extras) == 1 {
		extra = extras[0]
	} else if len(extras) > 1 {
		extra = &exec.Logic{And: true, Args: extras}
	}
	// the join as a logical node over the sides' operators, which the
	// FROM list it is an item of may rewrite (outer_join_to_inner); a
	// LEFT join's preserved side that is an explicit JOIN stays its node,
	// built as before, so that outer_join_reorder takes that apart too
	ln := leafNode(l)
	if typ == exec.JoinLeft {
		ln = itemNode(l)
	}
	qc.built[ln] = l.op
	node := logical.NewOuterJoin(joinKinds[typ], ln, leafNode(r), lkeys, rkeys, extra, r.rows > 2*l.rows)
	if typ != exec.JoinInner {
		// what outer_join_reorder weighs the preserved side by in a join
		// graph of its own, as orderJoins weighs a FROM item (a FULL join
		// outer_join_to_inner makes LEFT keeps them)
		est := qc.planEstimator()
		node.LeftRows, node.RightRows = max(1, est.N(l.op)), max(1, est.N(r.op))
	}
	op, err := qc.builder().Build(node)
	if err != nil {
		return nil, err
	}
	out := &Source{op: op, Sc: sc, scans: append(append([]*exec.TableScan{}, l.scans...), r.scans...), rows: max(l.rows, r.rows),
		node: node, nodeOp: op}
	if len(using) > 0 {
		if out, err = qc.mergeUsing(out, typ, using, lidx, ridx, lkeys, rkeys, len(l.Sc.Cols)); err != nil {
			return nil, err
		}
		sc = out.Sc
	}
	if alias := j.Alias; alias != nil {
		for i := range sc.Cols {
			sc.Cols[i].Table = alias.Aliasname
			if sc.Cols[i].Hidden {
				// the alias hides the joined tables' names: nothing reaches these
				sc.Cols[i].Table = ""
			}
		}
	}
	return out, nil
}

var joinKinds = map[exec.JoinType]logical.JoinKind{exec.JoinInner: logical.InnerJoin, exec.JoinLeft: logical.LeftJoin,
	exec.JoinRight: logical.RightJoin, exec.JoinFull: logical.FullJoin}

// mergeUsing puts the merged USING columns first, as PostgreSQL does: the
// left input's value for inner and left joins, the right's for right joins,
// COALESCE of both for full joins. The inputs' copies stay, reachable only
// qualified by their table (d.city, and in d.*). The merge is a logical
// projection over the join's node, which the rules over the FROM list
// see through (optimize/filter_below_project.go).
func (qc *QueryCtx) mergeUsing(in *Source, typ exec.JoinType, using []string, lidx, ridx []int, lkeys, rkeys []exec.Expr, nl int) (*Source, error) {
	shift := func(i int) int { return i + nl }
	var exprs []exec.Expr
	sc := &Scope{}
	for k, name := range using {
		lk, rk := lkeys[k], exec.MapColumns(rkeys[k], shift)
		var e exec.Expr
		orig := in.Sc.Cols[lidx[k]].Orig
		switch typ {
		case exec.JoinRight:
			e, orig = rk, in.Sc.Cols[nl+ridx[k]].Orig
		case exec.JoinFull:
			e, orig = &exec.Coalesce{Args: []exec.Expr{lk, rk}, T: lk.Type()}, bind.ColOrigin{}
		default:
			e = lk
		}
		exprs = append(exprs, e)
		sc.Cols = append(sc.Cols, ScopeCol{Name: name, T: e.Type(), Orig: orig})
	}
	for i, c := range in.Sc.Cols {
		exprs = append(exprs, &exec.ColRef{Idx: i, T: c.T})
		sc.Cols = append(sc.Cols, c)
	}
	for k := range using {
		sc.Cols[len(using)+lidx[k]].Hidden = true
		sc.Cols[len(using)+nl+ridx[k]].Hidden = true
	}
	names := make([]string, len(sc.Cols))
	for i, c := range sc.Cols {
		names[i] = c.Name
	}
	node := logical.NewProject(in.node, exprs, names)
	op, err := qc.builder().Build(node)
	if err != nil {
		return nil, err
	}
	return &Source{op: op, Sc: sc, scans: in.scans, rows: in.rows, node: node, nodeOp: op}, nil
}

// rangeFunction handles lakepg.at_version('t', n) and lakepg.at_time('t', ts).
func (s *Session) rangeFunction(ctx context.Context, b *Binder, rf *pg.RangeFunction, describeOnly bool) (*Source, error) {
	if len(rf.Functions) != 1 {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "ROWS FROM is not supported")
	}
	fc := rf.Functions[0].GetList().Items[0].GetFuncCall()
	if fc == nil {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "table function not supported")
	}
	names := StrNodes(fc.Funcname)
	if len(names) == 2 && names[0] == "pg_catalog" {
		names = names[1:]
	}
	name := strings.Join(names, ".")
	if name == "generate_series" {
		alias := "generate_series"
		var colAliases []string
		if rf.Alias != nil {
			alias, colAliases = rf.Alias.Aliasname, StrNodes(rf.Alias.Colnames)
		}
		return s.generateSeries(b, fc, alias, colAliases)
	}
	if name == "read_parquet" {
		alias := "read_parquet"
		if rf.Alias != nil {
			alias = rf.Alias.Aliasname
		}
		return s.readParquet(ctx, b, fc, alias, describeOnly)
	}
	{
		alias := ""
		if rf.Alias != nil {
			alias = rf.Alias.Aliasname
		}
		if src, ok, err := s.catalogTableFunction(name, alias); ok || err != nil {
			return src, err
		}
	}
	if name == "lakepg.table_changes" || name == "ducklake_table_changes" {
		return s.tableChanges(ctx, b, fc, rf.GetAlias().GetAliasname(), describeOnly) // changes.go
	}
	if name != "lakepg.at_version" && name != "lakepg.at_time" && name != "lakepg.snapshots" {
		return nil, ErrAt(pgerr.New(pgerr.UndefinedFunction, "function %s does not exist", name), fc.Location)
	}
	if name == "lakepg.snapshots" {
		alias := "snapshots"
		if rf.Alias != nil {
			alias = rf.Alias.Aliasname
		}
		return s.lakeTable(ctx, b, "snapshots", alias, fc.Location)
	}
	if len(fc.Args) != 2 {
		return nil, ErrAt(pgerr.New(pgerr.UndefinedFunction, "%s(table, %s) takes two arguments", name, map[bool]string{true: "version", false: "timestamp"}[name == "lakepg.at_version"]), fc.Location)
	}
	tnameE, err := b.Bind(fc.Args[0], &Scope{})
	if err != nil {
		return nil, err
	}
	if tnameE, err = b.Cast(tnameE, types.TextT, false, fc.Location); err != nil {
		return nil, err
	}
	tv, err := tnameE.Eval(b.Env, &vec.Batch{N: 1})
	if err != nil {
		return nil, err
	}
	if tv.IsNull(0) {
		return nil, ErrAt(pgerr.New(pgerr.InvalidParameterValue, "table name must not be NULL"), fc.Location)
	}
	schemaName, tableName := SplitQualified(tv.S[0])
	argE, err := b.Bind(fc.Args[1], &Scope{})
	if err != nil {
		return nil, err
	}
	var snap catalog.Snapshot
	if name == "lakepg.at_version" {
		if argE, err = b.Cast(argE, types.Int64T, false, fc.Location); err != nil {
			return nil, err
		}
		v, err := argE.Eval(b.Env, &vec.Batch{N: 1})
		if err != nil {
			return nil, err
		}
		if v.IsNull(0) {
			return nil, ErrAt(pgerr.New(pgerr.InvalidParameterValue, "snapshot version must not be NULL"), fc.Location)
		}
		snap, err = s.DB.SnapshotByID(ctx, v.I64[0])
		if err != nil {
			return nil, ErrAt(pgerr.New(pgerr.InvalidParameterValue, "snapshot %d does not exist", v.I64[0]), fc.Location)
		}
	} else {
		if argE, err = b.Cast(argE, types.TimestamptzT, false, fc.Location); err != nil {
			return nil, err
		}
		v, err := argE.Eval(b.Env, &vec.Batch{N: 1})
		if err != nil {
			return nil, err
		}
		if v.IsNull(0) {
			return nil, ErrAt(pgerr.New(pgerr.InvalidParameterValue, "timestamp must not be NULL"), fc.Location)
		}
		snap, err = s.DB.SnapshotAsOf(ctx, types.MicrosToTime(v.I64[0], s.Loc))
		if err != nil {
			return nil, ErrAt(pgerr.New(pgerr.InvalidParameterValue, "no snapshot exists at or before %s", types.AppendTimestamptz(nil, v.I64[0], s.Loc)), fc.Location)
		}
	}
	alias := tableName
	if rf.Alias != nil {
		alias = rf.Alias.Aliasname
	}
	return s.TableSource(ctx, snap, schemaName, tableName, alias, fc.Location, describeOnly)
}

// SplitQualified splits "schema.table" (with optional double quotes).
func SplitQualified(s string) (string, string) {
	var parts []string
	var cur strings.Builder
	quoted := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			if quoted && i+1 < len(s) && s[i+1] == '"' {
				cur.WriteByte('"')
				i++
			} else {
				quoted = !quoted
			}
		case c == '.' && !quoted:
			parts = append(parts, cur.String())
			cur.Reset()
		default:
			if !quoted {
				c = byte(strings.ToLower(string(c))[0])
			}
			cur.WriteByte(c)
		}
	}
	parts = append(parts, cur.String())
	if len(parts) == 1 {
		return "", parts[0]
	}
	return parts[len(parts)-2], parts[len(parts)-1]
}

// ResolveTable finds a table by (optional) schema and name through search_path.
func (s *Session) ResolveTable(meta *catalog.Metadata, schemaName, name string, loc int32) (*catalog.Schema, *catalog.Table, error) {
	r, err := s.Host.ResolveRelation(meta, schemaName, name, loc) // sql/views.go
	if err != nil {
		return nil, nil, err
	}
	if r.View != nil {
		return nil, nil, notATable(name, loc)
	}
	return r.Schema, r.Table, nil
}

// ScanColumns converts a table's catalog columns to scan columns.
func ScanColumns(t *catalog.Table) ([]exec.ScanCol, error) {
	cols := make([]exec.ScanCol, 0, len(t.Columns))
	for i := range t.Columns {
		c := &t.Columns[i]
		ty, err := laketypes.DeclaredType(c) // laketypes/charn.go
		if err != nil {
			return nil, err
		}
		sc := exec.ScanCol{FieldID: int32(c.ID), Name: c.Name, T: ty, ElemFieldID: laketypes.ElemFieldID(c), ChildIDs: laketypes.NestedFieldIDs(c), Geometry: strings.EqualFold(c.Type, "geometry"), Variant: strings.EqualFold(c.Type, "variant")} // sql/nested_write.go
		if c.InitialDefault != nil {
			d := vec.New(ty, 1)
			if err := exec.ParseInto(d, *c.InitialDefault, nil, false); err != nil {
				return nil, err
			}
			sc.Default = d
		}
		cols = append(cols, sc)
	}
	return cols, nil
}

func (s *Session) TableSource(ctx context.Context, snap catalog.Snapshot, schemaName, name, alias string, loc int32, describeOnly bool) (*Source, error) {
	meta, err := s.Host.Metadata(ctx, snap)
	if err != nil {
		return nil, err
	}
	sch, t, err := s.ResolveTable(meta, schemaName, name, loc)
	if err != nil {
		return nil, err
	}
	cols, err := ScanColumns(t)
	if err != nil {
		return nil, err
	}
	ref := &TableRef{Schema: sch, Table: t, Snap: snap, noPartitionPruning: s.Settings["lakepg.partition_pruning"] == "off"}
	scan := &exec.TableScan{Store: s.Store, Snapshot: snap.ID, Label: sch.Name + "." + t.Name, Cols: cols, Needed: make([]bool, len(cols))}
	if !describeOnly {
		files, err := s.Host.TableFiles(ctx, sch, t, snap)
		if err != nil {
			return nil, err
		}
		scan.Files = s.scanFilesOf(t.ID, files, snap.ID) // filezones.go
		ref.Files = files
		ref.cat = s.DB
		if ref.Inlined, err = s.inlinedScan(ctx, snap, t, files, scan); err != nil {
			return nil, err
		}
		s.Host.Overlay(snap, sch, t, ref, scan) // the open block's changes (sql/txn.go)
		// shared with scan.Files until pruning gives the scan a list of its own
		ref.ScanFiles = scan.Files[:len(ref.Files):len(ref.Files)]
	}
	rows := s.liveRows(t.ID, ref.Files) // filezones.go
	for _, f := range ref.Pending {
		rows += float64(f.RecordCount)
	}
	sc := &Scope{}
	for i, c := range cols {
		sc.Cols = append(sc.Cols, ScopeCol{Table: alias, Name: c.Name, T: c.T, Used: &scan.Needed[i], Orig: TableColOrigin(t, i)})
	}
	ref.Scan = scan
	if s.scanRefs != nil {
		s.scanRefs[scan] = ref
	}
	return &Source{op: scan, Sc: sc, scans: []*exec.TableScan{scan}, Ref: ref, rows: rows}, nil
}

// TableRef is a planned base-table scan with the catalog rows behind it.
type TableRef struct {
	Schema *catalog.Schema
	Table  *catalog.Table
	Snap   catalog.Snapshot
	Files  []catalog.DataFile
	// Kept are the indexes in Files of those pruning kept (PushFilters),
	// with Pruned set; estimates visit them alone.
	Kept   []int
	Pruned bool
	// ScanFiles are the scan's files before pruning, one per files entry.
	ScanFiles []exec.ScanFile
	// Pending are data files an open transaction block staged for the
	// table; the scan reads them (pendingScan) after the committed files.
	Pending     []snapshot.NewDataFile
	PendingScan []exec.ScanFile
	// Inlined names the inlined-data tables behind the scan's negative
	// file ordinals (-1-k is inlined[k]).
	Inlined []string
	Scan    *exec.TableScan
	bounds  []pruning.Bound // pushed-down filter bounds, for pruning
	pushed  []exec.Expr     // the filters they came from
	// noPartitionPruning: lakepg.partition_pruning is off (files are then
	// pruned by their statistics only)
	noPartitionPruning bool
	// cat keeps the pruning structures of cached file lists (filezones.go)
	cat *catalog.DB
}

func ToScanFiles(files []catalog.DataFile, snap int64) []exec.ScanFile {
	out := make([]exec.ScanFile, len(files))
	for i := range files {
		f := &files[i]
		out[i] = exec.ScanFile{Path: f.Path, Size: f.FileSize, RowIDStart: f.RowIDStart, RecordCount: f.RecordCount, CountKnown: true, Key: f.EncryptionKey}
		if f.MappingID != nil {
			out[i].NameMap = scanNameMap(f.Path, f.NameMap) // addfiles_read.go
		}
		if f.PartialMax != nil && *f.PartialMax > snap {
			out[i].MaxSnapshot = snap
		}
		if f.Delete != nil {
			out[i].DeletePath, out[i].DeleteSize, out[i].DeleteFormat = f.Delete.Path, f.Delete.FileSize, f.Delete.Format
			out[i].DeleteCount, out[i].DeleteKey = f.Delete.DeleteCount, f.Delete.EncryptionKey
			// a delete file holding later deletes than snap (its snapshot
			// column filters them) does not count exactly
			out[i].CountKnown = f.Delete.PartialMax == nil || *f.Delete.PartialMax <= snap
		}
	}
	return out
}

// lakeTable serves lakepg.snapshots.
func (s *Session) lakeTable(ctx context.Context, b *Binder, name, alias string, loc int32) (*Source, error) {
	if name != "snapshots" {
		return nil, ErrAt(pgerr.New(pgerr.UndefinedTable, "relation \"lakepg.%s\" does not exist", name), loc)
	}
	snaps, err := s.DB.Snapshots(ctx)
	if err != nil {
		return nil, err
	}
	ts := []types.T{types.Int64T, types.TimestamptzT, types.Int64T, types.TextT}
	var rows [][]exec.Expr
	for _, sn := range snaps {
		id, tm, sv, ch := sn.ID, sn.Time.UnixMicro(), sn.SchemaVersion, sn.Changes
		rows = append(rows, []exec.Expr{
			bind.ConstOf(types.Int64T, func(v *vec.Vector) { v.AppendInt(id) }),
			bind.ConstOf(types.TimestamptzT, func(v *vec.Vector) { v.AppendInt(tm) }),
			bind.ConstOf(types.Int64T, func(v *vec.Vector) { v.AppendInt(sv) }),
			bind.ConstOf(types.TextT, func(v *vec.Vector) { v.AppendString(ch) }),
		})
	}
	names := []string{"snapshot_id", "snapshot_time", "schema_version", "changes"}
	sc := &Scope{}
	for i, n := range names {
		sc.Cols = append(sc.Cols, ScopeCol{Table: alias, Name: n, T: ts[i]})
	}
	return &Source{op: &exec.Values{Env: b.Env, Rows: rows, T: ts}, Sc: sc, rows: float64(len(rows))}, nil
}

// generateSeries plans generate_series(start, stop [, step]) over integers,
// numerics or timestamps (with an interval step).
func (s *Session) generateSeries(b *Binder, fc *pg.FuncCall, alias string, colAliases []string) (*Source, error) {
	if len(fc.Args) < 2 || len(fc.Args) > 3 {
		return nil, ErrAt(pgerr.New(pgerr.UndefinedFunction, "function generate_series needs 2 or 3 arguments"), fc.Location)
	}
	var args []exec.Expr
	for _, a := range fc.Args {
		e, err := b.Bind(a, &Scope{})
		if err != nil {
			return nil, err
		}
		args = append(args, e)
	}
	t, err := bind.CommonType(args[:2], "generate_series", fc.Location)
	if err != nil {
		return nil, err
	}
	isTime := t.ID == types.Timestamp || t.ID == types.Timestamptz || t.ID == types.Date
	switch {
	case t.ID == types.Int16 || t.ID == types.Int32:
		t = types.Int32T
	case t.ID == types.Int64:
	case t.ID == types.Numeric:
		t = types.T{ID: types.Numeric, Precision: 18, Scale: max(t.Scale, 0)}
	case t.ID == types.Date:
		t = types.TimestamptzT
	case isTime:
	default:
		return nil, ErrAt(pgerr.New(pgerr.UndefinedFunction, "function generate_series(%s, %s) does not exist", args[0].Type(), args[1].Type()), fc.Location)
	}
	eval := func(e exec.Expr, to types.T) (*vec.Vector, error) {
		c, err := b.Cast(e, to, false, fc.Location)
		if err != nil {
			return nil, err
		}
		v, err := c.Eval(b.Env, &vec.Batch{N: 1})
		if err != nil {
			return nil, err
		}
		return v, nil
	}
	start, err := eval(args[0], t)
	if err != nil {
		return nil, err
	}
	stop, err := eval(args[1], t)
	if err != nil {
		return nil, err
	}
	op := &exec.Series{T: t, Start: start.I64[0], Stop: stop.I64[0], Step: 1}
	if start.IsNull(0) || stop.IsNull(0) {
		op.Stop, op.Start = 0, 1 // empty
	}
	if t.Scale > 0 {
		op.Step = types.Pow10(t.Scale)
	}
	if isTime {
		if len(args) != 3 {
			return nil, ErrAt(pgerr.New(pgerr.UndefinedFunction, "generate_series over timestamps needs an interval step"), fc.Location)
		}
		stepE, err := b.Cast(args[2], types.IntervalT, false, fc.Location)
		if err != nil {
			return nil, err
		}
		o, _, _, err := fn.ResolveOperator("+", t, types.IntervalT)
		if err != nil {
			return nil, err
		}
		sv, err := stepE.Eval(b.Env, &vec.Batch{N: 1})
		if err != nil {
			return nil, err
		}
		ctx := &fn.Ctx{Loc: s.Loc, Now: b.Env.Now}
		op.Add = func(cur int64) (int64, error) {
			l := vec.New(t, 1)
			l.AppendInt(cur)
			out := vec.New(t, 1)
			if err := o.Eval(ctx, out, []*vec.Vector{l, sv}, 1); err != nil {
				return 0, err
			}
			return out.I64[0], nil
		}
	} else if len(args) == 3 {
		step, err := eval(args[2], t)
		if err != nil {
			return nil, err
		}
		op.Step = step.I64[0]
	}
	sc := &Scope{Cols: []ScopeCol{{Table: alias, Name: "generate_series", T: t}}}
	if len(colAliases) == 0 && alias != "generate_series" {
		sc.Cols[0].Name = alias // a single-column function takes its alias as column name
	}
	if err := renameCols(sc, colAliases, alias); err != nil {
		return nil, err
	}
	return &Source{op: op, Sc: sc, rows: 1000}, nil
}

// systemTable serves pg_catalog and information_schema relations. An
// unqualified pg_* name resolves to pg_catalog, as PostgreSQL's search path
// implicitly starts with it, unless a lake table has that name.
func (qc *QueryCtx) systemTable(schema, name, alias string) (*Source, bool, error) {
	explicit := schema != ""
	switch schema {
	case "pg_catalog", "information_schema":
	case "":
		schema = "pg_catalog"
	default:
		return nil, false, nil
	}
	t, ok := pgcatalog.Lookup(schema, name)
	if !ok {
		if explicit {
			return nil, true, pgerr.New(pgerr.UndefinedTable, "relation \"%s.%s\" does not exist", schema, name)
		}
		return nil, false, nil
	}
	s := qc.s
	snap, err := s.Host.ReadSnapshot(qc.ctx)
	if err != nil {
		return nil, true, err
	}
	meta, err := s.Host.Metadata(qc.ctx, snap)
	if err != nil {
		return nil, true, err
	}
	src, err := qc.systemTableSource(t, qc.CatalogContext(meta), alias) // catalog_context.go
	return src, true, err
}

// PushFilters gives a scan the predicate's bounds: files are dropped now by
// catalog min/max, row groups later by Parquet statistics. Bounds from
// several filters accumulate on the table reference.
func PushFilters(ref *TableRef, pred exec.Expr) {
	if slices.Contains(ref.pushed, pred) {
		return // a filter the planner pushed, placed as a logical Filter too
	}
	ref.pushed = append(ref.pushed, pred)
	bs := pruning.Bounds(pred, ref.Scan.Cols)
	if len(bs) == 0 {
		return
	}
	ref.bounds = append(ref.bounds, bs...)
	scan, all := ref.Scan, ref.bounds
	if ref.Files != nil {
		// a new slice: scan.Files may share ref.scanFiles' array
		scan.Files, scan.FilesPruned, scan.FilesPrunedByPartition = nil, 0, 0
		pr := pruning.NewFilePruner(scan.Cols, all)
		ref.Kept = ref.Kept[:0]
		cands, indexed := zoneCandidates(ref, all) // filezones.go
		if indexed {
			// the files not among the candidates fail a bound on their
			// min/max: pruned without a look
			scan.FilesPruned = len(ref.Files) - len(cands)
		}
		for k := 0; k < len(ref.Files) && (!indexed || k < len(cands)); k++ {
			i := k
			if indexed {
				i = int(cands[k])
			}
			f := &ref.Files[i]
			switch {
			case !ref.noPartitionPruning && !pruning.PartitionMayMatch(*f, ref.Table, scan.Cols, all): // partition_prune.go
				scan.FilesPruned++
				scan.FilesPrunedByPartition++
			case pr.MayMatch(f):
				scan.Files = append(scan.Files, ref.ScanFiles[i])
				ref.Kept = append(ref.Kept, i)
			default:
				scan.FilesPruned++
			}
		}
		scan.Files = append(scan.Files, ref.PendingScan...)
		ref.Pruned = true
	}
	scan.Keep = func(rg int, ranges []parquetio.Range) bool { return pruning.RangesMayMatch(scan, ranges, all) }
}

// RelationWord is how PostgreSQL's messages name a relation's kind.
func RelationWord(t *catalog.Table, v *catalog.View) string {
	switch {
	case v != nil:
		return "view"
	case t != nil && t.MatView != "":
		return "materialized view"
	}
	return "table"
}

// checkSelect checks SELECT on a relation a query reads. Describing a
// statement checks nothing: running it does.
func (qc *QueryCtx) checkSelect(sch *catalog.Schema, id int64, word, name string) error {
	if qc.DescribeOnly {
		return nil
	}
	return qc.s.Host.CheckRelation(qc.ctx, sch, id, word, name, "r")
}

// notATable is the error for a statement that needs a table and was given a
// view.
func notATable(name string, loc int32) error {
	e := pgerr.New(pgerr.WrongObjectType, "\"%s\" is not a table", name)
	e.Detail = "It is a view; lakepg cannot write through views or change them as tables."
	return ErrAt(e, loc)
}
