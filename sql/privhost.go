package sql

import (
	"context"
	"log/slog"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/snapshot"
)

// privHost is the session as sql/privileges sees it (privileges.Host):
// its transaction block, commits, schemas and notices.
type privHost struct{ *Session }

func (h privHost) CheckWritable() error { return h.checkWritable() }
func (h privHost) Commit(ctx context.Context, fn func(c *snapshot.Commit, meta *catalog.Metadata) error, cleanup func()) error {
	return h.commit(ctx, fn, cleanup)
}
func (h privHost) TargetSchema(meta *catalog.Metadata, name string, loc int32) (*catalog.Schema, error) {
	return h.targetSchema(meta, name, loc)
}
func (h privHost) TxnState(ctx context.Context) (any, error) { return h.txnState(ctx) }
func (h privHost) InTx() bool                                { return h.inTx }
func (h privHost) Txn() any                                  { return h.txn }
func (h privHost) StmtValues() context.Context               { return h.stmtValues }
func (h privHost) Superuser() bool                           { return h.superuser }
func (h privHost) Noticef(format string, args ...any)        { h.notice(format, args...) }
func (h privHost) Log() *slog.Logger                         { return h.eng.Log }

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
