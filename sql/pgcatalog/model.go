package pgcatalog

import (
	"strconv"
	"strings"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/pgerr"
)

// namespace is a pg_namespace row: built-in or a lake schema.
type namespace struct {
	oid   int64
	name  string
	owner int64
	xmin  int64  // see xmin.go
	acl   string // recorded by GRANT (privileges.go); "" for the default
}

// relation is a pg_class row: a lake table or a system relation.
type relation struct {
	oid  int64
	ns   *namespace
	name string
	kind string
	lake *catalog.Table    // nil for system relations
	view *catalog.View     // a lake view (kind "v", lake and sys nil)
	sys  *sysRel           // nil for lake tables, views and sequences
	seq  *catalog.Sequence // set for sequences (relkind 'S'), which have neither
	// viewCols are a lake view's columns, once asked for
	viewCols []attribute
	// temp: a temporary table (relpersistence 't'), its TOAST relation in
	// the session's pg_toast_temp_N (namespace toastNS)
	temp    bool
	toastNS int64
	c       *Context
	// metaPos is 1 + the table's index in the Context's Meta.Tables, 0 for
	// the other relations
	metaPos int32
}

// rowType is the OID of a lake table's row type (0 for system relations).
func (r *relation) rowType() int64 {
	if r.lake == nil {
		return 0
	}
	return rowTypeOID(r.oid)
}

func (r *relation) natts() int {
	if r.lake != nil {
		return len(r.lake.Columns)
	}
	if r.view != nil {
		return len(attributes(r))
	}
	if r.seq != nil {
		return len(sequenceColumns)
	}
	return len(r.sys.t.Cols)
}

// model is the lake and the system relations as PostgreSQL objects.
type model struct {
	c     *Context
	nss   []*namespace
	rels  []*relation
	nsOID map[int64]*namespace
}

var builtinNamespaces = []namespace{
	{catalogNamespace, "pg_catalog", superuserOID, bootstrapXID, ""},
	{toastNamespace, "pg_toast", superuserOID, bootstrapXID, ""},
	{infoNamespace, "information_schema", superuserOID, bootstrapXID, ""},
}

// newModel is the model of c, built at the first call and kept on c: a
// statement that reads pg_class, pg_namespace and pg_table_is_visible
// shares one model, not three of 10,000 relations each in a big lake.
// Concurrent first calls may each build one; one of them is kept.
func newModel(c *Context) *model {
	if m := c.built.Load(); m != nil {
		return m
	}
	m := buildModel(c)
	if !c.built.CompareAndSwap(nil, m) {
		return c.built.Load()
	}
	return m
}

