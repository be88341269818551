-- Role membership: GRANT role TO role (WITH ADMIN OPTION), inherited privileges and
-- ownership, SET ROLE by members, REVOKE, cycles refused, pg_auth_members. Roles are
-- unique to this script and dropped at the end.
CREATE ROLE pgdiff_rm_readers;
CREATE ROLE pgdiff_rm_alice;
CREATE ROLE pgdiff_rm_bob;
CREATE ROLE pgdiff_rm_owners;
CREATE TABLE rm_t AS SELECT 1 AS a;
GRANT SELECT ON rm_t TO pgdiff_rm_readers;
GRANT pgdiff_rm_readers TO pgdiff_rm_alice;
-- @error
GRANT pgdiff_rm_readers TO pgdiff_rm_readers;
-- @error
GRANT pgdiff_rm_alice TO pgdiff_rm_readers;
-- @error
GRANT pgdiff_rm_nobody TO pgdiff_rm_alice;
SELECT r.rolname AS role, m.rolname AS member, am.admin_option
FROM pg_auth_members am JOIN pg_roles r ON r.oid = am.roleid JOIN pg_roles m ON m.oid = am.member
WHERE r.rolname LIKE 'pgdiff_rm_%' ORDER BY 1, 2;
SET ROLE pgdiff_rm_alice;
SELECT * FROM rm_t;
RESET ROLE;
SELECT pg_has_role('pgdiff_rm_alice', 'pgdiff_rm_readers', 'MEMBER') AS alice_member,
  pg_has_role('pgdiff_rm_alice', 'pgdiff_rm_readers', 'USAGE WITH ADMIN OPTION') AS alice_admin,
  pg_has_role('pgdiff_rm_bob', 'pgdiff_rm_readers', 'USAGE') AS bob_member,
  pg_has_role('pgdiff_rm_readers', 'pgdiff_rm_readers', 'MEMBER') AS self,
  pg_has_role('pgdiff_rm_readers', 'MEMBER') AS superuser_has_all;
