// Package duckdb checks that DuckDB 1.5.5 with its ducklake extension reads a lake that
// lakepg wrote, with the catalog in SQLite and in PostgreSQL: the same rows at every
// snapshot, the same snapshot list.
package duckdb

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/lakepg/lakepg/catalog/catalogtest"
	"github.com/lakepg/lakepg/test/testserver"
)

func TestMain(m *testing.M) {
	code := m.Run()
	testserver.RemoveBinary()
	os.Exit(code)
}

// steps are run one by one through pgx; each commits exactly one snapshot. Every table has a
// unique column id to order by. Negative intervals are not in the data: lakepg refuses to
// store them (Parquet's INTERVAL has unsigned parts), so DuckDB cannot be asked about them.
var steps = []string{
	`CREATE TABLE t (id integer, c_small smallint, c_int integer, c_big bigint, c_real real,
		c_double double precision, c_num numeric(10,2), c_text text, c_vc varchar(5), c_bool boolean,
		c_date date, c_ts timestamp, c_tstz timestamptz, c_bytea bytea, c_uuid uuid, c_iv interval)`,
	// One data file of three rows: the two DELETEs below both hit it.
	`INSERT INTO t VALUES
		(1, 1, 2, 3, 1.5, 2.25, 12.34, 'hello', 'abc', true, '2024-01-02', '2024-01-02 03:04:05.123456',
		 '2024-01-02 03:04:05.5+02', '\xdeadbeef', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '1 year 2 mons 3 days 04:05:06.5'),
		(2, 10, 20, 30, 0.1, 0.1, 0.01, 'two', 'de', false, '2000-02-29', '2000-02-29 00:00:00',
		 '2000-02-29 00:00:00+00', '\x00', '123e4567-e89b-12d3-a456-426614174000', '3 days'),
		(3, 100, 200, 300, 3.25, 1e-300, 99999999.99, 'three', 'fghij', true, '1999-12-31', '1999-12-31 23:59:59.999999',
		 '1999-12-31 23:59:59.999999-08', '\x0102', 'ffffffff-ffff-ffff-ffff-ffffffffffff', '36 hours 30 minutes')`,
	`INSERT INTO t VALUES (4, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)`,
	`INSERT INTO t VALUES
		(5, -32768, -2147483648, -9223372036854775808, -3.4e38, 1e308, -99999999.99, '', 'x', false,
		 '0001-01-01', '1900-06-15 12:00:00.5', '1969-12-31 23:59:59.999999+00', '\x', '00000000-0000-0000-0000-000000000000', '0 seconds'),
		(6, 32767, 2147483647, 9223372036854775807, 'NaN', 'Infinity', 0, 'héllo ✓ "q" ''s'' \ back', 'ünï', NULL,
		 '9999-12-31', '2262-04-11 23:47:16', '2038-01-19 03:14:08+05:30', '\x00ff10', NULL, '1 mon 1193 hours'),
		(7, 0, 0, 0, '-Infinity', -0.0, -0.5, NULL, '', true, NULL, NULL, NULL, NULL, '00000000-0000-0000-0000-000000000001', NULL)`,
	`DELETE FROM t WHERE id = 2`,
	`DELETE FROM t WHERE id = 3`,
	`UPDATE t SET c_text = 'updated', c_int = c_int - 1 WHERE id IN (1, 6)`,
	// A transaction block is one snapshot: rows it inserts and then changes are rewritten,
	// committed rows it updates twice keep their row ids.
	`BEGIN; INSERT INTO t (id, c_text) VALUES (20, 'block'), (21, 'block2');
		UPDATE t SET c_int = 77 WHERE id IN (1, 20); UPDATE t SET c_int = c_int + 1 WHERE id = 1;
		DELETE FROM t WHERE id IN (21, 7); COMMIT`,
	`ALTER TABLE t ADD COLUMN c_added integer DEFAULT 42`,
	`INSERT INTO t (id, c_text, c_added) VALUES (8, 'after add', 8)`,
	`ALTER TABLE t RENAME COLUMN c_text TO c_label`,
	`ALTER TABLE t DROP COLUMN c_vc`,
	`ALTER TABLE t ALTER COLUMN c_int TYPE bigint`,
	`INSERT INTO t (id, c_int, c_label) VALUES (9, 9000000000, 'wide')`,
	`ALTER TABLE t RENAME TO t_all`,
	`DELETE FROM t_all WHERE id = 8`,
	`CREATE SCHEMA s2`,
	// schema changes inside a block, with the rows written after them, are one snapshot
	`BEGIN; CREATE TABLE s2.blk (id integer, v text); INSERT INTO s2.blk VALUES (1, 'a'), (2, 'b');
		ALTER TABLE s2.blk ADD COLUMN w integer DEFAULT 5; INSERT INTO s2.blk (id, v, w) VALUES (3, 'c', 9);
		UPDATE s2.blk SET v = 'B' WHERE id = 2; COMMIT`,
	`CREATE TABLE s2.copy AS SELECT id, c_label, c_num, c_tstz, c_added FROM t_all WHERE id < 8`,
	`INSERT INTO s2.copy VALUES (100, 'ctas+', 1.25, '2030-01-01 00:00:00+00', NULL)`,
	`UPDATE s2.copy SET c_num = c_num * 2 WHERE id = 100`,
	`CREATE TABLE gone (id integer, v text)`,
	`INSERT INTO gone VALUES (1, 'a'), (2, 'b')`,
	`DROP TABLE gone`,
}

