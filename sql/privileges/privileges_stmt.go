package privileges

import (
	"context"
	"sort"
	"strings"

	"github.com/lakepg/lakepg/sql/planner"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/snapshot"
)

// GRANT, REVOKE, ALTER DEFAULT PRIVILEGES, ALTER … OWNER TO, SET ROLE and
// SET SESSION AUTHORIZATION, and the owner checks of DDL.

const codeInvalidGrantOperation = "0LP01"

// PrivilegeStmt runs GRANT/REVOKE, ALTER DEFAULT PRIVILEGES and ALTER
// SCHEMA … OWNER TO, committed with the statement or block.
func (s *State) PrivilegeStmt(ctx context.Context, n *pg.Node) (string, error) {
	if err := s.CheckWritable(); err != nil {
		return "", err
	}
	var tag string
	err := s.Commit(ctx, func(c *snapshot.Commit, meta *catalog.Metadata) error {
		var err error
		switch x := n.Node.(type) {
		case *pg.Node_GrantStmt:
			tag, err = s.grant(ctx, c, meta, x.GrantStmt)
		case *pg.Node_AlterDefaultPrivilegesStmt:
			tag, err = s.alterDefaultPrivileges(ctx, c, meta, x.AlterDefaultPrivilegesStmt)
		case *pg.Node_AlterOwnerStmt:
			tag, err = s.alterOwner(ctx, c, meta, x.AlterOwnerStmt)
		}
		return err
	}, nil)
	if err != nil {
		return "", err
	}
	return tag, nil
}

// privLetters turns a GRANT's privilege list into aclitem letters of an
// object kind (all of them for ALL).
func privLetters(privs []*pg.Node, all, kindWord string) (string, error) {
	if len(privs) == 0 {
		return all, nil
	}
	names := map[string]byte{"insert": 'a', "select": 'r', "update": 'w', "delete": 'd', "truncate": 'D',
		"references": 'x', "trigger": 't', "usage": 'U', "create": 'C'}
	out := ""
	for _, p := range privs {
		ap := p.GetAccessPriv()
		if ap == nil {
			continue
		}
		if len(ap.Cols) > 0 {
			return "", pgerr.New(pgerr.FeatureNotSupported, "column privileges are not supported")
		}
		l, ok := names[ap.PrivName]
		if !ok || strings.IndexByte(all, l) < 0 {
			return "", pgerr.New(codeInvalidGrantOperation, "invalid privilege type %s for %s", strings.ToUpper(ap.PrivName), kindWord)
		}
		if strings.IndexByte(out, l) < 0 {
			out += string(l)
		}
	}
	return out, nil
}

// granteeNames resolves GRANT's grantees: "" is PUBLIC.
func (s *State) granteeNames(ctx context.Context, specs []*pg.Node) ([]string, error) {
	var out []string
	for _, n := range specs {
		rs := n.GetRoleSpec()
		switch rs.GetRoletype() {
		case pg.RoleSpecType_ROLESPEC_PUBLIC:
			out = append(out, "")
			continue
		case pg.RoleSpecType_ROLESPEC_CURRENT_USER, pg.RoleSpecType_ROLESPEC_CURRENT_ROLE:
			out = append(out, s.CurrentRole())
			continue
		case pg.RoleSpecType_ROLESPEC_SESSION_USER:
			out = append(out, s.User)
			continue
		}
		if err := s.roleMustExist(ctx, rs.Rolename); err != nil {
			return nil, err
		}
		out = append(out, rs.Rolename)
	}
	return out, nil
}

func (s *State) roleMustExist(ctx context.Context, name string) error {
	if name == s.User || (s.priv.authSet && name == s.priv.authUser) {
		return nil
	}
	if _, ok, err := s.DB.Role(ctx, name); err != nil {
		return err
	} else if !ok {
		return pgerr.New(pgerr.UndefinedObject, "role \"%s\" does not exist", name)
	}
	return nil
}

