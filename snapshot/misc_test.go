package snapshot

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/lakepg/lakepg/catalog"
)

func TestPathsForOddNames(t *testing.T) { eachBackend(t, testPathsForOddNames) }

func testPathsForOddNames(t *testing.T, be backend) {
	e := newEnv(t, be)
	c, _ := e.begin()
	sid := c.CreateSchema("Weird Schema")
	c.CreateTable(catalog.Schema{ID: sid, Name: "Weird Schema"}, `t"1`, []ColumnDef{{Name: "v", Type: "int32", NullsAllowed: true}})
	c.CreateTable(catalog.Schema{ID: sid, Name: "Weird Schema"}, "Plain-name_2", []ColumnDef{{Name: "v", Type: "int32", NullsAllowed: true}})
	s := e.commit(c)
	if s.Changes != `created_schema:"Weird Schema",created_table:"Weird Schema"."t""1",created_table:"Weird Schema"."Plain-name_2"` {
		t.Errorf("changes %s", s.Changes)
	}
	e.expectRows(`SELECT path = schema_uuid || '/' FROM ducklake_schema WHERE schema_id = 2`, "1")
	e.expectRows(`SELECT table_name, path = table_uuid || '/', path FROM ducklake_table ORDER BY table_id`,
		`t"1|1|`+e.rows(`SELECT path FROM ducklake_table WHERE table_id = 3`)[0], "Plain-name_2|0|Plain-name_2/")
	// The changes parse back to the same names.
	cs := newChangeSet()
	if err := cs.parse(s.Changes); err != nil {
		t.Fatal(err)
	}
	if !cs.createdSchemas["weird schema"] || !cs.created("Weird Schema", `t"1`) || !cs.created("weird schema", "plain-name_2") {
		t.Errorf("parsed %+v", cs)
	}
}

func TestUpdateIsDeletePlusInsert(t *testing.T) { eachBackend(t, testUpdateIsDeletePlusInsert) }

func testUpdateIsDeletePlusInsert(t *testing.T, be backend) {
	e := newEnv(t, be)
	m := twoTables(t, e)
	a, _ := m.TableByName(0, "a")
	mainS, _ := m.SchemaByName("main")
	c := Begin(e.db, m.Snapshot, m)
	c.AddDataFile(*a, file("a1.parquet", 3))
	e.commit(c)
	m = e.load(e.head())
	files := mustFiles(t, e, mainS, a, m.Snapshot)
	c = Begin(e.db, m.Snapshot, m)
	c.ReplaceDeleteFile(*a, files[0], NewDeleteFile{RelPath: "a1-del.parquet", DeleteCount: 1, FileSize: 40, FooterSize: 20})
	f := file("a2.parquet", 1)
	f.EmbeddedRowIDs = true
	c.AddDataFile(*a, f)
	s := e.commit(c)
	if s.Changes != "inserted_into_table:2,deleted_from_table:2" || s.NextFileID != 3 {
		t.Errorf("update snapshot %+v", s)
	}
	// UPDATE still advances next_row_id and record_count.
	e.expectRows(`SELECT * FROM ducklake_table_stats WHERE table_id = 2`, "2|4|4|400")
	e.expectRows(`SELECT data_file_id, row_id_start FROM ducklake_data_file ORDER BY 1`, "0|0", "1|3")
	e.expectRows(`SELECT delete_file_id, data_file_id, begin_snapshot FROM ducklake_delete_file`, "2|0|3")
}

func TestEmptyAndDoubleCommit(t *testing.T) { eachBackend(t, testEmptyAndDoubleCommit) }

func testEmptyAndDoubleCommit(t *testing.T, be backend) {
	e := newEnv(t, be)
	c, _ := e.begin()
	if !c.Empty() {
		t.Fatal("new commit not empty")
	}
	s, err := c.Commit(e.ctx)
	if err != nil || s.ID != 0 {
		t.Errorf("empty commit = %+v, %v", s, err)
	}
	if h := e.head(); h.ID != 0 {
		t.Errorf("empty commit wrote snapshot %d", h.ID)
	}
	c, _ = e.begin()
	c.CreateSchema("x")
	e.commit(c)
	if _, err := c.Commit(e.ctx); err == nil {
		t.Error("second Commit succeeded")
	}
	// Create and drop in one commit: nothing is written but the snapshot.
	c, _ = e.begin()
	id := c.CreateSchema("y")
	c.DropSchema(catalog.Schema{ID: id, Name: "y"})
	s = e.commit(c)
	if s.Changes != "" || s.SchemaVersion != 1 {
		t.Errorf("create+drop = %+v", s)
	}
	e.expectRows(`SELECT COUNT(*) FROM ducklake_schema WHERE schema_name = 'y'`, "0")
	e.expectRows(`SELECT changes_made IS NULL FROM ducklake_snapshot_changes WHERE snapshot_id = 2`, "1")
}

