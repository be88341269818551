package sql

import (
	"context"
	"fmt"

	"github.com/lakepg/lakepg/sql/planner"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/snapshot"
)

// tempStatement runs the statements that create, drop or change temporary
// tables; ok is false for a statement that is not about one (it runs as
// usual). INSERT and COPY FROM reach temporary tables through writeTarget,
// UPDATE and DELETE through planWrite, queries through planFromItem.
func (s *Session) tempStatement(ctx context.Context, n *pg.Node, p *planner.Params) (*Result, bool, error) {
	switch x := n.Node.(type) {
	case *pg.Node_CreateStmt:
		st := x.CreateStmt
		if !isTempRel(st.Relation) {
			return nil, false, nil
		}
		if err := s.checkWritable(); err != nil {
			return nil, true, err
		}
		res, err := s.tempCreate(ctx, st)
		return res, true, err
	case *pg.Node_CreateTableAsStmt:
		st := x.CreateTableAsStmt
		if st.Objtype != pg.ObjectType_OBJECT_TABLE || st.Into == nil || !isTempRel(st.Into.Rel) {
			return nil, false, nil
		}
		if err := s.checkWritable(); err != nil {
			return nil, true, err
		}
		res, err := s.tempCreateAs(ctx, st, p)
		return res, true, err
	case *pg.Node_SelectStmt:
		into := x.SelectStmt.IntoClause
		if into == nil || !isTempRel(into.Rel) {
			return nil, false, nil
		}
		if err := s.checkWritable(); err != nil {
			return nil, true, err
		}
		sel := proto.Clone(x.SelectStmt).(*pg.SelectStmt)
		sel.IntoClause = nil
		res, err := s.tempCreateAs(ctx, &pg.CreateTableAsStmt{Query: &pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: sel}},
			Into: into, Objtype: pg.ObjectType_OBJECT_TABLE}, p)
		return res, true, err
	case *pg.Node_DropStmt:
		return s.tempDrop(x.DropStmt)
	case *pg.Node_RenameStmt:
		st := x.RenameStmt
		if st.Relation == nil {
			return nil, false, nil
		}
		t := s.TempLookup(st.Relation.Schemaname, st.Relation.Relname)
		if t == nil {
			return nil, false, nil
		}
		res, err := s.tempRename(t, st)
		return res, true, err
	case *pg.Node_AlterTableStmt:
		st := x.AlterTableStmt
		if st.Relation == nil {
			return nil, false, nil
		}
		t := s.TempLookup(st.Relation.Schemaname, st.Relation.Relname)
		if t == nil {
			return nil, false, nil
		}
		res, err := s.tempAlter(ctx, t, st)
		return res, true, err
	case *pg.Node_TruncateStmt:
		var ts []*planner.TempTable
		for _, r := range x.TruncateStmt.Relations {
			rv := r.GetRangeVar()
			t := s.TempLookup(rv.GetSchemaname(), rv.GetRelname())
			if t == nil {
				if len(ts) > 0 {
					return nil, true, errTempMixed("TRUNCATE")
				}
				return nil, false, nil
			}
			ts = append(ts, t)
		}
		for _, t := range ts {
			s.tempPut(t.Tbl.Name, t.WithChunks(nil))
		}
		return tagResult("TRUNCATE TABLE"), true, nil
	case *pg.Node_CopyStmt:
		st := x.CopyStmt
		if st.IsFrom || st.Relation == nil || s.TempLookup(st.Relation.Schemaname, st.Relation.Relname) == nil {
			return nil, false, nil
		}
		// COPY t TO is COPY (SELECT cols FROM t) TO
		var tl []*pg.Node
		for _, a := range st.Attlist {
			tl = append(tl, &pg.Node{Node: &pg.Node_ResTarget{ResTarget: &pg.ResTarget{Val: planner.ColRefNode(planner.ScopeCol{Name: a.GetString_().GetSval()}), Location: -1}}})
		}
		if len(tl) == 0 {
			tl = []*pg.Node{{Node: &pg.Node_ResTarget{ResTarget: &pg.ResTarget{Val: &pg.Node{Node: &pg.Node_ColumnRef{ColumnRef: &pg.ColumnRef{Fields: []*pg.Node{{Node: &pg.Node_AStar{AStar: &pg.A_Star{}}}}}}}, Location: -1}}}}
		}
		c := proto.Clone(st).(*pg.CopyStmt)
		rel := c.Relation
		c.Relation, c.Attlist = nil, nil
		c.Query = &pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: &pg.SelectStmt{TargetList: tl,
			FromClause: []*pg.Node{{Node: &pg.Node_RangeVar{RangeVar: rel}}}, Op: pg.SetOperation_SETOP_NONE}}}
		res, err := s.copy(ctx, c, p)
		return res, true, err
	}
	return nil, false, nil
}

