package privileges

import (
	"context"
	"strings"

	"github.com/lakepg/lakepg/sql/planner"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/snapshot"
)

// Privileges as PostgreSQL 15 has them: owners, ACLs of tables, views and
// schemas, default privileges, checked for roles that are not superusers.
// Rows live in lakepg_privilege (catalog/privileges.go), written with the
// statement's commit (snapshot.Commit.AddExtra), read once per statement.
// An object with no row is owned by the bootstrap superuser ("" here) and
// keeps its owner's default ACL; schemas public and main grant USAGE to
// PUBLIC. ACLs are kept in aclitem[] text with role names, as
// pg_class.relacl shows them.

// Kinds of lakepg_privilege rows.
const (
	privRelation     = "r"  // table, view, materialized view
	privSchema       = "n"  // schema
	privDefaultTable = "dr" // default privileges of new tables, per role and schema (0: all)
)

// Letters of the privileges each kind of object takes, in aclitem order.
const (
	tablePrivLetters  = "arwdDxt"
	schemaPrivLetters = "UC"
)

// databaseOwner owns schema public as in PostgreSQL 15.
const databaseOwner = "pg_database_owner"

// bootstrapOwner stands for the bootstrap superuser in the default ACL of
// an object without a recorded owner ("" would be PUBLIC).
const bootstrapOwner = "\x00"

func ownerKey(owner string) string {
	if owner == "" {
		return bootstrapOwner
	}
	return owner
}

// privSession is a session's privilege state (a field of Session).
type privSession struct {
	role     string // SET ROLE; "" is none (the session user acts)
	authUser string // the user that logged in, once SET SESSION AUTHORIZATION changed s.user
	authSet  bool
	// authSuper: the logged-in user is a superuser (SET SESSION AUTHORIZATION)
	authSuper bool
	cache     *privState      // what the running statement read
	super     map[string]bool // which roles are superusers, as the statement read
	// pending are rows the open block wrote, for its own later statements
	pending    []catalog.Privilege
	pendingTxn any
	// asRole: the owner of the view being expanded, whose privileges its
	// tables are checked with; "" is the current role
	asRole     string
	inView     bool
	truncating bool // package sql's truncate.go runs modify for TRUNCATE
	// replacedView: the view CREATE OR REPLACE VIEW replaces, whose owner
	// and grants the new one takes
	replacedView int64
	// members are the role memberships the statement read (role_members.go)
	members []catalog.RoleMember
}

// privState is what a statement's checks read: every row, and which roles
// are superusers.
type privState struct {
	rows map[privKey]catalog.Privilege
	// members are the role memberships (role_members.go)
	members []catalog.RoleMember
}

type privKey struct {
	kind string
	id   int64
	role string
}

// CurrentRole is current_user: the role SET ROLE chose, else the session
// user.
func (s *State) CurrentRole() string {
	if s.priv.role != "" {
		return s.priv.role
	}
	return s.User
}

// ResetPrivCache forgets what the last statement read (session.go calls it
// when a statement starts).
func (s *State) ResetPrivCache() { s.priv.cache, s.priv.super, s.priv.members = nil, nil, nil }

// privileges reads lakepg_privilege once per statement, with the open
// block's own rows over it.
func (s *State) privileges(ctx context.Context) (*privState, error) {
	if s.priv.cache != nil {
		return s.priv.cache, nil
	}
	rows, err := s.DB.Privileges(ctx)
	if err != nil {
		return nil, err
	}
	members, err := s.roleMembers(ctx) // role_members.go
	if err != nil {
		return nil, err
	}
	st := &privState{rows: map[privKey]catalog.Privilege{}, members: members}
	for _, r := range rows {
		st.rows[privKey{r.Kind, r.ObjectID, r.Role}] = r
	}
	if s.priv.pendingTxn != nil && s.priv.pendingTxn == s.Txn() {
		for _, r := range s.priv.pending {
			st.rows[privKey{r.Kind, r.ObjectID, r.Role}] = r
		}
	}
	s.priv.cache = st
	return st, nil
}

