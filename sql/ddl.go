package sql

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/lakepg/lakepg/sql/planner"
	"github.com/lakepg/lakepg/sql/sequences"
	"github.com/lakepg/lakepg/sql/tablelayout"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/snapshot"
	"github.com/lakepg/lakepg/types"
)

// commit runs fn against the latest snapshot and commits what it staged as
// one snapshot. cleanup runs when the commit fails (files written must go).
func (s *Session) commit(ctx context.Context, fn func(c *snapshot.Commit, meta *catalog.Metadata) error, cleanup func()) error {
	return s.commitWrite(ctx, fn, cleanup, false)
}

// commitInsert is commit for INSERT and COPY FROM: when what they staged
// turns out to be inserts only, the next writer need not wait for their
// commit (see commitWrite).
func (s *Session) commitInsert(ctx context.Context, fn func(c *snapshot.Commit, meta *catalog.Metadata) error, cleanup func()) error {
	return s.commitWrite(ctx, fn, cleanup, true)
}

// lockWrites takes the server's write lock and waits for the insert
// commits that let go of it to land.
func (e *Engine) lockWrites() {
	e.writeMu.Lock()
	e.inserts.Wait()
}

func (s *Session) commitWrite(ctx context.Context, fn func(c *snapshot.Commit, meta *catalog.Metadata) error, cleanup func(), insert bool) error {
	fn = s.CommitRecordingOwners(ctx, fn) // sql/privileges/privileges.go
	if s.inTx {
		return s.stage(ctx, fn, cleanup)
	}
	e := s.eng
	e.wg.Add(1)
	defer e.wg.Done()
	// An INSERT need not wait for other inserts in flight: what it stages
	// cannot conflict with theirs. (An INSERT that is not inserts only
	// writes to keyed tables or runs extras, neither of which an insert in
	// flight touches.)
	if insert {
		e.writeMu.Lock()
	} else {
		e.lockWrites()
	}
	locked := true
	defer func() {
		if locked {
			e.writeMu.Unlock()
		}
	}()
	// The latest, read under the write lock: this server's sessions never
	// conflict with each other, and a duplicate key is 23505, not 40001.
	// An insert into tables without keys builds on the snapshot its
	// statement planned against instead, saving the read: it conflicts
	// with no other insert, and what else committed since (a DROP, an
	// ALTER) the commit's checks against the head catch.
	var head catalog.Snapshot
	var err error
	if insert && len(s.keyChecks) == 0 && s.stmtHead != nil {
		head = *s.stmtHead
	} else if head, err = e.DB.Head(ctx); err != nil {
		return err
	}
	// a later write of the statement (a writable CTE) plans on top of this one
	s.stmtHead = nil
	meta, err := e.Metadata(ctx, head)
	if err != nil {
		return err
	}
	c := snapshot.Begin(e.DB, head, meta)
	err = s.runKeyChecks(ctx, c, meta) // unique.go
	if err == nil {
		err = fn(c, meta)
	}
	if err == nil {
		err = s.inlineLayouts(ctx, c) // inlinewrite.go
	}
	var restamped []string
	if err == nil {
		restamped, err = s.restampDeletes(ctx, c, head.ID+1) // deletefiles.go
	}
	if err == nil {
		err = s.filesPresent(ctx, c) // txn.go
	}
	if err != nil {
		if cleanup != nil {
			cleanup()
		}
		s.dropFiles(ctx, restamped)
		return err
	}
	if c.Empty() {
		return nil
	}
	if insert && c.InsertsOnly() {
		// Inserts conflict with no other insert: the next session may stage
		// while this one commits, and commits that meet go into the catalog
		// in one transaction (snapshot/group.go). Anything else stays
		// serialised on this server, so that its sessions never conflict
		// with each other.
		e.inserts.Add(1)
		defer e.inserts.Done()
		e.writeMu.Unlock()
		locked = false
	}
	// a commit must not be abandoned half-way because the client went away
	if _, err := c.Commit(context.WithoutCancel(ctx)); err != nil {
		if cleanup != nil {
			cleanup()
		}
		s.dropFiles(ctx, restamped)
		if errors.Is(err, snapshot.ErrConflict) {
			return pgerr.Wrap(pgerr.SerializationFailure, err, "could not serialize access due to concurrent update")
		}
		return err
	}
	return nil
}

