package sql

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestResultColumnOrigins: a result column that is a plain column of a lake
// table (also through *, a subquery, a join or GROUP BY) reports the table's
// pg_class.oid and the column's pg_attribute.attnum; anything computed, and
// every column of a set operation, reports 0/0, as in PostgreSQL.
func TestResultColumnOrigins(t *testing.T) {
	s := setup(t)
	must(t, s, `CREATE TABLE u (a int, b text)`)
	must(t, s, `ALTER TABLE u DROP COLUMN a`)
	must(t, s, `ALTER TABLE u ADD COLUMN c int`)
	attnum := func(table, col string) string {
		rows, _, err := run(t, s, `SELECT c.oid, a.attnum FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid WHERE c.relname = $1 AND a.attname = $2`, table, col)
		if err != nil || len(rows) != 1 {
			t.Fatalf("pg_attribute of %s.%s: %v %v", table, col, rows, err)
		}
		return strings.Replace(rows[0], "|", "/", 1)
	}
	tx, tg, ub, uc := attnum("t", "x"), attnum("t", "g"), attnum("u", "b"), attnum("u", "c")
	for _, c := range []struct {
		q    string
		want []string
	}{
		{`SELECT x, g AS label, x + 1, 'k', count(*) OVER () FROM t`, []string{tx, tg, "0/0", "0/0", "0/0"}},
		{`SELECT * FROM u`, []string{ub, uc}},
		{`SELECT u.*, t.x FROM t JOIN u ON t.g = u.b`, []string{ub, uc, tx}},
		{`SELECT q.x, q.y FROM (SELECT x, x * 2 AS y FROM t) q`, []string{tx, "0/0"}},
		{`WITH w AS (SELECT b FROM u) SELECT b FROM w`, []string{ub}},
		{`SELECT g, count(*) FROM t GROUP BY g ORDER BY g`, []string{tg, "0/0"}},
		{`SELECT x::text, (x) FROM t`, []string{"0/0", tx}},
		{`SELECT x FROM t UNION ALL SELECT c FROM u`, []string{"0/0"}},
		{`SELECT relname FROM pg_class`, []string{"0/0"}},
	} {
		stmts, err := s.Prepare(context.Background(), c.q, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.q, err)
		}
		var got []string
		for _, col := range stmts[0].Columns() {
			got = append(got, fmt.Sprintf("%d/%d", col.TableOID, col.Attnum))
		}
		if strings.Join(got, " ") != strings.Join(c.want, " ") {
			t.Errorf("%s: origins %v, want %v", c.q, got, c.want)
		}
	}
}
