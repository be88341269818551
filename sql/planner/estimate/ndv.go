package estimate

import (
	"math"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/exec/hll"
)

// Distinct values from sketches. lakepg's writer keeps a HyperLogLog
// sketch of each scalar column of every data file it writes
// (exec/hll, catalog/sketches.go); the estimator merges the sketches of
// the files a scan reads into the column's number of distinct values,
// which equality filters (1/ndv), joins (|L|·|R| / max ndv) and GROUP BY
// (the product of the keys') then use. Without sketches a column's ndv is
// the catalog's max − min + 1 for integers and dates and unknown for the
// rest: a sparse key (TPC-H l_orderkey: 1.5 M values over 1…6 M) is
// overstated, and text keys have none.
//
// Files without a sketch (written by DuckDB, registered with
// add_data_files, staged in an open transaction) are estimated from the
// sketched ones, taken for a sample of the column (extrapolate): a key
// unique in the sketched files stays unique over all values, a column of
// few values seen many times each gains none. The result is capped, for
// integers, at the catalog's range.
//
// The merge of all of a table's files is kept with the sketches in the
// file-list cache (TableSketches.Memo), so it is done once per table and
// range of snapshots that leave the table alone; a scan whose files were
// pruned merges its own files' sketches.

// RuleNDVSketches switches the use of sketches off (lakepg.disabled_rules),
// to compare estimates with and without them.
const RuleNDVSketches = "ndv_sketches"

// uniqueSlack is the relative error (three standard errors of a
// precision-12 sketch) within which a column whose sketch counts about as
// many distinct values as it has values is taken for a unique key: join
// ordering recognises a primary key by ndv ≥ rows (keyDomain).
const uniqueSlack = 3 * 1.04 / 64

// sketchKey names a column's merged sketch of all files in TableSketches.Memo.
type sketchKey struct{ column int64 }

// sketchNDV is the distinct non-NULL values of column fieldID of the
// scan of ref by the sketches of the files it reads (files: indexes in
// ref.files), or 0 when none of them has one; rangeNDV, when positive, is
// the integer range's bound.
func (e *Estimator) sketchNDV(ref *ScanTable, fieldID int64, files []int, rangeNDV float64) float64 {
	if ref.Table == nil || len(files) == 0 {
		return 0
	}
	if !e.src.RuleOn(RuleNDVSketches) {
		return 0
	}
	sk, err := e.src.Sketches(e.ctx, ref.Schema, ref.Table, ref.Snap)
	if err != nil || len(sk.Files) == 0 {
		return 0 // an estimate never fails a statement: fall back to the catalog's
	}
	var sketched, unsketched float64
	var have []int
	for _, i := range files {
		f := &ref.Files[i]
		n := float64(f.RecordCount)
		if st, ok := f.Stats.Get(fieldID); ok && st.ValueCount != nil {
			n = float64(*st.ValueCount)
		}
		if _, ok := sk.Files[f.ID][fieldID]; ok {
			sketched += n
			have = append(have, i)
		} else {
			unsketched += n
		}
	}
	for _, f := range ref.Pending {
		unsketched += float64(f.RecordCount)
	}
	if len(have) == 0 || sketched == 0 {
		return 0
	}
	var ndv float64
	if len(have) == len(ref.Files) {
		ndv = sk.Memo(sketchKey{fieldID}, func() any {
			return mergeSketches(sk, ref.Files, have, fieldID)
		}).(float64)
	} else {
		ndv = mergeSketches(sk, ref.Files, have, fieldID)
	}
	if ndv <= 0 {
		return 0
	}
	if ndv >= sketched*(1-uniqueSlack) {
		ndv = sketched
	}
	ndv = extrapolate(ndv, sketched, sketched+unsketched)
	if rangeNDV > 0 {
		ndv = math.Min(ndv, rangeNDV)
	}
	return math.Max(1, ndv)
}

// mergeSketches is the estimate of the union of files' sketches of a
// column (0 when one cannot be read).
func mergeSketches(sk *catalog.TableSketches, files []catalog.DataFile, which []int, fieldID int64) float64 {
	all := hll.New()
	for _, i := range which {
		s, err := hll.Unmarshal(sk.Files[files[i].ID][fieldID])
		if err != nil {
			return 0
		}
		all.Merge(s)
	}
	return all.Estimate()
}

// sketchHow is what an estimate's explanation adds when an ndv from
// sketches went into it.
const sketchHow = ", ndv from sketches"

// sketchNote ends the computation of one estimate that began by saving
// usedSketch and clearing it: sketchHow when the estimate used an ndv from
// sketches. The flag is restored for the estimate around this one, which
// used what this one did.
func (e *Estimator) sketchNote(saved bool) string {
	used := e.usedSketch
	e.usedSketch = saved || used
	if used {
		return sketchHow
	}
	return ""
}

// extrapolate is the distinct values of total values of a column of which
// n values hold d distinct ones, taking the n for a sample of the total
// drawn from D equally frequent values: n draws see D·(1 − e^(−n/D)) of
// them, which is solved for D, and total draws then see D·(1 − e^(−total/D)).
// A unique sample (d = n) gives total; d far below n (every value seen
// many times) gives d.
func extrapolate(d, n, total float64) float64 {
	if total <= n {
		return d
	}
	if d >= n {
		return total
	}
	seen := func(D, draws float64) float64 { return D * -math.Expm1(-draws/D) }
	lo, hi := d, d
	for seen(hi, n) < d {
		hi *= 2
		if hi > 1e18 {
			return total
		}
	}
	for i := 0; i < 60 && hi-lo > 0.5; i++ {
		mid := (lo + hi) / 2
		if seen(mid, n) < d {
			lo = mid
		} else {
			hi = mid
		}
	}
	return math.Max(d, math.Min(total, seen(hi, total)))
}
