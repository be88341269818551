package sql

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

func one(t types.T, set func(v *vec.Vector)) *vec.Vector {
	v := vec.New(t, 1)
	set(v)
	return v
}

func ival(t types.T, x int64) *vec.Vector { return one(t, func(v *vec.Vector) { v.AppendInt(x) }) }

func parsed(tb testing.TB, t types.T, s string) *vec.Vector {
	tb.Helper()
	v := vec.New(t, 1)
	if err := exec.ParseInto(v, s, nil, false); err != nil {
		tb.Fatalf("parse %q as %s: %v", s, t, err)
	}
	return v
}

// TestPartitionBucketHash: murmur3_32 as DuckDB 1.5.5's ducklake extension computes it
// (the expected values are what `SELECT murmur3_32(<value>)` returned there), which bucket(N)
// partition values and their pruning depend on.
func TestPartitionBucketHash(t *testing.T) {
	uuid := string([]byte{0xf7, 0x9c, 0x3e, 0x09, 0x67, 0x7c, 0x4b, 0xbd, 0xa4, 0x79, 0x3f, 0x34, 0x9c, 0xb7, 0x85, 0xe7})
	cases := []struct {
		name string
		v    *vec.Vector
		dl   string
		want int32
	}{
		{"34::INTEGER", ival(types.Int32T, 34), "int32", 2017239379},
		{"34::BIGINT", ival(types.Int64T, 34), "int64", 2017239379},
		{"34::SMALLINT", ival(types.Int16T, 34), "int16", 2017239379},
		{"-1::INTEGER", ival(types.Int32T, -1), "int32", 1651860712},
		{"14.20::DECIMAL(10,2)", ival(types.NumericT(10, 2), 1420), "decimal(10,2)", -622427183},
		{"DATE '2017-11-16'", parsed(t, types.DateT, "2017-11-16"), "date", -653330422},
		{"TIMESTAMP '2017-11-16 22:31:08'", parsed(t, types.TimestampT, "2017-11-16 22:31:08"), "timestamp", -2047944441},
		{"TIMESTAMPTZ '2017-11-16 22:31:08+00'", parsed(t, types.TimestamptzT, "2017-11-16 22:31:08+00"), "timestamptz", -2047944441},
		{"'iceberg'", one(types.TextT, func(v *vec.Vector) { v.AppendString("iceberg") }), "varchar", 1210000089},
		{"''", one(types.TextT, func(v *vec.Vector) { v.AppendString("") }), "varchar", 0},
		{"'ü é'", one(types.TextT, func(v *vec.Vector) { v.AppendString("ü é") }), "varchar", -247182866},
		{"UUID", one(types.UUIDT, func(v *vec.Vector) { v.AppendString(uuid) }), "uuid", 980414783},
		{"BLOB 00010203", one(types.ByteaT, func(v *vec.Vector) { v.AppendString("\x00\x01\x02\x03") }), "blob", -188683207},
		{"true", one(types.BoolT, func(v *vec.Vector) { v.AppendBool(true) }), "boolean", 1392991556},
		{"1.5::DOUBLE", one(types.Float64T, func(v *vec.Vector) { v.AppendFloat(1.5) }), "float64", -260406309},
		{"1.5::FLOAT", one(types.Float32T, func(v *vec.Vector) { v.AppendFloat(1.5) }), "float32", -260406309},
		{"34::UBIGINT-like uint32", ival(types.Int64T, 34), "uint32", -427558391},
	}
	for _, c := range cases {
		got, ok := bucketHash(c.v, 0, c.dl)
		if !ok || got != c.want {
			t.Errorf("murmur3_32(%s) = %d (ok %v), DuckDB says %d", c.name, got, ok, c.want)
		}
	}
	// bucket(3) of 'z0', 'z1', 'z2' as DuckDB placed them: 0, 0, 2
	k := partKey{kind: tBucket, buckets: 3, dlType: "varchar"}
	for i, want := range []string{"0", "0", "2"} {
		v := one(types.TextT, func(v *vec.Vector) { v.AppendString("z" + string(rune('0'+i))) })
		if got, null := k.value(nil, v, 0); null || string(got) != want {
			t.Errorf("bucket(3, 'z%d') = %q, want %s", i, got, want)
		}
	}
}

