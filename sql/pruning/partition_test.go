package pruning

import (
	"testing"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

func parsed(tb testing.TB, t types.T, s string) *vec.Vector {
	tb.Helper()
	v := vec.New(t, 1)
	if err := exec.ParseInto(v, s, nil, false); err != nil {
		tb.Fatalf("parse %q as %s: %v", s, t, err)
	}
	return v
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
	cmp := func(col int, op exec.CmpOp, v *vec.Vector) Bound { return Bound{col: col, op: op, val: v} }
	ts := func(s string) *vec.Vector { return parsed(t, types.TimestampT, s) }
	tz := func(s string) *vec.Vector { return parsed(t, types.TimestamptzT, s) }
	text := func(s string) *vec.Vector { return parsed(t, types.TextT, s) }
	march := file(int64(1), "year", "2024", int64(1), "month", "3")
	cases := []struct {
		name string
		f    catalog.DataFile
		b    Bound
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
		{"bucket(4, id) = 7 in bucket 3", file(int64(4), "bucket(4)", "3"), cmp(3, exec.EQ, parsed(t, types.Int32T, "7")), true},
		{"bucket(4, id) = 7 in bucket 1", file(int64(4), "bucket(4)", "1"), cmp(3, exec.EQ, parsed(t, types.Int32T, "7")), false},
		{"bucket, range", file(int64(4), "bucket(4)", "1"), cmp(3, exec.GT, parsed(t, types.Int32T, "7")), true},
		// epoch_month 650 is 2024-03 (54 years and 2 months from 1970-01)
		{"epoch_month 650, ts >= April", file(int64(1), "epoch_month", "650"), cmp(0, exec.GE, ts("2024-04-01 00:00:00")), false},
		{"epoch_month 650, ts >= last microsecond of March", file(int64(1), "epoch_month", "650"), cmp(0, exec.GE, ts("2024-03-31 23:59:59.999999")), true},
		{"epoch_month 650, ts < March", file(int64(1), "epoch_month", "650"), cmp(0, exec.LT, ts("2024-03-01 00:00:00")), false},
		{"epoch_year -1, ts = 1969-07-01", file(int64(1), "epoch_year", "-1"), cmp(0, exec.EQ, ts("1969-07-01 00:00:00")), true},
		{"epoch_year -1, ts = 1970-01-01", file(int64(1), "epoch_year", "-1"), cmp(0, exec.EQ, ts("1970-01-01 00:00:00")), false},
		{"epoch_hour -1, ts = 1969-12-31 23:30", file(int64(1), "epoch_hour", "-1"), cmp(0, exec.EQ, ts("1969-12-31 23:30:00")), true},
		{"epoch_hour -1, ts >= 1970", file(int64(1), "epoch_hour", "-1"), cmp(0, exec.GE, ts("1970-01-01 00:00:00")), false},
		{"epoch NULL", file(int64(1), "epoch_day", nil), cmp(0, exec.GE, ts("2024-05-05 00:00:00")), true},
		// epoch keys of a timestamptz are UTC: no widening by zone offsets
		{"tz epoch_day 19782 (2024-02-29), bound next day UTC", file(int64(2), "epoch_day", "19782"), cmp(1, exec.GE, tz("2024-03-01 00:00:00+00")), false},
		{"tz epoch_day 19782, bound in the day at +05", file(int64(2), "epoch_day", "19782"), cmp(1, exec.GE, tz("2024-03-01 04:00:00+05")), true},
	}
	inList := vec.New(types.TextT, 2)
	inList.AppendString("eu")
	inList.AppendString("us")
	cases = append(cases,
		struct {
			name string
			f    catalog.DataFile
			b    Bound
			keep bool
		}{"r IN ('eu','us'), file us", file(int64(3), "identity", "us"), Bound{col: 2, op: exec.EQ, list: inList}, true},
		struct {
			name string
			f    catalog.DataFile
			b    Bound
			keep bool
		}{"r IN ('eu','us'), file apac", file(int64(3), "identity", "apac"), Bound{col: 2, op: exec.EQ, list: inList}, false})
	for _, c := range cases {
		if got := PartitionMayMatch(c.f, tbl, cols, []Bound{c.b}); got != c.keep {
			t.Errorf("%s: keep = %v, want %v", c.name, got, c.keep)
		}
	}
}
