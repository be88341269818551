package catalog

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// Roles live in lakepg_role, a table of lakepg's own beside the DuckLake
// tables, so that every server sharing a catalog shares its users. DuckDB
// ignores tables it does not know. The table is created by the first write;
// until then there are no roles. Booleans are stored as 0/1 integers, which
// both SQLite and PostgreSQL accept in a BIGINT column.
const roleTableDDL = `CREATE TABLE IF NOT EXISTS lakepg_role (
	name VARCHAR PRIMARY KEY,
	superuser BIGINT NOT NULL,
	login BIGINT NOT NULL,
	verifier VARCHAR
)`

// ErrRoleExists and ErrRoleNotFound are returned by the role writers.
var (
	ErrRoleExists   = errors.New("catalog: role already exists")
	ErrRoleNotFound = errors.New("catalog: role not found")
)

// Role is one row of lakepg_role. Verifier is a SCRAM-SHA-256 secret in
// PostgreSQL's format, or "" when the role has no password; the catalog
// never sees a password itself.
type Role struct {
	Name      string
	Superuser bool
	Login     bool
	Verifier  string
}

func (db *DB) roleTableExists(ctx context.Context) (bool, error) {
	ok, err := db.tableExists(ctx, db.sql, "lakepg_role")
	if err != nil {
		return false, fmt.Errorf("catalog: look for lakepg_role: %w", err)
	}
	return ok, nil
}

// Roles lists every role, ordered by name.
func (db *DB) Roles(ctx context.Context) ([]Role, error) {
	if ok, err := db.roleTableExists(ctx); err != nil || !ok {
		return nil, err
	}
	rows, err := db.q().QueryContext(ctx, `SELECT name, superuser, login, verifier FROM lakepg_role ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("catalog: read lakepg_role: %w", err)
	}
	defer rows.Close()
	var out []Role
	for rows.Next() {
		r, err := scanRole(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// Role reads one role; ok is false when there is none of that name.
func (db *DB) Role(ctx context.Context, name string) (r Role, ok bool, err error) {
	if ok, err := db.roleTableExists(ctx); err != nil || !ok {
		return Role{}, false, err
	}
	return db.roleIn(ctx, db.q(), name)
}

// HasPasswords reports whether any role has a password: from then on every
// login must authenticate.
func (db *DB) HasPasswords(ctx context.Context) (bool, error) {
	if ok, err := db.roleTableExists(ctx); err != nil || !ok {
		return false, err
	}
	rows, err := db.q().QueryContext(ctx, `SELECT name FROM lakepg_role WHERE verifier IS NOT NULL AND verifier <> '' LIMIT 1`)
	if err != nil {
		return false, fmt.Errorf("catalog: read lakepg_role: %w", err)
	}
	defer rows.Close()
	found := rows.Next()
	return found, rows.Err()
}

// CreateRole adds r; ErrRoleExists when the name is taken.
func (db *DB) CreateRole(ctx context.Context, r Role) error {
	return db.roleTx(ctx, func(tx *Tx) error {
		if _, ok, err := db.roleIn(ctx, tx, r.Name); err != nil {
			return err
		} else if ok {
			return ErrRoleExists
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO lakepg_role (name, superuser, login, verifier) VALUES (?, ?, ?, ?)`,
			r.Name, boolInt(r.Superuser), boolInt(r.Login), nullString(r.Verifier))
		return err
	})
}

// UpdateRole reads the role name, lets change modify it (not its name) and
// stores the result, all in one transaction; ErrRoleNotFound when missing.
func (db *DB) UpdateRole(ctx context.Context, name string, change func(*Role) error) error {
	return db.roleTx(ctx, func(tx *Tx) error {
		r, ok, err := db.roleIn(ctx, tx, name)
		if err != nil {
			return err
		}
		if !ok {
			return ErrRoleNotFound
		}
		if err := change(&r); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE lakepg_role SET superuser = ?, login = ?, verifier = ? WHERE name = ?`,
			boolInt(r.Superuser), boolInt(r.Login), nullString(r.Verifier), name)
		return err
	})
}

// DropRole removes the role name; ErrRoleNotFound when missing.
func (db *DB) DropRole(ctx context.Context, name string) error {
	return db.roleTx(ctx, func(tx *Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM lakepg_role WHERE name = ?`, name)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err == nil && n == 0 {
			return ErrRoleNotFound
		}
		if ok, err := db.tableExists(ctx, tx, "lakepg_role_member"); err != nil || !ok {
			return err
		}
		return dropMemberships(ctx, tx, name)
	})
}

// roleTx runs fn in a write transaction after making sure lakepg_role exists.
func (db *DB) roleTx(ctx context.Context, fn func(tx *Tx) error) error {
	return db.ownTableTx(ctx, "lakepg_role", roleTableDDL, fn)
}

// ownTableTx runs fn in a write transaction after creating name, a table
// of lakepg's own (ddl), when it is missing. fn's sentinel errors stay
// recognisable (errors.Is).
func (db *DB) ownTableTx(ctx context.Context, name, ddl string, fn func(tx *Tx) error) error {
	if ok, err := db.tableExists(ctx, db.sql, name); err != nil {
		return fmt.Errorf("catalog: look for %s: %w", name, err)
	} else if !ok {
		if _, err := db.sql.ExecContext(ctx, ddl); err != nil {
			return fmt.Errorf("catalog: create %s: %w", name, err)
		}
		db.noteCreated(ctx, name)
	}
	tx, err := db.BeginWrite(ctx)
	if err != nil {
		return fmt.Errorf("catalog: begin: %w", err)
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		if errors.Is(err, ErrRoleExists) || errors.Is(err, ErrRoleNotFound) {
			return err
		}
		return fmt.Errorf("catalog: write %s: %w", name, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("catalog: commit %s: %w", name, err)
	}
	return nil
}

func (db *DB) roleIn(ctx context.Context, q queryer, name string) (Role, bool, error) {
	rows, err := q.QueryContext(ctx, `SELECT name, superuser, login, verifier FROM lakepg_role WHERE name = ?`, name)
	if err != nil {
		return Role{}, false, fmt.Errorf("catalog: read lakepg_role: %w", err)
	}
	defer rows.Close()
	if !rows.Next() {
		return Role{}, false, rows.Err()
	}
	r, err := scanRole(rows)
	return r, err == nil, err
}

func scanRole(rows *sql.Rows) (Role, error) {
	var r Role
	var super, login int64
	var verifier sql.NullString
	if err := rows.Scan(&r.Name, &super, &login, &verifier); err != nil {
		return Role{}, fmt.Errorf("catalog: read lakepg_role: %w", err)
	}
	r.Superuser, r.Login, r.Verifier = super != 0, login != 0, verifier.String
	return r, nil
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}
