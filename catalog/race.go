package catalog

import (
	"errors"

	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// LostRace reports whether err, returned inside a write transaction, means
// that another writer (lakepg or DuckDB) committed first, so the work may be
// redone on top of the new head:
//   - PostgreSQL 23505 unique_violation: two commits inserted the same
//     ducklake_snapshot id (or file id) and ours came second;
//   - PostgreSQL 40001 serialization_failure: a row this REPEATABLE READ
//     transaction updates was changed by a commit it cannot see;
//   - PostgreSQL 40P01 deadlock_detected: DuckDB's commit touched rows in
//     another order than ours and PostgreSQL aborted one of us;
//   - SQLite SQLITE_BUSY / SQLITE_LOCKED (the writer lock timed out), a
//     primary key or unique constraint failure, and SQLITE_SCHEMA (below).
//
// Anything else (a broken catalog, a lost connection) is not a race.
func LostRace(err error) bool {
	if err == nil {
		return false
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case "23505", "40001", "40P01":
			return true
		}
		return false
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED, sqlite3.SQLITE_SCHEMA:
			return true
		}
		switch se.Code() {
		case sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY, sqlite3.SQLITE_CONSTRAINT_UNIQUE:
			return true
		}
	}
	return false
}

// schemaChanged reports SQLite's SQLITE_SCHEMA. Other connections create and
// drop inlined-data tables all the time; SQLite prepares a statement again
// when the schema changed under it, but gives up with SQLITE_SCHEMA when
// the schema keeps changing during those attempts (seen with four clients
// creating tables at once). Nothing ran: the statement may simply be sent
// again.
func schemaChanged(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_SCHEMA
}
