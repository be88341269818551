package sql

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/storage"
	"github.com/lakepg/lakepg/test/testserver"
)

// FuzzSQL runs arbitrary SQL text through a session as the wire layer
// would for a simple Query (Prepare, then each statement's Execute and
// rows, then Sync) on a small lake. Nothing may panic: a session turns a
// panic into an XX000 error and a log line, and a parallel worker into an
// XX000 "internal error in parallel worker", so both are watched for.
//
// Seeds are the statements below plus a sample of the sqllogictest
// corpus (shared/conformance/slt, select1–3, whose table t1 the lake has)
// in testdata/fuzz/FuzzSQL.

// fuzzBudget is how long one input may run; its context is cancelled
// then. fuzzGrace is how long it may take to notice: the fuzzing engine
// gives up on an input after 10 s, and reports no more than "hung".
const (
	fuzzBudget = 2 * time.Second
	fuzzGrace  = 5 * time.Second
)

// fuzzLakeSetup makes the tables the seeds use: t1 of the sqllogictest
// files, t as the package's tests have it, tf the same in Parquet files
// with a delete file, and tt with a column of most types.
var fuzzLakeSetup = func() []string {
	var rows []string
	for i := range 30 {
		v := func(k int) string {
			if (i+k)%11 == 0 {
				return "NULL"
			}
			return fmt.Sprint(100 + 5*i + (k*3+i)%5)
		}
		rows = append(rows, fmt.Sprintf("(%s,%s,%s,%s,%s)", v(0), v(1), v(2), v(3), v(4)))
	}
	return []string{
		`CREATE TABLE t (g text, x integer, y double precision, n numeric(8,2), d date)`,
		`INSERT INTO t VALUES ('a', 1, 1.5, 1.25, '2024-01-01'), ('b', 2, NULL, 2.50, '2024-02-01'), ('a', 3, 3.5, NULL, NULL), ('c', NULL, 0.5, 0.10, '2024-03-01')`,
		`CREATE TABLE tt (b boolean, i2 smallint, i8 bigint, r real, s varchar(5), by bytea, ts timestamp, tz timestamptz,
			u uuid, iv interval, j json, a integer[], big numeric(38,10), tm time)`,
		`INSERT INTO tt VALUES (true, 1, 9223372036854775807, 1.5, 'abc', '\x00ff', '2024-02-29 12:00', '2024-02-29 12:00+02',
			'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '1 day 2 hours', '{"k": [1, null, "x"]}', '{1,NULL,3}', 12345678901234567890.0123456789, '13:14:15'),
			(NULL, NULL, NULL, 'NaN', NULL, NULL, 'infinity', '-infinity', NULL, NULL, NULL, '{}', NULL, NULL)`,
		`SET lakepg.data_inlining_row_limit = 0`,
		`CREATE TABLE t1 (a integer, b integer, c integer, d integer, e integer)`,
		`INSERT INTO t1 VALUES ` + strings.Join(rows, ", "),
		`CREATE TABLE tf AS SELECT * FROM t`,
		`INSERT INTO tf SELECT g || '2', x * 10, y, n, d + 1 FROM t`,
		`DELETE FROM tf WHERE x = 2`,
	}
}()