func buildModel(c *Context) *model {
	m := &model{c: c, nsOID: map[int64]*namespace{}}
	// the relations in one array: a lake of 10,000 tables allocated
	// each on its own
	n := len(sysRels)
	if c.Meta != nil {
		n += len(c.Meta.Tables) + len(c.Meta.Views)
	}
	if c.Temp != nil {
		n += len(c.Temp.Tables)
	}
	arr := make([]relation, 0, n)
	add := func(r relation) {
		if len(arr) == cap(arr) {
			arr = make([]relation, 0, 16) // more than counted (sequences)
		}
		arr = append(arr, r)
		m.rels = append(m.rels, &arr[len(arr)-1])
	}
	m.rels = make([]*relation, 0, n)
	byName := map[string]*namespace{}
	for i := range builtinNamespaces {
		ns := builtinNamespaces[i]
		m.addNS(&ns, byName)
	}
	lakeNS := map[int64]*namespace{}
	if c.Meta != nil {
		for _, s := range c.Meta.Schemas {
			if _, clash := byName[s.Name]; clash {
				continue // a lake schema cannot shadow pg_catalog or information_schema
			}
			owner := int64(superuserOID)
			if s.Name == "public" {
				owner = dbOwnerRoleOID
			}
			ns := &namespace{oid: NamespaceOID(s.ID), name: s.Name, owner: owner, xmin: SnapshotXID(s.BeginSnapshot)}
			if c.ACL != nil {
				if o, acl, ok := c.ACL("n", s.ID); ok {
					ns.owner, ns.acl = OwnerOID(c, o), acl
				}
			}
			m.addNS(ns, byName)
			lakeNS[s.ID] = ns
		}
	}
	if t := c.Temp; t != nil {
		tns := &namespace{oid: t.OID, name: t.Name, owner: superuserOID, xmin: bootstrapXID}
		m.addNS(tns, byName)
		m.addNS(&namespace{oid: t.ToastOID, name: t.ToastName, owner: superuserOID, xmin: bootstrapXID}, byName)
		for _, tbl := range t.Tables {
			add(relation{oid: RelationOID(tbl.ID), ns: tns, name: tbl.Name, kind: "r", lake: tbl, temp: true, toastNS: t.ToastOID})
		}
	}
	for _, r := range sysRels {
		ns := byName[r.schema]
		add(relation{oid: r.oid, ns: ns, name: r.t.Name, kind: r.kind, sys: r})
	}
	if c.Meta != nil {
		for i := range c.Meta.Tables {
			t := &c.Meta.Tables[i]
			ns, ok := lakeNS[t.SchemaID]
			if !ok {
				continue
			}
			kind := "r"
			if t.MatView != "" {
				kind = "m" // a materialized view's table
			}
			add(relation{oid: RelationOID(t.ID), ns: ns, name: t.Name, kind: kind, lake: t, metaPos: int32(i + 1)})
		}
		for i := range c.Meta.Views {
			v := &c.Meta.Views[i]
			if ns, ok := lakeNS[v.SchemaID]; ok {
				add(relation{oid: RelationOID(v.ID), ns: ns, name: v.Name, kind: "v", view: v, c: c})
			}
		}
		seqs := c.sequences()
		for i := range seqs {
			q := &seqs[i]
			if ns, ok := lakeNS[q.SchemaID]; ok {
				add(relation{oid: SequenceOID(q.ID), ns: ns, name: q.Name, kind: "S", seq: q})
			}
		}
	}
	return m
}

func (m *model) addNS(ns *namespace, byName map[string]*namespace) {
	m.nss = append(m.nss, ns)
	m.nsOID[ns.oid] = ns
	byName[ns.name] = ns
}

func (m *model) nsByName(name string) *namespace {
	for _, ns := range m.nss {
		if ns.name == name {
			return ns
		}
	}
	return nil
}

// path is the effective search path: pg_catalog first unless the path
// names it, then each existing schema of the session's search_path.
func (m *model) path() []*namespace {
	var out []*namespace
	named, tempNamed := false, false
	for _, s := range m.c.SearchPath {
		if s == "pg_catalog" {
			named = true
		}
		if s == "pg_temp" {
			tempNamed = true
		}
	}
	// the session's temporary schema comes first unless the path names it
	if t := m.c.Temp; t != nil && !tempNamed {
		out = append(out, m.nsOID[t.OID])
	}
	if !named {
		out = append(out, m.nsOID[catalogNamespace])
	}
	for _, s := range m.c.SearchPath {
		if s == "pg_temp" && m.c.Temp != nil {
			s = m.c.Temp.Name
		}
		if ns := m.nsByName(s); ns != nil {
			out = append(out, ns)
		}
	}
	return out
}

// visibility maps every relation OID to whether an unqualified name finds
// it (pg_table_is_visible).
func (m *model) visibility() map[int64]bool {
	rank := make(map[int64]int, len(m.nss)) // namespace OID → position along the path
	for i, ns := range m.path() {
		if _, seen := rank[ns.oid]; !seen {
			rank[ns.oid] = i
		}
	}
	// relation name → the OID found first along the path, and its position
	type found struct {
		oid  int64
		rank int
	}
	first := make(map[string]found, len(m.rels))
	for _, r := range m.rels {
		k, on := rank[r.ns.oid]
		if !on {
			continue
		}
		if f, seen := first[r.name]; !seen || k < f.rank {
			first[r.name] = found{r.oid, k}
		}
	}
	out := make(map[int64]bool, len(m.rels))
	for _, r := range m.rels {
		out[r.oid] = first[r.name].oid == r.oid
	}
	return out
}

