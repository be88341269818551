package integration

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"reflect"
	"regexp"
	"testing"

	"github.com/jackc/pgx/v5"
)

// walkthroughWrites are the statements of the psql walkthrough that make snapshots 1..12.
var walkthroughWrites = []string{
	"CREATE SCHEMA sales",
	"CREATE TABLE sales.orders (id int, name varchar, amount double precision)",
	"INSERT INTO sales.orders VALUES (1, 'alice', 100.50), (2, 'bob', 250.00)",
	"DELETE FROM sales.orders WHERE name = 'bob'",
	"ALTER TABLE sales.orders ADD COLUMN status text DEFAULT 'new'",
	"INSERT INTO sales.orders (id, name, amount) VALUES (3, 'carol', 75.25)",
	"INSERT INTO sales.orders VALUES (4, 'dave', 12, 'shipped')",
	"ALTER TABLE sales.orders RENAME COLUMN amount TO total",
	"ALTER TABLE sales.orders DROP COLUMN name",
	"INSERT INTO sales.orders VALUES (5, 99.99, 'paid')",
	"INSERT INTO sales.orders VALUES (6, 60, 'paid'), (7, 70, 'new')",
	"DELETE FROM sales.orders WHERE id = 6",
}

// TestWalkthroughParquetFiles runs the walkthrough's writes with data inlining off, so
// that every INSERT writes a Parquet data file and every DELETE a delete file, and checks
// those files against their catalog rows: exact sizes, footers and row counts, field ids,
// row ids, column stats and deleted positions.
func TestWalkthroughParquetFiles(t *testing.T) {
	dir := t.TempDir()
	srv := startServer(t, dir)
	conn := srv.connect(t, pgx.QueryExecModeSimpleProtocol)
	// The test is about the Parquet files writes make: the walkthrough's small INSERTs and
	// DELETEs must not be inlined into the catalog.
	mustExec(t, conn, "CALL lakepg.set_option('data_inlining_row_limit', '0')")
	for _, st := range walkthroughWrites {
		mustExec(t, conn, st)
	}
	_ = conn.Close(testCtx(t))
	srv.stop(t)

	db := openCatalog(t, filepath.Join(dir, "catalog.sqlite"))
	var snaps []walkSnapshot
	var nextFile []int64
	catalogRows(t, db, `SELECT s.snapshot_id, s.schema_version, s.next_file_id, c.changes_made
		FROM ducklake_snapshot s JOIN ducklake_snapshot_changes c ON c.snapshot_id = s.snapshot_id
		ORDER BY s.snapshot_id`, func(r *sql.Rows) error {
		var s walkSnapshot
		var nf int64
		err := r.Scan(&s.id, &s.schemaVersion, &nf, &s.changes)
		snaps = append(snaps, s)
		nextFile = append(nextFile, nf)
		return err
	})
	wantSnaps := []walkSnapshot{
		{0, 0, `created_schema:"main",created_schema:"public"`},
		{1, 1, `created_schema:"sales"`},
		{2, 2, `created_table:"sales"."orders"`},
		{3, 2, `inserted_into_table:3`},
		{4, 2, `deleted_from_table:3`},
		{5, 3, `altered_table:3`},
		{6, 3, `inserted_into_table:3`},
		{7, 3, `inserted_into_table:3`},
		{8, 4, `altered_table:3`},
		{9, 5, `altered_table:3`},
		{10, 5, `inserted_into_table:3`},
		{11, 5, `inserted_into_table:3`},
		{12, 5, `deleted_from_table:3`},
	}
	if !reflect.DeepEqual(snaps, wantSnaps) {
		t.Errorf("ducklake_snapshot ⋈ ducklake_snapshot_changes:\n got %v\nwant %v", snaps, wantSnaps)
	}
	// One file id per data or delete file.
	if want := []int64{0, 0, 0, 1, 2, 2, 3, 4, 4, 4, 5, 6, 7}; !reflect.DeepEqual(nextFile, want) {
		t.Errorf("next_file_id per snapshot = %v, want %v", nextFile, want)
	}
	// With inlining off, no inlined-data table is made for the table.
	var inlined int64
	if err := db.QueryRow(`SELECT count(*) FROM ducklake_inlined_data_tables`).Scan(&inlined); err != nil || inlined != 0 {
		t.Errorf("ducklake_inlined_data_tables has %d rows (%v), want 0", inlined, err)
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
