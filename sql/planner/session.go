package planner

import (
	"context"
	"sync"
	"time"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/snapshot"
	"github.com/lakepg/lakepg/sql/pgcatalog"
	"github.com/lakepg/lakepg/sql/planner/bind"
	"github.com/lakepg/lakepg/storage"
	"github.com/lakepg/lakepg/types"
)

// Session is the part of a session that compiling and running a query
// reads and keeps: the lake, the settings, the scans and WITH queries of
// the statement being planned. Everything else of the session (its
// transaction block, privileges, temporary tables, sequences, cursors,
// notices) the planner reaches through Host, so that the query pipeline
// does not depend on the commands and the session beside it; package sql's
// Session embeds this one and is its Host.
type Session struct {
	Host  Host
	DB    *catalog.DB
	Store storage.Backend

	User     string
	Database string
	Settings map[string]string
	// SettingsMu guards settings while a statement runs: set_config may
	// write them from the workers of a parallel plan (bind/setconfig.go).
	SettingsMu sync.Mutex
	Loc        *time.Location

	// scanRefs are the lake tables behind the scans of the query being
	// planned (minmax.go reads their file statistics).
	scanRefs map[*exec.TableScan]*TableRef
	chains   map[*exec.Parallel]exec.Operator // of the plan EXPLAIN is printing
	// the windows still to print that the one printed above deals for
	winDealtAbove int

	// StmtCTEs are the WITH queries of the UPDATE or DELETE being planned,
	// visible to every query context it makes (sql/with_write.go)
	StmtCTEs map[string]*CteDef
	// WrittenCTEs are the data-modifying WITH queries of the statement
	// being planned, by name, until its top-level WITH takes them
	// (sql/with_write.go)
	WrittenCTEs map[string]*WrittenCTE
	// logicalPlans, while EXPLAIN (LOGICAL) plans, collects the text of
	// each logical plan the statement's planning builds, after the rules
	// (logical_plan.go)
	logicalPlans *[]string
}

// Host is what the planner asks of the session it plans for.
type Host interface {
	// the snapshot the statement reads and its metadata (with the open
	// block's staged changes), and the lake's metadata at any snapshot
	ReadSnapshot(ctx context.Context) (catalog.Snapshot, error)
	Metadata(ctx context.Context, snap catalog.Snapshot) (*catalog.Metadata, error)
	LakeMetadata(ctx context.Context, snap catalog.Snapshot) (*catalog.Metadata, error)
	// the open block's staged writes a scan reads besides the snapshot's
	TableFiles(ctx context.Context, sch *catalog.Schema, t *catalog.Table, snap catalog.Snapshot) ([]catalog.DataFile, error)
	Overlay(snap catalog.Snapshot, sch *catalog.Schema, tbl *catalog.Table, ref *TableRef, scan *exec.TableScan)
	// names: views, temporary tables, the search path
	ResolveRelation(meta *catalog.Metadata, schemaName, name string, loc int32) (Relation, error)
	TempLookup(schema, name string) *TempTable
	SearchPath() []string
	// privileges and roles
	CurrentRole() string
	CheckRelation(ctx context.Context, sch *catalog.Schema, id int64, word, name, letters string) error
	RoleSetting(name string) (string, bool)
	// what pg_catalog's tables and functions read of the session
	CatalogContext(meta *catalog.Metadata) *pgcatalog.Context
	CatalogContextFor(ctx context.Context) *pgcatalog.Context
	// history of a table for table_changes
	LayoutAt(ctx context.Context, t *catalog.Table, sv int64) (*catalog.Table, error)
	ReadDeletesAt(ctx context.Context, path string, begin int64, key string) ([]snapshot.DeletedPos, error)
	// notices and set_config
	Raise(n Notice)
	SetConfig(name, val string, local bool) (string, error)
	// pg_catalog's functions of roles, privileges, backends and the
	// session's temporary schema (its OID; false before it has one)
	CatalogRoles() func() []catalog.Role
	HasPrivilege(b *Binder, name string, args []exec.Expr, loc int32) (exec.Expr, error)
	PgHasRole(b *Binder, args []exec.Expr, loc int32) (exec.Expr, error)
	EnterView(ctx context.Context, id int64) func()
	BackendPID() int32
	SignalBackend(pid int64, terminate bool) bool
	TempNamespace() (int64, bool)
	// nextval, currval, setval, lastval and pg_get_serial_sequence; false
	// for another name
	SequenceFunction(b *Binder, name string, args []exec.Expr, loc int32) (exec.Expr, bool, error)
	// admission of a plan that reads lake data
	Admit(op exec.Operator, chains map[*exec.Parallel]exec.Operator) exec.Operator
}

// NewEnv is the evaluation environment of the session's settings.
func (s *Session) NewEnv() *exec.Env {
	return &exec.Env{Loc: s.Loc, Now: time.Now(), DateOrder: types.DateOrderOf(s.Settings["datestyle"])}
}

//

// The session as the binder reads it (bind.Session).

func (s *Session) SessionHost() bind.Host             { return s.Host }
func (s *Session) SessionUser() string                { return s.User }
func (s *Session) SessionDatabase() string            { return s.Database }
func (s *Session) SessionDB() *catalog.DB             { return s.DB }
func (s *Session) SessionSettings() map[string]string { return s.Settings }
func (s *Session) SessionSettingsMu() *sync.Mutex     { return &s.SettingsMu }
