package types

import (
	"math"
	"testing"
	"time"
)

func TestAppendFloatMatchesPostgres(t *testing.T) {
	cases := []struct {
		f    float64
		bits int
		want string
	}{
		{100.5, 64, "100.5"}, {250, 64, "250"}, {0.1, 64, "0.1"}, {1e15, 64, "1e+15"},
		{123456789012345, 64, "123456789012345"}, {1e-5, 64, "1e-05"}, {0.0001, 64, "0.0001"},
		{123456789012345678, 64, "1.2345678901234568e+17"}, {math.Inf(1), 64, "Infinity"},
		{math.Inf(-1), 64, "-Infinity"}, {math.NaN(), 64, "NaN"}, {-0.0, 64, "0"},
		{float64(float32(0.1)), 32, "0.1"}, {1e6, 32, "1e+06"}, {123456, 32, "123456"},
		{float64(float32(3.14159)), 32, "3.14159"}, {1.0 / 3, 64, "0.3333333333333333"},
	}
	for _, c := range cases {
		if got := string(AppendFloat(nil, c.f, c.bits)); got != c.want {
			t.Errorf("AppendFloat(%v, %d) = %q, want %q", c.f, c.bits, got, c.want)
		}
	}
}

func TestNumericTextRoundTrip(t *testing.T) {
	cases := []struct {
		in   string
		p, s int
		want string
	}{
		{"1.5", 10, 2, "1.50"}, {"-0.005", 10, 2, "-0.01"}, {"123", 5, 0, "123"}, {"0.004", 4, 2, "0.00"},
		{"99.995", 5, 2, "100.00"}, {"1e2", 6, 1, "100.0"},
	}
	for _, c := range cases {
		v, err := ParseNumeric(c.in, c.p, c.s)
		if err != nil {
			t.Fatalf("ParseNumeric(%q): %v", c.in, err)
		}
		if got := string(AppendNumeric(nil, v, c.s)); got != c.want {
			t.Errorf("numeric(%d,%d) %q = %q, want %q", c.p, c.s, c.in, got, c.want)
		}
	}
	if _, err := ParseNumeric("1000", 5, 2); err == nil {
		t.Error("numeric(5,2) accepted 1000")
	}
	if _, err := ParseNumeric("abc", 5, 2); err == nil {
		t.Error("numeric accepted abc")
	}
}

