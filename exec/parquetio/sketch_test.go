package parquetio

import (
	"math"
	"strconv"
	"testing"

	"github.com/lakepg/lakepg/exec/hll"
	"github.com/lakepg/lakepg/types"
)

// TestWriterSketches checks the distinct-value sketches the writer keeps:
// NULLs left out, row groups and both encoding paths counted once, none
// for booleans or lakepg's reserved columns.
func TestWriterSketches(t *testing.T) {
	cols := []Column{
		{FieldID: 1, Name: "k", Type: types.Int64T},
		{FieldID: 2, Name: "t", Type: types.TextT},
		{FieldID: 3, Name: "f", Type: types.Float64T},
		{FieldID: 4, Name: "b", Type: types.BoolT},
		{FieldID: FieldRowID, Name: "_ducklake_internal_row_id", Type: types.Int64T},
	}
	gens := []genFunc{
		func(i int) cell { return int64(i % 3000) },
		func(i int) cell {
			if i%4 == 0 {
				return nil
			}
			return "s" + strconv.Itoa(i%500)
		},
		func(i int) cell { return float64(i % 7) },
		func(i int) cell { return i%2 == 0 },
		func(i int) cell { return int64(i) },
	}
	for _, seq := range []bool{false, true} {
		_, info := writeRows(t, cols, gens, 20000, 1000, WriterOptions{RowGroupRows: 3000, sequential: seq})
		want := map[int32]float64{1: 3000, 2: 375, 3: 7}
		for _, st := range info.Stats {
			w, ok := want[st.FieldID]
			if !ok {
				if st.Sketch != nil {
					t.Errorf("column %d has a sketch", st.FieldID)
				}
				continue
			}
			s, err := hll.Unmarshal(st.Sketch)
			if err != nil {
				t.Fatalf("column %d: %v", st.FieldID, err)
			}
			// s0, s4, … s496 come only in rows i%4 == 0, which are NULL: 375 remain
			if got := s.Estimate(); math.Abs(got-w) > 0.07*w+1 {
				t.Errorf("sequential %t, column %d: %.0f distinct, want about %.0f", seq, st.FieldID, got, w)
			}
		}
	}
}
