// Package sql runs PostgreSQL statements for a session: it parses them,
// dispatches them, keeps the session's transaction block, settings,
// cursors and prepared statements, and runs the commands with side effects
// (DDL, DML, COPY, maintenance, roles and privileges, sequences) as
// DuckLake commits. Queries it hands to sql/planner, which it serves
// through planner.Host. It knows nothing of the wire format; wire/ drives
// a Session.
package sql

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/lakepg/lakepg/sql/maintenance"
	"github.com/lakepg/lakepg/sql/planner"
	"github.com/lakepg/lakepg/sql/privileges"
	"github.com/lakepg/lakepg/sql/sequences"
	"github.com/lakepg/lakepg/sql/tablelayout"

	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/pganalyze/pg_query_go/v6/parser"
	"google.golang.org/protobuf/proto"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/memory"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/storage"
	"github.com/lakepg/lakepg/types"
)

// Engine is the shared state of all sessions: the catalog and the data store.
type Engine struct {
	DB    *catalog.DB
	Store storage.Backend
	Log   *slog.Logger

	metas *catalog.MetaCache // immutable per snapshot, shared by schema_version
	// writeMu serialises this server's commits; other servers are handled by
	// the optimistic protocol in snapshot/.
	writeMu sync.Mutex
	// inserts counts autocommit insert commits that were staged under
	// writeMu and let go of it to commit (ddl.go): every other writer waits
	// for them after taking writeMu, so that it stages on a head that has
	// them and never conflicts with this server's own inserts. Add and Wait
	// are both called with writeMu held.
	inserts sync.WaitGroup
	wg      sync.WaitGroup

	// Admission, when set, bounds the statements computing on lake data at
	// once (planner/admission.go).
	Admission *Admission
}

// NewEngine builds an engine.
func NewEngine(db *catalog.DB, store storage.Backend, log *slog.Logger) *Engine {
	if log == nil {
		log = slog.Default()
	}
	return &Engine{DB: db, Store: store, Log: log, metas: catalog.NewMetaCache(db)}
}

// WaitWrites waits for running commits (used at shutdown).
func (e *Engine) WaitWrites() { e.wg.Wait() }

func (e *Engine) Metadata(ctx context.Context, snap catalog.Snapshot) (*catalog.Metadata, error) {
	return e.metas.Get(ctx, snap)
}

// Session is one client connection's state.
type Session struct {
	planner.Session
	mt  maintenance.Runner  // CALL's maintenance procedures (sql/maintenance)
	tl  tablelayout.Layouts // partitioning and sort order (sql/tablelayout)
	seq sequences.State     // currval, lastval and cached sequence values (sql/sequences)
	// SET ROLE, owners and grants the statement read (sql/privileges)
	privileges.State
	eng *Engine
	// boot are the settings the client's startup message gave: what RESET
	// returns them to, as PostgreSQL resets to the connection's values
	boot    map[string]string
	changed map[string]string
	inTx    bool
	txn     *txn // the open block's snapshot and staged writes (nil until needed)
	// stmtHead is the latest snapshot as the running statement first read
	// it outside a block (writeHead, txn.go); nil until then, and outside
	// Execute (a statement described now may run much later)
	stmtHead *catalog.Snapshot
	// describing: a statement is being described (stmtHead is kept
	// meanwhile too)
	describing bool
	// stmtValues carries the running statement's context values (not its
	// cancellation) to code that has no ctx of its own (schemaUsable)
	stmtValues context.Context
	failed     bool
	pid        int32 // the backend process id the client was told

	// implicit: the open block is an implicit transaction that Sync ends;
	// pipelined: more statements may follow before it (implicit.go)
	implicit, pipelined bool
	// cteReads, set while the primary query of a statement with
	// data-modifying WITH queries is planned, is the block as it was before
	// they ran: what that query reads (with_write.go)
	cteReads *cteReadView
	// refreshing: REFRESH MATERIALIZED VIEW is writing its table (matview.go)
	refreshing bool

	notify    func(Notice) // where notices go (notice.go); nil drops them
	superuser bool         // logged in as one (sql/privileges/roles.go): counts while the user is not a role

	cursors map[string]*cursor // DECLAREd cursors (cursor.go)

	blockSet *blockSettings // what the open block undoes (settings_txn.go)

	savepoints []*savepoint // of the open block, innermost last (savepoint.go)

	temp tempState // the session's temporary tables (temp.go)

	// keyChecks are the unique-key checks of the write being run, done
	// right before its changes are staged (unique.go); uniqueStats counts
	// what the last one read
	keyChecks   []*keyCheck
	uniqueStats uniqueScanStats
	// upsert is what ON CONFLICT DO UPDATE's UPDATE reads, conflictStats
	// what its last probe read (upsert.go)
	upsert        *upsertState
	conflictStats conflictStats
	// upsertBlock: the open block is the one an INSERT … ON CONFLICT
	// opened for itself; inlineInBlock: its insert may inline (dml.go)
	upsertBlock, inlineInBlock bool
	// mergeFiles: while MERGE runs, the number of each staged file without
	// row ids, whose rows get row ids apart (txn.go, merge.go)
	mergeFiles map[string]int64
}

