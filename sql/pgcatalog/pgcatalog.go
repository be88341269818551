// Package pgcatalog emulates PostgreSQL's system catalogs (pg_catalog) and
// information_schema over the lake's DuckLake metadata, so that drivers and
// BI tools that introspect a "PostgreSQL" find the lake's schemas, tables
// and columns with the OIDs, types and names PostgreSQL would give them.
//
// Every relation is computed from a Context (the lake at the statement's
// snapshot plus the session) into one batch; nothing is cached or stored.
// Column sets are PostgreSQL 15's, the version lakepg reports. Where
// lakepg has no matching value type, columns keep PostgreSQL's names and
// take the nearest type lakepg has:
// oid, regproc and xid columns are bigint; name columns are name (text
// with type OID 19); text[] and smallint[] columns are real arrays, and
// so are aclitem[] columns, as text[] of aclitem's text form;
// "char", pg_node_tree and the other array-typed columns are text
// (arrays rendered in PostgreSQL's text form, usually NULL).
// information_schema columns take the base types of PostgreSQL's domains,
// which is what PostgreSQL's RowDescription reports: sql_identifier as
// name, character_data as character varying, yes_or_no as character
// varying(3), cardinal_number as integer.
//
// # OIDs
//
// Built-in objects keep PostgreSQL's OIDs (pg_catalog is 11, pg_toast 99,
// information_schema 13207; types, functions, catalog relations and
// collations as PostgreSQL numbers them), so OIDs a driver knows by heart
// resolve. Lake objects get OIDs from their DuckLake ids:
//
//	namespace of a lake schema   16384 + schema_id    (NamespaceOID)
//	relation of a lake table     16384 + table_id     (RelationOID)
//
// DuckLake draws schema_id, table_id and view_id from one counter
// (ducklake_snapshot.next_catalog_id), so no schema shares an id with a
// table, and both stay above PostgreSQL's last built-in OID (16383): the
// OIDs are distinct across namespaces and relations, stable for the life
// of the object and the same in every session and snapshot. A column's
// default (pg_attrdef) has OID 2^31 + table_id*2048 + attnum, a table's
// row type (pg_type, typtype 'c') 2^30 + its relation OID, the array type
// of that row type 2^30 + 2^28 + its relation OID, its TOAST
// relation (toast.go) 2^30 + 2^29 + its relation OID. The lake
// database is OID 2^29: above PostgreSQL's last built-in OID, as a
// database a user created is (pgAdmin hides databases below it unless
// named postgres). The session user is role 10, as PostgreSQL's
// bootstrap superuser is; the public schema is owned by
// pg_database_owner (6171), as in PostgreSQL 15 and later.
package pgcatalog