// inlinedStepPrefixes start the steps whose new rows must be inlined.
var inlinedStepPrefixes = []string{`UPDATE t SET c_text`, `CREATE TABLE s2.copy`, `UPDATE s2.copy`}

// result is one query's answer as text: column names, PostgreSQL type OIDs (lakepg) or
// DuckDB type names, rows with nil for NULL.
type result struct {
	Columns []string    `json:"columns"`
	Types   []string    `json:"types"`
	Rows    [][]*string `json:"rows"`
	Count   *int64      `json:"count"`
	Error   string      `json:"error"`
}

// state is what lakepg answered for one table at one snapshot.
type state struct {
	snapshot      int64
	schema, table string
	res           result
}

type duckQuery struct {
	From  string `json:"from"`
	Order string `json:"order"`
}

// duckInput is what the DuckDB script is given: the extension files to LOAD (ducklake, and
// sqlite or postgres when set) and the lake's catalog, attached as lk: the SQLite file
// Catalog, or with the ATTACH statement Attach when that is set.
type duckInput struct {
	Ducklake string `json:"ducklake"`
	Sqlite   string `json:"sqlite,omitempty"`
	Postgres string `json:"postgres,omitempty"`
	// Httpfs is DuckDB's httpfs extension, loaded when set: besides S3 it
	// brings the crypto module DuckDB needs to write encrypted Parquet.
	Httpfs  string `json:"httpfs,omitempty"`
	Catalog string `json:"catalog,omitempty"`
	Attach  string `json:"attach,omitempty"`
	// Steps run after ATTACH, before the queries (DuckDB writing to the lake).
	Steps   []string    `json:"steps,omitempty"`
	Queries []duckQuery `json:"queries"`
	// Raw are statements whose rows come back as text, unconverted (Raw in duckOutput).
	Raw []string `json:"raw,omitempty"`
}

type duckOutput struct {
	Snapshots [][]*string   `json:"snapshots"`
	Results   []result      `json:"results"`
	Raw       [][][]*string `json:"raw"`
}