// TestNestedDropAndInlinedTables: dropping a struct column end-dates its
// children; a structural ALTER of a table DuckDB has inlined rows for
// registers a new inlined-data table with the new layout.
func TestNestedDropAndInlinedTables(t *testing.T) { eachBackend(t, testNestedDropAndInlinedTables) }

func testNestedDropAndInlinedTables(t *testing.T, be backend) {
	e := newEnv(t, be)
	c, m := e.begin()
	mainS, _ := m.SchemaByName("main")
	tid := c.CreateTable(*mainS, "n", []ColumnDef{
		{Name: "id", Type: "int32", NullsAllowed: true},
		{Name: "pt", Type: "struct", NullsAllowed: true},
		{Name: "f", Type: "float64", NullsAllowed: true},
	})
	e.commit(c)
	// What DuckDB would have written: the struct's children and an
	// inlined-data table at schema version 1, with the column types its
	// metadata manager for the backend declares.
	inlined1 := `CREATE TABLE ducklake_inlined_data_2_1(row_id BIGINT, begin_snapshot BIGINT, end_snapshot BIGINT, id BIGINT, pt VARCHAR, f VARCHAR)`
	if e.pg() {
		inlined1 = `CREATE TABLE ducklake_inlined_data_2_1(row_id BIGINT, begin_snapshot BIGINT, end_snapshot BIGINT, id INTEGER, pt VARCHAR, f DOUBLE PRECISION)`
	}
	for _, q := range []string{
		`INSERT INTO ducklake_column VALUES (4, 1, NULL, 2, 4, 'x', 'float64', NULL, 'NULL', TRUE, 2, 'literal', 'duckdb')`,
		`INSERT INTO ducklake_column VALUES (5, 1, NULL, 2, 5, 'y', 'float64', NULL, 'NULL', TRUE, 2, 'literal', 'duckdb')`,
		inlined1,
		`INSERT INTO ducklake_inlined_data_tables VALUES (2, 'ducklake_inlined_data_2_1', 1)`,
	} {
		e.exec(q)
	}
	c, m = e.begin()
	n, _ := m.TableByID(tid)
	c.DropColumn(*n, 2)
	c.AddColumn(*n, ColumnDef{Name: "flag", Type: "boolean", NullsAllowed: true})
	c.AddColumn(*n, ColumnDef{Name: "b", Type: "blob", NullsAllowed: true})
	s := e.commit(c)
	e.expectRows(`SELECT column_id, end_snapshot FROM ducklake_column ORDER BY column_id`,
		"1|~", "2|2", "3|~", "4|2", "5|2", "6|~", "7|~")
	e.expectRows(`SELECT * FROM ducklake_inlined_data_tables ORDER BY schema_version`,
		"2|ducklake_inlined_data_2_1|1", "2|ducklake_inlined_data_2_2|2")
	if e.pg() {
		e.expectRows(`SELECT attname, format_type(atttypid, atttypmod) FROM pg_catalog.pg_attribute
WHERE attrelid = 'ducklake_inlined_data_2_2'::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum`,
			"row_id|bigint", "begin_snapshot|bigint", "end_snapshot|bigint", "id|integer", "f|double precision", "flag|boolean", "b|bytea")
	} else {
		e.expectRows(`SELECT name, type FROM pragma_table_info('ducklake_inlined_data_2_2') ORDER BY cid`,
			"row_id|BIGINT", "begin_snapshot|BIGINT", "end_snapshot|BIGINT", "id|BIGINT", "f|VARCHAR", "flag|BIGINT", "b|BLOB")
	}
	if s.SchemaVersion != 2 {
		t.Errorf("schema version %d", s.SchemaVersion)
	}
	// SET DEFAULT is not structural: no new inlined table (DuckDB's rule).
	c, m = e.begin()
	n, _ = m.TableByID(tid)
	c.SetColumnDefault(*n, 1, p("7"))
	e.commit(c)
	e.expectRows(`SELECT COUNT(*) FROM ducklake_inlined_data_tables`, "2")
	e.expectRows(`SELECT * FROM ducklake_schema_versions ORDER BY begin_snapshot`, "1|1|2", "2|2|2", "3|3|2")
}

func TestAlterConflictsWithConcurrentDrop(t *testing.T) {
	eachBackend(t, testAlterConflictsWithConcurrentDrop)
}

