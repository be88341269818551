package partitioning

import (
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
		got, ok := BucketHash(c.v, 0, c.dl)
		if !ok || got != c.want {
			t.Errorf("murmur3_32(%s) = %d (ok %v), DuckDB says %d", c.name, got, ok, c.want)
		}
	}
	// bucket(3) of 'z0', 'z1', 'z2' as DuckDB placed them: 0, 0, 2
	k := Key{Kind: Bucket, Buckets: 3, DLType: "varchar"}
	for i, want := range []string{"0", "0", "2"} {
		v := one(types.TextT, func(v *vec.Vector) { v.AppendString("z" + string(rune('0'+i))) })
		if got, null := k.Value(nil, v, 0); null || string(got) != want {
			t.Errorf("bucket(3, 'z%d') = %q, want %s", i, got, want)
		}
	}
}

// TestPartitionValueText: identity values and hive directories as DuckDB 1.5.5 wrote them
// for the same values (ducklake_file_partition_value and data file paths of its lake).
func TestPartitionValueText(t *testing.T) {
	text := func(v *vec.Vector) string { return string(AppendDuckText(nil, v, 0)) }
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
	if got := string(HiveValue(nil, &s)); got != want {
		t.Errorf("hive directory value\n got %s\nwant %s", got, want)
	}
	empty := ""
	keys := []Key{{Dir: "year"}, {Dir: "region"}, {Dir: "s"}}
	if got := HivePath(keys, []*string{strPtr("2024"), nil, &empty}); got != "year=2024/region=__HIVE_DEFAULT_PARTITION__/s=/" {
		t.Errorf("hive path %q", got)
	}
	// directory names: the column for identity, the transform otherwise, _<column> on a clash
	tbl := &catalog.Table{Name: "b", Columns: []catalog.Column{{ID: 1, Name: "tz", Type: "timestamptz"}, {ID: 2, Name: "ts", Type: "timestamp"}, {ID: 3, Name: "s", Type: "varchar"}}}
	ks, err := Keys(tbl, &catalog.PartitionSpec{Keys: []catalog.PartitionKey{{Index: 0, ColumnID: 1, Transform: "year"}, {Index: 1, ColumnID: 2, Transform: "year"},
		{Index: 2, ColumnID: 3, Transform: "identity"}, {Index: 3, ColumnID: 2, Transform: "hour"}}})
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, k := range ks {
		dirs = append(dirs, k.Dir)
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
	for kind, want := range map[Transform]int64{Year: 2024, Month: 2, Day: 29, Hour: 23} {
		if got, ok := CalendarField(kind, types.Timestamptz, ts, nil); !ok || got != want {
			t.Errorf("%s = %d, want %d", transformNames[kind], got, want)
		}
	}
	// in the writer's TimeZone, as DuckDB: 2024-02-29 18:02:03.5-05 in New York
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	for kind, want := range map[Transform]int64{Year: 2024, Month: 2, Day: 29, Hour: 18} {
		if got, ok := CalendarField(kind, types.Timestamptz, ts, ny); !ok || got != want {
			t.Errorf("%s in New York = %d, want %d", transformNames[kind], got, want)
		}
	}
	// a timestamp without time zone is not shifted
	plain := parsed(t, types.TimestampT, "2024-03-01 01:02:03").I64[0]
	if got, _ := CalendarField(Hour, types.Timestamp, plain, ny); got != 1 {
		t.Errorf("hour of a timestamp in New York = %d, want 1", got)
	}
	d := parsed(t, types.DateT, "2024-02-29").I64[0]
	if got, _ := CalendarField(Hour, types.Date, d, nil); got != 0 {
		t.Errorf("hour of a date = %d", got)
	}
	if _, ok := CalendarField(Year, types.Timestamp, types.InfinityMicros, nil); ok {
		t.Errorf("year(infinity) is not NULL")
	}
}

// TestPartitionEpochFields: the epoch transforms against what DuckDB's
// `date_diff(part, DATE '1970-01-01', v)` returned for the same values (1.5.5
// and 2.0.1 agree), which DuckDB 2.0's ducklake extension stores as the
// partition value; and each value's EpochRange holds the value and no
// neighbour.
func TestPartitionEpochFields(t *testing.T) {
	cases := []struct {
		typ  types.T
		text string
		want [4]int64 // year, month, day, hour
	}{
		{types.T{ID: types.Timestamp}, "1969-12-31 23:30:00", [4]int64{-1, -1, -1, -1}},
		{types.T{ID: types.Timestamp}, "1969-12-31 23:59:59.999999", [4]int64{-1, -1, -1, -1}},
		{types.T{ID: types.Timestamp}, "1969-01-01 00:00:00", [4]int64{-1, -12, -365, -8760}},
		{types.T{ID: types.Timestamp}, "1968-12-31 23:00:00", [4]int64{-2, -13, -366, -8761}},
		{types.T{ID: types.Timestamp}, "2017-11-16 22:31:08", [4]int64{47, 574, 17486, 419686}},
		{types.T{ID: types.Timestamp}, "1970-01-01 00:00:00", [4]int64{0, 0, 0, 0}},
		{types.T{ID: types.Date}, "1969-12-31", [4]int64{-1, -1, -1, -24}},
		{types.T{ID: types.Date}, "1969-01-15", [4]int64{-1, -12, -351, -8424}},
		// the UTC instant, whatever zone the text or the session has
		{types.T{ID: types.Timestamptz}, "2020-01-01 00:30:00+05", [4]int64{49, 599, 18261, 438283}},
	}
	kinds := [4]Transform{EpochYear, EpochMonth, EpochDay, EpochHour}
	for _, c := range cases {
		v := parsed(t, c.typ, c.text)
		x := v.I64[0]
		for i, kind := range kinds {
			got, ok := EpochField(kind, c.typ.ID, x)
			if !ok || got != c.want[i] {
				t.Errorf("%s of %s %s = %d, %v; want %d", transformNames[kind], c.typ, c.text, got, ok, c.want[i])
				continue
			}
			lo, hi, ok := EpochRange(kind, c.typ.ID, got)
			if !ok || x < lo || x > hi {
				t.Errorf("%s range of %d = [%d, %d] %v does not hold %s", transformNames[kind], got, lo, hi, ok, c.text)
			}
			if f, _ := EpochField(kind, c.typ.ID, lo); f != got {
				t.Errorf("%s: low end %d of range %d has value %d", transformNames[kind], lo, got, f)
			}
			if f, _ := EpochField(kind, c.typ.ID, hi); f != got {
				t.Errorf("%s: high end %d of range %d has value %d", transformNames[kind], hi, got, f)
			}
			// a date's hours step by 24
			dateHours := kind == EpochHour && c.typ.ID == types.Date
			if f, _ := EpochField(kind, c.typ.ID, lo-1); f != got-1 && !dateHours {
				t.Errorf("%s: just below range %d has value %d", transformNames[kind], got, f)
			}
			if f, _ := EpochField(kind, c.typ.ID, hi+1); f != got+1 && !dateHours {
				t.Errorf("%s: just above range %d has value %d", transformNames[kind], got, f)
			}
		}
	}
	for _, x := range []int64{types.InfinityMicros, types.NegInfinityMicros} {
		if _, ok := EpochField(EpochDay, types.Timestamp, x); ok {
			t.Errorf("epoch_day of infinite timestamp %d has a value", x)
		}
	}
	if _, ok := EpochField(EpochYear, types.Date, types.DateInfinity); ok {
		t.Errorf("epoch_year of infinite date has a value")
	}
	for _, s := range []string{"epoch_year", "EPOCH_Hour", " epoch_day "} {
		if !IsEpochTransform(s) {
			t.Errorf("IsEpochTransform(%q) = false", s)
		}
	}
	for _, s := range []string{"year", "bucket(4)", "epoch", "epoch_minute"} {
		if IsEpochTransform(s) {
			t.Errorf("IsEpochTransform(%q) = true", s)
		}
	}
}

// TestPartitionKeyDirNames: directory names as DuckDB's GetPartitionKeyName
// picks them when transforms or columns collide.
func TestPartitionKeyDirNames(t *testing.T) {
	tbl := &catalog.Table{Name: "t", Columns: []catalog.Column{
		{ID: 1, Name: "ts", Type: "timestamp"}, {ID: 2, Name: "epoch_year", Type: "int32"}, {ID: 3, Name: "t2", Type: "timestamp"}}}
	spec := &catalog.PartitionSpec{Keys: []catalog.PartitionKey{
		{Index: 0, ColumnID: 1, Transform: "epoch_year"}, {Index: 1, ColumnID: 2, Transform: "identity"},
		{Index: 2, ColumnID: 3, Transform: "year"}, {Index: 3, ColumnID: 1, Transform: "year"}}}
	keys, err := Keys(tbl, spec)
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, k := range keys {
		dirs = append(dirs, k.Dir)
	}
	if got, want := strings.Join(dirs, ","), "epoch_year,epoch_year_epoch_year,year,year_ts"; got != want {
		t.Errorf("dirs %s, want %s", got, want)
	}
}
