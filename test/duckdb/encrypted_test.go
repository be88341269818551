package duckdb

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/lakepg/lakepg/catalog/catalogtest"
	"github.com/lakepg/lakepg/test/testserver"
)

// Encrypted lakes (DuckDB's ENCRYPTED): DuckDB 1.5.5 writes one and lakepg
// reads it exactly and writes to it; lakepg creates one (--encrypted) and
// DuckDB reads it exactly. Both on SQLite and PostgreSQL catalogs. Every
// file must be encrypted ("PARE") with a key of its own, and no key may
// appear in lakepg's logs, EXPLAIN output or error text.

// duckEncSteps write Parquet data and delete files (no inlining) in an
// encrypted lake: dictionary and plain pages, NULLs, several types.
var duckEncSteps = []string{
	`CREATE TABLE lk.t (id INTEGER, v VARCHAR, d DOUBLE, ts TIMESTAMPTZ, n DECIMAL(10,2), ls INTEGER[])`,
	`INSERT INTO lk.t SELECT i, CASE WHEN i % 7 = 0 THEN NULL ELSE 'v' || (i % 13) END, i / 4, TIMESTAMPTZ '2024-01-01 00:00:00+00' + i * INTERVAL 1 MINUTE, i / 100,
		CASE WHEN i % 9 = 0 THEN NULL ELSE [i, i % 5] END
		FROM range(0, 3000) r(i)`,
	`DELETE FROM lk.t WHERE id % 11 = 0`,
	`UPDATE lk.t SET v = 'upd' WHERE id BETWEEN 100 AND 120`,
	`CREATE TABLE lk.p (id INTEGER, region VARCHAR)`,
	`ALTER TABLE lk.p SET PARTITIONED BY (region)`,
	`INSERT INTO lk.p SELECT i, CASE WHEN i % 2 = 0 THEN 'eu' ELSE 'us' END FROM range(0, 500) r(i)`,
}

// lakepgEncSteps are lakepg's writes to the encrypted lake DuckDB made.
var lakepgEncSteps = []string{
	`INSERT INTO main.t (id, v, d) SELECT i, 'lakepg ' || i, i * 2 FROM generate_series(5000, 6999) i`,
	`DELETE FROM main.t WHERE id % 5 = 0`,
	`UPDATE main.t SET v = 'by lakepg' WHERE id BETWEEN 200 AND 260 OR id BETWEEN 6000 AND 6010`,
	`DELETE FROM main.p WHERE id < 50`,
	`INSERT INTO main.p SELECT i, 'apac' FROM generate_series(1000, 1999) i`,
	// compaction rewrites DuckDB's encrypted files (read with their keys)
	`CALL lakepg.rewrite_data_files('main.p', 0.05)`,
}

// lakepgNewSteps make an encrypted lake from scratch in lakepg.
var lakepgNewSteps = []string{
	`CREATE TABLE t (id integer, v text, d double precision, n numeric(10,2))`,
	`INSERT INTO t SELECT i, CASE WHEN i % 7 = 0 THEN NULL ELSE 'v' || (i % 13) END, i / 4.0, i / 100.0 FROM generate_series(0, 4999) i`,
	`DELETE FROM t WHERE id % 11 = 0`,
	`UPDATE t SET v = 'upd' WHERE id BETWEEN 100 AND 120`,
	`CREATE TABLE p (id integer, region text)`,
	`INSERT INTO p SELECT i, 'r' || (i % 3) FROM generate_series(0, 999) i`,
	`DELETE FROM p WHERE id % 4 = 1`,
	// maintenance writes encrypted files too: a flush of inlined rows, a
	// rewrite of files with deletes, a merge of small files
	`INSERT INTO t VALUES (90001, 'inlined', 1, 1), (90002, NULL, 2, 2)`,
	`CALL lakepg.flush_inlined_data('public.t')`,
	`CALL lakepg.rewrite_data_files('public.p', 0.2)`,
	`INSERT INTO t SELECT i, 'm', 0, 0 FROM generate_series(10000, 10999) i`,
	`INSERT INTO t SELECT i, 'm', 0, 0 FROM generate_series(11000, 11999) i`,
	`CALL lakepg.merge_adjacent_files('public.t')`,
	`CREATE TABLE c AS SELECT id, v, n FROM t WHERE id < 3000`,
	// a transaction block reads its own staged encrypted files and deletes
	`BEGIN; INSERT INTO t SELECT i, 'tx', 0, 0 FROM generate_series(20000, 20999) i;
		DELETE FROM t WHERE id BETWEEN 20000 AND 20100; DELETE FROM t WHERE id BETWEEN 20900 AND 20950;
		UPDATE t SET v = 'tx2' WHERE id BETWEEN 20500 AND 20510; COMMIT`,
}