func (s *Session) ddl(ctx context.Context, n *pg.Node) (*Result, error) {
	var tag string
	err := s.commit(ctx, func(c *snapshot.Commit, meta *catalog.Metadata) error {
		var err error
		tag, err = s.stageDDL(ctx, c, meta, n)
		return err
	}, nil)
	if err != nil {
		return nil, err
	}
	return tagResult(tag), nil
}

func (s *Session) stageDDL(ctx context.Context, c *snapshot.Commit, meta *catalog.Metadata, n *pg.Node) (string, error) {
	if tag, done, err := s.OwnerDDL(ctx, c, meta, n); done || err != nil { // sql/privileges/privileges_stmt.go
		return tag, err
	}
	switch x := n.Node.(type) {
	case *pg.Node_CreateSchemaStmt:
		st := x.CreateSchemaStmt
		if len(st.SchemaElts) > 0 {
			return "", pgerr.New(pgerr.FeatureNotSupported, "CREATE SCHEMA with elements is not supported")
		}
		if st.Schemaname == planner.LakeSchema {
			return "", pgerr.New(pgerr.DuplicateSchema, "schema \"%s\" is reserved by lakepg", planner.LakeSchema)
		}
		if _, ok := meta.SchemaByName(st.Schemaname); ok {
			if st.IfNotExists {
				s.notice("schema \"%s\" already exists, skipping", st.Schemaname)
				return "CREATE SCHEMA", nil
			}
			return "", pgerr.New(pgerr.DuplicateSchema, "schema \"%s\" already exists", st.Schemaname)
		}
		c.CreateSchema(st.Schemaname)
		return "CREATE SCHEMA", nil
	case *pg.Node_CreateStmt:
		if err := s.dropForeignKeysCreate(meta, x.CreateStmt); err != nil { // foreignkey.go
			return "", err
		}
		return s.createTable(ctx, c, meta, x.CreateStmt)
	case *pg.Node_DropStmt:
		if x.DropStmt.RemoveType == pg.ObjectType_OBJECT_SEQUENCE {
			return s.seq.DropSequences(ctx, c, meta, x.DropStmt) // sql/sequences/sequence.go
		}
		if x.DropStmt.RemoveType == pg.ObjectType_OBJECT_INDEX {
			return s.dropIndexes(meta, x.DropStmt) // foreignkey.go
		}
		return s.drop(ctx, c, meta, x.DropStmt)
	case *pg.Node_CreateSeqStmt:
		return s.seq.CreateSequence(ctx, c, meta, x.CreateSeqStmt)
	case *pg.Node_AlterSeqStmt:
		return s.seq.AlterSequence(ctx, c, meta, x.AlterSeqStmt)
	case *pg.Node_AlterTableStmt:
		if more, err := s.dropForeignKeysAlter(meta, x.AlterTableStmt); err != nil { // foreignkey.go
			return "", err
		} else if !more {
			return "ALTER TABLE", nil
		}
		return s.alterTable(ctx, c, meta, x.AlterTableStmt)
	case *pg.Node_CommentStmt:
		return s.comment(ctx, c, meta, x.CommentStmt) // comment.go
	case *pg.Node_RenameStmt:
		if x.RenameStmt.RenameType == pg.ObjectType_OBJECT_SEQUENCE {
			return s.seq.RenameSequence(ctx, c, meta, x.RenameStmt)
		}
		return s.rename(ctx, c, meta, x.RenameStmt)
	}
	return "", pgerr.New(pgerr.FeatureNotSupported, "statement not supported")
}

func (s *Session) targetSchema(meta *catalog.Metadata, name string, loc int32) (*catalog.Schema, error) {
	if name == "" {
		for _, sp := range s.SearchPath() {
			if sch, ok := meta.SchemaByName(sp); ok {
				return sch, nil
			}
		}
		return nil, planner.ErrAt(pgerr.New(pgerr.InvalidSchemaName, "no schema has been selected to create in"), loc)
	}
	sch, ok := meta.SchemaByName(name)
	if !ok {
		return nil, planner.ErrAt(pgerr.New(pgerr.InvalidSchemaName, "schema \"%s\" does not exist", name), loc)
	}
	return sch, nil
}

