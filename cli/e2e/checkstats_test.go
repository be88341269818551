package e2e

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	_ "modernc.org/sqlite"
)

// catalogExec runs statements on a lake's SQLite catalog directly, as a
// person repairing (or breaking) it by hand would.
func catalogExec(t *testing.T, path string, stmts ...string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// catalogQuery returns the single text value a query of a SQLite catalog
// answers.
func catalogQuery(t *testing.T, path, q string) string {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var s string
	if err := db.QueryRow(q).Scan(&s); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return s
}

// TestCheckStats: the column statistics lakepg wrote agree with the files'
// footers; a catalog bound that excludes the file's own values, or a wrong
// null count, is reported with the table, file, column and both values,
// and check exits 1. Bounds are compared as values of the column's type: a
// wider maximum of 10 over values up to 3 is fine, though "10" < "3" as text.
func TestCheckStats(t *testing.T) {
	l := newLake(t)
	l.sh(t, nil,
		"CALL lakepg.set_option('data_inlining_row_limit', '0')",
		"CREATE TABLE t (id int, name varchar, amount numeric(10,2), day date, at timestamp, f double precision)",
		"INSERT INTO t VALUES (1, 'b', 1.25, '2024-01-02', '2024-01-02 10:00:00.5', 1.5), (2, NULL, -0.01, '1999-12-31', '1970-01-01 00:00:00', 'NaN'), (3, 'a', NULL, NULL, NULL, -2)")
	r := run(t, l.dir, "", append([]string{"check"}, l.args...)...)
	if r.code != 0 || !strings.HasSuffix(r.stdout, "and the column stats of 1 live data files: 0 problem(s)\n") {
		t.Fatalf("check of a sound lake: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	cat := filepath.Join(l.dir, "catalog.sqlite")
	fileID := catalogQuery(t, cat, "SELECT data_file_id FROM ducklake_data_file WHERE end_snapshot IS NULL")
	file := filepath.Join(l.dir, "data", "public", "t", catalogQuery(t, cat, "SELECT path FROM ducklake_data_file WHERE end_snapshot IS NULL"))
	if _, err := os.Stat(file); err != nil {
		t.Fatal(err)
	}
	col := func(name string) string {
		return catalogQuery(t, cat, "SELECT column_id FROM ducklake_column WHERE column_name = '"+name+"' AND end_snapshot IS NULL")
	}
	setStat := func(column, set string) {
		catalogExec(t, cat, fmt.Sprintf("UPDATE ducklake_file_column_stats SET %s WHERE data_file_id = %s AND column_id = %s", set, fileID, col(column)))
	}

	setStat("id", "max_value = '10'")
	setStat("at", "min_value = NULL") // unknown: allowed
	r = run(t, l.dir, "", append([]string{"check"}, l.args...)...)
	if r.code != 0 || !strings.HasSuffix(r.stdout, ": 0 problem(s)\n") {
		t.Errorf("a wider (safe) maximum or an unknown minimum was reported: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	setStat("id", "max_value = '2'")
	setStat("name", "null_count = 0")
	setStat("amount", "min_value = '0.00'")
	setStat("f", "contains_nan = 0")
	r = run(t, l.dir, "", append([]string{"check"}, l.args...)...)
	if r.code != 1 {
		t.Errorf("check of corrupted stats: exit %d, want 1", r.code)
	}
	head := fmt.Sprintf("stats mismatch: %s (data file %s of public.t), column ", file, fileID)
	want := []string{
		head + `"id": catalog max_value 2 is below the Parquet footer's maximum 3`,
		head + `"name": catalog null_count 0, the Parquet footer 1`,
		head + `"amount": catalog min_value 0.00 is above the Parquet footer's minimum -0.01`,
		head + `"f": catalog contains_nan false, but the file holds NaN (a filter on the column could skip it)`,
	}
	got := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if len(got) != len(want)+1 {
		t.Fatalf("check output:\n%s\nwant the lines\n%s", r.stdout, strings.Join(want, "\n"))
	}
	for i, w := range want {
		if got[i] != w {
			t.Errorf("line %d:\n got %s\nwant %s", i+1, got[i], w)
		}
	}
	if !strings.HasSuffix(got[len(want)], ": 4 problem(s)") {
		t.Errorf("summary %q", got[len(want)])
	}
}

// TestCheckDuckDBLake: the statistics DuckDB 1.5.5 writes (its text forms
// of timestamps, decimals, dates before year 1, blobs, uuids; several row
// groups; NaN) pass the comparison, and a bound broken by hand in its
// catalog is found.
func TestCheckDuckDBLake(t *testing.T) {
	dir := t.TempDir()
	cat, data := filepath.Join(dir, "lake.sqlite"), filepath.Join(dir, "data")+"/"
	duckdb(t, cat, data,
		`CREATE TABLE t (i INTEGER, v VARCHAR, d DOUBLE, ts TIMESTAMPTZ, b BOOLEAN, n DECIMAL(10,2), dt DATE,
			bl BLOB, u UUID, tsn TIMESTAMP, f REAL, s SMALLINT, big BIGINT, iv INTERVAL)`,
		`INSERT INTO t VALUES
			(1, 'héllo', 1.5, '2024-01-01 10:00:00.5+00', true, 1.25, '2024-01-01', '\xDE\xAD'::BLOB,
			 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '2024-01-01 03:04:05.123456', 2.5, -3, 9000000000, INTERVAL '1 day'),
			(2, 'b', 'nan', NULL, false, -0.01, DATE '0001-01-01' - 400, ''::BLOB, NULL, '1970-01-01 00:00:00', 'nan', 32767, -1, NULL),
			(3, NULL, -0.0, '1969-12-31 23:59:59.999999+00', NULL, 99999999.99, NULL, NULL,
			 '00000000-0000-0000-0000-000000000000', NULL, NULL, NULL, NULL, NULL)`,
		`CREATE TABLE big AS SELECT i::BIGINT AS i, 'x' || i AS v, i / 3 AS d, DATE '2000-01-01' + (i % 5000)::INTEGER AS dt,
			TIMESTAMP '2020-01-01' + INTERVAL (i) SECOND AS ts, (i / 100)::DECIMAL(12,3) AS n FROM range(0, 300000) r(i)`,
		`DELETE FROM big WHERE i % 7 = 0`,
		`UPDATE t SET v = 'upd' WHERE i = 1`)
	args := []string{"check", "--catalog", "sqlite:" + cat, "--data", data}
	r := run(t, dir, "", args...)
	if r.code != 0 || !strings.HasSuffix(r.stdout, ": 0 problem(s)\n") {
		t.Fatalf("check of DuckDB's lake: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	live := catalogQuery(t, cat, "SELECT count(*) FROM ducklake_data_file WHERE end_snapshot IS NULL")
	if !strings.Contains(r.stdout, "and the column stats of "+live+" live data files") {
		t.Errorf("not every live file was compared (%s live):\n%s", live, r.stdout)
	}

	// bounds narrower than the files' values, in DuckDB's text forms: the largest ts
	// of table big one second less; in t's first file a decimal maximum, a timestamptz
	// maximum, a date minimum before year 1 and a varchar minimum
	bigFile := catalogQuery(t, cat, "SELECT min(data_file_id) FROM ducklake_data_file f JOIN ducklake_table t USING (table_id) WHERE t.table_name = 'big' AND f.end_snapshot IS NULL")
	tFile := catalogQuery(t, cat, "SELECT min(data_file_id) FROM ducklake_data_file f JOIN ducklake_table t USING (table_id) WHERE t.table_name = 't' AND f.end_snapshot IS NULL")
	stat := func(file, column, field string) (where, value string) {
		colID := catalogQuery(t, cat, "SELECT c.column_id FROM ducklake_column c JOIN ducklake_table t USING (table_id) WHERE c.column_name = '"+column+"' AND t.table_name = (SELECT t2.table_name FROM ducklake_data_file f JOIN ducklake_table t2 USING (table_id) WHERE f.data_file_id = "+file+")")
		where = " WHERE data_file_id = " + file + " AND column_id = " + colID
		return where, catalogQuery(t, cat, "SELECT "+field+" FROM ducklake_file_column_stats"+where)
	}
	cases := []struct {
		file, column, field, duck, broken, line string
	}{
		{bigFile, "ts", "max_value", "2020-01-04 11:19:59", "2020-01-04 11:19:58", "catalog max_value 2020-01-04 11:19:58 is below the Parquet footer's maximum 2020-01-04 11:19:59"},
		{tFile, "n", "max_value", "99999999.99", "99999999.98", "catalog max_value 99999999.98 is below the Parquet footer's maximum 99999999.99"},
		{tFile, "ts", "max_value", "2024-01-01 10:00:00.5+00", "2024-01-01 10:00:00.4+00", "catalog max_value 2024-01-01 10:00:00.4+00 is below the Parquet footer's maximum 2024-01-01 10:00:00.5+00"},
		{tFile, "dt", "min_value", "0002-11-28 (BC)", "0002-11-29 (BC)", "catalog min_value 0002-11-29 (BC) is above the Parquet footer's minimum 0002-11-28 (BC)"},
		{tFile, "v", "min_value", "b", "c", "catalog min_value c is above the Parquet footer's minimum b"},
	}
	var want []string
	for _, c := range cases {
		where, v := stat(c.file, c.column, c.field)
		if v != c.duck {
			t.Fatalf("DuckDB's %s of %s in file %s is %q, want %q", c.field, c.column, c.file, v, c.duck)
		}
		catalogExec(t, cat, "UPDATE ducklake_file_column_stats SET "+c.field+" = '"+c.broken+"'"+where)
		table := "main.t"
		if c.file == bigFile {
			table = "main.big"
		}
		want = append(want, fmt.Sprintf(`(data file %s of %s), column %q: %s`, c.file, table, c.column, c.line))
	}
	r = run(t, dir, "", args...)
	if r.code != 1 || !strings.HasSuffix(r.stdout, fmt.Sprintf(": %d problem(s)\n", len(cases))) {
		t.Errorf("check after breaking DuckDB bounds: exit %d\n%s", r.code, r.stdout)
	}
	for _, w := range want {
		if !strings.Contains(r.stdout, w+"\n") {
			t.Errorf("check output lacks a line ending\n%s\n%s", w, r.stdout)
		}
	}
}

// duckdb runs statements with DuckDB 1.5.5 and its ducklake extension on a
// lake with a SQLite catalog, writing every insert to Parquet files (no
// inlining).
func duckdb(t *testing.T, catalog, data string, stmts ...string) {
	t.Helper()
	script := `
import sys, json, shutil, site, os, duckdb
inp = json.load(sys.stdin)
if duckdb.__version__ != "1.5.5":
    sys.exit("want DuckDB 1.5.5, python3 has " + duckdb.__version__)
ext = os.path.join(site.getsitepackages()[0], "duckdb_extension_%s", "extensions", "v1.5.5", "%s.duckdb_extension")
# LOAD checks the file name against the entry point, sqlite_scanner_init
sqlite = os.path.join(inp["tmp"], "sqlite_scanner.duckdb_extension")
shutil.copy(ext % ("sqlite", "sqlite"), sqlite)
c = duckdb.connect()
c.execute("SET enable_progress_bar=false")
c.execute("SET autoinstall_known_extensions=false")
c.execute("SET autoload_known_extensions=false")
c.execute("LOAD '%s'" % (ext % ("ducklake", "ducklake")).replace("'", "''"))
c.execute("LOAD '%s'" % sqlite.replace("'", "''"))
c.execute("ATTACH 'ducklake:sqlite:%s' AS lk (DATA_PATH '%s', DATA_INLINING_ROW_LIMIT 0)" % (inp["catalog"].replace("'", "''"), inp["data"].replace("'", "''")))
c.execute("USE lk")
for s in inp["stmts"]:
    c.execute(s)
c.close()
`
	in, err := json.Marshal(map[string]any{"tmp": t.TempDir(), "catalog": catalog, "data": data, "stmts": stmts})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("python3", "-c", script)
	cmd.Stdin = bytes.NewReader(in)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("DuckDB (python3 with duckdb==1.5.5 and duckdb-extension-ducklake/sqlite==1.5.5, as make test installs them): %v\n%s", err, out)
	}
}
