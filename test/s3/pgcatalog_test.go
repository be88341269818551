package s3

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/lakepg/lakepg/catalog/catalogtest"
	"github.com/lakepg/lakepg/storage/s3test"
	"github.com/lakepg/lakepg/test/testserver"
)

// pgLakeSteps is the life of two tables, one snapshot per statement: bulk
// inserts (Parquet files in the bucket), small ones (inlined into the
// catalog), deletes and updates of both kinds, and every kind of column
// change.
var pgLakeSteps = []string{
	"CREATE TABLE t (id integer, name text, score double precision)",
	"INSERT INTO t SELECT g, 'name ' || g::text, g * 1.5 FROM generate_series(1, 5000) g",
	"INSERT INTO t VALUES (5001, 'small', 0.25), (5002, NULL, 2)",
	"DELETE FROM t WHERE id % 10 = 0",
	"DELETE FROM t WHERE id = 5001",
	"UPDATE t SET name = 'updated', score = -1 WHERE id <= 3",
	"UPDATE t SET score = score + 1000 WHERE id BETWEEN 100 AND 300",
	"ALTER TABLE t ADD COLUMN tag text DEFAULT 'old'",
	"INSERT INTO t VALUES (6000, 'late', 1, 'new')",
	"ALTER TABLE t RENAME COLUMN name TO label",
	"INSERT INTO t SELECT g, 'bulk ' || g::text, g, 'b2' FROM generate_series(7000, 7499) g",
	"ALTER TABLE t DROP COLUMN score",
	"DELETE FROM t WHERE id BETWEEN 7000 AND 7100 OR id = 6000",
	"CREATE TABLE s (id bigint, v text)",
	"INSERT INTO s VALUES (1, 'a'), (2, NULL), (3, 'c')",
}

// tableState is a table's rows (ORDER BY id) as lakepg returned them after
// the snapshot was committed.
type tableState struct {
	snap    int64
	table   string
	columns []string
	rows    []string
}

