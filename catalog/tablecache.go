package catalog

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
)

// tableCache remembers what tableExists found, so that the statements that
// ask about lakepg's optional tables (lakepg_role, lakepg_privilege,
// lakepg_role_member, lakepg_sequence, lakepg_constraint) and DuckLake's
// inlined tables do not each scan sqlite_master or query pg_class. On a
// SQLite catalog with thousands of tables those scans were about a quarter
// of a statement's CPU.
//
//   - SQLite: every answer, for any table, holds while the database's
//     schema cookie (PRAGMA schema_version) is the one read before the
//     probe. Any CREATE or DROP, by this process or another, moves the
//     cookie, so reading it — one page already in memory, no scan — is
//     all a hit costs.
//   - PostgreSQL has no such counter. There only the presence of
//     lakepg's own tables is kept, for good: lakepg creates them when first
//     needed and never drops them. Absence is asked again each time, since
//     another server may create the table at any moment.
//
// Answers read inside a transaction are never stored: that transaction may
// have created the table itself and may yet roll back.
type tableCache struct {
	mu      sync.Mutex
	version int64           // SQLite: the schema cookie of known
	known   map[string]bool // name -> exists
}

// tableProbes counts the probes tableExists sent (cache misses), for tests.
var tableProbes atomic.Int64

// ownTable reports whether name is one of lakepg's own tables.
func ownTable(name string) bool { return strings.HasPrefix(name, "lakepg_") }

// autocommit reports whether q runs each statement in its own transaction,
// so that what it reads is committed.
func autocommit(q queryer) bool {
	switch q.(type) {
	case *sql.DB, dbQueryer:
		return true
	}
	return false
}

// schemaCookie reads SQLite's schema_version through q.
func schemaCookie(ctx context.Context, q queryer) (int64, error) {
	rows, err := q.QueryContext(ctx, `PRAGMA schema_version`)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	var v int64
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return 0, err
		}
		return 0, fmt.Errorf("PRAGMA schema_version returned no row")
	}
	if err := rows.Scan(&v); err != nil {
		return 0, err
	}
	return v, rows.Err()
}

func (db *DB) tableExists(ctx context.Context, q queryer, name string) (bool, error) {
	c := &db.tables
	if sq, ok := q.(*sql.DB); ok && sq == db.sql {
		q = db.q() // the same, with the cookie's and the probe's statements prepared on SQLite
	}
	if db.d.name == "sqlite" {
		v, err := schemaCookie(ctx, q)
		if err != nil {
			return false, err
		}
		c.mu.Lock()
		ok, hit := c.known[name]
		hit = hit && c.version == v
		c.mu.Unlock()
		if hit {
			return ok, nil
		}
		ok, err = db.probeTable(ctx, q, name)
		if err == nil && autocommit(q) {
			c.mu.Lock()
			if c.version != v || c.known == nil {
				c.version, c.known = v, map[string]bool{}
			}
			c.known[name] = ok
			c.mu.Unlock()
		}
		return ok, err
	}
	if ownTable(name) {
		c.mu.Lock()
		ok := c.known[name]
		c.mu.Unlock()
		if ok {
			return true, nil
		}
		if autocommit(q) {
			if exists, ok := ownTableInStatement(ctx, name); ok { // stmtcache.go
				return exists, nil
			}
		}
	}
	ok, err := db.probeTable(ctx, q, name)
	if err == nil && ok && ownTable(name) && autocommit(q) {
		c.mu.Lock()
		if c.known == nil {
			c.known = map[string]bool{}
		}
		c.known[name] = true
		c.mu.Unlock()
	}
	return ok, err
}

// probeTable asks the catalog database whether table name exists.
func (db *DB) probeTable(ctx context.Context, q queryer, name string) (bool, error) {
	tableProbes.Add(1)
	rows, err := q.QueryContext(ctx, db.d.rebind(db.d.tableExists), name)
	if err != nil {
		return false, err
	}
	defer rows.Close()
	found := rows.Next()
	return found, rows.Err()
}
