package privileges

import (
	"context"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/lakepg/lakepg/sql/planner"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/sql/pgcatalog"
	"github.com/lakepg/lakepg/types"
)

// What the catalog views show of privileges: pg_class.relacl/relowner,
// pg_namespace.nspacl/nspowner, has_table_privilege, has_schema_privilege.

// CatalogACL reads the recorded owners and ACLs once for a
// pgcatalog.Context.
func (s *State) CatalogACL() func(kind string, id int64) (string, string, bool) {
	var once sync.Once
	var st *privState
	return func(kind string, id int64) (string, string, bool) {
		once.Do(func() {
			var err error
			if st, err = s.privileges(context.Background()); err != nil {
				s.Log().Warn("reading privileges for the catalog views", "err", err)
			}
		})
		if st == nil {
			return "", "", false
		}
		r, ok := st.rows[privKey{kind, id, ""}]
		return r.Owner, r.ACL, ok
	}
}

// HasPrivilege binds has_table_privilege and has_schema_privilege:
// ([user,] object, privileges), true when the role holds any of the
// privileges listed ('SELECT, INSERT', 'USAGE WITH GRANT OPTION').
func (s *State) HasPrivilege(b *planner.Binder, name string, args []exec.Expr, loc int32) (exec.Expr, error) {
	ctx, err := b.PrivilegeArgs(name, args, loc)
	if err != nil {
		return nil, err
	}
	st, err := s.privileges(ctx)
	if err != nil {
		return nil, err
	}
	c, err := b.CatalogContext()
	if err != nil {
		return nil, err
	}
	var mu sync.Mutex
	schemaKind := name == "has_schema_privilege"
	fn := func(out *vec.Vector, a []*vec.Vector, i int) error {
		role, obj, privs := s.CurrentRole(), a[0].S[i], a[len(a)-1].S[i]
		if len(a) == 3 {
			role, obj = a[0].S[i], a[1].S[i]
		}
		mu.Lock()
		defer mu.Unlock()
		if err := s.roleMustExist(ctx, role); err != nil {
			return err
		}
		var held acl
		all := tablePrivLetters
		if schemaKind {
			all = schemaPrivLetters
			sch, ok := c.Meta.SchemaByName(obj)
			if n, err := strconv.ParseInt(obj, 10, 64); err == nil {
				sch, ok = c.Meta.SchemaByID(n - pgcatalog.NamespaceOID(0))
				if !ok && n < pgcatalog.NamespaceOID(0) {
					obj = "pg_catalog" // a system schema
				}
			}
			if !ok {
				if obj != "pg_catalog" && obj != "information_schema" {
					return pgerr.New(pgerr.InvalidSchemaName, "schema \"%s\" does not exist", obj)
				}
				// system schemas: USAGE for everyone, CREATE for their owner
				held = acl{{grantee: bootstrapOwner, grantor: bootstrapOwner, privs: "UC"}, {grantor: bootstrapOwner, privs: "U"}}
			} else {
				held = st.schemaPriv(sch).acl
			}
		} else {
			oid, err := pgcatalog.RelationOIDByName(c, obj)
			if err != nil {
				return err
			}
			id := oid - pgcatalog.RelationOID(0)
			if _, ok := c.Meta.TableByID(id); !ok && !isViewID(c, id) {
				out.AppendBool(true) // a system relation: readable by all
				return nil
			}
			held = st.relPriv(id).acl
		}
		super, err := s.roleSuper(ctx, st, role)
		if err != nil {
			return err
		}
		names := map[string]byte{"INSERT": 'a', "SELECT": 'r', "UPDATE": 'w', "DELETE": 'd', "TRUNCATE": 'D',
			"REFERENCES": 'x', "TRIGGER": 't', "USAGE": 'U', "CREATE": 'C'}
		res := false
		for _, p := range strings.Split(privs, ",") {
			p = strings.ToUpper(strings.TrimSpace(p))
			grant := false
			if base, ok := strings.CutSuffix(p, " WITH GRANT OPTION"); ok {
				p, grant = strings.TrimSpace(base), true
			}
			l, ok := names[p]
			if !ok || strings.IndexByte(all, l) < 0 {
				return pgerr.New(pgerr.InvalidParameterValue, "unrecognized privilege type: \"%s\"", p)
			}
			res = res || super || st.holds(held, role, l, grant)
		}
		out.AppendBool(res)
		return nil
	}
	return b.Fold(&planner.CatalogFn{Name: name, T: types.BoolT, Args: args, Strict: true, Fn: fn}, loc)
}

func isViewID(c *pgcatalog.Context, id int64) bool {
	for i := range c.Meta.Views {
		if c.Meta.Views[i].ID == id {
			return true
		}
	}
	return false
}

// aclPrivilegeNames are information_schema's names of table privileges.
var aclPrivilegeNames = map[byte]string{'a': "INSERT", 'r': "SELECT", 'w': "UPDATE", 'd': "DELETE", 'D': "TRUNCATE",
	'x': "REFERENCES", 't': "TRIGGER"}

// CatalogTableGrants lists the privileges on lake tables and views for
// information_schema.table_privileges and role_table_grants, as the
// current role may see them: all for a superuser, else grants from or to
// the role (table_privileges: or to PUBLIC).
func (s *State) CatalogTableGrants(meta *catalog.Metadata) func(role bool) []pgcatalog.TableGrant {
	return func(roleOnly bool) []pgcatalog.TableGrant {
		ctx := context.Background()
		st, err := s.privileges(ctx)
		if err != nil {
			return nil
		}
		me := s.CurrentRole()
		super, err := s.roleSuper(ctx, st, me)
		if err != nil {
			return nil
		}
		var out []pgcatalog.TableGrant
		add := func(schemaID, id int64, name string) {
			sch, ok := meta.SchemaByID(schemaID)
			if !ok {
				return
			}
			op := st.relPriv(id)
			owner := s.ownerName(op.owner)
			for _, it := range op.acl {
				grantee, grantor := it.grantee, it.grantor
				if grantee == bootstrapOwner {
					grantee = owner
				}
				if grantor == bootstrapOwner {
					grantor = owner
				}
				if grantee == "" {
					grantee = "PUBLIC"
				}
				if !super && grantee != me && grantor != me && (roleOnly || grantee != "PUBLIC") {
					continue
				}
				for i := 0; i < len(it.privs); i++ {
					l := it.privs[i]
					out = append(out, pgcatalog.TableGrant{Grantor: grantor, Grantee: grantee, Schema: sch.Name, Table: name,
						Privilege: aclPrivilegeNames[l], Grantable: grantee == owner || strings.IndexByte(it.grants, l) >= 0})
				}
			}
		}
		for i := range meta.Tables {
			if t := &meta.Tables[i]; t.MatView == "" {
				add(t.SchemaID, t.ID, t.Name)
			}
		}
		for i := range meta.Views {
			v := &meta.Views[i]
			add(v.SchemaID, v.ID, v.Name)
		}
		return out
	}
}

// CatalogDefaultACLs lists the default privileges for pg_default_acl.
func (s *State) CatalogDefaultACLs() []pgcatalog.DefaultACL {
	st, err := s.privileges(context.Background())
	if err != nil {
		return nil
	}
	var out []pgcatalog.DefaultACL
	for k, r := range st.rows {
		if k.kind == privDefaultTable && r.ACL != "" {
			out = append(out, pgcatalog.DefaultACL{Role: r.Role, SchemaID: r.ObjectID, ACL: r.ACL})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Role != out[j].Role {
			return out[i].Role < out[j].Role
		}
		return out[i].SchemaID < out[j].SchemaID
	})
	return out
}