// TestPartitionValueText: identity values and hive directories as DuckDB 1.5.5 wrote them
// for the same values (ducklake_file_partition_value and data file paths of its lake).
func TestPartitionValueText(t *testing.T) {
	text := func(v *vec.Vector) string { return string(appendDuckText(nil, v, 0)) }
	checks := []struct{ got, want string }{
		{text(parsed(t, types.DateT, "2024-02-29")), "2024-02-29"},
		{text(one(types.Float64T, func(v *vec.Vector) { v.AppendFloat(-0.5) })), "-0.5"},
		{text(one(types.Float32T, func(v *vec.Vector) { v.AppendFloat(float64(float32(1.1))) })), "1.1"},
		{text(one(types.Float64T, func(v *vec.Vector) { v.AppendFloat(1e20) })), "1e+20"},
		{text(one(types.Float64T, func(v *vec.Vector) { v.AppendFloat(1e-7) })), "1e-07"},
		{text(one(types.Float64T, func(v *vec.Vector) { v.AppendFloat(12345678) })), "12345678.0"},
		{text(one(types.Float64T, func(v *vec.Vector) { v.AppendFloat(math.Inf(-1)) })), "-inf"},
		{text(ival(types.NumericT(10, 2), 1420)), "14.20"},
		{text(one(types.BoolT, func(v *vec.Vector) { v.AppendBool(true) })), "true"},
		{text(ival(types.Int64T, -9000000000)), "-9000000000"},
		{text(parsed(t, types.TimestampT, "2024-01-01 00:00:00")), "2024-01-01 00:00:00"},
		{text(parsed(t, types.TimestamptzT, "2024-03-01 01:02:03.5+02")), "2024-02-29 23:02:03.5+00"},
		{text(one(types.ByteaT, func(v *vec.Vector) { v.AppendString("\\\"' ~\x7f\xff\x00\x1f") })), `\x5C\x22\x27 ~\x7F\xFF\x00\x1F`},
		{text(one(types.ByteaT, func(v *vec.Vector) { v.AppendString("ab/\x01") })), `ab/\x01`},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("partition value %q, DuckDB wrote %q", c.got, c.want)
		}
	}
	s := "a/b:c*d?e\"f<g>h|i#j[k]l{m}n=o&p+q,r;s\\t u~v!w@x$y^z(1)2'3.4-5_6`7\n\x01\x7fé"
	want := "a%2Fb%3Ac%2Ad%3Fe%22f%3Cg%3Eh%7Ci%23j%5Bk%5Dl%7Bm%7Dn%3Do%26p%2Bq%2Cr%3Bs%5Ct%20u~v%21w%40x%24y%5Ez%281%292%273.4-5_6%607%0A%01%7F%C3%A9"
	if got := string(hiveValue(nil, &s)); got != want {
		t.Errorf("hive directory value\n got %s\nwant %s", got, want)
	}
	empty := ""
	keys := []partKey{{dir: "year"}, {dir: "region"}, {dir: "s"}}
	if got := hivePath(keys, []*string{strPtr("2024"), nil, &empty}); got != "year=2024/region=__HIVE_DEFAULT_PARTITION__/s=/" {
		t.Errorf("hive path %q", got)
	}
	// directory names: the column for identity, the transform otherwise, _<column> on a clash
	tbl := &catalog.Table{Name: "b", Columns: []catalog.Column{{ID: 1, Name: "tz", Type: "timestamptz"}, {ID: 2, Name: "ts", Type: "timestamp"}, {ID: 3, Name: "s", Type: "varchar"}}}
	ks, err := partitionKeys(tbl, &catalog.PartitionSpec{Keys: []catalog.PartitionKey{{Index: 0, ColumnID: 1, Transform: "year"}, {Index: 1, ColumnID: 2, Transform: "year"},
		{Index: 2, ColumnID: 3, Transform: "identity"}, {Index: 3, ColumnID: 2, Transform: "hour"}}})
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, k := range ks {
		dirs = append(dirs, k.dir)
	}
	if strings.Join(dirs, ",") != "year,year_ts,s,hour" {
		t.Errorf("hive key names %v, DuckDB uses year,year_ts,s,hour", dirs)
	}
}

func strPtr(s string) *string { return &s }