// columnDef converts a parsed column definition.
func (s *Session) columnDef(cd *pg.ColumnDef) (snapshot.ColumnDef, types.T, error) {
	t, err := planner.ResolveTypeName(cd.TypeName)
	if err != nil {
		return snapshot.ColumnDef{}, t, err
	}
	t = storedType(t) // nested_write.go
	def, err := tableColumnDef(cd.Colname, t)
	if err != nil {
		return snapshot.ColumnDef{}, t, planner.ErrAt(err.(*pgerr.Error), cd.Location)
	}
	def.PGType = types.PGTypeTag(t)
	for _, cn := range cd.Constraints {
		con := cn.GetConstraint()
		switch con.Contype {
		case pg.ConstrType_CONSTR_NOTNULL:
			def.NullsAllowed = false
		case pg.ConstrType_CONSTR_NULL:
		case pg.ConstrType_CONSTR_DEFAULT:
			if t.ID == types.Array {
				return def, t, planner.ErrAt(pgerr.New(pgerr.FeatureNotSupported, "DEFAULT on an array column is not supported"), con.Location)
			}
			text, expr, err := s.defaultText(con.RawExpr, t)
			if err != nil {
				return def, t, err
			}
			def.DefaultValue, def.DefaultIsExpression = &text, expr
		case pg.ConstrType_CONSTR_PRIMARY:
			def.NullsAllowed = false // the key itself: constraints.go
		case pg.ConstrType_CONSTR_UNIQUE:
		default:
			return def, t, planner.ErrAt(pgerr.New(pgerr.FeatureNotSupported, "column constraint %s is not supported", con.Contype), con.Location)
		}
	}
	return def, t, nil
}

// defaultText validates a DEFAULT and returns the text stored in the
// catalog: the literal value when constant, else the expression's SQL
// (expr true: stored with default_value_type 'expression').
func (s *Session) defaultText(n *pg.Node, t types.T) (string, bool, error) {
	b := &planner.Binder{Sess: &s.Session, Env: s.NewEnv(), NoAggMsg: "aggregate functions are not allowed in DEFAULT expressions"}
	e, err := b.Bind(n, &planner.Scope{})
	if err != nil {
		return "", false, err
	}
	if !planner.Assignable(e.Type(), t) {
		return "", false, pgerr.New(pgerr.DatatypeMismatch, "column is of type %s but default expression is of type %s", t, e.Type())
	}
	if k, ok := e.(*exec.Const); ok && !callsFunction(n) {
		v, err := exec.CastVector(b.Env, k.V, 1, t, true)
		if err != nil {
			return "", false, err
		}
		if v.IsNull(0) {
			return "NULL", false, nil
		}
		return literalText(v), false, nil
	}
	if seq, ok := sequences.NextvalCall(n); ok {
		// as PostgreSQL prints it: nextval('s'::regclass)
		return "nextval(" + sequences.QuoteLiteralSQL(seq) + "::regclass)", true, nil
	}
	return strings.TrimPrefix(planner.DeparseExpr(n), "SELECT "), true, nil
}

// callsFunction reports whether a DEFAULT calls a function (now(),
// current_date, nextval, …): PostgreSQL keeps such a default as the
// expression and evaluates it for every row, even when its value could be
// worked out when the table is created.
func callsFunction(n *pg.Node) bool {
	found := false
	planner.EachMessage(n.ProtoReflect(), func(m protoreflect.Message) { // views.go
		switch m.Interface().(type) {
		case *pg.FuncCall, *pg.SQLValueFunction:
			found = true
		}
	})
	return found
}

// literalText renders a value as DuckLake stores literal defaults; a
// timestamptz in UTC.
func literalText(v *vec.Vector) string {
	if v.Type.ID == types.Bool {
		if v.B[0] {
			return "true"
		}
		return "false"
	}
	return string(v.AppendText(nil, 0, time.UTC))
}

