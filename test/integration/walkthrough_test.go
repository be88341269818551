package integration

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// The states of sales.orders after each snapshot of the walkthrough, as psql prints
// `SELECT * FROM ... ORDER BY id` (recorded from PostgreSQL 15 running the same statements).
var orderStates = map[int64]string{
	2: text(`
 id | name | amount $
----+------+--------$
(0 rows)$
$
`),
	3: text(`
 id | name  | amount $
----+-------+--------$
  1 | alice |  100.5$
  2 | bob   |    250$
(2 rows)$
$
`),
	4: text(`
 id | name  | amount $
----+-------+--------$
  1 | alice |  100.5$
(1 row)$
$
`),
	5: text(`
 id | name  | amount | status $
----+-------+--------+--------$
  1 | alice |  100.5 | new$
(1 row)$
$
`),
	6: text(`
 id | name  | amount | status $
----+-------+--------+--------$
  1 | alice |  100.5 | new$
  3 | carol |  75.25 | new$
(2 rows)$
$
`),
	7: text(`
 id | name  | amount | status  $
----+-------+--------+---------$
  1 | alice |  100.5 | new$
  3 | carol |  75.25 | new$
  4 | dave  |     12 | shipped$
(3 rows)$
$
`),
	8: text(`
 id | name  | total | status  $
----+-------+-------+---------$
  1 | alice | 100.5 | new$
  3 | carol | 75.25 | new$
  4 | dave  |    12 | shipped$
(3 rows)$
$
`),
	9: text(`
 id | total | status  $
----+-------+---------$
  1 | 100.5 | new$
  3 | 75.25 | new$
  4 |    12 | shipped$
(3 rows)$
$
`),
	10: text(`
 id | total | status  $
----+-------+---------$
  1 | 100.5 | new$
  3 | 75.25 | new$
  4 |    12 | shipped$
  5 | 99.99 | paid$
(4 rows)$
$
`),
	11: text(`
 id | total | status  $
----+-------+---------$
  1 | 100.5 | new$
  3 | 75.25 | new$
  4 |    12 | shipped$
  5 | 99.99 | paid$
  6 |    60 | paid$
  7 |    70 | new$
(6 rows)$
$
`),
	12: text(`
 id | total | status  $
----+-------+---------$
  1 | 100.5 | new$
  3 | 75.25 | new$
  4 |    12 | shipped$
  5 | 99.99 | paid$
  7 |    70 | new$
(5 rows)$
$
`),
}

// walkSnapshot is one row of lakepg.snapshots the walkthrough must produce.
type walkSnapshot struct {
	id, schemaVersion int64
	changes           string
}

var walkSnapshots = []walkSnapshot{
	{0, 0, `created_schema:"main",created_schema:"public"`},
	{1, 1, `created_schema:"sales"`},
	{2, 2, `created_table:"sales"."orders"`},
	{3, 2, `inserted_into_table:3`},
	{4, 2, `deleted_from_table:3`},
	{5, 3, `altered_table:3`}, // ADD COLUMN status
	{6, 3, `inserted_into_table:3`},
	{7, 3, `inserted_into_table:3`},
	{8, 4, `altered_table:3`}, // RENAME COLUMN amount TO total
	{9, 5, `altered_table:3`}, // DROP COLUMN name
	{10, 5, `inserted_into_table:3`},
	// after the restart
	{11, 5, `inserted_into_table:3`},
	{12, 5, `deleted_from_table:3`},
}

const listSnapshots = "SELECT snapshot_id, schema_version, changes FROM lakepg.snapshots ORDER BY snapshot_id"