// ownerName is an owner as ACLs name it: the bootstrap superuser ("") is
// written as the session user.
func (s *State) ownerName(owner string) string {
	if owner == "" {
		return s.User
	}
	return owner
}

// grantTarget is one object a GRANT changes.
type grantTarget struct {
	kind string
	id   int64
	word string
	name string
	op   objPriv
	all  string // the letters of its kind
}

func (s *State) grant(ctx context.Context, c *snapshot.Commit, meta *catalog.Metadata, st *pg.GrantStmt) (string, error) {
	tag := "GRANT"
	if !st.IsGrant {
		tag = "REVOKE"
	}
	ps, err := s.privileges(ctx)
	if err != nil {
		return "", err
	}
	var targets []grantTarget
	switch st.Objtype {
	case pg.ObjectType_OBJECT_TABLE:
		if st.Targtype == pg.GrantTargetType_ACL_TARGET_ALL_IN_SCHEMA {
			for _, o := range st.Objects {
				name := o.GetString_().GetSval()
				sch, ok := meta.SchemaByName(name)
				if !ok {
					return "", pgerr.New(pgerr.InvalidSchemaName, "schema \"%s\" does not exist", name)
				}
				for _, t := range meta.TablesIn(sch.ID) {
					targets = append(targets, grantTarget{privRelation, t.ID, planner.RelationWord(t, nil), t.Name, ps.relPriv(t.ID), tablePrivLetters})
				}
				for _, v := range viewsIn(meta, sch.ID) {
					targets = append(targets, grantTarget{privRelation, v.ID, "view", v.Name, ps.relPriv(v.ID), tablePrivLetters})
				}
			}
			break
		}
		for _, o := range st.Objects {
			rv := o.GetRangeVar()
			if rv == nil {
				continue
			}
			if s.TempLookup(rv.Schemaname, rv.Relname) != nil {
				return "", pgerr.New(pgerr.FeatureNotSupported, "GRANT on temporary tables is not supported")
			}
			r, err := s.ResolveRelation(meta, rv.Schemaname, rv.Relname, rv.Location)
			if err != nil {
				return "", err
			}
			id := int64(0)
			if r.View != nil {
				id = r.View.ID
			} else {
				id = r.Table.ID
			}
			targets = append(targets, grantTarget{privRelation, id, planner.RelationWord(r.Table, r.View), rv.Relname, ps.relPriv(id), tablePrivLetters})
		}
	case pg.ObjectType_OBJECT_SCHEMA:
		for _, o := range st.Objects {
			name := o.GetString_().GetSval()
			sch, ok := meta.SchemaByName(name)
			if !ok {
				return "", pgerr.New(pgerr.InvalidSchemaName, "schema \"%s\" does not exist", name)
			}
			targets = append(targets, grantTarget{privSchema, sch.ID, "schema", sch.Name, ps.schemaPriv(sch), schemaPrivLetters})
		}
	default:
		return "", pgerr.New(pgerr.FeatureNotSupported, "%s on this kind of object is not supported", tag)
	}
	grantees, err := s.granteeNames(ctx, st.Grantees)
	if err != nil {
		return "", err
	}
	if st.Grantor != nil {
		// PostgreSQL 15 accepts GRANTED BY only for the current user
		g, err := s.roleSpecName(st.Grantor)
		if err != nil {
			return "", err
		}
		if err := s.roleMustExist(ctx, g); err != nil {
			return "", err
		}
		if g != s.CurrentRole() {
			return "", pgerr.New(pgerr.FeatureNotSupported, "grantor must be current user")
		}
	}
	role := s.CurrentRole()
	super, err := s.roleSuper(ctx, ps, role)
	if err != nil {
		return "", err
	}
	for _, t := range targets {
		letters, err := privLetters(st.Privileges, t.all, t.word)
		if err != nil {
			return "", err
		}
		owner := s.ownerName(t.op.owner)
		grantor := owner
		if !super && t.op.owner != role {
			// a grantee with GRANT OPTION grants in its own name
			var mine string
			for i := 0; i < len(letters); i++ {
				if ps.holds(t.op.acl, role, letters[i], true) {
					mine += string(letters[i])
				}
			}
			if mine == "" {
				any := false
				for i := 0; i < len(t.all); i++ {
					any = any || ps.holds(t.op.acl, role, t.all[i], false)
				}
				if !any {
					return "", errPermission(t.word, t.name)
				}
				if st.IsGrant {
					s.Raise(planner.Notice{Severity: "WARNING", Code: "01007", Message: "no privileges were granted for \"" + t.name + "\""})
				} else {
					s.Raise(planner.Notice{Severity: "WARNING", Code: "01006", Message: "no privileges could be revoked for \"" + t.name + "\""})
				}
				continue
			}
			letters, grantor = mine, role
		}
		isGrant, grantOption := st.IsGrant, st.GrantOption
		cascade := st.Behavior == pg.DropBehavior_DROP_CASCADE
		build := func(op objPriv) (catalog.Privilege, error) {
			var err error
			a := append(acl(nil), op.acl...)
			owner := s.ownerName(op.owner)
			for i := range a { // the bootstrap superuser is named in the ACL
				if a[i].grantee == bootstrapOwner {
					a[i].grantee = owner
				}
				if a[i].grantor == bootstrapOwner {
					a[i].grantor = owner
				}
			}
			for _, g := range grantees {
				a = aclUpdate(a, g, grantor, letters, isGrant, grantOption)
				if !isGrant {
					if a, err = revokeDependent(a, g, letters, cascade); err != nil {
						return catalog.Privilege{}, err
					}
				}
			}
			return catalog.Privilege{Kind: t.kind, ObjectID: t.id, Owner: op.owner, ACL: formatACL(a)}, nil
		}
		// the commit applies the change again to the row as it is then, so
		// that grants on one object from several servers all count
		kind, name := t.kind, t.name
		again := func(cur catalog.Privilege, found bool) (catalog.Privilege, error) {
			one := &privState{rows: map[privKey]catalog.Privilege{}}
			if found {
				one.rows[privKey{cur.Kind, cur.ObjectID, cur.Role}] = cur
			}
			if kind == privSchema {
				return build(one.schemaPriv(&catalog.Schema{ID: cur.ObjectID, Name: name}))
			}
			return build(one.relPriv(cur.ObjectID))
		}
		p, err := build(t.op)
		if err != nil {
			return "", err
		}
		if err := s.putPrivilegeAgain(ctx, c, p, again); err != nil {
			return "", err
		}
	}
	return tag, nil
}