func errTempMixed(what string) error {
	return pgerr.New(pgerr.FeatureNotSupported, "%s of temporary and lake tables in one statement is not supported", what)
}

// isTempRel reports whether a relation to create is temporary: TEMP, or
// created in pg_temp. (Another schema with TEMP is an error, tempCreate.)
func isTempRel(rv *pg.RangeVar) bool {
	return rv != nil && (rv.Relpersistence == "t" || isTempSchemaName(rv.Schemaname))
}

// tempTarget checks where a temporary table is to be created.
func (s *Session) tempTarget(rv *pg.RangeVar, ifNotExists bool) (bool, error) {
	if rv.Schemaname != "" && rv.Schemaname != "pg_temp" && (s.temp.num == 0 || rv.Schemaname != s.temp.nsName()) {
		if isTempSchemaName(rv.Schemaname) {
			return false, planner.ErrAt(pgerr.New(pgerr.InvalidTableDefinition, "cannot create relations in temporary schemas of other sessions"), rv.Location)
		}
		return false, planner.ErrAt(pgerr.New(pgerr.InvalidTableDefinition, "cannot create temporary relation in non-temporary schema"), rv.Location)
	}
	if s.TempLookup("pg_temp", rv.Relname) != nil {
		if ifNotExists {
			s.notice("relation \"%s\" already exists, skipping", rv.Relname)
			return true, nil
		}
		return false, planner.ErrAt(pgerr.New(pgerr.DuplicateTable, "relation \"%s\" already exists", rv.Relname), rv.Location)
	}
	return false, nil
}

// tempCreate runs CREATE TEMP TABLE.
func (s *Session) tempCreate(ctx context.Context, st *pg.CreateStmt) (*Result, error) {
	rv := st.Relation
	if skip, err := s.tempTarget(rv, st.IfNotExists); err != nil || skip {
		if err != nil {
			return nil, err
		}
		return tagResult("CREATE TABLE"), nil
	}
	if len(st.InhRelations) > 0 || st.Partspec != nil {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "inheritance and PostgreSQL partitioning are not supported")
	}
	var defs []snapshot.ColumnDef
	seen := map[string]bool{}
	for _, el := range st.TableElts {
		if lc := el.GetTableLikeClause(); lc != nil {
			if t := s.TempLookup(lc.Relation.Schemaname, lc.Relation.Relname); t != nil {
				return nil, errTempNotSupported(t.Tbl.Name, "LIKE", lc.Relation.Location)
			}
			head, err := s.writeHead(ctx)
			if err != nil {
				return nil, err
			}
			meta, err := s.Metadata(ctx, head)
			if err != nil {
				return nil, err
			}
			like, err := s.likeColumns(meta, lc) // ddl_like.go
			if err != nil {
				return nil, err
			}
			for _, def := range like {
				if seen[def.Name] {
					return nil, pgerr.New(pgerr.DuplicateColumn, "column \"%s\" specified more than once", def.Name)
				}
				seen[def.Name] = true
				defs = append(defs, def)
			}
			continue
		}
		cd := el.GetColumnDef()
		if cd == nil {
			if con := el.GetConstraint(); con != nil && (con.Contype == pg.ConstrType_CONSTR_PRIMARY || con.Contype == pg.ConstrType_CONSTR_UNIQUE) {
				continue
			}
			return nil, pgerr.New(pgerr.FeatureNotSupported, "table element %s is not supported", planner.NodeName(el))
		}
		if seen[cd.Colname] {
			return nil, planner.ErrAt(pgerr.New(pgerr.DuplicateColumn, "column \"%s\" specified more than once", cd.Colname), cd.Location)
		}
		seen[cd.Colname] = true
		def, _, err := s.columnDef(cd)
		if err != nil {
			return nil, err
		}
		defs = append(defs, def)
	}
	if len(defs) == 0 {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "tables without columns are not supported")
	}
	t, err := s.newTempTable(rv.Relname, defs, st.Oncommit)
	if err != nil {
		return nil, err
	}
	s.tempPut(rv.Relname, t)
	return tagResult("CREATE TABLE"), nil
}

