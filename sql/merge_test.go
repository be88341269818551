package sql

import "testing"

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