// aclUpdate grants or revokes letters of grantee from grantor, as
// PostgreSQL's aclupdate: a new item goes at the end, an empty one is
// removed. grantOption: GRANT … WITH GRANT OPTION, or REVOKE GRANT OPTION
// FOR (only the option goes).
func aclUpdate(a acl, grantee, grantor, letters string, grant, grantOption bool) acl {
	idx := -1
	for i := range a {
		if a[i].grantee == grantee && a[i].grantor == grantor {
			idx = i
			break
		}
	}
	if grant {
		if idx < 0 {
			a = append(a, aclItem{grantee: grantee, grantor: grantor})
			idx = len(a) - 1
		}
		a[idx].privs = letterUnion(a[idx].privs, letters)
		if grantOption && grantee != "" {
			a[idx].grants = letterUnion(a[idx].grants, letters)
		}
		return a
	}
	if idx < 0 {
		return a
	}
	a[idx].grants = letterMinus(a[idx].grants, letters)
	if !grantOption {
		a[idx].privs = letterMinus(a[idx].privs, letters)
	}
	if a[idx].privs == "" {
		a = append(a[:idx], a[idx+1:]...)
	}
	return a
}

// revokeDependent follows a REVOKE from grantee as PostgreSQL does: what
// grantee granted of letters it can no longer grant (it holds no grant
// option for them from any grantor now) depends on the revoked option;
// CASCADE revokes it too, down the chain, otherwise it is an error.
func revokeDependent(a acl, grantee string, letters string, cascade bool) (acl, error) {
	lost := ""
	for i := 0; i < len(letters); i++ {
		if !a.has(grantee, letters[i], true) {
			lost += string(letters[i])
		}
	}
	if lost == "" || grantee == "" {
		return a, nil
	}
	for i := 0; i < len(a); i++ {
		it := a[i]
		if it.grantor != grantee || it.grantee == grantee || letterMinus(it.privs, lost) == it.privs {
			continue
		}
		if !cascade {
			e := pgerr.New("2BP01", "dependent privileges exist")
			e.Hint = "Use CASCADE to revoke them too."
			return nil, e
		}
		a = aclUpdate(a, it.grantee, grantee, lost, false, false)
		var err error
		if a, err = revokeDependent(a, it.grantee, lost, true); err != nil {
			return nil, err
		}
		i = -1 // the ACL changed: look again from the start
	}
	return a, nil
}

