package maintenance

import (
	"context"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/snapshot"
	"github.com/lakepg/lakepg/storage"
)

// deleteOrphans is delete_orphaned_files: it deletes the *.parquet objects
// under the data path that no catalog row names, modified before olderThan
// (nil: any), and the temporary files of writes that never finished.
//
// Deleting a file the catalog needs loses its rows for good, so more is
// kept than DuckDB keeps: a file the catalog names in any spelling
// (snapshot.CanonicalPath), a file whose name is that of a file the catalog
// names elsewhere (a misplaced file, reported as kept: lakepg check says how
// to move it back), and a file a write of this process has not committed
// yet (package sql's inflight.go), whatever older_than or cleanup_all say.
//
// The order of the steps is what makes the last rule hold against
// concurrent writers: the sweep holds the registry before storage is
// listed (so a file the listing shows was registered when the sweep looks),
// and the catalog is read after the listing (so a file committed before
// that read is named).
func (s *Runner) deleteOrphans(ctx context.Context, proc string, olderThan *time.Time, dry bool) (string, error) {
	db, store := s.DB, s.Store
	verb := "deleted"
	if dry {
		verb = "would delete"
	}
	sweepEnd, sweepPrune := s.BeginSweep()
	defer sweepEnd()
	objs, err := store.List(ctx, db.DataPath())
	if err != nil {
		return "", pgerr.Wrap(pgerr.IOError, err, "could not list \"%s\"", db.DataPath())
	}
	var left []storage.ObjectInfo
	if l, ok := store.(storage.Leftovers); ok {
		if left, err = l.ListLeftovers(ctx, db.DataPath()); err != nil {
			return "", pgerr.Wrap(pgerr.IOError, err, "could not list \"%s\"", db.DataPath())
		}
	}
	named, err := snapshot.KnownFiles(ctx, db)
	if err != nil {
		return "", err
	}
	listed := make(map[string]bool, len(objs))
	for _, o := range objs {
		listed[inflightKey(o.Path)] = true
	}
	var plan, kept maintPlan
	n := 0
	for _, o := range objs {
		if !strings.HasSuffix(o.Path, ".parquet") || named.Names(o.Path) {
			continue
		}
		if p, ok := named.SameName(o.Path); ok {
			kept.add("kept: %s: named by the catalog as %s (lakepg check says how to move it back)", o.Path, p)
			continue
		}
		if s.InFlight(o.Path) {
			kept.add("kept: %s: written by this server and not committed yet", o.Path)
			continue
		}
		if olderThan != nil && !o.ModTime.Before(*olderThan) {
			continue
		}
		n++
		if dry {
			plan.add("%s (%d bytes, modified %s)", o.Path, o.Size, o.ModTime.UTC().Format(time.RFC3339))
			continue
		}
		if err := store.Delete(ctx, o.Path); err != nil {
			return "", pgerr.Wrap(pgerr.IOError, err, "could not delete file \"%s\"", o.Path)
		}
	}
	// Temporary files of writes that never finished (a killed server):
	// nothing references them, and past older_than no live writer owns
	// them. One a write of this process is still producing is kept even
	// under cleanup_all.
	temp := 0
	for _, o := range left {
		if target, ok := tempTarget(o.Path); ok && s.InFlight(target) {
			kept.add("kept: %s: temporary file of a write of this server in progress", o.Path)
			continue
		}
		if olderThan != nil && !o.ModTime.Before(*olderThan) {
			continue
		}
		temp++
		if dry {
			plan.add("%s (temporary file of an unfinished write, %d bytes, modified %s)", o.Path, o.Size, o.ModTime.UTC().Format(time.RFC3339))
			continue
		}
		if err := store.Delete(ctx, o.Path); err != nil {
			return "", pgerr.Wrap(pgerr.IOError, err, "could not delete file \"%s\"", o.Path)
		}
	}
	sweepPrune(db.DataPath(), listed, named)
	msg := fmt.Sprintf("%s: %s %d files and %d temporary files", proc, verb, n, temp)
	if dry {
		msg = plan.message("%s", msg)
	}
	// a message() of no summary is its detail lines, each after a newline
	return msg + kept.message(""), nil
}

// tempTarget is the object a local writer's temporary file
// (".<name>.tmp-<n>", storage/local.go) becomes when it commits.
func tempTarget(p string) (string, bool) {
	dir, name := path.Split(p)
	i := strings.LastIndex(name, ".tmp-")
	if !strings.HasPrefix(name, ".") || i <= 1 {
		return "", false
	}
	return dir + name[1:i], true
}

// inflightKey is how package sql's registry of files in flight keys a path
// (the keys a sweep prunes by).
func inflightKey(p string) string { return snapshot.CanonicalPath("", p) }
