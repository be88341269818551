package sql

import "testing"

func TestACLExplode(t *testing.T) {
	s := lake(t)
	// grantee 0 is PUBLIC; the privileges come in PostgreSQL's bit order;
	// '*' is the grant option (answers checked against PostgreSQL 15)
	must(t, s, `SELECT (d).grantor, (d).grantee, (d).privilege_type, (d).is_grantable
		FROM (SELECT aclexplode('{test=ar*/test,=r/test}') AS d) s`,
		"10|10|INSERT|f", "10|10|SELECT|t", "10|0|SELECT|f")
	must(t, s, `SELECT grantee, privilege_type FROM aclexplode('{pg_database_owner=UC/test}')`, "6171|USAGE", "6171|CREATE")
	// the lake's ACLs are NULL: no rows
	must(t, s, `SELECT count(*) FROM pg_class c, aclexplode(c.relacl) a`, "0")
	must(t, s, `SELECT aclexplode(NULL)`)
	// pg_catalog and public carry initdb's ACLs
	must(t, s, `SELECT n.nspname, a.grantee, a.privilege_type FROM pg_namespace n, aclexplode(n.nspacl) a
		WHERE n.nspname IN ('pg_catalog', 'public') ORDER BY 1, 2, 3`,
		"pg_catalog|0|USAGE", "pg_catalog|10|CREATE", "pg_catalog|10|USAGE",
		"public|0|USAGE", "public|6171|CREATE", "public|6171|USAGE")
	mustFail(t, s, `SELECT aclexplode('{nobody=r/test}')`, "42704")
	mustFail(t, s, `SELECT aclexplode('{test=rq/test}')`, "22P02")
	mustFail(t, s, `SELECT aclexplode(1)`, "42883")
}