func testAlterConflictsWithConcurrentDrop(t *testing.T, be backend) {
	e := newEnv(t, be)
	m := twoTables(t, e)
	a, _ := m.TableByName(0, "a")
	// The column changed under us: another writer dropped it. DuckDB would
	// say "altered"; the row check catches it even without the token.
	e.exec(`UPDATE ducklake_column SET end_snapshot = 1 WHERE table_id = 2`)
	c := Begin(e.db, m.Snapshot, m)
	c.RenameColumn(*a, 1, "w")
	if _, err := c.Commit(e.ctx); !errors.Is(err, ErrConflict) {
		t.Errorf("rename of a vanished column: %v", err)
	}
}

func TestDropSchemaChecks(t *testing.T) { eachBackend(t, testDropSchemaChecks) }

func testDropSchemaChecks(t *testing.T, be backend) {
	e := newEnv(t, be)
	m := twoTables(t, e)
	mainS, _ := m.SchemaByName("main")
	// Dropping a schema that still holds tables the statement saw is the
	// caller's error, not a conflict.
	c := Begin(e.db, m.Snapshot, m)
	c.DropSchema(*mainS)
	if _, err := c.Commit(e.ctx); err == nil || errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), "still contains") {
		t.Errorf("drop of a non-empty schema: %v", err)
	}
	// Dropping a schema someone else filled meanwhile is a conflict.
	c, _ = e.begin()
	sid := c.CreateSchema("s")
	e.commit(c)
	m = e.load(e.head())
	s, _ := m.SchemaByID(sid)
	drop := Begin(e.db, m.Snapshot, m)
	drop.DropSchema(*s)
	c = Begin(e.db, m.Snapshot, m)
	c.CreateTable(*s, "t", []ColumnDef{{Name: "v", Type: "int32", NullsAllowed: true}})
	e.commit(c)
	if _, err := drop.Commit(e.ctx); !errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), "created an entry") {
		t.Errorf("drop of a schema filled concurrently: %v", err)
	}
}

func TestParseChanges(t *testing.T) {
	cs := newChangeSet()
	in := `created_schema:"a,b",created_table:"a,b"."x""y",created_table:"t",dropped_table:7,inserted_into_table:8,` +
		`inlined_insert:9,deleted_from_table:10,inlined_delete:11,altered_table:12,inline_flush:13,merge_adjacent:14,` +
		`rewrite_delete:15,dropped_schema:16,created_view:"s"."v",created_scalar_macro:"s"."m",future_change:99`
	if err := cs.parse(in); err != nil {
		t.Fatal(err)
	}
	if !cs.createdSchemas["a,b"] || !cs.created("A,B", `x"y`) || !cs.created("main", "t") || !cs.created("s", "v") || !cs.created("s", "m") {
		t.Errorf("names: %+v %+v", cs.createdSchemas, cs.createdEntries)
	}
	for set, id := range map[*idSet]int64{&cs.droppedTables: 7, &cs.inserted: 8, &cs.insertedInline: 9, &cs.deleted: 10,
		&cs.deletedInline: 11, &cs.altered: 12, &cs.flushed: 13, &cs.droppedSchemas: 16} {
		if !(*set)[id] {
			t.Errorf("id %d missing", id)
		}
	}
	if !cs.compacted[14] || !cs.compacted[15] {
		t.Error("compactions missing")
	}
	for _, bad := range []string{`created_schema:"x`, `dropped_table:x`, `nocolon`} {
		if err := newChangeSet().parse(bad); err == nil {
			t.Errorf("parsed %q", bad)
		}
	}
}

func TestRetryable(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{errors.New(`UNIQUE constraint failed: ducklake_snapshot.snapshot_id`), true},
		{errors.New(`ERROR: duplicate key value violates unique constraint "ducklake_snapshot_pkey"`), true},
		{errors.New("database is locked (5) (SQLITE_BUSY)"), true},
		{conflictf("x"), false},
		{errors.New("no such table"), false},
		{nil, false},
	} {
		if got := retryable(c.err); got != c.want {
			t.Errorf("retryable(%v) = %v", c.err, got)
		}
	}
	old := retryWait
	retryWait = 100 * time.Millisecond
	defer func() { retryWait = old }()
	for n, max := range []time.Duration{100, 150, 225, 337} {
		for i := 0; i < 50; i++ {
			d := backoff(n)
			if d < max*time.Millisecond/2 || d > max*time.Millisecond+time.Millisecond {
				t.Fatalf("backoff(%d) = %v", n, d)
			}
		}
	}
}

