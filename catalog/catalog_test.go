package catalog

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// fixtureDump is the pg_dump of the catalog DuckDB 1.5.5 wrote (shared/ beside
// the repository; LAKEPG_FIXTURES overrides the fixture directory).
var fixtureDump = func() string {
	if d := os.Getenv("LAKEPG_FIXTURES"); d != "" {
		return filepath.Join(d, "catalog.sql")
	}
	wd, _ := os.Getwd()
	for d := wd; filepath.Dir(d) != d; d = filepath.Dir(d) {
		cand := filepath.Join(d, "shared", "fixtures", "ducklake-from-duckdb", "catalog.sql")
		if _, err := os.Stat(cand); err == nil {
			return cand
		}
	}
	return "/work/shared/fixtures/ducklake-from-duckdb/catalog.sql"
}()

func openNew(t *testing.T) (*DB, string, string) {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, "cat.sqlite")
	data := filepath.Join(dir, "data")
	db, err := Open(context.Background(), "sqlite:"+file, data)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, file, data
}

// fixtureDDL parses the CREATE TABLE statements of the pg_dump DuckDB's
// catalog was saved with: table -> ordered (column, pg type).
func fixtureDDL(t *testing.T) map[string][][2]string {
	t.Helper()
	f, err := os.Open(fixtureDump)
	if err != nil {
		t.Fatalf("DuckDB's fixture catalog is missing: %v", err)
	}
	defer f.Close()
	out := map[string][][2]string{}
	start := regexp.MustCompile(`^CREATE TABLE public\.(\w+) \($`)
	colRe := regexp.MustCompile(`^    (\w+) ([a-z ]+?)(?: NOT NULL)?,?$`)
	var cur string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if m := start.FindStringSubmatch(line); m != nil {
			cur = m[1]
			continue
		}
		if cur == "" {
			continue
		}
		if line == ");" {
			cur = ""
			continue
		}
		if m := colRe.FindStringSubmatch(line); m != nil {
			out[cur] = append(out[cur], [2]string{m[1], m[2]})
		}
	}
	return out
}

// sqliteTypeFor is the type DuckDB's sqlite extension declares for a
// PostgreSQL catalog column type.
func sqliteTypeFor(pg string) string {
	switch pg {
	case "bigint", "boolean":
		return "BIGINT"
	default:
		return "VARCHAR"
	}
}

func TestBootstrapTables(t *testing.T) { eachBackend(t, testBootstrapTables) }

// testBootstrapTables: a new catalog has DuckDB's 28 tables with DuckDB's
// columns, in DuckDB's order, with the types DuckDB declares on the backend
// (for PostgreSQL exactly those of the pg_dump of DuckDB's own catalog).
func testBootstrapTables(t *testing.T, be backend) {
	db, _, _, _ := openNewOn(t, be)
	want := fixtureDDL(t)
	names := tableNames(t, db)
	if len(names) != 28 {
		t.Fatalf("got %d tables, want 28: %v", len(names), names)
	}
	fixtureTables := 0
	for name := range want {
		if isFixedTable(name) {
			fixtureTables++
		}
	}
	if fixtureTables != 28 {
		t.Fatalf("fixture has %d fixed tables", fixtureTables)
	}
	wantPKs := map[string]string{"ducklake_snapshot": "snapshot_id", "ducklake_snapshot_changes": "snapshot_id",
		"ducklake_schema": "schema_id", "ducklake_data_file": "data_file_id", "ducklake_delete_file": "delete_file_id"}
	for _, name := range names {
		cols, ok := want[name]
		if !ok {
			t.Errorf("table %s not in the DuckDB fixture", name)
			continue
		}
		got := describe(t, db, name)
		for _, c := range got {
			wantPK := wantPKs[name] == c.name
			// PostgreSQL makes primary key columns NOT NULL, as the
			// fixture shows; SQLite does not.
			wantNotNull := name == "ducklake_metadata" && (c.name == "key" || c.name == "value") || wantPK && db.Dialect() == "postgres"
			if c.notNull != wantNotNull {
				t.Errorf("%s.%s: notnull=%v", name, c.name, c.notNull)
			}
			if c.pk != wantPK {
				t.Errorf("%s.%s: pk=%v", name, c.name, c.pk)
			}
		}
		if len(got) != len(cols) {
			t.Errorf("%s: %d columns, DuckDB has %d", name, len(got), len(cols))
			continue
		}
		for i := range cols {
			if wt := fixtureTypeOn(db.Dialect(), cols[i][1]); got[i].name != cols[i][0] || got[i].typ != wt {
				t.Errorf("%s column %d: got %s %s, want %s %s", name, i, got[i].name, got[i].typ, cols[i][0], wt)
			}
		}
	}
}