// The aligned output of listSnapshots up to snapshot 10 and up to 12.
var (
	snapshotsBeforeRestart = text(`
 snapshot_id | schema_version |                    changes                    $
-------------+----------------+-----------------------------------------------$
           0 |              0 | created_schema:"main",created_schema:"public"$
           1 |              1 | created_schema:"sales"$
           2 |              2 | created_table:"sales"."orders"$
           3 |              2 | inserted_into_table:3$
           4 |              2 | deleted_from_table:3$
           5 |              3 | altered_table:3$
           6 |              3 | inserted_into_table:3$
           7 |              3 | inserted_into_table:3$
           8 |              4 | altered_table:3$
           9 |              5 | altered_table:3$
          10 |              5 | inserted_into_table:3$
(11 rows)$
$
`)
	snapshotsAtEnd = text(`
 snapshot_id | schema_version |                    changes                    $
-------------+----------------+-----------------------------------------------$
           0 |              0 | created_schema:"main",created_schema:"public"$
           1 |              1 | created_schema:"sales"$
           2 |              2 | created_table:"sales"."orders"$
           3 |              2 | inserted_into_table:3$
           4 |              2 | deleted_from_table:3$
           5 |              3 | altered_table:3$
           6 |              3 | inserted_into_table:3$
           7 |              3 | inserted_into_table:3$
           8 |              4 | altered_table:3$
           9 |              5 | altered_table:3$
          10 |              5 | inserted_into_table:3$
          11 |              5 | inserted_into_table:3$
          12 |              5 | deleted_from_table:3$
(13 rows)$
$
`)
)

func atVersion(id int64) string {
	return fmt.Sprintf("SELECT * FROM lakepg.at_version('sales.orders', %d) ORDER BY id", id)
}

