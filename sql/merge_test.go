package sql

import (
	"fmt"
	"testing"
	"time"
)

func TestMergeBasics(t *testing.T) { eachCatalog(t, testMergeBasics) }

func testMergeBasics(t *testing.T, s *Session) {
	must(t, s, `CREATE TABLE tgt (id int PRIMARY KEY, v text, n int DEFAULT 7)`)
	must(t, s, `INSERT INTO tgt VALUES (1, 'a', 1), (2, 'b', 2), (3, 'c', 3)`)
	must(t, s, `CREATE TABLE src (id int, v text, op text)`)
	must(t, s, `INSERT INTO src VALUES (1, 'A', 'upd'), (2, 'B', 'del'), (3, 'C', 'skip'), (4, 'D', 'ins'), (5, 'E', 'no')`)
	tagIs(t, s, `MERGE INTO tgt t USING src s ON t.id = s.id
		WHEN MATCHED AND s.op = 'del' THEN DELETE
		WHEN MATCHED AND s.op = 'upd' THEN UPDATE SET v = s.v, n = t.n + 10
		WHEN MATCHED THEN DO NOTHING
		WHEN NOT MATCHED AND s.op = 'ins' THEN INSERT (id, v) VALUES (s.id, s.v)
		WHEN NOT MATCHED THEN DO NOTHING`, "MERGE 3")
	must(t, s, `SELECT id, v, n FROM tgt ORDER BY id`, "1|A|11", "3|c|3", "4|D|7")
	mustFail(t, s, `MERGE INTO tgt t USING (VALUES (1), (1)) AS s(id) ON t.id = s.id WHEN MATCHED THEN UPDATE SET n = 0`, "21000")
	tagIs(t, s, `MERGE INTO tgt t USING (VALUES (1), (1)) AS s(id) ON t.id = s.id WHEN MATCHED THEN DO NOTHING`, "MERGE 0")
	mustFail(t, s, `MERGE INTO tgt t USING (VALUES (9), (9)) AS s(id) ON t.id = s.id WHEN NOT MATCHED THEN INSERT VALUES (s.id, 'x')`, "23505")
	must(t, s, `BEGIN`)
	tagIs(t, s, `MERGE INTO tgt USING (VALUES (3, 'cc'), (8, NULL)) AS s(id, v) ON tgt.id = s.id WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.v, DEFAULT)`, "MERGE 2")
	must(t, s, `SELECT id, v, n FROM tgt ORDER BY id`, "1|A|11", "3|cc|3", "4|D|7", "8|NULL|7")
	must(t, s, `COMMIT`)
	must(t, s, `SELECT id, v, n FROM tgt ORDER BY id`, "1|A|11", "3|cc|3", "4|D|7", "8|NULL|7")
}

// A MERGE of 150k source rows into 1M target rows updates and deletes
// reading only the two files holding the matched rows.
func TestMergeSetWise(t *testing.T) {
	s := lake(t)
	must(t, s, `CREATE TABLE big (id bigint PRIMARY KEY, v bigint, pad text)`)
	for f := 0; f < 10; f++ {
		lo := f * 100000
		must(t, s, fmt.Sprintf(`INSERT INTO big SELECT g, 0, 'row ' || g FROM generate_series(%d, %d) g`, lo, lo+99999))
	}
	must(t, s, `CREATE TABLE chg AS SELECT g AS id, g % 10 AS op FROM generate_series(350000, 449999) g UNION ALL SELECT g, 1 FROM generate_series(2000000, 2049999) g`)
	start := time.Now()
	tagIs(t, s, `MERGE INTO big b USING chg c ON b.id = c.id
		WHEN MATCHED AND c.op = 0 THEN DELETE
		WHEN MATCHED THEN UPDATE SET v = c.op
		WHEN NOT MATCHED THEN INSERT VALUES (c.id, -1, 'new')`, "MERGE 150000")
	t.Logf("MERGE of 150000 rows (100000 matched) into 1000000: %v", time.Since(start))
	if st := s.conflictStats; st.Conflicts != 100000 || st.UpdateFiles != 2 {
		t.Fatalf("%d rows matched, writes read %d files", st.Conflicts, st.UpdateFiles)
	}
	must(t, s, `SELECT count(*), sum(v), count(*) FILTER (WHERE pad = 'new') FROM big`, "1040000|400000|50000")
}

