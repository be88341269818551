package storage

import (
	"context"
	"fmt"
	"sync"
)

// Router is a Backend that serves each path by its scheme: s3:// from the
// S3 backend, plain paths from the local file system. Everything above
// storage holds one Router, so data files, delete files and read_parquet
// work wherever each path points.
type Router struct {
	opts  Options
	local Backend

	once  sync.Once
	s3b   *s3Backend
	s3err error
}

// NewRouter returns a Router whose S3 backend, configured by opts, is made
// on the first s3:// path.
func NewRouter(opts Options) *Router {
	return &Router{opts: opts, local: NewLocal()}
}

func (r *Router) s3() (*s3Backend, error) {
	r.once.Do(func() {
		r.s3b, r.s3err = newS3(context.Background(), r.opts)
	})
	return r.s3b, r.s3err
}

func (r *Router) pick(path string) (Backend, error) {
	if _, ok := cutScheme(path, "s3"); ok {
		b, err := r.s3()
		if err != nil {
			return nil, err
		}
		return b, nil
	}
	if err := checkScheme(path); err != nil {
		return nil, fmt.Errorf("storage: %s: %w", path, err)
	}
	return r.local, nil
}

func (r *Router) Open(ctx context.Context, path string) (File, error) {
	b, err := r.pick(path)
	if err != nil {
		return nil, err
	}
	return b.Open(ctx, path)
}

// OpenSized implements SizedOpener for the backends that have it.
func (r *Router) OpenSized(ctx context.Context, path string, size int64) (File, error) {
	b, err := r.pick(path)
	if err != nil {
		return nil, err
	}
	return OpenSized(ctx, b, path, size)
}

func (r *Router) Create(ctx context.Context, path string) (Writer, error) {
	b, err := r.pick(path)
	if err != nil {
		return nil, err
	}
	return b.Create(ctx, path)
}

func (r *Router) Stat(ctx context.Context, path string) (int64, error) {
	b, err := r.pick(path)
	if err != nil {
		return 0, err
	}
	return b.Stat(ctx, path)
}

func (r *Router) Delete(ctx context.Context, path string) error {
	b, err := r.pick(path)
	if err != nil {
		return err
	}
	return b.Delete(ctx, path)
}

func (r *Router) List(ctx context.Context, prefix string) ([]ObjectInfo, error) {
	b, err := r.pick(prefix)
	if err != nil {
		return nil, err
	}
	return b.List(ctx, prefix)
}

// ListLeftovers implements Leftovers for the backends that have them.
func (r *Router) ListLeftovers(ctx context.Context, prefix string) ([]ObjectInfo, error) {
	b, err := r.pick(prefix)
	if err != nil {
		return nil, err
	}
	if l, ok := b.(Leftovers); ok {
		return l.ListLeftovers(ctx, prefix)
	}
	return nil, nil
}