// TestDuckDBReadsLake: lakepg runs the steps on a lake whose catalog is in SQLite, then in
// PostgreSQL; DuckDB attaches that catalog and must read every table at every snapshot as
// lakepg does.
func TestDuckDBReadsLake(t *testing.T) {
	ducklakeExt, sqliteExt := duckdbExtensions(t)
	t.Run("sqlite", func(t *testing.T) {
		dir := t.TempDir()
		srv := testserver.Start(t, testserver.Binary(t), dir)
		checkLake(t, srv, duckInput{Ducklake: ducklakeExt, Sqlite: sqliteExt, Catalog: filepath.Join(dir, "catalog.sqlite")})
	})
	// PostgreSQL: in the default schema (public), and in a schema named with
	// LAKEPG_CATALOG_SCHEMA, which DuckDB is given as METADATA_SCHEMA.
	for _, schema := range []string{"", "lake_meta"} {
		name := "postgres"
		if schema != "" {
			name += "_schema_" + schema
		}
		t.Run(name, func(t *testing.T) {
			dsn := testserver.PostgresDatabase(t, "lakepg_duckdb")
			params, err := catalogtest.Params(dsn)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			data := filepath.Join(dir, "data")
			port := testserver.FreePort(t)
			var env []string
			opts := ""
			if schema != "" {
				env = []string{"LAKEPG_CATALOG_SCHEMA=" + schema}
				opts = ", METADATA_SCHEMA " + sqlString(schema)
			}
			srv := testserver.Launch(t, testserver.Binary(t), dir, port, []string{
				"--listen", fmt.Sprintf("127.0.0.1:%d", port),
				"--catalog", dsn,
				"--data", data,
			}, env)
			// DuckDB's way to name a PostgreSQL catalog: a libpq string.
			attach := fmt.Sprintf("ATTACH %s AS lk (READ_ONLY, DATA_PATH %s%s)",
				sqlString("ducklake:postgres:"+params.Libpq()), sqlString(data+"/"), opts)
			checkLake(t, srv, duckInput{Ducklake: ducklakeExt, Postgres: postgresExtension(t), Attach: attach})
		})
	}
}

func sqlString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// checkLake runs the steps on srv, recording what lakepg answers for every table after every
// step, then has DuckDB (loading and attaching as in) read the same tables at the same
// snapshots, and compares.
func checkLake(t *testing.T, srv *testserver.Server, in duckInput) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, srv.DSN())
	if err != nil {
		t.Fatalf("connecting to lakepg: %v", err)
	}
	defer conn.Close(context.Background())
	query(t, ctx, conn, `SET TimeZone = 'UTC'`)

	var states []state
	snap := lastSnapshot(t, ctx, conn)
	record := func() {
		tables := query(t, ctx, conn, `SELECT table_schema, table_name FROM information_schema.tables
			WHERE table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY 1, 2`)
		for _, r := range tables.Rows {
			s, n := *r[0], *r[1]
			res := query(t, ctx, conn, fmt.Sprintf(`SELECT * FROM %s.%s ORDER BY id`, quoteIdent(s), quoteIdent(n)))
			states = append(states, state{snapshot: snap, schema: s, table: n, res: res})
		}
	}
	record()
	for _, st := range steps {
		query(t, ctx, conn, st)
		next := lastSnapshot(t, ctx, conn)
		if next != snap+1 {
			t.Fatalf("after %q the last snapshot is %d, want %d (one snapshot per statement)", st, next, snap+1)
		}
		snap = next
		record()
		// small UPDATEs and CREATE TABLE … AS keep their rows in the catalog, as DuckDB's
		// do: DuckDB reads those snapshots too
		for _, p := range inlinedStepPrefixes {
			if strings.HasPrefix(st, p) {
				ch := query(t, ctx, conn, fmt.Sprintf(`SELECT changes FROM lakepg.snapshots() WHERE snapshot_id = %d`, snap))
				if c := fmtVal(ch.Rows[0][0]); !strings.Contains(c, "inlined_insert:") {
					t.Errorf("%s: changes %s, want its rows inlined (inlined_insert)", st, c)
				}
			}
		}
	}
	lakeSnaps := query(t, ctx, conn, `SELECT snapshot_id, snapshot_time, schema_version, changes
		FROM lakepg.snapshots() ORDER BY snapshot_id`)

	// What DuckDB is asked: every (table, snapshot) at that snapshot, and the tables of the
	// last snapshot without AT (the current state).
	type check struct {
		st    state
		label string
	}
	var checks []check
	for _, st := range states {
		name := "lk." + quoteIdent(st.schema) + "." + quoteIdent(st.table)
		in.Queries = append(in.Queries, duckQuery{From: fmt.Sprintf("%s AT (VERSION => %d)", name, st.snapshot), Order: "id"})
		checks = append(checks, check{st, fmt.Sprintf("table %s.%s at snapshot %d (AT (VERSION => %d))", st.schema, st.table, st.snapshot, st.snapshot)})
		if st.snapshot == snap {
			in.Queries = append(in.Queries, duckQuery{From: name, Order: "id"})
			checks = append(checks, check{st, fmt.Sprintf("table %s.%s, current state (snapshot %d, no AT)", st.schema, st.table, st.snapshot)})
		}
	}
	out := runDuckDB(t, in)
	if len(out.Results) != len(in.Queries) {
		t.Fatalf("DuckDB script answered %d queries, want %d", len(out.Results), len(in.Queries))
	}
	for i, c := range checks {
		compareResult(t, c.label, c.st.res, out.Results[i])
	}
	compareSnapshots(t, lakeSnaps, out.Snapshots)
	t.Logf("compared %d table reads (%d snapshots) and the snapshot list with DuckDB", len(checks), len(lakeSnaps.Rows))
}

