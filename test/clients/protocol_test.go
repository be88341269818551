package clients

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/lakepg/lakepg/test/testserver"
)

// savepointScript exercises SAVEPOINT, ROLLBACK TO and RELEASE around
// inserts, updates, deletes, CREATE TABLE and ALTER TABLE, errors inside
// and outside a block, and names used twice.
var savepointScript = []string{
	`CREATE TABLE sp (id integer, v text)`,
	`INSERT INTO sp VALUES (0, 'zero')`,
	`SAVEPOINT outside`,
	`RELEASE outside`,
	`ROLLBACK TO outside`,
	`ROLLBACK TO SAVEPOINT outside`,
	`RELEASE SAVEPOINT outside`,
	`BEGIN`,
	`INSERT INTO sp VALUES (1, 'a')`,
	`SAVEPOINT s1`,
	`INSERT INTO sp VALUES (2, 'b')`,
	`UPDATE sp SET v = 'A' WHERE id = 1`,
	`DELETE FROM sp WHERE id = 0`,
	`CREATE TABLE sp2 (k integer)`,
	`INSERT INTO sp2 VALUES (1)`,
	`ALTER TABLE sp ADD COLUMN w integer`,
	`SELECT * FROM sp ORDER BY id`,
	`ROLLBACK TO SAVEPOINT s1`,
	`SELECT * FROM sp ORDER BY id`,
	`SELECT count(*) FROM sp2`,
	`SELECT 1`,
	`ROLLBACK TO s1`,
	`SAVEPOINT s2`,
	`INSERT INTO sp VALUES (3, 'c')`,
	`SELECT 1/0`,
	`SAVEPOINT s3`,
	`RELEASE s2`,
	`ROLLBACK TO nosuch`,
	`ROLLBACK TO s2`,
	`INSERT INTO sp VALUES (4, 'd')`,
	`SAVEPOINT s2`,
	`UPDATE sp SET v = 'dd' WHERE id = 4`,
	`SAVEPOINT s4`,
	`DELETE FROM sp WHERE id = 1`,
	`ROLLBACK TO s2`,
	`RELEASE s4`,
	`ROLLBACK TO s2`,
	`SELECT * FROM sp ORDER BY id`,
	`RELEASE s2`,
	`SELECT * FROM sp ORDER BY id`,
	`RELEASE s2`,
	`SAVEPOINT s5`,
	`ALTER TABLE sp ADD COLUMN w integer`,
	`UPDATE sp SET w = id * 10`,
	`RELEASE SAVEPOINT s5`,
	`COMMIT`,
	`SELECT * FROM sp ORDER BY id`,
	`BEGIN`,
	`SAVEPOINT a`,
	`CREATE TABLE sp3 (k integer)`,
	`INSERT INTO sp3 VALUES (1)`,
	`ROLLBACK TO a`,
	`DELETE FROM sp WHERE id = 4`,
	`COMMIT`,
	`SELECT * FROM sp3`,
	`SELECT * FROM sp ORDER BY id`,
	`DROP TABLE sp`,
}

// transcript runs the script statement by statement (over the simple or the
// extended protocol) and writes what each answers: tag or SQLSTATE and
// message, rows, and the transaction status of the ReadyForQuery after it.
func transcript(t *testing.T, dsn string, extended bool) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := pgconn.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer c.Close(context.Background())
	var out []string
	for _, q := range savepointScript {
		var res *pgconn.Result
		if extended {
			res = c.ExecParams(ctx, q, nil, nil, nil, nil).Read()
		} else {
			rs, err := c.Exec(ctx, q).ReadAll()
			if len(rs) > 0 {
				res = rs[0]
			} else {
				res = &pgconn.Result{Err: err}
			}
		}
		line := q + " → "
		if res.Err != nil {
			line += "ERROR " + sqlstate(res.Err)
		} else {
			line += res.CommandTag.String()
			for _, r := range res.Rows {
				var cells []string
				for _, v := range r {
					if v == nil {
						cells = append(cells, "NULL")
					} else {
						cells = append(cells, string(v))
					}
				}
				line += " [" + strings.Join(cells, "|") + "]"
			}
		}
		out = append(out, fmt.Sprintf("%s (%c)", line, c.TxStatus()))
	}
	return out
}