import (
	"fmt"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// Column is one column of a system table.
type Column struct {
	Name string
	Type types.T
	// Elem is the element type of an array-typed column (held as the
	// array's text form), for unnest and friends; ID Unknown otherwise.
	Elem types.T
}

// Context is what a system table reads: the lake at the statement's
// snapshot and the session.
type Context struct {
	Meta       *catalog.Metadata
	User       string
	Database   string
	SearchPath []string
	Settings   map[string]string
	PID        int32
	// Backends are the server's live sessions for pg_stat_activity; when
	// nil, the current session (PID, User, Settings) is the only one.
	Backends []Backend
	// Roles lists the stored roles for pg_authid, pg_roles and pg_user,
	// read only when one of them is; nil: the session user is the only
	// role. Verifiers are shown in pg_authid as given (blank them for a
	// session that may not see them).
	Roles func() []catalog.Role
	// Members lists the role memberships for pg_auth_members; nil: none.
	Members func() []catalog.RoleMember
	// ACL is the owner (a role name, "" for the bootstrap superuser) and
	// aclitem[] text ("" for NULL) lakepg recorded for a lake table or view
	// (kind "r", its id) or schema ("n"); ok is false when none is.
	ACL func(kind string, id int64) (owner, acl string, ok bool)
	// TableGrants are the privileges on lake tables and views the current
	// role may see (information_schema.table_privileges); role: only
	// grants to or from the current role (role_table_grants).
	TableGrants func(role bool) []TableGrant
	// DefaultACLs are ALTER DEFAULT PRIVILEGES' entries (pg_default_acl).
	DefaultACLs func() []DefaultACL
	// Cursors are the session's open cursors, for pg_cursors.
	Cursors []Cursor
	// ViewColumns are the output columns of a lake view (its query bound
	// without running it); nil when the view cannot be bound now.
	ViewColumns func(v *catalog.View) []ViewColumn
	// Sequences lists the lake's sequences as the session sees them
	// (relkind 'S', pg_sequence, ...); nil: none.
	Sequences func() []catalog.Sequence
	// Temp is the session's temporary schema and tables; nil when the
	// session never made one (PostgreSQL makes pg_temp_N at the first).
	Temp *TempSchema

	// built is the model of the above, once a table or function needed
	// it (model.go)
	built atomic.Pointer[model]
}

// TempSchema is a session's temporary namespace (pg_temp_N, with its
// pg_toast_temp_N) and the temporary tables in it, described as lake
// tables are (their IDs give their OIDs, RelationOID).
type TempSchema struct {
	Name, ToastName string
	OID, ToastOID   int64
	Tables          []*catalog.Table
}

// ViewColumn is one output column of a lake view.
type ViewColumn struct {
	Name   string
	OID    int64
	Typmod int32
}

func (c *Context) sequences() []catalog.Sequence {
	if c.Sequences == nil {
		return nil
	}
	return c.Sequences()
}

// Cursor is one open cursor as pg_cursors shows it.
type Cursor struct {
	Name, Statement              string
	Holdable, Binary, Scrollable bool
	Created                      time.Time
}

// Backend is one session as pg_stat_activity shows it.
type Backend struct {
	PID             int32
	User            string
	Database        string
	ApplicationName string
	ClientAddr      string // "" when unknown or a Unix socket
	ClientPort      int32  // -1 for a Unix socket, 0 when unknown
	BackendStart    time.Time
	QueryStart      time.Time // zero: no query yet
	StateChange     time.Time
	XactStart       time.Time // zero: no transaction open
	State           string    // "active", "idle", "idle in transaction", ...
	Query           string    // the running or last query
}

// Table is a system table: its columns and a function producing its rows.
type Table struct {
	Name string
	OID  int64 // its pg_class OID, which the tableoid system column gives
	Cols []Column
	Rows func(c *Context) (*vec.Batch, error)
	// rowsXmin is Rows with each row's xmin (xmin.go); nil for tables
	// that are not relations.
	rowsXmin func(c *Context) (*vec.Batch, []int64, error)
	// lazy counts the rows and returns what makes the columns a plan reads
	// (need marks Cols, then xmin one past them; nil: Cols); nil for
	// tables made whole by Rows
	lazy func(c *Context) (int, func(need []bool) (*vec.Batch, error))
}

// Lazy is the table's rows made column by column when read: their count
// now, and mk, which makes the columns need marks (Cols in order, then
// the xmin system column one past them when withXmin; nil: every one).
// ok is false for a table made whole by Rows.
func (t *Table) Lazy(c *Context, withXmin bool) (n int, mk func(need []bool) (*vec.Batch, error), ok bool) {
	if t.lazy == nil {
		return 0, nil, false
	}
	n, build := t.lazy(c)
	width := len(t.Cols)
	if withXmin {
		width++
	}
	return n, func(need []bool) (*vec.Batch, error) {
		if need == nil {
			need = make([]bool, width)
			for i := range need {
				need[i] = true
			}
		}
		return build(need)
	}, true
}

// Lookup finds a system table by schema ("pg_catalog" or
// "information_schema") and name.
func Lookup(schema, name string) (*Table, bool) {
	t, ok := tables[schema+"."+name]
	return t, ok
}

var tables = map[string]*Table{}

// sysRel is a registered system relation with what pg_class and
// pg_attribute report for it.
type sysRel struct {
	schema string
	oid    int64
	kind   string  // relkind: "r" for PostgreSQL's catalog tables, "v" for its views
	pgType []int64 // per column, the PostgreSQL type OID of its declaration
	t      *Table
}

// sysRels lists the registered relations in a stable order (by schema, name).
var sysRels []*sysRel

// register declares a system relation. spec lists its columns as
// PostgreSQL declares them ("oid oid, relname name, ..."); PostgreSQL's
// type names are mapped to lakepg types by specType.
func register(schema, name string, oid int64, kind, spec string, rows func(c *Context, r *rowSet)) *Table {
	t := &Table{Name: name, OID: oid}
	rel := &sysRel{schema: schema, oid: oid, kind: kind, t: t}
	for _, part := range strings.Split(spec, ",") {
		part = strings.TrimSpace(part)
		col, typ, ok := strings.Cut(part, " ")
		if !ok {
			panic(fmt.Sprintf("pgcatalog: %s.%s: bad column spec %q", schema, name, part))
		}
		lt, pgOID, ok := specType(typ)
		if !ok {
			panic(fmt.Sprintf("pgcatalog: %s.%s: unknown type %q", schema, name, typ))
		}
		t.Cols = append(t.Cols, Column{Name: col, Type: lt, Elem: arrayElem(pgOID)})
		rel.pgType = append(rel.pgType, pgOID)
	}
	t.rowsXmin = func(c *Context) (*vec.Batch, []int64, error) {
		r := newRowSet(t)
		if rows != nil {
			rows(c, r)
		}
		b, err := r.batch()
		return b, r.xmins, err
	}
	t.Rows = func(c *Context) (*vec.Batch, error) {
		r := newRowSet(t)
		if rows != nil {
			rows(c, r)
		}
		return r.batch()
	}
	key := schema + "." + name
	if _, dup := tables[key]; dup {
		panic("pgcatalog: " + key + " registered twice")
	}
	tables[key] = t
	sysRels = append(sysRels, rel)
	sort.Slice(sysRels, func(i, j int) bool {
		if sysRels[i].schema != sysRels[j].schema {
			return sysRels[i].schema < sysRels[j].schema
		}
		return sysRels[i].t.Name < sysRels[j].t.Name
	})
	return t
}

// yesNo is information_schema's yes_or_no domain: varchar(3).
var yesNo = types.T{ID: types.Text, Varchar: true, Width: 3}

// specType maps a PostgreSQL column type, as register's spec writes it, to
// the lakepg type the column has and the PostgreSQL type OID pg_attribute
// reports.
func specType(s string) (types.T, int64, bool) {
	switch s {
	case "oid":
		return types.Int64T, 26, true
	case "regproc":
		return types.Int64T, 24, true
	case "regtype":
		return types.Int64T, 2206, true
	case "xid":
		return types.Int64T, 28, true
	case "name":
		return types.NameT, 19, true
	case `"char"`:
		return types.TextT, 18, true
	case "text":
		return types.TextT, 25, true
	case "pg_node_tree":
		return types.TextT, 194, true
	case "inet":
		return types.TextT, 869, true
	case "pg_lsn":
		return types.TextT, 3220, true
	case "aclitem[]":
		// an array of aclitem's text form: drivers read a list of strings
		return types.ArrayOf(types.TextT), 1034, true
	case "text[]":
		return types.ArrayOf(types.TextT), 1009, true
	case "oid[]":
		return types.TextT, 1028, true
	case "smallint[]":
		return types.ArrayOf(types.Int16T), 1005, true
	case `"char"[]`:
		return types.TextT, 1002, true
	case "int2vector":
		return types.TextT, 22, true
	case "oidvector":
		return types.TextT, 30, true
	case "anyarray":
		return types.TextT, 2277, true
	case "bytea":
		return types.ByteaT, 17, true
	case "boolean":
		return types.BoolT, 16, true
	case "smallint":
		return types.Int16T, 21, true
	case "integer":
		return types.Int32T, 23, true
	case "bigint":
		return types.Int64T, 20, true
	case "real":
		return types.Float32T, 700, true
	case "timestamptz":
		return types.TimestamptzT, 1184, true
	// information_schema domains, as their base types
	case "sql_identifier":
		return types.NameT, 19, true
	case "character_data":
		return types.VarcharT, 1043, true
	case "yes_or_no":
		return yesNo, 1043, true
	case "cardinal_number":
		return types.Int32T, 23, true
	case "time_stamp":
		return types.TimestamptzT, 1184, true
	}
	return types.T{}, 0, false
}

// arrayElem is the element type of the array type with PostgreSQL OID
// oid, as lakepg holds elements (oid as bigint, "char" as text); ID
// Unknown for other types.
func arrayElem(oid int64) types.T {
	switch oid {
	case 22, 1005: // int2vector, smallint[]
		return types.Int16T
	case 30, 1028: // oidvector, oid[]
		return types.Int64T
	case 1002, 1009, 1034: // "char"[], text[], aclitem[]
		return types.TextT
	}
	return types.UnknownT
}

// TableFunction finds a set-returning catalog function without arguments
// that can stand in FROM, such as pg_get_keywords().
func TableFunction(name string) (*Table, bool) {
	t, ok := tableFuncs[name]
	return t, ok
}

var tableFuncs = map[string]*Table{}

func init() {
	t := &Table{Name: "pg_get_keywords", Cols: []Column{
		{Name: "word", Type: types.TextT}, {Name: "catcode", Type: types.TextT}, {Name: "barelabel", Type: types.BoolT},
		{Name: "catdesc", Type: types.TextT}, {Name: "baredesc", Type: types.TextT}}}
	t.Rows = func(*Context) (*vec.Batch, error) {
		r := newRowSet(t)
		for _, k := range keywords {
			desc := map[byte]string{'U': "unreserved", 'C': "unreserved (cannot be function or type name)",
				'T': "reserved (can be function or type name)", 'R': "reserved"}[k.catcode]
			bare := "requires AS"
			if k.barelabel {
				bare = "can be bare label"
			}
			r.add(vals{"word": k.word, "catcode": string(k.catcode), "barelabel": k.barelabel, "catdesc": desc, "baredesc": bare})
		}
		return r.batch()
	}
	tableFuncs[t.Name] = t
}