// duckdbExtensions finds DuckDB 1.5.5 and returns the paths of the ducklake extension and of
// the sqlite extension.
func duckdbExtensions(t *testing.T) (ducklake, sqlite string) {
	t.Helper()
	return testserver.DuckDBExtension(t, "ducklake"), testserver.DuckDBExtension(t, "sqlite")
}

// postgresExtension is DuckDB's postgres extension.
func postgresExtension(t *testing.T) string {
	t.Helper()
	return testserver.DuckDBExtension(t, "postgres")
}

// duckScript reads a duckInput on stdin and writes a duckOutput on stdout. Values are text:
// BLOB as hex, timestamps as epoch microseconds, everything else cast to VARCHAR. A query
// that fails reports its error instead of rows.
const duckScript = `
import json, sys, duckdb
inp = json.load(sys.stdin)
c = duckdb.connect()
# no progress bar on stdout when a query runs long on a busy machine
c.execute("SET enable_progress_bar=false")
c.execute("SET autoinstall_known_extensions=false")
c.execute("SET autoload_known_extensions=false")
for ext in ("ducklake", "sqlite", "postgres", "httpfs"):
    if inp.get(ext):
        c.execute("LOAD '%s'" % inp[ext].replace("'", "''"))
if inp.get("attach"):
    c.execute(inp["attach"])
else:
    c.execute("ATTACH 'ducklake:sqlite:%s' AS lk (READ_ONLY)" % inp["catalog"].replace("'", "''"))
for st in inp.get("steps") or []:
    c.execute(st)

def q(ident):
    return '"' + ident.replace('"', '""') + '"'

def expr(name, typ):
    col = q(name)
    if typ == "BLOB":
        return "hex(%s)" % col
    if typ in ("TIMESTAMP", "TIMESTAMP WITH TIME ZONE"):
        return "epoch_us(%s)::VARCHAR" % col
    return "%s::VARCHAR" % col

results = []
for qu in inp["queries"]:
    try:
        rel = c.sql("SELECT * FROM %s" % qu["from"])
        cols, types = rel.columns, [str(t) for t in rel.dtypes]
        sql = "SELECT %s FROM %s ORDER BY %s" % (
            ", ".join(expr(n, t) for n, t in zip(cols, types)) or "NULL", qu["from"], q(qu["order"]))
        rows = [list(r) for r in c.execute(sql).fetchall()]
        count = c.execute("SELECT count(*) FROM %s" % qu["from"]).fetchone()[0]
        results.append({"columns": cols, "types": types, "rows": rows, "count": count})
    except Exception as e:
        results.append({"error": "%s: %s" % (type(e).__name__, e)})
snaps = [list(r) for r in c.execute("""SELECT snapshot_id::VARCHAR, epoch_us(snapshot_time)::VARCHAR,
    schema_version::VARCHAR, to_json(changes)::VARCHAR FROM lk.snapshots() ORDER BY snapshot_id""").fetchall()]
raw = []
for sql in inp.get("raw") or []:
    try:
        raw.append([[None if v is None else str(v) for v in r] for r in c.execute(sql).fetchall()])
    except Exception as e:
        raw.append([["error: %s: %s" % (type(e).__name__, e)]])
json.dump({"snapshots": snaps, "results": results, "raw": raw}, sys.stdout)
`

