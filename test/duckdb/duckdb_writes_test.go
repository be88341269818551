package duckdb

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/lakepg/lakepg/test/testserver"
)

// duckSteps are DuckDB statements that write a lake the way DuckDB 1.5.5 does by default:
// small inserts and deletes inlined into the catalog (data_inlining_row_limit 10), larger
// ones as Parquet and delete files, a flush that turns inlined rows into partial files, and
// schema changes between them. Each commits one snapshot.
var duckSteps = []string{
	`CREATE TABLE t (id INTEGER, v VARCHAR, d DOUBLE, ts TIMESTAMPTZ, b BOOLEAN, n DECIMAL(10,2), dt DATE,
		bl BLOB, iv INTERVAL, u UUID, tsn TIMESTAMP, f REAL, s SMALLINT, big BIGINT)`,
	`INSERT INTO t VALUES
		(1, 'a', 1.5, '2024-01-01 10:00:00+00', true, 1.25, '2024-01-01', '\xDE\xAD'::BLOB, INTERVAL '1 year 2 months 3 days 04:05:06.5',
		 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '2024-01-01 03:04:05.123456', 2.5, -3, 9000000000),
		(2, 'b', 'inf', NULL, false, -0.01, '1999-12-31', ''::BLOB, INTERVAL '36 hours', NULL, '1970-01-01 00:00:00', 'nan', 32767, -1),
		(3, 'it''s "q" ✓', -0.0, '1969-12-31 23:59:59.999999+00', NULL, 99999999.99, NULL, NULL, NULL,
		 '00000000-0000-0000-0000-000000000000', NULL, NULL, NULL, NULL)`,
	`INSERT INTO t (id, v, d, n, dt, big) SELECT i, 'x' || i, i / 2, i / 4, DATE '2024-01-01' + i::INTEGER, i * i FROM range(100, 400) r(i)`,
	`DELETE FROM t WHERE id = 2`,
	`DELETE FROM t WHERE id IN (100, 101, 102)`,
	`DELETE FROM t WHERE id BETWEEN 200 AND 250`,
	`UPDATE t SET v = 'upd' WHERE id = 1`,
	`UPDATE t SET v = v || '!' WHERE id BETWEEN 300 AND 310`,
	`ALTER TABLE t ADD COLUMN e INTEGER DEFAULT 7`,
	`INSERT INTO t (id, v, e) VALUES (4, 'four', 4)`,
	`ALTER TABLE t RENAME COLUMN v TO label`,
	`INSERT INTO t (id, label) VALUES (5, 'five')`,
	`ALTER TABLE t DROP COLUMN d`,
	`INSERT INTO t (id, label, e) VALUES (6, 'six', 6), (7, 'seven', NULL)`,
	`CALL ducklake_flush_inlined_data('lk')`,
	`INSERT INTO t (id, label) VALUES (8, 'after flush')`,
	`DELETE FROM t WHERE id IN (4, 6, 150)`,
	`UPDATE t SET e = 70 WHERE id = 7`,
	`CREATE SCHEMA s2`,
	`CREATE TABLE s2.p (id INTEGER, region VARCHAR, amount DOUBLE)`,
	`ALTER TABLE s2.p SET PARTITIONED BY (region)`,
	`INSERT INTO s2.p SELECT i, CASE WHEN i % 3 = 0 THEN 'eu' WHEN i % 3 = 1 THEN 'us' ELSE NULL END, i * 1.5 FROM range(0, 60) r(i)`,
	`INSERT INTO s2.p VALUES (1000, 'eu', 1), (1001, 'apac', 2)`,
	`DELETE FROM s2.p WHERE id % 10 = 0`,
	`CREATE TABLE s2.c AS SELECT id, label, e FROM t WHERE id < 10`,
}

// lakepgOnDuckDB are lakepg's statements on the lake DuckDB wrote.
var lakepgOnDuckDB = []string{
	`DELETE FROM main.t WHERE id = 8`,
	`UPDATE main.t SET label = 'by lakepg' WHERE id IN (5, 7, 300)`,
	`DELETE FROM main.t WHERE id BETWEEN 100 AND 120`,
	`INSERT INTO main.t (id, label, e) VALUES (9, 'lakepg row', 9)`,
	`DELETE FROM s2.p WHERE region = 'apac' OR id = 3`,
	`UPDATE s2.c SET e = -1`,
}

