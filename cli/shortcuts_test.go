package cli

import "testing"

func TestShortcutSQL(t *testing.T) {
	cases := []struct{ line, want string }{
		{"create-schema sales", `CREATE SCHEMA "sales"`},
		{"create-table sales orders id:int name:varchar amount:double", `CREATE TABLE "sales"."orders" ("id" integer, "name" varchar, "amount" double precision)`},
		{"create-table s t a:bigint b:bool c:date d:timestamp e:decimal(10,2)", `CREATE TABLE "s"."t" ("a" bigint, "b" boolean, "c" date, "d" timestamp, "e" decimal(10,2))`},
		{"insert sales orders id=1 name=alice amount=100.5", `INSERT INTO "sales"."orders" ("id", "name", "amount") VALUES ('1', 'alice', '100.5')`},
		{`insert sales orders id=2 name="o'brien jr" amount=null`, `INSERT INTO "sales"."orders" ("id", "name", "amount") VALUES ('2', 'o''brien jr', NULL)`},
		{"delete sales orders name = bob", `DELETE FROM "sales"."orders" WHERE "name" = 'bob'`},
		{"delete sales orders name=bob", `DELETE FROM "sales"."orders" WHERE "name" = 'bob'`},
		{"delete sales orders name = 'bob smith';", `DELETE FROM "sales"."orders" WHERE "name" = 'bob smith'`},
		{"add-column sales orders status:varchar", `ALTER TABLE "sales"."orders" ADD COLUMN "status" varchar`},
		{"drop-column sales orders status", `ALTER TABLE "sales"."orders" DROP COLUMN "status"`},
		{"rename-column sales orders amount total", `ALTER TABLE "sales"."orders" RENAME COLUMN "amount" TO "total"`},
		{"snapshots", "SELECT snapshot_id, schema_version, changes FROM lakepg.snapshots ORDER BY snapshot_id"},
	}
	for _, c := range cases {
		if !isShortcut(c.line) {
			t.Errorf("%q not recognised as a shortcut", c.line)
			continue
		}
		sc, err := parseShortcut(c.line)
		if err != nil {
			t.Errorf("%q: %v", c.line, err)
			continue
		}
		if sc.sql != c.want {
			t.Errorf("%q:\n got %s\nwant %s", c.line, sc.sql, c.want)
		}
	}
}

func TestShortcutOrSQL(t *testing.T) {
	for _, sql := range []string{"insert into t values (1);", "INSERT INTO t VALUES (1)", "delete from t;", "DELETE FROM t WHERE a = 1", "select 1", "scan", "create-schema"} {
		if isShortcut(sql) {
			t.Errorf("%q taken for a shortcut", sql)
		}
	}
	for _, bad := range []string{"create-table s t", "insert s t id", "scan s t at x", "rename-column s t a", "delete s t name", `insert s t a="open`} {
		if _, err := parseShortcut(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
