package storage

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// local stores objects as files on the local file system. Paths are used as
// given (the catalog resolves them to absolute paths).
type local struct{}

// NewLocal returns the local-directory backend.
func NewLocal() Backend { return local{} }

type localFile struct {
	*os.File
	size int64
}

func (f *localFile) Size() int64 { return f.size }

// ReadAt counts the read for Stats; two atomic adds are nothing beside a
// pread.
func (f *localFile) ReadAt(p []byte, off int64) (int, error) {
	n, err := f.File.ReadAt(p, off)
	stats.localReads.Add(1)
	stats.localBytes.Add(int64(n))
	return n, err
}

func (local) Open(ctx context.Context, path string) (File, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("storage: open %s: %w", path, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("storage: stat %s: %w", path, err)
	}
	if st.IsDir() {
		f.Close()
		return nil, fmt.Errorf("storage: open %s: is a directory", path)
	}
	// os.File.ReadAt uses pread, which is safe for concurrent use.
	return &localFile{File: f, size: st.Size()}, nil
}

// localWriter writes to a temporary file in the destination directory, so
// the final rename stays on one file system and is atomic.
type localWriter struct {
	f     *os.File
	tmp   string
	dst   string
	done  bool
	wrErr error
}

func (local) Create(ctx context.Context, path string) (Writer, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("storage: create %s: %w", path, err)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("storage: create %s: %w", path, err)
	}
	return &localWriter{f: f, tmp: f.Name(), dst: path}, nil
}

func (w *localWriter) Write(p []byte) (int, error) {
	if w.done {
		return 0, fmt.Errorf("storage: write %s: writer already committed or aborted", w.dst)
	}
	n, err := w.f.Write(p)
	if err != nil && w.wrErr == nil {
		w.wrErr = err
	}
	return n, err
}

func (w *localWriter) Commit() error {
	if w.done {
		return fmt.Errorf("storage: commit %s: writer already committed or aborted", w.dst)
	}
	w.done = true
	if w.wrErr != nil {
		w.f.Close()
		os.Remove(w.tmp)
		return fmt.Errorf("storage: commit %s: earlier write failed: %w", w.dst, w.wrErr)
	}
	// fsync before rename: otherwise a crash can leave the name pointing at
	// an empty or partial file that the catalog already references.
	if err := w.f.Sync(); err != nil {
		w.f.Close()
		os.Remove(w.tmp)
		return fmt.Errorf("storage: commit %s: %w", w.dst, err)
	}
	if err := w.f.Close(); err != nil {
		os.Remove(w.tmp)
		return fmt.Errorf("storage: commit %s: %w", w.dst, err)
	}
	if err := os.Chmod(w.tmp, 0o644); err != nil {
		os.Remove(w.tmp)
		return fmt.Errorf("storage: commit %s: %w", w.dst, err)
	}
	if err := os.Rename(w.tmp, w.dst); err != nil {
		os.Remove(w.tmp)
		return fmt.Errorf("storage: commit %s: %w", w.dst, err)
	}
	// Make the rename itself durable.
	if d, err := os.Open(filepath.Dir(w.dst)); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

func (w *localWriter) Abort() error {
	if w.done {
		return nil
	}
	w.done = true
	w.f.Close()
	if err := os.Remove(w.tmp); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("storage: abort %s: %w", w.dst, err)
	}
	return nil
}

func (local) Stat(ctx context.Context, path string) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	st, err := os.Stat(path)
	if err != nil {
		return 0, fmt.Errorf("storage: stat %s: %w", path, err)
	}
	if st.IsDir() {
		return 0, fmt.Errorf("storage: stat %s: is a directory", path)
	}
	return st.Size(), nil
}

func (local) Delete(ctx context.Context, path string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("storage: delete %s: %w", path, err)
	}
	return nil
}

// List walks the deepest directory that contains every path with the prefix
// and keeps the regular files whose path starts with it. Temporary files of
// writers in progress (".name.tmp-*") are not objects yet and are skipped.
func (local) List(ctx context.Context, prefix string) ([]ObjectInfo, error) {
	return walkLocal(ctx, prefix, func(name string) bool { return !isTempName(name) })
}

// walkLocal lists the regular files under prefix whose names keep accepts,
// sorted by path.
func walkLocal(ctx context.Context, prefix string, keep func(name string) bool) ([]ObjectInfo, error) {
	root := prefix
	if !strings.HasSuffix(root, string(filepath.Separator)) {
		root = filepath.Dir(root)
	}
	var out []ObjectInfo
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if d.IsDir() || !strings.HasPrefix(p, prefix) {
			return nil
		}
		if !d.Type().IsRegular() || !keep(d.Name()) {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		out = append(out, ObjectInfo{Path: p, Size: info.Size(), ModTime: info.ModTime()})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("storage: list %s: %w", prefix, err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

func isTempName(name string) bool {
	return strings.HasPrefix(name, ".") && strings.Contains(name, ".tmp-")
}
