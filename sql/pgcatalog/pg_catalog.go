package pgcatalog

import (
	"sort"

	"github.com/lakepg/lakepg/exec/vec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The pg_catalog relations. OIDs are PostgreSQL's; columns are declared as
// PostgreSQL 15 declares them.

func init() {
	register("pg_catalog", "pg_namespace", 2615, "r",
		"oid oid, nspname name, nspowner oid, nspacl aclitem[]",
		func(c *Context, r *rowSet) {
			for _, ns := range newModel(c).nss {
				v := vals{"oid": ns.oid, "nspname": ns.name, "nspowner": ns.owner, xminColumn: ns.xmin}
				if acl := namespaceACL(c, ns); acl != "" {
					v["nspacl"] = acl
				}
				r.add(v)
			}
		})

	class := register("pg_catalog", "pg_class", 1259, "r",
		"oid oid, relname name, relnamespace oid, reltype oid, reloftype oid, relowner oid, relam oid, "+
			"relfilenode oid, reltablespace oid, relpages integer, reltuples real, relallvisible integer, "+
			"reltoastrelid oid, relhasindex boolean, relisshared boolean, relpersistence \"char\", relkind \"char\", "+
			"relnatts smallint, relchecks smallint, relhasrules boolean, relhastriggers boolean, "+
			"relhassubclass boolean, relrowsecurity boolean, relforcerowsecurity boolean, relispopulated boolean, "+
			"relreplident \"char\", relispartition boolean, relrewrite oid, relfrozenxid xid, relminmxid xid, "+
			"relacl aclitem[], reloptions text[], relpartbound pg_node_tree",
		nil)
	// made column by column, those a plan reads (classrows.go)
	class.lazy = func(c *Context) (int, func(need []bool) (*vec.Batch, error)) {
		cr := newClassRows(c, class)
		return cr.n(), func(need []bool) (*vec.Batch, error) { return cr.batch(class, need) }
	}
	class.Rows = func(c *Context) (*vec.Batch, error) { return newClassRows(c, class).batch(class, nil) }
	class.rowsXmin = func(c *Context) (*vec.Batch, []int64, error) {
		cr := newClassRows(c, class)
		b, err := cr.batch(class, nil)
		if err != nil {
			return nil, nil, err
		}
		return b, cr.xmins(), nil
	}

	register("pg_catalog", "pg_attribute", 1249, "r",
		"attrelid oid, attname name, atttypid oid, attstattarget integer, attlen smallint, attnum smallint, "+
			"attndims integer, attcacheoff integer, atttypmod integer, attbyval boolean, attalign \"char\", "+
			"attstorage \"char\", attcompression \"char\", attnotnull boolean, atthasdef boolean, "+
			"atthasmissing boolean, attidentity \"char\", attgenerated \"char\", attisdropped boolean, "+
			"attislocal boolean, attinhcount integer, attcollation oid, attacl aclitem[], attoptions text[], "+
			"attfdwoptions text[], attmissingval anyarray",
		func(c *Context, r *rowSet) {
			for _, rel := range newModel(c).rels {
				if rel.kind == "r" {
					for _, sc := range systemColumns {
						t := typeByOID[sc.typ]
						r.add(vals{"attrelid": rel.oid, "attname": sc.name, "atttypid": sc.typ, "attstattarget": 0,
							"attlen": t.len, "attnum": sc.num, "attndims": 0, "attcacheoff": -1, "atttypmod": -1,
							"attbyval": t.byval, "attalign": t.align, "attstorage": t.storage, "attcompression": "",
							"attnotnull": true, "atthasdef": false, "atthasmissing": false, "attidentity": "",
							"attgenerated": "", "attisdropped": false, "attislocal": true, "attinhcount": 0,
							"attcollation": 0, xminColumn: rel.xmin()})
					}
				}
				for i, a := range attributesIn(c, rel) {
					t := typeByOID[a.typ]
					if t == nil {
						t = typeByOID[25]
					}
					ndims := 0
					if t.isArray() {
						ndims = 1
					}
					r.add(vals{"attrelid": rel.oid, "attname": a.name, "atttypid": a.typ, "attstattarget": -1,
						"attlen": t.len, "attnum": i + 1, "attndims": ndims, "attcacheoff": -1, "atttypmod": a.typmod,
						"attbyval": t.byval, "attalign": t.align, "attstorage": t.storage, "attcompression": "",
						"attnotnull": a.notNull, "atthasdef": a.def != nil, "atthasmissing": false, "attidentity": a.identity,
						"attgenerated": "", "attisdropped": false, "attislocal": true, "attinhcount": 0,
						"attcollation": t.collation, xminColumn: rel.xmin()})
				}
			}
			indexAttributeRows(c, r) // constraints.go
		})

	register("pg_catalog", "pg_attrdef", 2604, "r",
		"oid oid, adrelid oid, adnum smallint, adbin pg_node_tree",
		func(c *Context, r *rowSet) {
			for _, rel := range newModel(c).rels {
				if rel.lake == nil {
					continue
				}
				for i, a := range attributesIn(c, rel) {
					if a.def != nil {
						r.add(vals{"oid": attrdefOID(rel.lake.ID, i+1), "adrelid": rel.oid, "adnum": i + 1, "adbin": *a.def,
							xminColumn: rel.xmin()})
					}
				}
			}
		})

	register("pg_catalog", "pg_type", 1247, "r",
		"oid oid, typname name, typnamespace oid, typowner oid, typlen smallint, typbyval boolean, "+
			"typtype \"char\", typcategory \"char\", typispreferred boolean, typisdefined boolean, "+
			"typdelim \"char\", typrelid oid, typsubscript regproc, typelem oid, typarray oid, typinput regproc, "+
			"typoutput regproc, typreceive regproc, typsend regproc, typmodin regproc, typmodout regproc, "+
			"typanalyze regproc, typalign \"char\", typstorage \"char\", typnotnull boolean, typbasetype oid, "+
			"typtypmod integer, typndims integer, typcollation oid, typdefaultbin pg_node_tree, typdefault text, "+
			"typacl aclitem[]",
		func(c *Context, r *rowSet) {
			for i := range builtinTypes {
				t := &builtinTypes[i]
				ns := t.ns
				if ns == 0 {
					ns = catalogNamespace
				}
				var def, defBin any
				if d, ok := domainDefaults[t.oid]; ok {
					def, defBin = d.text, d.bin
				}
				r.add(vals{"oid": t.oid, "typname": t.name, "typnamespace": ns, "typowner": superuserOID,
					"typlen": t.len, "typbyval": t.byval, "typtype": t.typtype, "typcategory": t.category,
					"typispreferred": t.preferred, "typisdefined": true, "typdelim": t.delim, "typrelid": 0,
					"typsubscript": t.subscript, "typelem": t.elem, "typarray": t.array, "typinput": t.input,
					"typoutput": t.output, "typreceive": t.receive, "typsend": t.send, "typmodin": t.modin,
					"typmodout": t.modout, "typanalyze": t.analyze, "typalign": t.align, "typstorage": t.storage,
					"typnotnull": t.notnull, "typbasetype": t.basetype, "typtypmod": t.typmod, "typndims": 0,
					"typcollation": t.collation, "typdefault": def, "typdefaultbin": defBin})
			}
			// a lake table's row type, as PostgreSQL makes one per table
			for _, rel := range newModel(c).rels {
				if rel.rowType() == 0 {
					continue
				}
				r.add(vals{"oid": rel.rowType(), "typname": rel.name, "typnamespace": rel.ns.oid, "typowner": superuserOID,
					"typlen": -1, "typbyval": false, "typtype": "c", "typcategory": "C", "typispreferred": false,
					"typisdefined": true, "typdelim": ",", "typrelid": rel.oid, "typsubscript": 0, "typelem": 0,
					"typarray": rowArrayOID(rel.oid), "typinput": 2290, "typoutput": 2291, "typreceive": 2402, "typsend": 2403,
					"typmodin": 0, "typmodout": 0, "typanalyze": 0, "typalign": "d", "typstorage": "x",
					"typnotnull": false, "typbasetype": 0, "typtypmod": -1, "typndims": 0, "typcollation": 0,
					xminColumn: rel.xmin()})
				r.add(vals{"oid": rowArrayOID(rel.oid), "typname": "_" + rel.name, "typnamespace": rel.ns.oid,
					"typowner": superuserOID, "typlen": -1, "typbyval": false, "typtype": "b", "typcategory": "A",
					"typispreferred": false, "typisdefined": true, "typdelim": ",", "typrelid": 0,
					"typsubscript": 6179, "typelem": rel.rowType(), "typarray": 0, "typinput": 750, "typoutput": 751,
					"typreceive": 2400, "typsend": 2401, "typmodin": 0, "typmodout": 0, "typanalyze": 3816,
					"typalign": "d", "typstorage": "x", "typnotnull": false, "typbasetype": 0, "typtypmod": -1,
					"typndims": 0, "typcollation": 0, xminColumn: rel.xmin()})
			}
		})

	register("pg_catalog", "pg_proc", 1255, "r",
		"oid oid, proname name, pronamespace oid, proowner oid, prolang oid, procost real, prorows real, "+
			"provariadic oid, prosupport regproc, prokind \"char\", prosecdef boolean, proleakproof boolean, "+
			"proisstrict boolean, proretset boolean, provolatile \"char\", proparallel \"char\", pronargs smallint, "+
			"pronargdefaults smallint, prorettype oid, proargtypes oidvector, proallargtypes oid[], "+
			"proargmodes \"char\"[], proargnames text[], proargdefaults pg_node_tree, protrftypes oid[], "+
			"prosrc text, probin text, prosqlbody pg_node_tree, proconfig text[], proacl aclitem[]",
		func(c *Context, r *rowSet) {
			for i := range builtinProcs {
				p := &builtinProcs[i]
				rows := 0
				if p.retset {
					rows = 1000
				}
				r.add(vals{"oid": p.oid, "proname": p.name, "pronamespace": catalogNamespace, "proowner": superuserOID,
					"prolang": p.lang, "procost": 1, "prorows": rows, "provariadic": 0, "prosupport": 0,
					"prokind": p.kind, "prosecdef": false, "proleakproof": false, "proisstrict": p.strict,
					"proretset": p.retset, "provolatile": p.volatile, "proparallel": p.parallel, "pronargs": p.nargs,
					"pronargdefaults": 0, "prorettype": p.rettype, "proargtypes": p.argtypes, "prosrc": p.src})
			}
		})

	register("pg_catalog", "pg_database", 1262, "r",
		"oid oid, datname name, datdba oid, encoding integer, datlocprovider \"char\", datistemplate boolean, "+
			"datallowconn boolean, datconnlimit integer, datfrozenxid xid, datminmxid xid, dattablespace oid, "+
			"datcollate text, datctype text, daticulocale text, datcollversion text, "+
			"datacl aclitem[]", databaseRows)

	roleCols := "rolname name, rolsuper boolean, rolinherit boolean, rolcreaterole boolean, rolcreatedb boolean, " +
		"rolcanlogin boolean, rolreplication boolean, rolconnlimit integer, rolpassword text, " +
		"rolvaliduntil timestamptz, rolbypassrls boolean, rolconfig text[], oid oid"
	register("pg_catalog", "pg_roles", 12000, "v", roleCols, func(c *Context, r *rowSet) {
		for _, role := range roles(c) {
			role["rolpassword"] = "********"
			r.add(role)
		}
	})
	register("pg_catalog", "pg_authid", 1260, "r",
		"oid oid, rolname name, rolsuper boolean, rolinherit boolean, rolcreaterole boolean, rolcreatedb boolean, "+
			"rolcanlogin boolean, rolreplication boolean, rolbypassrls boolean, rolconnlimit integer, "+
			"rolpassword text, rolvaliduntil timestamptz",
		func(c *Context, r *rowSet) {
			for _, role := range roles(c) {
				delete(role, "rolconfig")
				r.add(role)
			}
		})
	register("pg_catalog", "pg_user", 12014, "v",
		"usename name, usesysid oid, usecreatedb boolean, usesuper boolean, userepl boolean, "+
			"usebypassrls boolean, passwd text, valuntil timestamptz, useconfig text[]",
		func(c *Context, r *rowSet) {
			for _, e := range roleEntries(c) {
				if !e.role.Login {
					continue
				}
				su := e.role.Superuser
				r.add(vals{"usename": e.role.Name, "usesysid": e.oid, "usecreatedb": su, "usesuper": su,
					"userepl": su, "usebypassrls": su, "passwd": "********"})
			}
		})
	register("pg_catalog", "pg_auth_members", 1261, "r",
		"roleid oid, member oid, grantor oid, admin_option boolean",
		func(c *Context, r *rowSet) {
			if c.Members == nil {
				return
			}
			for _, m := range c.Members() {
				role, ok1 := storedRoleOID(c, m.Role)
				member, ok2 := storedRoleOID(c, m.Member)
				if !ok1 || !ok2 {
					continue
				}
				grantor, ok := storedRoleOID(c, m.Grantor)
				if !ok {
					grantor = superuserOID
				}
				r.add(vals{"roleid": role, "member": member, "grantor": grantor, "admin_option": m.Admin})
			}
		})

	register("pg_catalog", "pg_settings", 12104, "v",
		"name text, setting text, unit text, category text, short_desc text, extra_desc text, context text, "+
			"vartype text, source text, min_val text, max_val text, enumvals text[], boot_val text, "+
			"reset_val text, sourcefile text, sourceline integer, pending_restart boolean",
		settingsRows)

	register("pg_catalog", "pg_stat_activity", 12222, "v",
		"datid oid, datname name, pid integer, leader_pid integer, usesysid oid, usename name, "+
			"application_name text, client_addr inet, client_hostname text, client_port integer, "+
			"backend_start timestamptz, xact_start timestamptz, query_start timestamptz, "+
			"state_change timestamptz, wait_event_type text, wait_event text, state text, backend_xid xid, "+
			"backend_xmin xid, query_id bigint, query text, backend_type text",
		func(c *Context, r *rowSet) {
			bs := c.Backends
			if bs == nil {
				bs = []Backend{{PID: c.PID, User: c.User, Database: c.Database,
					ApplicationName: c.Settings["application_name"], State: "active"}}
			}
			for _, b := range bs {
				row := vals{"datid": databaseOID, "datname": b.Database, "pid": b.PID, "usesysid": superuserOID,
					"usename": b.User, "application_name": b.ApplicationName, "backend_start": b.BackendStart,
					"xact_start": b.XactStart, "query_start": b.QueryStart, "state_change": b.StateChange,
					"state": b.State, "query": b.Query, "backend_type": "client backend"}
				if b.ClientAddr != "" {
					row["client_addr"] = b.ClientAddr
				}
				if b.ClientPort != 0 {
					row["client_port"] = b.ClientPort
				}
				if b.State == "idle" {
					row["wait_event_type"], row["wait_event"] = "Client", "ClientRead"
				}
				r.add(row)
			}
		})

	register("pg_catalog", "pg_cursors", 12086, "v",
		"name text, statement text, is_holdable boolean, is_binary boolean, is_scrollable boolean, "+
			"creation_time timestamptz",
		func(c *Context, r *rowSet) {
			for _, cur := range c.Cursors {
				r.add(vals{"name": cur.Name, "statement": cur.Statement, "is_holdable": cur.Holdable,
					"is_binary": cur.Binary, "is_scrollable": cur.Scrollable, "creation_time": cur.Created})
			}
		})

	register("pg_catalog", "pg_am", 2601, "r", "oid oid, amname name, amhandler regproc, amtype \"char\"",
		func(c *Context, r *rowSet) {
			for _, am := range []struct {
				oid     int64
				name    string
				handler int64
				typ     string
			}{{2, "heap", 3, "t"}, {403, "btree", 330, "i"}, {405, "hash", 331, "i"}, {783, "gist", 332, "i"},
				{2742, "gin", 333, "i"}, {4000, "spgist", 334, "i"}, {3580, "brin", 335, "i"}} {
				r.add(vals{"oid": am.oid, "amname": am.name, "amhandler": am.handler, "amtype": am.typ})
			}
		})
	register("pg_catalog", "pg_tablespace", 1213, "r",
		"oid oid, spcname name, spcowner oid, spcacl aclitem[], spcoptions text[]",
		func(c *Context, r *rowSet) {
			r.add(vals{"oid": 1663, "spcname": "pg_default", "spcowner": superuserOID})
			r.add(vals{"oid": 1664, "spcname": "pg_global", "spcowner": superuserOID})
		})
	register("pg_catalog", "pg_collation", 3456, "r",
		"oid oid, collname name, collnamespace oid, collowner oid, collprovider \"char\", "+
			"collisdeterministic boolean, collencoding integer, collcollate text, collctype text, "+
			"colliculocale text, collversion text",
		func(c *Context, r *rowSet) {
			r.add(vals{"oid": defaultColl, "collname": "default", "collnamespace": catalogNamespace, "collowner": superuserOID,
				"collprovider": "d", "collisdeterministic": true, "collencoding": -1})
			for _, cl := range []struct {
				oid       int64
				name, loc string
				enc       int
			}{{950, "C", "C", -1}, {951, "POSIX", "POSIX", -1}, {12340, "ucs_basic", "C", encodingUTF8}} {
				r.add(vals{"oid": cl.oid, "collname": cl.name, "collnamespace": catalogNamespace, "collowner": superuserOID,
					"collprovider": "c", "collisdeterministic": true, "collencoding": cl.enc,
					"collcollate": cl.loc, "collctype": cl.loc})
			}
		})
	register("pg_catalog", "pg_language", 2612, "r",
		"oid oid, lanname name, lanowner oid, lanispl boolean, lanpltrusted boolean, lanplcallfoid oid, "+
			"laninline oid, lanvalidator oid, lanacl aclitem[]", languageRows)

	// Objects the lake does not have: these are empty, with PostgreSQL's columns.
	register("pg_catalog", "pg_description", 2609, "r", "objoid oid, classoid oid, objsubid integer, description text", descriptionRows)
	register("pg_catalog", "pg_shdescription", 2396, "r", "objoid oid, classoid oid, description text", shdescriptionRows)
	register("pg_catalog", "pg_index", 2610, "r",
		"indexrelid oid, indrelid oid, indnatts smallint, indnkeyatts smallint, indisunique boolean, "+
			"indnullsnotdistinct boolean, indisprimary boolean, indisexclusion boolean, indimmediate boolean, "+
			"indisclustered boolean, indisvalid boolean, indcheckxmin boolean, indisready boolean, "+
			"indislive boolean, indisreplident boolean, indkey int2vector, indcollation oidvector, "+
			"indclass oidvector, indoption int2vector, indexprs pg_node_tree, indpred pg_node_tree", indexRows) // constraints.go
	register("pg_catalog", "pg_constraint", 2606, "r",
		"oid oid, conname name, connamespace oid, contype \"char\", condeferrable boolean, condeferred boolean, "+
			"convalidated boolean, conrelid oid, contypid oid, conindid oid, conparentid oid, confrelid oid, "+
			"confupdtype \"char\", confdeltype \"char\", confmatchtype \"char\", conislocal boolean, "+
			"coninhcount integer, connoinherit boolean, conkey smallint[], confkey smallint[], conpfeqop oid[], "+
			"conppeqop oid[], conffeqop oid[], confdelsetcols smallint[], conexclop oid[], conbin pg_node_tree",
		constraintRows) // constraints.go
	register("pg_catalog", "pg_inherits", 2611, "r",
		"inhrelid oid, inhparent oid, inhseqno integer, inhdetachpending boolean", nil)
	register("pg_catalog", "pg_extension", 3079, "r",
		"oid oid, extname name, extowner oid, extnamespace oid, extrelocatable boolean, extversion text, "+
			"extconfig oid[], extcondition text[]", extensionRows)
	register("pg_catalog", "pg_sequence", 2224, "r",
		"seqrelid oid, seqtypid oid, seqstart bigint, seqincrement bigint, seqmax bigint, seqmin bigint, "+
			"seqcache bigint, seqcycle boolean",
		func(c *Context, r *rowSet) {
			for _, rel := range newModel(c).rels {
				if q := rel.seq; q != nil {
					r.add(vals{"seqrelid": rel.oid, "seqtypid": seqTypeOID(q.DataType), "seqstart": q.Start,
						"seqincrement": q.Inc, "seqmax": q.Max, "seqmin": q.Min, "seqcache": q.Cache, "seqcycle": q.Cycle})
				}
			}
		})
	register("pg_catalog", "pg_sequences", 12048, "v",
		"schemaname name, sequencename name, sequenceowner name, data_type regtype, start_value bigint, "+
			"min_value bigint, max_value bigint, increment_by bigint, cycle boolean, cache_size bigint, "+
			"last_value bigint",
		func(c *Context, r *rowSet) {
			for _, rel := range newModel(c).rels {
				if q := rel.seq; q != nil {
					v := vals{"schemaname": rel.ns.name, "sequencename": q.Name, "sequenceowner": c.User,
						"data_type": seqTypeOID(q.DataType), "start_value": q.Start, "min_value": q.Min,
						"max_value": q.Max, "increment_by": q.Inc, "cycle": q.Cycle, "cache_size": q.Cache}
					if q.IsCalled {
						v["last_value"] = q.LastValue
					}
					r.add(v)
				}
			}
		})
	register("pg_catalog", "pg_enum", 3501, "r", "oid oid, enumtypid oid, enumsortorder real, enumlabel name", nil)
	register("pg_catalog", "pg_range", 3541, "r",
		"rngtypid oid, rngsubtype oid, rngmultitypid oid, rngcollation oid, rngsubopc oid, "+
			"rngcanonical regproc, rngsubdiff regproc",
		func(c *Context, r *rowSet) {
			for _, g := range builtinRanges {
				r.add(vals{"rngtypid": g[0], "rngsubtype": g[1], "rngmultitypid": g[2], "rngcollation": g[3],
					"rngsubopc": g[4], "rngcanonical": g[5], "rngsubdiff": g[6]})
			}
		})
	register("pg_catalog", "pg_policy", 3256, "r",
		"oid oid, polname name, polrelid oid, polcmd \"char\", polpermissive boolean, polroles oid[], "+
			"polqual pg_node_tree, polwithcheck pg_node_tree", nil)
	register("pg_catalog", "pg_statistic_ext", 3381, "r",
		"oid oid, stxrelid oid, stxname name, stxnamespace oid, stxowner oid, stxstattarget integer, "+
			"stxkeys int2vector, stxkind \"char\"[], stxexprs pg_node_tree", nil)
	register("pg_catalog", "pg_publication", 6104, "r",
		"oid oid, pubname name, pubowner oid, puballtables boolean, pubinsert boolean, pubupdate boolean, "+
			"pubdelete boolean, pubtruncate boolean, pubviaroot boolean", nil)
	register("pg_catalog", "pg_publication_namespace", 6237, "r", "oid oid, pnpubid oid, pnnspid oid", nil)
	register("pg_catalog", "pg_publication_rel", 6106, "r",
		"oid oid, prpubid oid, prrelid oid, prqual pg_node_tree, prattrs int2vector", nil)
	register("pg_catalog", "pg_trigger", 2620, "r",
		"oid oid, tgrelid oid, tgparentid oid, tgname name, tgfoid oid, tgtype smallint, tgenabled \"char\", "+
			"tgisinternal boolean, tgconstrrelid oid, tgconstrindid oid, tgconstraint oid, tgdeferrable boolean, "+
			"tginitdeferred boolean, tgnargs smallint, tgattr int2vector, tgargs bytea, tgqual pg_node_tree, "+
			"tgoldtable name, tgnewtable name", nil)
	register("pg_catalog", "pg_rewrite", 2618, "r",
		"oid oid, rulename name, ev_class oid, ev_type \"char\", ev_enabled \"char\", is_instead boolean, "+
			"ev_qual pg_node_tree, ev_action pg_node_tree", nil)
	register("pg_catalog", "pg_depend", 2608, "r",
		"classid oid, objid oid, objsubid integer, refclassid oid, refobjid oid, refobjsubid integer, "+
			"deptype \"char\"",
		func(c *Context, r *rowSet) {
			// a sequence OWNED BY a column depends on it: 'a' (auto) for
			// serial and OWNED BY, 'i' (internal) for identity, as in
			// PostgreSQL; Django finds a table's sequences this way
			m := newModel(c)
			for _, rel := range m.rels {
				q := rel.seq
				if q == nil || q.OwnerTable == 0 || c.Meta == nil {
					continue
				}
				t, ok := c.Meta.TableByID(q.OwnerTable)
				if !ok {
					continue
				}
				for i, col := range t.Columns {
					if col.ID != q.OwnerColumn {
						continue
					}
					dep := "a"
					if q.Identity != "" {
						dep = "i"
					}
					r.add(vals{"classid": 1259, "objid": rel.oid, "objsubid": 0, "refclassid": 1259,
						"refobjid": RelationOID(t.ID), "refobjsubid": i + 1, "deptype": dep})
				}
			}
		})
	register("pg_catalog", "pg_foreign_table", 3118, "r", "ftrelid oid, ftserver oid, ftoptions text[]", nil)
	register("pg_catalog", "pg_foreign_server", 1417, "r",
		"oid oid, srvname name, srvowner oid, srvfdw oid, srvtype text, srvversion text, srvacl aclitem[], "+
			"srvoptions text[]", nil)
	register("pg_catalog", "pg_foreign_data_wrapper", 2328, "r",
		"oid oid, fdwname name, fdwowner oid, fdwhandler oid, fdwvalidator oid, fdwacl aclitem[], "+
			"fdwoptions text[]", nil)
	register("pg_catalog", "pg_partitioned_table", 3350, "r",
		"partrelid oid, partstrat \"char\", partnatts smallint, partdefid oid, partattrs int2vector, "+
			"partclass oidvector, partcollation oidvector, partexprs pg_node_tree", nil)
	register("pg_catalog", "pg_event_trigger", 3466, "r",
		"oid oid, evtname name, evtevent name, evtowner oid, evtfoid oid, evtenabled \"char\", evttags text[]", nil)

	register("pg_catalog", "pg_cast", 2605, "r",
		"oid oid, castsource oid, casttarget oid, castfunc oid, castcontext \"char\", castmethod \"char\"", nil)
	register("pg_catalog", "pg_operator", 2617, "r",
		"oid oid, oprname name, oprnamespace oid, oprowner oid, oprkind \"char\", oprcanmerge boolean, "+
			"oprcanhash boolean, oprleft oid, oprright oid, oprresult oid, oprcom oid, oprnegate oid, "+
			"oprcode regproc, oprrest regproc, oprjoin regproc", nil)
	register("pg_catalog", "pg_opclass", 2616, "r",
		"oid oid, opcmethod oid, opcname name, opcnamespace oid, opcowner oid, opcfamily oid, opcintype oid, "+
			"opcdefault boolean, opckeytype oid", nil)

	register("pg_catalog", "pg_opfamily", 2753, "r",
		"oid oid, opfmethod oid, opfname name, opfnamespace oid, opfowner oid", nil)
	register("pg_catalog", "pg_conversion", 2607, "r",
		"oid oid, conname name, connamespace oid, conowner oid, conforencoding integer, contoencoding integer, "+
			"conproc regproc, condefault boolean", nil)
	register("pg_catalog", "pg_db_role_setting", 2964, "r", "setdatabase oid, setrole oid, setconfig text[]", nil)
	register("pg_catalog", "pg_shdepend", 1214, "r",
		"dbid oid, classid oid, objid oid, objsubid integer, refclassid oid, refobjid oid, deptype \"char\"", nil)
	register("pg_catalog", "pg_subscription", 6100, "r",
		"oid oid, subdbid oid, subskiplsn pg_lsn, subname name, subowner oid, subenabled boolean, "+
			"subbinary boolean, substream boolean, subtwophasestate \"char\", subdisableonerr boolean, "+
			"subconninfo text, subslotname name, subsynccommit text, subpublications text[]", nil)
	register("pg_catalog", "pg_ts_config", 3602, "r",
		"oid oid, cfgname name, cfgnamespace oid, cfgowner oid, cfgparser oid", nil)
	register("pg_catalog", "pg_ts_dict", 3600, "r",
		"oid oid, dictname name, dictnamespace oid, dictowner oid, dicttemplate oid, dictinitoption text", nil)
	register("pg_catalog", "pg_ts_parser", 3601, "r",
		"oid oid, prsname name, prsnamespace oid, prsstart regproc, prstoken regproc, prsend regproc, "+
			"prsheadline regproc, prslextype regproc", nil)
	register("pg_catalog", "pg_ts_template", 3764, "r",
		"oid oid, tmplname name, tmplnamespace oid, tmplinit regproc, tmpllexize regproc", nil)
	register("pg_catalog", "pg_locks", 12073, "v",
		"locktype text, database oid, relation oid, page integer, tuple smallint, virtualxid text, "+
			"transactionid xid, classid oid, objid oid, objsubid smallint, virtualtransaction text, pid integer, "+
			"mode text, granted boolean, fastpath boolean, waitstart timestamptz", nil)
	register("pg_catalog", "pg_prepared_xacts", 12090, "v",
		"transaction xid, gid text, prepared timestamptz, owner name, database name", nil)
	register("pg_catalog", "pg_available_extensions", 12081, "v",
		"name name, default_version text, installed_version text, comment text", availableExtensionRows)
	// lakepg keeps no access statistics: the counters of each lake table are zero
	register("pg_catalog", "pg_stat_user_tables", 12161, "v",
		"relid oid, schemaname name, relname name, seq_scan bigint, seq_tup_read bigint, idx_scan bigint, "+
			"idx_tup_fetch bigint, n_tup_ins bigint, n_tup_upd bigint, n_tup_del bigint, n_tup_hot_upd bigint, "+
			"n_live_tup bigint, n_dead_tup bigint, n_mod_since_analyze bigint, n_ins_since_vacuum bigint, "+
			"last_vacuum timestamptz, last_autovacuum timestamptz, last_analyze timestamptz, "+
			"last_autoanalyze timestamptz, vacuum_count bigint, autovacuum_count bigint, analyze_count bigint, "+
			"autoanalyze_count bigint",
		func(c *Context, r *rowSet) {
			for _, rel := range newModel(c).rels {
				if rel.lake == nil {
					continue
				}
				row := vals{"relid": rel.oid, "schemaname": rel.ns.name, "relname": rel.name}
				for _, k := range []string{"seq_scan", "seq_tup_read", "n_tup_ins", "n_tup_upd", "n_tup_del",
					"n_tup_hot_upd", "n_live_tup", "n_dead_tup", "n_mod_since_analyze", "n_ins_since_vacuum",
					"vacuum_count", "autovacuum_count", "analyze_count", "autoanalyze_count"} {
					row[k] = 0
				}
				r.add(row)
			}
		})

	// Views over the above.
	register("pg_catalog", "pg_tables", 12033, "v",
		"schemaname name, tablename name, tableowner name, tablespace name, hasindexes boolean, "+
			"hasrules boolean, hastriggers boolean, rowsecurity boolean",
		func(c *Context, r *rowSet) {
			indexed := indexedTables(c)
			for _, rel := range newModel(c).rels {
				if rel.kind == "r" {
					r.add(vals{"schemaname": rel.ns.name, "tablename": rel.name, "tableowner": c.User,
						"hasindexes": rel.lake != nil && indexed[rel.lake.ID], "hasrules": false, "hastriggers": false, "rowsecurity": false})
				}
			}
		})
	register("pg_catalog", "pg_views", 12028, "v", "schemaname name, viewname name, viewowner name, definition text",
		func(c *Context, r *rowSet) {
			for _, rel := range newModel(c).rels {
				if rel.kind == "v" {
					v := vals{"schemaname": rel.ns.name, "viewname": rel.name, "viewowner": c.User}
					if rel.view != nil {
						v["definition"] = ViewDefinition(rel.view)
					}
					r.add(v)
				}
			}
		})
	register("pg_catalog", "pg_matviews", 12038, "v",
		"schemaname name, matviewname name, matviewowner name, tablespace name, hasindexes boolean, "+
			"ispopulated boolean, definition text",
		func(c *Context, r *rowSet) {
			for _, rel := range newModel(c).rels {
				if rel.kind == "m" {
					r.add(vals{"schemaname": rel.ns.name, "matviewname": rel.name, "matviewowner": c.User,
						"hasindexes": false, "ispopulated": true, "definition": " " + rel.lake.MatView + ";"})
				}
			}
		})
	register("pg_catalog", "pg_indexes", 12043, "v",
		"schemaname name, tablename name, indexname name, tablespace name, indexdef text", pgIndexesRows)
}

// sequenceColumns are the columns of a sequence relation in PostgreSQL.
var sequenceColumns = []attribute{{name: "last_value", typ: 20, typmod: -1, notNull: true},
	{name: "log_cnt", typ: 20, typmod: -1, notNull: true}, {name: "is_called", typ: 16, typmod: -1, notNull: true}}

// systemColumns are the columns every PostgreSQL table has with negative
// attnums; pg_attribute lists them for tables, as PostgreSQL does.
var systemColumns = []struct {
	name string
	typ  int64
	num  int
}{{"tableoid", 26, -6}, {"cmax", 29, -5}, {"xmax", 28, -4}, {"cmin", 29, -3}, {"xmin", 28, -2}, {"ctid", 27, -1}}

// attribute is one pg_attribute row's substance.
type attribute struct {
	name    string
	typ     int64
	typmod  int32
	notNull bool
	def     *string // pg_get_expr text of the default, nil when none
	// identity is attidentity: 'a' or 'd' for an identity column, whose
	// nextval default PostgreSQL does not show as a default
	identity string
}

// attributes lists a relation's columns in attnum order.
// viewColsMu guards relation.viewCols, computed at the first ask.
var viewColsMu sync.Mutex

func attributes(rel *relation) []attribute {
	return attributesIn(nil, rel)
}

// attributesIn is attributes with the identity columns of c's sequences.
func attributesIn(c *Context, rel *relation) []attribute {
	if rel.view != nil {
		// a Context's model is shared by the statement's tables and
		// functions, which may ask from more than one goroutine; the view
		// is bound without the lock held, as binding it may read the
		// catalog (an empty list meanwhile, as for a view being bound)
		viewColsMu.Lock()
		cols, first := rel.viewCols, rel.viewCols == nil && rel.c.ViewColumns != nil
		if first {
			rel.viewCols = []attribute{}
		}
		viewColsMu.Unlock()
		if !first {
			return cols
		}
		cols = []attribute{}
		for _, vc := range rel.c.ViewColumns(rel.view) {
			cols = append(cols, attribute{name: vc.Name, typ: vc.OID, typmod: vc.Typmod})
		}
		viewColsMu.Lock()
		rel.viewCols = cols
		viewColsMu.Unlock()
		return cols
	}
	if rel.seq != nil {
		return sequenceColumns
	}
	if rel.lake == nil {
		out := make([]attribute, len(rel.sys.t.Cols))
		for i, col := range rel.sys.t.Cols {
			out[i] = attribute{name: col.Name, typ: rel.sys.pgType[i], typmod: -1}
			if col.Type == yesNo {
				out[i].typmod = 7
			}
		}
		return out
	}
	out := make([]attribute, len(rel.lake.Columns))
	for i, col := range rel.lake.Columns {
		oid, typmod := lakeColumnType(&col) // charn.go
		a := attribute{name: col.Name, typ: oid, typmod: typmod, notNull: !col.NullsAllowed}
		if col.DefaultValue != nil {
			d := defaultExpr(*col.DefaultValue, col.DefaultValueType, oid, typmod)
			a.def = &d
		}
		if c != nil {
			for _, q := range c.sequences() {
				if q.Identity != "" && q.OwnerTable == rel.lake.ID && q.OwnerColumn == col.ID {
					a.identity, a.def = q.Identity, nil
				}
			}
		}
		out[i] = a
	}
	return out
}

// defaultExpr renders a lake column default as pg_get_expr prints the
// default PostgreSQL stores for the DEFAULT a user most likely wrote.
// Expressions are kept as written. DuckLake keeps a literal default only as
// the column type's value ("0.000" for DEFAULT 0 on numeric(12,3)), so a
// number is printed as the literal that yields it: an integer as an
// integer constant (bare, or '-5'::integer when negative, as PostgreSQL
// prints int4 constants; '5000000000'::bigint beyond int4), a fraction
// as a numeric constant with trailing zeros dropped. Other values are
// quoted with a cast to the column type ('none'::character varying).
func defaultExpr(v, kind string, oid int64, typmod int32) string {
	if kind == "expression" {
		return v
	}
	switch oid {
	case 16:
		if v == "true" || v == "false" {
			return v
		}
	case 20, 21, 23, 700, 701, 1700:
		if lit, ok := numberLiteral(v); ok {
			return lit
		}
	}
	if oid == 1042 || oid == 1043 { // bpchar, varchar
		// PostgreSQL keeps the literal coerced to the type without its
		// length: 'x'::bpchar, 'x'::character varying
		typmod = -1
		if oid == 1042 {
			v = strings.TrimRight(v, " ")
		}
	}
	return quoteLiteral(v) + "::" + FormatType(oid, typmod, true)
}

// numberLiteral prints the constant PostgreSQL would show for a number
// literal with value v.
func numberLiteral(v string) (string, bool) {
	neg := strings.HasPrefix(v, "-")
	digits := strings.TrimPrefix(strings.TrimPrefix(v, "-"), "+")
	if digits == "" || strings.Trim(digits, "0123456789.") != "" || strings.Count(digits, ".") > 1 {
		return "", false // NaN, Infinity, exponents: quoted with a cast
	}
	if intPart, frac, ok := strings.Cut(digits, "."); ok {
		frac = strings.TrimRight(frac, "0")
		if frac != "" {
			if neg {
				return "'-" + intPart + "." + frac + "'::numeric", true
			}
			return intPart + "." + frac, true
		}
		digits = intPart
	}
	digits = strings.TrimLeft(digits, "0")
	if digits == "" {
		digits = "0"
	}
	n, err := strconv.ParseInt(digits, 10, 64)
	switch {
	case err != nil:
		if neg {
			return "'-" + digits + "'::numeric", true
		}
		return digits, true // a numeric constant prints bare
	case n <= 1<<31-1 && !neg:
		return digits, true
	case n <= 1<<31 && neg:
		return "'-" + digits + "'::integer", true
	case neg:
		return "'-" + digits + "'::bigint", true
	}
	return "'" + digits + "'::bigint", true
}

func quoteLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// roles are the pg_authid rows: the session user, a superuser, and
// pg_database_owner, which owns the public schema.
func roles(c *Context) []vals {
	var out []vals
	for _, e := range roleEntries(c) {
		su := e.role.Superuser
		v := vals{"oid": e.oid, "rolname": e.role.Name, "rolsuper": su, "rolinherit": true, "rolcreaterole": su,
			"rolcreatedb": su, "rolcanlogin": e.role.Login, "rolreplication": su, "rolbypassrls": su, "rolconnlimit": -1}
		if e.role.Verifier != "" {
			v["rolpassword"] = e.role.Verifier
		}
		out = append(out, v)
	}
	return append(out, vals{"oid": dbOwnerRoleOID, "rolname": "pg_database_owner", "rolsuper": false, "rolinherit": true,
		"rolcreaterole": false, "rolcreatedb": false, "rolcanlogin": false, "rolreplication": false,
		"rolbypassrls": false, "rolconnlimit": -1})
}

// fixedSettings are read-only settings pg_settings shows even though the
// session does not keep them.
var fixedSettings = map[string]string{
	"block_size": "8192", "max_index_keys": "32", "max_function_args": "100", "integer_datetimes": "on",
	"max_identifier_length": "63", "in_hot_standby": "off", "transaction_read_only": "off",
	"default_transaction_read_only": "off", "lc_messages": "C", "lc_monetary": "C", "lc_numeric": "C",
	"lc_time": "C", "is_superuser": "on", "server_encoding": "UTF8",
}

func settingsRows(c *Context, r *rowSet) {
	values := map[string]string{}
	for k, v := range fixedSettings {
		values[k] = v
	}
	for k, v := range c.Settings {
		values[strings.ToLower(k)] = v
	}
	// PostgreSQL keeps these out of pg_settings (GUC_NO_SHOW_ALL)
	delete(values, "is_superuser")
	delete(values, "session_authorization")
	type row struct {
		name string
		vals vals
	}
	var out []row
	for k, v := range values {
		d, ok := settingBy[k]
		if !ok {
			cat := "Ungrouped"
			if strings.Contains(k, ".") {
				cat = "Customized Options"
			}
			out = append(out, row{k, vals{"name": k, "setting": v, "category": cat, "short_desc": "",
				"context": "user", "vartype": "string", "source": "session", "reset_val": v, "pending_restart": false}})
			continue
		}
		source := "session"
		if _, fixed := fixedSettings[k]; fixed || v == d.boot || d.context == "internal" {
			source = "default"
		}
		rv := vals{"name": d.name, "setting": v, "category": d.category, "short_desc": d.short,
			"context": d.context, "vartype": d.vartype, "source": source, "boot_val": d.boot,
			"reset_val": v, "pending_restart": false}
		if d.unit != "" {
			rv["unit"] = d.unit
		}
		if d.extra != "" {
			rv["extra_desc"] = d.extra
		}
		if d.min != "" {
			rv["min_val"], rv["max_val"] = d.min, d.max
		}
		if d.enumvals != nil {
			rv["enumvals"] = arrayText(d.enumvals)
		}
		out = append(out, row{d.name, rv})
	}
	sort.Slice(out, func(i, j int) bool { return strings.ToLower(out[i].name) < strings.ToLower(out[j].name) })
	for _, x := range out {
		r.add(x.vals)
	}
}

// arrayText renders a text[] as PostgreSQL prints it.
func arrayText(elems []string) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, e := range elems {
		if i > 0 {
			b.WriteByte(',')
		}
		plain := e != "" && !strings.EqualFold(e, "null") && !strings.ContainsAny(e, " ,{}\"\\\t\n")
		if plain {
			b.WriteString(e)
			continue
		}
		b.WriteByte('"')
		b.WriteString(strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(e))
		b.WriteByte('"')
	}
	b.WriteByte('}')
	return b.String()
}

// processStart is when this process started: pg_postmaster_start_time.
var processStart = time.Now()

// StartTime is pg_postmaster_start_time().
func StartTime() time.Time { return processStart }
