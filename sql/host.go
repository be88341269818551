package sql

import (
	"context"
	"log/slog"
	"sync"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/parquetio"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/snapshot"
	"github.com/lakepg/lakepg/sql/maintenance"
	"github.com/lakepg/lakepg/sql/partitioning"
	"github.com/lakepg/lakepg/sql/pgcatalog"
	"github.com/lakepg/lakepg/sql/planner"
	"github.com/lakepg/lakepg/sql/sequences"
	"github.com/lakepg/lakepg/storage"
)

// host is the session as the packages below it see it: privileges.Host,
// sequences.Host, maintenance.Host and tablelayout.Host.
type host struct{ *Session }

func (h host) CheckWritable() error { return h.checkWritable() }
func (h host) Commit(ctx context.Context, fn func(c *snapshot.Commit, meta *catalog.Metadata) error, cleanup func()) error {
	return h.commit(ctx, fn, cleanup)
}
func (h host) TargetSchema(meta *catalog.Metadata, name string, loc int32) (*catalog.Schema, error) {
	return h.targetSchema(meta, name, loc)
}
func (h host) TxnState(ctx context.Context) (any, error) { return h.txnState(ctx) }
func (h host) InTx() bool                                { return h.inTx }
func (h host) Txn() any                                  { return h.txn }
func (h host) StmtValues() context.Context               { return h.stmtValues }
func (h host) Superuser() bool                           { return h.superuser }
func (h host) Noticef(format string, args ...any)        { h.notice(format, args...) }
func (h host) Log() *slog.Logger                         { return h.eng.Log }

func (h host) LockWrites()                 { h.eng.lockWrites() }
func (h host) WriteMu() *sync.Mutex        { return &h.eng.writeMu }
func (h host) Writes() *sync.WaitGroup     { return &h.eng.wg }
func (h host) WriteStore() storage.Backend { return h.writeStore() }
func (h host) Settled(paths ...string)     { h.settled(paths...) }
func (h host) WriterOptions(ctx context.Context, schemaID, tableID int64) (parquetio.WriterOptions, error) {
	return h.tl.WriterOptions(ctx, schemaID, tableID)
}
func (h host) SortedInput(ctx context.Context, t *catalog.Table, pcols []parquetio.Column, op exec.Operator) (exec.Operator, func(), error) {
	return h.tl.SortedInput(ctx, t, pcols, op)
}

// WritePartitioned hands the written files over as maintenance's
// TableWrite.
func (h host) WritePartitioned(ctx context.Context, dir string, specID int64, keys []partitioning.Key, pcols []parquetio.Column, op exec.Operator, check func(*vec.Batch) error, track bool, opt parquetio.WriterOptions) (*maintenance.TableWrite, error) {
	tw, err := h.writePartitioned(ctx, dir, specID, keys, pcols, op, check, track, opt)
	if tw == nil {
		return nil, err
	}
	out := &maintenance.TableWrite{SpecID: tw.specID, Rows: tw.rows}
	for _, f := range tw.files {
		out.Files = append(out.Files, maintenance.WrittenPart{WrittenFile: f.WrittenFile, Values: f.values, Src: f.src})
	}
	return out, err
}

func (h host) BeginSweep() (func(), func(string, map[string]bool, *snapshot.FileNames)) {
	sw := inflight.beginSweep()
	return sw.end, sw.prune
}
func (h host) InFlight(path string) bool { return inflight.registered(path) }

func (h host) StagedCommit() *snapshot.Commit {
	if h.txn == nil {
		return nil
	}
	return h.txn.c
}

func (h host) BlockItems() *[]*sequences.Item {
	if h.txn == nil {
		return nil
	}
	return &h.txn.seqs
}
func (h host) TxnItems(ctx context.Context) (*[]*sequences.Item, error) {
	t, err := h.txnState(ctx)
	if err != nil {
		return nil, err
	}
	return &t.seqs, nil
}

// CatalogContextFor and SequenceFunction serve the planner (planner.Host)
// from sql/sequences.
func (s *Session) CatalogContextFor(ctx context.Context) *pgcatalog.Context {
	return s.seq.CatalogContextFor(ctx)
}
func (s *Session) SequenceFunction(b *planner.Binder, name string, args []exec.Expr, loc int32) (exec.Expr, bool, error) {
	return s.seq.SequenceFunction(b, name, args, loc)
}

// activeSQLTransaction is SQLSTATE 25001.
const activeSQLTransaction = "25001"

// call runs CALL: the maintenance procedures (sql/maintenance).
func (s *Session) call(ctx context.Context, st *pg.CallStmt, p *planner.Params) (*Result, error) {
	if err := s.mt.Call(ctx, st, p); err != nil {
		return nil, err
	}
	return tagResult("CALL"), nil
}

// ReadDeletesAt and LayoutAt serve table_changes (planner.Host).
func (s *Session) ReadDeletesAt(ctx context.Context, path string, begin int64, key string) ([]snapshot.DeletedPos, error) {
	return s.mt.ReadDeletesAt(ctx, path, begin, key)
}
func (s *Session) LayoutAt(ctx context.Context, t *catalog.Table, sv int64) (*catalog.Table, error) {
	return s.mt.LayoutAt(ctx, t, sv)
}

// The role and privilege statements, which sql/privileges runs and
// reports by their command tag.

// Roles change at once, outside any transaction block: they live beside the
// lake, not in its snapshots.
func (s *Session) executeRoleStmt(ctx context.Context, n *pg.Node) (*Result, error) {
	switch x := n.Node.(type) {
	case *pg.Node_CreateRoleStmt:
		return tagged(s.CreateRole(ctx, x.CreateRoleStmt))
	case *pg.Node_AlterRoleStmt:
		return tagged(s.AlterRole(ctx, x.AlterRoleStmt))
	case *pg.Node_DropRoleStmt:
		return tagged(s.DropRole(ctx, x.DropRoleStmt))
	}
	return nil, pgerr.New(pgerr.FeatureNotSupported, "statement %s is not supported yet", stmtName(n))
}

func (s *Session) grantRole(ctx context.Context, st *pg.GrantRoleStmt) (*Result, error) {
	return tagged(s.GrantRole(ctx, st))
}

func (s *Session) privilegeStmt(ctx context.Context, n *pg.Node) (*Result, error) {
	return tagged(s.PrivilegeStmt(ctx, n))
}

// setRole runs SET/RESET ROLE and SET/RESET SESSION AUTHORIZATION; ok is
// false for other settings.
func (s *Session) setRole(v *pg.VariableSetStmt) (res *Result, ok bool, err error) {
	tag, ok, err := s.SetRole(v)
	if !ok || err != nil {
		return nil, ok, err
	}
	return tagResult(tag), true, nil
}

// tagged is the result of a statement that ran as tag, or its error.
func tagged(tag string, err error) (*Result, error) {
	if err != nil {
		return nil, err
	}
	return tagResult(tag), nil
}