func runDuckDB(t *testing.T, in duckInput) duckOutput {
	t.Helper()
	var out duckOutput
	testserver.RunPythonJSON(t, duckScript, 2*time.Minute, in, &out)
	return out
}

// query runs sql with the simple protocol (text results) and returns its last result.
// (pgconn's Result.Read drops the column descriptions of a result without rows.)
func query(t *testing.T, ctx context.Context, conn *pgx.Conn, sql string) result {
	t.Helper()
	mrr := conn.PgConn().Exec(ctx, sql)
	var res result
	for mrr.NextResult() {
		rr := mrr.ResultReader()
		res = result{}
		for _, f := range rr.FieldDescriptions() {
			res.Columns = append(res.Columns, f.Name)
			res.Types = append(res.Types, strconv.FormatUint(uint64(f.DataTypeOID), 10))
		}
		for rr.NextRow() {
			vals := make([]*string, len(rr.Values()))
			for i, v := range rr.Values() {
				if v != nil {
					s := string(v)
					vals[i] = &s
				}
			}
			res.Rows = append(res.Rows, vals)
		}
		if _, err := rr.Close(); err != nil {
			mrr.Close()
			t.Fatalf("lakepg: %s: %v", sql, err)
		}
	}
	if err := mrr.Close(); err != nil {
		t.Fatalf("lakepg: %s: %v", sql, err)
	}
	return res
}