func (s *Session) createTable(ctx context.Context, c *snapshot.Commit, meta *catalog.Metadata, st *pg.CreateStmt) (string, error) {
	rv := st.Relation
	if rv.Relpersistence == "t" {
		return "", pgerr.New(pgerr.FeatureNotSupported, "temporary tables are not supported yet")
	}
	if len(st.InhRelations) > 0 || st.Partspec != nil {
		return "", pgerr.New(pgerr.FeatureNotSupported, "inheritance and PostgreSQL partitioning are not supported")
	}
	sch, err := s.targetSchema(meta, rv.Schemaname, rv.Location)
	if err != nil {
		return "", err
	}
	seqs, err := s.seq.Sequences(ctx)
	if err != nil {
		return "", err
	}
	if sequences.RelationExists(seqs, meta, sch.ID, rv.Relname) { // a table or a sequence (sql/sequences/sequence.go)
		if st.IfNotExists {
			s.notice("relation \"%s\" already exists, skipping", rv.Relname)
			return "CREATE TABLE", nil
		}
		return "", planner.ErrAt(pgerr.New(pgerr.DuplicateTable, "relation \"%s\" already exists", rv.Relname), rv.Location)
	}
	var cols []snapshot.ColumnDef
	var serials []*sequences.SerialSpec // sql/sequences/sequence.go
	seen := map[string]bool{}
	for _, el := range st.TableElts {
		if lc := el.GetTableLikeClause(); lc != nil {
			like, err := s.likeColumns(meta, lc) // ddl_like.go
			if err != nil {
				return "", err
			}
			for _, def := range like {
				if seen[def.Name] {
					return "", pgerr.New(pgerr.DuplicateColumn, "column \"%s\" specified more than once", def.Name)
				}
				seen[def.Name] = true
			}
			cols = append(cols, like...)
			continue
		}
		cd := el.GetColumnDef()
		if cd == nil {
			if con := el.GetConstraint(); con != nil && (con.Contype == pg.ConstrType_CONSTR_PRIMARY || con.Contype == pg.ConstrType_CONSTR_UNIQUE) {
				continue // constraints.go
			}
			return "", pgerr.New(pgerr.FeatureNotSupported, "table element %s is not supported", planner.NodeName(el))
		}
		if seen[cd.Colname] {
			return "", planner.ErrAt(pgerr.New(pgerr.DuplicateColumn, "column \"%s\" specified more than once", cd.Colname), cd.Location)
		}
		seen[cd.Colname] = true
		sp, cd, err := sequences.SerialSpecOf(cd)
		if err != nil {
			return "", err
		}
		def, t, err := s.columnDef(cd)
		if err != nil {
			return "", err
		}
		// DuckDB records a literal DEFAULT of CREATE TABLE as the column's
		// initial_default too (what files without the column would read)
		if d := def.DefaultValue; d != nil && *d != "NULL" && !def.DefaultIsExpression && literalFits(t, *d) {
			v := *d
			def.InitialDefault = &v
		}
		if sp != nil {
			var ok bool
			if sp.Typ, ok = sequences.SeqTypeName(t); !ok {
				return "", planner.ErrAt(pgerr.New(pgerr.InvalidParameterValue, "identity column type must be smallint, integer, or bigint"), cd.Location)
			}
			sp.Col, sp.Index = cd.Colname, len(cols)
			serials = append(serials, sp)
			def.NullsAllowed = false
		}
		cols = append(cols, def)
	}
	if len(cols) == 0 {
		return "", pgerr.New(pgerr.FeatureNotSupported, "tables without columns are not supported by DuckLake")
	}
	names := make([]string, len(cols))
	for i, d := range cols {
		names[i] = d.Name
	}
	keys, err := collectCreateConstraints(st, names, rv.Relname) // constraints.go
	if err != nil {
		return "", err
	}
	for _, k := range keys {
		if k.typ == "p" {
			for _, ci := range k.cols {
				cols[ci].NullsAllowed = false
			}
		}
	}
	var tid int64
	if len(serials) > 0 {
		if tid, err = s.seq.CreateTableWithSequences(ctx, c, meta, sch, rv.Relname, cols, serials); err != nil {
			return "", err
		}
	} else {
		tid = c.CreateTable(*sch, rv.Relname, cols)
	}
	if err := stageCreateConstraints(c, meta, sch.ID, tid, rv.Relname, keys, cols); err != nil {
		return "", err
	}
	return "CREATE TABLE", nil
}

