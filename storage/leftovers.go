package storage

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
)

// Leftovers is implemented by backends whose writers leave partial state
// behind when the process dies mid-write: a local writer's temporary file
// (".name.tmp-*", renamed into place only when complete). They are not
// objects — List skips them — and nothing references them; cleanup removes
// them with Delete once they are old enough that no live writer can own
// them.
type Leftovers interface {
	ListLeftovers(ctx context.Context, prefix string) ([]ObjectInfo, error)
}

// ListLeftovers lists the temporary files of unfinished writes under prefix.
func (local) ListLeftovers(ctx context.Context, prefix string) ([]ObjectInfo, error) {
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
		if d.IsDir() || !strings.HasPrefix(p, prefix) || !d.Type().IsRegular() || !isTempName(d.Name()) {
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
		return nil, fmt.Errorf("storage: list leftovers %s: %w", prefix, err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}
