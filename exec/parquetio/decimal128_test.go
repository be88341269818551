package parquetio

import (
	"fmt"
	"math/big"
	"reflect"
	"testing"

	"github.com/lakepg/lakepg/types"
)

// TestWideTimeJSONRoundTrip writes wide decimals, time, timetz and json over several row
// groups and dictionary sizes and reads them back, checking the stats DuckLake gets.
func TestWideTimeJSONRoundTrip(t *testing.T) {
	cols := []Column{
		{FieldID: 1, Name: "d", Type: types.NumericT(38, 10)},
		{FieldID: 2, Name: "tm", Type: types.TimeT},
		{FieldID: 3, Name: "tz", Type: types.TimeTZT},
		{FieldID: 4, Name: "j", Type: types.JSONT},
		{FieldID: 5, Name: "e", Type: types.NumericT(20, 0)},
	}
	e25 := new(big.Int).Exp(big.NewInt(10), big.NewInt(25), nil)
	gens := []genFunc{
		func(i int) cell {
			if i%7 == 3 {
				return nil
			}
			x := new(big.Int).Mul(big.NewInt(int64(i-500)), e25)
			return types.FormatBig(x.Add(x, big.NewInt(int64(i)*7919)), 10)
		},
		func(i int) cell { return int64(i) * 86_400_000_000 / 1000 },
		func(i int) cell { return types.PackTimeTZ(int64(i)*1_000_000, 0) },
		func(i int) cell {
			if i%5 == 0 {
				return nil
			}
			return fmt.Sprintf(`{"i": %d}`, i%37)
		},
		func(i int) cell { return fmt.Sprintf("%d", uint64(18446744073709551615)-uint64(i)) },
	}
	data, info := writeRows(t, cols, gens, 1000, 300, WriterOptions{RowGroupRows: 400})
	rows, _, _ := scanAll(t, data, projFor(cols), ScanOptions{})
	if len(rows) != 1000 {
		t.Fatalf("%d rows", len(rows))
	}
	for i, r := range rows {
		for c := range cols {
			want := gens[c](i)
			if !sameCell(r[c], want) {
				t.Fatalf("row %d column %s: %v, want %v", i, cols[c].Name, r[c], want)
			}
		}
	}
	st := info.Stats
	if *st[0].Min != "-500000000000000000.0000000000" || *st[0].Max != "499000000000000000.0007911081" {
		t.Errorf("decimal stats %s %s", *st[0].Min, *st[0].Max)
	}
	if st[1].Min == nil || *st[1].Min != "00:00:00" || *st[1].Max != "23:58:33.6" {
		t.Errorf("time stats %v %v", *st[1].Min, *st[1].Max)
	}
	if !reflect.DeepEqual(st[2], ColumnStats{FieldID: 3}) {
		t.Errorf("timetz stats %+v, want DuckDB's empty row", st[2])
	}
	if st[3].NullCount != 200 || *st[3].Min != `{"i": 0}` {
		t.Errorf("json stats %+v", st[3])
	}
	if *st[4].Min != "18446744073709550616" || *st[4].Max != "18446744073709551615" {
		t.Errorf("numeric(20,0) stats %s %s", *st[4].Min, *st[4].Max)
	}
}