// roleSuper reports whether role name is a superuser (read once per
// statement; st is unused).
func (s *State) roleSuper(ctx context.Context, st *privState, name string) (bool, error) {
	if b, ok := s.priv.super[name]; ok {
		return b, nil
	}
	r, ok, err := s.DB.Role(ctx, name)
	if err != nil {
		return false, err
	}
	// a name that is no role is the bootstrap superuser (""), or a login
	// trusted while no role had a password, which is one too
	b := r.Superuser || !ok
	if s.priv.super == nil {
		s.priv.super = map[string]bool{}
	}
	s.priv.super[name] = b
	return b, nil
}

// checkingRole is the role privileges are checked for: the owner of the
// view being expanded, else current_user.
func (s *State) checkingRole() string {
	if s.priv.inView {
		return s.priv.asRole
	}
	return s.CurrentRole()
}

// aclItem is one entry of an ACL: grantee ("" is PUBLIC) holds privs
// (letters) from grantor, grants the ones it may pass on.
type aclItem struct {
	grantee, grantor string
	privs, grants    string
}

// acl is an object's ACL in PostgreSQL's order.
type acl []aclItem

// formatACL writes an ACL as aclitem[] text: {alice=arw*/alice,=r/alice}.
func formatACL(a acl) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, it := range a {
		if i > 0 {
			b.WriteByte(',')
		}
		item := aclRoleText(it.grantee) + "=" + privText(it.privs, it.grants) + "/" + aclRoleText(it.grantor)
		if strings.ContainsAny(item, `{}," \`) {
			item = `"` + strings.ReplaceAll(strings.ReplaceAll(item, `\`, `\\`), `"`, `\"`) + `"`
		}
		b.WriteString(item)
	}
	b.WriteByte('}')
	return b.String()
}

func privText(privs, grants string) string {
	var b strings.Builder
	for _, p := range planner.AclPrivileges {
		if strings.IndexByte(privs, p.Letter) >= 0 {
			b.WriteByte(p.Letter)
			if strings.IndexByte(grants, p.Letter) >= 0 {
				b.WriteByte('*')
			}
		}
	}
	return b.String()
}

// aclRoleText quotes a role name as aclitem_out does.
func aclRoleText(name string) string {
	plain := true
	for _, r := range name {
		plain = plain && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_')
	}
	if plain {
		return name
	}
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// parseACLText reads what formatACL wrote.
func parseACLText(text string) acl {
	text = strings.TrimSpace(text)
	text = strings.TrimPrefix(strings.TrimSuffix(text, "}"), "{")
	var out acl
	for _, item := range splitArrayItems(text) {
		it, ok := parseACLItem(item)
		if ok {
			out = append(out, it)
		}
	}
	return out
}

// splitArrayItems splits the inside of an array literal at commas outside
// double quotes, unquoting the items.
func splitArrayItems(text string) []string {
	var out []string
	var cur strings.Builder
	inQ := false
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case inQ && c == '\\' && i+1 < len(text):
			i++
			cur.WriteByte(text[i])
		case c == '"':
			inQ = !inQ
		case c == ',' && !inQ:
			out = append(out, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(c)
		}
	}
	if cur.Len() > 0 || len(out) > 0 {
		out = append(out, cur.String())
	}
	return out
}

// parseACLItem reads grantee=privs/grantor, names quoted as aclRoleText
// quotes them.
func parseACLItem(s string) (aclItem, bool) {
	grantee, rest, ok := cutRole(s, '=')
	if !ok {
		return aclItem{}, false
	}
	slash := strings.IndexByte(rest, '/')
	if slash < 0 {
		return aclItem{}, false
	}
	letters := rest[:slash]
	grantor, _, _ := cutRole(rest[slash+1:], 0)
	it := aclItem{grantee: grantee, grantor: grantor}
	for i := 0; i < len(letters); i++ {
		if letters[i] == '*' {
			continue
		}
		it.privs += string(letters[i])
		if i+1 < len(letters) && letters[i+1] == '*' {
			it.grants += string(letters[i])
		}
	}
	return it, true
}

// cutRole reads a possibly quoted role name up to sep (0: the end).
func cutRole(s string, sep byte) (name, rest string, ok bool) {
	if strings.HasPrefix(s, `"`) {
		var b strings.Builder
		i := 1
		for ; i < len(s); i++ {
			if s[i] == '"' {
				if i+1 < len(s) && s[i+1] == '"' {
					b.WriteByte('"')
					i++
					continue
				}
				break
			}
			b.WriteByte(s[i])
		}
		rest = s[min(i+1, len(s)):]
		if sep != 0 {
			if !strings.HasPrefix(rest, string(sep)) {
				return "", "", false
			}
			rest = rest[1:]
		}
		return b.String(), rest, true
	}
	if sep == 0 {
		return s, "", true
	}
	i := strings.IndexByte(s, sep)
	if i < 0 {
		return "", "", false
	}
	return s[:i], s[i+1:], true
}