// tempCreateAs runs CREATE TEMP TABLE … AS and SELECT … INTO TEMP.
func (s *Session) tempCreateAs(ctx context.Context, st *pg.CreateTableAsStmt, p *planner.Params) (*Result, error) {
	into := st.Into
	rv := into.Rel
	if skip, err := s.tempTarget(rv, st.IfNotExists); err != nil || skip {
		if err != nil {
			return nil, err
		}
		return tagResult("CREATE TABLE AS"), nil
	}
	sel := st.Query.GetSelectStmt()
	if sel == nil {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "CREATE TABLE AS supports SELECT only")
	}
	q, err := s.PlanQuery(ctx, sel, p, into.SkipData)
	if err != nil {
		return nil, err
	}
	defer q.Op.Close()
	names := planner.StrNodes(into.ColNames)
	if len(names) > len(q.Cols) {
		return nil, pgerr.New(pgerr.SyntaxError, "too many column names were specified")
	}
	var defs []snapshot.ColumnDef
	seen := map[string]bool{}
	for i, c := range q.Cols {
		_, _, def, err := ctasColumn(i, c, names, seen) // ctas.go
		if err != nil {
			return nil, err
		}
		defs = append(defs, def)
	}
	if len(defs) == 0 {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "tables without columns are not supported")
	}
	t, err := s.newTempTable(rv.Relname, defs, into.OnCommit)
	if err != nil {
		return nil, err
	}
	if into.SkipData {
		s.tempPut(rv.Relname, t)
		return tagResult("CREATE TABLE AS"), nil
	}
	b := &planner.Binder{Sess: &s.Session, Env: s.NewEnv()}
	casts := make([]exec.Expr, len(q.Cols))
	for i, c := range q.Cols {
		if casts[i], err = b.Cast(&exec.ColRef{Idx: i, T: c.Type}, t.Cols[i].T, true, -1); err != nil {
			return nil, err
		}
	}
	w, err := exec.NewChunkWriter(planner.TypesOf(t.Cols), s.tempMemory(), nil)
	if err != nil {
		return nil, err
	}
	if err := w.Drain(ctx, &exec.Project{Env: b.Env, Input: q.Op, Exprs: casts}); err != nil {
		w.Abort()
		return nil, err
	}
	cs, err := w.Chunks()
	if err != nil {
		return nil, err
	}
	s.tempHold(cs)
	t = t.WithChunks(cs)
	n := t.Rows
	s.tempPut(rv.Relname, t)
	return tagResult(fmt.Sprintf("SELECT %d", n)), nil
}

// tempDrop runs DROP TABLE naming temporary tables. A statement naming
// only lake tables is not this one's; one mixing both is refused.
func (s *Session) tempDrop(st *pg.DropStmt) (*Result, bool, error) {
	if st.RemoveType != pg.ObjectType_OBJECT_TABLE {
		return nil, false, nil
	}
	var names []string
	skipped := 0
	for _, o := range st.Objects {
		parts := planner.StrNodes(o.GetList().GetItems())
		schema, name := "", parts[len(parts)-1]
		if len(parts) > 1 {
			schema = parts[len(parts)-2]
		}
		if t := s.TempLookup(schema, name); t != nil {
			names = append(names, name)
			continue
		}
		if isTempSchemaName(schema) {
			if st.MissingOk {
				skipped++
				s.notice("table \"%s\" does not exist, skipping", name)
				continue
			}
			return nil, true, pgerr.New(pgerr.UndefinedTable, "table \"%s\" does not exist", name)
		}
		if len(names) > 0 || skipped > 0 {
			return nil, true, errTempMixed("DROP TABLE")
		}
		return nil, false, nil
	}
	for _, name := range names {
		s.tempPut(name, nil)
	}
	return tagResult("DROP TABLE"), true, nil
}