func letterUnion(a, b string) string {
	for i := 0; i < len(b); i++ {
		if strings.IndexByte(a, b[i]) < 0 {
			a += string(b[i])
		}
	}
	return a
}

func letterMinus(a, b string) string {
	out := ""
	for i := 0; i < len(a); i++ {
		if strings.IndexByte(b, a[i]) < 0 {
			out += string(a[i])
		}
	}
	return out
}

// alterDefaultPrivileges runs ALTER DEFAULT PRIVILEGES [FOR ROLE r] [IN
// SCHEMA s] GRANT|REVOKE … ON TABLES.
func (s *State) alterDefaultPrivileges(ctx context.Context, c *snapshot.Commit, meta *catalog.Metadata, st *pg.AlterDefaultPrivilegesStmt) (string, error) {
	act := st.Action
	if act.Objtype != pg.ObjectType_OBJECT_TABLE {
		return "", pgerr.New(pgerr.FeatureNotSupported, "ALTER DEFAULT PRIVILEGES is supported for tables only")
	}
	ps, err := s.privileges(ctx)
	if err != nil {
		return "", err
	}
	me := s.CurrentRole()
	super, err := s.roleSuper(ctx, ps, me)
	if err != nil {
		return "", err
	}
	roles := []string{me}
	schemaIDs := []int64{0}
	for _, o := range st.Options {
		d := o.GetDefElem()
		if d == nil {
			continue
		}
		items := d.Arg.GetList().GetItems()
		switch d.Defname {
		case "roles":
			roles = nil
			for _, it := range items {
				name := it.GetRoleSpec().GetRolename()
				if err := s.roleMustExist(ctx, name); err != nil {
					return "", err
				}
				if !super && name != me {
					return "", pgerr.New(codeRolePrivilege, "permission denied to change default privileges")
				}
				roles = append(roles, name)
			}
		case "schemas":
			schemaIDs = nil
			for _, it := range items {
				name := it.GetString_().GetSval()
				sch, ok := meta.SchemaByName(name)
				if !ok {
					return "", pgerr.New(pgerr.InvalidSchemaName, "schema \"%s\" does not exist", name)
				}
				schemaIDs = append(schemaIDs, sch.ID)
			}
		}
	}
	letters, err := privLetters(act.Privileges, tablePrivLetters, "table")
	if err != nil {
		return "", err
	}
	grantees, err := s.granteeNames(ctx, act.Grantees)
	if err != nil {
		return "", err
	}
	for _, r := range roles {
		for _, sid := range schemaIDs {
			row := ps.rows[privKey{privDefaultTable, sid, r}]
			var a acl
			def := acl{{grantee: r, grantor: r, privs: tablePrivLetters}}
			switch {
			case row.ACL != "":
				a = parseACLText(row.ACL)
			case sid == 0:
				a = def
			}
			r, sid := r, sid
			build := func(a acl) catalog.Privilege {
				for _, g := range grantees {
					a = aclUpdate(a, g, r, letters, act.IsGrant, act.GrantOption)
				}
				text := formatACL(a)
				if len(a) == 0 || (sid == 0 && text == formatACL(def)) {
					text = ""
				}
				return catalog.Privilege{Kind: privDefaultTable, ObjectID: sid, Role: r, Owner: r, ACL: text}
			}
			again := func(cur catalog.Privilege, found bool) (catalog.Privilege, error) {
				switch {
				case found && cur.ACL != "":
					return build(parseACLText(cur.ACL)), nil
				case sid == 0:
					return build(acl{{grantee: r, grantor: r, privs: tablePrivLetters}}), nil
				}
				return build(nil), nil
			}
			if err := s.putPrivilegeAgain(ctx, c, build(a), again); err != nil {
				return "", err
			}
		}
	}
	return "ALTER DEFAULT PRIVILEGES", nil
}

