package integration

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/lakepg/lakepg/test/testserver"
)

// catalogSchema is created on lakepg and on PostgreSQL alike. Text columns are varchar
// because a lake keeps no text/varchar(n) distinction (DuckLake stores both as varchar).
const catalogSchema = `
CREATE SCHEMA IF NOT EXISTS main;
CREATE SCHEMA sales;
CREATE TABLE items (id bigint NOT NULL, name varchar, price numeric(10,2), created timestamptz,
  flag boolean DEFAULT true, n integer, s smallint, r real, d double precision, dt date,
  ts timestamp, b bytea, u uuid, iv interval);
CREATE TABLE sales.orders (order_id integer, item_id bigint, qty integer DEFAULT 1,
  note varchar DEFAULT 'none', amount numeric(12,3) DEFAULT 0, since date DEFAULT '2024-01-01',
  big bigint DEFAULT -5);
`

// catalogQueries are introspection queries of psql, pgJDBC, DBeaver and SQLAlchemy (as
// those tools send them, trimmed to columns that carry no OIDs) and direct probes of the
// catalog, each compared with what PostgreSQL answers for the same schema.
var catalogQueries = []struct{ name, sql string }{
	{"psql \\dn", `SELECT n.nspname AS "Name", pg_catalog.pg_get_userbyid(n.nspowner) AS "Owner"
FROM pg_catalog.pg_namespace n WHERE n.nspname !~ '^pg_' AND n.nspname <> 'information_schema' ORDER BY 1`},
	{"psql \\dt", `SELECT n.nspname as "Schema", c.relname as "Name",
  CASE c.relkind WHEN 'r' THEN 'table' WHEN 'v' THEN 'view' WHEN 'm' THEN 'materialized view' WHEN 'i' THEN 'index' WHEN 'S' THEN 'sequence' WHEN 't' THEN 'TOAST table' WHEN 'f' THEN 'foreign table' WHEN 'p' THEN 'partitioned table' WHEN 'I' THEN 'partitioned index' END as "Type",
  pg_catalog.pg_get_userbyid(c.relowner) as "Owner"
FROM pg_catalog.pg_class c LEFT JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace LEFT JOIN pg_catalog.pg_am am ON am.oid = c.relam
WHERE c.relkind IN ('r','p','') AND n.nspname <> 'pg_catalog' AND n.nspname !~ '^pg_toast' AND n.nspname <> 'information_schema'
  AND pg_catalog.pg_table_is_visible(c.oid) ORDER BY 1,2`},
	{"psql \\d lookup", `SELECT n.nspname, c.relname FROM pg_catalog.pg_class c LEFT JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE c.relname OPERATOR(pg_catalog.~) '^(orders)$' COLLATE pg_catalog.default AND n.nspname OPERATOR(pg_catalog.~) '^(sales)$' COLLATE pg_catalog.default ORDER BY 1, 2`},
	{"psql \\d table", `SELECT c.relchecks, c.relkind, c.relhasindex, c.relhasrules, c.relhastriggers, c.relrowsecurity, c.relforcerowsecurity, false AS relhasoids, c.relispartition, '', c.reltablespace, CASE WHEN c.reloftype = 0 THEN '' ELSE c.reloftype::pg_catalog.regtype::pg_catalog.text END, c.relpersistence, c.relreplident, am.amname
FROM pg_catalog.pg_class c LEFT JOIN pg_catalog.pg_class tc ON (c.reltoastrelid = tc.oid) LEFT JOIN pg_catalog.pg_am am ON (c.relam = am.oid)
WHERE c.oid = 'sales.orders'::regclass`},
	{"psql \\d columns (aggregate form)", `SELECT a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod),
  (SELECT max(pg_catalog.pg_get_expr(d.adbin, d.adrelid, true)) FROM pg_catalog.pg_attrdef d WHERE d.adrelid = a.attrelid AND d.adnum = a.attnum AND a.atthasdef),
  a.attnotnull, a.attidentity, a.attgenerated
FROM pg_catalog.pg_attribute a WHERE a.attrelid = 'sales.orders'::regclass AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`},
	{"psql \\d inherits", `SELECT c.oid::pg_catalog.regclass FROM pg_catalog.pg_class c, pg_catalog.pg_inherits i
WHERE c.oid = i.inhparent AND i.inhrelid = 'items'::regclass AND c.relkind != 'p' AND c.relkind != 'I' ORDER BY inhseqno`},
	{"psql \\df", `SELECT n.nspname as "Schema", p.proname as "Name", pg_catalog.pg_get_function_result(p.oid) as "Result data type",
  pg_catalog.pg_get_function_arguments(p.oid) as "Argument data types",
  CASE p.prokind WHEN 'a' THEN 'agg' WHEN 'w' THEN 'window' WHEN 'p' THEN 'proc' ELSE 'func' END as "Type"
FROM pg_catalog.pg_proc p LEFT JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
WHERE pg_catalog.pg_function_is_visible(p.oid) AND n.nspname <> 'pg_catalog' AND n.nspname <> 'information_schema' ORDER BY 1, 2, 4`},
	{"information_schema.schemata", `SELECT catalog_name, schema_name, schema_owner FROM information_schema.schemata WHERE schema_name NOT LIKE 'pg_%' AND schema_name <> 'information_schema' ORDER BY 2`},
	{"information_schema.tables", `SELECT table_catalog, table_schema, table_name, table_type, is_insertable_into, is_typed FROM information_schema.tables WHERE table_schema NOT IN ('pg_catalog','information_schema') ORDER BY 2,3`},
	{"information_schema.columns", `SELECT table_schema, table_name, column_name, ordinal_position, column_default, is_nullable, data_type, character_maximum_length, character_octet_length, numeric_precision, numeric_precision_radix, numeric_scale, datetime_precision, udt_catalog, udt_schema, udt_name, dtd_identifier, is_self_referencing, is_identity, identity_cycle, is_generated, is_updatable
FROM information_schema.columns WHERE table_schema NOT IN ('pg_catalog','information_schema') ORDER BY 1,2,4`},
	{"information_schema.table_constraints", `SELECT constraint_schema, table_name, constraint_type, is_deferrable, initially_deferred, enforced FROM information_schema.table_constraints WHERE table_schema NOT IN ('pg_catalog','information_schema') ORDER BY 1,2`},
	{"information_schema.check_constraints", `SELECT cc.check_clause FROM information_schema.check_constraints cc JOIN information_schema.table_constraints tc ON tc.constraint_name = cc.constraint_name WHERE tc.table_name = 'items'`},
	{"information_schema.key_column_usage", `SELECT * FROM information_schema.key_column_usage WHERE table_schema NOT IN ('pg_catalog','information_schema')`},
	{"pg_class", `SELECT n.nspname, c.relname, c.relkind, c.relnatts, c.relhasindex, c.relpersistence, c.relchecks, c.relispartition, c.relhasrules, c.relhastriggers, c.relreplident, am.amname
FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace LEFT JOIN pg_catalog.pg_am am ON am.oid = c.relam WHERE n.nspname NOT IN ('pg_catalog','information_schema','pg_toast') ORDER BY 1,2`},
	{"pg_attribute", `SELECT a.attnum, a.attname, a.atttypid, a.atttypmod, a.attlen, a.attbyval, a.attalign, a.attstorage, a.attnotnull, a.atthasdef, a.attisdropped, a.attcollation, a.attndims, pg_catalog.format_type(a.atttypid, a.atttypmod)
FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_class c ON c.oid = a.attrelid WHERE c.relname = 'items' ORDER BY a.attnum`},
	{"pg_attrdef", `SELECT c.relname, a.attname, pg_catalog.pg_get_expr(d.adbin, d.adrelid) FROM pg_catalog.pg_attrdef d JOIN pg_catalog.pg_attribute a ON a.attrelid = d.adrelid AND a.attnum = d.adnum JOIN pg_catalog.pg_class c ON c.oid = d.adrelid ORDER BY 1, 2`},
	{"pg_tables", `SELECT schemaname, tablename, tableowner, tablespace, hasindexes, hasrules, hastriggers, rowsecurity FROM pg_catalog.pg_tables WHERE schemaname NOT IN ('pg_catalog','information_schema') ORDER BY 1,2`},
	{"pg_views", `SELECT * FROM pg_catalog.pg_views WHERE schemaname NOT IN ('pg_catalog','information_schema')`},
	{"pg_type", `SELECT oid, typname, typnamespace, typlen, typbyval, typtype, typcategory, typispreferred, typdelim, typelem, typarray, typalign, typstorage, typnotnull, typbasetype, typtypmod, typndims, typcollation
FROM pg_catalog.pg_type WHERE oid IN (16,17,18,19,20,21,23,25,26,700,701,1042,1043,1082,1114,1184,1186,1700,2950,1000,1007,1009,1015) ORDER BY oid`},
	{"pg_type I/O functions", `SELECT t.typname, i.proname, o.proname FROM pg_catalog.pg_type t JOIN pg_catalog.pg_proc i ON i.oid = t.typinput JOIN pg_catalog.pg_proc o ON o.oid = t.typoutput WHERE t.oid IN (16, 23, 1043, 1700, 1007) ORDER BY 1`},
	{"format_type", `SELECT format_type(23, NULL), format_type(1043, 24), format_type(1043, -1), format_type(1700, 655366), format_type(1042, NULL), format_type(1042, -1), format_type(1184, 3), format_type(1007, -1), format_type(18, NULL), format_type(0, NULL), format_type(2276, NULL)`},
	{"pg_database", `SELECT pg_catalog.pg_encoding_to_char(encoding), datcollate, datistemplate, datallowconn, datconnlimit FROM pg_catalog.pg_database WHERE datname = current_database()`},
	{"pg_settings", `SELECT name, unit, category, short_desc, context, vartype, min_val, max_val, enumvals FROM pg_catalog.pg_settings
WHERE name IN ('DateStyle','IntervalStyle','TimeZone','bytea_output','extra_float_digits','max_identifier_length','search_path','standard_conforming_strings','statement_timeout','integer_datetimes','server_encoding','block_size') ORDER BY name`},
	{"pg_am", `SELECT amname, amtype FROM pg_catalog.pg_am ORDER BY 1`},
	{"pg_tablespace", `SELECT oid, spcname FROM pg_catalog.pg_tablespace ORDER BY 1`},
	{"pg_table_is_visible", `SELECT c.relname, pg_catalog.pg_table_is_visible(c.oid) FROM pg_catalog.pg_class c WHERE c.relname IN ('items', 'orders', 'pg_class', 'tables') ORDER BY 1`},
	{"privileges and descriptions", `SELECT has_table_privilege('items', 'SELECT'), has_schema_privilege('public', 'USAGE'), has_database_privilege(current_database(), 'CONNECT'), obj_description(16384, 'pg_class'), col_description(16384, 1)`},
	{"misc functions", `SELECT pg_encoding_to_char(6), pg_encoding_to_char(0), pg_is_in_recovery(), pg_typeof(1), pg_get_constraintdef(1), pg_get_indexdef(1), pg_postmaster_start_time() < now(), current_setting('max_identifier_length'), pg_size_pretty(10240::bigint)`},
	{"reg* casts", `SELECT 'items'::regclass::oid = c.oid, 'pg_class'::regclass::oid, 'pg_catalog.pg_type'::regclass::oid, 'int4'::regtype::oid, 'character varying'::regtype::oid, 'pg_catalog'::regnamespace::oid
FROM pg_catalog.pg_class c WHERE c.relname = 'items'`},
	{"reg* output", `SELECT c.oid::regclass::text, 1259::regclass::text, 23::regtype::text, 1043::regtype::text, 11::regnamespace::text FROM pg_catalog.pg_class c WHERE c.relname IN ('items', 'orders') ORDER BY 1`},
	{"to_regclass", `SELECT to_regclass('nope') IS NULL, to_regclass('items') IS NOT NULL`},
	{"pg_proc", `SELECT proname, pronargs, prorettype, proargtypes, prokind, proretset, provolatile FROM pg_catalog.pg_proc WHERE proname IN ('format_type', 'pg_get_userbyid', 'pg_backend_pid', 'int4in', 'array_in') ORDER BY 1`},
	{"pgJDBC getTables", `SELECT NULL AS TABLE_CAT, n.nspname AS TABLE_SCHEM, c.relname AS TABLE_NAME, CASE n.nspname ~ '^pg_' OR n.nspname = 'information_schema' WHEN true THEN CASE WHEN n.nspname = 'pg_catalog' OR n.nspname = 'information_schema' THEN CASE c.relkind WHEN 'r' THEN 'SYSTEM TABLE' WHEN 'v' THEN 'SYSTEM VIEW' WHEN 'i' THEN 'SYSTEM INDEX' ELSE NULL END WHEN n.nspname = 'pg_toast' THEN CASE c.relkind WHEN 'r' THEN 'SYSTEM TOAST TABLE' WHEN 'i' THEN 'SYSTEM TOAST INDEX' ELSE NULL END ELSE CASE c.relkind WHEN 'r' THEN 'TEMPORARY TABLE' WHEN 'p' THEN 'TEMPORARY TABLE' WHEN 'i' THEN 'TEMPORARY INDEX' WHEN 'S' THEN 'TEMPORARY SEQUENCE' WHEN 'v' THEN 'TEMPORARY VIEW' ELSE NULL END END WHEN false THEN CASE c.relkind WHEN 'r' THEN 'TABLE' WHEN 'p' THEN 'PARTITIONED TABLE' WHEN 'i' THEN 'INDEX' WHEN 'I' THEN 'PARTITIONED INDEX' WHEN 'S' THEN 'SEQUENCE' WHEN 'v' THEN 'VIEW' WHEN 'c' THEN 'TYPE' WHEN 'f' THEN 'FOREIGN TABLE' WHEN 'm' THEN 'MATERIALIZED VIEW' ELSE NULL END ELSE NULL END AS TABLE_TYPE, d.description AS REMARKS, '' as TYPE_CAT, '' as TYPE_SCHEM, '' as TYPE_NAME, '' AS SELF_REFERENCING_COL_NAME, '' AS REF_GENERATION
FROM pg_catalog.pg_namespace n, pg_catalog.pg_class c LEFT JOIN pg_catalog.pg_description d ON (c.oid = d.objoid AND d.objsubid = 0 and d.classoid = 'pg_class'::regclass)
WHERE c.relnamespace = n.oid AND c.relname LIKE '%' AND (false OR ( c.relkind IN ('r','p') AND n.nspname !~ '^pg_' AND n.nspname <> 'information_schema' ) ) ORDER BY TABLE_TYPE,TABLE_SCHEM,TABLE_NAME`},
	{"pgJDBC getColumns", `SELECT * FROM (SELECT n.nspname,c.relname,a.attname,a.atttypid,a.attnotnull OR (t.typtype = 'd' AND t.typnotnull) AS attnotnull,a.atttypmod,a.attlen,t.typtypmod,row_number() OVER (PARTITION BY a.attrelid ORDER BY a.attnum) AS attnum, nullif(a.attidentity, '') as attidentity,nullif(a.attgenerated, '') as attgenerated,pg_catalog.pg_get_expr(def.adbin, def.adrelid) AS adsrc,dsc.description,t.typbasetype,t.typtype
FROM pg_catalog.pg_namespace n JOIN pg_catalog.pg_class c ON (c.relnamespace = n.oid) JOIN pg_catalog.pg_attribute a ON (a.attrelid=c.oid) JOIN pg_catalog.pg_type t ON (a.atttypid = t.oid) LEFT JOIN pg_catalog.pg_attrdef def ON (a.attrelid=def.adrelid AND a.attnum = def.adnum) LEFT JOIN pg_catalog.pg_description dsc ON (c.oid=dsc.objoid AND a.attnum = dsc.objsubid) LEFT JOIN pg_catalog.pg_class dc ON (dc.oid=dsc.classoid AND dc.relname='pg_class') LEFT JOIN pg_catalog.pg_namespace dn ON (dc.relnamespace=dn.oid AND dn.nspname='pg_catalog')
WHERE c.relkind in ('r','p','v','f','m') and a.attnum > 0 AND NOT a.attisdropped AND n.nspname LIKE 'sales' AND c.relname LIKE '%') c WHERE true ORDER BY nspname,c.relname,attnum`},
	{"DBeaver columns", `SELECT c.relname,a.attname,a.atttypid,a.attnum,a.attnotnull,a.atttypmod,pg_catalog.pg_get_expr(ad.adbin, ad.adrelid, true) as def_value,dsc.description,dep.objid
FROM pg_catalog.pg_attribute a INNER JOIN pg_catalog.pg_class c ON (a.attrelid=c.oid) LEFT OUTER JOIN pg_catalog.pg_attrdef ad ON (a.attrelid=ad.adrelid AND a.attnum = ad.adnum) LEFT OUTER JOIN pg_catalog.pg_description dsc ON (c.oid=dsc.objoid AND a.attnum = dsc.objsubid) LEFT OUTER JOIN pg_depend dep on dep.refobjid = a.attrelid AND dep.deptype = 'i' and dep.refobjsubid = a.attnum and dep.classid = dep.refclassid
WHERE NOT a.attisdropped AND c.relkind not in ('i','I','c') AND c.oid='sales.orders'::regclass ORDER BY a.attnum`},
	{"DBeaver keywords", `SELECT count(*) > 400, count(*) FILTER (WHERE catcode = 'R') > 70 FROM pg_catalog.pg_get_keywords()`},
	{"SQLAlchemy has_table", `SELECT pg_catalog.pg_class.relname FROM pg_catalog.pg_class JOIN pg_catalog.pg_namespace ON pg_catalog.pg_namespace.oid = pg_catalog.pg_class.relnamespace
WHERE pg_catalog.pg_class.relname = 'items' AND pg_catalog.pg_class.relkind IN ('r', 'p', 'f', 'v', 'm') AND pg_catalog.pg_table_is_visible(pg_catalog.pg_class.oid) AND pg_catalog.pg_namespace.nspname != 'pg_catalog'`},
	{"pg_stat_activity", `SELECT usename, state, backend_type, query FROM pg_catalog.pg_stat_activity WHERE pid = pg_backend_pid()`},
	{"psql \\d columns", `SELECT a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod),
  (SELECT pg_catalog.pg_get_expr(d.adbin, d.adrelid, true) FROM pg_catalog.pg_attrdef d WHERE d.adrelid = a.attrelid AND d.adnum = a.attnum AND a.atthasdef),
  a.attnotnull,
  (SELECT c.collname FROM pg_catalog.pg_collation c, pg_catalog.pg_type t WHERE c.oid = a.attcollation AND t.oid = a.atttypid AND a.attcollation <> t.typcollation) AS attcollation,
  a.attidentity, a.attgenerated
FROM pg_catalog.pg_attribute a WHERE a.attrelid = 'sales.orders'::regclass AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`},
	{"SQLAlchemy get_table_names", `SELECT pg_catalog.pg_class.relname FROM pg_catalog.pg_class JOIN pg_catalog.pg_namespace ON pg_catalog.pg_namespace.oid = pg_catalog.pg_class.relnamespace
WHERE pg_catalog.pg_class.relkind = ANY (ARRAY['r', 'p']) AND pg_catalog.pg_class.relpersistence != 't' AND pg_catalog.pg_table_is_visible(pg_catalog.pg_class.oid) AND pg_catalog.pg_namespace.nspname != 'pg_catalog'`},
	{"psql \\d statistics", `SELECT oid, stxrelid::pg_catalog.regclass, stxnamespace::pg_catalog.regnamespace::pg_catalog.text AS nsp, stxname,
pg_catalog.pg_get_statisticsobjdef_columns(oid) AS columns, 'd' = any(stxkind) AS ndist_enabled, 'f' = any(stxkind) AS deps_enabled, 'm' = any(stxkind) AS mcv_enabled, stxstattarget
FROM pg_catalog.pg_statistic_ext WHERE stxrelid = 'items'::regclass ORDER BY nsp, stxname`}, {"pgJDBC getSchemas", `SELECT nspname AS TABLE_SCHEM, NULL AS TABLE_CATALOG FROM pg_catalog.pg_namespace WHERE nspname <> 'pg_toast' AND (nspname !~ '^pg_temp_' OR nspname = (pg_catalog.current_schemas(true))[1]) AND (nspname !~ '^pg_toast_temp_' OR nspname = replace((pg_catalog.current_schemas(true))[1], 'pg_temp_', 'pg_toast_temp_')) ORDER BY TABLE_SCHEM`},
}