// tempRename runs ALTER TABLE t RENAME TO and RENAME COLUMN.
func (s *Session) tempRename(t *planner.TempTable, st *pg.RenameStmt) (*Result, error) {
	switch st.RenameType {
	case pg.ObjectType_OBJECT_TABLE:
		if s.TempLookup("pg_temp", st.Newname) != nil {
			return nil, pgerr.New(pgerr.DuplicateTable, "relation \"%s\" already exists", st.Newname)
		}
		n := *t
		tbl := *t.Tbl
		tbl.Name = st.Newname
		n.Tbl = &tbl
		s.tempApply(map[string]*planner.TempTable{t.Tbl.Name: nil, st.Newname: &n})
		return tagResult("ALTER TABLE"), nil
	case pg.ObjectType_OBJECT_COLUMN:
		ci := -1
		for i, c := range t.Tbl.Columns {
			if c.Name == st.Subname {
				ci = i
			}
			if c.Name == st.Newname {
				return nil, pgerr.New(pgerr.DuplicateColumn, "column \"%s\" of relation \"%s\" already exists", st.Newname, t.Tbl.Name)
			}
		}
		if ci < 0 {
			return nil, pgerr.New(pgerr.UndefinedColumn, "column \"%s\" does not exist", st.Subname)
		}
		n := *t
		tbl := *t.Tbl
		tbl.Columns = append(tbl.Columns[:0:0], t.Tbl.Columns...)
		tbl.Columns[ci].Name = st.Newname
		n.Tbl = &tbl
		n.Cols = append(n.Cols[:0:0], t.Cols...)
		n.Cols[ci].Name = st.Newname
		s.tempPut(tbl.Name, &n)
		return tagResult("ALTER TABLE"), nil
	}
	return nil, errTempNotSupported(t.Tbl.Name, "this form of ALTER … RENAME", -1)
}

// tempAlter runs ALTER TABLE … ADD COLUMN on a temporary table; other
// changes are refused.
func (s *Session) tempAlter(ctx context.Context, t *planner.TempTable, st *pg.AlterTableStmt) (*Result, error) {
	cur := t
	for _, cn := range st.Cmds {
		cmd := cn.GetAlterTableCmd()
		if cmd.Subtype != pg.AlterTableType_AT_AddColumn {
			return nil, errTempNotSupported(t.Tbl.Name, "this form of ALTER TABLE (only RENAME and ADD COLUMN are)", st.Relation.Location)
		}
		cd := cmd.Def.GetColumnDef()
		if _, ok := cur.Tbl.ColumnByName(cd.Colname); ok {
			if cmd.MissingOk {
				s.notice("column \"%s\" of relation \"%s\" already exists, skipping", cd.Colname, t.Tbl.Name)
				continue
			}
			return nil, pgerr.New(pgerr.DuplicateColumn, "column \"%s\" of relation \"%s\" already exists", cd.Colname, t.Tbl.Name)
		}
		def, _, err := s.columnDef(cd)
		if err != nil {
			return nil, err
		}
		n := *cur
		tbl := *cur.Tbl
		var next int64 = 1
		for _, c := range tbl.Columns {
			next = max(next, c.ID+1)
			for _, ch := range c.Children {
				next = max(next, ch.ID+1)
			}
		}
		col := tempColumn(next, def)
		tbl.Columns = append(append(tbl.Columns[:0:0], cur.Tbl.Columns...), col)
		n.Tbl = &tbl
		if n.Cols, err = planner.ScanColumns(&tbl); err != nil {
			return nil, err
		}
		// the existing rows get the column's default, computed per row
		env := s.NewEnv()
		b := &planner.Binder{Sess: &s.Session, Env: env, Params: &planner.Params{}, Qc: s.NewQueryCtx(ctx, &planner.Params{}, false)}
		d, err := s.defaultExpr(b, col, n.Cols[len(n.Cols)-1].T)
		if err != nil {
			return nil, err
		}
		if !col.NullsAllowed && cur.Rows > 0 && col.DefaultValue == nil {
			return nil, pgerr.New(pgerr.NotNullViolation, "column \"%s\" of relation \"%s\" contains null values", cd.Colname, t.Tbl.Name)
		}
		exprs := make([]exec.Expr, 0, len(n.Cols))
		for i, c := range cur.Cols {
			exprs = append(exprs, &exec.ColRef{Idx: i, T: c.T})
		}
		exprs = append(exprs, d)
		w, err := exec.NewChunkWriter(planner.TypesOf(n.Cols), s.tempMemory(), nil)
		if err != nil {
			return nil, err
		}
		if err := w.Drain(ctx, &exec.Project{Env: env, Input: &exec.ChunkScan{T: planner.TypesOf(cur.Cols), Chunks: cur.Chunks}, Exprs: exprs}); err != nil {
			w.Abort()
			return nil, err
		}
		cs, err := w.Chunks()
		if err != nil {
			return nil, err
		}
		s.tempHold(cs)
		cur = n.WithChunks(cs)
	}
	s.tempPut(t.Tbl.Name, cur)
	return tagResult("ALTER TABLE"), nil
}
