package parquetio

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// listElemCols are array columns of every element type lakepg stores, with
// element field ids one above the list's, as DuckLake hands them out.
func listElemCols() ([]Column, []genFunc) {
	scalar := allTypeGens()
	elems := append([]Column(nil), allTypeCols...)
	elems = append(elems,
		Column{Name: "iv", Type: types.IntervalT}, Column{Name: "tm", Type: types.TimeT},
		Column{Name: "js", Type: types.JSONT}, Column{Name: "wide", Type: types.NumericT(30, 2)})
	scalar = append(scalar,
		func(i int) cell {
			if i%9 == 4 {
				return nil
			}
			return types.IntervalValue{Months: int32(i % 13), Days: int32(i % 40), Micros: int64(i) * 1000}
		},
		func(i int) cell { return int64(i) * 1_234_567 % (24 * types.MicrosPerHour) },
		func(i int) cell { return fmt.Sprintf(`{"k": %d}`, i) },
		func(i int) cell {
			if i%11 == 3 {
				return nil
			}
			return fmt.Sprintf("%d123456789012345678.%02d", i+1, i%100)
		})
	cols := make([]Column, len(elems))
	gens := make([]genFunc, len(elems))
	for c, e := range elems {
		cols[c] = Column{FieldID: int32(100 + 2*c), ElemFieldID: int32(101 + 2*c), Name: "l_" + e.Name, Type: types.ArrayOf(e.Type)}
		g, et := scalar[c], e.Type
		gens[c] = func(i int) cell {
			switch (i + c) % 7 {
			case 0:
				return nil
			case 1:
				return ""
			}
			ev := vec.New(et, 4)
			for k := 0; k < (i+c)%4+1; k++ {
				appendCell(ev, g(i*5+k))
			}
			return vec.EncodeArray(ev, 0, ev.Len())
		}
	}
	return cols, gens
}

// TestWriteListsRoundTrip writes array columns in several row groups and
// batches that straddle them, reads them back with our reader, and checks
// the element statistics DuckLake keeps (NULL and empty lists count as
// NULLs of the element; interval elements have none, as in DuckDB's).
func TestWriteListsRoundTrip(t *testing.T) {
	cols, gens := listElemCols()
	const n = 2500
	data, info := writeRows(t, cols, gens, n, 300, WriterOptions{RowGroupRows: 1000})
	rows, _, _ := scanAll(t, data, projFor(cols), ScanOptions{})
	if len(rows) != n {
		t.Fatalf("read %d rows, wrote %d", len(rows), n)
	}
	for r, row := range rows {
		for c := range cols {
			want := gens[c](r)
			if !sameCell(row[c], want) {
				t.Fatalf("row %d column %s: read %q, wrote %q", r, cols[c].Name, row[c], want)
			}
		}
	}
	for c, col := range cols {
		var values, nulls int64
		et := col.Type.Elem()
		for r := 0; r < n; r++ {
			x := gens[c](r)
			if x == nil || x == "" {
				nulls++
				continue
			}
			ev := vec.New(et, 4)
			if err := vec.DecodeArray(ev, x.(string)); err != nil {
				t.Fatal(err)
			}
			for k := 0; k < ev.Len(); k++ {
				if ev.IsNull(k) {
					nulls++
				} else {
					values++
				}
			}
		}
		st := info.Stats[c]
		if et.ID == types.Interval {
			values, nulls = 0, 0 // DuckDB's catalog keeps none for interval elements
		}
		if st.FieldID != col.ElemFieldID || st.ValueCount != values || st.NullCount != nulls {
			t.Errorf("%s: stats id %d values %d nulls %d, want id %d values %d nulls %d",
				col.Name, st.FieldID, st.ValueCount, st.NullCount, col.ElemFieldID, values, nulls)
		}
		if et.ID == types.Int32 && (st.Min == nil || st.Max == nil) {
			t.Errorf("%s: no min/max", col.Name)
		}
	}
}

// TestDuckDBReadsOurLists: DuckDB sees the three-level LIST DuckLake
// expects (field ids on the list and its element, none on the repeated
// group) and reads NULL lists, empty lists and NULL elements as written.
func TestDuckDBReadsOurLists(t *testing.T) {
	if err := exec.Command("python3", "-c", "import duckdb").Run(); err != nil {
		t.Fatal("python3 with duckdb 1.5.5 is not available: run make test, which installs it")
	}
	cols := []Column{
		{FieldID: 1, Name: "id", Type: types.Int32T},
		{FieldID: 2, ElemFieldID: 3, Name: "a", Type: types.ArrayOf(types.Int32T)},
		{FieldID: 4, ElemFieldID: 5, Name: "s", Type: types.ArrayOf(types.TextT)},
	}
	enc := func(t types.T, xs ...cell) cell {
		v := vec.New(t, len(xs))
		for _, x := range xs {
			appendCell(v, x)
		}
		return vec.EncodeArray(v, 0, v.Len())
	}
	a := []cell{nil, "", enc(types.Int32T, nil), enc(types.Int32T, int64(1), nil, int64(-3))}
	s := []cell{enc(types.TextT, "x,y", "", nil), nil, "", enc(types.TextT, "z")}
	gens := []genFunc{
		func(i int) cell { return int64(i) },
		func(i int) cell { return a[i%4] },
		func(i int) cell { return s[i%4] },
	}
	data, _ := writeRows(t, cols, gens, 3000, 700, WriterOptions{RowGroupRows: 1000})
	path := filepath.Join(t.TempDir(), "l.parquet")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	script := `
import duckdb, sys
c = duckdb.connect()
c.execute("SET enable_progress_bar=false")
d = sys.argv[1]
for r in c.sql(f"select name, coalesce(field_id::varchar, '-'), coalesce(converted_type, '-'), repetition_type from parquet_schema('{d}') where name <> 'duckdb_schema'").fetchall():
    print("S", *r, sep="|")
for r in c.sql(f"select coalesce(a::varchar, 'NULL'), coalesce(to_json(s)::varchar, 'NULL'), count(*) from '{d}' group by all order by all").fetchall():
    print("R", *r, sep="|")
`
	out, err := exec.Command("python3", "-c", script, path).CombinedOutput()
	if err != nil {
		t.Fatalf("duckdb: %v\n%s", err, out)
	}
	want := `S|id|1|INT_32|OPTIONAL
S|a|2|LIST|OPTIONAL
S|list|-|-|REPEATED
S|element|3|INT_32|OPTIONAL
S|s|4|LIST|OPTIONAL
S|list|-|-|REPEATED
S|element|5|UTF8|OPTIONAL
R|NULL|["x,y","",null]|750
R|[1, NULL, -3]|["z"]|750
R|[NULL]|[]|750
R|[]|NULL|750`
	if got := strings.TrimSpace(string(out)); got != want {
		t.Errorf("DuckDB sees\n%s\nwant\n%s", got, want)
	}
}
