package sql

import "testing"

// TestInlinedUpdateAndCTAS: an UPDATE of at most data_inlining_row_limit rows keeps the new
// versions in the catalog with the old row ids (no Parquet file, next_row_id unchanged,
// record_count grown), a larger one writes a file; CREATE TABLE … AS of a few rows inlines
// them with the table in one snapshot, whatever its name; a transaction block writes files.
func TestInlinedUpdateAndCTAS(t *testing.T) {
	s := lake(t)
	must(t, s, `CREATE TABLE u (id integer, v text)`)
	must(t, s, `INSERT INTO u SELECT g, 'x' || g::text FROM generate_series(1, 30) g`)
	files := parquetCount(t, s)

	must(t, s, `UPDATE u SET v = 'small' WHERE id IN (2, 3, 30)`)
	must(t, s, `SELECT changes FROM lakepg.snapshots ORDER BY snapshot_id DESC LIMIT 1`, "inlined_insert:2,inlined_delete:2")
	if n := parquetCount(t, s); n != files {
		t.Errorf("%d Parquet files after a 3-row UPDATE, want %d", n, files)
	}
	if got := catalogRows(t, s, `SELECT record_count, next_row_id FROM ducklake_table_stats WHERE table_id = 2`); len(got) != 1 || got[0] != "33|30" {
		t.Errorf("table stats after the inlined UPDATE: %q, want 33|30", got)
	}
	if got := catalogRows(t, s, `SELECT row_id, begin_snapshot, end_snapshot IS NULL, id, v FROM ducklake_inlined_data_2_1 ORDER BY row_id`); len(got) != 3 ||
		got[0] != "1|3|1|2|small" || got[2] != "29|3|1|30|small" {
		t.Errorf("inlined versions: %q, want row ids 1, 2, 29 begun at snapshot 3", got)
	}
	if got := catalogRows(t, s, `SELECT file_id, row_id, begin_snapshot FROM ducklake_inlined_delete_2 ORDER BY row_id`); len(got) != 3 || got[0] != "0|1|3" {
		t.Errorf("inlined file deletes: %q", got)
	}
	must(t, s, `SELECT id, v FROM u WHERE id IN (1, 2, 3, 30) ORDER BY id`, "1|x1", "2|small", "3|small", "30|small")
	must(t, s, `SELECT count(*) FROM u`, "30")
	must(t, s, `SELECT v FROM lakepg.at_version('u', 2) WHERE id = 2`, "x2")

	// an inlined row updated again: its version ends, a new one keeps the row id
	must(t, s, `UPDATE u SET v = 'again' WHERE id = 2`)
	must(t, s, `SELECT changes FROM lakepg.snapshots ORDER BY snapshot_id DESC LIMIT 1`, "inlined_insert:2,inlined_delete:2")
	if got := catalogRows(t, s, `SELECT row_id, begin_snapshot, end_snapshot, v FROM ducklake_inlined_data_2_1 WHERE row_id = 1 ORDER BY begin_snapshot`); len(got) != 2 ||
		got[0] != "1|3|4|small" || got[1] != "1|4|NULL|again" {
		t.Errorf("versions of row 1: %q", got)
	}

	// 11 new versions exceed the limit: a Parquet file (its rows from one file: a delete file)
	must(t, s, `UPDATE u SET v = 'big' WHERE id BETWEEN 10 AND 20`)
	must(t, s, `SELECT changes FROM lakepg.snapshots ORDER BY snapshot_id DESC LIMIT 1`, "inserted_into_table:2,deleted_from_table:2")
	if n := parquetCount(t, s); n != files+1 {
		t.Errorf("%d Parquet files after an 11-row UPDATE, want %d", n, files+1)
	}
	must(t, s, `SELECT count(*), count(*) FILTER (WHERE v = 'big') FROM u`, "30|11")

	// CREATE TABLE … AS of a few rows: the table and its inlined rows, one snapshot
	must(t, s, `CREATE TABLE c AS SELECT id, v FROM u WHERE id <= 3 ORDER BY id`)
	must(t, s, `SELECT schema_version, changes FROM lakepg.snapshots ORDER BY snapshot_id DESC LIMIT 1`, `2|created_table:"public"."c",inlined_insert:3`)
	must(t, s, `SELECT * FROM c ORDER BY id`, "1|x1", "2|again", "3|small")
	if got := catalogRows(t, s, `SELECT row_id, id FROM ducklake_inlined_data_3_2 ORDER BY row_id`); len(got) != 3 || got[0] != "0|1" {
		t.Errorf("rows of c: %q", got)
	}
	// a name that needs a uuid directory is one snapshot too when nothing goes to a file
	must(t, s, `CREATE TABLE "Odd name" AS SELECT id * 10 AS id FROM c`)
	must(t, s, `SELECT changes FROM lakepg.snapshots ORDER BY snapshot_id DESC LIMIT 1`, `created_table:"public"."Odd name",inlined_insert:4`)
	must(t, s, `SELECT * FROM "Odd name" ORDER BY id`, "10", "20", "30")
	must(t, s, `CREATE TABLE e AS SELECT id FROM u WHERE id < 0`)
	must(t, s, `SELECT changes FROM lakepg.snapshots ORDER BY snapshot_id DESC LIMIT 1`, `created_table:"public"."e"`)
	if n := parquetCount(t, s); n != files+1 {
		t.Errorf("%d Parquet files after small CREATE TABLE … AS, want %d", n, files+1)
	}

	// inside a transaction block the new versions go to a file
	must(t, s, `BEGIN`)
	must(t, s, `UPDATE u SET v = 'tx' WHERE id = 25`)
	must(t, s, `COMMIT`)
	must(t, s, `SELECT changes FROM lakepg.snapshots ORDER BY snapshot_id DESC LIMIT 1`, "inserted_into_table:2,deleted_from_table:2")
	must(t, s, `SELECT v FROM u WHERE id = 25`, "tx")
}