// duckWriteScript runs the statements of its input on a new DuckLake (SQLite catalog) and
// prints, after each, the snapshot id and the tables that exist.
const duckWriteScript = `
import json, sys, duckdb
inp = json.load(sys.stdin)
c = duckdb.connect()
# no progress bar on stdout when a query runs long on a busy machine
c.execute("SET enable_progress_bar=false")
# one thread: the order in which several threads write an UPDATE's new rows varies from
# run to run, and the positions later deletes record in the catalog with it
c.execute("SET threads=1")
c.execute("SET autoinstall_known_extensions=false")
c.execute("SET autoload_known_extensions=false")
c.execute("LOAD '%s'" % inp["ducklake"].replace("'", "''"))
c.execute("LOAD '%s'" % inp["sqlite"].replace("'", "''"))
c.execute("ATTACH 'ducklake:sqlite:%s' AS lk (DATA_PATH '%s')" % (inp["catalog"].replace("'", "''"), inp["data"].replace("'", "''")))
c.execute("USE lk")
out = []
for st in inp["steps"]:
    c.execute(st)
    snap = c.execute("SELECT max(snapshot_id) FROM lk.snapshots()").fetchone()[0]
    tables = c.execute("SELECT schema_name, table_name FROM duckdb_tables() WHERE database_name = 'lk' ORDER BY 1, 2").fetchall()
    out.append({"snapshot": snap, "tables": [list(t) for t in tables]})
json.dump(out, sys.stdout)
`

type duckStep struct {
	Snapshot int64      `json:"snapshot"`
	Tables   [][]string `json:"tables"`
}

// TestLakepgReadsDuckDBLake: DuckDB writes a lake with inlined rows, inlined deletes, delete
// files, a flush into partial files, schema changes and a partitioned table; lakepg reads
// every table at every snapshot and must answer exactly what DuckDB answers.
func TestLakepgReadsDuckDBLake(t *testing.T) {
	ducklakeExt, sqliteExt := duckdbExtensions(t)
	dir := t.TempDir()
	catalogPath, dataPath := filepath.Join(dir, "catalog.sqlite"), filepath.Join(dir, "data")+"/"
	in, err := json.Marshal(map[string]any{"ducklake": ducklakeExt, "sqlite": sqliteExt,
		"catalog": catalogPath, "data": dataPath, "steps": duckSteps})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "python3", "-c", duckWriteScript)
	cmd.Stdin = strings.NewReader(string(in))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("DuckDB writing the lake failed: %v\n%s", err, stderr.String())
	}
	var steps []duckStep
	if err := json.Unmarshal(stdout, &steps); err != nil {
		t.Fatalf("DuckDB write script output: %v\n%s", err, stdout)
	}

	srv := testserver.Start(t, testserver.Binary(t), dir)
	conn, err := pgx.Connect(ctx, srv.DSN())
	if err != nil {
		t.Fatalf("connecting to lakepg: %v", err)
	}
	defer conn.Close(context.Background())
	query(t, ctx, conn, `SET TimeZone = 'UTC'`)

	// Then lakepg changes DuckDB's rows: deletes of inlined rows, of rows in a flushed
	// (partial) file and in a file with inlined deletes, an update of both kinds.
	for i, st := range lakepgOnDuckDB {
		query(t, ctx, conn, st)
		snap := lastSnapshot(t, ctx, conn)
		steps = append(steps, duckStep{Snapshot: snap, Tables: steps[len(steps)-1].Tables})
		if i == 0 {
			// an inlined row is deleted the way DuckDB does it: end_snapshot set, no delete file
			r := query(t, ctx, conn, fmt.Sprintf(`SELECT changes FROM lakepg.snapshots WHERE snapshot_id = %d`, snap))
			if len(r.Rows) != 1 || r.Rows[0][0] == nil || *r.Rows[0][0] != "inlined_delete:1" {
				t.Errorf("changes of %q: %s, want inlined_delete:1", st, fmtRows(r.Rows))
			}
		}
	}

	var labels []string
	var lake []result
	dq := duckInput{Ducklake: ducklakeExt, Sqlite: sqliteExt, Catalog: catalogPath}
	for _, st := range steps {
		for _, tb := range st.Tables {
			name := quoteIdent(tb[0]) + "." + quoteIdent(tb[1])
			lake = append(lake, query(t, ctx, conn, fmt.Sprintf(`SELECT * FROM lakepg.at_version('%s', %d) ORDER BY id`,
				strings.ReplaceAll(name, "'", "''"), st.Snapshot)))
			dq.Queries = append(dq.Queries, duckQuery{From: fmt.Sprintf("lk.%s AT (VERSION => %d)", name, st.Snapshot), Order: "id"})
			labels = append(labels, fmt.Sprintf("DuckDB's table %s.%s at snapshot %d", tb[0], tb[1], st.Snapshot))
		}
	}
	last := steps[len(steps)-1]
	for _, tb := range last.Tables {
		name := quoteIdent(tb[0]) + "." + quoteIdent(tb[1])
		lake = append(lake, query(t, ctx, conn, fmt.Sprintf(`SELECT * FROM %s ORDER BY id`, name)))
		dq.Queries = append(dq.Queries, duckQuery{From: "lk." + name, Order: "id"})
		labels = append(labels, fmt.Sprintf("DuckDB's table %s.%s, current state", tb[0], tb[1]))
	}
	out := runDuckDB(t, dq)
	if len(out.Results) != len(dq.Queries) {
		t.Fatalf("DuckDB script answered %d queries, want %d", len(out.Results), len(dq.Queries))
	}
	for i := range labels {
		compareResult(t, labels[i], lake[i], out.Results[i])
	}
	t.Logf("compared %d table reads over %d snapshots DuckDB wrote", len(labels), len(steps))
}