// reported are the settings whose changes clients expect as ParameterStatus.
var reported = map[string]string{
	"application_name": "application_name", "timezone": "TimeZone", "datestyle": "DateStyle",
	"client_encoding": "client_encoding", "intervalstyle": "IntervalStyle",
	"standard_conforming_strings": "standard_conforming_strings", "is_superuser": "is_superuser",
}

// NewSession opens a session for user on database with startup parameters.
func (e *Engine) NewSession(user, database string, startup map[string]string) (*Session, error) {
	s := &Session{eng: e, boot: map[string]string{}, changed: map[string]string{}}
	s.Session = planner.Session{Host: s, DB: e.DB, Store: e.Store, User: user, Database: database, Settings: map[string]string{}, Loc: time.UTC}
	s.State = privileges.NewState(host{s}, &s.Session)
	s.seq.Init(host{s}, &s.Session)
	s.mt = maintenance.Runner{Host: host{s}, Session: &s.Session}
	s.tl = tablelayout.Layouts{Host: host{s}, Session: &s.Session}
	for k, v := range planner.DefaultSettings {
		s.Settings[k] = v
	}
	for k, v := range startup {
		k = strings.ToLower(k)
		switch k {
		case "user", "database", "options", "replication":
			continue
		}
		if k == "timezone" {
			loc, err := planner.TimeZoneLocation(v)
			if err != nil {
				return nil, err
			}
			s.Loc = loc
		}
		s.Settings[k] = v
		s.boot[k] = v
	}
	return s, nil
}

// TxStatus is the ReadyForQuery status byte.
func (s *Session) TxStatus() byte {
	switch {
	case s.failed:
		return 'E'
	case s.inTx:
		return 'T'
	}
	return 'I'
}

// Location is the session TimeZone.
func (s *Session) Location() *time.Location { return s.Loc }

// ParameterChanges returns reportable settings changed since the last call.
func (s *Session) ParameterChanges() map[string]string {
	if len(s.changed) == 0 {
		return nil
	}
	c := s.changed
	s.changed = map[string]string{}
	return c
}

// Close ends the session.
func (s *Session) Close() {
	s.closeCursors(func(*cursor) bool { return true })
	s.endTxn(context.Background(), false) // a dropped connection rolls back
	s.tempClose()                         // temp.go
}

// Setting reads a setting.
func (s *Session) Setting(name string) string { return s.Settings[strings.ToLower(name)] }

