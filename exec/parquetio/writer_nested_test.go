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

// enc builds nested encodings for tests: a scalar element, a NULL, or an
// already encoded array/struct payload (wrapped).
type nestedElem struct {
	t   types.T
	v   cell
	raw *string // encoded payload of an array or struct element
}

func sc(t types.T, v cell) nestedElem { return nestedElem{t: t, v: v} }
func sub(payload cell) nestedElem {
	if payload == nil {
		return nestedElem{}
	}
	s := payload.(string)
	return nestedElem{raw: &s}
}

// encNested concatenates elements: an array's or a struct's encoding.
func encNested(es ...nestedElem) string {
	var b []byte
	for _, e := range es {
		switch {
		case e.raw != nil:
			b = vec.AppendBytesElem(b, []byte(*e.raw))
		case e.t.ID == types.Unknown || e.v == nil:
			b = vec.AppendNullElem(b)
		default:
			v := vec.New(e.t, 1)
			appendCell(v, e.v)
			b = vec.AppendElem(b, v, 0)
		}
	}
	return string(b)
}

// duckNestedCols are the columns of the table DuckDB 1.5.5 was asked to
// write for the statistics below:
//
//	CREATE TABLE s (id INTEGER, st STRUCT(a INTEGER, b VARCHAR),
//	  ls STRUCT(x INTEGER[], y STRUCT(p DOUBLE, q DATE)),
//	  lst STRUCT(k VARCHAR, v BIGINT)[], aa INTEGER[][])
func duckNestedCols() ([]Column, []genFunc) {
	i32, txt, f64, i64 := types.Int32T, types.TextT, types.Float64T, types.Int64T
	stT := types.StructOf([]types.Field{{Name: "a", Type: i32}, {Name: "b", Type: txt}})
	yT := types.StructOf([]types.Field{{Name: "p", Type: f64}, {Name: "q", Type: types.DateT}})
	lsT := types.StructOf([]types.Field{{Name: "x", Type: types.ArrayOf(i32)}, {Name: "y", Type: yT}})
	kvT := types.StructOf([]types.Field{{Name: "k", Type: txt}, {Name: "v", Type: i64}})
	cols := []Column{
		{FieldID: 1, Name: "id", Type: i32},
		{FieldID: 2, Name: "st", Type: stT},
		{FieldID: 5, Name: "ls", Type: lsT},
		{FieldID: 11, Name: "lst", Type: types.ArrayOf(kvT)},
		{FieldID: 15, Name: "aa", Type: types.ArrayOf(types.ArrayOf(i32))},
	}
	date := int64(18262) // 2020-01-01
	i := func(x int64) nestedElem { return sc(i32, x) }
	null := nestedElem{}
	st := []cell{encNested(i(1), sc(txt, "x")), nil, encNested(null, null), encNested(i(7), sc(txt, "zz"))}
	ls := []cell{
		encNested(sub(encNested(i(1), i(2), null)), sub(encNested(sc(f64, 1.5), sc(types.DateT, date)))),
		nil,
		encNested(null, null),
		encNested(sub(""), sub(encNested(null, null))),
	}
	lst := []cell{
		encNested(sub(encNested(sc(txt, "a"), sc(i64, int64(1)))), null, sub(encNested(null, sc(i64, int64(2))))),
		nil, "", encNested(null),
	}
	aa := []cell{encNested(sub(encNested(i(1), i(2))), sub(""), null, sub(encNested(null, i(3)))), nil, encNested(sub("")), encNested(null)}
	gens := []genFunc{
		func(r int) cell { return int64(r + 1) },
		func(r int) cell { return st[r%4] },
		func(r int) cell { return ls[r%4] },
		func(r int) cell { return lst[r%4] },
		func(r int) cell { return aa[r%4] },
	}
	return cols, gens
}