// encLake is one lake under test: how lakepg and DuckDB name its catalog.
type encLake struct {
	dir, data  string
	lakepgArgs []string // --catalog …
	duck       duckInput
	attach     string // DuckDB's ATTACH without options
	sqlitePath string // "" for PostgreSQL
	schema     string // of the tables compared: main (DuckDB's), public (lakepg's default)
}

func newEncLake(t *testing.T, kind string) encLake {
	t.Helper()
	ducklakeExt, sqliteExt := duckdbExtensions(t)
	dir := t.TempDir()
	l := encLake{dir: dir, data: filepath.Join(dir, "data") + "/", schema: "main"}
	l.duck = duckInput{Ducklake: ducklakeExt, Httpfs: testserver.DuckDBExtension(t, "httpfs")}
	if kind == "sqlite" {
		l.sqlitePath = filepath.Join(dir, "catalog.sqlite")
		l.lakepgArgs = []string{"--catalog", "sqlite:" + l.sqlitePath}
		l.duck.Sqlite = sqliteExt
		l.attach = "ATTACH " + sqlString("ducklake:sqlite:"+l.sqlitePath) + " AS lk"
	} else {
		dsn := testserver.PostgresDatabase(t, "lakepg_encrypted")
		params, err := catalogtest.Params(dsn)
		if err != nil {
			t.Fatal(err)
		}
		l.lakepgArgs = []string{"--catalog", dsn}
		l.duck.Postgres = postgresExtension(t)
		l.attach = "ATTACH " + sqlString("ducklake:postgres:"+params.Libpq()) + " AS lk"
	}
	return l
}

func (l encLake) start(t *testing.T, ctx context.Context, extra ...string) (*testserver.Server, *pgx.Conn) {
	t.Helper()
	port := testserver.FreePort(t)
	// debug: the most lakepg logs (statements included), none of it may
	// hold a key
	args := append([]string{"--listen", fmt.Sprintf("127.0.0.1:%d", port), "--data", l.data, "--log-level", "debug"}, l.lakepgArgs...)
	srv := testserver.Launch(t, testserver.Binary(t), l.dir, port, append(args, extra...), nil)
	conn, err := pgx.Connect(ctx, srv.DSN())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	query(t, ctx, conn, `SET TimeZone = 'UTC'`)
	return srv, conn
}

// keys lists the keys of the lake's live files as DuckDB sees the catalog,
// and checks that every live file is encrypted and has a key. (DuckDB itself
// gives the files one statement writes the same key — an UPDATE's data and
// delete file, an INSERT's partition files — so uniqueness is checked by the
// callers for lakepg's files only.)
func (l encLake) keys(t *testing.T) []string {
	t.Helper()
	in := l.duck
	in.Attach = l.attach + " (READ_ONLY)"
	in.Queries = []duckQuery{}
	in.Raw = []string{
		`SELECT value FROM __ducklake_metadata_lk.ducklake_metadata WHERE key = 'encrypted'`,
		`SELECT t.table_name, f.path, f.encryption_key FROM __ducklake_metadata_lk.ducklake_data_file f
			JOIN __ducklake_metadata_lk.ducklake_table t USING (table_id) WHERE f.end_snapshot IS NULL AND t.end_snapshot IS NULL
		 UNION ALL SELECT t.table_name, f.path, f.encryption_key FROM __ducklake_metadata_lk.ducklake_delete_file f
			JOIN __ducklake_metadata_lk.ducklake_table t USING (table_id) WHERE f.end_snapshot IS NULL AND t.end_snapshot IS NULL`,
	}
	out := runDuckDB(t, in)
	if len(out.Raw) != 2 || len(out.Raw[0]) != 1 || out.Raw[0][0][0] == nil || *out.Raw[0][0][0] != "true" {
		t.Fatalf("ducklake_metadata encrypted: %v, want 'true'", out.Raw)
	}
	if len(out.Raw[1]) < 4 {
		t.Fatalf("only %d live files", len(out.Raw[1]))
	}
	var keys []string
	for _, r := range out.Raw[1] {
		if r[2] == nil || *r[2] == "" {
			t.Fatalf("file %s has no encryption_key", *r[1])
		}
		keys = append(keys, *r[2])
		b, err := os.ReadFile(filepath.Join(l.data, l.schema, *r[0], *r[1]))
		if err != nil {
			t.Fatal(err)
		}
		if len(b) < 8 || string(b[:4]) != "PARE" || string(b[len(b)-4:]) != "PARE" {
			t.Fatalf("file %s is not encrypted Parquet", *r[1])
		}
	}
	return keys
}