// objPriv is what the checks know of one object: its owner and ACL.
type objPriv struct {
	owner string // "" is the bootstrap superuser
	acl   acl
	set   bool // the ACL was recorded (not the owner's default)
}

// relPriv is the owner and ACL of table or view id.
func (st *privState) relPriv(id int64) objPriv {
	r, ok := st.rows[privKey{privRelation, id, ""}]
	o := objPriv{owner: r.Owner}
	if ok && r.ACL != "" {
		o.acl, o.set = parseACLText(r.ACL), true
	} else {
		o.acl = acl{{grantee: ownerKey(o.owner), grantor: ownerKey(o.owner), privs: tablePrivLetters}}
	}
	return o
}

// schemaPriv is the owner and ACL of schema sch.
func (st *privState) schemaPriv(sch *catalog.Schema) objPriv {
	r, ok := st.rows[privKey{privSchema, sch.ID, ""}]
	o := objPriv{owner: r.Owner}
	if !ok && sch.Name == "public" {
		o.owner = databaseOwner
	}
	if ok && r.ACL != "" {
		o.acl, o.set = parseACLText(r.ACL), true
		return o
	}
	o.acl = acl{{grantee: ownerKey(o.owner), grantor: ownerKey(o.owner), privs: schemaPrivLetters}}
	if sch.Name == "public" || sch.Name == "main" {
		o.acl = append(o.acl, aclItem{grantee: "", grantor: ownerKey(o.owner), privs: "U"})
	}
	return o
}

// has reports whether role holds privilege letter in a (directly or
// through PUBLIC); grant: with grant option.
func (a acl) has(role string, letter byte, grant bool) bool {
	for _, it := range a {
		if it.grantee != role && it.grantee != "" {
			continue
		}
		if grant && it.grantee == "" {
			continue
		}
		set := it.privs
		if grant {
			set = it.grants
		}
		if strings.IndexByte(set, letter) >= 0 {
			return true
		}
	}
	return false
}

// holds reports whether role holds privilege letter in a: itself, through
// PUBLIC, or through a role it is a member of.
func (st *privState) holds(a acl, role string, letter byte, grant bool) bool {
	if a.has(role, letter, grant) {
		return true
	}
	for _, it := range a {
		if it.grantee == "" || it.grantee == role {
			continue
		}
		set := it.privs
		if grant {
			set = it.grants
		}
		if strings.IndexByte(set, letter) >= 0 && inherits(st.members, role, it.grantee) {
			return true
		}
	}
	return false
}

func errPermission(word, name string) error {
	return pgerr.New(codeRolePrivilege, "permission denied for %s %s", word, name)
}

func errNotOwner(word, name string) error {
	return pgerr.New(codeRolePrivilege, "must be owner of %s %s", word, name)
}

// CheckRelation checks that the checking role may use schema sch and has
// every privilege of letters on relation id (word and name for the
// message). Superusers pass.
func (s *State) CheckRelation(ctx context.Context, sch *catalog.Schema, id int64, word, name, letters string) error {
	role := s.checkingRole()
	if super, err := s.roleSuper(ctx, nil, role); err != nil || super {
		return err // a superuser's statement reads no privileges
	}
	st, err := s.privileges(ctx)
	if err != nil {
		return err
	}
	if sch != nil && !st.holds(st.schemaPriv(sch).acl, role, 'U', false) {
		return errPermission("schema", sch.Name)
	}
	rp := st.relPriv(id)
	for i := 0; i < len(letters); i++ {
		if !st.holds(rp.acl, role, letters[i], false) {
			return errPermission(word, name)
		}
	}
	return nil
}

