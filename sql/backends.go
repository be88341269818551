package sql

import (
	"sort"
	"sync"
	"time"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/sql/pgcatalog"
)

// This file holds the session's entry in pg_stat_activity (the server
// calls SetBackendPID when a connection starts and ends) and the catalog
// Context of a statement: what pgcatalog's tables and functions read of
// the session.

// SetBackendPID records the process id the client was told in
// BackendKeyData; pg_backend_pid() and pg_stat_activity report it. The
// session then shows in pg_stat_activity until SetBackendPID(0), which the
// server calls when the connection ends.
func (s *Session) SetBackendPID(pid int32) {
	if pid == 0 {
		s.unregisterBackend()
		return
	}
	s.pid = pid
	backends.register(s)
}

// SetBackendControl records how other sessions cancel this one's running
// statement and end its connection: pg_cancel_backend and
// pg_terminate_backend with its pid call them. The server calls it once,
// when the connection starts; nil functions make those calls return false.
func (s *Session) SetBackendControl(cancel, terminate func()) {
	backends.mu.Lock()
	defer backends.mu.Unlock()
	backends.ctl[s] = backendControl{cancel: cancel, terminate: terminate}
}

// backends are the live sessions of each engine, for pg_stat_activity.
var backends = &backendRegistry{m: map[*Engine]map[*Session]*pgcatalog.Backend{}, ctl: map[*Session]backendControl{}}

// backendRegistry holds what pg_stat_activity shows of each session. The
// owning session updates its entry under mu; other sessions read copies.
type backendRegistry struct {
	mu  sync.Mutex
	m   map[*Engine]map[*Session]*pgcatalog.Backend
	ctl map[*Session]backendControl
}

type backendControl struct{ cancel, terminate func() }

// SignalBackend calls the cancel (or terminate) function of the session of
// eng with process id pid; false when there is no such session.
func (r *backendRegistry) SignalBackend(eng *Engine, pid int64, terminate bool) bool {
	r.mu.Lock()
	var f func()
	for s := range r.m[eng] {
		if int64(s.pid) == pid {
			c := r.ctl[s]
			f = c.cancel
			if terminate {
				f = c.terminate
			}
			break
		}
	}
	r.mu.Unlock()
	if f == nil {
		return false
	}
	f()
	return true
}

func (r *backendRegistry) register(s *Session) {
	now := time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	sessions := r.m[s.eng]
	if sessions == nil {
		sessions = map[*Session]*pgcatalog.Backend{}
		r.m[s.eng] = sessions
	}
	sessions[s] = &pgcatalog.Backend{PID: s.pid, User: s.User, Database: s.Database,
		ApplicationName: s.Settings["application_name"], BackendStart: now, StateChange: now, State: "idle"}
}

// unregisterBackend removes the session from pg_stat_activity.
func (s *Session) unregisterBackend() {
	backends.mu.Lock()
	defer backends.mu.Unlock()
	delete(backends.ctl, s)
	if sessions := backends.m[s.eng]; sessions != nil {
		delete(sessions, s)
		if len(sessions) == 0 {
			delete(backends.m, s.eng)
		}
	}
}

// noteActivity records what the session is doing for pg_stat_activity:
// query is the statement text when a statement starts (state "active"),
// and "" when the session goes back to waiting for the client (state
// "idle", or "idle in transaction" inside a transaction block).
func (s *Session) noteActivity(query string) {
	now := time.Now()
	backends.mu.Lock()
	defer backends.mu.Unlock()
	e := backends.m[s.eng][s]
	if e == nil {
		return
	}
	e.ApplicationName = s.Settings["application_name"]
	e.StateChange = now
	switch {
	case query != "":
		e.State, e.Query, e.QueryStart = "active", query, now
	case s.failed:
		e.State = "idle in transaction (aborted)"
	case s.inTx:
		e.State = "idle in transaction"
	default:
		e.State = "idle"
	}
	switch {
	case s.inTx && e.XactStart.IsZero():
		e.XactStart = now
	case !s.inTx:
		e.XactStart = time.Time{}
	}
}

// runningQuery is the text of the statement the session runs now, as
// pg_stat_activity shows it ("" when the session is not registered).
func (s *Session) runningQuery() string {
	backends.mu.Lock()
	defer backends.mu.Unlock()
	if e := backends.m[s.eng][s]; e != nil {
		return e.Query
	}
	return ""
}

// openCursors lists the session's cursors for pg_cursors.
func (s *Session) openCursors() []pgcatalog.Cursor {
	out := make([]pgcatalog.Cursor, 0, len(s.cursors))
	for _, c := range s.cursors {
		out = append(out, pgcatalog.Cursor{Name: c.name, Statement: c.stmt, Holdable: c.hold, Binary: c.binary,
			Scrollable: c.scroll, Created: c.created})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// activity lists the engine's registered sessions by pid; nil when this
// session is not registered (then pg_stat_activity shows just itself).
func (s *Session) activity() []pgcatalog.Backend {
	backends.mu.Lock()
	defer backends.mu.Unlock()
	sessions := backends.m[s.eng]
	if sessions[s] == nil {
		return nil
	}
	out := make([]pgcatalog.Backend, 0, len(sessions))
	for other, e := range sessions {
		b := *e
		if other == s {
			b.State = "active" // it is running the query that reads pg_stat_activity
		}
		out = append(out, b)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].PID < out[j].PID })
	return out
}

// CatalogContext is what pgcatalog's tables and functions read for a
// statement that sees meta.
func (s *Session) CatalogContext(meta *catalog.Metadata) *pgcatalog.Context {
	return &pgcatalog.Context{Meta: meta, User: s.User, Database: s.Database, SearchPath: s.SearchPath(),
		Settings: s.Settings, PID: s.pid, Backends: s.activity(), Roles: s.CatalogRoles(), Members: s.CatalogMembers(), Cursors: s.openCursors(), Temp: s.tempCatalog(),
		ViewColumns: func(v *catalog.View) []pgcatalog.ViewColumn { return s.catalogViewColumns(meta, v) },
		Sequences:   s.seq.CatalogSequences(), ACL: s.CatalogACL(), TableGrants: s.CatalogTableGrants(meta),
		DefaultACLs: s.CatalogDefaultACLs}
}

// BackendPID is the process id the client was told.
func (s *Session) BackendPID() int32 { return s.pid }

// SignalBackend cancels or terminates the statement of this engine's
// session with process id pid; false when there is no such session.
func (s *Session) SignalBackend(pid int64, terminate bool) bool {
	return backends.SignalBackend(s.eng, pid, terminate)
}
