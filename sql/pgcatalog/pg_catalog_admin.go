package pgcatalog

import (
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// Relations and functions admin GUIs read on connect and when they open a
// database or a table (pgAdmin 4, DBeaver's navigator): they must exist and
// answer as an idle PostgreSQL without replication, security labels or
// default privileges does.
func init() {
	register("pg_catalog", "pg_stat_gssapi", 12253, "v",
		"pid integer, gss_authenticated boolean, principal text, encrypted boolean",
		func(c *Context, r *rowSet) {
			for _, b := range backends(c) {
				r.add(vals{"pid": b.PID, "gss_authenticated": false, "encrypted": false})
			}
		})
	register("pg_catalog", "pg_replication_slots", 12257, "v",
		"slot_name name, plugin name, slot_type text, datoid oid, database name, temporary boolean, "+
			"active boolean, active_pid integer, xmin xid, catalog_xmin xid, restart_lsn pg_lsn, "+
			"confirmed_flush_lsn pg_lsn, wal_status text, safe_wal_size bigint, two_phase boolean", nil)
	register("pg_catalog", "pg_default_acl", 826, "r",
		"oid oid, defaclrole oid, defaclnamespace oid, defaclobjtype \"char\", defaclacl aclitem[]",
		func(c *Context, r *rowSet) {
			if c.DefaultACLs == nil {
				return
			}
			for i, d := range c.DefaultACLs() {
				ns := int64(0)
				if d.SchemaID != 0 {
					ns = NamespaceOID(d.SchemaID)
				}
				r.add(vals{"oid": firstRoleOID/2 + int64(i), "defaclrole": OwnerOID(c, d.Role), "defaclnamespace": ns,
					"defaclobjtype": "r", "defaclacl": d.ACL})
			}
		})
	register("pg_catalog", "pg_seclabel", 3596, "r",
		"objoid oid, classoid oid, objsubid integer, provider text, label text", nil)
	register("pg_catalog", "pg_seclabels", 12099, "v",
		"objoid oid, classoid oid, objsubid integer, objtype text, objnamespace oid, objname text, provider text, label text", nil)

	// pg_show_all_settings() is what pg_settings selects from; pgAdmin calls it on connect.
	settings, _ := Lookup("pg_catalog", "pg_settings")
	tableFuncs["pg_show_all_settings"] = &Table{Name: "pg_show_all_settings", Cols: settings.Cols, Rows: settings.Rows}
	// pg_available_extensions() lists the extensions a server could CREATE: plpgsql only.
	ext := &Table{Name: "pg_available_extensions", Cols: []Column{
		{Name: "name", Type: types.NameT}, {Name: "default_version", Type: types.TextT},
		{Name: "comment", Type: types.TextT}}}
	ext.Rows = func(c *Context) (*vec.Batch, error) {
		r := newRowSet(ext)
		r.add(vals{"name": "plpgsql", "default_version": "1.0", "comment": "PL/pgSQL procedural language"})
		return r.batch()
	}
	tableFuncs[ext.Name] = ext
}

// backends are the sessions pg_stat_activity shows.
func backends(c *Context) []Backend {
	if c.Backends != nil {
		return c.Backends
	}
	return []Backend{{PID: c.PID, User: c.User, Database: c.Database,
		ApplicationName: c.Settings["application_name"], State: "active"}}
}

// descriptionRows are the comments PostgreSQL's initdb gives its schemas;
// the lake's public schema takes public's.
func descriptionRows(c *Context, r *rowSet) {
	addTo := func(oid, classoid int64, text string) {
		r.add(vals{"objoid": oid, "classoid": classoid, "objsubid": int32(0), "description": text})
	}
	add := func(oid int64, text string) { addTo(oid, 2615, text) }
	languageDescriptions(addTo)
	add(catalogNamespace, "system catalog schema")
	add(toastNamespace, "reserved schema for TOAST tables")
	if c.Meta != nil {
		for _, s := range c.Meta.Schemas {
			if s.Name == "public" {
				add(NamespaceOID(s.ID), "standard public schema")
			}
		}
		for _, d := range lakeDescriptions(c) {
			r.add(vals{"objoid": d.oid, "classoid": int64(1259), "objsubid": d.subid, "description": d.text})
		}
	}
}

// lakeDescription is a COMMENT ON a lake table, view or column.
type lakeDescription struct {
	oid   int64
	subid int32 // attnum for a column, 0 for the relation
	text  string
}

func lakeDescriptions(c *Context) []lakeDescription {
	var out []lakeDescription
	for _, t := range c.Meta.Tables {
		if t.Comment != "" {
			out = append(out, lakeDescription{RelationOID(t.ID), 0, t.Comment})
		}
		for i, col := range t.Columns {
			if col.Comment != "" {
				out = append(out, lakeDescription{RelationOID(t.ID), int32(i + 1), col.Comment})
			}
		}
	}
	for i := range c.Meta.Views {
		v := &c.Meta.Views[i]
		if v.Comment != "" {
			out = append(out, lakeDescription{RelationOID(v.ID), 0, v.Comment})
		}
		if len(v.ColumnComments) == 0 || c.ViewColumns == nil {
			continue
		}
		// view columns are commented by name: their attnum is their place
		// in the view's output as bound now
		for j, vc := range c.ViewColumns(v) {
			if text, ok := v.ColumnComments[vc.Name]; ok {
				out = append(out, lakeDescription{RelationOID(v.ID), int32(j + 1), text})
			}
		}
	}
	return out
}

// Description is obj_description(oid, 'pg_class') (subid 0) and
// col_description(oid, subid) for lake relations.
func Description(c *Context, oid int64, subid int32) (string, bool) {
	if c.Meta == nil {
		return "", false
	}
	for _, d := range lakeDescriptions(c) {
		if d.oid == oid && d.subid == subid {
			return d.text, true
		}
	}
	return "", false
}
