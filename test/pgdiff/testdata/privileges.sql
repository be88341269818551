-- Privileges: roles (names unique to this script, dropped at the end), SET ROLE,
-- owners, GRANT/REVOKE, PUBLIC, default privileges, 42501 and the catalog views.
-- The superuser's own name differs between the servers, so what is shown is
-- owned by the script's roles.
CREATE ROLE pgdiff_priv_alice;
CREATE ROLE pgdiff_priv_bob;
CREATE ROLE pgdiff_priv_carol;
CREATE SCHEMA priv_s;
ALTER SCHEMA priv_s OWNER TO pgdiff_priv_alice;
GRANT CREATE ON SCHEMA public TO pgdiff_priv_alice;
SET ROLE pgdiff_priv_alice;
SELECT current_user, session_user = current_user AS same;
CREATE TABLE priv_t (a int, b text);
INSERT INTO priv_t VALUES (1, 'one'), (2, 'two');
CREATE TABLE priv_s.u (x int);
INSERT INTO priv_s.u VALUES (10);
CREATE VIEW priv_v AS SELECT a FROM priv_t WHERE a > 1;
SELECT c.relname, c.relacl, pg_get_userbyid(c.relowner) AS owner FROM pg_class c WHERE c.relname IN ('priv_t', 'priv_v', 'u') ORDER BY 1;
SELECT nspname, nspacl, pg_get_userbyid(nspowner) AS owner FROM pg_namespace WHERE nspname = 'priv_s';
-- bob has nothing yet
SET ROLE pgdiff_priv_bob;
-- @error
SELECT * FROM priv_t;
-- @error
INSERT INTO priv_t VALUES (3, 'three');
-- @error
UPDATE priv_t SET a = 0;
-- @error
DELETE FROM priv_t;
-- @error
TRUNCATE priv_t;
-- @error
SELECT * FROM priv_v;
-- @error
SELECT * FROM priv_s.u;
-- @error
DROP TABLE priv_t;
-- @error
ALTER TABLE priv_t ADD COLUMN c int;
-- @error
ALTER TABLE priv_t RENAME TO priv_t2;
-- @error
COMMENT ON TABLE priv_t IS 'mine';
-- @error
CREATE TABLE priv_bob_t (x int);
-- @error
GRANT SELECT ON priv_t TO pgdiff_priv_bob;
SELECT has_table_privilege('priv_t', 'SELECT') AS sel, has_table_privilege('priv_t', 'INSERT, UPDATE') AS ins,
  has_schema_privilege('priv_s', 'USAGE') AS usage, has_schema_privilege('public', 'USAGE') AS pub_usage,
  has_schema_privilege('public', 'CREATE') AS pub_create;
-- the owner grants
RESET ROLE;
SET ROLE pgdiff_priv_alice;
GRANT SELECT ON priv_t TO pgdiff_priv_bob;
GRANT INSERT, UPDATE ON TABLE priv_t TO pgdiff_priv_bob WITH GRANT OPTION;
GRANT SELECT ON priv_v TO PUBLIC;
GRANT USAGE ON SCHEMA priv_s TO pgdiff_priv_bob;
SELECT c.relname, c.relacl FROM pg_class c WHERE c.relname IN ('priv_t', 'priv_v') ORDER BY 1;
SELECT nspname, nspacl FROM pg_namespace WHERE nspname = 'priv_s';
SELECT grantor, grantee, table_schema, table_name, privilege_type, is_grantable, with_hierarchy
  FROM information_schema.table_privileges WHERE table_name LIKE 'priv%' ORDER BY 4, 2, 5;
-- psql's \dp and \dn+
SELECT n.nspname as "Schema", c.relname as "Name",
  CASE c.relkind WHEN 'r' THEN 'table' WHEN 'v' THEN 'view' WHEN 'm' THEN 'materialized view' END as "Type",
  pg_catalog.array_to_string(c.relacl, E'\n') AS "Access privileges"
FROM pg_catalog.pg_class c LEFT JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE c.relname LIKE 'priv%' AND c.relkind IN ('r', 'v', 'm') ORDER BY 1, 2;
SELECT n.nspname AS "Name", pg_catalog.pg_get_userbyid(n.nspowner) AS "Owner",
  pg_catalog.array_to_string(n.nspacl, E'\n') AS "Access privileges"
FROM pg_catalog.pg_namespace n WHERE n.nspname = 'priv_s';
SELECT pg_get_userbyid(a.grantor) AS grantor, pg_get_userbyid(a.grantee) AS grantee, a.privilege_type, a.is_grantable
  FROM pg_class c, aclexplode(c.relacl) a WHERE c.relname = 'priv_t' AND a.grantee <> 0 ORDER BY 2, 3;
SELECT grantee, table_name, privilege_type, is_grantable FROM information_schema.role_table_grants
  WHERE table_name LIKE 'priv%' ORDER BY 2, 1, 3;
SET ROLE pgdiff_priv_bob;
SELECT grantor, grantee, table_name, privilege_type, is_grantable
  FROM information_schema.table_privileges WHERE table_name LIKE 'priv%' ORDER BY 3, 2, 4;
SELECT * FROM priv_t ORDER BY a;
SELECT * FROM priv_v ORDER BY a;
INSERT INTO priv_t VALUES (3, 'three');
UPDATE priv_t SET b = 'TWO' WHERE a = 2;
-- @error
DELETE FROM priv_t WHERE a = 3;
-- @error
SELECT * FROM priv_s.u;
-- @error
TRUNCATE priv_t;
SELECT has_table_privilege('priv_t', 'SELECT') AS sel, has_table_privilege('priv_t', 'DELETE') AS del,
  has_table_privilege('priv_t', 'INSERT WITH GRANT OPTION') AS ins_grant,
  has_table_privilege('pgdiff_priv_carol', 'priv_t', 'SELECT') AS carol,
  has_schema_privilege('priv_s', 'USAGE') AS usage;
