package pruning

import (
	"math"
	"math/rand"
	"slices"
	"strconv"
	"testing"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// TestZonesKeepWhatTheFullCheckKeeps: taking the candidates from the
// ordered bounds and checking only them keeps exactly the files checking
// every file keeps, over random files (overlapping, equal, extreme and
// missing bounds, unparsed bounds, all-NULL files) and random bound sets.
func TestZonesKeepWhatTheFullCheckKeeps(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	cols := []exec.ScanCol{{FieldID: 1, Name: "id", T: types.Int64T}, {FieldID: 2, Name: "k", T: types.Int32T}}
	ptr := func(x int64) *int64 { return &x }
	str := func(x int64) *string { s := strconv.FormatInt(x, 10); return &s }
	val := func() int64 {
		switch r.Intn(12) {
		case 0:
			return math.MinInt64
		case 1:
			return math.MaxInt64
		}
		return r.Int63n(2000) - 1000
	}
	for trial := 0; trial < 200; trial++ {
		files := make([]catalog.DataFile, 1+r.Intn(300))
		for i := range files {
			var st catalog.FileStats
			for _, id := range []int64{1, 2} {
				switch r.Intn(10) {
				case 0: // no stats for the column
					continue
				case 1: // only NULLs
					st = append(st, catalog.ColumnStats{ColumnID: id, ValueCount: ptr(0), NullCount: ptr(5)})
					continue
				case 2: // bounds not read as integers
					bad := "x"
					st = append(st, catalog.ColumnStats{ColumnID: id, ValueCount: ptr(5), Min: &bad, Max: &bad})
					continue
				}
				a, b := val(), val()
				if a > b {
					a, b = b, a
				}
				if id == 2 {
					a, b = max(a, math.MinInt32), min(b, math.MaxInt32)
					if a > b {
						a, b = b, a
					}
				}
				st = append(st, catalog.ColumnStats{ColumnID: id, ValueCount: ptr(5), Min: str(a), Max: str(b), MinInt: a, MaxInt: b, IntOK: true})
			}
			files[i] = catalog.DataFile{ID: int64(i), Stats: st}
		}
		zs := []*Zones{NewZones(files, 1), NewZones(files, 2)}
		for q := 0; q < 20; q++ {
			var bs []Bound
			for n := 1 + r.Intn(3); n > 0; n-- {
				c := r.Intn(2)
				v := vec.New(cols[c].T, 1)
				x := val()
				if c == 1 {
					x = max(min(x, math.MaxInt32), math.MinInt32)
				}
				v.AppendInt(x)
				op := []exec.CmpOp{exec.EQ, exec.LT, exec.LE, exec.GT, exec.GE}[r.Intn(5)]
				bs = append(bs, Bound{col: c, op: op, val: v})
			}
			pr := NewFilePruner(cols, bs)
			var want []int32
			for i := range files {
				if pr.MayMatch(&files[i]) {
					want = append(want, int32(i))
				}
			}
			for c := range cols {
				lo, hi, ok := IntRange(bs, c, cols[c].T)
				if !ok {
					continue
				}
				cands, ok := zs[c].Candidates(lo, hi)
				if !ok {
					t.Fatal("unpartitioned files refused")
				}
				if !slices.IsSorted(cands) {
					t.Fatalf("candidates out of order: %v", cands)
				}
				var got []int32
				for _, i := range cands {
					if pr.MayMatch(&files[i]) {
						got = append(got, i)
					}
				}
				if !slices.Equal(got, want) {
					t.Fatalf("trial %d, column %d [%d, %d]: kept %v, the full check keeps %v", trial, c, lo, hi, got, want)
				}
			}
		}
	}
}

// TestZonesLeavePartitionedFiles: with partition values on a file, the
// caller must check every file (partition pruning is per file).
func TestZonesLeavePartitionedFiles(t *testing.T) {
	files := []catalog.DataFile{{ID: 1}, {ID: 2, Partition: []catalog.PartitionValue{{}}}}
	if _, ok := NewZones(files, 1).Candidates(0, 10); ok {
		t.Error("candidates offered over partitioned files")
	}
}

// TestIntRange folds bounds into one range and declines what it cannot.
func TestIntRange(t *testing.T) {
	one := func(x int64) *vec.Vector { v := vec.New(types.Int64T, 1); v.AppendInt(x); return v }
	bs := []Bound{{col: 0, op: exec.GE, val: one(5)}, {col: 0, op: exec.LT, val: one(9)}, {col: 1, op: exec.EQ, val: one(1)}, {col: 0, op: exec.LE, val: one(20)}}
	if lo, hi, ok := IntRange(bs, 0, types.Int64T); !ok || lo != 5 || hi != 8 {
		t.Errorf("range %d..%d %v, want 5..8", lo, hi, ok)
	}
	if _, _, ok := IntRange(bs, 0, types.Float64T); ok {
		t.Error("a float column folded")
	}
	if _, _, ok := IntRange([]Bound{{col: 0, op: exec.GT, val: one(math.MaxInt64)}}, 0, types.Int64T); ok {
		t.Error("> max int folded")
	}
	// an IN list and an OR fold to their hull
	list := vec.New(types.Int64T, 3)
	for _, x := range []int64{30, 3, 12} {
		list.AppendInt(x)
	}
	if lo, hi, ok := IntRange([]Bound{{col: 0, op: exec.EQ, list: list}, {col: 0, op: exec.LT, val: one(20)}}, 0, types.Int64T); !ok || lo != 3 || hi != 19 {
		t.Errorf("IN (30, 3, 12) AND < 20: %d..%d %v, want 3..19", lo, hi, ok)
	}
	or := Bound{col: 0, alts: [][]Bound{{{col: 0, op: exec.EQ, val: one(250)}}, {{col: 0, op: exec.GT, val: one(90)}, {col: 0, op: exec.LE, val: one(100)}},
		{{col: 0, op: exec.GT, val: one(300)}, {col: 0, op: exec.LT, val: one(120)}}}}
	// the last alternative is empty, but a file passes its bounds one by
	// one with min <= 119 and max >= 301: the hull keeps those
	if lo, hi, ok := IntRange([]Bound{or}, 0, types.Int64T); !ok || lo != 91 || hi != 250 {
		t.Errorf("OR: %d..%d %v, want 91..250", lo, hi, ok)
	}
	or.alts = append(or.alts, []Bound{{col: 0, op: exec.NE, val: one(1)}})
	if _, _, ok := IntRange([]Bound{or}, 0, types.Int64T); ok {
		t.Error("an OR with an unbounded branch folded")
	}
}