func (s *Session) drop(ctx context.Context, c *snapshot.Commit, meta *catalog.Metadata, st *pg.DropStmt) (string, error) {
	switch st.RemoveType {
	case pg.ObjectType_OBJECT_SCHEMA:
		for _, o := range st.Objects {
			name := o.GetString_().Sval
			sch, ok := meta.SchemaByName(name)
			if !ok {
				if st.MissingOk {
					s.notice("schema \"%s\" does not exist, skipping", name)
					continue
				}
				return "", pgerr.New(pgerr.InvalidSchemaName, "schema \"%s\" does not exist", name)
			}
			var tables []catalog.Table
			for _, t := range meta.Tables {
				if t.SchemaID == sch.ID {
					tables = append(tables, t)
				}
			}
			seqs, err := s.seq.Sequences(ctx)
			if err != nil {
				return "", err
			}
			var schemaSeqs []catalog.Sequence
			for _, q := range seqs {
				if q.SchemaID == sch.ID {
					schemaSeqs = append(schemaSeqs, q)
				}
			}
			views := viewsIn(meta, sch.ID) // views.go
			if len(schemaSeqs) > 0 && len(tables) == 0 && len(views) == 0 && st.Behavior != pg.DropBehavior_DROP_CASCADE {
				e := pgerr.New(pgerr.DependentObjectsExist, "cannot drop schema %s because other objects depend on it", name)
				e.Hint = "Use DROP ... CASCADE to drop the dependent objects too."
				return "", e
			}
			for i := range schemaSeqs {
				if err := s.seq.DropSequence(ctx, c, &schemaSeqs[i]); err != nil {
					return "", err
				}
			}
			if len(tables) > 0 || len(views) > 0 {
				if st.Behavior != pg.DropBehavior_DROP_CASCADE {
					e := pgerr.New(pgerr.DependentObjectsExist, "cannot drop schema %s because other objects depend on it", name)
					e.Hint = "Use DROP ... CASCADE to drop the dependent objects too."
					return "", e
				}
				for _, t := range tables {
					c.DropTable(*sch, t)
				}
				for _, v := range views {
					c.DropView(*sch, v)
				}
			}
			c.DropSchema(*sch)
		}
		return "DROP SCHEMA", nil
	case pg.ObjectType_OBJECT_TABLE, pg.ObjectType_OBJECT_VIEW, pg.ObjectType_OBJECT_MATVIEW:
		return s.dropRelations(ctx, c, meta, st) // views.go
	}
	return "", pgerr.New(pgerr.FeatureNotSupported, "DROP %s is not supported yet", strings.TrimPrefix(st.RemoveType.String(), "OBJECT_"))
}

