package exec

import (
	"context"
	"sync/atomic"

	"github.com/lakepg/lakepg/exec/memory"
	"github.com/lakepg/lakepg/exec/parquetio"
	"github.com/lakepg/lakepg/storage"
)

// QueryStats counts what one statement's scans did, for the query log:
// bytes read from data and delete files (whatever served them: disk, object
// storage or a cache) and the files, row groups and pages that pruning
// skipped.
// The caller puts it in the statement's context (WithQueryStats); scans find
// it once per file, so an uncounted statement costs nothing and a counted
// one an atomic add per read.
type QueryStats struct {
	bytesRead, filesPruned, rowGroupsPruned, pagesSkipped atomic.Int64
	spill                                                 memory.SpillStats
}

type queryStatsKey struct{}

// WithQueryStats returns ctx carrying qs.
func WithQueryStats(ctx context.Context, qs *QueryStats) context.Context {
	return context.WithValue(ctx, queryStatsKey{}, qs)
}

func QueryStatsOf(ctx context.Context) *QueryStats {
	qs, _ := ctx.Value(queryStatsKey{}).(*QueryStats)
	return qs
}

// BytesRead is the number of bytes scans read from files.
func (q *QueryStats) BytesRead() int64 { return q.bytesRead.Load() }

// FilesPruned is the number of data files skipped by their catalog
// statistics.
func (q *QueryStats) FilesPruned() int64 { return q.filesPruned.Load() }

// RowGroupsPruned is the number of row groups skipped by their Parquet
// statistics.
func (q *QueryStats) RowGroupsPruned() int64 { return q.rowGroupsPruned.Load() }

// PagesSkipped is the number of data pages scans passed over undecoded
// because the page index ruled out all their rows.
func (q *QueryStats) PagesSkipped() int64 { return q.pagesSkipped.Load() }

// SpillFiles is the number of temp files operators spilled to.
func (q *QueryStats) SpillFiles() int64 { return q.spill.Files.Load() }

// SpillBytes is the number of bytes operators wrote to temp files.
func (q *QueryStats) SpillBytes() int64 { return q.spill.Bytes.Load() }

// Spill is what this statement's spill files count into (nil: q is nil).
func (q *QueryStats) Spill() *memory.SpillStats {
	if q == nil {
		return nil
	}
	return &q.spill
}

// countFile wraps an opened file so that its reads add to the statement's
// counters (qs, if any) and to the scan's.
func countFile(f storage.File, qs *QueryStats, scan *atomic.Int64) storage.File {
	c := countingFile{File: f, qs: qs, scan: scan}
	// keep the object store's optional ability to batch a row group's reads
	if _, ok := f.(parquetio.RangePrefetcher); ok {
		return countingPrefetcher{c}
	}
	return c
}

type countingFile struct {
	storage.File
	qs   *QueryStats
	scan *atomic.Int64
}

func (f countingFile) ReadAt(p []byte, off int64) (int, error) {
	n, err := f.File.ReadAt(p, off)
	if f.qs != nil {
		f.qs.bytesRead.Add(int64(n))
	}
	f.scan.Add(int64(n))
	return n, err
}

type countingPrefetcher struct{ countingFile }

func (f countingPrefetcher) PrefetchRanges(ranges [][2]int64) error {
	return f.File.(parquetio.RangePrefetcher).PrefetchRanges(ranges)
}
