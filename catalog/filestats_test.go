package catalog

import "testing"

// TestFileStats: a file's statistics read in any order are found by
// column id, short and long lists alike; a repeated column keeps its last
// row, as the map it replaces did.
func TestFileStats(t *testing.T) {
	for _, n := range []int64{0, 1, 3, 8, 9, 40} {
		var s FileStats
		for id := n; id >= 1; id-- { // the statistics query has no ORDER BY
			s = append(s, ColumnStats{ColumnID: id * 2, MinInt: id})
		}
		if n > 2 {
			s = append(s, ColumnStats{ColumnID: 4, MinInt: 99})
		}
		s.sort()
		if int64(len(s)) != n {
			t.Fatalf("n=%d: %d entries after sort", n, len(s))
		}
		for id := int64(0); id <= 2*n+1; id++ {
			cs, ok := s.Get(id)
			want := id%2 == 0 && id >= 2 && id <= 2*n
			if ok != want || s.Has(id) != want {
				t.Fatalf("n=%d: Get(%d) found %v", n, id, ok)
			}
			wantMin := id / 2
			if id == 4 && n > 2 {
				wantMin = 99
			}
			if ok && (cs.ColumnID != id || cs.MinInt != wantMin) || !ok && s.Of(id).ColumnID != 0 {
				t.Fatalf("n=%d: Get(%d) = %+v", n, id, cs)
			}
		}
	}
}

// TestFileIndex: a list's files are found by id whether the ids are dense
// (by position) or sparse (by a map), and ids not in the list are not.
func TestFileIndex(t *testing.T) {
	for _, step := range []int64{1, 3, 5000} {
		var files []DataFile
		for id := int64(100); len(files) < 500; id += step {
			files = append(files, DataFile{ID: id})
		}
		ix := newFileIndex(files)
		if (ix.dense != nil) != (step < 5000) {
			t.Errorf("step %d: dense %v", step, ix.dense != nil)
		}
		for i := range files {
			if got, ok := ix.of(files[i].ID); !ok || got != i {
				t.Fatalf("step %d: of(%d) = %d, %v", step, files[i].ID, got, ok)
			}
			if step > 1 {
				if _, ok := ix.of(files[i].ID + 1); ok {
					t.Fatalf("step %d: found %d", step, files[i].ID+1)
				}
			}
		}
		for _, id := range []int64{0, 99, files[len(files)-1].ID + 1, -5} {
			if _, ok := ix.of(id); ok {
				t.Fatalf("step %d: found %d", step, id)
			}
		}
	}
}
