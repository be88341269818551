package duckdb

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	_ "modernc.org/sqlite"

	"github.com/lakepg/lakepg/test/testserver"
)

// inlineParitySteps run unchanged in DuckDB (after USE lk) and in lakepg, both at their
// default data_inlining_row_limit (10): small inserts and deletes inlined, a column added, a
// Parquet file with a few of its rows deleted (inlined file deletes), a rename, a delete of
// an inlined row and a file row at once, small UPDATEs (new versions inlined with their row
// ids, the old ones ended or deleted inline), a larger one (a file), and CREATE TABLE … AS
// of a few rows (inlined with the table), of more rows (a file) and of none.
var inlineParitySteps = []string{
	`CREATE TABLE t (id INTEGER, v VARCHAR)`,
	`INSERT INTO t VALUES (1, 'a'), (2, 'b')`,
	`DELETE FROM t WHERE id = 1`,
	`ALTER TABLE t ADD COLUMN w INTEGER`,
	`INSERT INTO t VALUES (3, 'c', 30)`,
	`INSERT INTO t SELECT i, 'x', i FROM generate_series(100, 119) g(i)`,
	`DELETE FROM t WHERE id IN (100, 101)`,
	`ALTER TABLE t RENAME TO u`,
	`INSERT INTO u VALUES (4, 'd', 40)`,
	`DELETE FROM u WHERE id IN (3, 102)`,
	`UPDATE u SET v = 'upd' WHERE id IN (104, 105)`,
	`UPDATE u SET w = 41 WHERE id = 4`,
	`UPDATE u SET v = 'zz', w = -1 WHERE id BETWEEN 106 AND 115`,
	`UPDATE u SET v = 'big' WHERE id >= 106`,
	`UPDATE u SET w = w + 1 WHERE id = 4 OR id = 116`,
	`CREATE TABLE c AS SELECT id, v FROM u WHERE id < 105 ORDER BY id`,
	`CREATE TABLE c2 AS SELECT id, w FROM u WHERE id >= 100 ORDER BY id`,
	`CREATE TABLE c3 AS SELECT id FROM u WHERE id < 0`,
	`CREATE TABLE "Mixed Case" AS SELECT id * 2 AS id, v FROM c WHERE id > 2 ORDER BY id`,
	`UPDATE c SET v = 'c-upd' WHERE id = 2`,
}

// parityQueries are the catalog rows compared, by table. Snapshot times differ by nature,
// and file sizes because the two Parquet writers encode differently; everything else must
// be identical: ids, schema versions, change tokens, registrations, row ids, stats.
var parityQueries = []struct{ name, query string }{
	{"ducklake_snapshot", `SELECT snapshot_id, schema_version, next_catalog_id, next_file_id FROM ducklake_snapshot ORDER BY snapshot_id`},
	{"ducklake_snapshot_changes", `SELECT * FROM ducklake_snapshot_changes ORDER BY snapshot_id`},
	{"ducklake_schema_versions", `SELECT * FROM ducklake_schema_versions ORDER BY begin_snapshot, table_id`},
	{"ducklake_inlined_data_tables", `SELECT * FROM ducklake_inlined_data_tables ORDER BY table_id, schema_version`},
	{"ducklake_table_stats", `SELECT table_id, record_count, next_row_id FROM ducklake_table_stats ORDER BY table_id`},
	{"ducklake_table_column_stats", `SELECT * FROM ducklake_table_column_stats ORDER BY table_id, column_id`},
	{"ducklake_data_file", `SELECT data_file_id, table_id, begin_snapshot, end_snapshot, record_count, row_id_start FROM ducklake_data_file ORDER BY data_file_id`},
}