func lastSnapshot(t *testing.T, ctx context.Context, conn *pgx.Conn) int64 {
	t.Helper()
	r := query(t, ctx, conn, `SELECT max(snapshot_id) FROM lakepg.snapshots()`)
	if len(r.Rows) != 1 || r.Rows[0][0] == nil {
		t.Fatalf("lakepg.snapshots(): no snapshot")
	}
	n, err := strconv.ParseInt(*r.Rows[0][0], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// PostgreSQL type OIDs and the DuckDB type lakepg's columns of that type must read as.
const (
	oidBool        = 16
	oidBytea       = 17
	oidInt8        = 20
	oidInt2        = 21
	oidInt4        = 23
	oidText        = 25
	oidFloat4      = 700
	oidFloat8      = 701
	oidVarchar     = 1043
	oidDate        = 1082
	oidTimestamp   = 1114
	oidTimestamptz = 1184
	oidInterval    = 1186
	oidNumeric     = 1700
	oidUUID        = 2950
)

var duckType = map[int]string{
	oidBool: "BOOLEAN", oidBytea: "BLOB", oidInt8: "BIGINT", oidInt2: "SMALLINT", oidInt4: "INTEGER",
	oidText: "VARCHAR", oidFloat4: "FLOAT", oidFloat8: "DOUBLE", oidVarchar: "VARCHAR", oidDate: "DATE",
	oidTimestamp: "TIMESTAMP", oidTimestamptz: "TIMESTAMP WITH TIME ZONE", oidInterval: "INTERVAL",
	oidNumeric: "DECIMAL(", oidUUID: "UUID",
}

func compareResult(t *testing.T, label string, pg, dk result) {
	t.Helper()
	if dk.Error != "" {
		t.Errorf("%s: DuckDB cannot read it: %s", label, dk.Error)
		return
	}
	if strings.Join(pg.Columns, ",") != strings.Join(dk.Columns, ",") {
		t.Errorf("%s: columns differ: lakepg %v, DuckDB %v", label, pg.Columns, dk.Columns)
		return
	}
	oids := make([]int, len(pg.Types))
	for i, ty := range pg.Types {
		oids[i], _ = strconv.Atoi(ty)
		want, ok := duckType[oids[i]]
		if !ok {
			t.Fatalf("%s: column %s has PostgreSQL type OID %d, which this test does not know", label, pg.Columns[i], oids[i])
		}
		if !strings.HasPrefix(dk.Types[i], want) {
			t.Errorf("%s: column %s: lakepg type OID %d, DuckDB reads it as %s, want %s", label, pg.Columns[i], oids[i], dk.Types[i], want)
		}
	}
	if dk.Count == nil || *dk.Count != int64(len(pg.Rows)) {
		t.Errorf("%s: lakepg has %d rows, DuckDB count(*) says %v", label, len(pg.Rows), fmtCount(dk.Count))
	}
	if len(pg.Rows) != len(dk.Rows) {
		t.Errorf("%s: lakepg has %d rows, DuckDB %d\nlakepg: %s\nDuckDB: %s", label, len(pg.Rows), len(dk.Rows), fmtRows(pg.Rows), fmtRows(dk.Rows))
		return
	}
	for r := range pg.Rows {
		for c := range pg.Columns {
			if msg := compareValue(oids[c], pg.Rows[r][c], dk.Rows[r][c]); msg != "" {
				t.Errorf("%s: first differing row is row %d (ORDER BY id), column %s: %s\nlakepg row: %s\nDuckDB row: %s",
					label, r+1, pg.Columns[c], msg, fmtRow(pg.Rows[r]), fmtRow(dk.Rows[r]))
				return
			}
		}
	}
}

// compareValue compares lakepg's PostgreSQL text with the script's DuckDB text for a column
// of type oid; it returns "" when they denote the same value.
func compareValue(oid int, pg, dk *string) string {
	if pg == nil || dk == nil {
		if pg == nil && dk == nil {
			return ""
		}
		return fmt.Sprintf("lakepg %s, DuckDB %s", fmtVal(pg), fmtVal(dk))
	}
	p, d := *pg, *dk
	var same bool
	var err error
	switch oid {
	case oidInt2, oidInt4, oidInt8:
		var a, b int64
		if a, err = strconv.ParseInt(p, 10, 64); err == nil {
			b, err = strconv.ParseInt(d, 10, 64)
		}
		same = a == b
	case oidFloat4, oidFloat8:
		bits := 64
		if oid == oidFloat4 {
			bits = 32
		}
		var a, b float64
		if a, err = strconv.ParseFloat(p, bits); err == nil {
			b, err = strconv.ParseFloat(d, bits)
		}
		same = a == b && math.Signbit(a) == math.Signbit(b) || math.IsNaN(a) && math.IsNaN(b)
	case oidNumeric:
		a, okA := new(big.Rat).SetString(p)
		b, okB := new(big.Rat).SetString(d)
		if !okA || !okB {
			err = fmt.Errorf("not a number")
		} else {
			same = a.Cmp(b) == 0
		}
	case oidBool:
		same = (p == "t" && d == "true") || (p == "f" && d == "false")
	case oidBytea:
		same = strings.EqualFold(strings.TrimPrefix(p, `\x`), d) && strings.HasPrefix(p, `\x`)
	case oidUUID:
		same = strings.EqualFold(p, d)
	case oidTimestamp, oidTimestamptz:
		var us, b int64
		if us, err = pgTimestampMicros(p); err == nil {
			b, err = strconv.ParseInt(d, 10, 64)
		}
		same = us == b
		if err == nil && !same {
			return fmt.Sprintf("lakepg %q (%s UTC), DuckDB %s (%s UTC)", p, time.UnixMicro(us).UTC().Format(time.RFC3339Nano),
				d, time.UnixMicro(b).UTC().Format(time.RFC3339Nano))
		}
	case oidInterval:
		var a, b interval
		if a, err = parseInterval(p); err == nil {
			b, err = parseInterval(d)
		}
		same = a == b
	default: // text, varchar, date
		same = p == d
	}
	if err != nil {
		return fmt.Sprintf("lakepg %q, DuckDB %q: cannot compare: %v", p, d, err)
	}
	if !same {
		return fmt.Sprintf("lakepg %q, DuckDB %q", p, d)
	}
	return ""
}

// pgTimestampMicros parses PostgreSQL's text of a timestamp (UTC when it has no offset) as
// microseconds since 1970-01-01 UTC.
func pgTimestampMicros(s string) (int64, error) {
	for _, layout := range []string{"2006-01-02 15:04:05.999999Z07:00:00", "2006-01-02 15:04:05.999999Z07:00", "2006-01-02 15:04:05.999999Z07", "2006-01-02 15:04:05.999999"} {
		if tm, err := time.Parse(layout, s); err == nil {
			return tm.UnixMicro(), nil
		}
	}
	return 0, fmt.Errorf("unrecognised timestamp %q", s)
}

type interval struct{ months, days, micros int64 }

// parseInterval reads PostgreSQL's ("1 year 2 mons 3 days 04:05:06.5") and DuckDB's
// ("1 year 2 months 3 days 04:05:06.5") text of an interval.
func parseInterval(s string) (interval, error) {
	var iv interval
	f := strings.Fields(s)
	for i := 0; i < len(f); i++ {
		if strings.Contains(f[i], ":") {
			tm := f[i]
			neg := strings.HasPrefix(tm, "-")
			tm = strings.TrimLeft(tm, "+-")
			parts := strings.Split(tm, ":")
			if len(parts) != 3 {
				return iv, fmt.Errorf("bad interval time %q in %q", f[i], s)
			}
			h, err1 := strconv.ParseInt(parts[0], 10, 64)
			m, err2 := strconv.ParseInt(parts[1], 10, 64)
			sec, err3 := new(big.Rat).SetString(parts[2])
			if err1 != nil || err2 != nil || !err3 {
				return iv, fmt.Errorf("bad interval time %q in %q", f[i], s)
			}
			us := new(big.Rat).Mul(sec, big.NewRat(1e6, 1))
			if !us.IsInt() {
				return iv, fmt.Errorf("sub-microsecond interval %q", s)
			}
			total := (h*3600+m*60)*1e6 + us.Num().Int64()
			if neg {
				total = -total
			}
			iv.micros += total
			continue
		}
		if i+1 >= len(f) {
			return iv, fmt.Errorf("bad interval %q", s)
		}
		n, err := strconv.ParseInt(f[i], 10, 64)
		if err != nil {
			return iv, fmt.Errorf("bad interval %q: %v", s, err)
		}
		i++
		switch strings.TrimSuffix(f[i], "s") {
		case "year":
			iv.months += 12 * n
		case "mon", "month":
			iv.months += n
		case "day":
			iv.days += n
		default:
			return iv, fmt.Errorf("bad interval unit %q in %q", f[i], s)
		}
	}
	return iv, nil
}

// compareSnapshots checks DuckDB's lk.snapshots() against lakepg.snapshots(): ids, times,
// schema versions, and the changes (lakepg's DuckLake changes_made text, DuckDB's map).
func compareSnapshots(t *testing.T, pg result, dk [][]*string) {
	t.Helper()
	if len(pg.Rows) != len(dk) {
		t.Errorf("snapshots: lakepg lists %d, DuckDB %d\nlakepg: %s\nDuckDB: %s", len(pg.Rows), len(dk), fmtRows(pg.Rows), fmtRows(dk))
		return
	}
	for i, p := range pg.Rows {
		d := dk[i]
		label := fmt.Sprintf("snapshot %s", fmtVal(p[0]))
		if fmtVal(p[0]) != fmtVal(d[0]) {
			t.Errorf("snapshots: row %d: lakepg id %s, DuckDB id %s", i+1, fmtVal(p[0]), fmtVal(d[0]))
			continue
		}
		if msg := compareValue(oidTimestamptz, p[1], d[1]); msg != "" {
			t.Errorf("%s: snapshot_time: %s", label, msg)
		}
		if fmtVal(p[2]) != fmtVal(d[2]) {
			t.Errorf("%s: schema_version: lakepg %s, DuckDB %s", label, fmtVal(p[2]), fmtVal(d[2]))
		}
		want, err := changesAsDuckDB(fmtVal(p[3]))
		if err != nil {
			t.Errorf("%s: %v", label, err)
			continue
		}
		var got map[string][]string
		if d[3] == nil || json.Unmarshal([]byte(*d[3]), &got) != nil {
			t.Errorf("%s: DuckDB changes %s are not a JSON map", label, fmtVal(d[3]))
			continue
		}
		// The order inside a kind is not meaningful (DuckDB lists snapshot 0's schemas in
		// another order than changes_made), and DuckDB quotes names that are keywords
		// (s2."copy"): compare sorted lists without double quotes.
		if normChanges(want) != normChanges(got) {
			t.Errorf("%s: changes: lakepg %s (as DuckDB would show them: %v), DuckDB %v", label, fmtVal(p[3]), want, got)
		}
	}
}

// changesAsDuckDB turns DuckLake's changes_made text (`created_table:"s"."t",inserted_into_table:2`)
// into the map DuckDB's snapshots() shows (tables_created=[s.t], tables_inserted_into=[2]).
func changesAsDuckDB(s string) (map[string][]string, error) {
	keys := map[string]string{
		"created_schema": "schemas_created", "dropped_schema": "schemas_dropped",
		"created_table": "tables_created", "dropped_table": "tables_dropped", "altered_table": "tables_altered",
		"inserted_into_table": "tables_inserted_into", "deleted_from_table": "tables_deleted_from",
		"created_view": "views_created", "dropped_view": "views_dropped",
		"compacted_table": "tables_compacted",
		"inlined_insert":  "inlined_insert", "inlined_delete": "inlined_delete", "inline_flush": "flushed_inlined",
		"merge_adjacent": "merge_adjacent", "rewrite_delete": "rewrite_delete",
	}
	out := map[string][]string{}
	for len(s) > 0 {
		colon := strings.IndexByte(s, ':')
		if colon < 0 {
			return nil, fmt.Errorf("changes %q: no kind:value", s)
		}
		kind := s[:colon]
		s = s[colon+1:]
		// The value runs to the next comma outside double quotes.
		var val strings.Builder
		inQuote := false
		i := 0
		for ; i < len(s); i++ {
			ch := s[i]
			if ch == '"' {
				if inQuote && i+1 < len(s) && s[i+1] == '"' {
					val.WriteByte('"')
					i++
					continue
				}
				inQuote = !inQuote
				continue
			}
			if ch == ',' && !inQuote {
				break
			}
			val.WriteByte(ch)
		}
		if i < len(s) {
			i++ // the comma
		}
		s = s[i:]
		key, ok := keys[kind]
		if !ok {
			return nil, fmt.Errorf("changes: unknown kind %q", kind)
		}
		out[key] = append(out[key], val.String())
	}
	return out, nil
}

func normChanges(m map[string][]string) string {
	n := map[string][]string{}
	for k, vs := range m {
		for _, v := range vs {
			n[k] = append(n[k], strings.ReplaceAll(v, `"`, ""))
		}
		sort.Strings(n[k])
	}
	return fmt.Sprint(n) // fmt prints maps sorted by key
}

func fmtVal(v *string) string {
	if v == nil {
		return "NULL"
	}
	return *v
}

func fmtCount(v *int64) string {
	if v == nil {
		return "nothing"
	}
	return strconv.FormatInt(*v, 10)
}

func fmtRow(r []*string) string {
	parts := make([]string, len(r))
	for i, v := range r {
		if v == nil {
			parts[i] = "NULL"
		} else {
			parts[i] = strconv.Quote(*v)
		}
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

func fmtRows(rows [][]*string) string {
	var b strings.Builder
	for _, r := range rows {
		b.WriteString("\n  ")
		b.WriteString(fmtRow(r))
	}
	return b.String()
}

// startLake starts lakepg on a new lake in a temporary directory and connects to it; the
// returned context bounds the test.
func startLake(t *testing.T) (context.Context, string, *testserver.Server, *pgx.Conn) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	t.Cleanup(cancel)
	dir := t.TempDir()
	srv, conn := startOn(t, ctx, dir)
	return ctx, dir, srv, conn
}

// startOn starts lakepg on the lake in dir (again, after DuckDB wrote to it) and connects.
func startOn(t *testing.T, ctx context.Context, dir string) (*testserver.Server, *pgx.Conn) {
	t.Helper()
	srv := testserver.Start(t, testserver.Binary(t), dir)
	conn, err := pgx.Connect(ctx, srv.DSN())
	if err != nil {
		t.Fatal(err)
	}
	return srv, conn
}