// defaultTableACL is the ACL a new table of owner in schema schemaID
// starts with: "" (the owner's defaults) unless ALTER DEFAULT PRIVILEGES
// changed them.
func (s *State) defaultTableACL(st *privState, owner string, schemaID int64) string {
	if owner == "" {
		return ""
	}
	g := st.rows[privKey{privDefaultTable, 0, owner}]
	sc := st.rows[privKey{privDefaultTable, schemaID, owner}]
	if g.ACL == "" && sc.ACL == "" {
		return ""
	}
	a := acl{{grantee: owner, grantor: owner, privs: tablePrivLetters}}
	if g.ACL != "" {
		a = parseACLText(g.ACL)
	}
	for _, it := range parseACLText(sc.ACL) {
		a = aclUpdate(a, it.grantee, it.grantor, it.privs, true, false)
		if it.grants != "" {
			a = aclUpdate(a, it.grantee, it.grantor, it.grants, true, true)
		}
	}
	// PostgreSQL sorts a default ACL by grantee and grantor OID; lakepg's
	// role OIDs follow role names, PUBLIC first
	sort.SliceStable(a, func(i, j int) bool {
		if a[i].grantee != a[j].grantee {
			return a[i].grantee < a[j].grantee
		}
		return a[i].grantor < a[j].grantor
	})
	return formatACL(a)
}

// newOwnerName resolves OWNER TO's role and checks the current role may
// give the object to it.
func (s *State) newOwnerName(ctx context.Context, rs *pg.RoleSpec, oldOwner, word, name string) (string, error) {
	newOwner, err := s.roleSpecName(rs)
	if err != nil {
		return "", err
	}
	if rs.GetRoletype() == pg.RoleSpecType_ROLESPEC_CURRENT_USER || rs.GetRoletype() == pg.RoleSpecType_ROLESPEC_CURRENT_ROLE {
		newOwner = s.CurrentRole()
	}
	if err := s.roleMustExist(ctx, newOwner); err != nil {
		return "", err
	}
	ps, err := s.privileges(ctx)
	if err != nil {
		return "", err
	}
	me := s.CurrentRole()
	super, err := s.roleSuper(ctx, ps, me)
	if err != nil || super {
		return newOwner, err
	}
	if oldOwner != me {
		return "", errNotOwner(word, name)
	}
	if newOwner != me {
		return "", pgerr.New(codeRolePrivilege, "must be member of role \"%s\"", newOwner)
	}
	return newOwner, nil
}

// changedOwner rewrites an ACL for a new owner, as aclnewowner does.
func changedOwner(op objPriv, oldName, newOwner string) string {
	if !op.set {
		return ""
	}
	var out acl
	for _, it := range op.acl {
		if it.grantee == oldName || it.grantee == bootstrapOwner {
			it.grantee = newOwner
		}
		if it.grantor == oldName || it.grantor == bootstrapOwner {
			it.grantor = newOwner
		}
		merged := false
		for i := range out {
			if out[i].grantee == it.grantee && out[i].grantor == it.grantor {
				out[i].privs = letterUnion(out[i].privs, it.privs)
				out[i].grants = letterUnion(out[i].grants, it.grants)
				merged = true
			}
		}
		if !merged {
			out = append(out, it)
		}
	}
	return formatACL(out)
}

