package catalog

import (
	"context"
	"fmt"
)

// Role memberships (GRANT role TO role) live in lakepg_role_member beside
// lakepg_role: like roles they belong to the catalog, not to a snapshot, so
// every server sharing it sees a GRANT at its next statement.
const roleMemberTableDDL = `CREATE TABLE IF NOT EXISTS lakepg_role_member (
	role VARCHAR NOT NULL,
	member VARCHAR NOT NULL,
	admin BIGINT NOT NULL,
	grantor VARCHAR,
	PRIMARY KEY (role, member)
)`

// RoleMember says that Member belongs to Role; Admin: it may grant Role on.
type RoleMember struct {
	Role, Member, Grantor string
	Admin                 bool
}

// RoleMembers lists every membership, ordered by role and member; none
// before the first GRANT of a role.
func (db *DB) RoleMembers(ctx context.Context) ([]RoleMember, error) {
	if ok, err := db.tableExists(ctx, db.sql, "lakepg_role_member"); err != nil || !ok {
		return nil, err
	}
	rows, err := db.q().QueryContext(ctx, `SELECT role, member, admin, grantor FROM lakepg_role_member ORDER BY role, member`)
	if err != nil {
		return nil, fmt.Errorf("catalog: read lakepg_role_member: %w", err)
	}
	defer rows.Close()
	var out []RoleMember
	for rows.Next() {
		var m RoleMember
		var admin int64
		var grantor *string
		if err := rows.Scan(&m.Role, &m.Member, &admin, &grantor); err != nil {
			return nil, fmt.Errorf("catalog: read lakepg_role_member: %w", err)
		}
		m.Admin = admin != 0
		if grantor != nil {
			m.Grantor = *grantor
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// GrantRole makes member a member of role (again: the admin option can
// only be added, as in PostgreSQL).
func (db *DB) GrantRole(ctx context.Context, m RoleMember) error {
	return db.memberTx(ctx, func(tx *Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE lakepg_role_member SET admin = CASE WHEN admin = 1 OR ? = 1 THEN 1 ELSE 0 END WHERE role = ? AND member = ?`,
			boolInt(m.Admin), m.Role, m.Member)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err == nil && n > 0 {
			return nil
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO lakepg_role_member (role, member, admin, grantor) VALUES (?, ?, ?, ?)`,
			m.Role, m.Member, boolInt(m.Admin), nullString(m.Grantor))
		return err
	})
}

// RevokeRole ends member's membership of role, or only its admin option;
// false when there was none.
func (db *DB) RevokeRole(ctx context.Context, role, member string, adminOnly bool) (found bool, err error) {
	err = db.memberTx(ctx, func(tx *Tx) error {
		q := `DELETE FROM lakepg_role_member WHERE role = ? AND member = ?`
		if adminOnly {
			q = `UPDATE lakepg_role_member SET admin = 0 WHERE role = ? AND member = ?`
		}
		res, err := tx.ExecContext(ctx, q, role, member)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		found = err == nil && n > 0
		return err
	})
	return found, err
}

// dropMemberships removes every membership of or in role name (DROP ROLE).
func dropMemberships(ctx context.Context, tx *Tx, name string) error {
	_, err := tx.ExecContext(ctx, `DELETE FROM lakepg_role_member WHERE role = ? OR member = ?`, name, name)
	return err
}

func (db *DB) memberTx(ctx context.Context, fn func(tx *Tx) error) error {
	return db.ownTableTx(ctx, "lakepg_role_member", roleMemberTableDDL, fn)
}
