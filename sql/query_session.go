package sql

import (
	"context"
	"sync"
	"time"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/snapshot"
	"github.com/lakepg/lakepg/sql/pgcatalog"
	"github.com/lakepg/lakepg/storage"
	"github.com/lakepg/lakepg/types"
)

// querySession is the part of a session that compiling and running a
// query reads and keeps: the lake, the settings, the scans and WITH
// queries of the statement being planned. Everything else of the session
// (its transaction block, privileges, temporary tables, sequences,
// cursors, notices) the planner reaches through host, so that the query
// pipeline does not depend on the commands and the session beside it.
type querySession struct {
	host  sessionHost
	db    *catalog.DB
	store storage.Backend

	user     string
	database string
	settings map[string]string
	// settingsMu guards settings while a statement runs: set_config may
	// write them from the workers of a parallel plan (setconfig.go).
	settingsMu sync.Mutex
	loc        *time.Location

	// scanRefs are the lake tables behind the scans of the query being
	// planned (minmax.go reads their file statistics).
	scanRefs map[*exec.TableScan]*tableRef
	chains   map[*exec.Parallel]exec.Operator // of the plan EXPLAIN is printing

	// stmtCTEs are the WITH queries of the UPDATE or DELETE being planned,
	// visible to every query context it makes (with_write.go)
	stmtCTEs map[string]*cteDef
	// writtenCTEs are the data-modifying WITH queries of the statement
	// being planned, by name, until its top-level WITH takes them
	// (with_write.go)
	writtenCTEs map[string]*writtenCTE
}

// sessionHost is what the planner asks of the session it plans for.
type sessionHost interface {
	// the snapshot the statement reads and its metadata (with the open
	// block's staged changes), and the lake's metadata at any snapshot
	readSnapshot(ctx context.Context) (catalog.Snapshot, error)
	metadata(ctx context.Context, snap catalog.Snapshot) (*catalog.Metadata, error)
	lakeMetadata(ctx context.Context, snap catalog.Snapshot) (*catalog.Metadata, error)
	// the open block's staged writes a scan reads besides the snapshot's
	tableFiles(ctx context.Context, sch *catalog.Schema, t *catalog.Table, snap catalog.Snapshot) ([]catalog.DataFile, error)
	overlay(snap catalog.Snapshot, sch *catalog.Schema, tbl *catalog.Table, ref *tableRef, scan *exec.TableScan)
	// names: views, temporary tables, the search path
	resolveRelation(meta *catalog.Metadata, schemaName, name string, loc int32) (relation, error)
	tempLookup(schema, name string) *tempTable
	searchPath() []string
	// privileges and roles
	currentRole() string
	checkRelation(ctx context.Context, sch *catalog.Schema, id int64, word, name, letters string) error
	roleSetting(name string) (string, bool)
	// what pg_catalog's tables and functions read of the session
	catalogContext(meta *catalog.Metadata) *pgcatalog.Context
	catalogContextFor(ctx context.Context) *pgcatalog.Context
	// history of a table for table_changes
	layoutAt(ctx context.Context, t *catalog.Table, sv int64) (*catalog.Table, error)
	readDeletesAt(ctx context.Context, path string, begin int64, key string) ([]snapshot.DeletedPos, error)
	// notices and set_config
	raise(n Notice)
	setConfig(name, val string, local bool) (string, error)
	// pg_catalog's functions of roles, privileges, backends and the
	// session's temporary schema (its OID; false before it has one)
	catalogRoles() func() []catalog.Role
	hasPrivilege(b *binder, name string, args []exec.Expr, loc int32) (exec.Expr, error)
	pgHasRole(b *binder, args []exec.Expr, loc int32) (exec.Expr, error)
	enterView(ctx context.Context, id int64) func()
	backendPID() int32
	signalBackend(pid int64, terminate bool) bool
	tempNamespace() (int64, bool)
	// nextval, currval, setval, lastval and pg_get_serial_sequence; false
	// for another name
	sequenceFunction(b *binder, name string, args []exec.Expr, loc int32) (exec.Expr, bool, error)
	// admission of a plan that reads lake data
	admit(op exec.Operator, chains map[*exec.Parallel]exec.Operator) exec.Operator
}

// newEnv is the evaluation environment of the session's settings.
func (s *querySession) newEnv() *exec.Env {
	return &exec.Env{Loc: s.loc, Now: time.Now(), DateOrder: types.DateOrderOf(s.settings["datestyle"])}
}

//

// Notice is a message for the client that is not an error (PostgreSQL's
// NoticeResponse), e.g. NOTICE 00000 `table "t" does not exist, skipping`.
type Notice struct {
	Severity              string // NOTICE, WARNING, INFO, LOG, DEBUG
	Code                  string // SQLSTATE
	Message, Detail, Hint string
}
