-- The SQL DBeaver's PostgreSQL plugin sends for its navigator beyond pgJDBC's
-- DatabaseMetaData (plugins/org.jkiss.dbeaver.ext.postgresql/src/org/jkiss/dbeaver/ext/
-- postgresql/model/*.java in dbeaver/dbeaver), with the default connection settings (no
-- template or unavailable databases shown, no object filters). DBeaver binds the OIDs as
-- JDBC parameters; here they are {{did}}, {{scid}}, {{tid}} (see sql_checks.py).

-- name: connect.current_database
-- from: PostgreDataSource.java (bootstrap connection)
SELECT current_database();

-- name: databases
-- from: PostgreDataSource.java (database list)
-- A lake is one database, under the name the client connected with; PostgreSQL's cluster
-- also has postgres (and other tests' databases). datfrozenxid and datminmxid are
-- transaction and multixact ids (PostgreSQL's are xid, lakepg's bigint); datctype is
-- C.UTF-8 in the test's PostgreSQL database (testserver), C in lakepg.
-- keep: datname={{db}}
-- ignore: datfrozenxid datminmxid datctype
SELECT db.oid,db.* FROM pg_catalog.pg_database db WHERE 1 = 1 AND datallowconn AND NOT datistemplate OR db.datname ='{{db}}';

-- name: database
-- from: PostgreDatabase.java (readDatabaseInfo)
-- ignore: datfrozenxid datminmxid datctype
SELECT db.oid,db.* FROM pg_catalog.pg_database db WHERE datname='{{db}}';

-- name: templates
-- from: PostgreDataSource.java (template databases)
SELECT db.datname FROM pg_catalog.pg_database db WHERE datistemplate;

-- name: settings
-- from: PostgreDataSource.java (a setting)
select * from pg_catalog.pg_settings where name='search_path';

-- name: roles
-- from: PostgreDatabase.java (RoleCache)
-- keep: rolname={{user}}|pg_database_owner
SELECT a.oid,a.*,pd.description FROM pg_catalog.pg_roles a
left join pg_catalog.pg_shdescription pd on a.oid = pd.objoid
ORDER BY a.rolname;

-- name: schemas
-- from: PostgreDatabase.java (SchemaCache)
SELECT n.oid,n.*,d.description FROM pg_catalog.pg_namespace n
LEFT OUTER JOIN pg_catalog.pg_description d ON d.objoid=n.oid AND d.objsubid=0 AND d.classoid='pg_namespace'::regclass
 ORDER BY nspname;

-- name: tablespaces
-- from: PostgreDatabase.java (TablespaceCache)
SELECT t.oid,t.*,pg_catalog.pg_tablespace_location(t.oid) loc
FROM pg_catalog.pg_tablespace t  ORDER BY t.oid;

-- name: available_extensions
-- from: PostgreDatabase.java (AvailableExtensionCache)
-- PostgreSQL also lists the contrib extensions installed on its host.
-- keep: name=plpgsql
SELECT name,default_version,installed_version,comment FROM pg_catalog.pg_available_extensions ORDER BY name;

-- name: default_acl
-- from: PostgreSchema.java (default privileges)
SELECT * FROM pg_default_acl WHERE defaclnamespace = {{scid}};

-- name: inheritance
-- from: PostgreSchema.java (table inheritance)
SELECT i.inhrelid relid, pc.relnamespace parent_ns, pc.oid parent_oid, i.inhseqno
FROM pg_catalog.pg_inherits i, pg_class rc, pg_class pc
WHERE rc.oid=i.inhrelid AND rc.relnamespace={{scid}} AND pc.oid=i.inhparent;

-- name: tables
-- from: PostgreSchema.java (TableCache)
-- relfrozenxid and relminmxid are transaction and multixact ids.
-- ignore: relfrozenxid relminmxid
SELECT c.oid,c.*,d.description,pg_catalog.pg_get_expr(c.relpartbound, c.oid) as partition_expr,  pg_catalog.pg_get_partkeydef(c.oid) as partition_key
FROM pg_catalog.pg_class c
LEFT OUTER JOIN pg_catalog.pg_description d ON d.objoid=c.oid AND d.objsubid=0 AND d.classoid='pg_class'::regclass
WHERE c.relnamespace={{scid}} AND c.relkind not in ('i','I','c');

-- name: columns
-- from: PostgreSchema.java (TableCache, columns of a table)
SELECT c.relname,a.*,pg_catalog.pg_get_expr(ad.adbin, ad.adrelid, true) as def_value,dsc.description,dep.objid
FROM pg_catalog.pg_attribute a
INNER JOIN pg_catalog.pg_class c ON (a.attrelid=c.oid)
LEFT OUTER JOIN pg_catalog.pg_attrdef ad ON (a.attrelid=ad.adrelid AND a.attnum = ad.adnum)
LEFT OUTER JOIN pg_catalog.pg_description dsc ON (c.oid=dsc.objoid AND a.attnum = dsc.objsubid)
LEFT OUTER JOIN pg_depend dep on dep.refobjid = a.attrelid AND dep.deptype = 'i' and dep.refobjsubid = a.attnum and dep.classid = dep.refclassid
WHERE NOT a.attisdropped AND c.relkind not in ('i','I','c') AND c.oid={{tid}}
ORDER BY a.attnum;

-- name: constraints
-- from: PostgreSchema.java (ConstraintCache)
SELECT c.oid,c.*,t.relname as tabrelname,rt.relnamespace as refnamespace,d.description
FROM pg_catalog.pg_constraint c
INNER JOIN pg_catalog.pg_class t ON t.oid=c.conrelid
LEFT OUTER JOIN pg_catalog.pg_class rt ON rt.oid=c.confrelid
LEFT OUTER JOIN pg_catalog.pg_description d ON d.objoid=c.oid AND d.objsubid=0 AND d.classoid='pg_constraint'::regclass
WHERE c.conrelid={{tid}}
ORDER BY c.oid;

-- name: indexes
-- from: PostgreSchema.java (IndexCache)
SELECT i.*,i.indkey as keys,c.relname,c.relnamespace,c.relam,c.reltablespace,tc.relname as tabrelname,dsc.description,pg_catalog.pg_get_expr(i.indpred, i.indrelid) as pred_expr,pg_catalog.pg_get_expr(i.indexprs, i.indrelid, true) as expr,pg_catalog.pg_relation_size(i.indexrelid) as index_rel_size,pg_catalog.pg_stat_get_numscans(i.indexrelid) as index_num_scans
FROM pg_catalog.pg_index i
INNER JOIN pg_catalog.pg_class c ON c.oid=i.indexrelid
INNER JOIN pg_catalog.pg_class tc ON tc.oid=i.indrelid
LEFT OUTER JOIN pg_catalog.pg_description dsc ON i.indexrelid=dsc.objoid
WHERE  i.indrelid={{tid}} ORDER BY c.relname;
