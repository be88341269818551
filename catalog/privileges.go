package catalog

import (
	"context"
	"fmt"
)

// Owners and privileges live in lakepg_privilege, a table of lakepg's own
// beside the DuckLake tables (as lakepg_role and lakepg_sequence), so that
// every server on one catalog enforces the same rules. DuckDB ignores it.
// A row is written in the catalog transaction of the statement (or block)
// that changes it, through snapshot.Commit.AddExtra. Rows are not versioned
// by snapshots: time travel sees today's owners and grants.
//
// kind is 'r' for a table, view or materialized view (object_id its
// table_id or view_id), 'n' for a schema (schema_id), and 'dr' for default
// privileges of tables (object_id the schema_id, 0 for all schemas; role
// the role whose new tables get them). owner is the owning role's name, ”
// for the bootstrap superuser (objects created before lakepg recorded
// owners, or by DuckDB). acl is PostgreSQL's aclitem[] text with role names
// ('{alice=arwdDxt/alice,=r/alice}'); NULL keeps the owner's defaults.
const privilegeTableDDL = `CREATE TABLE IF NOT EXISTS lakepg_privilege (
	kind VARCHAR NOT NULL,
	object_id BIGINT NOT NULL,
	role VARCHAR NOT NULL,
	owner VARCHAR NOT NULL,
	acl VARCHAR,
	PRIMARY KEY (kind, object_id, role)
)`

// Privilege is one row of lakepg_privilege. ACL "" is NULL.
type Privilege struct {
	Kind     string
	ObjectID int64
	Role     string
	Owner    string
	ACL      string
}

// EnsurePrivilegeTable creates lakepg_privilege when missing. Call it
// before a commit that writes privileges, not inside its transaction.
func (db *DB) EnsurePrivilegeTable(ctx context.Context) error {
	ok, err := db.tableExists(ctx, db.sql, "lakepg_privilege")
	if err != nil {
		return fmt.Errorf("catalog: look for lakepg_privilege: %w", err)
	}
	if ok {
		return nil
	}
	if _, err := db.sql.ExecContext(ctx, privilegeTableDDL); err != nil {
		if ok, err2 := db.probeTable(ctx, db.sql, "lakepg_privilege"); err2 == nil && ok {
			db.noteCreated(ctx, "lakepg_privilege")
			return nil // another server made it meanwhile
		}
		return fmt.Errorf("catalog: create lakepg_privilege: %w", err)
	}
	db.noteCreated(ctx, "lakepg_privilege")
	return nil
}

// Privileges reads every row of lakepg_privilege; none before the first
// owner or grant is recorded. One query: what a statement's privilege
// checks read.
func (db *DB) Privileges(ctx context.Context) ([]Privilege, error) {
	const read = `SELECT kind, object_id, role, owner, acl FROM lakepg_privilege`
	rows, err := db.q().QueryContext(ctx, read)
	if err != nil {
		ok, err2 := db.tableExists(ctx, db.sql, "lakepg_privilege")
		if err2 == nil && !ok {
			return nil, nil // the table does not exist yet: nothing recorded
		}
		if err2 == nil {
			// another server created it between the read and the look:
			// read again
			rows, err = db.q().QueryContext(ctx, read)
		}
		if err != nil {
			return nil, fmt.Errorf("catalog: read lakepg_privilege: %w", err)
		}
	}
	defer rows.Close()
	var out []Privilege
	for rows.Next() {
		var p Privilege
		var acl *string
		if err := rows.Scan(&p.Kind, &p.ObjectID, &p.Role, &p.Owner, &acl); err != nil {
			return nil, fmt.Errorf("catalog: read lakepg_privilege: %w", err)
		}
		if acl != nil {
			p.ACL = *acl
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// SetPrivilege writes p in place of the row of its kind, object and role.
func (tx *Tx) SetPrivilege(ctx context.Context, p Privilege) error {
	if err := tx.DeletePrivilege(ctx, p.Kind, p.ObjectID, p.Role); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO lakepg_privilege (kind, object_id, role, owner, acl) VALUES (?, ?, ?, ?, ?)`,
		p.Kind, p.ObjectID, p.Role, p.Owner, nullString(p.ACL))
	if err != nil {
		return fmt.Errorf("catalog: write lakepg_privilege: %w", err)
	}
	return nil
}

// DeletePrivilege removes the row of kind, object and role, if any.
func (tx *Tx) DeletePrivilege(ctx context.Context, kind string, objectID int64, role string) error {
	_, err := tx.ExecContext(ctx, `DELETE FROM lakepg_privilege WHERE kind = ? AND object_id = ? AND role = ?`, kind, objectID, role)
	if err != nil {
		return fmt.Errorf("catalog: write lakepg_privilege: %w", err)
	}
	return nil
}

// Privilege reads the row of kind, object and role in the transaction.
func (tx *Tx) Privilege(ctx context.Context, kind string, objectID int64, role string) (Privilege, bool, error) {
	rows, err := tx.QueryContext(ctx, `SELECT kind, object_id, role, owner, acl FROM lakepg_privilege WHERE kind = ? AND object_id = ? AND role = ?`,
		kind, objectID, role)
	if err != nil {
		return Privilege{}, false, fmt.Errorf("catalog: read lakepg_privilege: %w", err)
	}
	defer rows.Close()
	if !rows.Next() {
		return Privilege{}, false, rows.Err()
	}
	var p Privilege
	var acl *string
	if err := rows.Scan(&p.Kind, &p.ObjectID, &p.Role, &p.Owner, &acl); err != nil {
		return Privilege{}, false, fmt.Errorf("catalog: read lakepg_privilege: %w", err)
	}
	if acl != nil {
		p.ACL = *acl
	}
	return p, true, nil
}
