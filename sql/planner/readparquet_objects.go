package planner

import (
	"context"
	"errors"
	"io/fs"
	"path"
	"strings"

	"github.com/lakepg/lakepg/pgerr"
)

// objectPaths expands one read_parquet argument that is a URL
// (s3://bucket/key). A glob lists the objects under its literal prefix and
// keeps those the pattern matches with path.Match rules ('*' and '?' stay
// within one '/'-separated segment, as filepath.Glob does for local paths);
// their sizes go into sizes so they need no Stat.
func (s *Session) objectPaths(ctx context.Context, pattern string, sizes map[string]int64) ([]string, *pgerr.Error) {
	i := strings.IndexAny(pattern, "*?[")
	if i < 0 {
		return []string{pattern}, nil
	}
	if _, err := path.Match(pattern, ""); err != nil {
		return nil, pgerr.New(pgerr.InvalidParameterValue, "bad glob pattern %q: %v", pattern, err)
	}
	prefix := pattern[:i]
	objs, err := s.Store.List(ctx, prefix)
	if err != nil {
		return nil, fileError(prefix, err)
	}
	var out []string
	for _, o := range objs {
		if ok, _ := path.Match(pattern, o.Path); ok {
			out = append(out, o.Path)
			sizes[o.Path] = o.Size
		}
	}
	if len(out) == 0 {
		return nil, pgerr.New(pgerr.UndefinedFile, "no files match \"%s\"", pattern)
	}
	return out, nil
}

// fileError reports a file read_parquet cannot reach: 58P01 when it does
// not exist, 58030 (I/O error) when the storage failed, as PostgreSQL's
// file functions do.
func fileError(p string, err error) *pgerr.Error {
	if pe, ok := pgerr.As(err); ok {
		return pe
	}
	if errors.Is(err, fs.ErrNotExist) {
		return pgerr.New(pgerr.UndefinedFile, "could not open file \"%s\": %v", p, err)
	}
	if errors.Is(err, context.Canceled) {
		return pgerr.New(pgerr.QueryCanceled, "canceling statement due to user request")
	}
	return pgerr.Wrap(pgerr.IOError, err, "could not open file \"%s\"", p)
}