// alterOwner runs ALTER SCHEMA … OWNER TO (tables and views come through
// ALTER TABLE, OwnerDDL).
func (s *State) alterOwner(ctx context.Context, c *snapshot.Commit, meta *catalog.Metadata, st *pg.AlterOwnerStmt) (string, error) {
	if st.ObjectType != pg.ObjectType_OBJECT_SCHEMA {
		return "", pgerr.New(pgerr.FeatureNotSupported, "ALTER … OWNER TO is supported for tables, views and schemas")
	}
	name := st.Object.GetString_().GetSval()
	sch, ok := meta.SchemaByName(name)
	if !ok {
		return "", pgerr.New(pgerr.InvalidSchemaName, "schema \"%s\" does not exist", name)
	}
	ps, err := s.privileges(ctx)
	if err != nil {
		return "", err
	}
	op := ps.schemaPriv(sch)
	newOwner, err := s.newOwnerName(ctx, st.Newowner, op.owner, "schema", name)
	if err != nil {
		return "", err
	}
	a := changedOwner(op, s.ownerName(op.owner), newOwner)
	if a == "" && (sch.Name == "public" || sch.Name == "main") {
		op.set = true
		a = changedOwner(op, s.ownerName(op.owner), newOwner)
	}
	return "ALTER SCHEMA", s.putPrivilege(ctx, c, catalog.Privilege{Kind: privSchema, ObjectID: sch.ID, Owner: newOwner, ACL: a})
}

