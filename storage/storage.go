// Package storage is where lakepg's bytes live: the Backend interface that
// the Parquet reader and writer use to open, create, stat, list and delete
// objects, and its implementations: a local directory and S3-compatible
// object storage, behind a Router that picks one by each path's scheme.
// Paths are full paths as the catalog resolves them (an absolute local
// path, or s3://bucket/key). It knows nothing about Parquet, catalogs or
// queries.
//
// Reads from S3 are shaped for Parquet: Open reads the object's last 64 KiB
// speculatively (size, ETag and, almost always, the whole footer in one
// request); a reader announcing a row group's column-chunk ranges
// (PrefetchRanges) gets adjacent ones in one request; footers and recent
// ranges stay in a bounded memory cache and, optionally, a disk cache.
// OpenSized, given the size the catalog recorded, opens an object whose
// footer is cached without a request.
// Stats counts requests and bytes for metrics and benchmarks.
//
// Errors are plain Go errors: a missing object wraps fs.ErrNotExist so
// callers can test it with errors.Is; a request cut short because the
// caller's context ended wraps that context's error (and nothing else
// does, not even the transport's own timeouts), so a cancelled statement is
// told from a failed storage; exec and snapshot classify errors into
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

// SizedOpener is a Backend that can use an object's size, when the caller
// already knows it (the catalog records every data file's file_size_bytes),
// to spare requests when opening it.
type SizedOpener interface {
	OpenSized(ctx context.Context, path string, size int64) (File, error)
}

// OpenSized opens path on b, passing on the object's size where b can use
// it. size <= 0 means unknown. The size is a hint: the File's Size is the
// object's real size.
func OpenSized(ctx context.Context, b Backend, path string, size int64) (File, error) {
	if so, ok := b.(SizedOpener); ok && size > 0 {
		return so.OpenSized(ctx, path, size)
	}
	return b.Open(ctx, path)
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

// ForDataPath returns the backend for a lake whose data_path is dataPath:
// one that serves every path by its scheme, s3://bucket/key from object
// storage and anything without a scheme from the local file system, so a
// lake in either place can also read_parquet files from the other. opts
// (at most one) configures S3 and the caches; without it the options come
// from the environment (OptionsFromEnv). The S3 client is made on first
// use, so a local lake needs no S3 configuration.
func ForDataPath(dataPath string, opts ...Options) (Backend, error) {
	if len(opts) > 1 {
		return nil, fmt.Errorf("storage: ForDataPath takes at most one Options")
	}
	var o Options
	if len(opts) == 1 {
		o = opts[0]
	} else {
		o = OptionsFromEnv()
	}
	if o.envErr != nil {
		return nil, fmt.Errorf("storage: %w", o.envErr)
	}
	if dataPath == "" {
		return nil, fmt.Errorf("storage: empty data path")
	}
	r := NewRouter(o)
	if _, ok := cutScheme(dataPath, "s3"); ok {
		if _, err := parseS3(dataPath); err != nil {
			return nil, err
		}
		// Configuration errors (a bad cache directory, unreadable AWS
		// config) belong at start-up, not in the first query.
		if _, err := r.s3(); err != nil {
			return nil, err
		}
		return r, nil
	}
	if err := checkScheme(dataPath); err != nil {
		return nil, fmt.Errorf("storage: data path %q: %w", dataPath, err)
	}
	return r, nil
}

// checkScheme accepts local paths and s3:// URLs.
func checkScheme(path string) error {
	i := strings.Index(path, "://")
	if i < 0 {
		return nil
	}
	switch scheme := strings.ToLower(path[:i]); scheme {
	case "s3":
		return nil
	case "s3a", "gs", "gcs", "r2", "az", "azure", "abfss":
		return fmt.Errorf("%s:// is not supported; lakepg reads and writes S3-compatible object storage through s3://bucket/prefix (set --s3-endpoint for other providers' S3 APIs)", scheme)
	default:
		return fmt.Errorf("unsupported URL scheme %q", scheme)
	}
}
