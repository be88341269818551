package pgcatalog

import (
	"strings"

	"github.com/lakepg/lakepg/catalog"
)

// firstRoleOID is where the OIDs of stored roles begin, PostgreSQL's
// FirstNormalObjectId.
const firstRoleOID = 16384

// roleEntry is one role the catalog views show.
type roleEntry struct {
	oid  int64
	role catalog.Role
}

// roleEntries are the session user (superuserOID, the owner of everything
// shown), then the other stored roles in name order. A session user that is
// not a stored role (a trusted login) is shown as a superuser, as before
// roles existed.
func roleEntries(c *Context) []roleEntry {
	var stored []catalog.Role
	if c.Roles != nil {
		stored = c.Roles()
	}
	self := roleEntry{oid: superuserOID, role: catalog.Role{Name: c.User, Superuser: true, Login: true}}
	out := []roleEntry{self}
	for i, r := range stored {
		if r.Name == c.User {
			out[0].role = r
			continue
		}
		out = append(out, roleEntry{oid: firstRoleOID + int64(i), role: r})
	}
	return out
}

// storedRoleName resolves the OID of a stored role.
func storedRoleName(c *Context, oid int64) (string, bool) {
	for _, e := range roleEntries(c) {
		if e.oid == oid {
			return e.role.Name, true
		}
	}
	return "", false
}

// storedRoleOID resolves the name of a stored role.
func storedRoleOID(c *Context, name string) (int64, bool) {
	for _, e := range roleEntries(c) {
		if e.role.Name == name {
			return e.oid, true
		}
	}
	return 0, false
}

// namespaceACL is the ACL PostgreSQL's initdb gives a schema, in aclitem[]
// text form: its owner may use and create in pg_catalog,
// information_schema and public, everyone may use them; "" (NULL: the
// owner's default privileges) for the others.
func namespaceACL(c *Context, ns *namespace) string {
	if ns.acl != "" {
		return ns.acl
	}
	if ns.oid == catalogNamespace || ns.oid == infoNamespace || ns.name == "public" {
		owner := UserName(c, ns.owner)
		return "{" + aclRole(owner) + "=UC/" + aclRole(owner) + ",=U/" + aclRole(owner) + "}"
	}
	return ""
}

// aclRole writes a role name as aclitem_out does, double-quoted unless
// it is made of letters, digits and underscores only.
func aclRole(name string) string {
	plain := name != ""
	for _, r := range name {
		plain = plain && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_')
	}
	if plain {
		return name
	}
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// OwnerOID is the OID of an owner lakepg recorded: "" is the bootstrap
// superuser, shown as the session user (superuserOID).
func OwnerOID(c *Context, owner string) int64 {
	switch owner {
	case "", c.User:
		return superuserOID
	case "pg_database_owner":
		return dbOwnerRoleOID
	}
	if oid, ok := storedRoleOID(c, owner); ok {
		return oid
	}
	return superuserOID
}

// relOwnerACL is the relowner and relacl of a relation.
func relOwnerACL(c *Context, rel *relation) (int64, string) {
	if c.ACL == nil || rel.temp {
		return superuserOID, ""
	}
	var id int64
	switch {
	case rel.view != nil:
		id = rel.view.ID
	case rel.lake != nil:
		id = rel.lake.ID
	default:
		return superuserOID, ""
	}
	owner, acl, ok := c.ACL("r", id)
	if !ok {
		return superuserOID, ""
	}
	return OwnerOID(c, owner), acl
}

// DefaultACL is one entry of pg_default_acl: the ACL role's new tables in
// schema SchemaID (0: any schema) get.
type DefaultACL struct {
	Role     string
	SchemaID int64
	ACL      string
}
