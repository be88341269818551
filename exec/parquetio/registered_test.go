package parquetio

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/lakepg/lakepg/types"
)

// TestLeafStatsFromFooter: the leaves' statistics read from the footer of a
// file of several row groups equal those its writer computed from the
// values, where the two agree by definition (no NULL struct inside a list,
// which DuckDB's writer counts twice): counts, bounds widened across row
// groups, compressed sizes; contains_nan is left unknown.
func TestLeafStatsFromFooter(t *testing.T) {
	i32, txt, f64 := types.Int32T, types.TextT, types.Float64T
	stT := types.StructOf([]types.Field{{Name: "a", Type: i32}, {Name: "b", Type: txt}})
	cols := []Column{
		{FieldID: 1, Name: "id", Type: i32},
		{FieldID: 2, Name: "st", Type: stT},
		{FieldID: 5, Name: "l", Type: types.ArrayOf(types.ArrayOf(f64))},
	}
	gens := []genFunc{
		func(r int) cell { return int64(r) },
		func(r int) cell {
			b := sc(txt, fmt.Sprintf("v%04d", 2600-r))
			if r%7 == 0 {
				b = nestedElem{}
			}
			return encNested(sc(i32, int64(r-1000)), b)
		},
		func(r int) cell {
			switch r % 5 {
			case 0:
				return nil
			case 1:
				return ""
			}
			return encNested(sub(encNested(sc(f64, float64(r)/4), nestedElem{})), sub(""))
		},
	}
	const n = 2600
	data, info := writeRows(t, cols, gens, n, 300, WriterOptions{RowGroupRows: 1000})
	f, err := Open(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if f.NumRowGroups() != 3 {
		t.Fatalf("%d row groups, want 3", f.NumRowGroups())
	}
	want := map[int32]ColumnStats{}
	for _, st := range info.Stats {
		want[st.FieldID] = st
	}
	show := func(cs ColumnStats) string {
		s := func(p *string) string {
			if p == nil {
				return "NULL"
			}
			return *p
		}
		return fmt.Sprintf("id %d values %d nulls %d unknown %t size %d min %s max %s", cs.FieldID, cs.ValueCount, cs.NullCount, cs.CountsUnknown, cs.SizeBytes, s(cs.Min), s(cs.Max))
	}
	for _, c := range []struct {
		name   string
		leaves []LeafCol
	}{
		{"ST", []LeafCol{{3, i32}, {4, txt}}},
		{"l", []LeafCol{{7, f64}}},
	} {
		got, ok := f.LeafStats(c.name, c.leaves)
		if !ok || len(got) != len(c.leaves) {
			t.Fatalf("%s: LeafStats %v, %t", c.name, got, ok)
		}
		for _, g := range got {
			if g.ContainsNaN != nil {
				t.Errorf("%s leaf %d: contains_nan %v, want unknown", c.name, g.FieldID, *g.ContainsNaN)
			}
			w := want[g.FieldID]
			w.ContainsNaN = nil
			if show(g) != show(w) {
				t.Errorf("%s: footer %s\nwriter %s", c.name, show(g), show(w))
			}
		}
	}
	if _, ok := f.LeafStats("st", []LeafCol{{3, i32}}); ok {
		t.Error("LeafStats paired two leaves with one")
	}
	if _, ok := f.LeafStats("id", []LeafCol{{1, i32}}); ok {
		t.Error("LeafStats took a scalar column")
	}
}
