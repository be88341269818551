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