func (s *Session) alterTable(ctx context.Context, c *snapshot.Commit, meta *catalog.Metadata, st *pg.AlterTableStmt) (string, error) {
	rv := st.Relation
	_, t, err := s.ResolveTable(meta, rv.Schemaname, rv.Relname, rv.Location)
	if err != nil {
		if st.MissingOk {
			return "ALTER TABLE", nil
		}
		return "", err
	}
	for _, cmdNode := range st.Cmds {
		cmd := cmdNode.GetAlterTableCmd()
		switch cmd.Subtype {
		case pg.AlterTableType_AT_AddColumn:
			cd := cmd.Def.GetColumnDef()
			if _, exists := t.ColumnByName(cd.Colname); exists {
				if cmd.MissingOk {
					continue
				}
				return "", pgerr.New(pgerr.DuplicateColumn, "column \"%s\" of relation \"%s\" already exists", cd.Colname, t.Name)
			}
			if sp, _, err := sequences.SerialSpecOf(cd); err != nil || sp != nil {
				if err == nil {
					err = pgerr.New(pgerr.FeatureNotSupported, "ADD COLUMN of a serial or identity column is not supported yet: existing rows would need values")
				}
				return "", err
			}
			def, _, err := s.columnDef(cd)
			if err != nil {
				return "", err
			}
			if def.DefaultValue != nil {
				if *def.DefaultValue == "NULL" {
					def.DefaultValue = nil
				} else {
					// existing rows read the default: it must be a constant
					for _, cn := range cd.Constraints {
						if con := cn.GetConstraint(); con.Contype == pg.ConstrType_CONSTR_DEFAULT && !isConstExpr(con.RawExpr) {
							return "", pgerr.New(pgerr.FeatureNotSupported, "ADD COLUMN with a non-constant DEFAULT is not supported yet")
						}
					}
					v := *def.DefaultValue
					def.InitialDefault = &v
				}
			}
			colID := c.AddColumn(*t, def)
			if err := s.addColumnConstraints(ctx, c, meta, t, cd, colID); err != nil { // constraints.go
				return "", err
			}
		case pg.AlterTableType_AT_DropColumn:
			col, ok := t.ColumnByName(cmd.Name)
			if !ok {
				if cmd.MissingOk {
					continue
				}
				return "", pgerr.New(pgerr.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", cmd.Name, t.Name)
			}
			if len(t.Columns) == 1 {
				return "", pgerr.New(pgerr.FeatureNotSupported, "cannot drop the only column of a DuckLake table")
			}
			if err := tablelayout.CheckNotPartitionKey(t, col); err != nil { // sql/tablelayout
				return "", err
			}
			dropColumnConstraints(c, meta, t, col.ID) // constraints.go
			c.DropColumn(*t, col.ID)
			if err := s.seq.DropOwnedSequences(ctx, c, t.ID, col.ID); err != nil { // sql/sequences/sequence.go
				return "", err
			}
		case pg.AlterTableType_AT_AlterColumnType:
			col, ok := t.ColumnByName(cmd.Name)
			if !ok {
				return "", pgerr.New(pgerr.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", cmd.Name, t.Name)
			}
			cd := cmd.Def.GetColumnDef()
			if cd.RawDefault != nil {
				return "", pgerr.New(pgerr.FeatureNotSupported, "ALTER COLUMN TYPE ... USING is not supported")
			}
			nt, err := planner.ResolveTypeName(cd.TypeName)
			if err != nil {
				return "", err
			}
			if nt.ID == types.Array || strings.EqualFold(col.Type, "list") {
				if err := alterArrayType(c, t, col, nt); err != nil { // nested_alter.go
					return "", err
				}
				continue
			}
			dl, err := nt.DuckLake()
			if err != nil {
				return "", err
			}
			if dl == col.Type {
				if err := planner.AlterTextModifier(c, t, col, nt); err != nil { // planner/laketypes/charn.go
					return "", err
				}
				continue
			}
			if !widening(col.Type, dl) {
				old, _ := types.FromDuckLake(col.Type)
				return "", pgerr.New(pgerr.FeatureNotSupported, "changing column \"%s\" from %s to %s would rewrite data files; only widening (smallint→integer→bigint, real→double precision) is supported", cmd.Name, old, nt)
			}
			c.SetColumnType(*t, col.ID, dl)
		case pg.AlterTableType_AT_DropNotNull, pg.AlterTableType_AT_SetNotNull:
			if err := s.alterNullability(ctx, c, meta, t, cmd); err != nil { // nullable.go
				return "", err
			}
		case pg.AlterTableType_AT_ColumnDefault:
			col, ok := t.ColumnByName(cmd.Name)
			if !ok {
				return "", pgerr.New(pgerr.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", cmd.Name, t.Name)
			}
			if cmd.Def == nil {
				c.SetColumnDefault(*t, col.ID, nil)
				continue
			}
			ct, _ := planner.DeclaredType(col) // planner/laketypes/charn.go
			text, expr, err := s.defaultText(cmd.Def, ct)
			if err != nil {
				return "", err
			}
			c.SetColumnDefaultExpr(*t, col.ID, &text, expr)
		case pg.AlterTableType_AT_AddConstraint:
			con := cmd.Def.GetConstraint()
			if con == nil || con.Contype != pg.ConstrType_CONSTR_PRIMARY && con.Contype != pg.ConstrType_CONSTR_UNIQUE {
				return "", pgerr.New(pgerr.FeatureNotSupported, "ALTER TABLE ADD CONSTRAINT supports PRIMARY KEY and UNIQUE only")
			}
			sch, _ := meta.SchemaByID(t.SchemaID)
			if err := s.addConstraint(ctx, c, meta, sch, t, con); err != nil { // constraints.go
				return "", err
			}
			if t2, ok := c.Overlay(meta).TableByID(t.ID); ok {
				t = t2 // later commands see the key
			}
		case pg.AlterTableType_AT_DropConstraint:
			if err := s.dropConstraint(c, meta, t, cmd); err != nil { // constraints.go
				return "", err
			}
		case pg.AlterTableType_AT_SetRelOptions, pg.AlterTableType_AT_ResetRelOptions:
			if err := s.tl.AlterPartitioning(ctx, c, t, cmd); err != nil { // sql/tablelayout
				return "", err
			}
		default:
			return "", pgerr.New(pgerr.FeatureNotSupported, "ALTER TABLE %s is not supported yet", strings.TrimPrefix(cmd.Subtype.String(), "AT_"))
		}
	}
	return "ALTER TABLE", nil
}

func isConstExpr(n *pg.Node) bool {
	switch x := n.Node.(type) {
	case *pg.Node_AConst:
		return true
	case *pg.Node_TypeCast:
		return isConstExpr(x.TypeCast.Arg)
	case *pg.Node_AExpr:
		return (x.AExpr.Lexpr == nil || isConstExpr(x.AExpr.Lexpr)) && isConstExpr(x.AExpr.Rexpr)
	}
	return false
}

// widening lists the type promotions DuckLake allows without rewriting files.
func widening(from, to string) bool {
	allowed := map[string][]string{
		"int8": {"int16", "int32", "int64"}, "int16": {"int32", "int64"}, "int32": {"int64"},
		"float32": {"float64"},
	}
	for _, t := range allowed[from] {
		if t == to {
			return true
		}
	}
	return false
}

func (s *Session) rename(ctx context.Context, c *snapshot.Commit, meta *catalog.Metadata, st *pg.RenameStmt) (string, error) {
	switch st.RenameType {
	case pg.ObjectType_OBJECT_TABLE, pg.ObjectType_OBJECT_VIEW:
		// PostgreSQL renames a view by ALTER TABLE too, and a table by
		// ALTER VIEW
		tag := "ALTER TABLE"
		if st.RenameType == pg.ObjectType_OBJECT_VIEW {
			tag = "ALTER VIEW"
		}
		rv := st.Relation
		r, err := s.ResolveRelation(meta, rv.Schemaname, rv.Relname, rv.Location)
		if err != nil {
			if st.MissingOk {
				return tag, nil
			}
			return "", err
		}
		if taken, err := s.seq.RelationTaken(ctx, meta, r.Schema.ID, st.Newname); err != nil {
			return "", err
		} else if taken {
			return "", pgerr.New(pgerr.DuplicateTable, "relation \"%s\" already exists", st.Newname)
		}
		if r.View != nil {
			c.RenameView(*r.Schema, *r.View, st.Newname)
		} else {
			c.RenameTable(*r.Schema, *r.Table, st.Newname)
		}
		return tag, nil
	case pg.ObjectType_OBJECT_COLUMN:
		rv := st.Relation
		_, t, err := s.ResolveTable(meta, rv.Schemaname, rv.Relname, rv.Location)
		if err != nil {
			return "", err
		}
		col, ok := t.ColumnByName(st.Subname)
		if !ok {
			return "", pgerr.New(pgerr.UndefinedColumn, "column \"%s\" does not exist", st.Subname)
		}
		if _, ok := t.ColumnByName(st.Newname); ok {
			return "", pgerr.New(pgerr.DuplicateColumn, "column \"%s\" of relation \"%s\" already exists", st.Newname, t.Name)
		}
		c.RenameColumn(*t, col.ID, st.Newname)
		return "ALTER TABLE", nil
	case pg.ObjectType_OBJECT_SCHEMA:
		return "", pgerr.New(pgerr.FeatureNotSupported, "ALTER SCHEMA RENAME is not supported yet")
	}
	return "", pgerr.New(pgerr.FeatureNotSupported, "ALTER ... RENAME of %s is not supported yet", strings.TrimPrefix(st.RenameType.String(), "OBJECT_"))
}

// createIndex accepts CREATE INDEX for compatibility with schemas written
// for PostgreSQL: DuckLake tables have no indexes (files are pruned by their
// statistics instead), so after checking the table and columns exist it
// changes nothing and makes no snapshot.
func (s *Session) createIndex(ctx context.Context, st *pg.IndexStmt) (*Result, error) {
	snap, err := s.writeHead(ctx)
	if err != nil {
		return nil, err
	}
	meta, err := s.Metadata(ctx, snap)
	if err != nil {
		return nil, err
	}
	rv := st.Relation
	_, t, err := s.ResolveTable(meta, rv.Schemaname, rv.Relname, rv.Location)
	if err != nil {
		return nil, err
	}
	if err := s.CheckRelOwner(ctx, t.ID, planner.RelationWord(t, nil), t.Name); err != nil { // sql/privileges/privileges.go
		return nil, err
	}
	for _, p := range st.IndexParams {
		el := p.GetIndexElem()
		if el == nil || el.Name == "" {
			continue // expression indexes: nothing to check
		}
		if _, ok := t.ColumnByName(el.Name); !ok {
			return nil, pgerr.New(pgerr.UndefinedColumn, "column \"%s\" does not exist", el.Name)
		}
	}
	return tagResult("CREATE INDEX"), nil
}
