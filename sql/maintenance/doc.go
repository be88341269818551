// Package maintenance runs DuckLake's maintenance procedures, CALL
// lakepg.<name>(...) or DuckDB's CALL ducklake_<name>('catalog', ...):
// compaction (merge_adjacent_files, rewrite_data_files), snapshot expiry,
// cleanup of old and orphaned files, the flush of inlined data into
// Parquet, set_option and add_data_files (registering existing Parquet
// files). It writes what DuckDB's procedures write. Package sql's Session
// dispatches CALL to a Runner and serves as its Host.
package maintenance

import (
	"context"
	"sync"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/parquetio"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/snapshot"
	"github.com/lakepg/lakepg/sql/partitioning"
	"github.com/lakepg/lakepg/sql/planner"
	"github.com/lakepg/lakepg/storage"
)

// Runner runs the maintenance calls of one session. Host is the session
// (package sql): its block, commits, write lock and the writing of data
// files; the embedded planner.Session its settings and the lake.
type Runner struct {
	Host
	*planner.Session
}

// Host is what maintenance asks of the session it runs for.
type Host interface {
	LakeMetadata(ctx context.Context, snap catalog.Snapshot) (*catalog.Metadata, error)
	InTx() bool
	CheckWritable() error
	CheckMaintenance(ctx context.Context, name string) error
	Commit(ctx context.Context, fn func(c *snapshot.Commit, meta *catalog.Metadata) error, cleanup func()) error
	Raise(n planner.Notice)
	// the server's write lock: LockWrites takes it (and waits for the
	// inserts that let go of it), WriteMu().Unlock() lets go; Writes are
	// the running commits shutdown waits for
	LockWrites()
	WriteMu() *sync.Mutex
	Writes() *sync.WaitGroup
	// writing data files: the store that registers them in flight, the
	// table's writer options and sort order, and the split by partition
	WriteStore() storage.Backend
	Settled(paths ...string)
	WriterOptions(ctx context.Context, schemaID, tableID int64) (parquetio.WriterOptions, error)
	SortedInput(ctx context.Context, t *catalog.Table, pcols []parquetio.Column, op exec.Operator) (out exec.Operator, done func(), err error)
	WritePartitioned(ctx context.Context, dir string, specID int64, keys []partitioning.Key, pcols []parquetio.Column, op exec.Operator, check func(*vec.Batch) error, track bool, opt parquetio.WriterOptions) (*TableWrite, error)
	// the files in flight: an orphan sweep holds the registry from before
	// it lists storage (BeginSweep) until after its last delete (end),
	// pruning what it showed to need no protection
	BeginSweep() (end func(), prune func(dataPath string, listed map[string]bool, named *snapshot.FileNames))
	InFlight(path string) bool
}