// TestSavepointsMatchPostgres runs one script of savepoints on lakepg and on
// PostgreSQL, over the simple and the extended protocol, and wants the same
// answers: command tags, errors (SQLSTATE and message), rows and the
// ReadyForQuery status after every statement (E to T after ROLLBACK TO).
func TestSavepointsMatchPostgres(t *testing.T) {
	pgDSN := testserver.PostgresDatabase(t, "savepoints")
	s := testserver.Start(t, testserver.Binary(t), t.TempDir())
	for _, extended := range []bool{false, true} {
		lake, pg := transcript(t, s.DSN(), extended), transcript(t, pgDSN, extended)
		for i := range pg {
			if lake[i] != pg[i] {
				t.Errorf("extended=%v, statement %d:\n  lakepg:     %s\n  PostgreSQL: %s", extended, i+1, lake[i], pg[i])
			}
		}
		if t.Failed() {
			t.Logf("PostgreSQL's transcript:\n%s", strings.Join(pg, "\n"))
			return
		}
	}
}

// originQueries are result sets whose columns are plain table columns,
// computed, or both.
var originQueries = []string{
	`SELECT id, customer, amount * 2, note AS remark, 1 AS one FROM sales.orders`,
	`SELECT * FROM public.items`,
	`SELECT o.id, i.name, i.price + o.amount FROM sales.orders o JOIN public.items i ON i.item_id = o.id`,
	`SELECT q.id, q.twice FROM (SELECT id, id * 2 AS twice FROM sales.orders) q`,
	`WITH w AS (SELECT name FROM public.items) SELECT name FROM w`,
	`SELECT customer, count(*) FROM sales.orders GROUP BY customer`,
	`SELECT id::text, (id) FROM sales.orders`,
	`SELECT item_id FROM public.items UNION ALL SELECT big FROM sales.orders`,
}

// origins describes each column of a query's RowDescription by the
// table.column its table OID and attnum name in pg_class/pg_attribute, or
// "-" for 0/0, on the server at dsn.
func origins(t *testing.T, dsn string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := pgconn.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer c.Close(context.Background())
	var out []string
	for _, q := range originQueries {
		res := c.ExecParams(ctx, q, nil, nil, nil, nil).Read()
		if res.Err != nil {
			t.Fatalf("%s: %v", q, res.Err)
		}
		var cols []string
		for _, f := range res.FieldDescriptions {
			if f.TableOID == 0 && f.TableAttributeNumber == 0 {
				cols = append(cols, "-")
				continue
			}
			name := c.ExecParams(ctx, `SELECT n.nspname || '.' || c.relname || '.' || a.attname FROM pg_class c
 JOIN pg_namespace n ON n.oid = c.relnamespace JOIN pg_attribute a ON a.attrelid = c.oid
 WHERE c.oid = $1::oid AND a.attnum = $2::int2`,
				[][]byte{[]byte(fmt.Sprint(f.TableOID)), []byte(fmt.Sprint(f.TableAttributeNumber))}, nil, nil, nil).Read()
			if name.Err != nil || len(name.Rows) != 1 {
				cols = append(cols, fmt.Sprintf("%d/%d not in pg_attribute (%v)", f.TableOID, f.TableAttributeNumber, name.Err))
				continue
			}
			cols = append(cols, string(name.Rows[0][0]))
		}
		out = append(out, q+" → "+strings.Join(cols, ", "))
	}
	return out
}

// TestRowDescriptionOrigins: RowDescription gives a column that comes
// straight from a table the table's OID and the column's attnum, the ones
// pg_class and pg_attribute show, and 0/0 to computed columns, for the
// same columns as PostgreSQL.
func TestRowDescriptionOrigins(t *testing.T) {
	pgDSN := testserver.PostgresDatabase(t, "origins")
	exec1(t, pgDSN, fixtureSQL(t))
	s := lakeServer(t)
	lake, pg := origins(t, s.DSN()), origins(t, pgDSN)
	for i := range pg {
		if lake[i] != pg[i] {
			t.Errorf("\n  lakepg:     %s\n  PostgreSQL: %s", lake[i], pg[i])
		}
	}
}
