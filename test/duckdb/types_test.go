package duckdb

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/lakepg/lakepg/test/testserver"
)

// The DuckLake types beyond the common ones: time, timetz, json, uint64, int128, uint128,
// decimal(P>18,S), timestamp_s/ms/ns and the small unsigned integers, with NULLs and extreme
// values. DuckDB writes them, lakepg reads them (Parquet and inlined rows); lakepg writes
// time, timetz, json and wide decimals, DuckDB reads them, and the catalog rows and Parquet
// schema lakepg writes are the ones DuckDB writes for the same table.

const typesTable = `CREATE TABLE ty (id INTEGER, tm TIME, tz TIMETZ, j JSON, u64 UBIGINT, h HUGEINT, uh UHUGEINT,
	d38 DECIMAL(38,10), d20 DECIMAL(20,0), ts_s TIMESTAMP_S, ts_ms TIMESTAMP_MS, ts_ns TIMESTAMP_NS,
	u8 UTINYINT, u16 USMALLINT, u32 UINTEGER)`

// HUGEINT values survive DuckDB's DOUBLE storage only when the double is in range, so the
// extremes are ±2^126-ish values and a lossy one.
const typesRows = `VALUES
	(1, '12:34:56.789012', '12:34:56.789012+05:30', '{"a": 1, "b": [1, 2, {"c": "x"}]}', 18446744073709551615,
	 85070591730234615865843651857942052864, 170141183460469231731687303715884105727,
	 9999999999999999999999999999.9999999999, 99999999999999999999, '2024-01-02 03:04:05', '2024-01-02 03:04:05.123',
	 '2024-01-02 03:04:05.123456789', 255, 65535, 4294967295),
	(2, '00:00:00', '00:00:00-15:59', '[1, "x", null, true]', 0, -12345678901234567890123, 0,
	 -9999999999999999999999999999.9999999999, -99999999999999999999, '1969-12-31 23:59:59', '1969-12-31 23:59:59.999',
	 '1969-12-31 23:59:59.999999999', 0, 0, 0),
	(3, '24:00:00', '23:59:59.999999+15:59', '"str"', 9223372036854775808, -85070591730234615865843651857942052864, 12345,
	 -0.0000000001, 1, '1900-01-01 00:00:00', '2262-04-11 23:47:16.854', '1677-09-22 00:00:00.000000001', 128, 32768, 2147483648),
	(4, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
	(5, '23:59:59.999999', '12:00:00+00', '{}', 1, 1, 1, 0.5, -1, '2000-02-29 12:00:00', '2000-02-29 12:00:00.001',
	 '2000-02-29 12:00:00.000001', 1, 1, 1)`

var typesDuckSteps = []string{
	typesTable,
	// inlined into the catalog (fewer than 10 rows), then flushed to Parquet
	`INSERT INTO ty ` + typesRows,
	`CALL ducklake_flush_inlined_data('lk')`,
	// the same values again, left inlined
	`INSERT INTO ty SELECT id + 100, tm, tz, j, u64, h, uh, d38, d20, ts_s, ts_ms, ts_ns, u8, u16, u32 FROM (` + typesRows + `) v(id, tm, tz, j, u64, h, uh, d38, d20, ts_s, ts_ms, ts_ns, u8, u16, u32)`,
	// a Parquet file written directly
	`INSERT INTO ty SELECT 1000 + i, make_time(i % 24, i % 60, i / 7), (make_time(i % 24, 30, 0)::VARCHAR || '+02')::TIMETZ,
		('{"i": ' || i || '}')::JSON, 18446744073709551615 - i, i * 1000000000000000000000, i, i / 3, -i * 100000000000000000,
		make_timestamp(i * 1000000000)::TIMESTAMP_S, make_timestamp(i * 1000000000 + 1000)::TIMESTAMP_MS,
		make_timestamp(i * 1000000000 + 1)::TIMESTAMP_NS, i % 256, i * 100, i * 10000000 FROM range(0, 40) r(i)`,
}

// typesDuckSelect is DuckDB's text of every column; timestamp_ns as epoch nanoseconds,
// which the test rounds to microseconds as lakepg reads them.
const typesDuckSelect = `SELECT id::VARCHAR, tm::VARCHAR, tz::VARCHAR, j::VARCHAR, u64::VARCHAR, h::VARCHAR, uh::VARCHAR,
	d38::VARCHAR, d20::VARCHAR, ts_s::VARCHAR, ts_ms::VARCHAR, epoch_ns(ts_ns)::VARCHAR, u8::VARCHAR, u16::VARCHAR, u32::VARCHAR
	FROM lk.main.ty ORDER BY id`

// wantOIDs are the PostgreSQL types lakepg reports for the columns of ty.
var wantOIDs = []string{"23", "1083", "1266", "114", "1700", "1700", "1700", "1700", "1700", "1114", "1114", "1114", "21", "23", "20"}

