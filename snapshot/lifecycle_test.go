package snapshot

import (
	"strconv"
	"strings"
	"testing"

	"github.com/lakepg/lakepg/catalog"
)

// TestLifecycle drives one table through create, inserts, deletes, every
// ALTER, rename and drop, checking the rows and changes_made of each commit
// against the DuckLake spec, then time-travels through the history.
func TestLifecycle(t *testing.T) { eachBackend(t, testLifecycle) }

func testLifecycle(t *testing.T, be backend) {
	e := newEnv(t, be)

	// S1: CREATE SCHEMA sales; CREATE TABLE sales.orders(o int, c varchar, x double)
	c, _ := e.begin()
	sid := c.CreateSchema("sales")
	tid := c.CreateTable(catalog.Schema{ID: sid, Name: "sales"}, "orders", []ColumnDef{
		{Name: "o", Type: "int32", NullsAllowed: false},
		{Name: "c", Type: "varchar", NullsAllowed: true},
		{Name: "x", Type: "float64", NullsAllowed: true},
	})
	if sid != 2 || tid != 3 {
		t.Fatalf("provisional ids %d %d", sid, tid)
	}
	s1 := e.commit(c)
	if s1.ID != 1 || s1.SchemaVersion != 1 || s1.NextCatalogID != 4 || s1.NextFileID != 0 {
		t.Errorf("s1 = %+v", s1)
	}
	if c.FinalID(tid) != 3 {
		t.Errorf("FinalID = %d", c.FinalID(tid))
	}
	e.expectRows(`SELECT schema_id, begin_snapshot, end_snapshot, schema_name, path, path_is_relative, length(CAST(schema_uuid AS VARCHAR)) FROM ducklake_schema WHERE schema_id = 2`,
		"2|1|~|sales|sales/|1|36")
	e.expectRows(`SELECT table_id, begin_snapshot, end_snapshot, schema_id, table_name, path, path_is_relative, length(CAST(table_uuid AS VARCHAR)) FROM ducklake_table`,
		"3|1|~|2|orders|orders/|1|36")
	e.expectRows(`SELECT * FROM ducklake_column ORDER BY column_id`,
		"1|1|~|3|1|o|int32|~|NULL|0|~|literal|duckdb",
		"2|1|~|3|2|c|varchar|~|NULL|1|~|literal|duckdb",
		"3|1|~|3|3|x|float64|~|NULL|1|~|literal|duckdb")
	e.expectRows(`SELECT * FROM ducklake_schema_versions`, "1|1|3")

	m1 := e.load(s1)
	sales, _ := m1.SchemaByName("sales")
	orders, ok := m1.TableByName(sales.ID, "orders")
	if !ok {
		t.Fatal("orders not visible at s1")
	}
	if got := e.db.TableDir(sales, orders); got != e.db.DataPath()+"sales/orders/" {
		t.Errorf("TableDir = %q", got)
	}

	// S2, S3: two files. Bounds must merge by value (9 < 10 < 20 as
	// integers, 2.5 < 100.0 as floats), not as text.
	c, _ = e.begin()
	c.AddDataFile(*orders, NewDataFile{RelPath: "a.parquet", RecordCount: 3, FileSize: 1000, FooterSize: 200, Stats: []catalog.ColumnStats{
		intStats(1, "1", "9", 3, 0),
		intStats(2, "b", "d", 3, 0),
		{ColumnID: 3, ValueCount: p(int64(3)), NullCount: p(int64(0)), Min: p("1.5"), Max: p("2.5"), ContainsNaN: p(false)},
	}})
	s2 := e.commit(c)
	e.expectRows(`SELECT * FROM ducklake_data_file`, "0|3|2|~|~|a.parquet|1|parquet|3|1000|200|0|~|~|~|~")
	e.expectRows(`SELECT * FROM ducklake_file_column_stats ORDER BY column_id`,
		"0|3|1|10|3|0|1|9|~|~", "0|3|2|10|3|0|b|d|~|~", "0|3|3|~|3|0|1.5|2.5|0|~")
	e.expectRows(`SELECT * FROM ducklake_table_stats`, "3|3|3|1000")
	e.expectRows(`SELECT * FROM ducklake_table_column_stats ORDER BY column_id`,
		"3|1|0|~|1|9|~", "3|2|0|~|b|d|~", "3|3|0|0|1.5|2.5|~")

	c, _ = e.begin()
	c.AddDataFile(*orders, NewDataFile{RelPath: "b.parquet", RecordCount: 2, FileSize: 800, FooterSize: 150, Stats: []catalog.ColumnStats{
		intStats(1, "10", "20", 2, 0),
		intStats(2, "a", "c", 1, 1),
		{ColumnID: 3, ValueCount: p(int64(2)), NullCount: p(int64(0)), Min: p("0.5"), Max: p("100.0"), ContainsNaN: p(false)},
	}})
	s3 := e.commit(c)
	e.expectRows(`SELECT data_file_id, begin_snapshot, row_id_start FROM ducklake_data_file ORDER BY data_file_id`, "0|2|0", "1|3|3")
	e.expectRows(`SELECT * FROM ducklake_table_stats`, "3|5|5|1800")
	e.expectRows(`SELECT * FROM ducklake_table_column_stats ORDER BY column_id`,
		"3|1|0|~|1|20|~", "3|2|1|~|a|d|~", "3|3|0|0|0.5|100.0|~")

	// S4, S5: deletes on file a; the second delete file holds both
	// positions, each with its snapshot, begins at the first delete and
	// replaces the first one's row (scheduled for deletion), as DuckDB's. S6: every row of b deleted: the
	// file is end-dated and, as in DuckDB, next_file_id stays (no file id
	// was handed out).
	files := mustFiles(t, e, sales, orders, s3)
	c, _ = e.begin()
	c.ReplaceDeleteFile(*orders, files[0], NewDeleteFile{RelPath: "a-d1.parquet", DeleteCount: 1, FileSize: 100, FooterSize: 50})
	s4 := e.commit(c)
	files = mustFiles(t, e, sales, orders, s4)
	if files[0].Delete == nil || files[0].Delete.ID != 2 {
		t.Fatalf("file a delete at s4 = %+v", files[0].Delete)
	}
	c, _ = e.begin()
	c.ReplaceDeleteFile(*orders, files[0], NewDeleteFile{RelPath: "a-d2.parquet", DeleteCount: 2, FileSize: 120, FooterSize: 60, Stamp: s4.ID + 1, BeginSnapshot: s4.ID})
	s5 := e.commit(c)
	c, _ = e.begin()
	c.EndDataFile(*orders, files[1])
	s6 := e.commit(c)
	e.expectRows(`SELECT * FROM ducklake_delete_file ORDER BY delete_file_id`,
		"3|3|4|~|0|a-d2.parquet|1|parquet|2|120|60|~|5")
	e.expectRows(`SELECT data_file_id, path, path_is_relative FROM ducklake_files_scheduled_for_deletion`, "2|sales/orders/a-d1.parquet|1")
	e.expectRows(`SELECT data_file_id, end_snapshot FROM ducklake_data_file ORDER BY data_file_id`, "0|~", "1|6")
	e.expectRows(`SELECT * FROM ducklake_table_stats`, "3|5|5|1800") // deletes never touch stats

	// S7: ADD COLUMN k BIGINT DEFAULT 42. S8: RENAME c TO label and widen
	// o to BIGINT in one commit. S9: DROP COLUMN k. S10: ADD COLUMN z:
	// id 5, never k's 4 again. Also SET DEFAULT on x in S10.
	c, _ = e.begin()
	if id := c.AddColumn(*orders, ColumnDef{Name: "k", Type: "int64", NullsAllowed: true, InitialDefault: p("42"), DefaultValue: p("42")}); id != 4 {
		t.Errorf("AddColumn id %d", id)
	}
	s7 := e.commit(c)
	c, m := e.begin()
	o7, _ := m.TableByID(3)
	c.RenameColumn(*o7, 2, "label")
	c.SetColumnType(*o7, 1, "int64")
	s8 := e.commit(c)
	c, m = e.begin()
	o8, _ := m.TableByID(3)
	c.DropColumn(*o8, 4)
	s9 := e.commit(c)
	c, m = e.begin()
	o9, _ := m.TableByID(3)
	if id := c.AddColumn(*o9, ColumnDef{Name: "z", Type: "varchar", NullsAllowed: true}); id != 5 {
		t.Errorf("AddColumn after drop: id %d, want 5", id)
	}
	c.SetColumnDefault(*o9, 3, p("1.5"))
	s10 := e.commit(c)

	// S11: RENAME TABLE; the directory keeps the old name.
	c, m = e.begin()
	o10, _ := m.TableByID(3)
	sales10, _ := m.SchemaByID(2)
	c.RenameTable(*sales10, *o10, "orders2")
	s11 := e.commit(c)
	e.expectRows(`SELECT table_id, begin_snapshot, end_snapshot, table_name, path FROM ducklake_table ORDER BY begin_snapshot`,
		"3|1|11|orders|orders/", "3|11|~|orders2|orders/")

	// S12: a file without stats for label and with x all NULL: label's
	// bounds become unknown, x keeps its bounds, z (added after the first
	// stats row) has no row and gets none.
	c, m = e.begin()
	o11, _ := m.TableByID(3)
	c.AddDataFile(*o11, NewDataFile{RelPath: "c.parquet", RecordCount: 2, FileSize: 500, Stats: []catalog.ColumnStats{
		intStats(1, "-5", "30", 2, 0),
		{ColumnID: 3, ValueCount: p(int64(0)), NullCount: p(int64(2))},
		intStats(5, "p", "q", 2, 0),
	}})
	s12 := e.commit(c)
	e.expectRows(`SELECT data_file_id, begin_snapshot, footer_size, row_id_start FROM ducklake_data_file WHERE data_file_id = 4`, "4|12|~|5")
	e.expectRows(`SELECT * FROM ducklake_table_stats`, "3|7|7|2300")
	e.expectRows(`SELECT * FROM ducklake_table_column_stats ORDER BY column_id`,
		"3|1|0|~|-5|30|~", "3|2|~|~|~|~|~", "3|3|1|~|0.5|100.0|~")

	// S13: DROP TABLE; S14: DROP SCHEMA.
	c, m = e.begin()
	o12, _ := m.TableByID(3)
	sales12, _ := m.SchemaByID(2)
	c.DropTable(*sales12, *o12)
	s13 := e.commit(c)
	c, m = e.begin()
	sales13, _ := m.SchemaByID(2)
	c.DropSchema(*sales13)
	s14 := e.commit(c)

	e.expectRows(`SELECT * FROM ducklake_column ORDER BY column_id, begin_snapshot`,
		"1|1|8|3|1|o|int32|~|NULL|0|~|literal|duckdb",
		"1|8|13|3|1|o|int64|~|NULL|0|~|literal|duckdb",
		"2|1|8|3|2|c|varchar|~|NULL|1|~|literal|duckdb",
		"2|8|13|3|2|label|varchar|~|NULL|1|~|literal|duckdb",
		"3|1|10|3|3|x|float64|~|NULL|1|~|literal|duckdb",
		"3|10|13|3|3|x|float64|~|1.5|1|~|literal|duckdb",
		"4|7|9|3|4|k|int64|42|42|1|~|literal|duckdb",
		"5|10|13|3|5|z|varchar|~|NULL|1|~|literal|duckdb")
	e.expectRows(`SELECT data_file_id, begin_snapshot, end_snapshot FROM ducklake_data_file ORDER BY data_file_id`, "0|2|13", "1|3|6", "4|12|13")
	e.expectRows(`SELECT delete_file_id, begin_snapshot, end_snapshot FROM ducklake_delete_file ORDER BY delete_file_id`, "3|4|13")
	e.expectRows(`SELECT schema_id, begin_snapshot, end_snapshot FROM ducklake_schema ORDER BY schema_id`, "0|0|~", "1|0|~", "2|1|14")
	e.expectRows(`SELECT table_id, end_snapshot FROM ducklake_table ORDER BY begin_snapshot`, "3|11", "3|13")
	e.expectRows(`SELECT * FROM ducklake_schema_versions ORDER BY begin_snapshot`,
		"1|1|3", "7|2|3", "8|3|3", "9|4|3", "10|5|3", "11|6|3")
	e.expectRows(`SELECT s.snapshot_id, schema_version, next_catalog_id, next_file_id, changes_made FROM ducklake_snapshot s JOIN ducklake_snapshot_changes USING (snapshot_id) ORDER BY 1`,
		`0|0|2|0|created_schema:"main",created_schema:"public"`,
		`1|1|4|0|created_schema:"sales",created_table:"sales"."orders"`,
		"2|1|4|1|inserted_into_table:3",
		"3|1|4|2|inserted_into_table:3",
		"4|1|4|3|deleted_from_table:3",
		"5|1|4|4|deleted_from_table:3",
		"6|1|4|4|deleted_from_table:3",
		"7|2|4|4|altered_table:3",
		"8|3|4|4|altered_table:3",
		"9|4|4|4|altered_table:3",
		"10|5|4|4|altered_table:3",
		`11|6|4|4|created_table:"sales"."orders2"`,
		"12|6|4|5|inserted_into_table:3",
		"13|7|4|5|dropped_table:3",
		"14|8|4|5|dropped_schema:2")

	// Time travel: the schema as each snapshot saw it.
	for _, w := range []struct {
		snap    catalog.Snapshot
		schemas string
		tables  string
	}{
		{e.at(0), "main public", ""},
		{s1, "main public sales", "orders:o int32,c varchar,x float64"},
		{s6, "main public sales", "orders:o int32,c varchar,x float64"},
		{s7, "main public sales", "orders:o int32,c varchar,x float64,k int64"},
		{s8, "main public sales", "orders:o int64,label varchar,x float64,k int64"},
		{s9, "main public sales", "orders:o int64,label varchar,x float64"},
		{s10, "main public sales", "orders:o int64,label varchar,x float64,z varchar"},
		{s11, "main public sales", "orders2:o int64,label varchar,x float64,z varchar"},
		{s12, "main public sales", "orders2:o int64,label varchar,x float64,z varchar"},
		{s13, "main public sales", ""},
		{s14, "main public", ""},
	} {
		m := e.load(w.snap)
		var sn, tn []string
		for _, s := range m.Schemas {
			sn = append(sn, s.Name)
		}
		for _, tb := range m.Tables {
			var cs []string
			for _, col := range tb.Columns {
				cs = append(cs, col.Name+" "+col.Type)
			}
			tn = append(tn, tb.Name+":"+strings.Join(cs, ","))
		}
		if strings.Join(sn, " ") != w.schemas || strings.Join(tn, " ") != w.tables {
			t.Errorf("snapshot %d: schemas %v tables %v", w.snap.ID, sn, tn)
		}
	}
	m10 := e.load(s10)
	x, _ := m10.Tables[0].ColumnByName("x")
	if x.DefaultValue == nil || *x.DefaultValue != "1.5" {
		t.Errorf("x default at s10 = %v", x.DefaultValue)
	}

	// Files at each snapshot, with the delete file visible there.
	for _, w := range []struct {
		snap catalog.Snapshot
		want string
	}{
		{s2, "0"},
		{s3, "0 1"},
		{s4, "0d3 1"}, // the row of d2 is gone; d3's snapshot column filters
		{s5, "0d3 1"},
		{s6, "0d3"},
		{s12, "0d3 4"},
		{s13, ""},
	} {
		var desc []string
		for _, f := range mustFiles(t, e, sales, orders, w.snap) {
			s := itoa(f.ID)
			if f.Delete != nil {
				s += "d" + itoa(f.Delete.ID)
			}
			desc = append(desc, s)
		}
		if strings.Join(desc, " ") != w.want {
			t.Errorf("files at %d = %v, want %s", w.snap.ID, desc, w.want)
		}
	}
	f5 := mustFiles(t, e, sales, orders, s5)[0]
	if f5.Path != e.db.DataPath()+"sales/orders/a.parquet" || f5.Delete.Path != e.db.DataPath()+"sales/orders/a-d2.parquet" || f5.Delete.DeleteCount != 2 {
		t.Errorf("file at s5 = %+v delete %+v", f5, f5.Delete)
	}
	if f5.Stats.Of(1).Min == nil || *f5.Stats.Of(1).Min != "1" {
		t.Errorf("file stats = %+v", f5.Stats)
	}

	// Reopen keeps everything.
	e.db.Close()
	e.db = e.open()
	h := e.head()
	if h.ID != 14 || h.Changes != "dropped_schema:2" || !h.Time.Equal(s14.Time) {
		t.Errorf("head after reopen = %+v (s14 %+v)", h, s14)
	}
	m = e.load(e.at(12))
	if len(m.Tables) != 1 || m.Tables[0].Name != "orders2" {
		t.Errorf("s12 after reopen: %+v", m.Tables)
	}
}

func mustFiles(t *testing.T, e *env, s *catalog.Schema, tb *catalog.Table, snap catalog.Snapshot) []catalog.DataFile {
	t.Helper()
	files, err := e.db.Files(e.ctx, s, tb, snap)
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }
