// Package storage is where lakepg's bytes live: the Backend interface that
// the Parquet reader and writer use to open, create, stat, list and delete
// objects, and its implementations (a local directory now; S3-compatible
// object storage later). Paths are full paths as the catalog resolves them
// (an absolute local path, or s3://bucket/key). It knows nothing about
// Parquet, catalogs or queries.
//
// Errors are plain Go errors: a missing object wraps fs.ErrNotExist so
// callers can test it with errors.Is; exec and snapshot classify errors into
// SQLSTATEs.
package storage

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"
)

// Backend stores objects. It is the one interface with two real
// implementations (local and S3), so everything above it is written once.
type Backend interface {
	// Open opens an existing object for random-access reads.
	Open(ctx context.Context, path string) (File, error)
	// Create starts writing an object. Parent directories are created as
	// needed; nothing is visible at path until Writer.Commit succeeds.
	Create(ctx context.Context, path string) (Writer, error)
	// Stat returns the object's size; a missing object gives an error
	// wrapping fs.ErrNotExist.
	Stat(ctx context.Context, path string) (size int64, err error)
	// Delete removes an object; a missing object is not an error, so cleanup
	// after a failed commit can be retried blindly.
	Delete(ctx context.Context, path string) error
	// List returns every object whose path starts with prefix, recursively,
	// sorted by path.
	List(ctx context.Context, prefix string) ([]ObjectInfo, error)
}

// File is an open object. ReadAt is safe for concurrent use, so several scan
// workers can share one File.
type File interface {
	io.ReaderAt
	Size() int64
	Close() error
}

// Writer receives an object's bytes. Commit makes the object visible
// atomically (readers see the old state or the whole new object, never a
// prefix); Abort discards what was written. After either, the Writer is
// spent; calling Abort after Commit is a harmless no-op, so callers may
// defer Abort.
type Writer interface {
	io.Writer
	Commit() error
	Abort() error
}

// ObjectInfo describes one listed object.
type ObjectInfo struct {
	Path    string
	Size    int64
	ModTime time.Time
}

// ForDataPath returns the backend serving a lake's data_path.
func ForDataPath(dataPath string) (Backend, error) {
	lower := strings.ToLower(dataPath)
	switch {
	case strings.HasPrefix(lower, "s3://"), strings.HasPrefix(lower, "s3a://"),
		strings.HasPrefix(lower, "gs://"), strings.HasPrefix(lower, "gcs://"),
		strings.HasPrefix(lower, "r2://"), strings.HasPrefix(lower, "az://"),
		strings.HasPrefix(lower, "abfss://"):
		return nil, fmt.Errorf("storage: data path %q: object storage arrives in a later release of lakepg; only local directories are supported", dataPath)
	case strings.Contains(dataPath, "://"):
		return nil, fmt.Errorf("storage: data path %q: unsupported URL scheme", dataPath)
	case dataPath == "":
		return nil, fmt.Errorf("storage: empty data path")
	}
	return NewLocal(), nil
}
