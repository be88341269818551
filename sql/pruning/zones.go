package pruning

import (
	"math"
	"slices"
	"sort"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/types"
)

// Zones orders a table's files by one integer column's catalog min and by
// its max, so that the files a range filter on the column can keep are
// found by two binary searches instead of by checking every file: a
// selective filter over a table of 100,000 files then touches the few it
// keeps (and the files the order cannot judge), not all of them. A Zones is
// built once per cached file list (catalog.DB.FilesDerived) and only read
// after.
type Zones struct {
	mins, maxs   []int64 // ascending
	byMin, byMax []int32 // file indexes in that order
	// others are the files with no integer bounds for the column, which
	// only the full check can judge
	others []int32
	// partitioned: some file has partition values, which the full check
	// judges on every file
	partitioned bool
	n           int
}

// ZonesMinFiles is the list length from which ordering files pays: below
// it checking every file is as quick.
const ZonesMinFiles = 2048

// NewZones orders files by the bounds of the column with field id fieldID.
func NewZones(files []catalog.DataFile, fieldID int32) *Zones {
	z := &Zones{n: len(files)}
	type pair struct {
		v int64
		i int32
	}
	var lo, hi []pair
	for i := range files {
		f := &files[i]
		z.partitioned = z.partitioned || len(f.Partition) > 0
		st, ok := f.Stats.Get(int64(fieldID))
		switch {
		case !ok || !st.IntOK:
			z.others = append(z.others, int32(i))
		case st.ValueCount != nil && *st.ValueCount == 0:
			// only NULLs: no comparison holds, the full check prunes it
		default:
			lo = append(lo, pair{st.MinInt, int32(i)})
			hi = append(hi, pair{st.MaxInt, int32(i)})
		}
	}
	cmp := func(a, b pair) int {
		if a.v != b.v {
			if a.v < b.v {
				return -1
			}
			return 1
		}
		return int(a.i - b.i)
	}
	slices.SortFunc(lo, cmp)
	slices.SortFunc(hi, cmp)
	z.mins, z.byMin = make([]int64, len(lo)), make([]int32, len(lo))
	for k, p := range lo {
		z.mins[k], z.byMin[k] = p.v, p.i
	}
	z.maxs, z.byMax = make([]int64, len(hi)), make([]int32, len(hi))
	for k, p := range hi {
		z.maxs[k], z.byMax[k] = p.v, p.i
	}
	return z
}

// Bytes estimates z's memory.
func (z *Zones) Bytes() int64 { return int64(len(z.mins))*24 + int64(len(z.others))*4 + 64 }

// IntRange folds the bounds of bs on column col (an integer column) into the
// range [lo, hi] a kept file's values must meet; ok is false when no bound
// of bs narrows it (or one cannot be folded).
func IntRange(bs []Bound, col int, t types.T) (lo, hi int64, ok bool) {
	if t.ID != types.Int16 && t.ID != types.Int32 && t.ID != types.Int64 {
		return 0, 0, false
	}
	lo, hi = math.MinInt64, math.MaxInt64
	for _, b := range bs {
		if b.col != col {
			continue
		}
		if b.alts != nil || b.list != nil {
			// an OR or IN list: the hull of its alternatives or values
			if l, h, ok2 := hull(b, col, t); ok2 {
				lo, hi, ok = max(lo, l), min(hi, h), true
			}
			continue
		}
		if b.val == nil || b.val.Len() != 1 || b.val.IsNull(0) || b.val.Type.Storage() != types.StoreInt {
			continue
		}
		v := b.val.I64[0]
		switch b.op {
		case exec.EQ:
			lo, hi = max(lo, v), min(hi, v)
		case exec.GE:
			lo = max(lo, v)
		case exec.GT:
			if v == math.MaxInt64 {
				return 0, 0, false
			}
			lo = max(lo, v+1)
		case exec.LE:
			hi = min(hi, v)
		case exec.LT:
			if v == math.MinInt64 {
				return 0, 0, false
			}
			hi = min(hi, v-1)
		default:
			continue
		}
		ok = true
	}
	return lo, hi, ok
}

// hull is the smallest range [lo, hi] holding every value an OR bound's
// alternatives or an IN list's values allow; ok is false
// when an alternative leaves the column unbounded or a value is not an
// integer.
func hull(b Bound, col int, t types.T) (lo, hi int64, ok bool) {
	lo, hi = math.MaxInt64, math.MinInt64
	if b.list != nil {
		if b.list.Type.Storage() != types.StoreInt {
			return 0, 0, false
		}
		for i := 0; i < b.list.Len(); i++ {
			if !b.list.IsNull(i) {
				lo, hi = min(lo, b.list.I64[i]), max(hi, b.list.I64[i])
			}
		}
		return lo, hi, true
	}
	for _, alt := range b.alts {
		l, h, ok := IntRange(alt, col, t)
		if !ok {
			return 0, 0, false
		}
		// an alternative with lo > hi still counts: a file that passes
		// its bounds one by one, as the full check tests them, has min <=
		// hi and max >= lo, which the hull must keep
		lo, hi = min(lo, l), max(hi, h)
	}
	return lo, hi, true
}

// Candidates are the indexes, ascending, of the files whose values of the
// column may meet [lo, hi]: those whose min is at most hi and max at least
// lo, and those the order cannot judge. Every other file is one the full
// check (FilePruner.MayMatch) prunes. ok is false when the files have
// partition values, whose check the caller must run on every file.
func (z *Zones) Candidates(lo, hi int64) (idx []int32, ok bool) {
	if z.partitioned {
		return nil, false
	}
	// files with min <= hi are a prefix of byMin; max >= lo a suffix of
	// byMax: a kept file is in both, so the smaller one holds them all
	k := sort.Search(len(z.mins), func(i int) bool { return z.mins[i] > hi })
	j := sort.Search(len(z.maxs), func(i int) bool { return z.maxs[i] >= lo })
	var from []int32
	if k <= len(z.maxs)-j {
		from = z.byMin[:k]
	} else {
		from = z.byMax[j:]
	}
	idx = make([]int32, 0, len(from)+len(z.others))
	idx = append(idx, from...)
	idx = append(idx, z.others...)
	slices.Sort(idx)
	return idx, true
}