// OwnerDDL checks that the current role owns what a DDL statement drops,
// alters, renames or comments on, and runs ALTER TABLE|VIEW … OWNER TO.
// done: the statement was run here.
func (s *State) OwnerDDL(ctx context.Context, c *snapshot.Commit, meta *catalog.Metadata, n *pg.Node) (tag string, done bool, err error) {
	relOwner := func(schema, name string) error {
		if s.TempLookup(schema, name) != nil {
			return nil
		}
		r, err := s.ResolveRelation(meta, schema, name, -1)
		if err != nil {
			return nil // the statement reports it
		}
		if r.View != nil {
			return s.CheckRelOwner(ctx, r.View.ID, "view", name)
		}
		return s.CheckRelOwner(ctx, r.Table.ID, planner.RelationWord(r.Table, nil), name)
	}
	schemaOwner := func(name string) error {
		sch, ok := meta.SchemaByName(name)
		if !ok {
			return nil
		}
		return s.checkSchemaOwner(ctx, sch)
	}
	switch x := n.Node.(type) {
	case *pg.Node_CreateSeqStmt:
		// sequences have no owner in lakepg, but creating one needs CREATE
		if rv := x.CreateSeqStmt.Sequence; rv != nil {
			if sch, err := s.TargetSchema(meta, rv.Schemaname, rv.Location); err == nil {
				return "", false, s.checkSchemaPriv(ctx, sch, 'C')
			}
		}
	case *pg.Node_DropStmt:
		st := x.DropStmt
		for _, o := range st.Objects {
			switch st.RemoveType {
			case pg.ObjectType_OBJECT_TABLE, pg.ObjectType_OBJECT_VIEW, pg.ObjectType_OBJECT_MATVIEW:
				names := planner.StrNodes(o.GetList().GetItems())
				if len(names) > 0 {
					if err := relOwner(qualifier(names), names[len(names)-1]); err != nil {
						return "", false, err
					}
				}
			case pg.ObjectType_OBJECT_SCHEMA:
				if err := schemaOwner(o.GetString_().GetSval()); err != nil {
					return "", false, err
				}
			}
		}
	case *pg.Node_AlterTableStmt:
		st := x.AlterTableStmt
		rv := st.Relation
		if rv == nil {
			return "", false, nil
		}
		allOwner := len(st.Cmds) > 0
		for _, cmd := range st.Cmds {
			allOwner = allOwner && cmd.GetAlterTableCmd().GetSubtype() == pg.AlterTableType_AT_ChangeOwner
		}
		if !allOwner {
			return "", false, relOwner(rv.Schemaname, rv.Relname)
		}
		r, err := s.ResolveRelation(meta, rv.Schemaname, rv.Relname, rv.Location)
		if err != nil {
			if st.MissingOk {
				s.Noticef("relation \"%s\" does not exist, skipping", rv.Relname)
				return "ALTER TABLE", true, nil
			}
			return "", true, err
		}
		id, word := int64(0), planner.RelationWord(r.Table, r.View)
		if r.View != nil {
			id = r.View.ID
		} else {
			id = r.Table.ID
		}
		ps, err := s.privileges(ctx)
		if err != nil {
			return "", true, err
		}
		op := ps.relPriv(id)
		newOwner := ""
		for _, cmd := range st.Cmds {
			if newOwner, err = s.newOwnerName(ctx, cmd.GetAlterTableCmd().Newowner, op.owner, word, rv.Relname); err != nil {
				return "", true, err
			}
		}
		tag := "ALTER TABLE"
		if st.Objtype == pg.ObjectType_OBJECT_VIEW {
			tag = "ALTER VIEW"
		} else if st.Objtype == pg.ObjectType_OBJECT_MATVIEW {
			tag = "ALTER MATERIALIZED VIEW"
		}
		a := changedOwner(op, s.ownerName(op.owner), newOwner)
		return tag, true, s.putPrivilege(ctx, c, catalog.Privilege{Kind: privRelation, ObjectID: id, Owner: newOwner, ACL: a})
	case *pg.Node_RenameStmt:
		st := x.RenameStmt
		switch st.RenameType {
		case pg.ObjectType_OBJECT_SCHEMA:
			return "", false, schemaOwner(st.Subname)
		case pg.ObjectType_OBJECT_TABLE, pg.ObjectType_OBJECT_VIEW, pg.ObjectType_OBJECT_MATVIEW, pg.ObjectType_OBJECT_COLUMN:
			rv := st.Relation
			if rv == nil {
				break
			}
			if err := relOwner(rv.Schemaname, rv.Relname); err != nil || st.RenameType == pg.ObjectType_OBJECT_COLUMN {
				return "", false, err
			}
			// renaming a relation needs CREATE on its schema too
			if r, err := s.ResolveRelation(meta, rv.Schemaname, rv.Relname, -1); err == nil && s.TempLookup(rv.Schemaname, rv.Relname) == nil {
				return "", false, s.checkSchemaPriv(ctx, r.Schema, 'C')
			}
		}
	case *pg.Node_CommentStmt:
		st := x.CommentStmt
		names := planner.StrNodes(st.Object.GetList().GetItems())
		switch st.Objtype {
		case pg.ObjectType_OBJECT_TABLE, pg.ObjectType_OBJECT_VIEW, pg.ObjectType_OBJECT_MATVIEW:
			if len(names) > 0 {
				return "", false, relOwner(qualifier(names), names[len(names)-1])
			}
		case pg.ObjectType_OBJECT_COLUMN:
			if len(names) >= 2 {
				return "", false, relOwner(qualifier(names[:len(names)-1]), names[len(names)-2])
			}
		}
	}
	return "", false, nil
}

