package sql

import (
	"testing"
)

func tagIs(t *testing.T, s *Session, q, want string) {
	t.Helper()
	_, tag, err := run(t, s, q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	if tag != want {
		t.Fatalf("%s: tag %q, want %q", q, tag, want)
	}
}

func TestOnConflictBasics(t *testing.T) {
	s := lake(t)
	must(t, s, `CREATE TABLE kv (k int PRIMARY KEY, v text, n int DEFAULT 0)`)
	tagIs(t, s, `INSERT INTO kv VALUES (1, 'a'), (2, 'b') ON CONFLICT DO NOTHING`, "INSERT 0 2")
	tagIs(t, s, `INSERT INTO kv VALUES (1, 'x'), (3, 'c'), (3, 'd') ON CONFLICT DO NOTHING`, "INSERT 0 1")
	must(t, s, `SELECT k, v FROM kv ORDER BY k`, "1|a", "2|b", "3|c")
	tagIs(t, s, `INSERT INTO kv VALUES (1, 'A'), (4, 'D') ON CONFLICT (k) DO UPDATE SET v = excluded.v, n = kv.n + 1`, "INSERT 0 2")
	must(t, s, `SELECT k, v, n FROM kv ORDER BY k`, "1|A|1", "2|b|0", "3|c|0", "4|D|0")
	mustFail(t, s, `INSERT INTO kv VALUES (1, 'A'), (1, 'B') ON CONFLICT (k) DO UPDATE SET v = excluded.v`, "21000")
	mustFail(t, s, `INSERT INTO kv VALUES (5, 'A'), (5, 'B') ON CONFLICT (k) DO UPDATE SET v = excluded.v`, "21000")
	mustFail(t, s, `INSERT INTO kv VALUES (1, 'A') ON CONFLICT (v) DO NOTHING`, "42P10")
	mustFail(t, s, `INSERT INTO kv VALUES (1, 'A') ON CONFLICT DO UPDATE SET v = 'x'`, "42601")
	must(t, s, `INSERT INTO kv AS t VALUES (2, 'B'), (6, 'F') ON CONFLICT ON CONSTRAINT kv_pkey DO UPDATE SET v = t.v || excluded.v WHERE t.k > 1 RETURNING k, v`, "2|bB", "6|F")
	must(t, s, `INSERT INTO kv VALUES (1, 'Z') ON CONFLICT (k) DO UPDATE SET v = excluded.v WHERE kv.v = 'nope' RETURNING *`)
	must(t, s, `SELECT k, v, n FROM kv ORDER BY k`, "1|A|1", "2|bB|0", "3|c|0", "4|D|0", "6|F|0")
	must(t, s, `BEGIN`)
	tagIs(t, s, `INSERT INTO kv VALUES (7, 'g') ON CONFLICT DO NOTHING`, "INSERT 0 1")
	tagIs(t, s, `INSERT INTO kv VALUES (7, 'G'), (8, 'h') ON CONFLICT (k) DO UPDATE SET v = excluded.v`, "INSERT 0 2")
	must(t, s, `SELECT k, v FROM kv WHERE k >= 7 ORDER BY k`, "7|G", "8|h")
	must(t, s, `COMMIT`)
	must(t, s, `SELECT k, v FROM kv WHERE k >= 7 ORDER BY k`, "7|G", "8|h")
}