func (m *model) roleName(oid int64) (string, bool) {
	switch oid {
	case superuserOID:
		return m.c.User, true
	case dbOwnerRoleOID:
		return "pg_database_owner", true
	}
	return storedRoleName(m.c, oid)
}

// RelationVisibility maps the OID of every relation the catalog shows to
// pg_table_is_visible's answer; an OID not in the map is no relation
// (pg_table_is_visible returns NULL for it).
func RelationVisibility(c *Context) map[int64]bool { return newModel(c).visibility() }

// UserName is pg_get_userbyid: the role's name, or "unknown (OID=n)".
func UserName(c *Context, oid int64) string {
	if n, ok := (&model{c: c}).roleName(oid); ok {
		return n
	}
	return "unknown (OID=" + itoa(oid) + ")"
}

// splitQualified splits a possibly qualified, possibly quoted name as
// PostgreSQL's regclass input does (unquoted parts fold to lower case).
func splitQualified(s string) ([]string, bool) {
	var parts []string
	var cur strings.Builder
	inQuote := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case inQuote && c == '"' && i+1 < len(s) && s[i+1] == '"':
			cur.WriteByte('"')
			i++
		case c == '"':
			inQuote = !inQuote
		case !inQuote && c == '.':
			parts = append(parts, cur.String())
			cur.Reset()
		case inQuote:
			cur.WriteByte(c)
		case c == ' ' || c == '\t':
			// surrounding blanks are ignored
		default:
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			cur.WriteByte(c)
		}
	}
	if inQuote {
		return nil, false
	}
	parts = append(parts, cur.String())
	for _, p := range parts {
		if p == "" {
			return nil, false
		}
	}
	return parts, true
}

// SQLSTATEs pgerr does not name.
const (
	codeInvalidName       = "42602"
	codeAmbiguousFunction = "42725"
)

func undefinedRelation(name string) error {
	return pgerr.New(pgerr.UndefinedTable, "relation \"%s\" does not exist", name)
}

// RelationOIDByName is regclass input: a relation name, qualified or
// found along the search path (or an OID in digits), to its OID.
func RelationOIDByName(c *Context, name string) (int64, error) {
	if oid, ok := parseOID(name); ok {
		return oid, nil
	}
	parts, ok := splitQualified(name)
	if !ok || len(parts) > 3 {
		return 0, pgerr.New(codeInvalidName, "invalid name syntax")
	}
	m := newModel(c)
	rel := parts[len(parts)-1]
	if len(parts) >= 2 {
		ns := m.nsByName(parts[len(parts)-2])
		if ns == nil {
			return 0, pgerr.New(pgerr.InvalidSchemaName, "schema \"%s\" does not exist", parts[len(parts)-2])
		}
		for _, r := range m.rels {
			if r.ns == ns && r.name == rel {
				return r.oid, nil
			}
		}
		return 0, undefinedRelation(name)
	}
	for _, ns := range m.path() {
		for _, r := range m.rels {
			if r.ns == ns && r.name == rel {
				return r.oid, nil
			}
		}
	}
	return 0, undefinedRelation(name)
}

// RelationNames maps every relation's OID to its regclass output: the
// name, qualified when it is not visible, quoted where needed.
func RelationNames(c *Context) map[int64]string {
	m := newModel(c)
	vis := m.visibility()
	out := make(map[int64]string, len(m.rels))
	for _, r := range m.rels {
		if vis[r.oid] {
			out[r.oid] = QuoteIdent(r.name)
		} else {
			out[r.oid] = QuoteIdent(r.ns.name) + "." + QuoteIdent(r.name)
		}
	}
	return out
}

// RelationName is regclass output for one OID (its digits when unknown).
func RelationName(c *Context, oid int64) string {
	if n, ok := RelationNames(c)[oid]; ok {
		return n
	}
	return itoa(oid)
}

