package bind

import (
	"context"
	"sync"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/sql/pgcatalog"
)

// Session is what binding reads of the session it binds for; the
// planner's Session implements it.
type Session interface {
	SessionHost() Host
	SessionUser() string
	SessionDatabase() string
	SessionDB() *catalog.DB
	// the settings, guarded by the mutex while a statement runs
	// (set_config may write them from a parallel plan's workers)
	SessionSettings() map[string]string
	SessionSettingsMu() *sync.Mutex
}

// Host is what binding asks of the session beside the planner: the part
// of the planner's Host its functions call (SET ROLE and search_path,
// the statement's catalog, sequences, roles and privileges, backends,
// notices, set_config).
type Host interface {
	CurrentRole() string
	SearchPath() []string
	ReadSnapshot(ctx context.Context) (catalog.Snapshot, error)
	Metadata(ctx context.Context, snap catalog.Snapshot) (*catalog.Metadata, error)
	CatalogContext(meta *catalog.Metadata) *pgcatalog.Context
	CatalogRoles() func() []catalog.Role
	SequenceFunction(b *Binder, name string, args []exec.Expr, loc int32) (exec.Expr, bool, error)
	HasPrivilege(b *Binder, name string, args []exec.Expr, loc int32) (exec.Expr, error)
	PgHasRole(b *Binder, args []exec.Expr, loc int32) (exec.Expr, error)
	RoleSetting(name string) (string, bool)
	SetConfig(name, val string, local bool) (string, error)
	BackendPID() int32
	SignalBackend(pid int64, terminate bool) bool
	TempNamespace() (int64, bool)
	Raise(n Notice)
}

// Notice is a message for the client that is not an error (PostgreSQL's
// NoticeResponse), e.g. NOTICE 00000 `table "t" does not exist, skipping`.
type Notice struct {
	Severity              string // NOTICE, WARNING, INFO, LOG, DEBUG
	Code                  string // SQLSTATE
	Message, Detail, Hint string
}