// fuzzSQLSeeds are hand-picked statements: the binder's and planner's
// corners the sqllogictest files do not reach.
var fuzzSQLSeeds = []string{
	`SELECT g, count(*), sum(x), avg(y), min(n), max(d) FROM t GROUP BY g HAVING count(*) > 0 ORDER BY 1`,
	`SELECT DISTINCT ON (g) g, x FROM tf ORDER BY g, x DESC NULLS LAST`,
	`SELECT x, sum(x) OVER (PARTITION BY g ORDER BY x ROWS BETWEEN 1 PRECEDING AND CURRENT ROW), rank() OVER w, lag(y) OVER w FROM t WINDOW w AS (ORDER BY x)`,
	`SELECT g, d, count(*) FROM t GROUP BY GROUPING SETS ((g), (d), ()) ORDER BY 1, 2`,
	`SELECT g, x FROM t GROUP BY ROLLUP (g, x)`,
	`WITH c AS (SELECT g, x FROM t WHERE x > 1) SELECT * FROM c JOIN tf USING (g)`,
	`WITH RECURSIVE r(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM r WHERE k < 10) SELECT sum(k) FROM r`,
	`SELECT * FROM t a LEFT JOIN LATERAL (SELECT b.x FROM tf b WHERE b.g = a.g LIMIT 1) s ON true`,
	`SELECT * FROM t WHERE x IN (SELECT x FROM tf) AND EXISTS (SELECT 1 FROM t1 WHERE a > t.x)`,
	`SELECT (SELECT max(a) FROM t1 WHERE b > t.x), x FROM t`,
	`SELECT x FROM t UNION SELECT x FROM tf INTERSECT SELECT a FROM t1 EXCEPT ALL SELECT 1 ORDER BY 1 LIMIT 3 OFFSET 1`,
	`SELECT * FROM t FULL JOIN tf ON t.x = tf.x AND t.y < tf.y`,
	`SELECT * FROM t CROSS JOIN tt NATURAL JOIN tf`,
	`SELECT b, i2 + 1, i8 - 1, r * 2, s || 'x', length(by), ts + interval '1 month', tz AT TIME ZONE 'UTC', u::text, iv * 2, j -> 'k' ->> 2, a[2], big / 3, tm FROM tt`,
	`SELECT CAST(x AS text), x::numeric(5,1), '2024-13-01'::date, 'x'::int, 1/0, 2147483647::int + 1 FROM t`,
	`SELECT CASE WHEN x > 1 THEN 'big' WHEN x IS NULL THEN NULL ELSE 'small' END, coalesce(y, 0), nullif(g, 'a'), greatest(x, 2), least(y, 1) FROM t`,
	`SELECT upper(g), lower(g), substr(g, 2), position('a' in g), replace(g, 'a', 'b'), split_part('a,b', ',', 2), trim('  x '), g LIKE 'a%', g ILIKE 'A_', g ~ '^a' FROM t`,
	`SELECT date_trunc('month', d), extract(year FROM d), d - '2024-01-01'::date, to_char(d, 'YYYY-MM'), now() > d FROM t`,
	`SELECT array_agg(x ORDER BY x), string_agg(g, ',' ORDER BY g DESC), json_agg(y), count(DISTINCT g), bool_and(x > 0) FROM t`,
	`SELECT unnest(ARRAY[1,2,3]), generate_series(1, 3), x FROM t`,
	`SELECT * FROM generate_series(1, 5) AS s(i) JOIN t ON t.x = s.i`,
	`SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY y), mode() WITHIN GROUP (ORDER BY g) FROM t`,
	`SELECT x, y FROM t WHERE (x, y) > (1, 1.0) AND x BETWEEN SYMMETRIC 3 AND 1`,
	`SELECT $1::int + x, $2 FROM t WHERE g = $3`,
	`INSERT INTO t VALUES ('z', 9, 9.5, 9.99, '2025-01-01') RETURNING *`,
	`INSERT INTO tf SELECT * FROM t ON CONFLICT DO NOTHING`,
	`UPDATE tf SET x = x + 1, g = upper(g) WHERE y > 1 RETURNING x`,
	`UPDATE t SET y = tf.y FROM tf WHERE t.x = tf.x`,
	`DELETE FROM t1 WHERE a IN (SELECT a FROM t1 WHERE b % 2 = 0) RETURNING a`,
	`MERGE INTO tf USING t ON tf.x = t.x WHEN MATCHED AND t.y > 1 THEN UPDATE SET y = t.y WHEN MATCHED THEN DELETE WHEN NOT MATCHED THEN INSERT VALUES (t.g, t.x, t.y, t.n, t.d)`,
	`BEGIN; INSERT INTO t VALUES ('tx', 1, 1, 1, NULL); SAVEPOINT s; DELETE FROM t; ROLLBACK TO SAVEPOINT s; SELECT count(*) FROM t; ROLLBACK`,
	`BEGIN; SELECT 1/0; SELECT 1; ROLLBACK`,
	`BEGIN; DECLARE c CURSOR FOR SELECT * FROM t1 ORDER BY a; FETCH 2 FROM c; MOVE 3 IN c; FETCH ALL FROM c; CLOSE c; COMMIT`,
	`CREATE TABLE n (id bigint, tags text[], meta json, PRIMARY KEY (id))`,
	`CREATE TABLE c2 AS SELECT a, b FROM t1 WHERE a > 120 ORDER BY a`,
	`ALTER TABLE t ADD COLUMN z integer DEFAULT 7; ALTER TABLE t RENAME COLUMN y TO yy; ALTER TABLE t ALTER COLUMN x TYPE bigint; SELECT * FROM t`,
	`ALTER TABLE tf DROP COLUMN n; SELECT * FROM tf`,
	`DROP TABLE IF EXISTS nope; CREATE VIEW v AS SELECT 1; DROP VIEW v; CREATE SCHEMA s2; CREATE TABLE s2.t (a int); DROP SCHEMA s2 CASCADE`,
	`TRUNCATE t1; SELECT count(*) FROM t1`,
	`COPY t TO STDOUT WITH (FORMAT csv, HEADER)`,
	`COPY (SELECT * FROM tt) TO STDOUT`,
	`COPY t FROM STDIN`,
	`EXPLAIN SELECT * FROM t1 WHERE a > 110 AND b < 200 ORDER BY c LIMIT 3`,
	`EXPLAIN (VERBOSE, ANALYZE) SELECT g, count(*) FROM tf GROUP BY g`,
	`SET search_path = public, main; SHOW search_path; RESET ALL; SET TIME ZONE 'Europe/Paris'; SELECT now()::date = current_date`,
	`SET statement_timeout = 1; SELECT count(*) FROM t1 a, t1 b`,
	`SELECT * FROM lakepg.snapshots; SELECT count(*) FROM lakepg.at_version('t', 1)`,
	`CALL lakepg.set_option('data_inlining_row_limit', '5')`,
	`SELECT relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE nspname = 'public' ORDER BY 1`,
	`SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_schema = 'public'`,
	`SELECT pg_typeof(1::int2 + 1.5), version(), current_user, pg_backend_pid() > 0, format('%s-%I', 'a', 'B')`,
	`SELECT '{"a":1}'::json->>'a', '[1,2]'::json->1, json_build_object('k', x), row_to_json(t) FROM t`,
	`SELECT ARRAY[1,2] || 3, array_length(a, 1), cardinality(a), 2 = ANY(a), a @> ARRAY[1] FROM tt`,
	`SELECT ROW(1, 'a') = ROW(1, 'a'), (t.*) IS NULL FROM t`,
	`VALUES (1, 'a'), (2, NULL) ORDER BY 1 DESC`,
	`SELECT 9223372036854775807 + 1, -32768::smallint - 1, 1e308 * 10, 'NaN'::float8 = 'NaN', 0.1::numeric(1000, 999)`,
	`PREPARE p(int) AS SELECT $1 + x FROM t; EXECUTE p(1); DEALLOCATE p`,
	`CREATE ROLE r LOGIN PASSWORD 'x'; GRANT SELECT ON t TO r; DROP ROLE r`,
	`SELECT`,
	`SELECT * FROM`,
	`;;`,
	`SELECT 'unterminated`,
	`SELECT (((((((((((1))))))))))) + x FROM t WHERE NOT NOT NOT x = 1`,
}

