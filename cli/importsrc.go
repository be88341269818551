package cli

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/lakepg/lakepg/storage"
)

// importSources opens the files of an import: local paths with the os
// package, s3://bucket/key objects through the storage package's S3
// backend, configured by the same --s3-* flags and LAKEPG_S3_* variables
// as a lake's data path.
type importSources struct {
	ctx   context.Context
	store storage.Backend
}

// newImportSources makes the backend for s3:// files. An import reads each
// object once, front to back, so nothing is worth caching.
func newImportSources(ctx context.Context, opts storage.Options) importSources {
	opts.MemoryCacheSize, opts.CacheDir = -1, ""
	return importSources{ctx: ctx, store: storage.NewRouter(opts)}
}

func isObject(path string) bool {
	return len(path) > 5 && strings.EqualFold(path[:5], "s3://")
}

// size is the file's size in bytes, for progress.
func (s importSources) size(path string) (int64, error) {
	if isObject(path) {
		return s.store.Stat(s.ctx, path)
	}
	st, err := os.Stat(path)
	if err != nil {
		return 0, err
	}
	return st.Size(), nil
}

// randomAccess is a file opened for ranged reads (Parquet footers).
type randomAccess interface {
	io.ReaderAt
	Size() int64
	Close() error
}

type localFile struct {
	*os.File
	size int64
}

func (f localFile) Size() int64 { return f.size }

func (s importSources) openAt(path string) (randomAccess, error) {
	if isObject(path) {
		return s.store.Open(s.ctx, path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	return localFile{f, st.Size()}, nil
}

// open opens the file for one sequential read (CSV).
func (s importSources) open(path string) (io.ReadCloser, error) {
	if !isObject(path) {
		return os.Open(path)
	}
	f, err := s.store.Open(s.ctx, path)
	if err != nil {
		return nil, err
	}
	return newSeqReader(f), nil
}

// sqlPath is how a statement names the file: objects as they are, local
// files absolute, since a server resolves nothing against our directory.
func sqlPath(path string) (string, error) {
	if isObject(path) {
		return path, nil
	}
	return filepath.Abs(path)
}

// seqChunk is the size of each ranged read of a sequential object read:
// large enough that request latency hides behind the parsing of the chunk
// before it, small enough that the two in memory do not matter.
const seqChunk = 8 << 20

// seqReader reads an object front to back in seqChunk ranged reads, the
// next one fetched while the current one is consumed: memory stays at two
// chunks whatever the object's size.
type seqReader struct {
	f     storage.File
	off   int64 // where the next fetch starts
	cur   []byte
	ahead chan chunkResult // the fetch in flight; nil at the end
	err   error
}

type chunkResult struct {
	data []byte
	err  error
}

func newSeqReader(f storage.File) *seqReader {
	r := &seqReader{f: f}
	r.fetch()
	return r
}

func (r *seqReader) fetch() {
	if r.off >= r.f.Size() {
		r.ahead = nil
		return
	}
	off := r.off
	n := min(int64(seqChunk), r.f.Size()-off)
	r.off += n
	ch := make(chan chunkResult, 1)
	go func() {
		b := make([]byte, n)
		k, err := r.f.ReadAt(b, off)
		if err == io.EOF && int64(k) == n {
			err = nil
		}
		ch <- chunkResult{b[:k], err}
	}()
	r.ahead = ch
}

func (r *seqReader) Read(p []byte) (int, error) {
	for len(r.cur) == 0 {
		if r.err != nil {
			return 0, r.err
		}
		if r.ahead == nil {
			return 0, io.EOF
		}
		res := <-r.ahead
		if res.err != nil {
			r.ahead, r.err = nil, res.err
			return 0, res.err
		}
		r.cur = res.data
		r.fetch()
	}
	n := copy(p, r.cur)
	r.cur = r.cur[n:]
	return n, nil
}

// Close waits for a fetch in flight, so no goroutine outlives the file.
func (r *seqReader) Close() error {
	if r.ahead != nil {
		<-r.ahead
		r.ahead = nil
	}
	return r.f.Close()
}