func (s *Session) SearchPath() []string {
	var out []string
	for _, p := range strings.Split(s.Settings["search_path"], ",") {
		p = strings.TrimSpace(p)
		p = strings.Trim(p, `"`)
		if p == "" || p == "$user" {
			continue
		}
		out = append(out, p)
	}
	if len(out) == 0 {
		out = []string{"public"}
	}
	// main is DuckDB's default schema, and a lake DuckDB created has no
	// public: searching it last lets unqualified names find its tables.
	if !slices.Contains(out, "main") {
		out = append(out, "main")
	}
	return out
}

// Stmt is one parsed statement.
type Stmt struct {
	sess      *Session
	node      *pg.Node
	text      string
	params    *planner.Params
	cols      []Column
	described bool
	descErr   error
	// runDescribes: not described ahead (PrepareSimple); running it gives
	// its columns
	runDescribes bool
}

// Prepare parses query into statements. Each statement is described (its
// parameter and result types found) before it runs.
func (s *Session) Prepare(ctx context.Context, query string, paramOIDs []uint32) (stmts []*Stmt, err error) {
	return s.prepare(ctx, query, paramOIDs, false)
}

// PrepareSimple is Prepare for a simple-protocol Query message, whose
// statements run right away: a lone query is not planned to be described
// (Execute plans it and its result gives the columns), which halves the
// catalog reads of a one-table SELECT.
func (s *Session) PrepareSimple(ctx context.Context, query string) (stmts []*Stmt, err error) {
	return s.prepare(ctx, query, nil, true)
}

func (s *Session) prepare(ctx context.Context, query string, paramOIDs []uint32, simple bool) (stmts []*Stmt, err error) {
	defer recoverPanic(s.eng.Log, &err)
	tree, perr := planner.ParseStatements(query) // planner/parse/fastparse.go
	if perr != nil {
		// DuckDB's SET/RESET PARTITIONED BY (sql/tablelayout/partition_ddl.go)
		if q, ok := tablelayout.RewritePartitionDDL(query); ok {
			if t, err := pg.Parse(q); err == nil {
				tree, perr = t, nil
			}
		}
	}
	if perr != nil {
		return nil, syntaxError(perr)
	}
	for _, raw := range tree.Stmts {
		p := &planner.Params{}
		for i, oid := range paramOIDs {
			t, ok := types.FromOID(oid)
			if !ok {
				return nil, pgerr.New(pgerr.FeatureNotSupported, "parameter $%d has unsupported type oid %d", i+1, oid)
			}
			p.Types = append(p.Types, t)
		}
		st := &Stmt{sess: s, node: raw.Stmt, text: query, params: p}
		stmts = append(stmts, st)
	}
	if len(stmts) == 1 && plainWrite(stmts[0].node, query, paramOIDs) {
		// Nothing to describe: no rows, no parameters to type. Planning it
		// here would cost the catalog reads of planning it again to run.
		stmts[0].described = true
	} else if len(stmts) == 1 && simple && plainQuery(stmts[0].node) {
		stmts[0].runDescribes = true
	} else if len(stmts) == 1 {
		// describe now for the extended protocol; simple queries describe lazily
		stmts[0].describe(ctx)
		if err := stmts[0].descErr; err != nil && hasReturning(stmts[0].node) && pgerr.Code(err)[:2] == "42" {
			// PostgreSQL rejects a RETURNING list naming what does not
			// exist when it parses the statement (returning.go)
			return nil, err
		}
	}
	return stmts, nil
}

// plainQuery reports whether n is a SELECT that writes nothing: no INTO,
// no data-modifying WITH.
func plainQuery(n *pg.Node) bool {
	sel := n.GetSelectStmt()
	return sel != nil && sel.IntoClause == nil && writableWith(n) == nil
}

