package sql

import "testing"

func TestPrivilegesEnforced(t *testing.T) {
	s := lake(t)
	must(t, s, `CREATE ROLE priv_a`)
	must(t, s, `CREATE ROLE priv_b`)
	must(t, s, `CREATE TABLE t (x int)`)
	must(t, s, `INSERT INTO t VALUES (1)`)
	must(t, s, `SET ROLE priv_a`)
	must(t, s, `SELECT current_user`, "priv_a")
	mustFail(t, s, `SELECT * FROM t`, "42501")
	mustFail(t, s, `INSERT INTO t VALUES (2)`, "42501")
	mustFail(t, s, `CREATE TABLE mine (x int)`, "42501")
	mustFail(t, s, `CREATE SEQUENCE mine`, "42501")
	mustFail(t, s, `DROP TABLE t`, "42501")
	mustFail(t, s, `CREATE INDEX ON t (x)`, "42501")
	must(t, s, `RESET ROLE`)
	must(t, s, `GRANT SELECT, INSERT ON t TO priv_a`)
	must(t, s, `ALTER TABLE t OWNER TO priv_b`)
	must(t, s, `SET ROLE priv_a`)
	must(t, s, `SELECT * FROM t`, "1")
	must(t, s, `INSERT INTO t VALUES (2)`)
	mustFail(t, s, `DELETE FROM t`, "42501")
	mustFail(t, s, `CALL lakepg.expire_snapshots()`, "42501")
	mustFail(t, s, `CREATE SCHEMA mine`, "42501")
	must(t, s, `SET ROLE priv_b`)
	mustFail(t, s, `ALTER TABLE t RENAME TO t2`, "42501") // no CREATE on public
	must(t, s, `RESET ROLE`)
	must(t, s, `SELECT relacl::text FROM pg_class WHERE relname = 't'`, "{priv_b=arwdDxt/priv_b,priv_a=ar/priv_b}")
}

func TestPrivilegesViewsAndReturning(t *testing.T) {
	s := lake(t)
	must(t, s, `CREATE ROLE priv_o`)
	must(t, s, `CREATE ROLE priv_r`)
	must(t, s, `GRANT CREATE ON SCHEMA public TO priv_o`)
	must(t, s, `SET ROLE priv_o`)
	must(t, s, `CREATE TABLE base (x int)`)
	must(t, s, `INSERT INTO base VALUES (1), (2)`)
	must(t, s, `CREATE VIEW v AS SELECT x FROM base`)
	must(t, s, `GRANT SELECT ON v TO priv_r`)
	must(t, s, `GRANT INSERT ON base TO priv_r`)
	must(t, s, `CREATE OR REPLACE VIEW v AS SELECT x FROM base WHERE x > 1`)
	must(t, s, `SET ROLE priv_r`)
	must(t, s, `SELECT count(*) FROM v`, "1") // the replaced view keeps its grant
	mustFail(t, s, `SELECT count(*) FROM base`, "42501")
	must(t, s, `INSERT INTO base VALUES (3)`)
	mustFail(t, s, `INSERT INTO base VALUES (4) RETURNING x`, "42501")
	mustFail(t, s, `CREATE OR REPLACE VIEW v AS SELECT 1 AS x`, "42501")
	mustFail(t, s, `COPY base TO STDOUT`, "42501")
	mustFail(t, s, `SELECT * FROM lakepg.table_changes('base', 0, 1)`, "42501")
	must(t, s, `RESET ROLE`)
	must(t, s, `SELECT relacl::text FROM pg_class WHERE relname = 'v'`, "{priv_o=arwdDxt/priv_o,priv_r=r/priv_o}")
}

func TestPrivilegesFunctionsByOID(t *testing.T) {
	s := lake(t)
	must(t, s, `CREATE ROLE priv_f`)
	must(t, s, `SELECT has_schema_privilege(oid, 'CREATE') FROM pg_namespace WHERE nspname = 'pg_catalog'`, "t")
	must(t, s, `SELECT has_schema_privilege('priv_f', oid, 'CREATE'), has_schema_privilege('priv_f', oid, 'USAGE') FROM pg_namespace WHERE nspname = 'public'`, "f|t")
	must(t, s, `SELECT has_schema_privilege('priv_f', oid, 'USAGE') FROM pg_namespace WHERE nspname = 'information_schema'`, "t")
}

func TestPrivilegesBlocks(t *testing.T) {
	s := lake(t)
	must(t, s, `CREATE ROLE priv_s`)
	must(t, s, `CREATE TABLE t (x int)`)
	must(t, s, `BEGIN`)
	must(t, s, `GRANT SELECT ON t TO priv_s`)
	must(t, s, `SAVEPOINT a`)
	must(t, s, `GRANT INSERT ON t TO priv_s`)
	must(t, s, `SELECT has_table_privilege('priv_s', 't', 'INSERT')`, "t")
	must(t, s, `ROLLBACK TO SAVEPOINT a`)
	must(t, s, `SELECT has_table_privilege('priv_s', 't', 'INSERT'), has_table_privilege('priv_s', 't', 'SELECT')`, "f|t")
	must(t, s, `COMMIT`)
	must(t, s, `SELECT has_table_privilege('priv_s', 't', 'INSERT'), has_table_privilege('priv_s', 't', 'SELECT')`, "f|t")
	must(t, s, `SET ROLE priv_s`)
	must(t, s, `DISCARD ALL`)
	must(t, s, `SELECT current_user = session_user`, "t")
}
