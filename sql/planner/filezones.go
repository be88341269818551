package planner

import (
	"slices"
	"strconv"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/sql/pruning"
)

// Planning over a table of many files visited every file twice per
// statement: once to describe it to the scan (toScanFiles) and once to
// check the filter's bounds against its statistics (pushFilters). Both are
// derived from the table's file list, which the catalog caches across
// statements until a commit touches the table, so both are kept with it
// (catalog.DB.FilesDerived): the scan descriptions, and per filtered
// integer column the files ordered by their bounds (pruning.Zones), from
// which a selective filter takes its few candidates.

// ZonesMinFiles is the list length from which the derived structures are
// kept (a variable for tests).
var ZonesMinFiles = pruning.ZonesMinFiles

// scanFilesOf describes files to a scan, from the file-list cache when
// files is the cached list and its description does not depend on snap (no
// file or delete file holds rows of snapshots after it). The slice is
// shared: its capacity ends at its length, and it is copied before a
// change (inlinedScan).
func (s *Session) scanFilesOf(tableID int64, files []catalog.DataFile, snap int64) []exec.ScanFile {
	if len(files) < ZonesMinFiles {
		return ToScanFiles(files, snap)
	}
	v, ok := s.DB.FilesDerived(tableID, files, "scanfiles", func() (any, int64) {
		if snapDependent(files) {
			return []exec.ScanFile(nil), 0
		}
		sf := ToScanFiles(files, snap)
		return sf, int64(len(sf)) * 160
	})
	if sf, _ := v.([]exec.ScanFile); ok && sf != nil {
		return sf
	}
	return ToScanFiles(files, snap)
}

// liveRows is the rows of a table's files less their deleted rows, kept
// with a long cached list: summing a million files' counts visited every
// file's description, most of the planning of a query that keeps three.
func (s *Session) liveRows(tableID int64, files []catalog.DataFile) float64 {
	sum := func() float64 {
		rows := 0.0
		for i := range files {
			f := &files[i]
			rows += float64(f.RecordCount)
			if f.Delete != nil {
				rows -= float64(f.Delete.DeleteCount)
			}
		}
		return rows
	}
	if len(files) >= ZonesMinFiles && s.DB != nil {
		if v, ok := s.DB.FilesDerived(tableID, files, "rows", func() (any, int64) { return sum(), 16 }); ok {
			return v.(float64)
		}
	}
	return sum()
}

// snapDependent reports whether a file's scan description depends on the
// snapshot read (toScanFiles' PartialMax cases).
func snapDependent(files []catalog.DataFile) bool {
	for i := range files {
		f := &files[i]
		if f.PartialMax != nil || f.Delete != nil && f.Delete.PartialMax != nil {
			return true
		}
	}
	return false
}

// zoneCandidates are the indexes, ascending, of ref's files that bounds on
// an integer column may keep, from the cached order of the files by that
// column's bounds; indexed is false when there is none to use (a short or
// uncached list, no integer bound, partitioned files), and every file is
// to be checked.
func zoneCandidates(ref *TableRef, bs []pruning.Bound) (cands []int32, indexed bool) {
	if ref.cat == nil || len(ref.Files) < ZonesMinFiles || ref.Table == nil {
		return nil, false
	}
	cols := ref.Scan.Cols
	for c := range cols {
		lo, hi, ok := pruning.IntRange(bs, c, cols[c].T)
		if !ok {
			continue
		}
		id := cols[c].FieldID
		files := ref.Files
		v, ok := ref.cat.FilesDerived(ref.Table.ID, files, "zones:"+strconv.Itoa(int(id)), func() (any, int64) {
			z := pruning.NewZones(files, id)
			return z, z.Bytes()
		})
		if !ok {
			return nil, false
		}
		return v.(*pruning.Zones).Candidates(lo, hi)
	}
	return nil, false
}

// ownScanFiles gives scan a copy of its file descriptions before they are
// changed, as the shared ones of scanFilesOf must not be.
func ownScanFiles(scan *exec.TableScan) {
	scan.Files = slices.Clone(scan.Files)
}