// TestPartitionCalendarFields: year/month/day/hour as DuckDB's functions return them
// (timestamptz in the writer's TimeZone), NULL for infinite timestamps, hour of a date 0.
func TestPartitionCalendarFields(t *testing.T) {
	ts := parsed(t, types.TimestamptzT, "2024-03-01 01:02:03.5+02").I64[0]
	for kind, want := range map[partTransform]int64{tYear: 2024, tMonth: 2, tDay: 29, tHour: 23} {
		if got, ok := calendarField(kind, types.Timestamptz, ts, nil); !ok || got != want {
			t.Errorf("%s = %d, want %d", transformNames[kind], got, want)
		}
	}
	// in the writer's TimeZone, as DuckDB: 2024-02-29 18:02:03.5-05 in New York
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	for kind, want := range map[partTransform]int64{tYear: 2024, tMonth: 2, tDay: 29, tHour: 18} {
		if got, ok := calendarField(kind, types.Timestamptz, ts, ny); !ok || got != want {
			t.Errorf("%s in New York = %d, want %d", transformNames[kind], got, want)
		}
	}
	// a timestamp without time zone is not shifted
	plain := parsed(t, types.TimestampT, "2024-03-01 01:02:03").I64[0]
	if got, _ := calendarField(tHour, types.Timestamp, plain, ny); got != 1 {
		t.Errorf("hour of a timestamp in New York = %d, want 1", got)
	}
	d := parsed(t, types.DateT, "2024-02-29").I64[0]
	if got, _ := calendarField(tHour, types.Date, d, nil); got != 0 {
		t.Errorf("hour of a date = %d", got)
	}
	if _, ok := calendarField(tYear, types.Timestamp, types.InfinityMicros, nil); ok {
		t.Errorf("year(infinity) is not NULL")
	}
}

// TestPartitionDDLRewrite: DuckDB's SET/RESET PARTITIONED BY becomes the storage-parameter
// form PostgreSQL's grammar parses, wherever it is in a multi-statement query, and nothing
// else is touched.
func TestPartitionDDLRewrite(t *testing.T) {
	cases := []struct{ in, want string }{
		{`ALTER TABLE t SET PARTITIONED BY (year(ts), region)`, `ALTER TABLE t SET (lakepg.partitioned_by = 'year(ts), region')`},
		{`alter table if exists s."T" set  partitioned  by (bucket(4, id)); SELECT 'set partitioned by (x)'`,
			`alter table if exists s."T" SET (lakepg.partitioned_by = 'bucket(4, id)'); SELECT 'set partitioned by (x)'`},
		{`ALTER TABLE t RESET PARTITIONED BY; ALTER TABLE u /* c */ SET PARTITIONED BY ("it's")`,
			`ALTER TABLE t RESET (lakepg.partitioned_by); ALTER TABLE u /* c */ SET (lakepg.partitioned_by = '"it''s"')`},
	}
	for _, c := range cases {
		got, ok := rewritePartitionDDL(c.in)
		if !ok || got != c.want {
			t.Errorf("rewrite %q\n got %q (%v)\nwant %q", c.in, got, ok, c.want)
		}
	}
	for _, q := range []string{`SELECT 'partitioned'`, `UPDATE t SET partitioned = 1`, `SELECT partitioned FROM t`} {
		if got, ok := rewritePartitionDDL(q); ok {
			t.Errorf("rewrite %q changed it to %q", q, got)
		}
	}
}