-- a grantee with GRANT OPTION grants in its own name
GRANT INSERT ON priv_t TO pgdiff_priv_carol;
SELECT c.relacl FROM pg_class c WHERE c.relname = 'priv_t';
-- the view reads its table with its owner's privileges
SET ROLE pgdiff_priv_carol;
SELECT * FROM priv_v ORDER BY a;
-- @error
SELECT * FROM priv_t;
INSERT INTO priv_t VALUES (4, 'four');
SELECT current_user;
-- revokes
SET ROLE pgdiff_priv_bob;
REVOKE INSERT ON priv_t FROM pgdiff_priv_carol;
SET ROLE pgdiff_priv_alice;
REVOKE GRANT OPTION FOR INSERT ON priv_t FROM pgdiff_priv_bob;
REVOKE SELECT ON priv_v FROM PUBLIC;
SELECT c.relname, c.relacl FROM pg_class c WHERE c.relname IN ('priv_t', 'priv_v') ORDER BY 1;
SET ROLE pgdiff_priv_bob;
-- @error
SELECT * FROM priv_v;
SET ROLE pgdiff_priv_alice;
REVOKE ALL ON priv_t FROM pgdiff_priv_bob;
SELECT c.relacl FROM pg_class c WHERE c.relname = 'priv_t';
SET ROLE pgdiff_priv_bob;
-- @error
SELECT * FROM priv_t;
-- ALL TABLES IN SCHEMA and PUBLIC
SET ROLE pgdiff_priv_alice;
GRANT SELECT ON ALL TABLES IN SCHEMA priv_s TO PUBLIC;
SET ROLE pgdiff_priv_carol;
-- @error
SELECT * FROM priv_s.u;
SET ROLE pgdiff_priv_alice;
GRANT USAGE ON SCHEMA priv_s TO PUBLIC;
SET ROLE pgdiff_priv_carol;
SELECT * FROM priv_s.u;
-- @error
INSERT INTO priv_s.u VALUES (11);
-- @error
CREATE TABLE priv_s.carol_t (x int);
-- default privileges
SET ROLE pgdiff_priv_alice;
ALTER DEFAULT PRIVILEGES GRANT SELECT ON TABLES TO pgdiff_priv_carol;
ALTER DEFAULT PRIVILEGES IN SCHEMA priv_s GRANT INSERT ON TABLES TO pgdiff_priv_bob;
SELECT pg_get_userbyid(d.defaclrole) AS role, (SELECT nspname FROM pg_namespace n WHERE n.oid = d.defaclnamespace) AS schema,
  d.defaclobjtype, d.defaclacl FROM pg_default_acl d ORDER BY 2 NULLS FIRST;
SHOW role;
SELECT current_setting('role');
CREATE TABLE priv_d1 (x int);
CREATE TABLE priv_s.d2 (x int);
SELECT c.relname, c.relacl FROM pg_class c WHERE c.relname IN ('priv_d1', 'd2') ORDER BY 1;
SET ROLE pgdiff_priv_carol;
SELECT count(*) FROM priv_d1;
SET ROLE pgdiff_priv_alice;
ALTER DEFAULT PRIVILEGES REVOKE SELECT ON TABLES FROM pgdiff_priv_carol;
ALTER DEFAULT PRIVILEGES IN SCHEMA priv_s REVOKE INSERT ON TABLES FROM pgdiff_priv_bob;
CREATE TABLE priv_d3 (x int);
SELECT count(*) FROM pg_default_acl;
SELECT c.relname, c.relacl FROM pg_class c WHERE c.relname = 'priv_d3';
-- ownership
-- @error
ALTER TABLE priv_t OWNER TO pgdiff_priv_bob;
RESET ROLE;
ALTER TABLE priv_t OWNER TO pgdiff_priv_bob;
SELECT c.relacl, pg_get_userbyid(c.relowner) AS owner FROM pg_class c WHERE c.relname = 'priv_t';
SET ROLE pgdiff_priv_alice;
-- @error
DROP TABLE priv_t;
SET ROLE pgdiff_priv_bob;
COMMENT ON TABLE priv_t IS 'bob''s now';
-- renaming needs CREATE on the schema too
-- @error
ALTER TABLE priv_t RENAME TO priv_t2;
ALTER TABLE priv_t RENAME COLUMN b TO bb;
SELECT count(*) FROM priv_t;
-- @error
SET ROLE pgdiff_priv_alice_nobody;
-- transaction blocks: a grant rolled back is gone
RESET ROLE;
BEGIN;
GRANT SELECT ON priv_d3 TO pgdiff_priv_bob;
SELECT c.relacl FROM pg_class c WHERE c.relname = 'priv_d3';
ROLLBACK;
SELECT c.relacl FROM pg_class c WHERE c.relname = 'priv_d3';
-- a superuser acting as a role through SET SESSION AUTHORIZATION
SET SESSION AUTHORIZATION pgdiff_priv_carol;
SELECT current_user, session_user;
-- @error
SELECT * FROM priv_d3;
RESET SESSION AUTHORIZATION;
SELECT current_user = session_user AS back;
-- clean up: roles are cluster-wide in PostgreSQL
-- @error
DROP ROLE pgdiff_priv_alice;
DROP VIEW priv_v;
DROP TABLE priv_t, priv_d1, priv_d3;
DROP SCHEMA priv_s CASCADE;
REVOKE CREATE ON SCHEMA public FROM pgdiff_priv_alice;
DROP ROLE pgdiff_priv_alice, pgdiff_priv_bob, pgdiff_priv_carol;
