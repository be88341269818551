package sql

import (
	"context"
	"strings"

	"github.com/lakepg/lakepg/sql/planner"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/snapshot"
)

// A DELETE or UPDATE that hits a data file with a committed delete file
// writes, as DuckDB does, one new delete file holding the old positions with
// the snapshot that deleted each (_ducklake_internal_snapshot_id) and the
// new ones with the snapshot the statement commits as; the old row is then
// removed. lakepg used to write the plain union and end-date the old row,
// which its own readers understand, but DuckDB's change feed takes every
// position of a delete file that begins inside the range as deleted there
// (it subtracts only the delete file in force before the range starts), so
// the old positions were counted again at every later delete.

// mergedDeletes is the delete file a data file gets when a statement
// deletes positions from it.
type mergedDeletes struct {
	all   bool // every row is deleted: end the data file instead
	write *exec.WrittenFile
	file  snapshot.NewDeleteFile
}

// mergeDeletes writes the delete file of data file fi of ref with its
// current deletes and the positions pos, these stamped stamp (the snapshot
// the commit is expected to get; RestampDeletes corrects it at commit).
func (s *Session) mergeDeletes(ctx context.Context, ref *planner.TableRef, fi int, pos []int64, stamp int64, dir string) (mergedDeletes, error) {
	df, sf := ref.Files[fi], ref.ScanFiles[fi]
	if df.Delete == nil {
		// no committed delete file: every position is deleted at the
		// commit (a block's earlier statement may have staged some)
		if sf.DeletePath != "" {
			old, err := exec.ReadAllDeletes(ctx, s.eng.Store, sf.DeletePath, sf.DeleteKey)
			if err != nil {
				return mergedDeletes{}, err
			}
			pos = append(pos, old...)
		}
		pos = uniqueSorted(pos)
		// DuckDB's inlined deletes of the file stay where they are
		if int64(len(pos)+len(sf.Deleted)) >= df.RecordCount {
			return mergedDeletes{all: true}, nil
		}
		w, err := exec.WriteDeletes(ctx, s.writeStore(), dir, df.Path, pos, s.eng.DB.Encrypted())
		if err != nil {
			return mergedDeletes{}, err
		}
		return mergedDeletes{write: w, file: deleteFileOf(w)}, nil
	}
	// the committed file, or the one a block's earlier statement staged
	// over it (already with the snapshot column)
	dels, err := s.mt.ReadDeletesAt(ctx, sf.DeletePath, df.Delete.BeginSnapshot, sf.DeleteKey)
	if err != nil {
		return mergedDeletes{}, err
	}
	seen := make(map[int64]bool, len(dels)+len(pos))
	for _, d := range dels {
		seen[d.Pos] = true
	}
	for _, p := range pos {
		if !seen[p] {
			seen[p] = true
			dels = append(dels, snapshot.DeletedPos{Pos: p, Snapshot: stamp})
		}
	}
	if int64(len(seen)+len(sf.Deleted)) >= df.RecordCount {
		return mergedDeletes{all: true}, nil
	}
	d, w, err := s.mt.WriteDeletesAt(ctx, dir, df.Path, dels)
	if err != nil {
		return mergedDeletes{}, err
	}
	f := deleteFileOf(w)
	f.Stamp, f.BeginSnapshot = stamp, d.BeginSnapshot
	return mergedDeletes{write: w, file: f}, nil
}

func deleteFileOf(w *exec.WrittenFile) snapshot.NewDeleteFile {
	return snapshot.NewDeleteFile{RelPath: w.Name, Path: w.Path, DeleteCount: w.Info.Rows, FileSize: w.Info.Size, FooterSize: w.Info.FooterSize, RowGroupCount: w.Info.RowGroups, EncryptionKey: w.KeyText()}
}

// restampDeletes rewrites the commit's delete files stamped for another
// snapshot than snap, the one it is about to commit as: a transaction block
// commits after others did, or another session committed between a
// statement's read and its commit. It returns the new files (to delete if
// the commit then fails); the files they replace are deleted at once, no
// catalog row names them.
func (s *Session) restampDeletes(ctx context.Context, c *snapshot.Commit, snap int64) ([]string, error) {
	var fresh []string
	err := c.RestampDeletes(snap, func(df catalog.DataFile, f snapshot.NewDeleteFile) (snapshot.NewDeleteFile, error) {
		dels, err := s.mt.ReadDeletesAt(ctx, f.Path, f.BeginSnapshot, f.EncryptionKey)
		if err != nil {
			return f, err
		}
		// the committed positions predate the statement's read, so the
		// stamped ones are exactly this commit's
		for i := range dels {
			if dels[i].Snapshot == f.Stamp {
				dels[i].Snapshot = snap
			}
		}
		d, w, err := s.mt.WriteDeletesAt(ctx, strings.TrimSuffix(f.Path, f.RelPath), df.Path, dels)
		if err != nil {
			return f, err
		}
		fresh = append(fresh, w.Path)
		s.eng.Store.Delete(context.WithoutCancel(ctx), f.Path)
		nf := deleteFileOf(w)
		nf.Stamp, nf.BeginSnapshot = snap, d.BeginSnapshot
		return nf, nil
	})
	return fresh, err
}

// dropFiles deletes files a failed commit leaves unnamed.
func (s *Session) dropFiles(ctx context.Context, paths []string) {
	for _, p := range paths {
		s.eng.Store.Delete(context.WithoutCancel(ctx), p)
	}
}