// TestPartitionPruneValues: which files partition values rule out, on synthetic files.
func TestPartitionPruneValues(t *testing.T) {
	tbl := &catalog.Table{Name: "p", Columns: []catalog.Column{
		{ID: 1, Name: "ts", Type: "timestamp"}, {ID: 2, Name: "tz", Type: "timestamptz"}, {ID: 3, Name: "r", Type: "varchar"}, {ID: 4, Name: "id", Type: "int32"}}}
	cols := []exec.ScanCol{{FieldID: 1, T: types.TimestampT}, {FieldID: 2, T: types.TimestamptzT}, {FieldID: 3, T: types.TextT}, {FieldID: 4, T: types.Int32T}}
	file := func(keys ...any) catalog.DataFile {
		f := catalog.DataFile{PartitionID: new(int64)}
		for i := 0; i < len(keys); i += 3 {
			pv := catalog.PartitionValue{PartitionKey: catalog.PartitionKey{Index: i / 3, ColumnID: keys[i].(int64), Transform: keys[i+1].(string)}}
			if s, ok := keys[i+2].(string); ok {
				pv.Value = &s
			}
			f.Partition = append(f.Partition, pv)
		}
		return f
	}
	cmp := func(col int, op exec.CmpOp, v *vec.Vector) bound { return bound{col: col, op: op, val: v} }
	ts := func(s string) *vec.Vector { return parsed(t, types.TimestampT, s) }
	tz := func(s string) *vec.Vector { return parsed(t, types.TimestamptzT, s) }
	text := func(s string) *vec.Vector { return one(types.TextT, func(v *vec.Vector) { v.AppendString(s) }) }
	march := file(int64(1), "year", "2024", int64(1), "month", "3")
	cases := []struct {
		name string
		f    catalog.DataFile
		b    bound
		keep bool
	}{
		{"ts >= April, file March 2024", march, cmp(0, exec.GE, ts("2024-04-01 00:00:00")), false},
		{"ts >= last microsecond of March", march, cmp(0, exec.GE, ts("2024-03-31 23:59:59.999999")), true},
		{"ts < March", march, cmp(0, exec.LT, ts("2024-03-01 00:00:00")), false},
		{"ts <= March 1st", march, cmp(0, exec.LE, ts("2024-03-01 00:00:00")), true},
		{"ts = 2023-03-05", march, cmp(0, exec.EQ, ts("2023-03-05 00:00:00")), false},
		{"month only, ts = May", file(int64(1), "month", "3"), cmp(0, exec.EQ, ts("2024-05-05 00:00:00")), false},
		{"month only, ts >= May (a range says nothing)", file(int64(1), "month", "3"), cmp(0, exec.GE, ts("2024-05-05 00:00:00")), true},
		{"year NULL (infinity)", file(int64(1), "year", nil), cmp(0, exec.GE, ts("2024-05-05 00:00:00")), true},
		{"tz day 29 UTC, bound 16h later", file(int64(2), "year", "2024", int64(2), "month", "2", int64(2), "day", "29"), cmp(1, exec.GE, tz("2024-03-01 15:00:00+00")), true},
		{"tz day 29, bound 17h later", file(int64(2), "year", "2024", int64(2), "month", "2", int64(2), "day", "29"), cmp(1, exec.GE, tz("2024-03-01 17:00:00+00")), false},
		{"tz hour alone is not used", file(int64(2), "hour", "3"), cmp(1, exec.EQ, tz("2024-03-01 17:00:00+00")), true},
		{"identity r = 'eu', file us", file(int64(3), "identity", "us"), cmp(2, exec.EQ, text("eu")), false},
		{"identity r > 'a', file us", file(int64(3), "identity", "us"), cmp(2, exec.GT, text("a")), true},
		{"identity NULL", file(int64(3), "identity", nil), cmp(2, exec.GT, text("a")), false},
		{"bucket(4, id) = 7 in bucket 3", file(int64(4), "bucket(4)", "3"), cmp(3, exec.EQ, ival(types.Int32T, 7)), true},
		{"bucket(4, id) = 7 in bucket 1", file(int64(4), "bucket(4)", "1"), cmp(3, exec.EQ, ival(types.Int32T, 7)), false},
		{"bucket, range", file(int64(4), "bucket(4)", "1"), cmp(3, exec.GT, ival(types.Int32T, 7)), true},
	}
	inList := vec.New(types.TextT, 2)
	inList.AppendString("eu")
	inList.AppendString("us")
	cases = append(cases,
		struct {
			name string
			f    catalog.DataFile
			b    bound
			keep bool
		}{"r IN ('eu','us'), file us", file(int64(3), "identity", "us"), bound{col: 2, op: exec.EQ, list: inList}, true},
		struct {
			name string
			f    catalog.DataFile
			b    bound
			keep bool
		}{"r IN ('eu','us'), file apac", file(int64(3), "identity", "apac"), bound{col: 2, op: exec.EQ, list: inList}, false})
	for _, c := range cases {
		if got := partitionMayMatch(c.f, tbl, cols, []bound{c.b}); got != c.keep {
			t.Errorf("%s: keep = %v, want %v", c.name, got, c.keep)
		}
	}
}

// catalogRows runs a query on the catalog database and returns "a|b" lines.
func catalogRows(t *testing.T, s *Session, q string) []string {
	t.Helper()
	db := s.eng.DB
	rows, err := db.SQL().QueryContext(context.Background(), db.Rebind(q))
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		var cells []string
		for _, v := range vals {
			switch x := v.(type) {
			case nil:
				cells = append(cells, "NULL")
			case []byte:
				cells = append(cells, string(x))
			default:
				cells = append(cells, fmt.Sprint(x))
			}
		}
		out = append(out, strings.Join(cells, "|"))
	}
	return out
}