// dbt's merge strategy: a temporary source, the target qualified with the
// database, every column assigned (keys included) in one block.
func TestMergeDbtShape(t *testing.T) {
	s := lake(t)
	must(t, s, `CREATE TABLE public.tbl (id int PRIMARY KEY, name text, ts timestamp)`)
	must(t, s, `INSERT INTO tbl VALUES (1, 'a', '2024-01-01'), (2, 'b', '2024-01-02')`)
	must(t, s, `BEGIN`)
	must(t, s, `CREATE TEMP TABLE tbl__dbt_tmp AS SELECT * FROM (VALUES (2, 'B', '2024-02-02'::timestamp), (3, 'c', '2024-02-03'::timestamp)) v(id, name, ts)`)
	tagIs(t, s, `merge into "lake"."public"."tbl" as DBT_INTERNAL_DEST
		using "tbl__dbt_tmp" as DBT_INTERNAL_SOURCE
		on (DBT_INTERNAL_SOURCE.id = DBT_INTERNAL_DEST.id)
		when matched then update set "id" = DBT_INTERNAL_SOURCE."id", "name" = DBT_INTERNAL_SOURCE."name", "ts" = DBT_INTERNAL_SOURCE."ts"
		when not matched then insert ("id", "name", "ts") values (DBT_INTERNAL_SOURCE."id", DBT_INTERNAL_SOURCE."name", DBT_INTERNAL_SOURCE."ts")`, "MERGE 2")
	must(t, s, `COMMIT`)
	must(t, s, `SELECT id, name, ts FROM tbl ORDER BY id`, "1|a|2024-01-01 00:00:00", "2|B|2024-02-02 00:00:00", "3|c|2024-02-03 00:00:00")
	// and the same rows again through ON CONFLICT from the temporary table
	must(t, s, `CREATE TEMP TABLE up AS SELECT 3 AS id, 'C' AS name, NULL::timestamp AS ts UNION ALL SELECT 4, 'd', NULL`)
	tagIs(t, s, `INSERT INTO tbl SELECT * FROM up ON CONFLICT (id) DO UPDATE SET name = excluded.name`, "INSERT 0 2")
	must(t, s, `SELECT id, name FROM tbl ORDER BY id`, "1|a", "2|B", "3|C", "4|d")
}

// In a block that inserted into the target, MERGE changes the committed
// rows and the rows the block inserted (which have no row ids yet), those
// of one staged file through one WHEN clause.
func TestMergeAfterInsertInBlock(t *testing.T) {
	s := lake(t)
	must(t, s, `CREATE TABLE m (id int, v text)`)
	must(t, s, `INSERT INTO m VALUES (0, 'zero'), (1, 'one')`)
	must(t, s, `BEGIN`)
	must(t, s, `INSERT INTO m VALUES (10, 'ten'), (11, 'eleven')`)
	tagIs(t, s, `MERGE INTO m USING (VALUES (0, 'ZERO'), (5, 'five')) s(id, v) ON m.id = s.id WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.v)`, "MERGE 2")
	tagIs(t, s, `MERGE INTO m USING (VALUES (1)) s(id) ON m.id = s.id WHEN MATCHED THEN DELETE`, "MERGE 1")
	tagIs(t, s, `MERGE INTO m USING (VALUES (10)) s(id) ON m.id = s.id WHEN MATCHED THEN DO NOTHING`, "MERGE 0")
	tagIs(t, s, `MERGE INTO m USING (VALUES (10), (0)) s(id) ON m.id = s.id WHEN MATCHED THEN UPDATE SET v = v || '!'`, "MERGE 2")
	must(t, s, `SELECT id, v FROM m ORDER BY id`, "0|ZERO!", "5|five", "10|ten!", "11|eleven")
	must(t, s, `INSERT INTO m VALUES (12, 'twelve'), (13, 'thirteen')`)
	mustFail(t, s, `MERGE INTO m USING (VALUES (12), (13)) s(id) ON m.id = s.id WHEN MATCHED AND s.id = 12 THEN DELETE WHEN MATCHED THEN UPDATE SET v = 'x'`, "0A000")
	must(t, s, `ROLLBACK`)
	must(t, s, `BEGIN`)
	must(t, s, `INSERT INTO m VALUES (10, 'ten'), (11, 'eleven')`)
	tagIs(t, s, `MERGE INTO m USING (VALUES (0, 'ZERO'), (5, 'five')) s(id, v) ON m.id = s.id WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.v)`, "MERGE 2")
	tagIs(t, s, `MERGE INTO m USING (VALUES (10), (0)) s(id) ON m.id = s.id WHEN MATCHED THEN UPDATE SET v = v || '!'`, "MERGE 2")
	tagIs(t, s, `MERGE INTO m USING (VALUES (11), (5)) s(id) ON m.id = s.id WHEN MATCHED AND s.id = 11 THEN DELETE WHEN MATCHED THEN UPDATE SET v = 'x'`, "MERGE 2")
	must(t, s, `SELECT id, v FROM m ORDER BY id`, "0|ZERO!", "1|one", "5|x", "10|ten!")
	must(t, s, `ROLLBACK`)
	must(t, s, `BEGIN`)
	must(t, s, `INSERT INTO m VALUES (10, 'ten'), (11, 'eleven')`)
	tagIs(t, s, `MERGE INTO m USING (VALUES (0, 'ZERO'), (1, NULL)) s(id, v) ON m.id = s.id WHEN MATCHED AND s.v IS NULL THEN DELETE WHEN MATCHED THEN UPDATE SET v = s.v`, "MERGE 2")
	must(t, s, `SELECT id, v FROM m ORDER BY id`, "0|ZERO", "10|ten", "11|eleven")
	must(t, s, `COMMIT`)
	must(t, s, `SELECT id, v FROM m ORDER BY id`, "0|ZERO", "10|ten", "11|eleven")
}