// plainWrite reports whether n is an INSERT, UPDATE, DELETE or MERGE
// without RETURNING whose text has no parameter ($n; a '$' anywhere, in a
// string too, counts), so that describing it could only find no columns
// and no parameters.
func plainWrite(n *pg.Node, query string, paramOIDs []uint32) bool {
	switch n.Node.(type) {
	case *pg.Node_InsertStmt, *pg.Node_UpdateStmt, *pg.Node_DeleteStmt, *pg.Node_MergeStmt:
	default:
		return false
	}
	return len(paramOIDs) == 0 && !strings.Contains(query, "$") && !hasReturning(n) && writableWith(n) == nil
}

func syntaxError(err error) error {
	pe := pgerr.New(pgerr.SyntaxError, "%s", err.Error())
	var pqe *parser.Error
	if errors.As(err, &pqe) {
		pe.Message = pqe.Message
		pe.Position = pqe.Cursorpos
	}
	return pe
}

func recoverPanic(log *slog.Logger, err *error) {
	if r := recover(); r != nil {
		log.Error("panic in statement", "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
		*err = pgerr.New(pgerr.Internal, "internal error: %v", r)
	}
}

func (st *Stmt) describe(ctx context.Context) {
	if st.described {
		return
	}
	st.described = true
	cols, err := st.sess.describe(ctx, st)
	st.cols, st.descErr = cols, err
	for i, t := range st.params.Types {
		if t.ID == types.Unknown {
			st.params.Types[i] = types.TextT
		}
	}
}

// ParamTypes returns the parameter type OIDs.
func (st *Stmt) ParamTypes() []uint32 {
	st.describe(context.Background())
	out := make([]uint32, len(st.params.Types))
	for i, t := range st.params.Types {
		out[i] = t.OID()
	}
	return out
}

// Columns returns the result columns (nil when the statement returns no rows).
func (st *Stmt) Columns() []Column {
	st.describe(context.Background())
	return st.cols
}

// Result streams a statement's rows.
type Result struct {
	cols  []Column
	op    exec.Operator
	tag   string
	verb  string
	count int64
	done  bool
	after func() error
	ext   *resultExt      // COPY and FETCH results (copy.go, cursor.go)
	rows  *exec.RowBuffer // the RETURNING rows op reads (returning.go)
	// sess is the session that ran the statement: an error while rows
	// are produced aborts its transaction block, as Execute's errors do.
	sess *Session
	// workMem is the session's work_mem when the statement ran, in bytes
	// (0: not set), the operators' own budget (pgsession.go)
	workMem int64
	// qmem is the statement's memory account: its operators' requests
	// wait for other statements' memory rather than fail
	qmem *memory.Memory
}

// Next returns the next batch, nil at the end.
func (r *Result) Next(ctx context.Context) (b *vec.Batch, err error) {
	if r.done || r.op == nil {
		r.done = true
		return nil, nil
	}
	if r.qmem != nil {
		r.qmem.SetContext(ctx)
		ctx = memory.WithQueryMemory(ctx, r.qmem)
	}
	b, err = r.op.Next(memory.WithWorkMem(ctx, r.workMem))
	if err != nil {
		if r.sess != nil && r.sess.inTx {
			r.sess.failed = true
		}
		return nil, err
	}
	if b == nil {
		r.done = true
		if r.after != nil {
			if err := r.after(); err != nil {
				return nil, err
			}
		}
		return nil, nil
	}
	r.count += int64(b.N)
	return b, nil
}

// Tag is the command tag, final after Next returned nil.
func (r *Result) Tag() string {
	if r.tag != "" {
		return r.tag
	}
	return fmt.Sprintf("%s %d", r.verb, r.count)
}

// Close releases the result.
func (r *Result) Close() error {
	var err error
	if r.op != nil {
		err = r.op.Close()
	}
	if r.qmem != nil {
		r.qmem.EndQuery()
		r.qmem = nil
	}
	return err
}

func tagResult(tag string) *Result { return &Result{tag: tag, done: true} }

// Execute runs the statement with text parameter values.
func (st *Stmt) Execute(ctx context.Context, values [][]byte) (res *Result, err error) {
	s := st.sess
	defer recoverPanic(s.eng.Log, &err)
	s.noteActivity(st.text)
	if !st.runDescribes {
		st.describe(ctx)
	}
	if s.failed {
		if t := st.node.GetTransactionStmt(); t != nil && t.Kind == pg.TransactionStmtKind_TRANS_STMT_ROLLBACK_TO {
			// the one statement that makes a failed block usable again
			return s.savepointStmt(t)
		}
		if isTxEnd(st.node) {
			s.failed, s.inTx, s.implicit = false, false, false
			s.endCursors(false)
			s.endTxn(ctx, false)
			return tagResult("ROLLBACK"), nil
		}
		return nil, pgerr.New(pgerr.InFailedTransaction, "current transaction is aborted, commands ignored until end of transaction block")
	}
	if len(values) != len(st.params.Types) && len(st.params.Types) > 0 {
		return nil, pgerr.New(pgerr.ProtocolViolation, "bind message supplies %d parameters, but prepared statement requires %d", len(values), len(st.params.Types))
	}
	p := &planner.Params{Types: st.params.Types, Values: values, Bound: true}
	if p.Values == nil {
		p.Values = [][]byte{}
	}
	// the statement's first head read also learns what its later catalog
	// questions ask (catalog/stmtcache.go)
	ctx = catalog.WithStatement(ctx)
	s.stmtValues = context.WithoutCancel(ctx)
	defer func() { s.stmtValues, s.stmtHead = nil, nil }()
	s.beginImplicit(st.node)         // implicit.go
	own := s.beginReturning(st.node) // returning.go
	workMem := s.workMemBytes()
	// statements that run their plan here (CREATE TABLE AS, INSERT …
	// SELECT) use both at once; a query's rows use them in Result.Next
	qmem := memory.NewQueryMemory(nil, ctx)
	ctx = memory.WithQueryMemory(memory.WithWorkMem(ctx, workMem), qmem)
	res, err = s.execute(ctx, st, p)
	if err != nil && s.inTx {
		s.failed = true
	}
	if own {
		res, err = s.endReturning(ctx, res, err)
	}
	if res == nil || res.op == nil || res.qmem != nil {
		qmem.EndQuery()
	} else {
		res.qmem = qmem
	}
	if res != nil {
		res.sess = s
		res.workMem = workMem
		if st.runDescribes && !st.described && res.op != nil {
			st.cols, st.described = res.cols, true
		}
		if st.cols == nil && res.cols != nil && res.op != nil {
			// the statement could not be described before it ran (a table
			// an earlier statement of the same string created)
			st.cols = res.cols
		}
	}
	return res, err
}

func isTxEnd(n *pg.Node) bool {
	if t := n.GetTransactionStmt(); t != nil {
		return t.Kind == pg.TransactionStmtKind_TRANS_STMT_ROLLBACK || t.Kind == pg.TransactionStmtKind_TRANS_STMT_COMMIT
	}
	return false
}

// describe finds the result columns of st without running it.
func (s *Session) describe(ctx context.Context, st *Stmt) ([]Column, error) {
	// one head read for the whole description, as for a statement's run;
	// a description inside a running statement (EXECUTE, a cursor) uses
	// that statement's head, as before
	if !s.describing && s.stmtValues == nil {
		s.describing, s.stmtHead = true, nil
		// and its later catalog questions answered from that read, as a
		// run's are (catalog/stmtcache.go): a cold read described by
		// pgx asked for lakepg_role once more at Parse (schemaUsable)
		ctx = catalog.WithStatement(ctx)
		s.stmtValues = context.WithoutCancel(ctx)
		defer func() { s.describing, s.stmtHead, s.stmtValues = false, nil, nil }()
	}
	switch n := st.node.Node.(type) {
	case *pg.Node_SelectStmt:
		if n.SelectStmt.IntoClause != nil {
			return nil, nil // SELECT INTO returns no rows
		}
		if w := writableWith(st.node); w != nil {
			done, err := s.runWritableCTEs(ctx, w, st.params, true) // with_write.go
			if err != nil {
				return nil, err
			}
			defer done()
			defer func() { s.WrittenCTEs = nil }()
		}
		q, err := s.PlanQuery(ctx, n.SelectStmt, st.params, true)
		if err != nil {
			return nil, err
		}
		q.Op.Close()
		return q.Cols, nil
	case *pg.Node_ExplainStmt:
		return []Column{{Name: "QUERY PLAN", Type: types.TextT}}, nil
	case *pg.Node_VariableShowStmt:
		name := strings.ToLower(n.VariableShowStmt.Name)
		if name == "all" {
			return []Column{{Name: "name", Type: types.TextT}, {Name: "setting", Type: types.TextT}, {Name: "description", Type: types.TextT}}, nil
		}
		return []Column{{Name: showName(name), Type: types.TextT}}, nil
	case *pg.Node_InsertStmt, *pg.Node_UpdateStmt, *pg.Node_DeleteStmt, *pg.Node_MergeStmt:
		// bind to infer parameter types and the RETURNING columns
		res, err := s.planWrite(ctx, st.node, st.params, true)
		if res != nil {
			return res.cols, nil
		}
		if hasReturning(st.node) {
			return nil, err
		}
		return nil, nil
	case *pg.Node_FetchStmt:
		return s.describeFetch(n.FetchStmt), nil
	case *pg.Node_DeclareCursorStmt:
		// bind to infer parameter types; DECLARE itself returns no rows
		if sel := n.DeclareCursorStmt.Query.GetSelectStmt(); sel != nil {
			if q, err := s.PlanQuery(ctx, sel, st.params, true); err == nil {
				q.Op.Close()
			}
		}
		return nil, nil
	}
	return nil, nil
}

func (s *Session) execute(ctx context.Context, st *Stmt, p *planner.Params) (*Result, error) {
	s.ResetPrivCache()                                        // sql/privileges/privileges.go
	s.stmtHead = nil                                          // txn.go
	if res, ok, err := s.tempStatement(ctx, st.node, p); ok { // temp_ddl.go
		return res, err
	}
	switch n := st.node.Node.(type) {
	case *pg.Node_SelectStmt:
		if into := n.SelectStmt.IntoClause; into != nil {
			// SELECT … INTO t is CREATE TABLE t AS SELECT …
			if err := s.checkWritable(); err != nil {
				return nil, err
			}
			sel := proto.Clone(n.SelectStmt).(*pg.SelectStmt)
			sel.IntoClause = nil
			return s.createTableAs(ctx, &pg.CreateTableAsStmt{Query: &pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: sel}},
				Into: into, Objtype: pg.ObjectType_OBJECT_TABLE}, p)
		}
		if w := writableWith(st.node); w != nil {
			if err := s.checkWritable(); err != nil {
				return nil, err
			}
			done, err := s.runWritableCTEs(ctx, w, p, false) // with_write.go
			if err != nil {
				return nil, err
			}
			q, err := s.PlanQuery(ctx, n.SelectStmt, p, false)
			s.WrittenCTEs, s.cteReads = nil, nil
			if err != nil {
				done()
				return nil, err
			}
			return &Result{cols: q.Cols, op: &releasing{Operator: q.Op, done: done}, verb: "SELECT"}, nil
		}
		q, err := s.PlanQuery(ctx, n.SelectStmt, p, false)
		if err != nil {
			return nil, err
		}
		return &Result{cols: q.Cols, op: q.Op, verb: "SELECT"}, nil
	case *pg.Node_ExplainStmt:
		op, err := s.Explain(ctx, n.ExplainStmt, p)
		if err != nil {
			return nil, err
		}
		return &Result{cols: []Column{{Name: "QUERY PLAN", Type: types.TextT}}, op: op, tag: "EXPLAIN"}, nil
	case *pg.Node_TransactionStmt:
		return s.transaction(ctx, n.TransactionStmt)
	case *pg.Node_VariableSetStmt:
		return s.set(n.VariableSetStmt)
	case *pg.Node_VariableShowStmt:
		return s.show(n.VariableShowStmt)
	case *pg.Node_CreateSchemaStmt, *pg.Node_CreateStmt, *pg.Node_DropStmt, *pg.Node_AlterTableStmt, *pg.Node_RenameStmt,
		*pg.Node_CreateSeqStmt, *pg.Node_AlterSeqStmt, *pg.Node_CommentStmt:
		if err := s.checkWritable(); err != nil {
			return nil, err
		}
		if at := st.node.GetAlterTableStmt(); at != nil { // a type change that rewrites the table (alter_type.go)
			if res, ok, err := s.alterTypeRewrite(ctx, at); ok {
				return res, err
			}
		}
		return s.ddl(ctx, st.node)
	case *pg.Node_InsertStmt, *pg.Node_UpdateStmt, *pg.Node_DeleteStmt, *pg.Node_MergeStmt:
		if err := s.checkWritable(); err != nil {
			return nil, err
		}
		return s.planWrite(ctx, st.node, p, false)
	case *pg.Node_CreateTableAsStmt:
		if err := s.checkWritable(); err != nil {
			return nil, err
		}
		return s.createTableAs(ctx, n.CreateTableAsStmt, p)
	case *pg.Node_RefreshMatViewStmt:
		if err := s.checkWritable(); err != nil {
			return nil, err
		}
		return s.refreshMatView(ctx, n.RefreshMatViewStmt) // matview.go
	case *pg.Node_TruncateStmt:
		if err := s.checkWritable(); err != nil {
			return nil, err
		}
		return s.truncate(ctx, n.TruncateStmt) // truncate.go
	case *pg.Node_ViewStmt:
		if err := s.checkWritable(); err != nil {
			return nil, err
		}
		return s.createView(ctx, n.ViewStmt) // views.go
	case *pg.Node_IndexStmt:
		return s.createIndex(ctx, n.IndexStmt)
	case *pg.Node_CallStmt:
		return s.call(ctx, n.CallStmt, p) // sql/maintenance/maintenance.go
	case *pg.Node_DiscardStmt:
		return s.discard(n.DiscardStmt) // discard.go
	case *pg.Node_CopyStmt:
		return s.copy(ctx, n.CopyStmt, p)
	case *pg.Node_DeclareCursorStmt:
		return s.declareCursor(ctx, n.DeclareCursorStmt, p)
	case *pg.Node_FetchStmt:
		return s.fetch(ctx, n.FetchStmt)
	case *pg.Node_ClosePortalStmt:
		return s.closeCursor(n.ClosePortalStmt)
	case *pg.Node_CreateRoleStmt, *pg.Node_AlterRoleStmt, *pg.Node_DropRoleStmt:
		return s.executeRoleStmt(ctx, st.node)
	case *pg.Node_GrantRoleStmt:
		return s.grantRole(ctx, n.GrantRoleStmt) // sql/privileges/role_members.go
	case *pg.Node_GrantStmt, *pg.Node_AlterDefaultPrivilegesStmt, *pg.Node_AlterOwnerStmt:
		return s.privilegeStmt(ctx, st.node) // sql/privileges/privileges_stmt.go
	}
	return nil, pgerr.New(pgerr.FeatureNotSupported, "statement %s is not supported yet", stmtName(st.node))
}

