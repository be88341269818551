package exec

import (
	"sync"
	"sync/atomic"

	"github.com/lakepg/lakepg/exec/parquetio"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// KeyRange is the range of one key of a hash join's build side, known once
// the build is done. A table scan below the join's probe side reads it
// (DynamicBound) and skips the row groups whose statistics put the probe
// key column outside it: their rows could only fail the join. TPC-DS joins
// a fact table with a date dimension filtered to a few weeks; the fact
// table's row groups of other weeks are never read. Before the build is
// done every row group is read, so the range is only ever an optimisation.
type KeyRange struct {
	once   sync.Once
	ready  atomic.Bool
	empty  bool // no non-NULL key: no probe row can match
	lo, hi int64
}

// set records the range of the first n values of an integer-stored key.
func (r *KeyRange) set(k *vec.Vector, n int) {
	r.once.Do(func() {
		r.empty = true
		for i, x := range k.I64[:n] {
			if k.Nulls != nil && k.Nulls[i] {
				continue
			}
			if r.empty || x < r.lo {
				r.lo = x
			}
			if r.empty || x > r.hi {
				r.hi = x
			}
			r.empty = false
		}
		r.ready.Store(true)
	})
}

// excludes reports that no key of the range lies in [lo, hi].
func (r *KeyRange) excludes(lo, hi int64) bool {
	if !r.ready.Load() {
		return false
	}
	return r.empty || hi < r.lo || lo > r.hi
}

// DynamicBound ties a scan column (an index into TableScan.Cols) to the
// range of the build keys it is probed against.
type DynamicBound struct {
	Col   int
	Range *KeyRange
}

// KeyRangeType reports whether a key of type t can carry a KeyRange: its
// values are integers compared as stored (integers, dates, timestamps).
func KeyRangeType(t types.T) bool {
	return t.Storage() == types.StoreInt && !t.DynNumeric() && t.ID != types.Numeric
}

// ProjectionSlot is where column col's statistics are among the ranges a
// row-group filter gets (the needed columns, in order); -1 when it is not
// read.
func (t *TableScan) ProjectionSlot(col int) int {
	k := 0
	for i := range t.Cols {
		if t.Needed != nil && !t.Needed[i] {
			continue
		}
		if i == col {
			return k
		}
		k++
	}
	return -1
}

// withDynamicBounds wraps a scan's row-group filter with its dynamic
// bounds; ranges follow the projection (the needed columns in order).
func (t *TableScan) withDynamicBounds(keep func(int, []parquetio.Range) bool) func(int, []parquetio.Range) bool {
	if len(t.Dynamic) == 0 {
		return keep
	}
	slots := make([]int, len(t.Dynamic))
	for d, b := range t.Dynamic {
		slots[d] = t.ProjectionSlot(b.Col)
	}
	return func(rg int, ranges []parquetio.Range) bool {
		if keep != nil && !keep(rg, ranges) {
			return false
		}
		for d, b := range t.Dynamic {
			s := slots[d]
			if s < 0 || s >= len(ranges) {
				continue
			}
			// row groups only: answering for an all-NULL range would make
			// the scanner read the page index of the key column in every
			// row group it keeps, which costs more than it saves (TPC-H
			// Q22: 79 -> 103 ms)
			if r := ranges[s]; r.Known && !r.AllNull && b.Range.excludes(r.MinI, r.MaxI) {
				return false
			}
		}
		return true
	}
}

// KeySet is the build side of a hash join on one integer key (or, for a
// join on several keys, the build side's values of one integer key:
// ColKeySet), known once the build is done, for a table scan below the join's probe side
// (DynamicKeys). The scan decodes the key column first, keeps the rows
// whose key the build side has and decodes its other columns at those rows
// only: a fact table joined with a dimension filtered to a few hundred
// items decodes its measures for the rows that join and no others. A join
// whose build spilled, or that has not built yet, publishes none, and
// every row is read.
type KeySet struct {
	jb atomic.Pointer[joinBuild]
}

// DynamicKeys ties a scan column (an index into TableScan.Cols) to the
// build side it is probed against.
type DynamicKeys struct {
	Col int
	Set *KeySet
}

// keySetMaxKept is the most of the rows a key set may keep, over the
// first keySetTrialRows rows, for the scan to go on asking it: each row
// it keeps is looked up again by the join, and the other columns cost the
// same to decode whole.
const (
	keySetMaxKept   = 0.5
	keySetTrialRows = 8 * vec.BatchSize
)