// checkSchemaPriv checks one privilege (U or C) on a schema.
func (s *State) checkSchemaPriv(ctx context.Context, sch *catalog.Schema, letter byte) error {
	role := s.CurrentRole()
	if super, err := s.roleSuper(ctx, nil, role); err != nil || super {
		return err
	}
	st, err := s.privileges(ctx)
	if err != nil {
		return err
	}
	if !st.holds(st.schemaPriv(sch).acl, role, letter, false) {
		return errPermission("schema", sch.Name)
	}
	return nil
}

// SchemaUsable reports whether unqualified names may resolve in sch: as in
// PostgreSQL, the search path leaves out schemas the role has no USAGE on.
// A failure to read the privileges keeps the schema (the statement's own
// check reports it).
func (s *State) SchemaUsable(sch *catalog.Schema) bool {
	ctx := context.Background()
	if s.StmtValues() != nil {
		ctx = s.StmtValues()
	}
	role := s.checkingRole()
	if super, err := s.roleSuper(ctx, nil, role); err != nil || super {
		return true
	}
	st, err := s.privileges(ctx)
	return err != nil || st.holds(st.schemaPriv(sch).acl, role, 'U', false)
}

// isOwner reports whether the current role owns an object (or is a
// superuser).
func (s *State) isOwner(ctx context.Context, owner string) (bool, error) {
	role := s.CurrentRole()
	if super, err := s.roleSuper(ctx, nil, role); err != nil || super {
		return super, err
	}
	if owner == "" {
		return false, nil
	}
	return s.actsAs(ctx, role, owner) // a member of the owning role owns too
}

// CheckRelOwner: 42501 must be owner of … unless the current role owns
// relation id.
func (s *State) CheckRelOwner(ctx context.Context, id int64, word, name string) error {
	if super, err := s.roleSuper(ctx, nil, s.CurrentRole()); err != nil || super {
		return err
	}
	st, err := s.privileges(ctx)
	if err != nil {
		return err
	}
	ok, err := s.isOwner(ctx, st.relPriv(id).owner)
	if err == nil && !ok {
		err = errNotOwner(word, name)
	}
	return err
}

// checkSchemaOwner is CheckRelOwner for a schema.
func (s *State) checkSchemaOwner(ctx context.Context, sch *catalog.Schema) error {
	if super, err := s.roleSuper(ctx, nil, s.CurrentRole()); err != nil || super {
		return err
	}
	st, err := s.privileges(ctx)
	if err != nil {
		return err
	}
	ok, err := s.isOwner(ctx, st.schemaPriv(sch).owner)
	if err == nil && !ok {
		err = errNotOwner("schema", sch.Name)
	}
	return err
}

// putPrivilege writes a row with the statement's commit, and makes it
// visible to the open block's later statements.
func (s *State) putPrivilege(ctx context.Context, c *snapshot.Commit, p catalog.Privilege) error {
	return s.putPrivilegeAgain(ctx, c, p, nil)
}

// putPrivilegeAgain is putPrivilege for a change the commit makes again
// to the row as its catalog transaction reads it (again, when not nil):
// a GRANT committed meanwhile by another session or server is kept, and a
// concurrent change of the same row makes the commit retry.
func (s *State) putPrivilegeAgain(ctx context.Context, c *snapshot.Commit, p catalog.Privilege,
	again func(cur catalog.Privilege, found bool) (catalog.Privilege, error)) error {
	if err := s.DB.EnsurePrivilegeTable(ctx); err != nil {
		return err
	}
	if s.InTx() {
		t, err := s.TxnState(ctx)
		if err != nil {
			return err
		}
		if s.priv.pendingTxn != t {
			s.priv.pending, s.priv.pendingTxn = nil, t
		}
		s.priv.pending = append(s.priv.pending, p)
	}
	if s.priv.cache != nil {
		s.priv.cache.rows[privKey{p.Kind, p.ObjectID, p.Role}] = p
	}
	c.AddExtra(func(ctx context.Context, tx *catalog.Tx, finalID func(int64) int64) error {
		q := p
		if q.ObjectID != 0 {
			q.ObjectID = finalID(q.ObjectID)
		}
		if again != nil {
			cur, found, err := tx.Privilege(ctx, q.Kind, q.ObjectID, q.Role)
			if err != nil {
				return err
			}
			if !found {
				cur = catalog.Privilege{Kind: q.Kind, ObjectID: q.ObjectID, Role: q.Role}
			}
			id := q.ObjectID
			if q, err = again(cur, found); err != nil {
				return err
			}
			q.ObjectID = id
		}
		return tx.SetPrivilege(ctx, q)
	})
	return nil
}

