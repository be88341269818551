package parquetio

import (
	"bytes"
	"math"
	"math/rand"
	"reflect"
	"testing"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// TestScalarStatsMatchWriter: ScalarStats reports what the Writer's Close
// does for the same rows (but the size), for every type it accepts, with
// NULLs, NaN, infinities, extremes, empty and NUL-holding strings.
func TestScalarStatsMatchWriter(t *testing.T) {
	cols := []Column{
		{FieldID: 1, Name: "b", Type: types.BoolT},
		{FieldID: 2, Name: "i16", Type: types.Int16T},
		{FieldID: 3, Name: "i32", Type: types.Int32T},
		{FieldID: 4, Name: "i64", Type: types.Int64T},
		{FieldID: 5, Name: "d", Type: types.DateT},
		{FieldID: 6, Name: "ts", Type: types.TimestampT},
		{FieldID: 7, Name: "tstz", Type: types.TimestamptzT},
		{FieldID: 8, Name: "tm", Type: types.T{ID: types.Time}},
		{FieldID: 9, Name: "ttz", Type: types.TimeTZT},
		{FieldID: 10, Name: "f32", Type: types.Float32T},
		{FieldID: 11, Name: "f64", Type: types.Float64T},
		{FieldID: 12, Name: "s", Type: types.TextT},
		{FieldID: 13, Name: "v", Type: types.VarcharT},
		{FieldID: 14, Name: "by", Type: types.ByteaT},
		{FieldID: 15, Name: "j", Type: types.T{ID: types.JSON}},
		{FieldID: 16, Name: "n9", Type: types.NumericT(9, 2)},
		{FieldID: 17, Name: "n18", Type: types.NumericT(18, 4)},
	}
	strs := []string{"", "a", "zz", "a\x00b", "ÿ", "hello world", "A"}
	gen := func(r *rand.Rand, c Column) cell {
		if r.Intn(4) == 0 {
			return nil
		}
		switch c.Type.ID {
		case types.Bool:
			return r.Intn(2) == 0
		case types.Int16:
			return int64(r.Intn(math.MaxUint16+1) + math.MinInt16)
		case types.Int32, types.Date:
			return []int64{math.MaxInt32, math.MinInt32, 0, -1, 20000, int64(r.Int31())}[r.Intn(6)]
		case types.Numeric:
			if p, _ := numericPS(c.Type); p <= 9 {
				return int64(r.Int31()) - math.MaxInt32/2
			}
			return r.Int63() - math.MaxInt64/2
		case types.Timestamp, types.Timestamptz:
			return []int64{types.InfinityMicros, types.NegInfinityMicros, 0, -62135596800000000 - 86400e6, r.Int63n(4e15) - 2e15}[r.Intn(5)]
		case types.Time, types.TimeTZ:
			return r.Int63n(86400e6)
		case types.Int64:
			return []int64{math.MaxInt64, math.MinInt64, 0, r.Int63()}[r.Intn(4)]
		case types.Float32, types.Float64:
			return []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, -1.5, 1e20, 1e-7, r.NormFloat64()}[r.Intn(8)]
		}
		return strs[r.Intn(len(strs))]
	}
	r := rand.New(rand.NewSource(1))
	for trial := 0; trial < 300; trial++ {
		n := 1 + r.Intn(6)
		if trial%50 == 0 {
			n = 1 + r.Intn(3000)
		}
		ts := make([]types.T, len(cols))
		for i, c := range cols {
			ts[i] = c.Type
		}
		b := vec.NewBatch(ts, n)
		for row := 0; row < n; row++ {
			for i, c := range cols {
				appendCell(b.Vecs[i], gen(r, c))
			}
		}
		b.N = n
		got, ok := ScalarStats(cols, b)
		if !ok {
			t.Fatalf("trial %d: ScalarStats declined plain columns", trial)
		}
		var buf bytes.Buffer
		w, err := NewWriter(&buf, cols, WriterOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(b); err != nil {
			t.Fatal(err)
		}
		info, err := w.Close()
		if err != nil {
			t.Fatal(err)
		}
		want := info.Stats
		for i := range want {
			// inlined rows have no file: no size, and no sketch to keep
			want[i].SizeBytes, want[i].Sketch = 0, nil
		}
		if !reflect.DeepEqual(got, want) {
			for i := range want {
				if !reflect.DeepEqual(got[i], want[i]) {
					t.Errorf("trial %d (%d rows), column %s: ScalarStats %s, Writer %s", trial, n, cols[i].Name, showStats(got[i]), showStats(want[i]))
				}
			}
			t.FailNow()
		}
	}
}

func showStats(cs ColumnStats) string {
	s := func(p *string) string {
		if p == nil {
			return "NULL"
		}
		return "'" + *p + "'"
	}
	nan := "NULL"
	if cs.ContainsNaN != nil {
		nan = map[bool]string{true: "true", false: "false"}[*cs.ContainsNaN]
	}
	return "{values " + itoa(cs.ValueCount) + ", nulls " + itoa(cs.NullCount) + ", min " + s(cs.Min) + ", max " + s(cs.Max) + ", nan " + nan + "}"
}

func itoa(x int64) string { return string(appendPad(nil, int(x), 1)) }

// TestScalarStatsDeclines: columns and values only the Writer can judge
// are left to it, so that its errors still reach the user.
func TestScalarStatsDeclines(t *testing.T) {
	one := func(typ types.T, c cell) *vec.Batch {
		b := vec.NewBatch([]types.T{typ}, 1)
		appendCell(b.Vecs[0], c)
		b.N = 1
		return b
	}
	for _, tc := range []struct {
		name string
		col  Column
		val  cell
	}{
		{"int16 out of range", Column{FieldID: 1, Name: "a", Type: types.Int16T}, int64(40000)},
		{"int32 out of range", Column{FieldID: 1, Name: "a", Type: types.Int32T}, int64(math.MaxInt32 + 1)},
		{"date out of range", Column{FieldID: 1, Name: "a", Type: types.DateT}, int64(math.MinInt32 - 1)},
		{"numeric(9) out of range", Column{FieldID: 1, Name: "a", Type: types.NumericT(9, 0)}, int64(1 << 40)},
		{"unconstrained numeric", Column{FieldID: 1, Name: "a", Type: types.NumericAnyT}, "1.5"},
		{"interval", Column{FieldID: 1, Name: "a", Type: types.IntervalT}, types.IntervalValue{Months: -1}},
		{"uuid", Column{FieldID: 1, Name: "a", Type: types.UUIDT}, "short"},
		{"geometry", Column{FieldID: 1, Name: "a", Type: types.ByteaT, Geometry: true}, "x"},
		{"variant", Column{FieldID: 1, Name: "a", Type: types.T{ID: types.JSON}, Variant: true}, "1"},
	} {
		if _, ok := ScalarStats([]Column{tc.col}, one(tc.col.Type, tc.val)); ok {
			t.Errorf("%s: ScalarStats answered", tc.name)
		}
	}
	// a NULL out of range is no value at all
	b := vec.NewBatch([]types.T{types.Int16T}, 1)
	b.Vecs[0].AppendNull()
	b.N = 1
	if _, ok := ScalarStats([]Column{{FieldID: 1, Name: "a", Type: types.Int16T}}, b); !ok {
		t.Error("a NULL int16 declined")
	}
	// a batch of another shape than the columns
	if _, ok := ScalarStats([]Column{{FieldID: 1, Name: "a", Type: types.Int64T}, {FieldID: 2, Name: "b", Type: types.Int64T}}, one(types.Int64T, int64(1))); ok {
		t.Error("a batch with too few columns answered")
	}
}