func TestStatsMerge(t *testing.T) {
	for _, c := range []struct {
		typ, a, b string
		want      int
		ok        bool
	}{
		{"int32", "9", "10", -1, true},
		{"int64", "-5", "-10", 1, true},
		{"uint64", "18446744073709551615", "1", 1, true},
		{"decimal(18,3)", "2.500", "10.000", -1, true},
		{"decimal(38,10)", "-0.1", "-0.01", -1, true},
		{"float64", "2.5", "100.0", -1, true},
		{"float32", "-inf", "-1e30", -1, true},
		{"float64", "inf", "1e308", 1, true},
		{"float64", "nan", "1", 0, false},
		{"boolean", "0", "1", -1, true},
		{"date", "2024-01-09", "2024-01-10", -1, true},
		{"date", "infinity", "9999-12-31", 1, true},
		{"timestamp", "2020-01-01 00:00:00", "2020-01-01 00:00:00.5", -1, true},
		{"timestamptz", "2021-03-14 01:59:59+00", "2021-03-14 02:23:59+01", 1, true},
		{"time", "9:00:00", "10:00:00", -1, true},
		{"varchar", "b", "ab", 1, true},
		{"blob", "00FF30", "00FF39", -1, true},
		{"interval", "1 day", "2 days", 0, false},
		{"int32", "x", "1", 0, false},
	} {
		got, ok := compareStats(c.a, c.b, c.typ)
		if ok != c.ok || (ok && sign(got) != c.want) {
			t.Errorf("compare %s %q %q = %d %v", c.typ, c.a, c.b, got, ok)
		}
	}

	f := func(min, max string, vals, nulls int64, nan *bool) colAcc {
		return fileAcc(catalog.ColumnStats{ValueCount: &vals, NullCount: &nulls, Min: &min, Max: &max, ContainsNaN: nan})
	}
	acc := mergeAcc(f("2", "9", 3, 0, nil), f("10", "11", 1, 1, nil), "int32")
	if *acc.min != "2" || *acc.max != "11" || !*acc.containsNull || acc.containsNaN != nil {
		t.Errorf("merge = %+v", acc)
	}
	// An all-NULL file keeps the bounds; an unknown one drops them.
	allNull := fileAcc(catalog.ColumnStats{ValueCount: p(int64(0)), NullCount: p(int64(4))})
	acc = mergeAcc(f("2", "9", 3, 0, p(false)), allNull, "int32")
	if acc.min == nil || *acc.min != "2" || !*acc.containsNull || acc.containsNaN != nil {
		t.Errorf("merge with all-NULL = %+v", acc)
	}
	acc = mergeAcc(allNull, f("5", "6", 2, 0, nil), "int32")
	if acc.min == nil || *acc.min != "5" || *acc.max != "6" {
		t.Errorf("all-NULL then values = %+v", acc)
	}
	acc = mergeAcc(f("2", "9", 3, 0, p(false)), colAcc{}, "int32")
	if acc.min != nil || acc.max != nil || acc.containsNull != nil {
		t.Errorf("merge with unknown = %+v", acc)
	}
	acc = mergeAcc(f("1.5", "2.5", 2, 0, p(false)), f("0.5", "3", 2, 0, p(true)), "float64")
	if *acc.min != "0.5" || *acc.max != "3" || !*acc.containsNaN {
		t.Errorf("float merge = %+v", acc)
	}
	// A stored table row with NULL bounds is unknown, not empty.
	acc = mergeAcc(tableAcc(catalog.TableColumnStats{ContainsNull: p(true)}), f("1", "2", 2, 0, nil), "int32")
	if acc.min != nil || acc.max != nil {
		t.Errorf("unknown table bounds = %+v", acc)
	}
}

func sign(v int) int {
	switch {
	case v < 0:
		return -1
	case v > 0:
		return 1
	}
	return 0
}

func TestAddedColumnIDsStable(t *testing.T) { eachBackend(t, testAddedColumnIDsStable) }

func testAddedColumnIDsStable(t *testing.T, be backend) {
	e := newEnv(t, be)
	m := twoTables(t, e)
	a, _ := m.TableByName(0, "a")
	c := Begin(e.db, m.Snapshot, m)
	x := c.AddColumn(*a, ColumnDef{Name: "x", Type: "int32", NullsAllowed: true})
	y := c.AddColumn(*a, ColumnDef{Name: "y", Type: "int32", NullsAllowed: true})
	c.DropColumn(*a, x)
	c.RenameColumn(*a, y, "yy")
	z := c.AddColumn(*a, ColumnDef{Name: "z", Type: "int32", NullsAllowed: true})
	if x != 2 || y != 3 || z != 4 {
		t.Errorf("ids %d %d %d", x, y, z)
	}
	// Someone else added a column to b meanwhile: a's ids are unaffected.
	other := Begin(e.db, m.Snapshot, m)
	b, _ := m.TableByName(0, "b")
	other.AddColumn(*b, ColumnDef{Name: "q", Type: "int32", NullsAllowed: true})
	e.commit(other)
	e.commit(c)
	e.expectRows(`SELECT column_id, column_name FROM ducklake_column WHERE table_id = 2 ORDER BY column_id`, "1|v", "3|yy", "4|z")
}