// TestWriteNestedStatsMatchDuckDB: the same four rows DuckDB 1.5.5 wrote
// give the same leaf statistics in its catalog (including its double
// count of NULL structs inside lists, which makes k's counts NULL).
func TestWriteNestedStatsMatchDuckDB(t *testing.T) {
	cols, gens := duckNestedCols()
	data, info := writeRows(t, cols, gens, 4, 4, WriterOptions{})
	rows, _, _ := scanAll(t, data, projFor(cols), ScanOptions{})
	for r, row := range rows {
		for c := range cols {
			if want := gens[c](r); !sameCell(row[c], want) {
				t.Fatalf("row %d column %s: read %q, wrote %q", r, cols[c].Name, row[c], want)
			}
		}
	}
	// from DuckDB's ducklake_file_column_stats for that insert
	want := []string{
		"1 4 0 1 4", "3 2 2 1 7", "4 2 2 x zz", "7 2 4 1 2", "9 1 3 1.5 1.5",
		"10 1 3 2020-01-01 2020-01-01", "13 NULL NULL a a", "14 0 6 1 2", "17 3 6 1 3",
	}
	var got []string
	for _, st := range info.Stats {
		vc, nc := fmt.Sprint(st.ValueCount), fmt.Sprint(st.NullCount)
		if st.CountsUnknown {
			vc, nc = "NULL", "NULL"
		}
		s := func(p *string) string {
			if p == nil {
				return "NULL"
			}
			return *p
		}
		got = append(got, fmt.Sprintf("%d %s %s %s %s", st.FieldID, vc, nc, s(st.Min), s(st.Max)))
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("stats:\n%s\nwant (DuckDB's):\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestWriteNestedRoundTrip: many rows over several row groups and batches
// that straddle them read back as written.
func TestWriteNestedRoundTrip(t *testing.T) {
	cols, gens := duckNestedCols()
	ivT := types.StructOf([]types.Field{{Name: "iv", Type: types.IntervalT}, {Name: "w", Type: types.NumericT(30, 2)}, {Name: "tm", Type: types.TimeT}})
	cols = append(cols, Column{FieldID: 20, Name: "odd", Type: types.ArrayOf(ivT)})
	gens = append(gens, func(r int) cell {
		if r%5 == 0 {
			return nil
		}
		var es []nestedElem
		for k := 0; k < r%3; k++ {
			es = append(es, sub(encNested(sc(types.IntervalT, types.IntervalValue{Days: int32(r)}), sc(types.NumericT(30, 2), fmt.Sprintf("%d123456789012345678.50", r)), sc(types.TimeT, int64(r)*1000))))
		}
		return encNested(es...)
	})
	const n = 2600
	data, _ := writeRows(t, cols, gens, n, 300, WriterOptions{RowGroupRows: 1000})
	rows, _, _ := scanAll(t, data, projFor(cols), ScanOptions{})
	if len(rows) != n {
		t.Fatalf("read %d rows, wrote %d", len(rows), n)
	}
	for r, row := range rows {
		for c := range cols {
			if want := gens[c](r); !sameCell(row[c], want) {
				t.Fatalf("row %d column %s: read %q, wrote %q", r, cols[c].Name, row[c], want)
			}
		}
	}
}

// TestDuckDBReadsOurNested: DuckDB sees the Parquet schema it writes itself
// for the same table (groups, LISTs, field ids, repetition) and reads the
// rows as written.
func TestDuckDBReadsOurNested(t *testing.T) {
	if err := exec.Command("python3", "-c", "import duckdb").Run(); err != nil {
		t.Fatal("python3 with duckdb 1.5.5 is not available: run make test, which installs it")
	}
	cols, gens := duckNestedCols()
	data, _ := writeRows(t, cols, gens, 4, 4, WriterOptions{})
	path := filepath.Join(t.TempDir(), "n.parquet")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	script := `
import duckdb, sys
c = duckdb.connect()
c.execute("SET enable_progress_bar=false")
d = sys.argv[1]
for r in c.sql(f"select name, coalesce(field_id::varchar, '-'), coalesce(converted_type, '-'), repetition_type, coalesce(num_children::varchar, '-') from parquet_schema('{d}') where name <> 'duckdb_schema'").fetchall():
    print("S", *r, sep="|")
for r in c.sql(f"select st::varchar, ls::varchar, lst::varchar, aa::varchar from '{d}' order by id").fetchall():
    print("R", *r, sep="|")
`
	out, err := exec.Command("python3", "-c", script, path).CombinedOutput()
	if err != nil {
		t.Fatalf("duckdb: %v\n%s", err, out)
	}
	// the schema is DuckDB's own parquet_schema of the file it wrote
	want := `S|id|1|INT_32|OPTIONAL|-
S|st|2|-|OPTIONAL|2
S|a|3|INT_32|OPTIONAL|-
S|b|4|UTF8|OPTIONAL|-
S|ls|5|-|OPTIONAL|2
S|x|6|LIST|OPTIONAL|1
S|list|-|-|REPEATED|1
S|element|7|INT_32|OPTIONAL|-
S|y|8|-|OPTIONAL|2
S|p|9|-|OPTIONAL|-
S|q|10|DATE|OPTIONAL|-
S|lst|11|LIST|OPTIONAL|1
S|list|-|-|REPEATED|1
S|element|12|-|OPTIONAL|2
S|k|13|UTF8|OPTIONAL|-
S|v|14|INT_64|OPTIONAL|-
S|aa|15|LIST|OPTIONAL|1
S|list|-|-|REPEATED|1
S|element|16|LIST|OPTIONAL|1
S|list|-|-|REPEATED|1
S|element|17|INT_32|OPTIONAL|-
R|{'a': 1, 'b': x}|{'x': [1, 2, NULL], 'y': {'p': 1.5, 'q': 2020-01-01}}|[{'k': a, 'v': 1}, NULL, {'k': NULL, 'v': 2}]|[[1, 2], [], NULL, [NULL, 3]]
R|None|None|None|None
R|{'a': NULL, 'b': NULL}|{'x': NULL, 'y': NULL}|[]|[[]]
R|{'a': 7, 'b': zz}|{'x': [], 'y': {'p': NULL, 'q': NULL}}|[NULL]|[NULL]`
	if got := strings.TrimSpace(string(out)); got != want {
		t.Errorf("DuckDB sees\n%s\nwant\n%s", got, want)
	}
}
