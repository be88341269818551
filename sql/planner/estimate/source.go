package estimate

import (
	"context"
	"math"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/snapshot"
)

// Source is what estimates read besides the plan itself; the planner's
// session gives it.
type Source interface {
	// RowGroups counts the row groups, rows and bytes a scan would read,
	// from the files' footers.
	RowGroups(ctx context.Context, o *exec.TableScan) (ScanStats, error)
	// Chain is the pipeline a Parallel made while planning runs, or nil.
	Chain(o *exec.Parallel) exec.Operator
	// ScanTable is the lake table behind a scan, or nil.
	ScanTable(o *exec.TableScan) *ScanTable
	// RuleOn reports whether the session leaves the planner's rule name on.
	RuleOn(name string) bool
	// Sketches are the distinct-value sketches of a table's files.
	Sketches(ctx context.Context, s *catalog.Schema, t *catalog.Table, snap catalog.Snapshot) (*catalog.TableSketches, error)
}

// ScanTable is what estimates read of the lake table behind a scan.
type ScanTable struct {
	Schema *catalog.Schema
	Table  *catalog.Table
	Snap   catalog.Snapshot
	Files  []catalog.DataFile
	// Kept are the indexes in Files of those pruning kept, with Pruned
	// set; estimates visit them alone.
	Kept   []int
	Pruned bool
	// ScanFiles are the scan's files before pruning, one per Files entry.
	ScanFiles []exec.ScanFile
	// Pending are data files an open transaction block staged for the table.
	Pending []snapshot.NewDataFile
}

// ScanStats is what a scan would read, from the files' footers.
type ScanStats struct {
	Scanned, Pruned    int   // row groups
	Pages, PagesPruned int   // of the filtered columns, in the row groups scanned
	Rows               int64 // rows of the row groups scanned, less those the page index rules out
	Needed, Total      int64 // compressed bytes: needed column chunks of the scanned row groups, whole files
}

// ScanRows is the exact row count of the files a scan reads when the
// catalog knows it.
func ScanRows(o *exec.TableScan) (int64, bool) {
	if o.WithPos {
		return 0, false
	}
	saved := o.Keep
	o.Keep = nil
	defer func() { o.Keep = saved }()
	return o.ExactRows()
}

// OrRows is a key's distinct values, or its item's rows when unknown.
func OrRows(ndv, rows float64) float64 {
	if ndv > 0 {
		return ndv
	}
	return math.Max(1, rows)
}