func TestDatesAndTimestamps(t *testing.T) {
	d, err := ParseDate("2024-02-29")
	if err != nil {
		t.Fatal(err)
	}
	if got := string(AppendDate(nil, d)); got != "2024-02-29" {
		t.Errorf("date = %s", got)
	}
	if _, err := ParseDate("2023-02-29"); err == nil {
		t.Error("accepted 2023-02-29")
	}
	ts, err := ParseTimestamp("2026-11-30 10:00:00.123")
	if err != nil {
		t.Fatal(err)
	}
	if got := string(AppendTimestamp(nil, ts)); got != "2026-11-30 10:00:00.123" {
		t.Errorf("timestamp = %s", got)
	}
	tz, err := ParseTimestamptz("2026-11-30 10:00:00+02", time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(AppendTimestamptz(nil, tz, time.UTC)); got != "2026-11-30 08:00:00+00" {
		t.Errorf("timestamptz = %s", got)
	}
	ny, _ := LoadLocation("America/New_York")
	if got := string(AppendTimestamptz(nil, tz, ny)); got != "2026-11-30 03:00:00-05" {
		t.Errorf("timestamptz in New York = %s", got)
	}
	ist, _ := LoadLocation("Asia/Kolkata")
	if got := string(AppendTimestamptz(nil, tz, ist)); got != "2026-11-30 13:30:00+05:30" {
		t.Errorf("timestamptz in Kolkata = %s", got)
	}
	local, _ := ParseTimestamptz("2026-07-01 12:00:00", ny)
	if got := string(AppendTimestamptz(nil, local, time.UTC)); got != "2026-07-01 16:00:00+00" {
		t.Errorf("local timestamptz = %s", got)
	}
}

func TestBoolByteaUUID(t *testing.T) {
	for _, s := range []string{"t", "true", "YES", "on", "1"} {
		if b, err := ParseBool(s); err != nil || !b {
			t.Errorf("ParseBool(%q) = %v, %v", s, b, err)
		}
	}
	if _, err := ParseBool("maybe"); err == nil {
		t.Error("ParseBool accepted maybe")
	}
	b, err := ParseBytea(`\xdeadbeef`)
	if err != nil || string(AppendBytea(nil, b)) != `\xdeadbeef` {
		t.Errorf("bytea round trip: %q %v", AppendBytea(nil, b), err)
	}
	u, err := ParseUUID("A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11")
	if err != nil || string(AppendUUID(nil, u)) != "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11" {
		t.Errorf("uuid round trip: %q %v", AppendUUID(nil, u), err)
	}
}

func TestDuckLakeNames(t *testing.T) {
	for _, tt := range []T{BoolT, Int16T, Int32T, Int64T, Float32T, Float64T, NumericT(10, 2), TextT, ByteaT, DateT, TimestampT, TimestamptzT, UUIDT} {
		name, err := tt.DuckLake()
		if err != nil {
			t.Fatal(err)
		}
		back, err := FromDuckLake(name)
		if err != nil || back.ID != tt.ID || back.Scale != tt.Scale {
			t.Errorf("%s -> %s -> %v (%v)", tt, name, back, err)
		}
	}
	if NumericT(10, 2).Typmod() != (10<<16|2)+4 {
		t.Error("numeric typmod")
	}
	// an expression's numeric (a scale, no precision) is stored as the
	// decimal(18,s) Parquet holds; catalogs that said decimal(0,s) still read
	if name, err := (T{ID: Numeric, Scale: 1}).DuckLake(); err != nil || name != "decimal(18,1)" {
		t.Errorf("numeric without precision -> %q %v, want decimal(18,1)", name, err)
	}
	if back, err := FromDuckLake("decimal(0,1)"); err != nil || back != NumericT(18, 1) {
		t.Errorf("decimal(0,1) -> %v %v, want numeric(18,1)", back, err)
	}
}

// AppendDate's integer calendar gives what time.Time does, across era
// boundaries, leap centuries and the edges of the four-digit years where
// it hands over to time.
func TestAppendDateMatchesTime(t *testing.T) {
	check := func(days int64) {
		want := string(appendYMD(nil, time.Unix(days*86400, 0).UTC()))
		if got := string(AppendDate(nil, days)); got != want {
			t.Fatalf("AppendDate(%d) = %q, want %q", days, got, want)
		}
	}
	for days := int64(-800000); days <= 3000000; days += 37 {
		check(days)
	}
	for _, ymd := range [][3]int{{1, 1, 1}, {0, 12, 31}, {1600, 2, 29}, {1700, 3, 1}, {1900, 2, 28}, {2000, 2, 29}, {2100, 3, 1}, {9999, 12, 31}, {10000, 1, 1}, {-44, 3, 15}} {
		days := time.Date(ymd[0], time.Month(ymd[1]), ymd[2], 0, 0, 0, 0, time.UTC).Unix() / 86400
		for d := days - 2; d <= days+2; d++ {
			check(d)
		}
	}
}

func TestAppendNumericScales(t *testing.T) {
	cases := []struct {
		v     int64
		scale int
		want  string
	}{
		{0, 2, "0.00"}, {5, 2, "0.05"}, {-5, 3, "-0.005"}, {100, 2, "1.00"}, {-123456, 2, "-1234.56"},
		{7, 0, "7"}, {-7, -1, "-7"}, {math.MaxInt64, 4, "922337203685477.5807"}, {math.MinInt64, 18, "-9.223372036854775808"},
	}
	for _, c := range cases {
		if got := string(AppendNumeric([]byte("x"), c.v, c.scale)); got != "x"+c.want {
			t.Errorf("AppendNumeric(%d, %d) = %q, want %q", c.v, c.scale, got, "x"+c.want)
		}
	}
}