func TestLakepgReadsDuckDBTypes(t *testing.T) {
	ducklakeExt, sqliteExt := duckdbExtensions(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	dir := t.TempDir()
	runDuckSteps(t, ctx, ducklakeExt, sqliteExt, dir, typesDuckSteps)
	out := runDuckDB(t, duckInput{Ducklake: ducklakeExt, Sqlite: sqliteExt, Catalog: filepath.Join(dir, "catalog.sqlite"),
		Queries: []duckQuery{}, Raw: []string{typesDuckSelect}})
	want := out.Raw[0]
	if len(want) != 5+5+40 {
		t.Fatalf("DuckDB reads %d rows of ty: %v", len(want), fmtRows(want))
	}
	for _, r := range want {
		r[11] = roundNanosText(t, r[11])
	}

	srv := testserver.Start(t, testserver.Binary(t), dir)
	conn, err := pgx.Connect(ctx, srv.DSN())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	query(t, ctx, conn, `SET TimeZone = 'UTC'`)
	got := query(t, ctx, conn, `SELECT * FROM ty ORDER BY id`)
	if strings.Join(got.Types, ",") != strings.Join(wantOIDs, ",") {
		t.Errorf("lakepg column types %v, want %v", got.Types, wantOIDs)
	}
	if fmtRows(got.Rows) != fmtRows(want) {
		t.Errorf("lakepg reads DuckDB's table differently:\n%s", diffRows(got.Rows, want))
	}
	// Extended protocol: pgx reads time and numeric in binary.
	var tm pgtype.Time
	var n pgtype.Numeric
	if err := conn.QueryRow(ctx, `SELECT tm, d38 FROM ty WHERE id = 2`).Scan(&tm, &n); err != nil {
		t.Fatalf("binary read: %v", err)
	}
	if nv, err := n.Value(); err != nil || !tm.Valid || tm.Microseconds != 0 || nv != "-9999999999999999999999999999.9999999999" {
		t.Errorf("binary read: %+v µs, %v (%v)", tm, nv, err)
	}
	// Filters on the new types prune and compare by value; aggregates see every file.
	for q, w := range map[string]string{
		`SELECT count(*) FROM ty WHERE d38 < 0`:                                     "4 ",
		`SELECT count(*) FROM ty WHERE u64 > 9223372036854775807`:                   "44 ",
		`SELECT count(*) FROM ty WHERE tm = '24:00:00'`:                             "2 ",
		`SELECT min(d38), max(u64) FROM ty`:                                         "-9999999999999999999999999999.9999999999 18446744073709551615 ",
		`SELECT count(*) FROM ty WHERE tz = '00:00:00-15:59'`:                       "1 ",
		`SELECT j ->> 'a', json_typeof(j -> 'b') FROM ty WHERE id = 1`:              "1 array ",
		`SELECT count(*) FROM ty WHERE ts_ns < '1900-01-01' OR ts_s < '1970-01-01'`: "4 ",
	} {
		r := query(t, ctx, conn, q)
		if g := fmtFlat(r.Rows); g != w {
			t.Errorf("%s: lakepg %q, want %q", q, g, w)
		}
	}
}

// The types lakepg writes, with the values DuckDB must read back.
const lakepgTypesCreate = `CREATE TABLE w (id integer, a time, b timetz, c json, d numeric(38,10), e numeric(20,0), f numeric(19,4))`

const lakepgTypesInsert = `INSERT INTO w VALUES
	(1, '12:34:56.789', '12:34:56.789-08', '{"x": [1, 2], "y": "é"}', '-1234567890123456789012345678.0123456789', 18446744073709551615, 123456789012345.6789),
	(2, '24:00:00', '00:00:00+00', 'null', 0, -99999999999999999999, -0.0001),
	(3, NULL, NULL, NULL, NULL, NULL, NULL),
	(4, '00:00:00', '23:59:59.999999+15:59', '[1, "two", {"three": 3}]', 9999999999999999999999999999.9999999999, 0, 999999999999999.9999),
	(5, '08:00:00.000001', '23:30:00-05', '"s"', -0.0000000001, 1, 0)`

func TestDuckDBReadsLakepgTypes(t *testing.T) {
	ducklakeExt, sqliteExt := duckdbExtensions(t)
	ctx, dir, srv, conn := startLake(t)
	defer conn.Close(context.Background())
	query(t, ctx, conn, `SET TimeZone = 'UTC'`)
	query(t, ctx, conn, lakepgTypesCreate)
	query(t, ctx, conn, lakepgTypesInsert)
	lake := query(t, ctx, conn, `SELECT * FROM w ORDER BY id`)
	srv.Stop(t)

	duckSelect := `SELECT id::VARCHAR, a::VARCHAR, b::VARCHAR, c::VARCHAR, d::VARCHAR, e::VARCHAR, f::VARCHAR FROM lk.public.w ORDER BY id`
	out := runDuckDB(t, duckInput{Ducklake: ducklakeExt, Sqlite: sqliteExt, Catalog: filepath.Join(dir, "catalog.sqlite"),
		Queries: []duckQuery{}, Raw: []string{duckSelect}})
	if fmtRows(lake.Rows) != fmtRows(out.Raw[0]) {
		t.Errorf("DuckDB reads lakepg's table differently\nlakepg:\n%s\nDuckDB:\n%s", fmtRows(lake.Rows), fmtRows(out.Raw[0]))
	}
	// timetz keeps the UTC time of day only, as DuckDB's Parquet does
	if got := fmtFlat([][]*string{lake.Rows[0][2:3]}); got != "20:34:56.789+00 " {
		t.Errorf("timetz read back as %q", got)
	}

	// DuckDB writes the same table with the same rows: same catalog rows, same Parquet schema.
	duckDir := t.TempDir()
	runDuckSteps(t, ctx, ducklakeExt, sqliteExt, duckDir, []string{
		`CALL lk.set_option('data_inlining_row_limit', 0)`,
		`CREATE TABLE w (id INTEGER, a TIME, b TIMETZ, c JSON, d DECIMAL(38,10), e DECIMAL(20,0), f DECIMAL(19,4))`,
		lakepgTypesInsert,
	})
	catalogQueries := []struct{ name, query string }{
		{"columns", `SELECT column_id, column_order, column_name, column_type, nulls_allowed FROM ducklake_column ORDER BY column_id`},
		{"file stats", `SELECT c.column_name, s.value_count, s.null_count, s.min_value, s.max_value, s.contains_nan,
			CASE WHEN c.column_type = 'timetz' THEN s.column_size_bytes ELSE s.column_size_bytes > 0 END
			FROM ducklake_file_column_stats s JOIN ducklake_column c USING (column_id) ORDER BY c.column_id`},
		{"table stats", `SELECT c.column_name, s.contains_null, s.contains_nan, s.min_value, s.max_value
			FROM ducklake_table_column_stats s JOIN ducklake_column c USING (column_id) ORDER BY c.column_id`},
	}
	lk := dumpCatalog(t, filepath.Join(dir, "catalog.sqlite"), catalogQueries)
	dk := dumpCatalog(t, filepath.Join(duckDir, "catalog.sqlite"), catalogQueries)
	for _, q := range catalogQueries {
		if l, d := strings.Join(lk.rows[q.name], "\n"), strings.Join(dk.rows[q.name], "\n"); l != d {
			t.Errorf("catalog %s differs\nlakepg:\n%s\nDuckDB:\n%s", q.name, l, d)
		}
	}
	// (parquet-go also fills type_length for INT32/INT64 leaves of every type; readers
	// ignore it there, so only FIXED_LEN_BYTE_ARRAY lengths are compared)
	schema := func(lakeDir string) string {
		files := parquetFiles(t, filepath.Join(lakeDir, "data"))
		if len(files) != 1 {
			t.Fatalf("%s: %d Parquet files, want 1", lakeDir, len(files))
		}
		o := runDuckDB(t, duckInput{Ducklake: ducklakeExt, Sqlite: sqliteExt, Catalog: filepath.Join(lakeDir, "catalog.sqlite"),
			Queries: []duckQuery{}, Raw: []string{fmt.Sprintf(`SELECT name, type, CASE WHEN type = 'FIXED_LEN_BYTE_ARRAY' THEN type_length END, repetition_type, converted_type, scale,
				precision, field_id, logical_type FROM parquet_schema(%s) WHERE name IN ('a', 'b', 'c', 'd', 'e', 'f')`, sqlString(files[0]))}})
		return fmtRows(o.Raw[0])
	}
	if l, d := schema(dir), schema(duckDir); l != d {
		t.Errorf("Parquet schema differs\nlakepg:\n%s\nDuckDB:\n%s", l, d)
	}
}

// roundNanosText turns DuckDB's epoch nanoseconds into PostgreSQL's timestamp text of the
// nearest microsecond (half away from zero), which is how lakepg reads timestamp_ns.
func roundNanosText(t *testing.T, s *string) *string {
	t.Helper()
	if s == nil {
		return nil
	}
	ns, err := strconv.ParseInt(*s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	us, rem := ns/1000, ns%1000
	switch {
	case rem >= 500:
		us++
	case rem <= -500:
		us--
	}
	txt := time.UnixMicro(us).UTC().Format("2006-01-02 15:04:05.999999")
	return &txt
}

func fmtFlat(rows [][]*string) string {
	var b strings.Builder
	for _, r := range rows {
		for _, v := range r {
			b.WriteString(fmtVal(v) + " ")
		}
	}
	return b.String()
}

// diffRows shows the rows that differ, lakepg's first.
func diffRows(got, want [][]*string) string {
	var b strings.Builder
	for i := 0; i < max(len(got), len(want)); i++ {
		var g, w string
		if i < len(got) {
			g = fmtRow(got[i])
		}
		if i < len(want) {
			w = fmtRow(want[i])
		}
		if g != w {
			fmt.Fprintf(&b, "lakepg: %s\nDuckDB: %s\n", g, w)
		}
	}
	return b.String()
}