// TestInlinedCatalogRowsMatchDuckDB: DuckDB runs the steps on a new lake; lakepg runs the
// same steps on a lake DuckDB created (so both start from DuckDB's snapshot 0). The catalogs
// must then hold the same rows: the inlined-data table made at CREATE TABLE and at each
// layout change (so inlined inserts are not catalog changes), the same schema_version and
// next_file_id in every snapshot, the same changes_made tokens and the same inlined rows.
func TestInlinedCatalogRowsMatchDuckDB(t *testing.T) {
	ducklakeExt, sqliteExt := duckdbExtensions(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	duckDir := t.TempDir()
	runDuckSteps(t, ctx, ducklakeExt, sqliteExt, duckDir, inlineParitySteps)

	lakeDir := t.TempDir()
	runDuckSteps(t, ctx, ducklakeExt, sqliteExt, lakeDir, nil)
	srv := testserver.Start(t, testserver.Binary(t), lakeDir)
	conn, err := pgx.Connect(ctx, srv.DSN())
	if err != nil {
		t.Fatalf("connecting to lakepg: %v", err)
	}
	for _, st := range inlineParitySteps {
		query(t, ctx, conn, st)
	}
	conn.Close(ctx)
	srv.Stop(t)

	duck := dumpCatalog(t, filepath.Join(duckDir, "catalog.sqlite"), parityQueries)
	lake := dumpCatalog(t, filepath.Join(lakeDir, "catalog.sqlite"), parityQueries)
	for _, want := range []string{"ducklake_inlined_data_tables", "ducklake_inlined_data_1_1", "ducklake_inlined_delete_1"} {
		if len(duck.rows[want]) == 0 {
			t.Fatalf("DuckDB left no rows in %s: the steps no longer exercise inlining", want)
		}
	}
	// the UPDATEs and CREATE TABLE … AS of a few rows were inlined by DuckDB: the steps
	// still exercise what they are here for
	changes := strings.Join(duck.rows["ducklake_snapshot_changes"], "\n")
	for _, want := range []string{"|inlined_insert:1,inlined_delete:1|", `|created_table:"main"."c",inlined_insert:`,
		`|created_table:"main"."Mixed Case",inlined_insert:`, "|inserted_into_table:1,inlined_delete:1|"} {
		if !strings.Contains(changes, want) {
			t.Errorf("DuckDB's changes_made have no %q: the steps no longer exercise it\n%s", want, changes)
		}
	}
	if d, l := strings.Join(duck.tables, " "), strings.Join(lake.tables, " "); d != l {
		t.Errorf("tables compared:\nDuckDB: %s\nlakepg: %s", d, l)
	}
	for _, name := range duck.tables {
		d, l := strings.Join(duck.rows[name], "\n"), strings.Join(lake.rows[name], "\n")
		if d != l {
			t.Errorf("%s differs\nDuckDB:\n%s\nlakepg:\n%s", name, d, l)
		}
	}
}

// runDuckSteps has DuckDB create a lake in dir (catalog dir/catalog.sqlite, data under
// dir/data, where testserver.Start looks) and run steps on it.
func runDuckSteps(t *testing.T, ctx context.Context, ducklakeExt, sqliteExt, dir string, steps []string) {
	t.Helper()
	if steps == nil {
		steps = []string{}
	}
	in, err := json.Marshal(map[string]any{"ducklake": ducklakeExt, "sqlite": sqliteExt,
		"catalog": filepath.Join(dir, "catalog.sqlite"), "data": filepath.Join(dir, "data") + "/", "steps": steps})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, "python3", "-c", duckWriteScript)
	cmd.Stdin = strings.NewReader(string(in))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if _, err := cmd.Output(); err != nil {
		t.Fatalf("DuckDB running the steps failed: %v\n%s", err, stderr.String())
	}
}

// catalogDump is a catalog's rows as text lines, per compared query (by name) and per
// inlined-data and inlined-delete table, which start with a line of their column names
// and declared types.
type catalogDump struct {
	tables []string
	rows   map[string][]string
}

func dumpCatalog(t *testing.T, path string, queries []struct{ name, query string }) catalogDump {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	out := catalogDump{rows: map[string][]string{}}
	for _, q := range queries {
		out.tables = append(out.tables, q.name)
		out.rows[q.name] = sqliteRows(t, db, q.query)
	}
	inlined := sqliteRows(t, db, `SELECT name FROM sqlite_master WHERE type = 'table'
		AND (name LIKE 'ducklake\_inlined\_data\_%' ESCAPE '\' OR name LIKE 'ducklake\_inlined\_delete\_%' ESCAPE '\')
		AND name <> 'ducklake_inlined_data_tables' ORDER BY name`)
	for _, name := range inlined {
		cols := sqliteRows(t, db, `SELECT name || ' ' || type FROM pragma_table_info(?) ORDER BY cid`, name)
		out.tables = append(out.tables, name)
		out.rows[name] = append([]string{strings.Join(cols, ", ")},
			sqliteRows(t, db, `SELECT * FROM `+quoteIdent(name)+` ORDER BY 1, 2`)...)
	}
	return out
}

// sqliteRows runs q and renders each row as its values joined by '|', NULL as NULL.
func sqliteRows(t *testing.T, db *sql.DB, q string, args ...any) []string {
	t.Helper()
	rows, err := db.Query(q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		parts := make([]string, len(vals))
		for i, v := range vals {
			switch v := v.(type) {
			case nil:
				parts[i] = "NULL"
			case []byte:
				parts[i] = fmt.Sprintf("%x", v)
			default:
				parts[i] = fmt.Sprint(v)
			}
		}
		out = append(out, strings.Join(parts, "|"))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