// compareTables reads each table in lakepg and in DuckDB and compares.
// distinctKeys fails unless the keys not in old are all different (lakepg
// gives every file a fresh key) and there are at least want of them.
func distinctKeys(t *testing.T, keys, old []string, want int) {
	t.Helper()
	seen := map[string]bool{}
	for _, k := range old {
		seen[k] = true
	}
	n := 0
	for _, k := range keys {
		if seen[k] {
			if !contains(old, k) {
				t.Fatal("two of lakepg's files share a key")
			}
			continue
		}
		seen[k] = true
		n++
	}
	if n < want {
		t.Fatalf("%d files with keys of their own, want at least %d", n, want)
	}
}

func ptr(s string) *string { return &s }

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

func (l encLake) compareTables(t *testing.T, ctx context.Context, conn *pgx.Conn, label string, tables ...string) {
	t.Helper()
	in := l.duck
	in.Attach = l.attach + " (READ_ONLY)"
	var mine []result
	for _, tb := range tables {
		mine = append(mine, query(t, ctx, conn, "SELECT * FROM "+l.schema+"."+tb+" ORDER BY id"))
		in.Queries = append(in.Queries, duckQuery{From: "lk." + l.schema + "." + tb, Order: "id"})
	}
	out := runDuckDB(t, in)
	if len(out.Results) != len(tables) {
		t.Fatalf("DuckDB answered %d queries, want %d", len(out.Results), len(tables))
	}
	for i, tb := range tables {
		if len(mine[i].Rows) < 100 {
			t.Fatalf("%s: table %s has only %d rows", label, tb, len(mine[i].Rows))
		}
		compareResult(t, label+": table "+tb, mine[i], out.Results[i])
	}
}

// check runs lakepg check on the lake: it must read every encrypted file
// (footer row counts, statistics) and find nothing wrong, printing no key.
func (l encLake) check(t *testing.T, ctx context.Context, keys []string) {
	t.Helper()
	cmd := exec.CommandContext(ctx, testserver.Binary(t), append([]string{"check", "--data", l.data}, l.lakepgArgs...)...)
	cmd.Env = testserver.CleanEnv()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("lakepg check on the encrypted lake: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "checked ") {
		t.Fatalf("lakepg check printed no summary:\n%s", out)
	}
	noKeys(t, "lakepg check's output", string(out), keys)
}

// noKeys fails if any key appears in text.
func noKeys(t *testing.T, what, text string, keys []string) {
	t.Helper()
	for _, k := range keys {
		if strings.Contains(text, k) {
			t.Fatalf("%s contains an encryption key", what)
		}
	}
}

