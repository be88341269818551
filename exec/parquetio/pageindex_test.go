package parquetio

import (
	"bytes"
	"fmt"
	"math/rand"
	"testing"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// pagedFile is one row group of n rows whose columns span several pages:
// id = row number (sorted), a nullable text column NULL on rows
// [nullLo, nullHi), a dictionary-encoded text column and an int32 cycle.
const nullLo, nullHi = 40_000, 150_000

func pagedFile(t testing.TB, n int) ([]byte, []Column, []genFunc) {
	cols := []Column{
		{FieldID: 1, Name: "id", Type: types.Int64T},
		{FieldID: 2, Name: "s", Type: types.TextT},
		{FieldID: 3, Name: "cat", Type: types.TextT},
		{FieldID: 4, Name: "small", Type: types.Int32T},
	}
	gens := []genFunc{
		func(i int) cell { return int64(i) },
		func(i int) cell {
			if i >= nullLo && i < nullHi {
				return nil
			}
			return fmt.Sprintf("value-%07d", i)
		},
		func(i int) cell { return fmt.Sprintf("c%d", i%7) },
		func(i int) cell { return int64(i % 1000) },
	}
	data, _ := writeRows(t, cols, gens, n, 4096, WriterOptions{RowGroupRows: n})
	return data, cols, gens
}

// idBetween keeps what may hold lo <= id <= hi, as the engine's bounds do:
// a range of NULLs holds nothing.
func idBetween(lo, hi int64) func(int, []Range) bool {
	return func(_ int, r []Range) bool {
		if r[0].AllNull {
			return false
		}
		return !r[0].Known || r[0].MaxI >= lo && r[0].MinI <= hi
	}
}

func TestPageIndexIsWrittenAndRead(t *testing.T) {
	data, cols, _ := pagedFile(t, 200_000)
	f, err := Open(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	for leaf := range cols {
		cp, ok, err := f.chunkPages(0, leaf, true)
		if err != nil || !ok {
			t.Fatalf("column %d: no page index (%v)", leaf, err)
		}
		if leaf == 0 && len(cp.locs) < 4 {
			t.Fatalf("id has %d pages; the test needs several", len(cp.locs))
		}
		if len(cp.nullPages) != len(cp.locs) {
			t.Fatalf("column %d: %d column-index entries for %d pages", leaf, len(cp.nullPages), len(cp.locs))
		}
	}
	cp, _, _ := f.chunkPages(0, 0, true)
	p, _ := makePlan("id", f.top[0].elem, types.Int64T)
	for k := range cp.locs {
		r := cp.pageRange(k, &p, 200_000)
		span := cp.pageRows(k, 200_000)
		if !r.Known || r.MinI != span.lo || r.MaxI != span.hi-1 {
			t.Fatalf("page %d: range %+v for rows %v", k, r, span)
		}
	}
}

func TestPagePruningReadsOnlyMatchingPages(t *testing.T) {
	const n = 200_000
	data, cols, gens := pagedFile(t, n)
	proj := projFor(cols)
	for _, c := range []struct{ lo, hi int64 }{{120_000, 125_000}, {0, 10}, {n - 5, n + 100}, {70_000, 70_000}, {-5, -1}} {
		rows, pos, s := scanAll(t, data, proj, ScanOptions{Keep: idBetween(c.lo, c.hi)})
		read, skipped, rowsSkipped := s.PageStats()
		want := 0
		for id := max(c.lo, 0); id <= min(c.hi, n-1); id++ {
			want++
		}
		seen := 0
		for i, row := range rows {
			for j, g := range gens {
				if !sameCell(row[j], g(int(pos[i]))) {
					t.Fatalf("[%d,%d] row at %d column %d: %v, want %v", c.lo, c.hi, pos[i], j, row[j], g(int(pos[i])))
				}
			}
			if id := row[0].(int64); id >= c.lo && id <= c.hi {
				seen++
			}
			if i > 0 && pos[i] <= pos[i-1] {
				t.Fatalf("positions not rising: %d after %d", pos[i], pos[i-1])
			}
		}
		if seen != want {
			t.Fatalf("[%d,%d]: %d matching rows, want %d", c.lo, c.hi, seen, want)
		}
		if want == 0 {
			if len(rows) != 0 || s.RowGroupsPruned() != 1 {
				t.Fatalf("[%d,%d]: %d rows read, %d row groups pruned", c.lo, c.hi, len(rows), s.RowGroupsPruned())
			}
			continue
		}
		if len(rows) > n/3 || skipped == 0 || rowsSkipped != int64(n-len(rows)) {
			t.Fatalf("[%d,%d]: %d rows read, pages %d read %d skipped, %d rows skipped", c.lo, c.hi, len(rows), read, skipped, rowsSkipped)
		}
		t.Logf("[%d,%d]: %d rows read, %d pages decoded, %d passed over", c.lo, c.hi, len(rows), read, skipped)
	}
}

// checkRows checks every row read against the generators, by its position,
// and returns the positions read.
func checkRows(t *testing.T, rows [][]cell, pos []int64, gens []genFunc) map[int64]bool {
	t.Helper()
	got := map[int64]bool{}
	for i, row := range rows {
		got[pos[i]] = true
		for j, g := range gens {
			if !sameCell(row[j], g(int(pos[i]))) {
				t.Fatalf("row at %d column %d: %v, want %v", pos[i], j, row[j], g(int(pos[i])))
			}
		}
	}
	return got
}

// A page of NULLs holds no row any comparison keeps.
func TestPagePruningSkipsAllNullPages(t *testing.T) {
	const n = 200_000
	data, cols, gens := pagedFile(t, n)
	proj := projFor(cols)
	keep := func(_ int, r []Range) bool { return !r[1].AllNull }
	rows, pos, s := scanAll(t, data, proj, ScanOptions{Keep: keep})
	_, skipped, _ := s.PageStats()
	got := checkRows(t, rows, pos, gens)
	for i := int64(0); i < n; i++ {
		if (i < nullLo || i >= nullHi) && !got[i] {
			t.Fatalf("row %d with a value was skipped", i)
		}
	}
	if len(rows) >= n || skipped == 0 {
		t.Fatalf("%d rows read, %d pages skipped", len(rows), skipped)
	}
}

// Two filtered columns: the rows skipped are the union of what each rules
// out, and the pages of a third column straddle those runs.
func TestPagePruningTwoColumns(t *testing.T) {
	const n = 200_000
	data, cols, gens := pagedFile(t, n)
	proj := projFor(cols)
	keep := func(_ int, r []Range) bool {
		if r[0].AllNull || r[1].AllNull {
			return false
		}
		return !r[0].Known || r[0].MaxI >= 30_000 && r[0].MinI <= 170_000
	}
	rows, pos, s := scanAll(t, data, proj, ScanOptions{Keep: keep})
	got := checkRows(t, rows, pos, gens)
	if _, _, skipped := s.PageStats(); skipped <= n-(170_000-30_000) {
		// id's pages alone skip at most the rows outside [30000, 170000]
		t.Fatalf("%d rows skipped", skipped)
	}
	for i := int64(30_000); i <= 170_000; i++ {
		if (i < nullLo || i >= nullHi) && !got[i] {
			t.Fatalf("matching row %d was skipped", i)
		}
	}
}

// Projections in another order, a subset without the filtered column's
// neighbours, and row-group subsets (parallel morsels) all see the same
// rows.
func TestPagePruningWithRowGroupsAndSubsets(t *testing.T) {
	cols := []Column{{FieldID: 1, Name: "id", Type: types.Int64T}, {FieldID: 2, Name: "v", Type: types.Int64T}}
	gens := []genFunc{func(i int) cell { return int64(i) }, func(i int) cell {
		if i%3 == 0 {
			return nil
		}
		return int64(i * 7)
	}}
	data, _ := writeRows(t, cols, gens, 300_000, 4096, WriterOptions{RowGroupRows: 100_000})
	proj := []Projection{{FieldID: 2, Name: "v", Type: types.Int64T}, {FieldID: 1, Name: "id", Type: types.Int64T}}
	keep := func(_ int, r []Range) bool {
		return !r[1].AllNull && (!r[1].Known || r[1].MaxI >= 150_000 && r[1].MinI <= 160_000)
	}
	for _, groups := range [][]int{nil, {1}, {2, 1, 0}} {
		rows, pos, _ := scanAll(t, data, proj, ScanOptions{Keep: keep, RowGroups: groups})
		matched := 0
		for i, row := range rows {
			if row[1] != pos[i] || !sameCell(row[0], gens[1](int(pos[i]))) {
				t.Fatalf("row at %d: %v", pos[i], row)
			}
			if id := row[1].(int64); id >= 150_000 && id <= 160_000 {
				matched++
			}
		}
		if matched != 10_001 || len(rows) > 50_000 {
			t.Fatalf("groups %v: %d rows, %d matching", groups, len(rows), matched)
		}
	}
}

// A damaged page index gives an error or a correct scan, never a crash.
func TestCorruptPageIndexDoesNotPanic(t *testing.T) {
	data, cols, _ := pagedFile(t, 100_000)
	f, err := Open(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	lo, hi := int64(len(data)), int64(0)
	for _, cm := range f.meta.rowGroups[0].columns {
		lo = min(lo, cm.columnIndexOff, cm.offsetIndexOff)
		hi = max(hi, cm.columnIndexOff+int64(cm.columnIndexLen), cm.offsetIndexOff+int64(cm.offsetIndexLen))
	}
	rng := rand.New(rand.NewSource(1))
	for trial := 0; trial < 300; trial++ {
		bad := bytes.Clone(data)
		for k := 0; k < 1+trial%4; k++ {
			bad[lo+rng.Int63n(hi-lo)] = byte(rng.Intn(256))
		}
		bf, err := Open(bytes.NewReader(bad), int64(len(bad)))
		if err != nil {
			continue
		}
		s := bf.Scan(projFor(cols), ScanOptions{Keep: idBetween(30_000, 31_000)})
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Fatalf("trial %d: panic %v", trial, p)
				}
			}()
			var b vec.Batch
			for {
				_, ok, err := s.Next(&b)
				if err != nil || !ok {
					return
				}
			}
		}()
	}
}