SELECT r.rolname, pg_has_role('pgdiff_rm_alice', r.oid, 'MEMBER') FROM pg_roles r WHERE r.rolname LIKE 'pgdiff_rm_%' ORDER BY 1;
-- @error
SELECT pg_has_role('pgdiff_rm_alice', 'pgdiff_rm_nobody', 'MEMBER');
-- @error
SELECT pg_has_role('pgdiff_rm_alice', 'pgdiff_rm_readers', 'OWNER');
SET ROLE pgdiff_rm_bob;
-- @error
SELECT * FROM rm_t;
-- @error
GRANT pgdiff_rm_readers TO pgdiff_rm_bob;
RESET ROLE;
SET SESSION AUTHORIZATION pgdiff_rm_alice;
SET ROLE pgdiff_rm_readers;
SELECT current_user;
RESET ROLE;
-- @error
SET ROLE pgdiff_rm_bob;
RESET SESSION AUTHORIZATION;
GRANT SELECT ON rm_t TO pgdiff_rm_bob GRANTED BY CURRENT_USER;
REVOKE SELECT ON rm_t FROM pgdiff_rm_bob GRANTED BY CURRENT_USER;
-- @error
GRANT SELECT ON rm_t TO pgdiff_rm_bob GRANTED BY pgdiff_rm_alice;
SET ROLE pgdiff_rm_alice;
SELECT current_user;
-- @error
GRANT pgdiff_rm_readers TO CURRENT_USER;
RESET ROLE;
GRANT pgdiff_rm_readers TO pgdiff_rm_alice WITH ADMIN OPTION;
SET ROLE pgdiff_rm_alice;
GRANT pgdiff_rm_readers TO pgdiff_rm_bob;
RESET ROLE;
SET ROLE pgdiff_rm_bob;
SELECT * FROM rm_t;
RESET ROLE;
SELECT r.rolname AS role, m.rolname AS member, am.admin_option
FROM pg_auth_members am JOIN pg_roles r ON r.oid = am.roleid JOIN pg_roles m ON m.oid = am.member
WHERE r.rolname LIKE 'pgdiff_rm_%' ORDER BY 1, 2;
REVOKE ADMIN OPTION FOR pgdiff_rm_readers FROM pgdiff_rm_alice;
SELECT r.rolname AS role, m.rolname AS member, am.admin_option
FROM pg_auth_members am JOIN pg_roles r ON r.oid = am.roleid JOIN pg_roles m ON m.oid = am.member
WHERE r.rolname LIKE 'pgdiff_rm_%' ORDER BY 1, 2;
REVOKE pgdiff_rm_readers FROM pgdiff_rm_bob;
SET ROLE pgdiff_rm_bob;
-- @error
SELECT * FROM rm_t;
RESET ROLE;
-- ownership is inherited: a member of the owning role may alter and drop
ALTER TABLE rm_t OWNER TO pgdiff_rm_owners;
GRANT CREATE ON SCHEMA public TO pgdiff_rm_owners;
GRANT pgdiff_rm_owners TO pgdiff_rm_bob;
SET ROLE pgdiff_rm_bob;
ALTER TABLE rm_t RENAME TO rm_t2;
SELECT * FROM rm_t2;
DROP TABLE rm_t2;
RESET ROLE;
-- revoking a grant option that others' grants depend on: 2BP01, or CASCADE
CREATE TABLE rm_g (x int);
GRANT SELECT, INSERT ON rm_g TO pgdiff_rm_alice WITH GRANT OPTION;
SET ROLE pgdiff_rm_alice;
GRANT SELECT ON rm_g TO pgdiff_rm_bob WITH GRANT OPTION;
RESET ROLE;
SET ROLE pgdiff_rm_bob;
GRANT SELECT ON rm_g TO pgdiff_rm_owners;
RESET ROLE;
SELECT replace(replace(relacl::text, current_user || '=', 'owner='), '/' || current_user, '/owner') AS acl FROM pg_class WHERE relname = 'rm_g';
-- @error
REVOKE GRANT OPTION FOR SELECT ON rm_g FROM pgdiff_rm_alice;
-- @error
REVOKE SELECT ON rm_g FROM pgdiff_rm_alice;
REVOKE INSERT ON rm_g FROM pgdiff_rm_alice;
SELECT replace(replace(relacl::text, current_user || '=', 'owner='), '/' || current_user, '/owner') AS acl FROM pg_class WHERE relname = 'rm_g';
REVOKE GRANT OPTION FOR SELECT ON rm_g FROM pgdiff_rm_alice CASCADE;
SELECT replace(replace(relacl::text, current_user || '=', 'owner='), '/' || current_user, '/owner') AS acl FROM pg_class WHERE relname = 'rm_g';
SET ROLE pgdiff_rm_bob;
-- @error
SELECT * FROM rm_g;
RESET ROLE;
DROP TABLE rm_g;
-- the search path leaves out schemas without USAGE
CREATE SCHEMA rm_s;
CREATE TABLE rm_s.rm_x AS SELECT 'hidden' AS v;
CREATE TABLE rm_x AS SELECT 'public' AS v;
GRANT SELECT ON rm_x, rm_s.rm_x TO pgdiff_rm_alice;
SET search_path = rm_s, public;
SET ROLE pgdiff_rm_alice;
SELECT v FROM rm_x;
-- @error
SELECT v FROM rm_s.rm_x;
RESET ROLE;
SELECT v FROM rm_x;
GRANT USAGE ON SCHEMA rm_s TO pgdiff_rm_readers;
SET ROLE pgdiff_rm_alice;
SELECT v FROM rm_x;
RESET ROLE;
RESET search_path;
DROP TABLE rm_s.rm_x;
DROP TABLE rm_x;
REVOKE USAGE ON SCHEMA rm_s FROM pgdiff_rm_readers;
DROP SCHEMA rm_s;
REVOKE pgdiff_rm_readers FROM pgdiff_rm_alice;
REVOKE pgdiff_rm_owners FROM pgdiff_rm_bob;
REVOKE CREATE ON SCHEMA public FROM pgdiff_rm_owners;
SELECT count(*) FROM pg_auth_members am JOIN pg_roles r ON r.oid = am.roleid WHERE r.rolname LIKE 'pgdiff_rm_%';
DROP ROLE pgdiff_rm_readers;
DROP ROLE pgdiff_rm_alice;
DROP ROLE pgdiff_rm_bob;
DROP ROLE pgdiff_rm_owners;
