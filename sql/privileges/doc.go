// Package privileges owns roles and privileges as PostgreSQL 15 has them:
// CREATE/ALTER/DROP ROLE and role membership, GRANT and REVOKE, owners and
// default privileges, the ACLs pg_catalog shows, the checks statements make
// before they read or write, SET ROLE and SET SESSION AUTHORIZATION, and
// the SCRAM-SHA-256 verifiers passwords are stored as (with SASLprep),
// and passwords kept out of logged query text.
// Package sql's Session embeds State and serves it as its Host.
package privileges

import (
	"context"
	"log/slog"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/snapshot"
	"github.com/lakepg/lakepg/sql/planner"
)

// State is a session's privilege state, with the privilege statements and
// checks run on it. Host is the rest of the session (package sql): its
// transaction block, commits, names and notices; the embedded
// planner.Session its user, settings and the lake.
type State struct {
	Host
	*planner.Session
	priv privSession
}

// Host is what privileges asks of the session it belongs to.
type Host interface {
	ReadSnapshot(ctx context.Context) (catalog.Snapshot, error)
	Metadata(ctx context.Context, snap catalog.Snapshot) (*catalog.Metadata, error)
	ResolveRelation(meta *catalog.Metadata, schemaName, name string, loc int32) (planner.Relation, error)
	TempLookup(schema, name string) *planner.TempTable
	TargetSchema(meta *catalog.Metadata, name string, loc int32) (*catalog.Schema, error)
	// the open block: whether there is one, its identity (compared only)
	// and its state, made when needed
	InTx() bool
	Txn() any
	TxnState(ctx context.Context) (any, error)
	CheckWritable() error
	Commit(ctx context.Context, fn func(c *snapshot.Commit, meta *catalog.Metadata) error, cleanup func()) error
	// the running statement's context values, for checks without a ctx
	StmtValues() context.Context
	// logged in as a superuser (a login trusted while no role had a password)
	Superuser() bool
	Raise(n planner.Notice)
	Noticef(format string, args ...any) // NOTICE 00000
	Log() *slog.Logger
}

// NewState is the privilege state of a new session.
func NewState(h Host, ps *planner.Session) State { return State{Host: h, Session: ps} }

// Role is the role SET ROLE chose ("" for none).
func (s *State) Role() string { return s.priv.role }

// PutRole sets the role SET ROLE chose, as a setting restored by ROLLBACK
// or RESET does (the checks were made when it was set).
func (s *State) PutRole(role string) { s.priv.role = role }

// PendingRows is how many privilege rows the open block wrote (what a
// savepoint marks).
func (s *State) PendingRows() int { return len(s.priv.pending) }

// DropPendingRows forgets the rows the open block wrote after the first n
// (ROLLBACK TO SAVEPOINT).
func (s *State) DropPendingRows(n int) {
	if n <= len(s.priv.pending) {
		s.priv.pending = s.priv.pending[:n]
	}
}

// SetTruncating makes the write checks check TRUNCATE (privileges_check.go).
func (s *State) SetTruncating(b bool) { s.priv.truncating = b }

// qualifier is the schema of a possibly qualified name's parts ("" when
// unqualified).
func qualifier(names []string) string {
	if len(names) > 1 {
		return names[len(names)-2]
	}
	return ""
}

// viewsIn lists the views of one schema.
func viewsIn(meta *catalog.Metadata, schemaID int64) []catalog.View {
	var out []catalog.View
	for _, v := range meta.Views {
		if v.SchemaID == schemaID {
			out = append(out, v)
		}
	}
	return out
}