// explainFiles is the "Files:" line of EXPLAIN q.
func explainFiles(t *testing.T, s *Session, q string) string {
	t.Helper()
	rows, _, err := run(t, s, "EXPLAIN "+q)
	if err != nil {
		t.Fatalf("EXPLAIN %s: %v", q, err)
	}
	for _, r := range rows {
		if f := strings.TrimSpace(r); strings.HasPrefix(f, "Files:") {
			return f
		}
	}
	t.Fatalf("EXPLAIN %s: no Files line in %q", q, rows)
	return ""
}

// TestPartitionedTable: SET PARTITIONED BY writes the catalog rows DuckDB writes; INSERT and
// UPDATE split rows into hive directories with one partition value row per key; queries prune
// files by partition values with the same answers as without; changing or resetting the
// keys keeps old files readable; merge_adjacent_files merges only within a partition.
func TestPartitionedTable(t *testing.T) {
	s := lake(t)
	must(t, s, `CALL lakepg.set_option('data_inlining_row_limit', '0')`)
	must(t, s, `CREATE TABLE p (id integer, ts timestamp, region text, amount numeric(10,2))`)
	must(t, s, `ALTER TABLE p SET PARTITIONED BY (year(ts), month(ts), region)`)
	must(t, s, `SELECT changes FROM lakepg.snapshots ORDER BY snapshot_id DESC LIMIT 1`, "altered_table:2")
	// the same keys again: nothing to do, no snapshot
	must(t, s, `ALTER TABLE p SET PARTITIONED BY (year(ts), month(ts), region)`)
	must(t, s, `SELECT count(*) FROM lakepg.snapshots`, "3")
	mustFail(t, s, `ALTER TABLE p DROP COLUMN region`, "42P16")
	mustFail(t, s, `ALTER TABLE p SET PARTITIONED BY (nope)`, "42703")
	mustFail(t, s, `ALTER TABLE p SET PARTITIONED BY (lower(region))`, "0A000")
	mustFail(t, s, `ALTER TABLE p SET PARTITIONED BY (year(region))`, "42804")
	mustFail(t, s, `ALTER TABLE p SET PARTITIONED BY (bucket(0, id))`, "22023")
	mustFail(t, s, `ALTER TABLE p SET (fillfactor = 70)`, "0A000")
	must(t, s, `SELECT count(*) FROM lakepg.snapshots`, "3")
	if got := catalogRows(t, s, `SELECT pi.partition_id, pi.begin_snapshot, pi.end_snapshot, pc.partition_key_index, pc.column_id, pc.transform
		FROM ducklake_partition_info pi JOIN ducklake_partition_column pc USING (partition_id) ORDER BY 4`); strings.Join(got, ";") !=
		"3|2|NULL|0|2|year;3|2|NULL|1|2|month;3|2|NULL|2|3|identity" {
		t.Errorf("partition rows: %q", got)
	}
	if got := catalogRows(t, s, `SELECT schema_version, next_catalog_id FROM ducklake_snapshot ORDER BY snapshot_id DESC LIMIT 1`); got[0] != "2|4" {
		t.Errorf("snapshot after SET PARTITIONED BY: schema_version|next_catalog_id = %s, want 2|4", got[0])
	}

	must(t, s, `INSERT INTO p SELECT i, TIMESTAMP '2024-01-01' + i * interval '100 hours',
		CASE WHEN i % 5 = 0 THEN NULL ELSE 'r' || (i % 3)::text END, i / 4.0 FROM generate_series(0, 199) i`)
	files := catalogRows(t, s, `SELECT count(*), count(DISTINCT partition_id) FROM ducklake_data_file`)
	// one file per (year, month, region) value set the rows have
	must(t, s, `SELECT count(*) FROM (SELECT DISTINCT extract(year FROM ts), extract(month FROM ts), region FROM p) x`, strings.Split(files[0], "|")[0])
	if got := catalogRows(t, s, `SELECT count(*) FROM ducklake_data_file WHERE partition_id = 3`); got[0] != strings.Split(files[0], "|")[0] {
		t.Errorf("files with partition_id 3: %s of %s", got[0], files[0])
	}
	// every file: its hive directory and its three values agree with its rows
	for _, r := range catalogRows(t, s, `SELECT df.path, y.partition_value, m.partition_value, coalesce(g.partition_value, 'NULL')
		FROM ducklake_data_file df
		JOIN ducklake_file_partition_value y ON y.data_file_id = df.data_file_id AND y.partition_key_index = 0
		JOIN ducklake_file_partition_value m ON m.data_file_id = df.data_file_id AND m.partition_key_index = 1
		JOIN ducklake_file_partition_value g ON g.data_file_id = df.data_file_id AND g.partition_key_index = 2`) {
		f := strings.Split(r, "|")
		region := f[3]
		dir := "year=" + f[1] + "/month=" + f[2] + "/region=" + region + "/"
		if region == "NULL" {
			dir = "year=" + f[1] + "/month=" + f[2] + "/region=__HIVE_DEFAULT_PARTITION__/"
		}
		if !strings.HasPrefix(f[0], dir) || !strings.HasSuffix(f[0], ".parquet") {
			t.Errorf("file %s has values %s", f[0], dir)
		}
	}

	queries := []string{
		`SELECT count(*), sum(amount) FROM p WHERE ts >= '2024-06-01' AND ts < '2024-08-01'`,
		`SELECT count(*), sum(amount) FROM p WHERE region = 'r1'`,
		`SELECT count(*), sum(amount) FROM p WHERE region IN ('r0', 'r2') AND ts > '2025-01-01'`,
		`SELECT count(*) FROM p WHERE ts = '2024-01-05 04:00:00'`,
		`SELECT count(*) FROM p WHERE region IS NULL`,
	}
	answers := make([][]string, len(queries))
	for i, q := range queries {
		answers[i], _, _ = run(t, s, q)
	}
	for _, q := range queries[:4] {
		if f := explainFiles(t, s, q); !strings.Contains(f, "by partition values") {
			t.Errorf("EXPLAIN %s: %s, want files pruned by partition values", q, f)
		}
	}
	must(t, s, `SET lakepg.partition_pruning = off`)
	for i, q := range queries {
		must(t, s, q, answers[i]...)
		if f := explainFiles(t, s, q); strings.Contains(f, "by partition values") {
			t.Errorf("pruning off: EXPLAIN %s: %s", q, f)
		}
	}
	must(t, s, `RESET lakepg.partition_pruning`)

	// UPDATE moves rows between partitions: the new versions go to their new directories
	must(t, s, `UPDATE p SET region = 'moved', ts = ts + interval '1 year' WHERE id < 10`)
	must(t, s, `SELECT count(*) FROM p WHERE region = 'moved' AND ts >= '2025-01-01'`, "10")
	if got := catalogRows(t, s, `SELECT count(*) FROM ducklake_data_file df JOIN ducklake_file_partition_value v
		ON v.data_file_id = df.data_file_id AND v.partition_key_index = 2 WHERE v.partition_value = 'moved' AND df.path LIKE 'year=2025/month=1/region=moved/%'`); got[0] != "1" {
		t.Errorf("files of the moved rows: %s", got)
	}
	for i, q := range queries[:1] {
		must(t, s, q, answers[i]...)
	}

	r1, _, _ := run(t, s, `SELECT count(*) FROM p WHERE region = 'r1'`)

	// new keys: old files keep theirs and stay readable and prunable
	must(t, s, `ALTER TABLE p SET PARTITIONED BY (bucket(4, id))`)
	must(t, s, `INSERT INTO p SELECT i, TIMESTAMP '2030-01-01', 'late', 1 FROM generate_series(1000, 1019) i`)
	if got := catalogRows(t, s, `SELECT count(DISTINCT path) FROM ducklake_data_file WHERE partition_id = 4 AND path LIKE 'bucket=_/%'`); got[0] != "4" {
		t.Errorf("bucket files: %s", got)
	}
	must(t, s, `SELECT count(*) FROM p`, "220")
	must(t, s, `SELECT id, region FROM p WHERE id = 1007`, "1007|late")
	if f := explainFiles(t, s, `SELECT * FROM p WHERE id = 1007`); !strings.Contains(f, "by partition values") {
		t.Errorf("bucket pruning: %s", f)
	}
	must(t, s, `SELECT count(*) FROM p WHERE region = 'r1'`, r1...)
	if f := explainFiles(t, s, `SELECT count(*) FROM p WHERE region = 'r1'`); !strings.Contains(f, "by partition values") {
		t.Errorf("old files after new keys: %s", f)
	}
	must(t, s, `ALTER TABLE p RESET PARTITIONED BY`)
	if got := catalogRows(t, s, `SELECT partition_id, end_snapshot IS NULL, (SELECT count(*) FROM ducklake_partition_column pc WHERE pc.partition_id = pi.partition_id)
		FROM ducklake_partition_info pi ORDER BY 1`); strings.Join(got, ";") != "3|0|3;4|0|1;5|1|0" {
		t.Errorf("partition_info after RESET: %q", got)
	}
	must(t, s, `ALTER TABLE p RESET PARTITIONED BY`) // nothing to reset: no snapshot
	must(t, s, `INSERT INTO p VALUES (2000, '2031-01-01', 'flat', 1), (2001, NULL, NULL, NULL)`)
	if got := catalogRows(t, s, `SELECT path NOT LIKE '%/%', partition_id IS NULL FROM ducklake_data_file ORDER BY data_file_id DESC LIMIT 1`); got[0] != "1|1" {
		t.Errorf("file after RESET: %s", got)
	}
	must(t, s, `SELECT count(*) FROM p`, "222")
}