// TestWalkthroughPsql is the walkthrough through psql against the built binary:
// schema, table, insert, select, delete, time travel, the snapshot list, schema evolution
// read as of every snapshot, a restart on the same lake, and the DuckLake catalog rows and
// Parquet files it leaves behind.
func TestWalkthroughPsql(t *testing.T) {
	dir := t.TempDir()
	start := time.Now()
	srv := startServer(t, dir)
	meta := srv.connect(t, pgx.QueryExecModeSimpleProtocol)

	// wantHead checks, from a second session, that the last statement made exactly one
	// snapshot.
	wantHead := func(id int64) {
		t.Helper()
		if n := snapshotCount(t, meta); n != id+1 {
			t.Fatalf("after the statement of snapshot %d: lakepg.snapshots has %d rows, want %d", id, n, id+1)
		}
		if got := queryInt(t, meta, "SELECT max(snapshot_id) FROM lakepg.snapshots"); got != id {
			t.Fatalf("latest snapshot is %d, want %d", got, id)
		}
	}

	wantHead(0)
	srv.expectPsql(t, "CREATE SCHEMA sales", "CREATE SCHEMA\n")
	wantHead(1)
	srv.expectPsql(t, "CREATE TABLE sales.orders (id int, name varchar, amount double precision)", "CREATE TABLE\n")
	wantHead(2)
	srv.expectPsql(t, "INSERT INTO sales.orders VALUES (1, 'alice', 100.50), (2, 'bob', 250.00)", "INSERT 0 2\n")
	wantHead(3)
	srv.expectPsql(t, "SELECT * FROM sales.orders ORDER BY id", orderStates[3])
	srv.expectPsql(t, "DELETE FROM sales.orders WHERE name = 'bob'", "DELETE 1\n")
	wantHead(4)
	srv.expectPsql(t, "SELECT * FROM sales.orders ORDER BY id", orderStates[4])
	// As of the snapshot before the delete: both rows.
	srv.expectPsql(t, atVersion(3), orderStates[3])

	// Schema evolution: ADD COLUMN with a DEFAULT, inserts with and without it, RENAME
	// COLUMN, DROP COLUMN, and an insert into the new layout.
	srv.expectPsql(t, "ALTER TABLE sales.orders ADD COLUMN status text DEFAULT 'new'", "ALTER TABLE\n")
	wantHead(5)
	srv.expectPsql(t, "SELECT * FROM sales.orders ORDER BY id", orderStates[5])
	srv.expectPsql(t, "INSERT INTO sales.orders (id, name, amount) VALUES (3, 'carol', 75.25)", "INSERT 0 1\n")
	wantHead(6)
	srv.expectPsql(t, "INSERT INTO sales.orders VALUES (4, 'dave', 12, 'shipped')", "INSERT 0 1\n")
	wantHead(7)
	srv.expectPsql(t, "ALTER TABLE sales.orders RENAME COLUMN amount TO total", "ALTER TABLE\n")
	wantHead(8)
	srv.expectPsql(t, "ALTER TABLE sales.orders DROP COLUMN name", "ALTER TABLE\n")
	wantHead(9)
	srv.expectPsql(t, "INSERT INTO sales.orders VALUES (5, 99.99, 'paid')", "INSERT 0 1\n")
	wantHead(10)
	srv.expectPsql(t, "SELECT * FROM sales.orders ORDER BY id", orderStates[10])

	// Every snapshot, old and new rows, with the column set and names of its time.
	for v := int64(2); v <= 10; v++ {
		srv.expectPsql(t, atVersion(v), orderStates[v])
	}
	srv.expectPsql(t, listSnapshots, snapshotsBeforeRestart)
	checkSnapshotTimes(t, meta, start, 11)

	// A table joined with its own past: the dropped name column comes from snapshot 3.
	srv.expectPsql(t, `SELECT o.id, old.name, old.amount, o.total, o.status
FROM sales.orders AS o JOIN lakepg.at_version('sales.orders', 3) AS old ON old.id = o.id
ORDER BY o.id`, text(`
 id | name  | amount | total | status $
----+-------+--------+-------+--------$
  1 | alice |  100.5 | 100.5 | new$
(1 row)$
$
`))

	// Time travel by timestamp, with the times lakepg itself prints.
	times := snapshotTimes(t, meta)
	t3 := srv.psqlValue(t, "SELECT snapshot_time FROM lakepg.snapshots WHERE snapshot_id = 3")
	t7 := srv.psqlValue(t, "SELECT snapshot_time FROM lakepg.snapshots WHERE snapshot_id = 7")
	if !regexp.MustCompile(`^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d{1,6})?\+00$`).MatchString(t3) {
		t.Fatalf("snapshot_time of snapshot 3 prints as %q, want PostgreSQL's timestamptz text in UTC", t3)
	}
	srv.expectPsql(t, fmt.Sprintf("SELECT * FROM lakepg.at_time('sales.orders', '%s') ORDER BY id", t3), orderStates[3])
	if gap := times[4].Sub(times[3]); gap >= 2*time.Microsecond {
		mid := times[3].Add(gap / 2).UTC().Format("2006-01-02 15:04:05.999999-07")
		srv.expectPsql(t, fmt.Sprintf("SELECT * FROM lakepg.at_time('sales.orders', '%s') ORDER BY id", mid), orderStates[3])
	}
	srv.expectPsql(t, fmt.Sprintf("SELECT * FROM lakepg.at_time('sales.orders', '%s') ORDER BY id", t7), orderStates[7])

	// The session setting: reads follow it, writes are refused (25006), RESET returns to
	// the latest snapshot.
	r := srv.psqlScript(t, fmt.Sprintf(`SET lakepg.snapshot = 4;
SELECT * FROM sales.orders ORDER BY id;
INSERT INTO sales.orders VALUES (9, 'zed', 1);
SET lakepg.snapshot = '%s';
SELECT * FROM sales.orders ORDER BY id;
RESET lakepg.snapshot;
SELECT * FROM sales.orders ORDER BY id;
`, t7))
	checkText(t, "SET lakepg.snapshot script", r.stdout,
		"SET\n"+orderStates[4]+"SET\n"+orderStates[7]+"RESET\n"+orderStates[10])
	if strings.Count(r.stderr, "ERROR:") != 1 || !strings.Contains(r.stderr, "ERROR:  25006:") {
		t.Errorf("INSERT under SET lakepg.snapshot: want exactly one ERROR with SQLSTATE 25006, stderr:\n%s", r.stderr)
	}
	wantHead(10)

	// Restart on the same lake: the same history and rows, then writes go on from there.
	before := srv.mustPsql(t, "SELECT * FROM lakepg.snapshots ORDER BY snapshot_id")
	_ = meta.Close(testCtx(t))
	srv.stop(t)

	srv = startServer(t, dir)
	checkText(t, "lakepg.snapshots after restart", srv.mustPsql(t, "SELECT * FROM lakepg.snapshots ORDER BY snapshot_id"), before)
	srv.expectPsql(t, listSnapshots, snapshotsBeforeRestart)
	for v := int64(2); v <= 10; v++ {
		srv.expectPsql(t, atVersion(v), orderStates[v])
	}
	srv.expectPsql(t, "SELECT * FROM sales.orders ORDER BY id", orderStates[10])
	srv.expectPsql(t, "INSERT INTO sales.orders VALUES (6, 60, 'paid'), (7, 70, 'new')", "INSERT 0 2\n")
	srv.expectPsql(t, "DELETE FROM sales.orders WHERE id = 6", "DELETE 1\n")
	srv.expectPsql(t, "SELECT * FROM sales.orders ORDER BY id", orderStates[12])
	srv.expectPsql(t, atVersion(11), orderStates[11])
	srv.expectPsql(t, atVersion(4), orderStates[4])
	srv.expectPsql(t, listSnapshots, snapshotsAtEnd)
	srv.stop(t)

	checkWalkthroughCatalog(t, dir)
}