func stmtName(n *pg.Node) string {
	s := strings.TrimSuffix(planner.NodeName(n), "Stmt")
	var out []byte
	for i, c := range s {
		if i > 0 && c >= 'A' && c <= 'Z' {
			out = append(out, ' ')
		}
		out = append(out, byte(c))
	}
	return strings.ToUpper(string(out))
}

func (s *Session) checkWritable() error {
	if s.Settings["lakepg.snapshot"] != "" {
		return pgerr.New(pgerr.ReadOnlyTransaction, "cannot write while lakepg.snapshot is set (the session reads a past snapshot); RESET lakepg.snapshot first")
	}
	return nil
}

func (s *Session) transaction(ctx context.Context, t *pg.TransactionStmt) (*Result, error) {
	switch t.Kind {
	case pg.TransactionStmtKind_TRANS_STMT_BEGIN, pg.TransactionStmtKind_TRANS_STMT_START:
		if s.inTx && !s.implicit {
			s.Raise(Notice{Severity: "WARNING", Code: "25001", Message: "there is already a transaction in progress"})
		}
		// an implicit transaction becomes this block, its writes included
		s.inTx, s.implicit = true, false
		s.beginSettings() // settings_txn.go
		return tagResult("BEGIN"), nil
	case pg.TransactionStmtKind_TRANS_STMT_COMMIT:
		if !s.inTx || s.implicit {
			s.Raise(Notice{Severity: "WARNING", Code: "25P01", Message: "there is no transaction in progress"})
		}
		s.inTx, s.implicit = false, false
		s.endCursors(true)
		if err := s.endTxn(ctx, true); err != nil {
			return nil, err
		}
		return tagResult("COMMIT"), nil
	case pg.TransactionStmtKind_TRANS_STMT_ROLLBACK:
		if !s.inTx || s.implicit {
			s.Raise(Notice{Severity: "WARNING", Code: "25P01", Message: "there is no transaction in progress"})
		}
		s.inTx, s.implicit = false, false
		s.endCursors(false)
		s.endTxn(ctx, false)
		return tagResult("ROLLBACK"), nil
	}
	return s.savepointStmt(t)
}