func TestBootstrapRows(t *testing.T) { eachBackend(t, testBootstrapRows) }

func testBootstrapRows(t *testing.T, be backend) {
	db, dsn, opts, data := openNewOn(t, be)
	ctx := context.Background()
	s := db.SQL()

	if db.Dialect() == "sqlite" {
		var mode string
		if err := s.QueryRowContext(ctx, `PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
			t.Errorf("journal_mode = %q, %v", mode, err)
		}
	}

	var id, sv, nc, nf int64
	var ts any
	if err := s.QueryRowContext(ctx, `SELECT * FROM ducklake_snapshot`).Scan(&id, &ts, &sv, &nc, &nf); err != nil {
		t.Fatal(err)
	}
	if id != 0 || sv != 0 || nc != 2 || nf != 0 {
		t.Errorf("snapshot 0 = %d %d %d %d", id, sv, nc, nf)
	}
	// The stored form of snapshot_time: text DuckDB casts on SQLite, a
	// real timestamptz on PostgreSQL.
	switch v := ts.(type) {
	case string:
		if db.Dialect() != "sqlite" || !regexp.MustCompile(`^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6}\+00$`).MatchString(v) {
			t.Errorf("snapshot_time %q on %s", v, db.Dialect())
		}
	case time.Time:
		if db.Dialect() != "postgres" || time.Since(v) > time.Minute {
			t.Errorf("snapshot_time %v on %s", v, db.Dialect())
		}
	default:
		t.Errorf("snapshot_time %T %v", ts, ts)
	}
	var changes string
	var author, msg, extra sql.NullString
	if err := s.QueryRowContext(ctx, `SELECT * FROM ducklake_snapshot_changes`).Scan(&id, &changes, &author, &msg, &extra); err != nil {
		t.Fatal(err)
	}
	if id != 0 || changes != `created_schema:"main",created_schema:"public"` || author.Valid || msg.Valid || extra.Valid {
		t.Errorf("changes 0 = %d %q %v %v %v", id, changes, author, msg, extra)
	}

	// Insertion order: SQLite's rowid, PostgreSQL's ctid (a new table's
	// rows lie in insertion order).
	order := map[string]string{"sqlite": "rowid", "postgres": "ctid"}[db.Dialect()]
	rows, err := s.QueryContext(ctx, `SELECT "key", "value", scope, scope_id FROM ducklake_metadata ORDER BY `+order)
	if err != nil {
		t.Fatal(err)
	}
	var meta []string
	for rows.Next() {
		var k, v string
		var scope sql.NullString
		var scopeID sql.NullInt64
		rows.Scan(&k, &v, &scope, &scopeID)
		if scope.Valid || scopeID.Valid {
			t.Errorf("metadata %s has a scope", k)
		}
		meta = append(meta, k+"="+v)
	}
	rows.Close()
	wantMeta := []string{"version=1.0", "created_by=lakepg " + Version, "data_path=" + filepath.ToSlash(data) + "/", "encrypted=false"}
	if strings.Join(meta, ";") != strings.Join(wantMeta, ";") {
		t.Errorf("metadata = %v, want %v", meta, wantMeta)
	}

	rows, err = s.QueryContext(ctx, `SELECT * FROM ducklake_schema ORDER BY schema_id`)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	uuidRe := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
	for rows.Next() {
		var sid, begin int64
		var u, name, path string
		var rel NullBool
		var end sql.NullInt64
		if err := rows.Scan(&sid, &u, &begin, &end, &name, &path, &rel); err != nil {
			t.Fatal(err)
		}
		if !uuidRe.MatchString(u) {
			t.Errorf("schema uuid %q", u)
		}
		if end.Valid {
			t.Errorf("schema %s end_snapshot set", name)
		}
		r := "~"
		if rel.Valid {
			r = map[bool]string{true: "1", false: "0"}[rel.Bool]
		}
		got = append(got, strings.Join([]string{itoa(sid), itoa(begin), name, path, r}, "|"))
	}
	rows.Close()
	if strings.Join(got, ";") != "0|0|main|main/|1;1|0|public|public/|1" {
		t.Errorf("schemas = %v", got)
	}
	for _, tbl := range []string{"ducklake_table", "ducklake_column", "ducklake_data_file", "ducklake_delete_file", "ducklake_table_stats"} {
		var n int
		s.QueryRowContext(ctx, `SELECT COUNT(*) FROM `+tbl).Scan(&n)
		if n != 0 {
			t.Errorf("%s has %d rows", tbl, n)
		}
	}

	head, err := db.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if head.ID != 0 || head.NextCatalogID != 2 || head.Changes != changes || time.Since(head.Time) > time.Minute || head.Time.After(time.Now()) {
		t.Errorf("head = %+v", head)
	}
	m, err := db.Load(ctx, head)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Schemas) != 2 || len(m.Tables) != 0 {
		t.Fatalf("metadata = %+v", m)
	}
	pub, ok := m.SchemaByName("public")
	if !ok || pub.ID != 1 || pub.Path != "public/" || !pub.PathIsRelative {
		t.Errorf("public = %+v", pub)
	}
	if db.DataPath() != filepath.ToSlash(data)+"/" {
		t.Errorf("DataPath = %q", db.DataPath())
	}
	tbl := &Table{Path: "t/", PathIsRelative: true}
	if got := db.TableDir(pub, tbl); got != db.DataPath()+"public/t/" {
		t.Errorf("TableDir = %q", got)
	}

	// Reopen: same data path with or without the slash, or none.
	db.Close()
	for _, dp := range []string{"", data, data + "/"} {
		db2, err := OpenWithOptions(ctx, dsn, dp, opts)
		if err != nil {
			t.Fatalf("reopen with %q: %v", dp, err)
		}
		h2, err := db2.Head(ctx)
		if err != nil || h2.ID != 0 || !h2.Time.Equal(head.Time) {
			t.Errorf("reopened head = %+v, %v", h2, err)
		}
		db2.Close()
	}
	if _, err := OpenWithOptions(ctx, dsn, filepath.Join(filepath.Dir(data), "elsewhere"), opts); err == nil {
		t.Error("reopen with another data path succeeded")
	}
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

func TestOpenErrors(t *testing.T) {
	ctx := context.Background()
	// Nothing listens on port 1: the DSN is understood, the server is not
	// there.
	if _, err := Open(ctx, "postgres://lakepg@127.0.0.1:1/db?connect_timeout=5", "/tmp/x"); err == nil {
		t.Error("postgres DSN without a server opened")
	}
	if _, err := Open(ctx, "postgres://[::1", "/tmp/x"); err == nil || !strings.Contains(err.Error(), "DSN") {
		t.Errorf("malformed postgres DSN: %v", err)
	}
	if _, err := Open(ctx, "mysql:foo", "/tmp/x"); err == nil {
		t.Error("mysql DSN accepted")
	}
	if _, err := OpenWithOptions(ctx, "sqlite:"+filepath.Join(t.TempDir(), "c.db"), "/tmp/x", Options{Schema: "s"}); err == nil {
		t.Error("a schema for a SQLite catalog accepted")
	}
	if _, err := Open(ctx, "sqlite:"+filepath.Join(t.TempDir(), "c.db"), ""); err == nil {
		t.Error("new catalog without a data path accepted")
	}
	db, err := Open(ctx, "sqlite:"+filepath.Join(t.TempDir(), "c.db"), "s3://bucket/lake")
	if err != nil {
		t.Fatal(err)
	}
	if db.DataPath() != "s3://bucket/lake/" {
		t.Errorf("s3 data path = %q", db.DataPath())
	}
	db.Close()
}

func TestRedactDSN(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://u:secret@h/db":                        "postgres://u:xxxxx@h/db",
		"postgresql://u@h/db?sslmode=disable":             "postgresql://u@h/db?sslmode=disable",
		"postgres://u@h/db?password=secret&sslmode=x":     "postgres://u@h/db?password=xxxxx&sslmode=x",
		"postgres:dbname=db password='se cr\\'et' user=u": "postgres:dbname=db password=xxxxx user=u",
		"postgres:host=h PASSWORD=secret":                 "postgres:host=h PASSWORD=xxxxx",
		"sqlite:/tmp/password=x.db":                       "sqlite:/tmp/password=x.db",
	} {
		if got := RedactDSN(in); got != want {
			t.Errorf("RedactDSN(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPostgresDSN(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://u@h/db":                "postgres://u@h/db",
		"postgresql://u@h:5/db?sslmode=x":  "postgresql://u@h:5/db?sslmode=x",
		"postgres:dbname=db host=h user=u": "dbname=db host=h user=u",
		"postgresql:dbname=db":             "dbname=db",
	} {
		if got := postgresDSN(in); got != want {
			t.Errorf("postgresDSN(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseTime(t *testing.T) {
	ref := time.Date(2026, 11, 30, 9, 39, 42, 77610000, time.UTC)
	for _, s := range []string{
		"2026-11-30 09:39:42.07761+00",
		"2026-11-30 09:39:42.077610+00",
		"2026-11-30T09:39:42.07761Z",
		"2026-11-30 09:39:42.07761",
		"2026-11-30 11:39:42.07761+02",
		"2026-11-30 15:09:42.07761+05:30",
		"2026-11-30 15:09:42.07761+0530",
		"2026-11-30 05:39:42.07761-04:00",
	} {
		got, err := ParseTime(s)
		if err != nil || !got.Equal(ref) {
			t.Errorf("ParseTime(%q) = %v, %v", s, got, err)
		}
	}
	if got, err := ParseTime("2026-11-30 09:39:42+00"); err != nil || !got.Equal(ref.Truncate(time.Second)) {
		t.Errorf("no fraction: %v %v", got, err)
	}
	for _, bad := range []string{"", "yesterday", "2026-11-30", "2026-11-30 25:00:00"} {
		if _, err := ParseTime(bad); err == nil {
			t.Errorf("ParseTime(%q) accepted", bad)
		}
	}
	if s := FormatTime(ref.In(time.FixedZone("x", 3600))); s != "2026-11-30 09:39:42.077610+00" {
		t.Errorf("FormatTime = %q", s)
	}
}

func TestRebind(t *testing.T) {
	d := &dialect{dollarParams: true}
	got := d.rebind(`SELECT '?' , "a?" FROM t WHERE a = ? AND b = ?`)
	if got != `SELECT '?' , "a?" FROM t WHERE a = $1 AND b = $2` {
		t.Errorf("rebind = %q", got)
	}
	if sqliteDialect.rebind("a = ?") != "a = ?" {
		t.Error("sqlite rebind changed the query")
	}
}

func TestNullBool(t *testing.T) {
	for _, c := range []struct {
		in   any
		want *bool
	}{{int64(1), ptrB(true)}, {int64(0), ptrB(false)}, {true, ptrB(true)}, {"t", ptrB(true)}, {"false", ptrB(false)}, {[]byte("1"), ptrB(true)}, {nil, nil}} {
		var b NullBool
		if err := b.Scan(c.in); err != nil {
			t.Fatal(err)
		}
		got := b.Ptr()
		if (got == nil) != (c.want == nil) || got != nil && *got != *c.want {
			t.Errorf("Scan(%v) = %v", c.in, got)
		}
	}
	var b NullBool
	if err := b.Scan("maybe"); err == nil {
		t.Error("accepted maybe")
	}
}

func ptrB(b bool) *bool { return &b }

func TestSnapshotNotFound(t *testing.T) { eachBackend(t, testSnapshotNotFound) }

func testSnapshotNotFound(t *testing.T, be backend) {
	db, _, _, _ := openNewOn(t, be)
	ctx := context.Background()
	if _, err := db.SnapshotByID(ctx, 5); !errors.Is(err, ErrSnapshotNotFound) {
		t.Errorf("SnapshotByID(5) = %v", err)
	}
	if _, err := db.SnapshotAsOf(ctx, time.Now().Add(-time.Hour)); !errors.Is(err, ErrSnapshotNotFound) {
		t.Errorf("SnapshotAsOf(past) = %v", err)
	}
	s, err := db.SnapshotAsOf(ctx, time.Now().Add(time.Second))
	if err != nil || s.ID != 0 {
		t.Errorf("SnapshotAsOf(now) = %+v, %v", s, err)
	}
}

// TestBeginWriteHoldsWriterLock: a write transaction takes SQLite's writer
// lock at BEGIN (BEGIN IMMEDIATE), so a second writer waits, while readers
// (Load, Head) go on. PostgreSQL has no such lock (writers race on the
// snapshot primary key instead: TestLostRace and package snapshot's
// concurrency tests).
func TestBeginWriteHoldsWriterLock(t *testing.T) {
	db, file, _ := openNew(t)
	ctx := context.Background()
	other, err := Open(ctx, "sqlite:"+file, "")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	tx, err := db.BeginWrite(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Head(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := other.Head(ctx); err != nil {
		t.Errorf("reader blocked by a writer: %v", err)
	}
	if _, err := other.Load(ctx, Snapshot{}); err != nil {
		t.Errorf("Load blocked by a writer: %v", err)
	}
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	tx2, err := other.BeginWrite(short)
	if err == nil {
		tx2.Rollback()
		t.Fatal("second writer got the lock")
	}
	if time.Since(start) < 250*time.Millisecond {
		t.Errorf("second writer failed at once (%v) instead of waiting: %v", time.Since(start), err)
	}
	tx.Rollback()
	tx3, err := other.BeginWrite(ctx)
	if err != nil {
		t.Fatalf("writer after release: %v", err)
	}
	tx3.Rollback()
}
