package pruning

import (
	"math/rand"
	"slices"
	"strconv"
	"testing"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/parquetio"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

func intConst(x int64) *exec.Const {
	v := vec.New(types.Int64T, 1)
	v.AppendInt(x)
	return exec.NewConst(v)
}

func cmpExpr(col int, op exec.CmpOp, x int64) exec.Expr {
	return &exec.Cmp{Op: op, L: &exec.ColRef{Idx: col, T: types.Int64T}, R: intConst(x)}
}

func or(args ...exec.Expr) exec.Expr  { return &exec.Logic{Args: args} }
func and(args ...exec.Expr) exec.Expr { return &exec.Logic{And: true, Args: args} }

// intFile is a file whose columns 1 and 2 hold [lo1, hi1] and [lo2, hi2].
func intFile(id int64, lo1, hi1, lo2, hi2 int64) catalog.DataFile {
	st := func(col, lo, hi int64) catalog.ColumnStats {
		n := int64(10)
		a, b := strconv.FormatInt(lo, 10), strconv.FormatInt(hi, 10)
		return catalog.ColumnStats{ColumnID: col, ValueCount: &n, Min: &a, Max: &b, MinInt: lo, MaxInt: hi, IntOK: true}
	}
	return catalog.DataFile{ID: id, Stats: catalog.FileStats{st(1, lo1, hi1), st(2, lo2, hi2)}}
}

// TestOrBounds: an OR whose every branch bounds a column keeps the files
// where some branch may hold; an OR with a branch that bounds nothing, or
// whose branches bound different columns, bounds nothing.
func TestOrBounds(t *testing.T) {
	cols := []exec.ScanCol{{FieldID: 1, Name: "id", T: types.Int64T}, {FieldID: 2, Name: "k", T: types.Int64T}}
	var files []catalog.DataFile
	for i := int64(0); i < 10; i++ {
		files = append(files, intFile(i, i*100, i*100+99, i, i)) // id 0-99 in file 0, …; k = the file's number
	}
	kept := func(pred exec.Expr) []int64 {
		var out []int64
		pr := NewFilePruner(cols, Bounds(pred, cols))
		for i := range files {
			if pr.MayMatch(&files[i]) {
				out = append(out, files[i].ID)
			}
		}
		return out
	}
	neq := &exec.Cmp{Op: exec.NE, L: &exec.ColRef{Idx: 0, T: types.Int64T}, R: intConst(5)}
	for _, tc := range []struct {
		name string
		pred exec.Expr
		want []int64
	}{
		{"id = 250 OR id = 260", or(cmpExpr(0, exec.EQ, 250), cmpExpr(0, exec.EQ, 260)), []int64{2}},
		{"id = 250 OR id = 460", or(cmpExpr(0, exec.EQ, 250), cmpExpr(0, exec.EQ, 460)), []int64{2, 4}},
		{"id < 50 OR id > 950", or(cmpExpr(0, exec.LT, 50), cmpExpr(0, exec.GT, 950)), []int64{0, 9}},
		{"(id > 300 AND id < 310) OR id >= 800 AND id <= 899", or(and(cmpExpr(0, exec.GT, 300), cmpExpr(0, exec.LT, 310)),
			and(cmpExpr(0, exec.GE, 800), cmpExpr(0, exec.LE, 899))), []int64{3, 8}},
		// a branch's other conditions do not matter to the column's bound
		{"(id = 150 AND k = 7) OR id = 720", or(and(cmpExpr(0, exec.EQ, 150), cmpExpr(1, exec.EQ, 7)), cmpExpr(0, exec.EQ, 720)), []int64{1, 7}},
		// both columns bounded in both branches: each column's OR is a
		// bound of its own (id outside 500..600, k 7 or 2), which keeps
		// files 2 and 7 though neither branch holds in them as a whole
		{"(id < 500 AND k = 7) OR (id > 600 AND k = 2)", or(and(cmpExpr(0, exec.LT, 500), cmpExpr(1, exec.EQ, 7)),
			and(cmpExpr(0, exec.GT, 600), cmpExpr(1, exec.EQ, 2))), []int64{2, 7}},
		{"(id < 500 AND k = 3) OR (id > 600 AND k = 8)", or(and(cmpExpr(0, exec.LT, 500), cmpExpr(1, exec.EQ, 3)),
			and(cmpExpr(0, exec.GT, 600), cmpExpr(1, exec.EQ, 8))), []int64{3, 8}},
		// nested: an OR inside a branch
		{"id = 50 OR (id = 950 OR id = 350)", or(cmpExpr(0, exec.EQ, 50), or(cmpExpr(0, exec.EQ, 950), cmpExpr(0, exec.EQ, 350))), []int64{0, 3, 9}},
		// an OR next to another conjunct
		{"k >= 3 AND (id = 50 OR id = 550)", and(cmpExpr(1, exec.GE, 3), or(cmpExpr(0, exec.EQ, 50), cmpExpr(0, exec.EQ, 550))), []int64{5}},
		{"id = 50 OR k = 3 (different columns)", or(cmpExpr(0, exec.EQ, 50), cmpExpr(1, exec.EQ, 3)), []int64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},
		{"id = 50 OR id <> 5 (a branch without bound)", or(cmpExpr(0, exec.EQ, 50), neq), []int64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},
		{"id = 5000 OR id = -1", or(cmpExpr(0, exec.EQ, 5000), cmpExpr(0, exec.EQ, -1)), nil},
	} {
		if got := kept(tc.pred); !slices.Equal(got, tc.want) {
			t.Errorf("%s: kept %v, want %v", tc.name, got, tc.want)
		}
	}

	// row groups are judged the same way
	scan := &exec.TableScan{Cols: cols}
	scan.Needed = []bool{true, true}
	bs := Bounds(or(cmpExpr(0, exec.EQ, 250), cmpExpr(0, exec.EQ, 260)), cols)
	for _, tc := range []struct {
		lo, hi int64
		keep   bool
	}{{200, 255, true}, {255, 259, false}, {260, 300, true}, {0, 100, false}, {251, 262, true}} {
		ranges := []parquetio.Range{{Known: true, MinI: tc.lo, MaxI: tc.hi}, {Known: true, MinI: 0, MaxI: 1}}
		if got := RangesMayMatch(scan, ranges, bs); got != tc.keep {
			t.Errorf("row group id %d..%d: keep %v, want %v", tc.lo, tc.hi, got, tc.keep)
		}
	}
}

// TestOrBoundsRandom: over random files and random ORs of one or two
// conditions per branch, the OR's bounds keep every file some branch's own
// bounds keep, exactly those when every condition is on one column; the
// zones' candidates of its hull hold every file kept.
func TestOrBoundsRandom(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	cols := []exec.ScanCol{{FieldID: 1, Name: "id", T: types.Int64T}, {FieldID: 2, Name: "k", T: types.Int64T}}
	ops := []exec.CmpOp{exec.EQ, exec.LT, exec.LE, exec.GT, exec.GE}
	for trial := 0; trial < 100; trial++ {
		files := make([]catalog.DataFile, 1+r.Intn(200))
		for i := range files {
			a, b := r.Int63n(1000), r.Int63n(1000)
			c, d := r.Int63n(10), r.Int63n(10)
			files[i] = intFile(int64(i), min(a, b), max(a, b), min(c, d), max(c, d))
		}
		z := NewZones(files, 1)
		for q := 0; q < 20; q++ {
			var branches []exec.Expr
			oneColumn := r.Intn(2) == 0
			for n := 1 + r.Intn(4); n > 0; n-- {
				br := []exec.Expr{cmpExpr(0, ops[r.Intn(5)], r.Int63n(1000))}
				if r.Intn(2) == 0 {
					if oneColumn {
						br = append(br, cmpExpr(0, ops[r.Intn(5)], r.Int63n(1000)))
					} else {
						br = append(br, cmpExpr(1, ops[r.Intn(5)], r.Int63n(10)))
					}
				}
				branches = append(branches, and(br...))
			}
			pred := or(branches...)
			bs := Bounds(pred, cols)
			if len(bs) == 0 {
				t.Fatalf("no bound from an OR bounding id in every branch")
			}
			pr := NewFilePruner(cols, bs)
			var want, got []int32
			for i := range files {
				any := false
				for _, br := range branches {
					any = any || NewFilePruner(cols, Bounds(br, cols)).MayMatch(&files[i])
				}
				if any {
					want = append(want, int32(i))
				}
				if pr.MayMatch(&files[i]) {
					got = append(got, int32(i))
				} else if any {
					t.Fatalf("trial %d: file %d pruned, which a branch keeps", trial, i)
				}
			}
			if oneColumn && !slices.Equal(got, want) {
				t.Fatalf("trial %d: kept %v, the branches keep %v", trial, got, want)
			}
			lo, hi, ok := IntRange(bs, 0, types.Int64T)
			if !ok {
				t.Fatalf("trial %d: the OR's hull did not fold", trial)
			}
			cands, _ := z.Candidates(lo, hi)
			var viaZones []int32
			for _, i := range cands {
				if pr.MayMatch(&files[i]) {
					viaZones = append(viaZones, i)
				}
			}
			if !slices.Equal(viaZones, got) {
				t.Fatalf("trial %d [%d, %d]: zones keep %v, the full check %v", trial, lo, hi, viaZones, got)
			}
		}
	}
}

// TestOrBoundsPartitions: an OR of equalities rules out the identity and
// bucket partitions none of its values falls in.
func TestOrBoundsPartitions(t *testing.T) {
	tbl := &catalog.Table{Name: "p", Columns: []catalog.Column{{ID: 1, Name: "r", Type: "varchar"}, {ID: 2, Name: "id", Type: "int64"}}}
	cols := []exec.ScanCol{{FieldID: 1, T: types.TextT}, {FieldID: 2, T: types.Int64T}}
	text := func(s string) exec.Expr { return exec.NewConst(parsed(t, types.TextT, s)) }
	rEq := func(s string) exec.Expr {
		return &exec.Cmp{Op: exec.EQ, L: &exec.ColRef{Idx: 0, T: types.TextT}, R: text(s)}
	}
	file := func(col int64, transform, value string) catalog.DataFile {
		return catalog.DataFile{PartitionID: new(int64), Partition: []catalog.PartitionValue{
			{PartitionKey: catalog.PartitionKey{ColumnID: col, Transform: transform}, Value: &value}}}
	}
	bs := Bounds(or(rEq("eu"), rEq("us")), cols)
	for region, keep := range map[string]bool{"eu": true, "us": true, "apac": false} {
		if got := PartitionMayMatch(file(1, "identity", region), tbl, cols, bs); got != keep {
			t.Errorf("r = 'eu' OR r = 'us', file %s: keep %v, want %v", region, got, keep)
		}
	}
	// bucket(4) of id: the OR of two values keeps their buckets only
	idEq := func(x int64) exec.Expr { return cmpExpr(1, exec.EQ, x) }
	bs = Bounds(or(idEq(7), and(idEq(9), cmpExpr(1, exec.GT, 0))), cols)
	keptBuckets := 0
	for b := 0; b < 4; b++ {
		if PartitionMayMatch(file(2, "bucket(4)", strconv.Itoa(b)), tbl, cols, bs) {
			keptBuckets++
		}
	}
	if keptBuckets < 1 || keptBuckets > 2 {
		t.Errorf("id = 7 OR id = 9 kept %d of 4 buckets, want the values' one or two", keptBuckets)
	}
}