// TestPartitionedMerge: merge_adjacent_files merges small files of one partition only; the
// merged file stays in the partition's directory with its partition values, and every
// snapshot reads what it read before.
func TestPartitionedMerge(t *testing.T) {
	s := lake(t)
	must(t, s, `CALL lakepg.set_option('data_inlining_row_limit', '0')`)
	must(t, s, `CREATE TABLE m (id integer, g text)`)
	must(t, s, `ALTER TABLE m SET PARTITIONED BY (g)`)
	for i := 0; i < 3; i++ {
		must(t, s, fmt.Sprintf(`INSERT INTO m SELECT i, CASE WHEN i %% 2 = 0 THEN 'a' ELSE 'b' END FROM generate_series(%d, %d) i`, i*10, i*10+9))
	}
	must(t, s, `INSERT INTO m VALUES (100, NULL), (101, NULL)`)
	must(t, s, `INSERT INTO m VALUES (102, NULL)`)
	before, _, _ := run(t, s, `SELECT g, count(*), sum(id) FROM m GROUP BY g ORDER BY g`)
	old, _, _ := run(t, s, `SELECT count(*) FROM lakepg.at_version('m', 4)`)
	must(t, s, `CALL ducklake_merge_adjacent_files('lake', 'public.m')`)
	must(t, s, `SELECT changes FROM lakepg.snapshots ORDER BY snapshot_id DESC LIMIT 1`, "merge_adjacent:2")
	got := catalogRows(t, s, `SELECT df.path, coalesce(v.partition_value, 'NULL'), df.partition_id FROM ducklake_data_file df
		JOIN ducklake_file_partition_value v ON v.data_file_id = df.data_file_id ORDER BY 2`)
	if len(got) != 3 {
		t.Fatalf("files after merging: %q, want one per partition", got)
	}
	for _, r := range got {
		f := strings.Split(r, "|")
		dir := "g=" + f[1] + "/"
		if f[1] == "NULL" {
			dir = "g=__HIVE_DEFAULT_PARTITION__/"
		}
		if !strings.HasPrefix(f[0], dir) || f[2] != "3" {
			t.Errorf("merged file %s, value %s, partition_id %s", f[0], f[1], f[2])
		}
	}
	must(t, s, `SELECT g, count(*), sum(id) FROM m GROUP BY g ORDER BY g`, before...)
	must(t, s, `SELECT count(*) FROM lakepg.at_version('m', 4)`, old...)
	if f := explainFiles(t, s, `SELECT * FROM m WHERE g = 'a'`); !strings.HasPrefix(f, "Files: 1 scanned, 2 pruned (2 by partition values)") {
		t.Errorf("after merging: %s", f)
	}

	// rewrite_data_files keeps the file in its partition
	must(t, s, `DELETE FROM m WHERE g = 'a' AND id > 2`)
	must(t, s, `CALL lakepg.rewrite_data_files('m', 0.5)`)
	must(t, s, `SELECT changes FROM lakepg.snapshots ORDER BY snapshot_id DESC LIMIT 1`, "rewrite_delete:2")
	if got := catalogRows(t, s, `SELECT df.path LIKE 'g=a/%', v.partition_value, df.partition_id, df.record_count FROM ducklake_data_file df
		JOIN ducklake_file_partition_value v ON v.data_file_id = df.data_file_id WHERE df.end_snapshot IS NULL AND v.partition_value = 'a'`); strings.Join(got, ";") != "1|a|3|2" {
		t.Errorf("rewritten file of partition a: %q", got)
	}
	must(t, s, `SELECT id FROM m WHERE g = 'a' ORDER BY id`, "0", "2")

	// inlined rows of a partitioned table, flushed: one file per partition, as DuckDB's
	// flush writes them
	must(t, s, `SET lakepg.data_inlining_row_limit = 10`)
	must(t, s, `INSERT INTO m VALUES (200, 'a'), (201, 'z')`)
	must(t, s, `SELECT changes FROM lakepg.snapshots ORDER BY snapshot_id DESC LIMIT 1`, "inlined_insert:2")
	must(t, s, `CALL lakepg.flush_inlined_data('m')`)
	if got := catalogRows(t, s, `SELECT df.partition_id, v.partition_value, df.path LIKE 'g=' || v.partition_value || '/%', df.record_count
		FROM ducklake_data_file df JOIN ducklake_file_partition_value v ON v.data_file_id = df.data_file_id
		WHERE df.begin_snapshot = (SELECT max(begin_snapshot) FROM ducklake_data_file) ORDER BY df.data_file_id`); strings.Join(got, ";") != "3|a|1|1;3|z|1|1" {
		t.Errorf("flushed files: %q", got)
	}
	must(t, s, `SELECT id FROM m WHERE g IN ('a', 'z') ORDER BY id`, "0", "2", "200", "201")
	if f := explainFiles(t, s, `SELECT * FROM m WHERE g = 'z'`); !strings.HasPrefix(f, "Files: 1 scanned") || !strings.Contains(f, "by partition values") {
		t.Errorf("after the flush, WHERE g = 'z': %s", f)
	}
}