// NamespaceOIDByName is regnamespace input.
func NamespaceOIDByName(c *Context, name string) (int64, error) {
	if oid, ok := parseOID(name); ok {
		return oid, nil
	}
	parts, ok := splitQualified(name)
	if !ok || len(parts) != 1 {
		return 0, pgerr.New(codeInvalidName, "invalid name syntax")
	}
	if ns := newModel(c).nsByName(parts[0]); ns != nil {
		return ns.oid, nil
	}
	return 0, pgerr.New(pgerr.InvalidSchemaName, "schema \"%s\" does not exist", parts[0])
}

// NamespaceName is regnamespace output.
func NamespaceName(c *Context, oid int64) string {
	if ns, ok := newModel(c).nsOID[oid]; ok {
		return QuoteIdent(ns.name)
	}
	return itoa(oid)
}

// TypeOIDByName is regtype input.
func TypeOIDByName(name string) (int64, error) {
	if oid, ok := parseOID(name); ok {
		return oid, nil
	}
	if oid, ok := typeOIDByName(name); ok {
		return oid, nil
	}
	return 0, pgerr.New(pgerr.UndefinedObject, "type \"%s\" does not exist", name)
}

// TypeName is regtype output: format_type without a typmod.
func TypeName(oid int64) string {
	if _, ok := typeByOID[oid]; !ok {
		return itoa(oid)
	}
	return FormatType(oid, -1, false)
}

// ProcOIDByName is regproc input: a function name that must be unique.
func ProcOIDByName(name string) (int64, error) {
	if oid, ok := parseOID(name); ok {
		return oid, nil
	}
	n := strings.TrimPrefix(strings.ToLower(strings.TrimSpace(name)), "pg_catalog.")
	var found int64
	count := 0
	for i := range builtinProcs {
		if builtinProcs[i].name == n {
			found = builtinProcs[i].oid
			count++
		}
	}
	switch count {
	case 0:
		return 0, pgerr.New(pgerr.UndefinedFunction, "function \"%s\" does not exist", name)
	case 1:
		return found, nil
	}
	return 0, pgerr.New(codeAmbiguousFunction, "more than one function named \"%s\"", name)
}

// ProcName is regproc output; "-" for OID 0, as PostgreSQL prints it.
func ProcName(oid int64) string {
	if oid == 0 {
		return "-"
	}
	if p, ok := procByOID[oid]; ok {
		return QuoteIdent(p.name)
	}
	return itoa(oid)
}

// RoleOIDByName is regrole input.
func RoleOIDByName(c *Context, name string) (int64, error) {
	if oid, ok := parseOID(name); ok {
		return oid, nil
	}
	parts, ok := splitQualified(name)
	if ok && len(parts) == 1 {
		switch parts[0] {
		case c.User:
			return superuserOID, nil
		case "pg_database_owner":
			return dbOwnerRoleOID, nil
		}
		if oid, ok := storedRoleOID(c, parts[0]); ok {
			return oid, nil
		}
	}
	return 0, pgerr.New(pgerr.UndefinedObject, "role \"%s\" does not exist", name)
}

func parseOID(s string) (int64, bool) {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 10 {
		return 0, false
	}
	var n int64
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int64(s[i]-'0')
	}
	return n, n <= 1<<32-1
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// ViewDefinition is a lake view's query as pg_get_viewdef and pg_views show
// it: the stored text, ending in a semicolon as PostgreSQL prints it.
func ViewDefinition(v *catalog.View) string {
	return " " + strings.TrimSuffix(strings.TrimSpace(v.SQL), ";") + ";"
}

// ViewByOID finds the lake view with pg_class OID oid.
func ViewByOID(c *Context, oid int64) (*catalog.View, bool) {
	if c.Meta == nil {
		return nil, false
	}
	for i := range c.Meta.Views {
		if RelationOID(c.Meta.Views[i].ID) == oid {
			return &c.Meta.Views[i], true
		}
	}
	return nil, false
}