// snapshotTimes reads snapshot_time of every snapshot, indexed by id.
func snapshotTimes(t *testing.T, conn *pgx.Conn) []time.Time {
	t.Helper()
	rows, err := conn.Query(testCtx(t), "SELECT * FROM lakepg.snapshots ORDER BY snapshot_id")
	if err != nil {
		t.Fatal(err)
	}
	var cols []string
	for _, f := range rows.FieldDescriptions() {
		cols = append(cols, fmt.Sprintf("%s:%d", f.Name, f.DataTypeOID))
	}
	if want := "[snapshot_id:20 snapshot_time:1184 schema_version:20 changes:25]"; fmt.Sprint(cols) != want {
		t.Errorf("lakepg.snapshots columns (name:type OID) %v, want %s", cols, want)
	}
	var times []time.Time
	for rows.Next() {
		var id, schemaVersion int64
		var ts time.Time
		var changes string
		if err := rows.Scan(&id, &ts, &schemaVersion, &changes); err != nil {
			t.Fatal(err)
		}
		if id != int64(len(times)) {
			t.Fatalf("lakepg.snapshots: snapshot id %d at position %d", id, len(times))
		}
		times = append(times, ts)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return times
}

// checkSnapshotTimes requires n snapshots whose times do not decrease and lie between the
// test's start and now.
func checkSnapshotTimes(t *testing.T, conn *pgx.Conn, start time.Time, n int) {
	t.Helper()
	times := snapshotTimes(t, conn)
	if len(times) != n {
		t.Fatalf("lakepg.snapshots has %d rows, want %d", len(times), n)
	}
	now := time.Now()
	for i, ts := range times {
		if ts.Before(start.Add(-time.Second)) || ts.After(now.Add(time.Second)) {
			t.Errorf("snapshot %d has time %v, outside the test's run [%v, %v]", i, ts, start, now)
		}
		if i > 0 && ts.Before(times[i-1]) {
			t.Errorf("snapshot %d has time %v, before snapshot %d's %v", i, ts, i-1, times[i-1])
		}
	}
}

// checkWalkthroughCatalog opens the stopped lake's SQLite catalog read-only and checks the
// DuckLake rows the walkthrough must have written, and the files they point to.
func checkWalkthroughCatalog(t *testing.T, dir string) {
	db := openCatalog(t, filepath.Join(dir, "catalog.sqlite"))

	var version string
	if err := db.QueryRow(`SELECT value FROM ducklake_metadata WHERE key = 'version' AND scope IS NULL`).Scan(&version); err != nil || version != "1.0" {
		t.Errorf("ducklake_metadata version = %q (%v), want 1.0", version, err)
	}

	// Snapshots: dense ids 0..12, the schema versions above, one changes row each.
	var snaps []walkSnapshot
	var nextCatalog, nextFile []int64
	catalogRows(t, db, `SELECT s.snapshot_id, s.schema_version, s.next_catalog_id, s.next_file_id, c.changes_made
		FROM ducklake_snapshot s LEFT JOIN ducklake_snapshot_changes c ON c.snapshot_id = s.snapshot_id
		ORDER BY s.snapshot_id`, func(r *sql.Rows) error {
		var s walkSnapshot
		var nc, nf int64
		var changes sql.NullString
		err := r.Scan(&s.id, &s.schemaVersion, &nc, &nf, &changes)
		s.changes = changes.String
		snaps = append(snaps, s)
		nextCatalog = append(nextCatalog, nc)
		nextFile = append(nextFile, nf)
		return err
	})
	if !reflect.DeepEqual(snaps, walkSnapshots) {
		t.Errorf("ducklake_snapshot ⋈ ducklake_snapshot_changes:\n got %v\nwant %v", snaps, walkSnapshots)
	}
	var changeRows int64
	if err := db.QueryRow(`SELECT count(*) FROM ducklake_snapshot_changes`).Scan(&changeRows); err != nil || changeRows != int64(len(walkSnapshots)) {
		t.Errorf("ducklake_snapshot_changes has %d rows (%v), want %d", changeRows, err, len(walkSnapshots))
	}
	// Catalog ids: main 0 and public 1 at bootstrap, sales 2, orders 3; nothing after.
	if want := []int64{2, 3, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4}; !reflect.DeepEqual(nextCatalog, want) {
		t.Errorf("next_catalog_id per snapshot = %v, want %v", nextCatalog, want)
	}
	// File ids: every snapshot that adds a data or delete file advances next_file_id,
	// others leave it.
	addsFiles := map[int]bool{3: true, 4: true, 6: true, 7: true, 10: true, 11: true, 12: true}
	for i := 1; i < len(nextFile); i++ {
		if addsFiles[i] && nextFile[i] <= nextFile[i-1] || !addsFiles[i] && nextFile[i] != nextFile[i-1] {
			t.Errorf("next_file_id per snapshot = %v: snapshot %d adds files: %v", nextFile, i, addsFiles[i])
			break
		}
	}

	type schemaRow struct {
		id, begin int64
		end       sql.NullInt64
		path      string
	}
	schemas := map[string]schemaRow{}
	catalogRows(t, db, `SELECT schema_name, schema_id, begin_snapshot, end_snapshot, path FROM ducklake_schema`, func(r *sql.Rows) error {
		var name string
		var s schemaRow
		err := r.Scan(&name, &s.id, &s.begin, &s.end, &s.path)
		schemas[name] = s
		return err
	})
	wantSchemas := map[string]schemaRow{
		"main":   {0, 0, sql.NullInt64{}, "main/"},
		"public": {1, 0, sql.NullInt64{}, "public/"},
		"sales":  {2, 1, sql.NullInt64{}, "sales/"},
	}
	if !reflect.DeepEqual(schemas, wantSchemas) {
		t.Errorf("ducklake_schema = %+v, want %+v", schemas, wantSchemas)
	}

	var tables []string
	catalogRows(t, db, `SELECT table_id, schema_id, begin_snapshot, end_snapshot, table_name, path FROM ducklake_table ORDER BY table_id, begin_snapshot`, func(r *sql.Rows) error {
		var id, schema, begin int64
		var end sql.NullInt64
		var name, path string
		err := r.Scan(&id, &schema, &begin, &end, &name, &path)
		tables = append(tables, fmt.Sprintf("%d schema=%d [%d,%s) %s %s", id, schema, begin, nullInt(end), name, path))
		return err
	})
	if want := []string{"3 schema=2 [2,-) orders orders/"}; !reflect.DeepEqual(tables, want) {
		t.Errorf("ducklake_table = %q, want %q", tables, want)
	}

	// Columns: a rename end-dates the row and re-inserts it with the same column_id; a drop
	// end-dates it; the added column carries its default as initial_default.
	var columns []string
	catalogRows(t, db, `SELECT column_id, begin_snapshot, end_snapshot, column_name, column_type, initial_default, parent_column
		FROM ducklake_column WHERE table_id = 3 ORDER BY column_id, begin_snapshot`, func(r *sql.Rows) error {
		var id, begin int64
		var end, parent sql.NullInt64
		var name, typ string
		var initial sql.NullString
		err := r.Scan(&id, &begin, &end, &name, &typ, &initial, &parent)
		init := "NULL"
		if initial.Valid {
			init = "'" + initial.String + "'"
		}
		columns = append(columns, fmt.Sprintf("%d [%d,%s) %s %s initial=%s parent=%s", id, begin, nullInt(end), name, typ, init, nullInt(parent)))
		return err
	})
	wantColumns := []string{
		"1 [2,-) id int32 initial=NULL parent=-",
		"2 [2,9) name varchar initial=NULL parent=-",
		"3 [2,8) amount float64 initial=NULL parent=-",
		"3 [8,-) total float64 initial=NULL parent=-",
		"4 [5,-) status varchar initial='new' parent=-",
	}
	if !reflect.DeepEqual(columns, wantColumns) {
		t.Errorf("ducklake_column rows of table 3:\n got %q\nwant %q", columns, wantColumns)
	}

	var schemaVersions []string
	catalogRows(t, db, `SELECT begin_snapshot, schema_version FROM ducklake_schema_versions WHERE table_id = 3 ORDER BY begin_snapshot`, func(r *sql.Rows) error {
		var b, v int64
		err := r.Scan(&b, &v)
		schemaVersions = append(schemaVersions, fmt.Sprintf("%d:%d", b, v))
		return err
	})
	if want := []string{"2:2", "5:3", "8:4", "9:5"}; !reflect.DeepEqual(schemaVersions, want) {
		t.Errorf("ducklake_schema_versions (begin_snapshot:schema_version) for table 3 = %v, want %v", schemaVersions, want)
	}

	// Data files: one per INSERT, exact record_count, file_size_bytes and footer_size,
	// row ids continuing across files, field_id = column_id on every column.
	tdir := tableDir(t, db, dir, 3)
	if want := filepath.Join(dir, "data", "sales", "orders"); tdir != want {
		t.Errorf("files of sales.orders resolve to %s, want %s", tdir, want)
	}
	type dataFile struct {
		id, begin, records, size, rowIDStart int64
		end, footer                          sql.NullInt64
		path, format                         string
	}
	var files []dataFile
	catalogRows(t, db, `SELECT data_file_id, begin_snapshot, end_snapshot, path, file_format, record_count, file_size_bytes, footer_size, row_id_start
		FROM ducklake_data_file WHERE table_id = 3 ORDER BY begin_snapshot`, func(r *sql.Rows) error {
		var f dataFile
		err := r.Scan(&f.id, &f.begin, &f.end, &f.path, &f.format, &f.records, &f.size, &f.footer, &f.rowIDStart)
		files = append(files, f)
		return err
	})
	wantFiles := []struct {
		begin, records, rowIDStart int64
		fieldIDs                   []int32
		ids                        []int64
	}{
		{3, 2, 0, []int32{1, 2, 3}, []int64{1, 2}},
		{6, 1, 2, []int32{1, 2, 3, 4}, []int64{3}},
		{7, 1, 3, []int32{1, 2, 3, 4}, []int64{4}},
		{10, 1, 4, []int32{1, 3, 4}, []int64{5}},
		{11, 2, 5, []int32{1, 3, 4}, []int64{6, 7}},
	}
	if len(files) != len(wantFiles) {
		t.Fatalf("ducklake_data_file has %d rows for table 3, want %d: %+v", len(files), len(wantFiles), files)
	}
	nameRE := regexp.MustCompile(`^ducklake-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.parquet$`)
	var totalSize int64
	fileIDs := map[int64]bool{}
	idsByFile := map[int64][]int64{}
	for i, f := range files {
		w := wantFiles[i]
		fileIDs[f.id] = true
		if f.begin != w.begin || f.end.Valid || f.records != w.records || f.rowIDStart != w.rowIDStart || f.format != "parquet" {
			t.Errorf("data file %d: begin=%d end=%s record_count=%d row_id_start=%d format=%q, want begin=%d end=- record_count=%d row_id_start=%d format=parquet",
				f.id, f.begin, nullInt(f.end), f.records, f.rowIDStart, f.format, w.begin, w.records, w.rowIDStart)
		}
		if !nameRE.MatchString(f.path) {
			t.Errorf("data file %d path %q, want ducklake-<uuid>.parquet relative to the table directory", f.id, f.path)
			continue
		}
		p := filepath.Join(tdir, f.path)
		if size := fileSize(t, p); size != f.size {
			t.Errorf("data file %s: file_size_bytes %d, the file has %d bytes", f.path, f.size, size)
		}
		totalSize += f.size
		if footer := parquetFooterSize(t, p); f.footer.Valid && f.footer.Int64 != footer {
			t.Errorf("data file %s: footer_size %d, the file's footer has %d bytes", f.path, f.footer.Int64, footer)
		}
		pf := openParquet(t, p)
		if pf.NumRows() != f.records {
			t.Errorf("data file %s: record_count %d, the file has %d rows", f.path, f.records, pf.NumRows())
		}
		if got := parquetFieldIDs(pf); !reflect.DeepEqual(got, w.fieldIDs) {
			t.Errorf("data file %s (snapshot %d): field ids %v, want %v", f.path, f.begin, got, w.fieldIDs)
		}
		ids := parquetInts(t, pf, columnName(pf, 1))
		idsByFile[f.id] = ids
		if !sameInts(ids, w.ids) {
			t.Errorf("data file %s: id column %v, want %v in some order", f.path, ids, w.ids)
		}
	}

	// Column stats of the id column (column 1) for every file.
	var stats []string
	catalogRows(t, db, `SELECT d.begin_snapshot, s.value_count, s.null_count, s.min_value, s.max_value
		FROM ducklake_file_column_stats s JOIN ducklake_data_file d ON d.data_file_id = s.data_file_id
		WHERE s.table_id = 3 AND s.column_id = 1 ORDER BY d.begin_snapshot`, func(r *sql.Rows) error {
		var begin, values, nulls int64
		var lo, hi sql.NullString
		err := r.Scan(&begin, &values, &nulls, &lo, &hi)
		stats = append(stats, fmt.Sprintf("%d: values=%d nulls=%d min=%s max=%s", begin, values, nulls, lo.String, hi.String))
		return err
	})
	wantStats := []string{
		"3: values=2 nulls=0 min=1 max=2",
		"6: values=1 nulls=0 min=3 max=3",
		"7: values=1 nulls=0 min=4 max=4",
		"10: values=1 nulls=0 min=5 max=5",
		"11: values=2 nulls=0 min=6 max=7",
	}
	if !reflect.DeepEqual(stats, wantStats) {
		t.Errorf("ducklake_file_column_stats of column id:\n got %q\nwant %q", stats, wantStats)
	}

	var recordCount, nextRowID, statsSize int64
	if err := db.QueryRow(`SELECT record_count, next_row_id, file_size_bytes FROM ducklake_table_stats WHERE table_id = 3`).
		Scan(&recordCount, &nextRowID, &statsSize); err != nil {
		t.Errorf("ducklake_table_stats: %v", err)
	} else if recordCount != 7 || nextRowID != 7 || statsSize != totalSize {
		t.Errorf("ducklake_table_stats: record_count=%d next_row_id=%d file_size_bytes=%d, want 7, 7, %d",
			recordCount, nextRowID, statsSize, totalSize)
	}

	// Delete files: bob (id 2) from the first file at snapshot 4, id 6 from the last at 12.
	type deleteFile struct {
		id, dataFile, begin, count, size int64
		end, footer                      sql.NullInt64
		path, format                     string
	}
	var deletes []deleteFile
	catalogRows(t, db, `SELECT delete_file_id, data_file_id, begin_snapshot, end_snapshot, path, format, delete_count, file_size_bytes, footer_size
		FROM ducklake_delete_file WHERE table_id = 3 ORDER BY begin_snapshot`, func(r *sql.Rows) error {
		var d deleteFile
		err := r.Scan(&d.id, &d.dataFile, &d.begin, &d.end, &d.path, &d.format, &d.count, &d.size, &d.footer)
		deletes = append(deletes, d)
		return err
	})
	wantDeletes := []struct {
		begin, deletedID int64
		fileIdx          int
	}{{4, 2, 0}, {12, 6, 4}}
	if len(deletes) != len(wantDeletes) {
		t.Fatalf("ducklake_delete_file has %d rows for table 3, want %d: %+v", len(deletes), len(wantDeletes), deletes)
	}
	deleteRE := regexp.MustCompile(`^ducklake-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}-delete\.parquet$`)
	for i, d := range deletes {
		w := wantDeletes[i]
		target := files[w.fileIdx]
		if fileIDs[d.id] {
			t.Errorf("delete file id %d is also a data file id", d.id)
		}
		if d.dataFile != target.id || d.begin != w.begin || d.end.Valid || d.count != 1 || d.format != "parquet" {
			t.Errorf("delete file %d: data_file_id=%d begin=%d end=%s delete_count=%d format=%q, want data_file_id=%d begin=%d end=- delete_count=1 format=parquet",
				d.id, d.dataFile, d.begin, nullInt(d.end), d.count, d.format, target.id, w.begin)
		}
		if !deleteRE.MatchString(d.path) {
			t.Errorf("delete file %d path %q, want ducklake-<uuid>-delete.parquet relative to the table directory", d.id, d.path)
			continue
		}
		p := filepath.Join(tdir, d.path)
		if size := fileSize(t, p); size != d.size {
			t.Errorf("delete file %s: file_size_bytes %d, the file has %d bytes", d.path, d.size, size)
		}
		if footer := parquetFooterSize(t, p); d.footer.Valid && d.footer.Int64 != footer {
			t.Errorf("delete file %s: footer_size %d, the file's footer has %d bytes", d.path, d.footer.Int64, footer)
		}
		pf := openParquet(t, p)
		pos := parquetInts(t, pf, "pos")
		wantPos := int64(indexOf(idsByFile[target.id], w.deletedID))
		if len(pos) != 1 || pos[0] != wantPos {
			t.Errorf("delete file %s: pos %v, want [%d] (the position of id %d in its data file)", d.path, pos, wantPos, w.deletedID)
		}
	}
}

func nullInt(v sql.NullInt64) string {
	if !v.Valid {
		return "-"
	}
	return fmt.Sprint(v.Int64)
}

func sameInts(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	seen := map[int64]int{}
	for _, x := range a {
		seen[x]++
	}
	for _, x := range b {
		seen[x]--
	}
	for _, n := range seen {
		if n != 0 {
			return false
		}
	}
	return true
}

func indexOf(s []int64, v int64) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}
