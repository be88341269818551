package parquetio

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// allTypeCols has one column of every type lakepg stores, with field ids
// that are not positions, so matching by position would fail.
var allTypeCols = []Column{
	{FieldID: 11, Name: "b", Type: types.BoolT},
	{FieldID: 12, Name: "i16", Type: types.Int16T},
	{FieldID: 13, Name: "i32", Type: types.Int32T},
	{FieldID: 14, Name: "i64", Type: types.Int64T},
	{FieldID: 15, Name: "f32", Type: types.Float32T},
	{FieldID: 16, Name: "f64", Type: types.Float64T},
	{FieldID: 17, Name: "d9", Type: types.NumericT(9, 2)},
	{FieldID: 18, Name: "d18", Type: types.NumericT(18, 6)},
	{FieldID: 19, Name: "s", Type: types.TextT},
	{FieldID: 20, Name: "bl", Type: types.ByteaT},
	{FieldID: 21, Name: "dt", Type: types.DateT},
	{FieldID: 22, Name: "ts", Type: types.TimestampT},
	{FieldID: 23, Name: "tz", Type: types.TimestamptzT},
	{FieldID: 24, Name: "u", Type: types.UUIDT},
}

// allTypeGens makes deterministic values with NULLs at a different period
// per column (column 0 has none).
func allTypeGens() []genFunc {
	null := func(c int, g genFunc) genFunc {
		if c == 0 {
			return g
		}
		return func(i int) cell {
			if (i+c)%(c+3) == 0 {
				return nil
			}
			return g(i)
		}
	}
	gs := []genFunc{
		func(i int) cell { return i%3 == 0 },
		func(i int) cell { return int64(i%65536 - 32768) },
		func(i int) cell { return int64(i*7919 - 1<<30) },
		func(i int) cell { return int64(i)*1_000_000_007 - 1<<40 },
		func(i int) cell { return float64(float32(i) / 3) },
		func(i int) cell { return float64(i)/7 - 100 },
		func(i int) cell { return int64(i*13 - 5000) },
		func(i int) cell { return int64(i)*123456789 - 1<<50 },
		func(i int) cell { return fmt.Sprintf("str %d ünï %s", i%97, strings.Repeat("x", i%5)) },
		func(i int) cell { return string([]byte{0, 0xff, byte(i), byte(i >> 8)})[:i%5] },
		func(i int) cell { return int64(i - 5000) },
		func(i int) cell { return int64(i)*3_600_000_123 - 1<<40 },
		func(i int) cell { return int64(i) * 60_000_000 },
		func(i int) cell {
			var u [16]byte
			for k := range u {
				u[k] = byte(i*31 + k)
			}
			return string(u[:])
		},
	}
	for c := range gs {
		gs[c] = null(c, gs[c])
	}
	return gs
}

