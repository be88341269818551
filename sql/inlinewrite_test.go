package sql

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInliningOnWrite: inserts and deletes of at most data_inlining_row_limit rows stay in
// the catalog (inlined_insert, inlined_delete), read back with every type intact, and the
// catalog option or the session setting at 0 turns that off.
func TestInliningOnWrite(t *testing.T) {
	s := lake(t)
	must(t, s, `CALL lakepg.set_option('data_inlining_row_limit', '10')`)
	must(t, s, `CREATE TABLE i (id integer, v text, d double precision, f real, ts timestamptz, tsn timestamp, n numeric(10,2),
		dt date, b boolean, u uuid, iv interval, bl bytea, s smallint, big bigint)`)
	must(t, s, `INSERT INTO i VALUES
		(1, 'it''s ✓', 1.5, 2.5, '2024-01-01 10:00:00.123456+00', '2024-01-01 03:04:05', 1.25, '2024-02-29', true,
		 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '1 year 2 mons 3 days 04:05:06.5', '\xdead', -3, 9000000000),
		(2, '', 'NaN', '-Infinity', 'infinity', '-infinity', -0.01, '2000-02-29', false, NULL, '3 mons 4 days', '\x', 32767, -1),
		(3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)`)
	want := []string{
		"1|it's ✓|1.5|2.5|2024-01-01 10:00:00.123456+00|2024-01-01 03:04:05|1.25|2024-02-29|t|a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11|1 year 2 mons 3 days 04:05:06.5|\\xdead|-3|9000000000",
		"2||NaN|-Infinity|infinity|-infinity|-0.01|2000-02-29|f|NULL|3 mons 4 days|\\x|32767|-1",
		"3|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL",
	}
	must(t, s, `SELECT * FROM i ORDER BY id`, want...)
	must(t, s, `SELECT changes FROM lakepg.snapshots ORDER BY snapshot_id DESC LIMIT 1`, "inlined_insert:2")
	if n := parquetCount(t, s); n != 0 {
		t.Errorf("%d Parquet files after an inlined insert, want 0", n)
	}

	// 11 rows exceed the limit: one Parquet file.
	must(t, s, `INSERT INTO i (id) SELECT g FROM generate_series(100, 110) g`)
	must(t, s, `SELECT changes FROM lakepg.snapshots ORDER BY snapshot_id DESC LIMIT 1`, "inserted_into_table:2")
	if n := parquetCount(t, s); n != 1 {
		t.Errorf("%d Parquet files after an 11-row insert, want 1", n)
	}
	// A small delete from the file: inlined file deletes, no delete file.
	must(t, s, `DELETE FROM i WHERE id IN (100, 101)`)
	must(t, s, `SELECT changes FROM lakepg.snapshots ORDER BY snapshot_id DESC LIMIT 1`, "inlined_delete:2")
	if n := parquetCount(t, s); n != 1 {
		t.Errorf("%d Parquet files after an inlined delete, want 1", n)
	}
	must(t, s, `SELECT count(*), min(id) FROM i WHERE id >= 100`, "9|102")
	// Deleting an inlined row end-dates it; the earlier snapshot still sees it.
	must(t, s, `DELETE FROM i WHERE id = 2`)
	must(t, s, `SELECT count(*) FROM i WHERE id < 100`, "2")
	must(t, s, `SELECT count(*) FROM lakepg.at_version('i', 3) WHERE id < 100`, "3")

	// The session setting at 0 turns inlining off for the session.
	must(t, s, `SET lakepg.data_inlining_row_limit = 0`)
	must(t, s, `INSERT INTO i (id) VALUES (7)`)
	must(t, s, `SELECT changes FROM lakepg.snapshots ORDER BY snapshot_id DESC LIMIT 1`, "inserted_into_table:2")
	must(t, s, `DELETE FROM i WHERE id = 102`)
	must(t, s, `SELECT changes FROM lakepg.snapshots ORDER BY snapshot_id DESC LIMIT 1`, "deleted_from_table:2")
	must(t, s, `RESET lakepg.data_inlining_row_limit`)
	// So does the catalog option, at table scope.
	must(t, s, `CALL lakepg.set_option('data_inlining_row_limit', '0', table_name => 'i')`)
	must(t, s, `INSERT INTO i (id) VALUES (8)`)
	must(t, s, `SELECT changes FROM lakepg.snapshots ORDER BY snapshot_id DESC LIMIT 1`, "inserted_into_table:2")
	must(t, s, `CALL lakepg.set_option('data_inlining_row_limit', '10', table_name => 'i')`)
	must(t, s, `INSERT INTO i (id) VALUES (9)`)
	must(t, s, `SELECT changes FROM lakepg.snapshots ORDER BY snapshot_id DESC LIMIT 1`, "inlined_insert:2")

	// A transaction block writes files: its own reads see only staged files.
	must(t, s, `BEGIN`)
	must(t, s, `INSERT INTO i (id) VALUES (10)`)
	must(t, s, `SELECT count(*) FROM i WHERE id = 10`, "1")
	must(t, s, `COMMIT`)
	must(t, s, `SELECT changes FROM lakepg.snapshots ORDER BY snapshot_id DESC LIMIT 1`, "inserted_into_table:2")

	// Flush: the inlined rows become a file, and every snapshot reads as before.
	before := map[string][]string{}
	snaps, _, err := run(t, s, `SELECT snapshot_id FROM lakepg.snapshots WHERE snapshot_id >= 3 ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	for _, sn := range snaps {
		rows, _, err := run(t, s, `SELECT * FROM lakepg.at_version('i', `+sn+`) ORDER BY id`)
		if err != nil {
			t.Fatal(err)
		}
		before[sn] = rows
	}
	must(t, s, `CALL lakepg.flush_inlined_data()`)
	must(t, s, `SELECT changes FROM lakepg.snapshots ORDER BY snapshot_id DESC LIMIT 1`, "deleted_from_table:2,inline_flush:2")
	for _, sn := range snaps {
		must(t, s, `SELECT * FROM lakepg.at_version('i', `+sn+`) ORDER BY id`, before[sn]...)
	}
}

// TestInlinedTableAtCreate: as in DuckDB, CREATE TABLE makes the table's inlined-data table
// when inlining is on for it, so the first inlined insert is no catalog change; with the
// session setting at 0 it makes none.
func TestInlinedTableAtCreate(t *testing.T) {
	s := lake(t)
	must(t, s, `CREATE TABLE a (id integer)`)
	must(t, s, `INSERT INTO a VALUES (1)`)
	must(t, s, `SELECT schema_version, changes FROM lakepg.snapshots ORDER BY snapshot_id DESC LIMIT 2`,
		"1|inlined_insert:2", `1|created_table:"public"."a"`)
	regs, err := s.eng.DB.InlinedTables(context.Background(), 2)
	if err != nil || len(regs) != 1 || regs[0].Name != "ducklake_inlined_data_2_1" || regs[0].SchemaVersion != 1 {
		t.Errorf("inlined-data tables of a: %+v (%v), want ducklake_inlined_data_2_1 at schema version 1", regs, err)
	}

	must(t, s, `SET lakepg.data_inlining_row_limit = 0`)
	must(t, s, `CREATE TABLE b (id integer)`)
	if regs, err := s.eng.DB.InlinedTables(context.Background(), 3); err != nil || len(regs) != 0 {
		t.Errorf("inlined-data tables of b, created with inlining off: %+v (%v), want none", regs, err)
	}
}

func parquetCount(t *testing.T, s *Session) int {
	t.Helper()
	n := 0
	filepath.Walk(strings.TrimSuffix(s.eng.DB.DataPath(), "/"), func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() && strings.HasSuffix(p, ".parquet") && !strings.HasSuffix(p, "-delete.parquet") {
			n++
		}
		return nil
	})
	return n
}