// TestS3PostgresCatalog runs the production shape: lakepg with its catalog
// in PostgreSQL (a fresh database) and its data in a bucket. The whole life
// of two tables goes through pgx; lakepg's time travel must return each
// table as it was at each snapshot; the catalog records the s3:// data
// path; DuckDB 1.5.5 attaches the same PostgreSQL catalog with httpfs
// pointed at the same server and reads every table at every snapshot and
// now exactly as lakepg did; then DuckDB writes rows and lakepg reads them.
func TestS3PostgresCatalog(t *testing.T) {
	srv := s3test.Shared(t)
	bucket := srv.Bucket(t)
	dsn := testserver.PostgresDatabase(t, "lakepg_s3")
	dir := t.TempDir()
	l := startLakeOn(t, srv, srv.Endpoint, bucket, dir, dsn)
	c := connect(t, l)
	dataPath := "s3://" + bucket + "/lake/"

	lastSnap := func() int64 {
		n, err := strconv.ParseInt(one(t, c, "SELECT max(snapshot_id) FROM lakepg.snapshots"), 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	var states []tableState
	snap := lastSnap()
	for _, st := range pgLakeSteps {
		mustExec(t, c, st)
		next := lastSnap()
		if next != snap+1 {
			t.Fatalf("after %q the last snapshot is %d, want %d", st, next, snap+1)
		}
		snap = next
		for _, tbl := range rows(t, c, "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1") {
			cols, rs := textRows(t, c, "SELECT * FROM public."+tbl+" ORDER BY id")
			states = append(states, tableState{snap: snap, table: tbl, columns: cols, rows: rs})
		}
	}
	last := states[len(states)-1].snap

	// lakepg's time travel: each table at each snapshot as it was then.
	for _, st := range states {
		cols, rs := textRows(t, c, fmt.Sprintf("SELECT * FROM lakepg.at_version('public.%s', %d) ORDER BY id", st.table, st.snap))
		if msg := diffRows(st.columns, st.rows, cols, rs); msg != "" {
			t.Fatalf("lakepg.at_version('%s', %d) differs from what lakepg returned at that snapshot: %s", st.table, st.snap, msg)
		}
	}

	// The catalog: data path and files where they belong.
	cat := catalogConn(t, dsn)
	var recorded string
	if err := cat.QueryRow(context.Background(), "SELECT value FROM ducklake_metadata WHERE key = 'data_path'").Scan(&recorded); err != nil {
		t.Fatalf("reading data_path from the catalog: %v", err)
	}
	if recorded != dataPath {
		t.Fatalf("catalog data_path %q, want %q", recorded, dataPath)
	}
	// (a delete file a later delete replaced is scheduled for deletion
	// until cleanup_old_files, as in DuckDB)
	var catalogFiles int
	if err := cat.QueryRow(context.Background(),
		"SELECT (SELECT count(*) FROM ducklake_data_file) + (SELECT count(*) FROM ducklake_delete_file) + (SELECT count(*) FROM ducklake_files_scheduled_for_deletion)").Scan(&catalogFiles); err != nil {
		t.Fatal(err)
	}
	objects := parquetObjects(t, srv, bucket)
	if len(objects) != catalogFiles || catalogFiles < 4 {
		t.Fatalf("the catalog lists %d data and delete files, the bucket holds %d Parquet objects: %v", catalogFiles, len(objects), objects)
	}
	t.Logf("%d snapshots, %d Parquet files in %s, catalog in PostgreSQL", len(pgLakeSteps), catalogFiles, dataPath)

	// DuckDB reads every table at every snapshot, and now.
	params, err := catalogtest.Params(dsn)
	if err != nil {
		t.Fatal(err)
	}
	attach := fmt.Sprintf("ATTACH %s AS lk (DATA_PATH %s", sqlQuote("ducklake:postgres:"+params.Libpq()), sqlQuote(dataPath))
	var queries []string
	var labels []string
	var wants []tableState
	for _, st := range states {
		queries = append(queries, fmt.Sprintf("SELECT * FROM lk.public.%s AT (VERSION => %d) ORDER BY id", st.table, st.snap))
		labels = append(labels, fmt.Sprintf("%s at snapshot %d", st.table, st.snap))
		wants = append(wants, st)
		if st.snap == last {
			queries = append(queries, fmt.Sprintf("SELECT * FROM lk.public.%s ORDER BY id", st.table))
			labels = append(labels, st.table+" now")
			wants = append(wants, st)
		}
	}
	out := duckdbLake(t, srv, duckJob{Attach: attach + ", READ_ONLY)", Queries: queries})
	for i, r := range out {
		if r.Error != "" {
			t.Errorf("DuckDB cannot read %s: %s", labels[i], r.Error)
			continue
		}
		if msg := diffRows(wants[i].columns, wants[i].rows, r.Columns, joinCells(r.Rows)); msg != "" {
			t.Errorf("DuckDB reads %s unlike lakepg: %s", labels[i], msg)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
	t.Logf("DuckDB read %d table states, equal to lakepg's", len(out))

	// DuckDB writes: one row (inlined into the catalog) and a hundred (a
	// Parquet file it puts in the bucket); lakepg reads both.
	out = duckdbLake(t, srv, duckJob{Attach: attach + ")", Queries: []string{
		"INSERT INTO lk.public.t (id, label, tag) VALUES (9001, 'from duckdb', 'dk')",
		"INSERT INTO lk.public.t (id, label, tag) SELECT i, 'duckdb ' || i::VARCHAR, 'dk' FROM range(9100, 9200) r(i)",
	}})
	for _, r := range out {
		if r.Error != "" {
			t.Fatalf("DuckDB write: %s", r.Error)
		}
	}
	if got := lastSnap(); got != last+2 {
		t.Fatalf("after DuckDB's two INSERTs lakepg's last snapshot is %d, want %d", got, last+2)
	}
	wantRows(t, c, "SELECT count(*), sum(id), min(label), max(label), min(tag), max(tag) FROM t WHERE id > 9000",
		fmt.Sprintf("101|%d|duckdb 9100|from duckdb|dk|dk", 9001+(9100+9199)*50))
	wantRows(t, c, "SELECT id, label, tag FROM t WHERE id IN (4, 9001, 9150) ORDER BY id",
		"4|name 4|old", "9001|from duckdb|dk", "9150|duckdb 9150|dk")
	if n := len(parquetObjects(t, srv, bucket)); n != len(objects)+1 {
		t.Fatalf("after DuckDB's INSERTs the bucket holds %d Parquet objects, want %d", n, len(objects)+1)
	}
	// And lakepg writes on top of DuckDB's rows.
	mustExec(t, c, "DELETE FROM t WHERE id BETWEEN 9100 AND 9149")
	wantRows(t, c, "SELECT count(*) FROM t WHERE id > 9000", "51")
}

// textRows runs sql and returns its column names and its rows, cells as
// text joined by '|', NULL as "NULL".
func textRows(t *testing.T, c *pgx.Conn, sql string) ([]string, []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	r, err := c.Query(ctx, sql, pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	defer r.Close()
	var cols []string
	for _, f := range r.FieldDescriptions() {
		cols = append(cols, f.Name)
	}
	var out []string
	for r.Next() {
		vals := r.RawValues()
		cells := make([]string, len(vals))
		for i, v := range vals {
			if v == nil {
				cells[i] = "NULL"
			} else {
				cells[i] = string(v)
			}
		}
		out = append(out, strings.Join(cells, "|"))
	}
	if err := r.Err(); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return cols, out
}

// diffRows describes the first difference between two results, "" when
// they are equal.
func diffRows(wantCols, want, gotCols, got []string) string {
	if strings.Join(wantCols, ",") != strings.Join(gotCols, ",") {
		return fmt.Sprintf("columns %v, want %v", gotCols, wantCols)
	}
	if len(got) != len(want) {
		return fmt.Sprintf("%d rows, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			return fmt.Sprintf("row %d (ORDER BY id) is %q, want %q", i+1, got[i], want[i])
		}
	}
	return ""
}

func joinCells(rows [][]string) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = strings.Join(r, "|")
	}
	return out
}

func sqlQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

func catalogConn(t *testing.T, dsn string) *pgx.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("connecting to the catalog database: %v", err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

func parquetObjects(t *testing.T, srv *s3test.Server, bucket string) []string {
	t.Helper()
	var out []string
	for _, k := range listKeys(t, srv, bucket, "lake/") {
		if strings.HasSuffix(k, ".parquet") {
			out = append(out, k)
		}
	}
	return out
}

// duckJob is what duckLakeScript runs: attach the lake with Attach (after
// loading the ducklake, postgres and httpfs extensions and creating an S3
// secret for the test server), then each statement of Queries, reporting
// its columns and rows or its error.
type duckJob struct {
	Extensions []string `json:"extensions"`
	Key        string   `json:"key"`
	Secret     string   `json:"secret"`
	Region     string   `json:"region"`
	Endpoint   string   `json:"endpoint"`
	Attach     string   `json:"attach"`
	Queries    []string `json:"queries"`
}

type duckResult struct {
	Columns []string   `json:"columns"`
	Rows    [][]string `json:"rows"`
	Error   string     `json:"error"`
}

// duckLakeScript prints values as PostgreSQL's text output does for the
// types the tests use: NULL as "NULL", a double in its shortest exact form
// without a trailing ".0".
const duckLakeScript = `
import json, sys, duckdb
inp = json.load(sys.stdin)
c = duckdb.connect()
c.execute("SET enable_progress_bar=false")
c.execute("SET autoinstall_known_extensions=false")
c.execute("SET autoload_known_extensions=false")
for e in inp["extensions"]:
    c.execute("LOAD '%s'" % e.replace("'", "''"))
def lit(s):
    return "'" + s.replace("'", "''") + "'"
c.execute("CREATE SECRET lakepg_test (TYPE s3, KEY_ID %s, SECRET %s, REGION %s, ENDPOINT %s, URL_STYLE 'path', USE_SSL false)"
    % (lit(inp["key"]), lit(inp["secret"]), lit(inp["region"]), lit(inp["endpoint"])))
c.execute(inp["attach"])
def text(v):
    if v is None:
        return "NULL"
    if isinstance(v, float):
        s = repr(v)
        return s[:-2] if s.endswith(".0") else s
    return str(v)
out = []
for q in inp["queries"]:
    try:
        cur = c.execute(q)
        cols = [d[0] for d in cur.description] if cur.description else []
        out.append({"columns": cols, "rows": [[text(v) for v in r] for r in cur.fetchall()], "error": ""})
    except Exception as e:
        out.append({"columns": [], "rows": [], "error": "%s: %s" % (type(e).__name__, e)})
json.dump(out, sys.stdout)
`

// duckdbLake runs job in DuckDB 1.5.5 against srv and returns one result
// per query.
func duckdbLake(t *testing.T, srv *s3test.Server, job duckJob) []duckResult {
	t.Helper()
	job.Extensions = duckdbExtensionFiles(t, "ducklake", "postgres", "httpfs")
	job.Key, job.Secret, job.Region = srv.AccessKey, srv.SecretKey, s3test.Region
	job.Endpoint = strings.TrimPrefix(srv.Endpoint, "http://")
	in, err := json.Marshal(job)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "python3", "-c", duckLakeScript)
	cmd.Stdin = strings.NewReader(string(in))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("DuckDB: %v\n%s", err, stderr.String())
	}
	var out []duckResult
	if err := json.Unmarshal(stdout, &out); err != nil {
		t.Fatalf("DuckDB output %q: %v\n%s", stdout, err, stderr.String())
	}
	if len(out) != len(job.Queries) {
		t.Fatalf("DuckDB answered %d of %d statements", len(out), len(job.Queries))
	}
	return out
}
