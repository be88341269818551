package sql

import (
	"context"
	"fmt"

	"github.com/lakepg/lakepg/sql/planner"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/parquetio"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/snapshot"
	"github.com/lakepg/lakepg/sql/datafile"
	"github.com/lakepg/lakepg/types"
	"google.golang.org/protobuf/proto"
)

// createTableAs runs CREATE TABLE … AS SELECT: the data file is written
// first, then the table and its file are committed in one snapshot. A
// result of at most data_inlining_row_limit rows is inlined into the
// catalog instead, with the table, as DuckDB does (inlinewrite.go).
func (s *Session) createTableAs(ctx context.Context, st *pg.CreateTableAsStmt, p *planner.Params) (*Result, error) {
	into := st.Into
	rv := into.Rel
	if rv.Relpersistence == "t" {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "temporary tables are not supported yet")
	}
	sel := st.Query.GetSelectStmt()
	if sel == nil {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "CREATE TABLE AS supports SELECT only")
	}
	head, err := s.writeHead(ctx)
	if err != nil {
		return nil, err
	}
	meta, err := s.Metadata(ctx, head)
	if err != nil {
		return nil, err
	}
	// a materialized view is a table that keeps its query (matview.go)
	var matView string
	if st.Objtype == pg.ObjectType_OBJECT_MATVIEW {
		if matView, err = s.storedQuery(meta, proto.Clone(st.Query).(*pg.Node), rv); err != nil {
			return nil, err
		}
	}
	sch, err := s.targetSchema(meta, rv.Schemaname, rv.Location)
	if err != nil {
		return nil, err
	}
	if taken, err := s.seq.RelationTaken(ctx, meta, sch.ID, rv.Relname); err != nil {
		return nil, err
	} else if taken {
		if st.IfNotExists {
			s.notice("relation \"%s\" already exists, skipping", rv.Relname)
			if matView != "" {
				return tagResult("CREATE MATERIALIZED VIEW"), nil
			}
			return tagResult("CREATE TABLE AS"), nil
		}
		return nil, planner.ErrAt(pgerr.New(pgerr.DuplicateTable, "relation \"%s\" already exists", rv.Relname), rv.Location)
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
	var pcols []parquetio.Column
	var casts []exec.Expr
	b := &planner.Binder{Sess: &s.Session, Env: s.NewEnv()}
	seen := map[string]bool{}
	nextID := int32(1)
	for i, c := range q.Cols {
		name, t, def, err := ctasColumn(i, c, names, seen)
		if err != nil {
			return nil, err
		}
		defs = append(defs, def)
		// column ids are handed out depth-first, as CreateTable does
		pc := parquetio.Column{FieldID: nextID, Name: name, Type: t}
		if len(def.Children) == 1 {
			pc.ElemFieldID = nextID + 1
		}
		pc.ChildIDs = childFieldIDs(nextID, def)
		pcols = append(pcols, pc)
		nextID += columnIDWidth(def)
		e, err := b.Cast(&exec.ColRef{Idx: i, T: c.Type}, t, true, -1)
		if err != nil {
			return nil, err
		}
		casts = append(casts, e)
	}
	if len(defs) == 0 {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "tables without columns are not supported by DuckLake")
	}
	var src exec.Operator = &exec.Project{Env: b.Env, Input: q.Op, Exprs: casts}
	var inl *inlinedCTAS
	if !into.SkipData {
		if inl, src, err = s.inlineCTAS(ctx, sch, defs, pcols, src); err != nil {
			return nil, err
		}
	}
	// the file goes where the table will live: its directory is fixed now
	loc := snapshot.NewLocation(rv.Relname)
	var w *exec.WrittenFile
	if !into.SkipData && inl == nil {
		dir := s.eng.DB.TableDir(sch, &catalog.Table{Name: rv.Relname, Path: loc.Path, PathIsRelative: true})
		opt, err := s.tl.WriterOptions(ctx, sch.ID, 0) // the table has no id yet
		if err != nil {
			return nil, err
		}
		w, err = exec.WriteParquet(ctx, s.writeStore(), dir, pcols, src, nil, opt)
		if err != nil {
			return nil, err
		}
	}
	err = s.commit(ctx, func(c *snapshot.Commit, m *catalog.Metadata) error {
		if taken, err := s.seq.RelationTaken(ctx, m, sch.ID, rv.Relname); err != nil {
			return err
		} else if taken {
			return pgerr.New(pgerr.DuplicateTable, "relation \"%s\" already exists", rv.Relname)
		}
		id := c.CreateTableAt(*sch, rv.Relname, loc, defs)
		if matView != "" {
			c.SetMatView(id, matView)
		}
		if w != nil && w.Path != "" {
			c.AddDataFile(catalog.Table{ID: id, SchemaID: sch.ID, Name: rv.Relname}, datafile.NewDataFile(w, nil, false))
		}
		if inl != nil {
			c.InsertInlinedRows(catalog.Table{ID: id, SchemaID: sch.ID, Name: rv.Relname}, inl.layout, inl.rows, inl.stats)
		}
		return nil
	}, func() {
		if w != nil && w.Path != "" {
			s.writeStore().Delete(context.WithoutCancel(ctx), w.Path)
		}
	})
	if err != nil {
		return nil, err
	}
	s.settled(datafile.FilePaths(w)...) // inflight.go
	if into.SkipData {
		return tagResult("CREATE TABLE AS"), nil
	}
	var rows int64
	if w != nil {
		rows = w.Info.Rows
	}
	if inl != nil {
		rows = int64(len(inl.rows))
	}
	return tagResult(fmt.Sprintf("SELECT %d", rows)), nil
}

// ctasColumn is the table column CREATE TABLE AS (lake or temporary) makes
// of result column i: its name (given or the query's, each once), the type
// it stores (unknown as text, unconstrained numeric as storedType says) and
// its definition.
func ctasColumn(i int, c Column, names []string, seen map[string]bool) (string, types.T, snapshot.ColumnDef, error) {
	name := c.Name
	if i < len(names) {
		name = names[i]
	}
	if seen[name] {
		return "", types.T{}, snapshot.ColumnDef{}, pgerr.New(pgerr.DuplicateColumn, "column \"%s\" specified more than once", name)
	}
	seen[name] = true
	t := storedType(c.Type) // nested_write.go
	if t.ID == types.Unknown {
		t = types.TextT
	}
	def, err := tableColumnDef(name, t)
	if err != nil && nestedDefError(t) {
		return "", t, def, err
	}
	if err != nil {
		e := pgerr.New(pgerr.FeatureNotSupported, "column \"%s\" has type %s, which a table cannot store", name, t)
		e.Hint = "Cast it, e.g. to numeric(18,6) or double precision."
		return "", t, def, e
	}
	def.PGType = types.PGTypeTag(t)
	return name, t, def, nil
}