// ReadSnapshot resolves the snapshot reads use: the session's
// lakepg.snapshot setting or the latest.
func (s *Session) ReadSnapshot(ctx context.Context) (catalog.Snapshot, error) {
	if v := s.Settings["lakepg.snapshot"]; v != "" {
		return s.resolveSnapshotText(ctx, v)
	}
	return s.writeHead(ctx)
}

func (s *Session) resolveSnapshotText(ctx context.Context, v string) (catalog.Snapshot, error) {
	if id, err := types.ParseInt(v, 64); err == nil {
		snap, err := s.eng.DB.SnapshotByID(ctx, id)
		if err != nil {
			return snap, pgerr.New(pgerr.InvalidParameterValue, "snapshot %d does not exist", id)
		}
		return snap, nil
	}
	us, err := types.ParseTimestamptz(v, s.Loc)
	if err != nil {
		return catalog.Snapshot{}, pgerr.New(pgerr.InvalidParameterValue, "invalid snapshot \"%s\": give a snapshot id or a timestamp", v)
	}
	snap, err := s.eng.DB.SnapshotAsOf(ctx, time.UnixMicro(us))
	if err != nil {
		return snap, pgerr.New(pgerr.InvalidParameterValue, "no snapshot exists at or before %s", v)
	}
	return snap, nil
}

func sortedKeys(m map[string]string) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// Admit wraps op so that its work is admitted, unless admission is off or op
// reads too little to be worth it.
// chains are the pipelines parallelize replaced (their build sides are
// not below the Parallel).
func (e *Engine) Admit(op exec.Operator, chains map[*exec.Parallel]exec.Operator) exec.Operator {
	if e.Admission == nil || op == nil {
		return op
	}
	if n := planner.ScanBytes(op, chains); n == 0 || n < e.Admission.MinScanBytes {
		return op // reads no lake file, or little
	}
	return &planner.AdmittedOp{Operator: op, Adm: e.Admission}
}

// Admit is the engine's admit for the session's plans.
func (s *Session) Admit(op exec.Operator, chains map[*exec.Parallel]exec.Operator) exec.Operator {
	return s.eng.Admit(op, chains)
}
