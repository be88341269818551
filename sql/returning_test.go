package sql

import "testing"

func TestInsertReturning(t *testing.T) {
	s := lake(t)
	must(t, s, `CREATE TABLE r (id int, name text, v numeric(6,2) DEFAULT 1.5)`)
	must(t, s, `INSERT INTO r VALUES (1, 'a', 2) RETURNING *`, "1|a|2.00")
	must(t, s, `INSERT INTO r (id, name) VALUES (2, 'b'), (3, NULL) RETURNING id * 10 AS x, upper(name), v`, "20|B|1.50", "30|NULL|1.50")
	must(t, s, `INSERT INTO r AS q SELECT id + 10, name, v FROM r WHERE id < 3 RETURNING q.id, 'k'`, "11|k", "12|k")
	must(t, s, `SELECT count(*) FROM r`, "5")
	mustFail(t, s, `INSERT INTO r VALUES (9) RETURNING nosuch`, "42703")
	mustFail(t, s, `INSERT INTO r VALUES (9) RETURNING count(*)`, "42803")
	mustFail(t, s, `INSERT INTO r VALUES (9) RETURNING 1/0`, "22012")
	must(t, s, `SELECT count(*) FROM r`, "5")
	_, tag, err := run(t, s, `INSERT INTO r SELECT g, 'x' FROM generate_series(100, 3099) g RETURNING id`)
	if err != nil || tag != "INSERT 0 3000" {
		t.Fatalf("tag %q err %v", tag, err)
	}
	must(t, s, `SELECT count(*) FROM r`, "3005")
}

func TestUpdateDeleteReturning(t *testing.T) {
	s := lake(t)
	must(t, s, `CREATE TABLE u (id int, name text, v int)`)
	must(t, s, `INSERT INTO u VALUES (1, 'a', 10), (2, 'b', 20), (3, 'c', 30)`)
	must(t, s, `UPDATE u SET v = v + 1 WHERE id = 2 RETURNING *`, "2|b|21")
	must(t, s, `UPDATE u SET v = 0 WHERE id > 5 RETURNING *`)
	must(t, s, `DELETE FROM u WHERE id = 3 RETURNING name, v * 2 AS dbl`, "c|60")
	must(t, s, `SELECT * FROM u ORDER BY id`, "1|a|10", "2|b|21")
	must(t, s, `CREATE TABLE w (id int, tag text)`)
	must(t, s, `INSERT INTO w VALUES (1, 'x'), (1, 'y'), (2, 'z')`)
	must(t, s, `UPDATE u SET name = w.tag FROM w WHERE w.id = u.id AND w.tag = 'z' RETURNING u.*, w.tag, *`, "2|z|21|z|2|z|21|2|z")
	must(t, s, `DELETE FROM u USING w WHERE w.id = u.id AND u.id = 1 RETURNING u.id`, "1")
	must(t, s, `SELECT * FROM u ORDER BY id`, "2|z|21")
	mustFail(t, s, `DELETE FROM u RETURNING nosuch`, "42703")
	mustFail(t, s, `UPDATE u SET v = 1 RETURNING w.tag`, "42P01")
	// in a block, over rows the block wrote
	must(t, s, `BEGIN`)
	must(t, s, `INSERT INTO u VALUES (7, 'p', 70), (8, 'q', 80)`)
	must(t, s, `UPDATE u SET v = v + 1 WHERE id >= 7 RETURNING id, v`, "7|71", "8|81")
	must(t, s, `DELETE FROM u WHERE id = 8 RETURNING *`, "8|q|81")
	must(t, s, `UPDATE u SET v = v + w.id FROM w WHERE w.id = 2 RETURNING u.id, u.v`, "7|73", "2|23") // rows the block wrote come first
	must(t, s, `COMMIT`)
	must(t, s, `SELECT * FROM u ORDER BY id`, "2|z|23", "7|p|73")
}

func TestWritableCTEs(t *testing.T) {
	s := lake(t)
	must(t, s, `CREATE TABLE a (id int, v text)`)
	must(t, s, `CREATE TABLE b (id int, v text)`)
	must(t, s, `INSERT INTO a VALUES (1, 'x'), (2, 'y'), (3, 'z')`)
	_, tag, err := run(t, s, `WITH d AS (DELETE FROM a WHERE id >= 2 RETURNING *) INSERT INTO b SELECT * FROM d`)
	if err != nil || tag != "INSERT 0 2" {
		t.Fatalf("tag %q err %v", tag, err)
	}
	must(t, s, `SELECT * FROM a ORDER BY id`, "1|x")
	must(t, s, `SELECT * FROM b ORDER BY id`, "2|y", "3|z")
	must(t, s, `WITH x AS (INSERT INTO a VALUES (5, 'q'), (6, 'r') RETURNING id) SELECT id * 2 FROM x ORDER BY 1`, "10", "12")
	must(t, s, `SELECT count(*) FROM a`, "3")
	must(t, s, `WITH u AS (UPDATE b SET v = upper(v) RETURNING id, v), n AS (SELECT count(*) AS c FROM u) SELECT u.v, n.c FROM u, n ORDER BY u.id`, "Y|2", "Z|2")
	mustFail(t, s, `WITH d AS (DELETE FROM a) SELECT * FROM d`, "0A000")
	mustFail(t, s, `WITH d AS (DELETE FROM a RETURNING nosuch) SELECT * FROM d`, "42703")
	must(t, s, `SELECT count(*) FROM a`, "3")
	must(t, s, `WITH d AS (DELETE FROM a WHERE id = 5) SELECT 1`, "1")
	must(t, s, `SELECT count(*) FROM a`, "2")
}