// recordOwners gives the schemas, tables and views a statement created
// their owner (the current role) and default privileges, after checking
// that the role may create in their schemas. before are the ids the commit
// created before the statement (earlier statements of a block).
func (s *State) recordOwners(ctx context.Context, c *snapshot.Commit, meta *catalog.Metadata, before map[int64]bool) error {
	schemas, tables, views := c.NewObjects()
	var newSchemas, newTables, newViews []int64
	for _, id := range schemas {
		if !before[id] {
			newSchemas = append(newSchemas, id)
		}
	}
	for _, id := range tables {
		if !before[id] {
			newTables = append(newTables, id)
		}
	}
	for _, id := range views {
		if !before[id] {
			newViews = append(newViews, id)
		}
	}
	if len(newSchemas)+len(newTables)+len(newViews) == 0 {
		return nil
	}
	role := s.CurrentRole()
	super, err := s.roleSuper(ctx, nil, role)
	if err != nil {
		return err
	}
	owner := role
	if super {
		if r, ok, err := s.DB.Role(ctx, role); err != nil {
			return err
		} else if !ok || r.Name == "" {
			owner = "" // a trusted login that is no role: the bootstrap superuser
		}
	}
	if len(newSchemas) > 0 && !super {
		e := pgerr.New(codeRolePrivilege, "permission denied for database %s", s.Database)
		e.Hint = "Only superusers create schemas in lakepg."
		return e
	}
	if owner == "" && s.priv.replacedView == 0 {
		return nil // the bootstrap superuser's objects need no row
	}
	st, err := s.privileges(ctx)
	if err != nil {
		return err
	}
	view := c.Overlay(meta)
	for _, id := range newSchemas {
		if owner == "" {
			continue
		}
		if err := s.putPrivilege(ctx, c, catalog.Privilege{Kind: privSchema, ObjectID: id, Owner: owner}); err != nil {
			return err
		}
	}
	rel := func(id, schemaID int64, name string) error {
		if sch, ok := view.SchemaByID(schemaID); ok && !super {
			if !st.holds(st.schemaPriv(sch).acl, role, 'C', false) {
				return errPermission("schema", sch.Name)
			}
		}
		a := s.defaultTableACL(st, owner, schemaID)
		if owner == "" && a == "" {
			return nil
		}
		return s.putPrivilege(ctx, c, catalog.Privilege{Kind: privRelation, ObjectID: id, Owner: owner, ACL: a})
	}
	for _, id := range newTables {
		if t, ok := view.TableByID(id); ok {
			if err := rel(id, t.SchemaID, t.Name); err != nil {
				return err
			}
		}
	}
	replaced := s.priv.replacedView
	s.priv.replacedView = 0
	for _, id := range newViews {
		if old, ok := st.rows[privKey{privRelation, replaced, ""}]; ok && replaced != 0 && len(newViews) == 1 {
			old.ObjectID = id
			if err := s.putPrivilege(ctx, c, old); err != nil {
				return err
			}
			continue
		}
		for i := range view.Views {
			if v := &view.Views[i]; v.ID == id {
				if err := rel(id, v.SchemaID, v.Name); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// objectIDSet is the set of ids a commit created so far.
func objectIDSet(c *snapshot.Commit) map[int64]bool {
	out := map[int64]bool{}
	a, b, v := c.NewObjects()
	for _, l := range [][]int64{a, b, v} {
		for _, id := range l {
			out[id] = true
		}
	}
	return out
}

// CommitRecordingOwners wraps a commit function so that what it creates
// gets its owner (ddl.go's commit calls it).
func (s *State) CommitRecordingOwners(ctx context.Context, fn func(c *snapshot.Commit, meta *catalog.Metadata) error) func(c *snapshot.Commit, meta *catalog.Metadata) error {
	return func(c *snapshot.Commit, meta *catalog.Metadata) error {
		before := objectIDSet(c)
		if err := fn(c, meta); err != nil {
			return err
		}
		return s.recordOwners(ctx, c, meta, before)
	}
}
