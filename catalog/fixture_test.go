package catalog

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/lakepg/lakepg/catalog/catalogtest"
)

// loadFixture builds a SQLite catalog holding the rows DuckDB 1.5.5 wrote
// (the pg_dump fixture), stored the way DuckDB's sqlite extension would
// store them: booleans as 0/1, timestamps and uuids as text.
func loadFixture(t *testing.T) *DB {
	t.Helper()
	ddl := fixtureDDL(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "duckdb.sqlite")
	raw, err := sql.Open("sqlite", file)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	fixed := map[string]bool{}
	for _, tbl := range ducklakeTables {
		fixed[tbl.name] = true
		if _, err := raw.Exec(sqliteDialect.createTableSQL(tbl)); err != nil {
			t.Fatal(err)
		}
	}
	f, err := os.Open(fixtureDump)
	if err != nil {
		t.Fatalf("DuckDB's fixture catalog is missing: %v", err)
	}
	defer f.Close()
	copyRe := regexp.MustCompile(`^COPY public\.(\w+) \((.*)\) FROM stdin;$`)
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var table string
	var cols []string
	for sc.Scan() {
		line := sc.Text()
		if m := copyRe.FindStringSubmatch(line); m != nil {
			table, cols = m[1], strings.Split(m[2], ", ")
			if !fixed[table] {
				table = ""
			}
			continue
		}
		if table == "" {
			continue
		}
		if line == `\.` {
			table = ""
			continue
		}
		types := map[string]string{}
		for _, c := range ddl[table] {
			types[c[0]] = c[1]
		}
		fields := strings.Split(line, "\t")
		args := make([]any, len(fields))
		for i, fv := range fields {
			switch {
			case fv == `\N`:
				args[i] = nil
			case types[cols[i]] == "boolean":
				args[i] = map[string]int64{"t": 1, "f": 0}[fv]
			default:
				args[i] = strings.NewReplacer(`\\`, `\`, `\t`, "\t", `\n`, "\n").Replace(fv)
			}
		}
		q := "INSERT INTO " + table + " (" + quoteCols(cols) + ") VALUES (" + strings.TrimSuffix(strings.Repeat("?, ", len(cols)), ", ") + ")"
		if _, err := raw.Exec(q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	raw.Close()
	db, err := Open(context.Background(), "sqlite:"+file, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func quoteCols(cols []string) string {
	q := make([]string, len(cols))
	for i, c := range cols {
		q[i] = quoteIdent(c)
	}
	return strings.Join(q, ", ")
}

// loadFixturePostgres restores the pg_dump of DuckDB's catalog into a new
// database with psql, points its data_path at the fixture's data/ folder,
// and opens it: the real PostgreSQL catalog DuckDB wrote.
func loadFixturePostgres(t *testing.T) (*DB, string) {
	t.Helper()
	dsn := catalogtest.NewDatabase(t, pgAdmin(t))
	catalogtest.Psql(t, dsn, fixtureDump)
	data := filepath.ToSlash(filepath.Join(filepath.Dir(fixtureDump), "data")) + "/"
	raw, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.Exec(`UPDATE ducklake_metadata SET value = $1 WHERE key = 'data_path'`, data); err != nil {
		t.Fatal(err)
	}
	db, err := Open(context.Background(), dsn, data)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, data
}

// TestReadDuckDBCatalog reads the catalog DuckDB 1.5.5 wrote: as the
// PostgreSQL database DuckDB wrote it in, and converted to SQLite the way
// DuckDB's sqlite extension stores the same rows.
func TestReadDuckDBCatalog(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) { checkDuckDBCatalog(t, loadFixture(t), "/fixture/data/") })
	t.Run("postgres", func(t *testing.T) {
		db, data := loadFixturePostgres(t)
		checkDuckDBCatalog(t, db, data)
	})
}

// checkDuckDBCatalog checks what lakepg reads from the fixture catalog whose
// data_path is root. When root exists on disk, every file path resolved
// must name a file DuckDB wrote, of the size the catalog records.
func checkDuckDBCatalog(t *testing.T, db *DB, root string) {
	ctx := context.Background()
	if db.DataPath() != root {
		t.Errorf("data path %q", db.DataPath())
	}
	_, statErr := os.Stat(root)
	checkFile := func(path string, size int64) {
		t.Helper()
		if statErr != nil {
			return
		}
		fi, err := os.Stat(path)
		if err != nil || fi.Size() != size {
			t.Errorf("file %s: %v (size %v, catalog says %d)", path, err, fi, size)
		}
	}
	head, err := db.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if head.ID != 33 || head.SchemaVersion != 15 || head.NextCatalogID != 10 || head.NextFileID != 30 || head.Changes != "inlined_insert:1" {
		t.Errorf("head = %+v", head)
	}
	if want := time.Date(2026, 11, 30, 9, 39, 43, 337108000, time.UTC); !head.Time.Equal(want) {
		t.Errorf("head time %v", head.Time)
	}
	snaps, err := db.Snapshots(ctx)
	if err != nil || len(snaps) != 34 || snaps[28].Changes != `created_table:"sales"."orders"` {
		t.Fatalf("snapshots: %d, %v", len(snaps), err)
	}

	// Time travel by timestamp: between snapshots 1 (…41.367608) and 2
	// (…41.408032) the answer is 1.
	s, err := db.SnapshotAsOf(ctx, time.Date(2026, 11, 30, 9, 39, 41, 400000000, time.UTC))
	if err != nil || s.ID != 1 {
		t.Errorf("as of 41.4: %d %v", s.ID, err)
	}
	s, err = db.SnapshotAsOf(ctx, time.Date(2026, 11, 30, 10, 39, 41, 408032000, time.FixedZone("+1", 3600)))
	if err != nil || s.ID != 2 {
		t.Errorf("as of exactly snapshot 2 in +01: %d %v", s.ID, err)
	}
	if _, err := db.SnapshotAsOf(ctx, time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)); !errors.Is(err, ErrSnapshotNotFound) {
		t.Errorf("before the first snapshot: %v", err)
	}

	type want struct {
		snap    int64
		schemas string
		tables  string // name:col,col ... per table
	}
	for _, w := range []want{
		{0, "main", ""},
		{1, "main", "r:id int32,s varchar,x float64,d date"},
		{6, "main", "r:id int32,s varchar,x float64,d date,k int64"},
		{7, "main", "r:id int32,label varchar,x float64,d date,k int64"},
		{9, "main", "r:id int64,label varchar,x float64,d date,k int64"},
		{10, "main", "r:id int64,label varchar,x float64,k int64"},
		{25, "main sales", "r:id int64,label varchar,x float64,k int64 big:id int64,grp varchar,amount decimal(18,4),ts timestamp events:ts timestamp,region varchar,v int32 types:b boolean,i8 int8,i16 int16,i32 int32,i64 int64,f32 float32,f64 float64,d9 decimal(9,2),d18 decimal(18,6),d38 decimal(38,10),dt date,tm time,tsp timestamp,tstz timestamptz,iv interval,s varchar,bl blob,u uuid,j json nested:id int32,tags list,pt struct,attrs map"},
		{27, "main sales", "r big events types nested orders_old:o int32,c varchar"},
		{29, "main sales", "r big events types nested orders:o int32,c varchar scratch:a int32"},
		{31, "main sales", "r big events types nested orders:o int32,c varchar"},
	} {
		snap, err := db.SnapshotByID(ctx, w.snap)
		if err != nil {
			t.Fatal(err)
		}
		m, err := db.Load(ctx, snap)
		if err != nil {
			t.Fatalf("load %d: %v", w.snap, err)
		}
		var sn []string
		for _, s := range m.Schemas {
			sn = append(sn, s.Name)
		}
		if strings.Join(sn, " ") != w.schemas {
			t.Errorf("snapshot %d schemas %v", w.snap, sn)
		}
		var tn []string
		full := strings.Contains(w.tables, ":")
		for _, tb := range m.Tables {
			desc := tb.Name
			if full && strings.Contains(w.tables, tb.Name+":") {
				var cs []string
				for _, c := range tb.Columns {
					cs = append(cs, c.Name+" "+c.Type)
				}
				desc += ":" + strings.Join(cs, ",")
			}
			tn = append(tn, desc)
		}
		if strings.Join(tn, " ") != w.tables {
			t.Errorf("snapshot %d tables\n got %s\nwant %s", w.snap, strings.Join(tn, " "), w.tables)
		}
	}

	m, err := db.Load(ctx, head)
	if err != nil {
		t.Fatal(err)
	}
	main, _ := m.SchemaByName("main")
	sales, _ := m.SchemaByName("sales")
	r, _ := m.TableByName(main.ID, "r")
	k, ok := r.ColumnByName("k")
	if !ok || k.ID != 5 || k.InitialDefault == nil || *k.InitialDefault != "42" || k.DefaultValue == nil || *k.DefaultValue != "42" || !k.NullsAllowed {
		t.Errorf("column k = %+v", k)
	}
	if x, _ := r.ColumnByName("x"); x.DefaultValue != nil || x.DefaultValueType != "literal" {
		t.Errorf("column x = %+v", x)
	}
	orders, ok := m.TableByName(sales.ID, "orders")
	if !ok || orders.Path != "orders_old/" || orders.BeginSnapshot != 28 {
		t.Fatalf("orders = %+v", orders)
	}
	if got := db.TableDir(sales, orders); got != root+"sales/orders_old/" {
		t.Errorf("TableDir = %q", got)
	}

	// main.big: a delete file per data file from snapshot 15; the second
	// delete rewrote file 6's delete file (DuckDB's way: DELETE + partial_max).
	big, _ := m.TableByName(main.ID, "big")
	for _, c := range []struct {
		snap    int64
		files   string
		deletes string
	}{
		{12, "", ""},
		{13, "5", "-"},
		{14, "5 6", "- -"},
		{15, "5 6", "8 9"},
		{33, "5 6", "8 9"},
	} {
		snap, _ := db.SnapshotByID(ctx, c.snap)
		files, err := db.Files(ctx, main, big, snap)
		if err != nil {
			t.Fatal(err)
		}
		var ids, dels []string
		for _, f := range files {
			ids = append(ids, itoa(f.ID))
			if f.Delete == nil {
				dels = append(dels, "-")
			} else {
				dels = append(dels, itoa(f.Delete.ID))
			}
		}
		if strings.Join(ids, " ") != c.files || strings.Join(dels, " ") != c.deletes {
			t.Errorf("big at %d: files %v deletes %v", c.snap, ids, dels)
		}
	}
	snap15, _ := db.SnapshotByID(ctx, 15)
	files, _ := db.Files(ctx, main, big, snap15)
	f6 := files[1]
	if f6.Path != root+"main/big/ducklake-01a22bd3-0f29-7803-9fe0-d19eac7ac63d.parquet" ||
		f6.RecordCount != 60000 || f6.FileSize != 907169 || *f6.FooterSize != 489 || f6.RowIDStart != 40000 || f6.BeginSnapshot != 14 {
		t.Errorf("file 6 = %+v", f6)
	}
	d := f6.Delete
	checkFile(f6.Path, f6.FileSize)
	if d.Path != root+"main/big/ducklake-01a22bd3-0f8b-752e-b57e-af8e699d7a6c-delete.parquet" || d.DeleteCount != 1096 ||
		d.FileSize != 5733 || *d.FooterSize != 738 || d.PartialMax == nil || *d.PartialMax != 16 || d.BeginSnapshot != 15 {
		t.Errorf("delete file 9 = %+v", d)
	}
	checkFile(d.Path, d.FileSize)
	st := f6.Stats.Of(3)
	if st.Min == nil || *st.Min != "5714.2857" || *st.Max != "14285.5714" || *st.ValueCount != 60000 || *st.NullCount != 0 || st.ContainsNaN != nil {
		t.Errorf("file 6 stats of column 3 = %+v", st)
	}

	// main.r at the head: the flushed files carry partial_max.
	files, err = db.Files(ctx, main, r, head)
	if err != nil {
		t.Fatal(err)
	}
	var desc []string
	for _, f := range files {
		s := itoa(f.ID)
		if f.PartialMax != nil {
			s += "p" + itoa(*f.PartialMax)
		}
		if f.Delete != nil {
			s += "d" + itoa(f.Delete.ID)
		}
		desc = append(desc, s)
	}
	if strings.Join(desc, " ") != "1d27 2 4 24p2d28 25p8" {
		t.Errorf("r files = %v", desc)
	}
	for _, f := range files {
		checkFile(f.Path, f.FileSize)
		if f.Delete != nil {
			checkFile(f.Delete.Path, f.Delete.FileSize)
		}
	}
	if files[3].Stats.Of(4).NullCount == nil || *files[3].Stats.Of(4).NullCount != 1 || *files[3].Stats.Of(3).ContainsNaN != false {
		t.Errorf("file 24 stats %+v", files[3].Stats)
	}

	ts, ok, err := db.TableStats(ctx, big.ID)
	if err != nil || !ok || ts != (TableStats{RecordCount: 100000, NextRowID: 100000, FileSizeBytes: 1513001}) {
		t.Errorf("big stats = %+v %v %v", ts, ok, err)
	}
	if _, ok, _ := db.TableStats(ctx, 12345); ok {
		t.Error("stats for a missing table")
	}
	cs, err := db.TableColumnStats(ctx, 6)
	if err != nil || *cs[5].ContainsNaN != false || *cs[5].Min != "0.0" || *cs[1].ContainsNull != false || cs[1].ContainsNaN != nil {
		t.Errorf("nested column stats = %+v %v", cs, err)
	}
}