func TestEncryptedLakeFromDuckDB(t *testing.T) {
	for _, kind := range []string{"sqlite", "postgres"} {
		t.Run(kind, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
			defer cancel()
			l := newEncLake(t, kind)
			// DuckDB creates the encrypted lake and writes Parquet files.
			in := l.duck
			in.Attach = l.attach + " (DATA_PATH " + sqlString(l.data) + ", ENCRYPTED, DATA_INLINING_ROW_LIMIT 0)"
			in.Steps = duckEncSteps
			in.Queries = []duckQuery{}
			runDuckDB(t, in)
			duckKeys := l.keys(t)

			srv, conn := l.start(t, ctx)
			// (compareTables knows no arrays: the list column, a nested chunk
			// of encrypted pages, is compared by aggregates and then dropped)
			agg := `SELECT count(ls)::text, sum(ls[1])::text, sum(ls[2])::text, sum(len(ls))::text FROM %s`
			mine := query(t, ctx, conn, fmt.Sprintf(strings.Replace(agg, "len(ls)", "cardinality(ls)", 1), "main.t"))
			lin := l.duck
			lin.Attach = l.attach + " (READ_ONLY)"
			lin.Queries = []duckQuery{}
			lin.Raw = []string{fmt.Sprintf(agg, "lk.main.t")}
			if theirs := runDuckDB(t, lin).Raw[0]; fmtRows(mine.Rows) != fmtRows(theirs) || len(theirs) != 1 || theirs[0][0] == nil || *theirs[0][0] == "0" {
				t.Fatalf("list column of DuckDB's encrypted file: lakepg %s, DuckDB %s", fmtRows(mine.Rows), fmtRows(theirs))
			}
			query(t, ctx, conn, `ALTER TABLE main.t DROP COLUMN ls`)
			l.compareTables(t, ctx, conn, "DuckDB's encrypted lake read by lakepg", "t", "p")
			r := query(t, ctx, conn, `SELECT count(*), sum(id), count(v) FROM main.t WHERE id BETWEEN 1000 AND 1999`)
			if got := fmtRow(r.Rows[0]); got != `("909", "1363364", "779")` {
				t.Errorf("aggregate over DuckDB's encrypted file: %s", got)
			}

			// The change feed over DuckDB's snapshots reads its encrypted data
			// and delete files and answers as DuckDB's does.
			last := lastSnapshot(t, ctx, conn)
			for _, tb := range []string{"t", "p"} {
				mine := query(t, ctx, conn, fmt.Sprintf(`SELECT change_type, count(*), sum(id) FROM lakepg.table_changes('main.%s', 1, %d) GROUP BY 1 ORDER BY 1`, tb, last))
				in := l.duck
				in.Attach = l.attach + " (READ_ONLY)"
				in.Queries = []duckQuery{}
				in.Raw = []string{fmt.Sprintf(`SELECT change_type, count(*), sum(id) FROM ducklake_table_changes('lk', 'main', '%s', 1, %d) GROUP BY 1 ORDER BY 1`, tb, last)}
				theirs := runDuckDB(t, in).Raw[0]
				if fmtRows(mine.Rows) != fmtRows(theirs) || len(mine.Rows) == 0 {
					t.Fatalf("table_changes of %s: lakepg %s\nDuckDB %s", tb, fmtRows(mine.Rows), fmtRows(theirs))
				}
			}
			// lakepg writes to it: new files and delete files, encrypted.
			for _, st := range lakepgEncSteps {
				query(t, ctx, conn, st)
			}
			l.compareTables(t, ctx, conn, "lakepg's writes to DuckDB's encrypted lake read by DuckDB", "t", "p")
			ch := query(t, ctx, conn, `SELECT changes FROM lakepg.snapshots ORDER BY snapshot_id DESC LIMIT 1`)
			if len(ch.Rows) != 1 || ch.Rows[0][0] == nil || !strings.Contains(*ch.Rows[0][0], "rewrite_delete") {
				t.Fatalf("rewrite_data_files made no rewrite_delete snapshot: %s", fmtRows(ch.Rows))
			}
			// Over the whole history lakepg's change feed reads both writers'
			// encrypted files: DuckDB deleted id % 11 = 0 of 0..2999 (273 rows),
			// lakepg id % 5 = 0 of what was left and of 5000..6999 (545 + 400),
			// and DuckDB's feed over the same snapshots says the same. (It said
			// 2345 while lakepg end-dated a replaced delete file instead of
			// replacing its row: see deletefeed_test.go.)
			last = lastSnapshot(t, ctx, conn)
			ch = query(t, ctx, conn, fmt.Sprintf(`SELECT count(*) FROM lakepg.table_changes('main.t', 1, %d) WHERE change_type = 'delete'`, last))
			if got := fmtRows(ch.Rows); got != fmtRows([][]*string{{ptr("1218")}}) {
				t.Fatalf("deletes in lakepg's change feed of t: %s, want 1218", got)
			}
			for _, tb := range []string{"t", "p"} {
				mine := query(t, ctx, conn, fmt.Sprintf(`SELECT snapshot_id, change_type, count(*), sum(id) FROM lakepg.table_changes('main.%s', 1, %d) GROUP BY 1, 2 ORDER BY 1, 2`, tb, last))
				in := l.duck
				in.Attach = l.attach + " (READ_ONLY)"
				in.Queries = []duckQuery{}
				in.Raw = []string{fmt.Sprintf(`SELECT snapshot_id, change_type, count(*), sum(id) FROM ducklake_table_changes('lk', 'main', '%s', 1, %d) GROUP BY 1, 2 ORDER BY 1, 2`, tb, last)}
				if theirs := runDuckDB(t, in).Raw[0]; fmtRows(mine.Rows) != fmtRows(theirs) {
					t.Fatalf("table_changes of %s after lakepg's writes: lakepg %s\nDuckDB %s", tb, fmtRows(mine.Rows), fmtRows(theirs))
				}
			}
			keys := l.keys(t)
			// new data files for t and p, delete files for both
			distinctKeys(t, keys, duckKeys, 4)
			keys = append(keys, duckKeys...)

			var explain strings.Builder
			for _, q := range []string{
				`EXPLAIN ANALYZE SELECT * FROM main.t WHERE id > 10`,
				`EXPLAIN (ANALYZE, VERBOSE) SELECT count(*) FROM main.p`,
			} {
				for _, row := range query(t, ctx, conn, q).Rows {
					explain.WriteString(fmtRow(row) + "\n")
				}
			}
			if !strings.Contains(explain.String(), ".parquet") && !strings.Contains(explain.String(), "main.t") {
				t.Fatalf("EXPLAIN output names no scan:\n%s", explain.String())
			}
			noKeys(t, "EXPLAIN output", explain.String(), keys)
			l.check(t, ctx, keys)

			if l.sqlitePath != "" {
				// A wrong key (another file's) in the catalog: an error with a
				// SQLSTATE, naming neither key.
				swapKeys(t, l.sqlitePath)
				srv.Restart(t)
				conn2, err := pgx.Connect(ctx, srv.DSN())
				if err != nil {
					t.Fatal(err)
				}
				defer conn2.Close(context.Background())
				_, err = conn2.Exec(ctx, `SELECT count(*), sum(d) FROM main.t`)
				if err == nil || !strings.Contains(err.Error(), "XX001") || !strings.Contains(err.Error(), "wrong key") {
					t.Fatalf("reading with a wrong key: %v, want XX001 wrong key", err)
				}
				var pe *pgconn.PgError
				if !errors.As(err, &pe) || !strings.Contains(pe.Detail, ".parquet") {
					t.Fatalf("the wrong-key error does not name the file: %#v", err)
				}
				noKeys(t, "the wrong-key error", err.Error()+" "+pe.Detail+" "+pe.Hint, keys)
			}
			noKeys(t, "lakepg's log", srv.Logs.String(), keys)
		})
	}
}

