package parquetio

import (
	"bytes"
	"math/rand"
	"testing"

	"github.com/lakepg/lakepg/exec/vec"
)

// TestSelectiveRead reads files of every encoding column by column, a
// different column leading each time and selections from none to all
// rows of a batch, and checks each selected row against the table: the
// columns read at the selected rows only must give what a whole read
// gives, across pages, row groups and runs of NULLs.
func TestSelectiveRead(t *testing.T) {
	cols, table, gens := encodingTable()
	const n = 5000
	for _, tc := range encodingCases() {
		t.Run(tc.name, func(t *testing.T) {
			// batches (2,048 rows) end inside pages and row groups
			tc.opt.RowGroupRows = 4500
			data, _ := writeRows(t, cols, gens, n, 999, tc.opt)
			for lc := range cols {
				f, err := Open(bytes.NewReader(data), int64(len(data)))
				if err != nil {
					t.Fatal(err)
				}
				s := f.Scan(projFor(cols), ScanOptions{})
				if !s.Selective() {
					t.Fatal("a scan of flat columns is not selective")
				}
				lead := make([]bool, len(cols))
				lead[lc] = true
				rng := rand.New(rand.NewSource(int64(lc)))
				var b vec.Batch
				var sel []int32
				seen := 0
				for batch := 0; ; batch++ {
					start, n, ok, err := s.Begin(&b)
					if err != nil {
						t.Fatal(err)
					}
					if !ok {
						break
					}
					// the lead column whole, then the next one at a
					// selection, then the rest at a narrower one
					if err := s.Column(&b, lc); err != nil {
						t.Fatal(err)
					}
					for r := 0; r < n; r++ {
						if got, want := cellOf(b.Vecs[lc], r), table[start+int64(r)][lc]; !sameCell(got, want) {
							t.Fatalf("lead %s row %d = %#v, want %#v", cols[lc].Name, start+int64(r), got, want)
						}
					}
					density := []float64{0, 0.01, 0.3, 1}[batch%4]
					sel = sel[:0]
					for r := 0; r < n; r++ {
						if rng.Float64() < density {
							sel = append(sel, int32(r))
						}
					}
					b.Vecs[lc].Keep(sel)
					second := (lc + 1) % len(cols)
					if err := s.ColumnAt(&b, second, sel); err != nil {
						t.Fatal(err)
					}
					var keep, narrow []int32 // every other selected row
					for k := 0; k < len(sel); k += 2 {
						keep, narrow = append(keep, int32(k)), append(narrow, sel[k])
					}
					b.Vecs[lc].Keep(keep)
					b.Vecs[second].Keep(keep)
					for c := range cols {
						if c != lc && c != second {
							if err := s.ColumnAt(&b, c, narrow); err != nil {
								t.Fatal(err)
							}
						}
					}
					for c, v := range b.Vecs {
						if v.Len() != len(narrow) || (v.Nulls != nil && len(v.Nulls) != len(narrow)) {
							t.Fatalf("column %s: %d values (%d nulls) for %d rows", cols[c].Name, v.Len(), len(v.Nulls), len(narrow))
						}
					}
					for k, r := range narrow {
						row := start + int64(r)
						for c := range cols {
							if got, want := cellOf(b.Vecs[c], k), table[row][c]; !sameCell(got, want) {
								t.Fatalf("lead %s: row %d %s = %#v, want %#v", cols[lc].Name, row, cols[c].Name, got, want)
							}
						}
					}
					seen += len(narrow)
				}
				if seen == 0 {
					t.Fatal("no rows selected")
				}
			}
		})
	}
}