// TestPartitionedRewriteInBlock: rows a transaction block wrote and then
// updates are rewritten into the partitions their new values belong to
// (an UPDATE of the key moves them), deletes of them rewrite their file;
// after COMMIT every file's partition value matches its rows.
func TestPartitionedRewriteInBlock(t *testing.T) {
	s := lake(t)
	must(t, s, `CALL lakepg.set_option('data_inlining_row_limit', '0')`)
	must(t, s, `CREATE TABLE pr (id integer, region text)`)
	must(t, s, `ALTER TABLE pr SET PARTITIONED BY (region)`)
	must(t, s, `BEGIN`)
	must(t, s, `INSERT INTO pr SELECT i, CASE WHEN i % 2 = 0 THEN 'a' ELSE 'b' END FROM generate_series(1, 10) i`)
	must(t, s, `UPDATE pr SET region = 'c' WHERE id IN (1, 2, 3)`)
	must(t, s, `DELETE FROM pr WHERE id = 10`)
	must(t, s, `SELECT region, count(*) FROM pr GROUP BY 1 ORDER BY 1`, "a|3", "b|3", "c|3")
	must(t, s, `COMMIT`)
	must(t, s, `SELECT region, count(*) FROM pr GROUP BY 1 ORDER BY 1`, "a|3", "b|3", "c|3")
	// each of the two staged files had rows moved to c: two files there
	got := catalogRows(t, s, `SELECT v.partition_value, sum(df.record_count), min(CASE WHEN df.path LIKE 'region=' || v.partition_value || '/%' THEN 1 ELSE 0 END)
		FROM ducklake_data_file df JOIN ducklake_file_partition_value v ON v.data_file_id = df.data_file_id
		WHERE df.end_snapshot IS NULL GROUP BY 1 ORDER BY 1`)
	if strings.Join(got, ";") != "a|3|1;b|3|1;c|3|1" {
		t.Errorf("files after the block (value|rows|all in its directory): %q", got)
	}
	if n := catalogRows(t, s, `SELECT count(*) FROM ducklake_data_file WHERE partition_id IS NULL`); n[0] != "0" {
		t.Errorf("%s unpartitioned files", n[0])
	}
	if f := explainFiles(t, s, `SELECT * FROM pr WHERE region = 'c'`); !strings.Contains(f, "by partition values") {
		t.Errorf("pruning the rewritten rows: %s", f)
	}
}