// catalogPending are tool queries lakepg cannot run yet for lack of SQL features (not of
// catalog content): each is run, must fail, and is reported, so that the day the feature
// lands the test says to move it to catalogQueries.
var catalogPending = []struct{ name, sql, lacks string }{}

// psqlAt runs one query with `psql -X -At` on dsn and returns stdout and stderr together.
func psqlAt(t *testing.T, dsn, sql string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), psqlTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, psqlPath(t), "-X", "-At", "-v", "VERBOSITY=terse", "-d", dsn, "-c", sql)
	cmd.Env = psqlEnv()
	out, err := cmd.CombinedOutput()
	if err != nil && ctx.Err() != nil {
		t.Fatalf("psql on %s: %v", dsn, err)
	}
	return strings.TrimSpace(string(out))
}

// catalogHooked reports whether this server binds the catalog functions (the binder hook
// of sql/pgcatalog_funcs.go); without it every tool query fails at pg_get_userbyid.
func catalogHooked(t *testing.T, conn *pgx.Conn) bool {
	t.Helper()
	var pid int32
	err := conn.QueryRow(testCtx(t), "SELECT pg_backend_pid()").Scan(&pid)
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "42883" {
		return false
	}
	if err != nil {
		t.Fatalf("SELECT pg_backend_pid(): %v", err)
	}
	if pid != int32(conn.PgConn().PID()) {
		t.Errorf("pg_backend_pid() = %d, BackendKeyData said %d", pid, conn.PgConn().PID())
	}
	return true
}

