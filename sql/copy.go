package sql

import (
	"context"
	"fmt"
	"strings"

	"github.com/lakepg/lakepg/sql/planner"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/snapshot"
	"github.com/lakepg/lakepg/sql/copyio"
	"github.com/lakepg/lakepg/sql/datafile"
)

// COPY's data as the wire layer sees it (sql/copyio).
type (
	CopyFormat = copyio.CopyFormat
	CopySpec   = copyio.CopySpec
	CopyRows   = copyio.CopyRows
)

const (
	CopyText   = copyio.CopyText
	CopyCSV    = copyio.CopyCSV
	CopyBinary = copyio.CopyBinary
)

// copyJob is what a COPY result carries: its description and, for COPY
// FROM, the loader the wire layer runs once it has the client's data.
type copyJob struct {
	spec *CopySpec
	load func(ctx context.Context, rows CopyRows) (int64, error)
}

// resultExt is what a COPY or FETCH result carries beyond rows.
type resultExt struct {
	copy   *copyJob
	binary bool // FETCH from a BINARY cursor
}

// Copy describes the COPY data of r, nil when r is not a COPY FROM STDIN or
// TO STDOUT.
func (r *Result) Copy() *CopySpec {
	if r.ext == nil || r.ext.copy == nil {
		return nil
	}
	return r.ext.copy.spec
}

// CopyIn runs a COPY FROM STDIN on the rows the client sends: they are
// written to one new data file as they arrive and committed as one
// snapshot at the end. Tag is then "COPY n".
func (r *Result) CopyIn(ctx context.Context, rows CopyRows) error {
	if r.ext == nil || r.ext.copy == nil || r.ext.copy.load == nil {
		return pgerr.New(pgerr.Internal, "statement is not a COPY FROM STDIN")
	}
	n, err := r.ext.copy.load(ctx, rows)
	if err != nil {
		return err
	}
	r.tag = fmt.Sprintf("COPY %d", n)
	return nil
}

// Binary reports a FETCH from a BINARY cursor: its rows go out in binary.
func (r *Result) Binary() bool { return r.ext != nil && r.ext.binary }

// codeCopyPrivilege is insufficient_privilege, which pgerr does not name.
const codeCopyPrivilege = "42501"

// copy runs a COPY statement.
func (s *Session) copy(ctx context.Context, st *pg.CopyStmt, p *planner.Params) (*Result, error) {
	if st.Filename != "" || st.IsProgram {
		// lakepg never touches the server's files on a client's behalf, so
		// it answers every user as PostgreSQL answers an unprivileged one.
		e := pgerr.New(codeCopyPrivilege, "must be superuser or have privileges of the pg_read_server_files role to COPY from a file")
		switch {
		case st.IsProgram:
			e.Message = "must be superuser or have privileges of the pg_execute_server_program role to COPY to or from an external program"
		case !st.IsFrom:
			e.Message = "must be superuser or have privileges of the pg_write_server_files role to COPY to a file"
		}
		e.Hint = "Anyone can COPY to stdout or from stdin. psql's \\copy command also works for anyone."
		return nil, e
	}
	o, err := copyio.ParseCopyOptions(st.Options, st.IsFrom)
	if err != nil {
		return nil, err
	}
	if st.IsFrom {
		if st.WhereClause != nil {
			return nil, planner.ErrAt(pgerr.New(pgerr.FeatureNotSupported, "COPY FROM with WHERE is not supported yet"), planner.NodeLoc(st.WhereClause))
		}
		if err := s.checkWritable(); err != nil {
			return nil, err
		}
		return s.copyFrom(ctx, st, o)
	}
	return s.copyTo(ctx, st, o, p)
}