// SetRole runs SET/RESET ROLE and SET/RESET SESSION AUTHORIZATION; ok is
// false for other settings.
func (s *State) SetRole(v *pg.VariableSetStmt) (res string, ok bool, err error) {
	name := strings.ToLower(v.Name)
	if name != "role" && name != "session_authorization" {
		return "", false, nil
	}
	ctx := context.Background()
	val := ""
	if v.Kind == pg.VariableSetKind_VAR_SET_VALUE && len(v.Args) == 1 {
		if c := v.Args[0].GetAConst(); c != nil {
			val = c.GetSval().GetSval()
		}
	}
	reset := v.Kind == pg.VariableSetKind_VAR_RESET || v.Kind == pg.VariableSetKind_VAR_SET_DEFAULT
	tag := "SET"
	if v.Kind == pg.VariableSetKind_VAR_RESET {
		tag = "RESET"
	}
	if !s.priv.authSet {
		super, err := s.isSuperuser(ctx)
		if err != nil {
			return "", true, err
		}
		s.priv.authUser, s.priv.authSuper, s.priv.authSet = s.User, super, true
	}
	s.ResetPrivCache()
	if name == "session_authorization" {
		if !s.priv.authSuper {
			return "", true, pgerr.New(codeRolePrivilege, "permission denied to set session authorization")
		}
		target := s.priv.authUser
		if !reset {
			target = val
			if err := s.roleMustExist(ctx, target); err != nil {
				return "", true, asInvalidParameter(err)
			}
		}
		s.User, s.priv.role = target, ""
		return tag, true, nil
	}
	if reset || strings.EqualFold(val, "none") {
		s.priv.role = ""
		return tag, true, nil
	}
	if err := s.roleMustExist(ctx, val); err != nil {
		return "", true, asInvalidParameter(err)
	}
	may, err := s.actsAs(ctx, s.User, val) // a member may become the role
	if err != nil {
		return "", true, err
	}
	if !may {
		super, err := s.roleSuper(ctx, nil, s.User)
		if err != nil {
			return "", true, err
		}
		may = super
	}
	if !may {
		return "", true, pgerr.New(codeRolePrivilege, "permission denied to set role \"%s\"", val)
	}
	s.priv.role = val
	if val == s.User {
		s.priv.role = ""
	}
	return tag, true, nil
}

// asInvalidParameter gives a missing role SET's SQLSTATE, 22023.
func asInvalidParameter(err error) error {
	if e, ok := err.(*pgerr.Error); ok && e.Code == pgerr.UndefinedObject {
		return pgerr.New(pgerr.InvalidParameterValue, "%s", e.Message)
	}
	return err
}

// roleHasObjects reports whether role name owns a lake object or holds or
// granted a privilege on one, or has default privileges: DROP ROLE then
// answers 2BP01 as PostgreSQL does.
func (s *State) roleHasObjects(ctx context.Context, name string) (bool, error) {
	rows, err := s.DB.Privileges(ctx)
	if err != nil || len(rows) == 0 {
		return false, err
	}
	snap, err := s.ReadSnapshot(ctx)
	if err != nil {
		return false, err
	}
	meta, err := s.Metadata(ctx, snap)
	if err != nil {
		return false, err
	}
	for _, r := range rows {
		exists := false
		switch r.Kind {
		case privRelation:
			_, exists = meta.TableByID(r.ObjectID)
			exists = exists || viewIDExists(meta, r.ObjectID)
		case privSchema:
			_, exists = meta.SchemaByID(r.ObjectID)
		case privDefaultTable:
			exists = r.ACL != "" && r.Role == name
		}
		if !exists {
			continue
		}
		if r.Owner == name {
			return true, nil
		}
		for _, it := range parseACLText(r.ACL) {
			if it.grantee == name || it.grantor == name {
				return true, nil
			}
		}
	}
	return false, nil
}

func viewIDExists(meta *catalog.Metadata, id int64) bool {
	for i := range meta.Views {
		if meta.Views[i].ID == id {
			return true
		}
	}
	return false
}

// DiscardRoles is DISCARD ALL's SET SESSION AUTHORIZATION DEFAULT and
// RESET ROLE.
func (s *State) DiscardRoles() {
	if s.priv.authSet {
		s.User = s.priv.authUser
	}
	s.priv.role = ""
	s.ResetPrivCache()
}

// RoleSetting is SHOW role / session_authorization and their
// current_setting: the role SET ROLE chose ("none" without one), the
// session user.
func (s *State) RoleSetting(name string) (string, bool) {
	switch name {
	case "role":
		if s.priv.role == "" {
			return "none", true
		}
		return s.priv.role, true
	case "session_authorization":
		return s.User, true
	}
	return "", false
}
