package sql

import (
	"testing"

	"github.com/lakepg/lakepg/pgerr"
)

// TestViewsInTheCatalog: how a view is stored (ducklake_view through lakepg.snapshots'
// change records, the SQL pg_get_viewdef shows), that one created or renamed by another
// session at the same time conflicts, and that a cycle made by renames ends in 42P17.
func TestViewsInTheCatalog(t *testing.T) {
	s := setup(t)
	other, err := s.eng.NewSession("other", "lake", map[string]string{"TimeZone": "UTC"})
	if err != nil {
		t.Fatal(err)
	}
	must(t, s, `CREATE VIEW v (a) AS WITH w AS (SELECT x FROM t) SELECT x FROM w WHERE x > 1`)
	// relations are stored schema-qualified, WITH names are not
	must(t, s, `SELECT pg_get_viewdef('v')`, " WITH w AS (SELECT x FROM public.t) SELECT x FROM w WHERE x > 1;")
	must(t, s, `SELECT changes FROM lakepg.snapshots ORDER BY snapshot_id DESC LIMIT 1`, `created_view:"public"."v"`)
	must(t, s, `SELECT a FROM v ORDER BY a`, "2", "3")
	must(t, s, `CREATE OR REPLACE VIEW v (a) AS SELECT x FROM t WHERE x > 2`)
	must(t, s, `SELECT changes FROM lakepg.snapshots ORDER BY snapshot_id DESC LIMIT 1`, `dropped_view:3,created_view:"public"."v"`)
	must(t, s, `ALTER VIEW v RENAME TO v2`)
	must(t, s, `SELECT changes FROM lakepg.snapshots ORDER BY snapshot_id DESC LIMIT 1`, `created_view:"public"."v2"`)

	// two sessions creating the same name: the later commit conflicts
	must(t, s, `BEGIN`)
	must(t, s, `CREATE VIEW dup AS SELECT 1 AS one`)
	must(t, other, `CREATE VIEW dup AS SELECT 2 AS two`)
	mustFail(t, s, `COMMIT`, pgerr.SerializationFailure)
	must(t, s, `SELECT * FROM dup`, "2")
	// renaming a view another session dropped meanwhile conflicts too
	must(t, s, `BEGIN`)
	must(t, s, `ALTER VIEW dup RENAME TO dup2`)
	must(t, other, `DROP VIEW dup`)
	mustFail(t, s, `COMMIT`, pgerr.SerializationFailure)
	mustFail(t, s, `SELECT * FROM dup2`, pgerr.UndefinedTable)
	must(t, s, `CREATE VIEW dup2 AS SELECT 2 AS two`)

	// ROLLBACK TO undoes view changes after the savepoint only
	must(t, s, `BEGIN`)
	must(t, s, `CREATE VIEW sp_a AS SELECT 1 AS x`)
	must(t, s, `SAVEPOINT p`)
	must(t, s, `DROP VIEW sp_a`)
	must(t, s, `CREATE VIEW sp_b AS SELECT 2 AS x`)
	must(t, s, `ALTER VIEW dup2 RENAME TO dup3`)
	must(t, s, `ROLLBACK TO p`)
	must(t, s, `COMMIT`)
	must(t, other, `SELECT table_name FROM information_schema.views WHERE table_name LIKE 'sp%' OR table_name LIKE 'dup%' ORDER BY 1`, "dup2", "sp_a")

	// nothing records what a view reads: renames can make a cycle
	must(t, s, `CREATE VIEW c1 AS SELECT 1 AS x`)
	must(t, s, `CREATE VIEW c2 AS SELECT x FROM c1`)
	must(t, s, `CREATE VIEW c3 AS SELECT x FROM c2`)
	must(t, s, `DROP VIEW c1`)
	must(t, s, `ALTER VIEW c3 RENAME TO c1`)
	mustFail(t, s, `SELECT * FROM c2`, pgerr.InvalidObjectDefinition)
	// a table a view reads is dropped: the view fails when used, as in DuckDB
	must(t, s, `CREATE TABLE gone (x integer)`)
	must(t, s, `CREATE VIEW reads_gone AS SELECT x FROM gone`)
	must(t, s, `DROP TABLE gone`)
	mustFail(t, s, `SELECT * FROM reads_gone`, pgerr.UndefinedTable)
}