// fuzzLake is the lake every input of a fuzzing process runs on. An input
// that commits (DDL, DML) changes it; then it is built again, so that each
// input starts from the same tables and a crash found after another input
// still reproduces alone.
type fuzzLake struct {
	root  string
	watch *testserver.PanicLog
	n     int

	dir  string
	db   *catalog.DB
	eng  *Engine
	head int64
}

func (l *fuzzLake) build(tb testing.TB) {
	tb.Helper()
	if l.db != nil {
		l.db.Close()
		os.RemoveAll(l.dir)
	}
	l.n++
	l.dir = filepath.Join(l.root, fmt.Sprint("lake", l.n))
	if err := os.MkdirAll(l.dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	ctx := context.Background()
	db, err := catalog.Open(ctx, "sqlite:"+filepath.Join(l.dir, "catalog.sqlite"), filepath.Join(l.dir, "data")+"/")
	if err != nil {
		tb.Fatal(err)
	}
	store, err := storage.ForDataPath(db.DataPath())
	if err != nil {
		tb.Fatal(err)
	}
	l.db, l.eng = db, NewEngine(db, store, slog.New(l.watch))
	s := l.session(tb)
	defer s.Close()
	for _, q := range fuzzLakeSetup {
		if err := runAll(ctx, s, q); err != nil {
			tb.Fatalf("%s: %v", q, err)
		}
	}
	l.head = l.headID(tb)
}

func (l *fuzzLake) session(tb testing.TB) *Session {
	s, err := l.eng.NewSession("fuzz", "lake", map[string]string{"TimeZone": "UTC"})
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

func (l *fuzzLake) headID(tb testing.TB) int64 {
	snap, err := l.db.Head(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	return snap.ID
}

// noRows is the data of a COPY FROM STDIN: none.
type noRows struct{}

func (noRows) Next() ([][]byte, error) { return nil, io.EOF }
func (noRows) Line() int64             { return 0 }

// runAll runs every statement of q as a simple Query would, returning the
// first error; every error goes to check.
func runAll(ctx context.Context, s *Session, q string) error {
	var first error
	runQuery(ctx, s, q, func(err error) {
		if first == nil {
			first = err
		}
	})
	return first
}

// fuzzMaxBatches bounds the rows read from one statement.
const fuzzMaxBatches = 256

func runQuery(ctx context.Context, s *Session, q string, check func(error)) {
	defer func() {
		if err := s.Sync(ctx); err != nil {
			check(err)
		}
	}()
	stmts, err := s.Prepare(ctx, q, nil)
	if err != nil {
		check(err)
		return
	}
	for _, st := range stmts {
		s.Pipelined(len(stmts) > 1)
		st.Columns()
		vals := make([][]byte, len(st.ParamTypes()))
		for i := range vals {
			vals[i] = []byte("1")
		}
		res, err := st.Execute(ctx, vals)
		if err != nil {
			check(err)
			return
		}
		if spec := res.Copy(); spec != nil && spec.In {
			if err := res.CopyIn(ctx, noRows{}); err != nil {
				check(err)
			}
		}
		for range fuzzMaxBatches {
			b, err := res.Next(ctx)
			if err != nil {
				check(err)
				break
			}
			if b == nil {
				break
			}
		}
		res.Tag()
		if err := res.Close(); err != nil {
			check(err)
		}
	}
}

// sizedFuncs and bigNumber together match inputs that may ask for a lot
// of memory or time in one call, which a fuzzer finds at once and which
// say nothing about the binder: a generator, padding or power function
// and a number of five digits or more (or an exponent) in the text.
var (
	sizedFuncs = regexp.MustCompile(`(?i)generate_series|generate_subscripts|repeat|[lr]pad|array_fill|range|space|pow|exp|factorial|recursive|\^`)
	bigNumber  = regexp.MustCompile(`[0-9]{5}|[0-9][eE][+]?[0-9]`)
)

// internalErr reports an error that stands for a panic or a runtime
// error: XX000 from recoverPanic or exec's worker guard.
func internalErr(err error) bool {
	pe, ok := pgerr.As(err)
	if !ok || pe.Code != pgerr.Internal {
		return false
	}
	m := pe.Message
	return strings.HasPrefix(m, "internal error") || strings.Contains(m, "panic") || strings.Contains(m, "runtime error")
}

func FuzzSQL(f *testing.F) {
	for _, q := range fuzzSQLSeeds {
		f.Add(q)
	}
	l := &fuzzLake{root: f.TempDir(), watch: &testserver.PanicLog{}}
	l.build(f)
	f.Cleanup(func() { l.db.Close() })
	f.Fuzz(func(t *testing.T, q string) {
		if sizedFuncs.MatchString(q) && bigNumber.MatchString(q) {
			t.Skip("may ask for more memory or time than a fuzz input gets")
		}
		s := l.session(t)
		ctx, cancel := context.WithTimeout(context.Background(), fuzzBudget)
		defer cancel()
		var errs []error
		done := make(chan struct{})
		go func() {
			defer close(done)
			runQuery(ctx, s, q, func(err error) { errs = append(errs, err) })
			s.Close()
		}()
		select {
		case <-done:
		case <-time.After(fuzzBudget + fuzzGrace):
			// the goroutine is left behind: the process ends with this failure
			t.Fatalf("%q still runs %v after its context was cancelled", q, fuzzGrace)
		}
		if p := l.watch.Take(); len(p) > 0 {
			t.Fatalf("%q panicked:\n%s", q, strings.Join(p, "\n---\n"))
		}
		for _, err := range errs {
			if internalErr(err) {
				t.Fatalf("%q: %v", q, err)
			}
		}
		if l.headID(t) != l.head {
			l.build(t)
		}
	})
}