// copyTargets resolves COPY's column list against the table: positions in
// cols, all columns when the list is empty.
func copyTargets(attlist []*pg.Node, cols []exec.ScanCol, table string) ([]int, error) {
	if len(attlist) == 0 {
		target := make([]int, len(cols))
		for i := range cols {
			target[i] = i
		}
		return target, nil
	}
	var target []int
	seen := map[int]bool{}
	for _, n := range attlist {
		name := n.GetString_().GetSval()
		found := -1
		for i, c := range cols {
			if c.Name == name {
				found = i
			}
		}
		if found < 0 {
			return nil, pgerr.New(pgerr.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", name, table)
		}
		if seen[found] {
			return nil, pgerr.New(pgerr.DuplicateColumn, "column \"%s\" specified more than once", name)
		}
		seen[found] = true
		target = append(target, found)
	}
	return target, nil
}

// copyFrom prepares a COPY FROM STDIN. Nothing happens until the wire layer
// calls CopyIn with the client's rows.
func (s *Session) copyFrom(ctx context.Context, st *pg.CopyStmt, o *copyio.CopyOptions) (*Result, error) {
	sch, t, cols, err := s.writeTarget(ctx, st.Relation)
	if err != nil {
		return nil, err
	}
	target, err := copyTargets(st.Attlist, cols, t.Name)
	if err != nil {
		return nil, err
	}
	dataCols := make([]Column, len(target))
	for k, ci := range target {
		dataCols[k] = Column{Name: cols[ci].Name, Type: cols[ci].T}
	}
	spec, err := o.Spec(true, t.Name, dataCols)
	if err != nil {
		return nil, err
	}

	// Columns not in the list get their defaults, as INSERT gives them.
	env := s.NewEnv()
	b := &planner.Binder{Sess: &s.Session, Env: env, Params: &planner.Params{}, NoAggMsg: "aggregate functions are not allowed in DEFAULT expressions", Qc: s.NewQueryCtx(ctx, &planner.Params{}, false)}
	proj := make([]exec.Expr, len(cols))
	for i, c := range t.Columns {
		if proj[i], err = s.defaultExpr(b, c, cols[i].T); err != nil {
			return nil, err
		}
	}
	notNull := make([]bool, len(target))
	for k, ci := range target {
		proj[ci] = &exec.ColRef{Idx: k, T: cols[ci].T}
		notNull[k] = !t.Columns[ci].NullsAllowed
	}

	load := func(ctx context.Context, rows CopyRows) (int64, error) {
		src := copyio.NewCopyRowsOp(rows, spec, notNull, s.Loc, planner.TypesOfColumns(dataCols))
		if isTempTable(t) { // temp_dml.go
			return s.tempAppend(ctx, t.ID, &exec.Project{Env: env, Input: src, Exprs: proj}, notNullCheck(t))
		}
		// keys are checked as rows are written and at the commit (unique.go)
		kc, err := s.keyCheckFor(ctx, t, cols)
		if err != nil {
			return 0, err
		}
		defer func() { s.keyChecks = nil }()
		tw, err := s.pipelinedCopy(ctx, src, func(in exec.Operator) (*tableWrite, error) {
			op := &exec.Project{Env: env, Input: in, Exprs: proj}
			defer op.Close()
			return s.writeTableFiles(ctx, sch, t, datafile.ParquetColumns(cols), op, kc.rowCheck(t)) // partition_write.go
		})
		if err != nil {
			if ctx.Err() != nil {
				// Whatever failed first (the storage may see the cancel before
				// the rows do), a cancelled COPY reports the cancel.
				return 0, pgerr.New(pgerr.QueryCanceled, "canceling statement due to user request")
			}
			return 0, err
		}
		if tw.rows == 0 {
			return 0, nil
		}
		if kc != nil {
			s.keyChecks = append(s.keyChecks, kc)
		}
		err = s.commitInsert(ctx, func(c *snapshot.Commit, m *catalog.Metadata) error {
			cur, ok := m.TableByName(sch.ID, t.Name)
			if !ok || cur.ID != t.ID || !datafile.SameColumns(cur, t) || !tw.sameSpec(cur) {
				return pgerr.New(pgerr.SerializationFailure, "could not serialize access: table \"%s\" changed during COPY", t.Name)
			}
			for _, f := range tw.dataFiles(cols, false) {
				c.AddDataFile(*cur, f)
			}
			return nil
		}, func() { tw.remove(ctx, s.eng.Store) })
		if err != nil {
			return 0, err
		}
		s.settled(writtenPaths(tw)...) // inflight.go
		return tw.rows, nil
	}
	// The data arrives after Execute returned, so a failure here must
	// abort a transaction block itself, as Execute's errors do.
	failing := func(ctx context.Context, rows CopyRows) (int64, error) {
		n, err := load(ctx, rows)
		if err != nil && s.inTx {
			s.failed = true
		}
		return n, err
	}
	return &Result{tag: "COPY 0", done: true, ext: &resultExt{copy: &copyJob{spec: spec, load: failing}}}, nil
}

// copyTo runs COPY table TO STDOUT or COPY (query) TO STDOUT: the rows of a
// query, streamed; the wire layer formats them.
func (s *Session) copyTo(ctx context.Context, st *pg.CopyStmt, o *copyio.CopyOptions, p *planner.Params) (*Result, error) {
	var sel *pg.SelectStmt
	rel := ""
	if st.Query != nil {
		sel = st.Query.GetSelectStmt()
		if sel == nil {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "COPY (%s) TO is not supported: only a SELECT or VALUES query can be copied", stmtName(st.Query))
		}
		if sel.IntoClause != nil {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "COPY (SELECT INTO) is not supported")
		}
	} else {
		head, err := s.ReadSnapshot(ctx)
		if err != nil {
			return nil, err
		}
		meta, err := s.Metadata(ctx, head)
		if err != nil {
			return nil, err
		}
		rv := st.Relation
		sch, t, err := s.ResolveTable(meta, rv.Schemaname, rv.Relname, rv.Location)
		if err != nil {
			return nil, err
		}
		if err := s.CheckRelation(ctx, sch, t.ID, planner.RelationWord(t, nil), t.Name, "r"); err != nil { // sql/privileges/privileges.go
			return nil, err
		}
		cols, err := planner.ScanColumns(t)
		if err != nil {
			return nil, err
		}
		target, err := copyTargets(st.Attlist, cols, t.Name)
		if err != nil {
			return nil, err
		}
		// The query is built as text and parsed, so that it is planned
		// exactly like the SELECT a user would write.
		var sb strings.Builder
		sb.WriteString("SELECT ")
		for k, ci := range target {
			if k > 0 {
				sb.WriteString(", ")
			}
			sb.WriteString(quoteIdent(cols[ci].Name))
		}
		fmt.Fprintf(&sb, " FROM %s.%s", quoteIdent(sch.Name), quoteIdent(t.Name))
		tree, err := pg.Parse(sb.String())
		if err != nil {
			return nil, pgerr.Wrap(pgerr.Internal, err, "planning COPY %s", t.Name)
		}
		sel = tree.Stmts[0].Stmt.GetSelectStmt()
		rel = t.Name
	}
	q, err := s.PlanQuery(ctx, sel, p, false)
	if err != nil {
		return nil, err
	}
	spec, err := o.Spec(false, rel, q.Cols)
	if err != nil {
		q.Op.Close()
		return nil, err
	}
	return &Result{op: q.Op, verb: "COPY", ext: &resultExt{copy: &copyJob{spec: spec}}}, nil
}

func quoteIdent(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}
