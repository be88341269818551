package parquetio

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// rowGroupCols adds to allTypeCols the types only the row group path
// converts specially, a unique column (plain encoding) and a column whose
// first NULL comes late in a row group.
func rowGroupCols() ([]Column, []genFunc) {
	cols := append([]Column{}, allTypeCols...)
	gens := allTypeGens()
	extra := []struct {
		c Column
		g genFunc
	}{
		{Column{Name: "iv", Type: types.IntervalT}, func(i int) cell {
			return types.IntervalValue{Months: int32(i % 13), Days: int32(i % 31), Micros: int64(i) * 1000}
		}},
		{Column{Name: "wide", Type: types.NumericT(30, 4)}, func(i int) cell {
			if i%11 == 0 {
				return nil
			}
			return fmt.Sprintf("%d.%04d", i*1_000_003-7_000_000, i%10000)
		}},
		{Column{Name: "tm", Type: types.TimeT}, func(i int) cell { return int64(i%86400) * 1_000_000 }},
		{Column{Name: "uniq", Type: types.Int64T}, func(i int) cell { return int64(i)*2654435761 + 1 }},
		{Column{Name: "uniqs", Type: types.TextT}, func(i int) cell { return fmt.Sprintf("item-%x", uint64(i)*2654435761) }},
		{Column{Name: "latenull", Type: types.Int32T}, func(i int) cell {
			if i%1000 > 990 {
				return nil
			}
			return int64(i % 17)
		}},
	}
	for k, e := range extra {
		e.c.FieldID = int32(100 + k)
		cols = append(cols, e.c)
		gens = append(gens, e.g)
	}
	return cols, gens
}

// TestRowGroupPathMatchesSequential writes the same rows through the row
// group path and the sequential one: the values read back and every
// statistic but the compressed size must agree.
func TestRowGroupPathMatchesSequential(t *testing.T) {
	cols, gens := rowGroupCols()
	const n = 10_500
	par, pinfo := writeRows(t, cols, gens, n, 777, WriterOptions{RowGroupRows: 1000})
	_, sinfo := writeRows(t, cols, gens, n, 777, WriterOptions{RowGroupRows: 1000, sequential: true})
	if pinfo.Rows != n || sinfo.Rows != n || pinfo.Size != int64(len(par)) {
		t.Fatalf("rows %d/%d size %d of %d", pinfo.Rows, sinfo.Rows, pinfo.Size, len(par))
	}
	for i := range cols {
		a, b := pinfo.Stats[i], sinfo.Stats[i]
		a.SizeBytes, b.SizeBytes = 0, 0
		if !reflect.DeepEqual(a, b) {
			t.Errorf("column %s: stats %s, sequential %s", cols[i].Name, statString(a), statString(b))
		}
	}
	f, err := Open(bytes.NewReader(par), int64(len(par)))
	if err != nil {
		t.Fatal(err)
	}
	if f.NumRowGroups() != 11 {
		t.Fatalf("%d row groups", f.NumRowGroups())
	}
	rows, pos, _ := scanAll(t, par, projFor(cols), ScanOptions{})
	if len(rows) != n {
		t.Fatalf("read %d rows", len(rows))
	}
	for i, row := range rows {
		if pos[i] != int64(i) {
			t.Fatalf("row %d at position %d", i, pos[i])
		}
		for c, got := range row {
			if want := gens[c](i); !sameCell(got, want) {
				t.Fatalf("row %d column %s = %#v, want %#v", i, cols[c].Name, got, want)
			}
		}
	}
}

func statString(s ColumnStats) string {
	str := func(p *string) string {
		if p == nil {
			return "nil"
		}
		return *p
	}
	return fmt.Sprintf("{values %d nulls %d min %s max %s nan %v}", s.ValueCount, s.NullCount, str(s.Min), str(s.Max), s.ContainsNaN)
}

// TestRowGroupEncodingsChosen: unique columns are written plain, repeating
// ones keep the dictionary.
func TestRowGroupEncodingsChosen(t *testing.T) {
	cols, gens := rowGroupCols()
	data, _ := writeRows(t, cols, gens, 5000, 1024, WriterOptions{RowGroupRows: 2048})
	pf, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	dict := func(name string) bool {
		for i, c := range cols {
			if c.Name == name {
				for _, e := range pf.Metadata().RowGroups[0].Columns[i].MetaData.Encoding {
					if e == format.RLEDictionary || e == format.PlainDictionary {
						return true
					}
				}
				return false
			}
		}
		t.Fatalf("no column %s", name)
		return false
	}
	for _, name := range []string{"uniq", "uniqs", "i64"} {
		if dict(name) {
			t.Errorf("column %s (unique values) is dictionary-encoded", name)
		}
	}
	for _, name := range []string{"latenull", "s"} {
		if !dict(name) {
			t.Errorf("column %s (repeating values) is not dictionary-encoded", name)
		}
	}
}

// TestRowGroupPathErrorsInWrite: a value Parquet cannot hold fails the
// Write of its batch, even though the row group is encoded later.
func TestRowGroupPathErrorsInWrite(t *testing.T) {
	cols := []Column{{FieldID: 1, Name: "x", Type: types.Int16T}, {FieldID: 2, Name: "iv", Type: types.IntervalT}}
	var buf bytes.Buffer
	w, err := NewWriter(&buf, cols, WriterOptions{RowGroupRows: 100})
	if err != nil {
		t.Fatal(err)
	}
	b := vec.NewBatch([]types.T{types.Int16T, types.IntervalT}, 300)
	for i := range 250 {
		b.Vecs[0].AppendInt(int64(i))
		b.Vecs[1].AppendInterval(types.IntervalValue{Days: 1})
	}
	b.N = 250
	if err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	b.Reset()
	b.Vecs[0].AppendInt(40000)
	b.Vecs[1].AppendInterval(types.IntervalValue{Days: 1})
	b.N = 1
	err = w.Write(b)
	var pe *pgerr.Error
	if !errors.As(err, &pe) || pe.Code != pgerr.NumericValueOutOfRange {
		t.Fatalf("Write of 40000 into int2: %v", err)
	}
	if _, err := w.Close(); err == nil {
		t.Fatal("Close after a failed Write succeeded")
	}
}
