package sql

import (
	"context"
	"fmt"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/pgerr"
)

// Role membership, as in PostgreSQL: GRANT role TO member [WITH ADMIN
// OPTION] makes member inherit role's privileges and ownerships and lets
// it SET ROLE to role; REVOKE [ADMIN OPTION FOR] role FROM member undoes
// it. Memberships are stored in the catalog database (catalog.GrantRole),
// so they hold on every server at its next statement.

// grantRole runs GRANT/REVOKE role … TO/FROM role ….
func (s *Session) grantRole(ctx context.Context, st *pg.GrantRoleStmt) (*Result, error) {
	tag := "GRANT ROLE"
	if !st.IsGrant {
		tag = "REVOKE ROLE"
	}
	admin := false
	for _, o := range st.Opt {
		if d := o.GetDefElem(); d != nil && d.Defname == "admin" {
			admin = d.Arg == nil || defString(d) != "false"
		}
	}
	members, err := s.roleMembers(ctx)
	if err != nil {
		return nil, err
	}
	super, err := s.roleSuper(ctx, nil, s.currentRole())
	if err != nil {
		return nil, err
	}
	for _, rn := range st.GrantedRoles {
		role := rn.GetAccessPriv().GetPrivName()
		if err := s.roleMustExist(ctx, role); err != nil {
			return nil, err
		}
		if !super && !hasAdmin(members, s.currentRole(), role) {
			return nil, pgerr.New(codeRolePrivilege, "permission denied to %s role \"%s\"", map[bool]string{true: "grant", false: "revoke"}[st.IsGrant], role)
		}
		for _, g := range st.GranteeRoles {
			member, err := s.roleSpecName(g.GetRoleSpec())
			if err != nil {
				return nil, err
			}
			if err := s.roleMustExist(ctx, member); err != nil {
				return nil, err
			}
			if !st.IsGrant {
				found, err := s.eng.DB.RevokeRole(ctx, role, member, admin)
				if err != nil {
					return nil, err
				}
				if !found {
					s.raise(Notice{Severity: "WARNING", Code: "01000", Message: fmt.Sprintf("role \"%s\" has not been granted membership in role \"%s\" by role \"%s\"", member, role, s.currentRole())})
				}
				continue
			}
			if member == role || inherits(members, role, member) {
				return nil, pgerr.New(codeInvalidGrantOperation, "role \"%s\" is a member of role \"%s\"", role, member)
			}
			m := catalog.RoleMember{Role: role, Member: member, Admin: admin, Grantor: s.currentRole()}
			if err := s.eng.DB.GrantRole(ctx, m); err != nil {
				return nil, err
			}
			members = append(members, m)
		}
	}
	s.resetPrivCache()
	return tagResult(tag), nil
}

// roleMembers reads the memberships once per statement.
func (s *Session) roleMembers(ctx context.Context) ([]catalog.RoleMember, error) {
	if s.priv.members == nil {
		ms, err := s.eng.DB.RoleMembers(ctx)
		if err != nil {
			return nil, err
		}
		s.priv.members = append([]catalog.RoleMember{}, ms...)
	}
	return s.priv.members, nil
}

// inherits reports whether member belongs to role, directly or through
// roles it belongs to.
func inherits(members []catalog.RoleMember, member, role string) bool {
	seen := map[string]bool{member: true}
	next := []string{member}
	for len(next) > 0 {
		m := next[len(next)-1]
		next = next[:len(next)-1]
		for _, rm := range members {
			if rm.Member != m || seen[rm.Role] {
				continue
			}
			if rm.Role == role {
				return true
			}
			seen[rm.Role] = true
			next = append(next, rm.Role)
		}
	}
	return false
}

// hasAdmin reports whether member may grant role: it holds the admin
// option on it.
func hasAdmin(members []catalog.RoleMember, member, role string) bool {
	for _, rm := range members {
		if rm.Role == role && rm.Member == member && rm.Admin {
			return true
		}
	}
	return false
}

// actsAs reports whether the current role has the privileges of role: it
// is role, or a member of it.
func (s *Session) actsAs(ctx context.Context, who, role string) (bool, error) {
	if who == role {
		return true, nil
	}
	members, err := s.roleMembers(ctx)
	if err != nil {
		return false, err
	}
	return inherits(members, who, role), nil
}

// catalogMembers is pg_auth_members' loader for one statement.
func (s *Session) catalogMembers() func() []catalog.RoleMember {
	return func() []catalog.RoleMember {
		ms, err := s.roleMembers(context.Background())
		if err != nil {
			s.eng.Log.Warn("reading role memberships for the catalog views", "err", err)
		}
		return ms
	}
}