func TestCatalogEmulation(t *testing.T) {
	srv := startServer(t, t.TempDir())
	conn := srv.connect(t, pgx.QueryExecModeCacheStatement)
	if !catalogHooked(t, conn) {
		t.Fatal("pg_backend_pid() is undefined: the binder does not call (*binder).systemFunction (see sql/pgcatalog_funcs.go)")
	}
	for _, stmt := range strings.Split(strings.TrimSpace(catalogSchema), ";") {
		if stmt = strings.TrimSpace(stmt); stmt != "" {
			mustExec(t, conn, stmt)
		}
	}

	t.Run("psql", func(t *testing.T) {
		checkText(t, `\dn`, srv.mustPsql(t, `\dn`), text(`
      List of schemas
  Name  |       Owner       $
--------+-------------------
 main   | test
 public | pg_database_owner
 sales  | test
(3 rows)

`))
		checkText(t, `\dt`, srv.mustPsql(t, `\dt`), text(`
       List of relations
 Schema | Name  | Type  | Owner $
--------+-------+-------+-------
 public | items | table | test
(1 row)

`))
		checkText(t, `\dt sales.*`, srv.mustPsql(t, `\dt sales.*`), text(`
        List of relations
 Schema |  Name  | Type  | Owner $
--------+--------+-------+-------
 sales  | orders | table | test
(1 row)

`))
		if r := srv.psqlC(t, `\dv`); r.code != 0 || r.stderr != "Did not find any relations.\n" {
			t.Errorf(`\dv: exit %d, stderr %q, stdout %q`, r.code, r.stderr, r.stdout)
		}
		checkText(t, `\df`, srv.mustPsql(t, `\df`), text(`
                       List of functions
 Schema | Name | Result data type | Argument data types | Type $
--------+------+------------------+---------------------+------
(0 rows)

`))
		checkText(t, `\l`, srv.mustPsql(t, `\l`), text(`
                                          List of databases
   Name    | Owner | Encoding | Collate |  Ctype  | ICU Locale | Locale Provider | Access privileges $
-----------+-------+----------+---------+---------+------------+-----------------+-------------------
 lake      | test  | UTF8     | C       | C.UTF-8 |            | libc            | $
 template0 | test  | UTF8     | C       | C       |            | libc            | =c/test          +$
           |       |          |         |         |            |                 | test=CTc/test$
 template1 | test  | UTF8     | C       | C       |            | libc            | =c/test          +$
           |       |          |         |         |            |                 | test=CTc/test$
(3 rows)

`))
		// \d runs its pg_attribute query with non-aggregate correlated subqueries; see
		// catalogPending
		if r := srv.psqlC(t, `\d sales.orders`); r.code != 0 || r.stderr != "" {
			t.Logf(`\d sales.orders does not work yet: %s`, strings.TrimSpace(r.stderr))
		}
	})

	t.Run("pgx", func(t *testing.T) {
		// OIDs scan into uint32 as drivers keep them; RowDescription says int8 for them
		var relOID, nsOID uint32
		var relname string
		if err := conn.QueryRow(testCtx(t), `SELECT c.oid, c.relnamespace, c.relname FROM pg_catalog.pg_class c
			JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relname = $2`, "sales", "orders").
			Scan(&relOID, &nsOID, &relname); err != nil {
			t.Fatal(err)
		}
		if relOID < 16384 || nsOID < 16384 || relOID == nsOID {
			t.Errorf("sales.orders: oid %d in namespace %d", relOID, nsOID)
		}
		var n int64
		if err := conn.QueryRow(testCtx(t), `SELECT count(*) FROM pg_catalog.pg_attribute WHERE attrelid = $1 AND attnum > 0`, relOID).Scan(&n); err != nil || n != 7 {
			t.Errorf("attributes of oid %d: %d, %v", relOID, n, err)
		}
		var name string
		if err := conn.QueryRow(testCtx(t), `SELECT $1::regclass::text`, "sales.orders").Scan(&name); err == nil {
			t.Logf("$1::regclass::text = %q", name)
		}
		// a second session shows in pg_stat_activity, and leaves it when it closes
		other := srv.connect(t, pgx.QueryExecModeSimpleProtocol)
		otherPID := other.PgConn().PID()
		if c := queryInt(t, conn, `SELECT count(*) FROM pg_catalog.pg_stat_activity WHERE pid = $1`, int32(otherPID)); c != 1 {
			t.Errorf("pg_stat_activity shows the other session %d times", c)
		}
		_ = other.Close(testCtx(t))
		deadline := time.Now().Add(10 * time.Second)
		for queryInt(t, conn, `SELECT count(*) FROM pg_catalog.pg_stat_activity WHERE pid = $1`, int32(otherPID)) != 0 {
			if time.Now().After(deadline) {
				t.Errorf("pg_stat_activity still shows session %d after it closed", otherPID)
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
	})

	t.Run("postgres", func(t *testing.T) {
		pgDSN := testserver.PostgresDatabase(t, "catalog")
		pgConn, err := pgconn.Connect(testCtx(t), pgDSN)
		if err != nil {
			t.Fatal(err)
		}
		defer pgConn.Close(context.Background())
		if _, err := pgConn.Exec(testCtx(t), catalogSchema).ReadAll(); err != nil {
			t.Fatalf("PostgreSQL: %v", err)
		}
		var pgDB, pgUser string
		for _, kv := range strings.Split(psqlAt(t, pgDSN, "SELECT current_database() || '|' || current_user"), "\n") {
			pgDB, pgUser, _ = strings.Cut(kv, "|")
		}
		// the PostgreSQL side runs as another user in another database: name them as lakepg's
		normalize := func(s string) string {
			s = strings.ReplaceAll(s, pgDB, "lake")
			var out []string
			for _, line := range strings.Split(s, "\n") {
				fields := strings.Split(line, "|")
				for i, f := range fields {
					if f == pgUser {
						fields[i] = "test"
					}
				}
				out = append(out, strings.Join(fields, "|"))
			}
			return strings.Join(out, "\n")
		}
		for _, q := range catalogQueries {
			want := normalize(psqlAt(t, pgDSN, q.sql))
			got := psqlAt(t, srv.DSN(), q.sql)
			if got != want {
				t.Errorf("%s differs from PostgreSQL\nquery: %s\n--- lakepg:\n%s\n--- PostgreSQL:\n%s", q.name, q.sql, got, want)
			}
		}
		for _, q := range catalogPending {
			want := normalize(psqlAt(t, pgDSN, q.sql))
			got := psqlAt(t, srv.DSN(), q.sql)
			switch {
			case got == want:
				t.Errorf("%s now matches PostgreSQL: move it from catalogPending to catalogQueries", q.name)
			case strings.HasPrefix(got, "ERROR:"):
				t.Logf("pending, needs %s: %s", q.lacks, got)
			default:
				t.Errorf("%s runs but differs from PostgreSQL\n--- lakepg:\n%s\n--- PostgreSQL:\n%s", q.name, got, want)
			}
		}
	})
}