func TestRoundTripAllTypes(t *testing.T) {
	const n = 10_000
	gens := allTypeGens()
	// Batches of 777 rows straddle the 1000-row row groups.
	data, info := writeRows(t, allTypeCols, gens, n, 777, WriterOptions{RowGroupRows: 1000})

	if info.Rows != n {
		t.Fatalf("Rows = %d", info.Rows)
	}
	if info.Size != int64(len(data)) {
		t.Fatalf("Size = %d, wrote %d bytes", info.Size, len(data))
	}
	if info.FooterSize != footerLen(data) || string(data[len(data)-4:]) != "PAR1" {
		t.Fatalf("FooterSize = %d, file says %d", info.FooterSize, footerLen(data))
	}
	f, err := Open(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if f.NumRows() != n || f.NumRowGroups() != 10 {
		t.Fatalf("NumRows %d, NumRowGroups %d", f.NumRows(), f.NumRowGroups())
	}
	for g := 0; g < 10; g++ {
		if f.RowGroupNumRows(g) != 1000 || f.RowGroupStart(g) != int64(g*1000) {
			t.Fatalf("row group %d: %d rows from %d", g, f.RowGroupNumRows(g), f.RowGroupStart(g))
		}
	}
	// Schema: names, order and field ids as given; every column OPTIONAL.
	for i, fl := range f.Fields() {
		c := allTypeCols[i]
		if fl.Name != c.Name || !fl.HasFieldID || fl.FieldID != c.FieldID || !fl.TypeOK || fl.Type != c.Type {
			t.Errorf("field %d = %+v, want %+v", i, fl, c)
		}
		if e := f.top[i].elem; !e.hasRep || e.rep != repOptional {
			t.Errorf("field %s not OPTIONAL", fl.Name)
		}
	}

	rows, pos, s := scanAll(t, data, projFor(allTypeCols), ScanOptions{})
	if len(rows) != n {
		t.Fatalf("read %d rows", len(rows))
	}
	if s.RowGroupsScanned() != 10 || s.RowGroupsPruned() != 0 {
		t.Fatalf("scanned %d pruned %d", s.RowGroupsScanned(), s.RowGroupsPruned())
	}
	for i, row := range rows {
		if pos[i] != int64(i) {
			t.Fatalf("row %d reported at position %d", i, pos[i])
		}
		for c, got := range row {
			if want := gens[c](i); !sameCell(got, want) {
				t.Fatalf("row %d column %s = %#v, want %#v", i, allTypeCols[c].Name, got, want)
			}
		}
	}
}

func TestPhysicalTypesLikeDuckDB(t *testing.T) {
	data, _ := writeRows(t, allTypeCols, allTypeGens(), 10, 10, WriterOptions{})
	f, err := Open(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"b": "BOOLEAN", "i16": "INT32 INT(16)", "i32": "INT32 INT(32)", "i64": "INT64 INT(64)",
		"f32": "FLOAT", "f64": "DOUBLE", "d9": "INT32 DECIMAL(9,2)", "d18": "INT64 DECIMAL(18,6)",
		"s": "BYTE_ARRAY STRING", "bl": "BYTE_ARRAY", "dt": "INT32 DATE",
		"ts": "INT64 TIMESTAMP(us,utc=false)", "tz": "INT64 TIMESTAMP(us,utc=true)",
		"u": "FIXED_LEN_BYTE_ARRAY(16) UUID",
	}
	for _, tf := range f.top {
		e := tf.elem
		got := map[int32]string{physBoolean: "BOOLEAN", physInt32: "INT32", physInt64: "INT64", physFloat: "FLOAT",
			physDouble: "DOUBLE", physByteArray: "BYTE_ARRAY", physFixed: "FIXED_LEN_BYTE_ARRAY"}[e.typ]
		if e.typ == physFixed {
			got += fmt.Sprintf("(%d)", e.typeLen)
		}
		switch lt := e.logical; lt.kind {
		case logInteger:
			got += fmt.Sprintf(" INT(%d)", lt.intBits)
			if !lt.intSigned {
				got += " unsigned"
			}
		case logDecimal:
			got += fmt.Sprintf(" DECIMAL(%d,%d)", lt.decPrec, lt.decScale)
		case logString:
			got += " STRING"
		case logDate:
			got += " DATE"
		case logTimestamp:
			got += fmt.Sprintf(" TIMESTAMP(%s,utc=%v)", map[int8]string{1: "ms", 2: "us", 3: "ns"}[lt.unit], lt.utc)
		case logUUID:
			got += " UUID"
		}
		if got != want[e.name] {
			t.Errorf("%s: %s, want %s", e.name, got, want[e.name])
		}
	}
}

func TestStatsExact(t *testing.T) {
	cols := []Column{
		{FieldID: 1, Name: "b", Type: types.BoolT},
		{FieldID: 2, Name: "i", Type: types.Int32T},
		{FieldID: 3, Name: "f", Type: types.Float64T},
		{FieldID: 4, Name: "g", Type: types.Float32T},
		{FieldID: 5, Name: "d", Type: types.NumericT(5, 2)},
		{FieldID: 6, Name: "dt", Type: types.DateT},
		{FieldID: 7, Name: "ts", Type: types.TimestampT},
		{FieldID: 8, Name: "tz", Type: types.TimestamptzT},
		{FieldID: 9, Name: "s", Type: types.TextT},
		{FieldID: 10, Name: "bl", Type: types.ByteaT},
		{FieldID: 11, Name: "u", Type: types.UUIDT},
		{FieldID: 12, Name: "allnull", Type: types.Int64T},
		{FieldID: 13, Name: "nan", Type: types.Float64T},
		{FieldID: 14, Name: "big", Type: types.Float64T},
	}
	u1 := "\x00\x00\x00\x00\x11\x11\x22\x22\x33\x33\x44\x44\x44\x44\x44\x44"
	u2 := "\x00\x00\x00\x09\x11\x11\x22\x22\x33\x33\x44\x44\x44\x44\x44\x44"
	// DATE '0044-03-15' - 100000 and TIMESTAMP '0001-01-01' - 1 day, which
	// DuckDB spells '0231-05-31 (BC)' and '0001-12-31 (BC) 00:00:00'.
	bcDate := time.Date(44, 3, 15, 0, 0, 0, 0, time.UTC).Unix()/86400 - 100000
	bcTS := time.Date(0, 12, 31, 0, 0, 0, 0, time.UTC).UnixMicro()
	table := [][]cell{
		{false, int64(-7), 1e16, float64(float32(1e-7)), int64(-5), bcDate, int64(1577836800500000), int64(1577836800250000), "a", "abc\x01", u1, nil, math.NaN(), math.Inf(-1)},
		{false, int64(12), math.NaN(), math.Inf(1), int64(150), int64(10957), bcTS, types.NegInfinityMicros, "zz", "", u2, nil, math.NaN(), 3e-5},
		{nil, nil, -2.5, -2.5, nil, nil, nil, nil, "a\x00", nil, nil, nil, nil, 123456789012345678.0},
	}
	gens := make([]genFunc, len(cols))
	for c := range cols {
		gens[c] = func(i int) cell { return table[i][c] }
	}
	_, info := writeRows(t, cols, gens, len(table), 10, WriterOptions{})
	type exp struct {
		min, max      string // "" = nil
		values, nulls int64
		nan           string // "", "t", "f"
	}
	want := []exp{
		{"0", "0", 2, 1, ""},
		{"-7", "12", 2, 1, ""},
		{"-2.5", "1e+16", 3, 0, "t"},
		{"-2.5", "inf", 3, 0, "f"},
		{"-0.05", "1.50", 2, 1, ""},
		{"0231-05-31 (BC)", "2000-01-01", 2, 1, ""},
		{"0001-12-31 (BC) 00:00:00", "2020-01-01 00:00:00.5", 2, 1, ""},
		{"-infinity", "2020-01-01 00:00:00.25+00", 2, 1, ""},
		{"a", "zz", 3, 0, ""},
		{"", "61626301", 2, 1, ""},
		{"00000000-1111-2222-3333-444444444444", "00000009-1111-2222-3333-444444444444", 2, 1, ""},
		{"", "", 0, 3, ""},
		{"", "", 2, 1, "t"},
		{"-inf", "1.2345678901234568e+17", 3, 0, "f"},
	}
	for i, cs := range info.Stats {
		w := want[i]
		name := cols[i].Name
		if cs.FieldID != cols[i].FieldID {
			t.Errorf("%s: field id %d", name, cs.FieldID)
		}
		str := func(p *string) string {
			if p == nil {
				return ""
			}
			return *p
		}
		if name == "bl" {
			// An empty blob is a real minimum: "" must be present, not nil.
			if cs.Min == nil || *cs.Min != "" || str(cs.Max) != w.max {
				t.Errorf("bl: min %v max %q", cs.Min, str(cs.Max))
			}
		} else if str(cs.Min) != w.min || str(cs.Max) != w.max || (cs.Min == nil) != (w.min == "") {
			t.Errorf("%s: min %q max %q, want %q %q", name, str(cs.Min), str(cs.Max), w.min, w.max)
		}
		if cs.ValueCount != w.values || cs.NullCount != w.nulls {
			t.Errorf("%s: values %d nulls %d, want %d %d", name, cs.ValueCount, cs.NullCount, w.values, w.nulls)
		}
		nan := ""
		if cs.ContainsNaN != nil {
			nan = map[bool]string{true: "t", false: "f"}[*cs.ContainsNaN]
		}
		if nan != w.nan {
			t.Errorf("%s: contains_nan %q, want %q", name, nan, w.nan)
		}
		if cs.SizeBytes <= 0 {
			t.Errorf("%s: size %d", name, cs.SizeBytes)
		}
	}
}

func TestStatsTextNULInExtreme(t *testing.T) {
	cols := []Column{{FieldID: 1, Name: "s", Type: types.TextT}}
	vals := []string{"b", "a\x00x", "c"}
	_, info := writeRows(t, cols, []genFunc{func(i int) cell { return vals[i] }}, 3, 3, WriterOptions{})
	cs := info.Stats[0]
	if cs.Min != nil || cs.Max == nil || *cs.Max != "c" {
		t.Fatalf("min %v max %v: a minimum containing NUL must be NULL", cs.Min, cs.Max)
	}
}

func TestStatTextHelper(t *testing.T) {
	cases := []struct {
		t    types.T
		v    cell
		want string
		ok   bool
	}{
		{types.BoolT, true, "1", true},
		{types.Int16T, int64(-3), "-3", true},
		{types.Float64T, 8.0, "8.0", true},
		{types.Float64T, 0.14285714285714285, "0.14285714285714285", true},
		{types.Float32T, float64(float32(1) / 3), "0.33333334", true},
		{types.Float32T, float64(float32(123456789)), "123456790.0", true},
		{types.Float64T, 1e15, "1000000000000000.0", true},
		{types.Float64T, 1e-5, "1e-05", true},
		{types.Float64T, 0.0001, "0.0001", true},
		{types.Float64T, 1.5e300, "1.5e+300", true},
		{types.Float64T, math.Copysign(0, -1), "0.0", true},
		{types.Float64T, math.NaN(), "", false},
		{types.NumericT(18, 4), int64(57141429), "5714.1429", true},
		{types.NumericT(9, 2), int64(0), "0.00", true},
		{types.NumericT(4, 0), int64(-12), "-12", true},
		{types.DateT, int64(10957), "2000-01-01", true},
		{types.DateT, int64(math.MaxInt32), "infinity", true},
		{types.TimestampT, int64(1583020799123456), "2020-02-29 23:59:59.123456", true},
		{types.TimestampT, int64(1735689600000000), "2025-01-01 00:00:00", true},
		{types.TimestampT, int64(1577836800000010), "2020-01-01 00:00:00.00001", true},
		{types.TimestampT, types.InfinityMicros, "infinity", true},
		{types.TimestamptzT, int64(1615687199000000), "2021-03-14 01:59:59+00", true},
		{types.TimestampT, int64(-62135683200000000), "0001-12-31 (BC) 00:00:00", true},
		{types.TextT, "str 0 ünï", "str 0 ünï", true},
		{types.TextT, "a\x00", "", false},
		{types.ByteaT, "\x00\xff0", "00FF30", true},
		{types.UUIDT, "\x00\x00\x00\x00\x11\x11\x22\x22\x33\x33\x44\x44\x44\x44\x44\x44", "00000000-1111-2222-3333-444444444444", true},
		{types.Int64T, nil, "", false},
	}
	for _, c := range cases {
		v := vec.New(c.t, 1)
		appendCell(v, c.v)
		got, ok := StatText(c.t, v, 0)
		if got != c.want || ok != c.ok {
			t.Errorf("StatText(%s, %v) = %q %v, want %q %v", c.t, c.v, got, ok, c.want, c.ok)
		}
	}
}

func TestEmptyFile(t *testing.T) {
	data, info := writeRows(t, allTypeCols, allTypeGens(), 0, 10, WriterOptions{})
	if info.Rows != 0 || info.Size != int64(len(data)) || info.FooterSize != footerLen(data) {
		t.Fatalf("info %+v", info)
	}
	for _, cs := range info.Stats {
		if cs.Min != nil || cs.Max != nil || cs.ValueCount != 0 || cs.NullCount != 0 {
			t.Fatalf("stats %+v", cs)
		}
	}
	rows, _, _ := scanAll(t, data, projFor(allTypeCols), ScanOptions{})
	if len(rows) != 0 {
		t.Fatalf("%d rows", len(rows))
	}
}

func TestWriterRejects(t *testing.T) {
	var buf bytes.Buffer
	if _, err := NewWriter(&buf, []Column{{FieldID: 1, Name: "n", Type: types.NumericAnyT}}, WriterOptions{}); pgerr.Code(err) != pgerr.FeatureNotSupported {
		t.Errorf("unconstrained numeric: %v", err)
	}
	if _, err := NewWriter(&buf, []Column{{FieldID: 1, Name: "a", Type: types.Int64T}, {FieldID: 2, Name: "a", Type: types.Int64T}}, WriterOptions{}); err == nil {
		t.Error("duplicate names accepted")
	}
	w, err := NewWriter(&buf, []Column{{FieldID: 1, Name: "a", Type: types.Int16T}}, WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b := vec.NewBatch([]types.T{types.Int16T}, 1)
	b.Vecs[0].AppendInt(40000)
	b.N = 1
	if err := w.Write(b); pgerr.Code(err) != pgerr.NumericValueOutOfRange {
		t.Errorf("int16 overflow: %v", err)
	}
	if _, err := w.Close(); err == nil {
		t.Error("close after failed write succeeded")
	}
	if err := w.Write(b); !errors.Is(err, errClosed) {
		t.Errorf("write after close: %v", err)
	}
}

func TestIntervalRoundTrip(t *testing.T) {
	cols := []Column{{FieldID: 1, Name: "iv", Type: types.IntervalT}, {FieldID: 2, Name: "n", Type: types.Int64T}}
	ivs := []types.IntervalValue{
		{}, {Months: 14, Days: 3, Micros: 4*types.MicrosPerHour + 5_500_000}, {Days: 1, Micros: 1_000_000},
		{Micros: 1000 * types.MicrosPerHour}, {Months: 1},
	}
	gen := func(i int) cell {
		if i%7 == 3 {
			return nil
		}
		return ivs[i%len(ivs)]
	}
	var buf bytes.Buffer
	w, err := NewWriter(&buf, cols, WriterOptions{RowGroupRows: 100})
	if err != nil {
		t.Fatal(err)
	}
	b := vec.NewBatch([]types.T{types.IntervalT, types.Int64T}, 64)
	const n = 250
	for lo := 0; lo < n; lo += 64 {
		b.Reset()
		for i := lo; i < min(lo+64, n); i++ {
			if x := gen(i); x == nil {
				b.Vecs[0].AppendNull()
			} else {
				b.Vecs[0].AppendInterval(x.(types.IntervalValue))
			}
			b.Vecs[1].AppendInt(int64(i))
		}
		b.N = min(lo+64, n) - lo
		if err := w.Write(b); err != nil {
			t.Fatal(err)
		}
	}
	info, err := w.Close()
	if err != nil {
		t.Fatal(err)
	}
	if cs := info.Stats[0]; cs.Min != nil || cs.Max != nil || cs.ValueCount+cs.NullCount != n || cs.NullCount != 36 {
		t.Fatalf("interval stats %+v", cs)
	}
	data := buf.Bytes()
	f, err := Open(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if fl := f.Fields()[0]; fl.Type != types.IntervalT || !fl.TypeOK {
		t.Fatalf("field %+v", fl)
	}
	s := f.Scan(projFor(cols), ScanOptions{})
	var rb vec.Batch
	row := 0
	for {
		_, ok, err := s.Next(&rb)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		for r := 0; r < rb.N; r++ {
			want := gen(row)
			v := rb.Vecs[0]
			if (want == nil) != v.IsNull(r) || (want != nil && v.Iv[r] != want.(types.IntervalValue)) {
				t.Fatalf("row %d: %v (null %v), want %v", row, v.Iv[r], v.IsNull(r), want)
			}
			row++
		}
	}
	if row != n {
		t.Fatalf("%d rows", row)
	}
	// Parquet cannot hold negative parts.
	w, _ = NewWriter(&buf, cols[:1], WriterOptions{})
	b = vec.NewBatch([]types.T{types.IntervalT}, 1)
	b.Vecs[0].AppendInterval(types.IntervalValue{Days: -1})
	b.N = 1
	if err := w.Write(b); pgerr.Code(err) != pgerr.FeatureNotSupported {
		t.Fatalf("negative interval: %v", err)
	}
}
