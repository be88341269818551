package privileges

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/lakepg/lakepg/sql/planner"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/sql/pgcatalog"
	"github.com/lakepg/lakepg/types"
)

// Role membership, as in PostgreSQL: GRANT role TO member [WITH ADMIN
// OPTION] makes member inherit role's privileges and ownerships and lets
// it SET ROLE to role; REVOKE [ADMIN OPTION FOR] role FROM member undoes
// it. Memberships are stored in the catalog database (catalog.GrantRole),
// so they hold on every server at its next statement.

// GrantRole runs GRANT/REVOKE role … TO/FROM role ….
func (s *State) GrantRole(ctx context.Context, st *pg.GrantRoleStmt) (string, error) {
	tag := "GRANT ROLE"
	if !st.IsGrant {
		tag = "REVOKE ROLE"
	}
	// GRANT … WITH ADMIN OPTION (admin true), or REVOKE ADMIN OPTION FOR
	// (the grammar gives it as admin false: only the option goes)
	admin := false
	for _, o := range st.Opt {
		if d := o.GetDefElem(); d != nil && d.Defname == "admin" {
			admin = !st.IsGrant || d.Arg.GetBoolean() == nil || d.Arg.GetBoolean().Boolval
		}
	}
	members, err := s.roleMembers(ctx)
	if err != nil {
		return "", err
	}
	super, err := s.roleSuper(ctx, nil, s.CurrentRole())
	if err != nil {
		return "", err
	}
	for _, rn := range st.GrantedRoles {
		role := rn.GetAccessPriv().GetPrivName()
		if err := s.roleMustExist(ctx, role); err != nil {
			return "", err
		}
		if !super && !hasAdmin(members, s.CurrentRole(), role) {
			return "", pgerr.New(codeRolePrivilege, "permission denied to %s role \"%s\"", map[bool]string{true: "grant", false: "revoke"}[st.IsGrant], role)
		}
		for _, g := range st.GranteeRoles {
			member, err := s.roleSpecName(g.GetRoleSpec())
			if err != nil {
				return "", err
			}
			if err := s.roleMustExist(ctx, member); err != nil {
				return "", err
			}
			if !st.IsGrant {
				found, err := s.DB.RevokeRole(ctx, role, member, admin)
				if err != nil {
					return "", err
				}
				if !found {
					s.Raise(planner.Notice{Severity: "WARNING", Code: "01000", Message: fmt.Sprintf("role \"%s\" has not been granted membership in role \"%s\" by role \"%s\"", member, role, s.CurrentRole())})
				}
				continue
			}
			if member == role || inherits(members, role, member) {
				return "", pgerr.New(codeInvalidGrantOperation, "role \"%s\" is a member of role \"%s\"", role, member)
			}
			m := catalog.RoleMember{Role: role, Member: member, Admin: admin, Grantor: s.CurrentRole()}
			if err := s.DB.GrantRole(ctx, m); err != nil {
				return "", err
			}
			members = append(members, m)
		}
	}
	s.ResetPrivCache()
	return tag, nil
}

// roleMembers reads the memberships once per statement.
func (s *State) roleMembers(ctx context.Context) ([]catalog.RoleMember, error) {
	if s.priv.members == nil {
		ms, err := s.DB.RoleMembers(ctx)
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
func (s *State) actsAs(ctx context.Context, who, role string) (bool, error) {
	if who == role {
		return true, nil
	}
	members, err := s.roleMembers(ctx)
	if err != nil {
		return false, err
	}
	return inherits(members, who, role), nil
}

// CatalogMembers is pg_auth_members' loader for one statement.
func (s *State) CatalogMembers() func() []catalog.RoleMember {
	return func() []catalog.RoleMember {
		ms, err := s.roleMembers(context.Background())
		if err != nil {
			s.Log().Warn("reading role memberships for the catalog views", "err", err)
		}
		return ms
	}
}

// PgHasRole binds pg_has_role([user,] role, privilege): whether user
// (current_user when not given; a name or an OID) is role or a member of
// it — MEMBER, USAGE and SET alike, as every role inherits here — or, WITH
// ADMIN OPTION, holds the admin option on it. A superuser has every role.
func (s *State) PgHasRole(b *planner.Binder, args []exec.Expr, loc int32) (exec.Expr, error) {
	ctx, err := b.PrivilegeArgs("pg_has_role", args, loc)
	if err != nil {
		return nil, err
	}
	c := &pgcatalog.Context{User: s.User, Roles: s.CatalogRoles()}
	name := func(v string) string {
		if oid, err := strconv.ParseInt(v, 10, 64); err == nil {
			return pgcatalog.UserName(c, oid)
		}
		return v
	}
	var mu sync.Mutex
	return &planner.CatalogFn{Name: "pg_has_role", T: types.BoolT, Args: args, Strict: true, Fn: func(out *vec.Vector, a []*vec.Vector, i int) error {
		user, role, priv := s.CurrentRole(), name(a[0].S[i]), a[len(a)-1].S[i]
		if len(a) == 3 {
			user, role = name(a[0].S[i]), name(a[1].S[i])
		}
		mu.Lock()
		defer mu.Unlock()
		for _, r := range []string{user, role} {
			if err := s.roleMustExist(ctx, r); err != nil {
				return err
			}
		}
		admin := false
		switch p := strings.ToUpper(strings.TrimSpace(priv)); p {
		case "MEMBER", "USAGE", "SET":
		case "MEMBER WITH ADMIN OPTION", "USAGE WITH ADMIN OPTION", "SET WITH ADMIN OPTION", "MEMBER WITH GRANT OPTION", "USAGE WITH GRANT OPTION":
			admin = true
		default:
			return pgerr.New(pgerr.InvalidParameterValue, "unrecognized privilege type: \"%s\"", priv)
		}
		super, err := s.roleSuper(ctx, nil, user)
		if err != nil {
			return err
		}
		members, err := s.roleMembers(ctx)
		if err != nil {
			return err
		}
		has := super || hasAdmin(members, user, role)
		if !admin {
			has = has || user == role || inherits(members, user, role)
		}
		out.AppendBool(has)
		return nil
	}}, nil
}