// swapKeys gives the first two data files of table t each other's key, in a
// SQLite catalog (with Python's sqlite3: the test must not go through lakepg).
func swapKeys(t *testing.T, path string) {
	t.Helper()
	const script = `
import json, sys, sqlite3
inp = json.load(sys.stdin)
c = sqlite3.connect(inp["path"])
rows = c.execute("""SELECT data_file_id, encryption_key FROM ducklake_data_file f
  WHERE end_snapshot IS NULL AND table_id = (SELECT table_id FROM ducklake_table WHERE table_name = 't' AND end_snapshot IS NULL)
  ORDER BY data_file_id LIMIT 2""").fetchall()
c.execute("UPDATE ducklake_data_file SET encryption_key = ? WHERE data_file_id = ?", (rows[1][1], rows[0][0]))
c.execute("UPDATE ducklake_data_file SET encryption_key = ? WHERE data_file_id = ?", (rows[0][1], rows[1][0]))
c.commit()
json.dump({"swapped": len(rows)}, sys.stdout)
`
	var out struct{ Swapped int }
	testserver.RunPythonJSON(t, script, time.Minute, map[string]string{"path": path}, &out)
	if out.Swapped != 2 {
		t.Fatalf("swapped %d keys", out.Swapped)
	}
}

func TestEncryptedLakeFromLakepg(t *testing.T) {
	for _, kind := range []string{"sqlite", "postgres"} {
		t.Run(kind, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
			defer cancel()
			l := newEncLake(t, kind)
			l.schema = "public"
			srv, conn := l.start(t, ctx, "--encrypted")
			for _, st := range lakepgNewSteps {
				query(t, ctx, conn, st)
			}
			ch := query(t, ctx, conn, `SELECT string_agg(changes, ' ' ORDER BY snapshot_id) FROM lakepg.snapshots`)
			for _, want := range []string{"inline_flush", "rewrite_delete", "merge_adjacent"} {
				if len(ch.Rows) != 1 || ch.Rows[0][0] == nil || !strings.Contains(*ch.Rows[0][0], want) {
					t.Fatalf("the maintenance steps made no %s snapshot: %s", want, fmtRows(ch.Rows))
				}
			}
			l.compareTables(t, ctx, conn, "lakepg's encrypted lake read by DuckDB", "t", "p", "c")
			keys := l.keys(t)
			distinctKeys(t, keys, nil, 4)
			l.check(t, ctx, keys)
			noKeys(t, "lakepg's log", srv.Logs.String(), keys)
			// Nothing in the data directory is plaintext Parquet.
			err := filepath.Walk(l.data, func(p string, fi os.FileInfo, err error) error {
				if err != nil || fi.IsDir() {
					return err
				}
				b, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				if bytes.Contains(b, []byte("PAR1")) {
					return fmt.Errorf("%s holds PAR1", p)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}
