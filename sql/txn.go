package sql

import (
	"context"
	"errors"
	"io/fs"

	"github.com/lakepg/lakepg/sql/planner"
	"github.com/lakepg/lakepg/sql/sequences"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/snapshot"
)

// txn is an open transaction block (BEGIN … COMMIT): the snapshot all its
// statements read, and one snapshot.Commit that collects their writes, so
// the block becomes one DuckLake snapshot at COMMIT and nothing at
// ROLLBACK. Reads inside the block see that snapshot plus the block's own
// staged writes (overlay); writes to rows the block itself wrote rewrite
// the staged files instead of adding delete files, as DuckDB's
// transaction-local storage does.
type txn struct {
	base     catalog.Snapshot
	baseMeta *catalog.Metadata // the catalog at base
	meta     *catalog.Metadata // baseMeta with the block's schema changes
	c        *snapshot.Commit
	// undo deletes what the block's statements wrote (ROLLBACK, a failed
	// COMMIT, a dropped connection).
	undo []func()
	// superseded are files the block wrote and then replaced; they are
	// deleted once COMMIT has succeeded.
	superseded []string
	// files are each table's data files at base, read once: a merge that
	// commits meanwhile physically deletes the rows of the files it merged,
	// and the block's staged deletes name those files.
	files map[int64][]catalog.DataFile
	// seqs are the sequences the block created, altered or dropped
	// (sql/sequences/sequence.go); their rows are written with the block's commit.
	seqs []*sequences.Item
}

// txnState returns the open block's state, taking its snapshot at the first
// statement that needs one, as PostgreSQL's REPEATABLE READ does.
func (s *Session) txnState(ctx context.Context) (*txn, error) {
	if s.txn != nil {
		return s.txn, nil
	}
	head, err := s.eng.DB.Head(ctx)
	if err != nil {
		return nil, err
	}
	meta, err := s.eng.Metadata(ctx, head)
	if err != nil {
		return nil, err
	}
	s.txn = &txn{base: head, baseMeta: meta, meta: meta, c: snapshot.Begin(s.eng.DB, head, meta)}
	return s.txn, nil
}

// Metadata is the catalog as a statement at snap sees it: inside a block,
// reading the block's snapshot, with the block's own schema changes.
func (s *Session) Metadata(ctx context.Context, snap catalog.Snapshot) (*catalog.Metadata, error) {
	if t := s.readTxn(); t != nil && snap.ID == t.base.ID {
		return t.meta, nil
	}
	return s.eng.Metadata(ctx, snap)
}

// TableFiles lists a table's data files at snap, the same list for every
// statement of a block that reads at the block's snapshot.
func (s *Session) TableFiles(ctx context.Context, sch *catalog.Schema, t *catalog.Table, snap catalog.Snapshot) ([]catalog.DataFile, error) {
	tx := s.txn
	if tx == nil || snap.ID != tx.base.ID {
		return s.eng.DB.Files(ctx, sch, t, snap)
	}
	files, ok := tx.files[t.ID]
	if !ok {
		var err error
		if files, err = s.eng.DB.Files(ctx, sch, t, snap); err != nil {
			return nil, err
		}
		if tx.files == nil {
			tx.files = map[int64][]catalog.DataFile{}
		}
		tx.files[t.ID] = files
	}
	return files[:len(files):len(files)], nil // shared: read only, appends copy
}

// writeHead is the snapshot a write statement plans against: the block's
// snapshot inside BEGIN … COMMIT, else the latest.
func (s *Session) writeHead(ctx context.Context) (catalog.Snapshot, error) {
	if s.inTx {
		t, err := s.txnState(ctx)
		if err != nil {
			return catalog.Snapshot{}, err
		}
		return t.base, nil
	}
	// One read per statement: its planning, key checks and insert commit
	// all build on the snapshot the statement started from.
	if s.stmtHead != nil {
		return *s.stmtHead, nil
	}
	head, err := s.eng.DB.Head(ctx)
	if err == nil && (s.stmtValues != nil || s.describing) { // only while a statement executes or is described
		s.stmtHead = &head
	}
	return head, err
}

// stage adds a write statement's changes to the open block.
func (s *Session) stage(ctx context.Context, fn func(c *snapshot.Commit, meta *catalog.Metadata) error, cleanup func()) error {
	t, err := s.txnState(ctx)
	if err == nil {
		err = s.runKeyChecks(ctx, t.c, t.meta) // unique.go
	}
	if err == nil {
		err = fn(t.c, t.meta)
	}
	if err == nil {
		t.meta = t.c.Overlay(t.baseMeta)
	}
	if err != nil {
		if cleanup != nil {
			cleanup()
		}
		return err
	}
	if cleanup != nil {
		t.undo = append(t.undo, cleanup)
	}
	return nil
}

// endTxn finishes the block: commit writes its staged changes as one
// snapshot; otherwise (or when that fails) everything it wrote is deleted.
func (s *Session) endTxn(ctx context.Context, commit bool) (err error) {
	// the temporary tables end with the block, rolled back if it failed
	defer func() { s.tempEnd(commit && err == nil) }()     // temp.go
	defer func() { s.endSettings(commit && err == nil) }() // settings_txn.go
	t := s.txn
	s.txn, s.savepoints = nil, nil
	if t == nil {
		return nil
	}
	// deferred first, so it runs last: once the block's files are committed
	// or deleted, orphan sweeps no longer need to be told about them
	defer s.releaseWrites() // inflight.go
	if commit && !t.c.Empty() {
		err := s.commitStaged(ctx, t.c)
		if err == nil {
			for _, p := range append(t.superseded, t.c.Discarded()...) {
				s.eng.Store.Delete(context.WithoutCancel(ctx), p)
			}
			return nil
		}
		defer func() {
			for _, u := range t.undo {
				u()
			}
		}()
		return err
	}
	// ROLLBACK, or a block whose writes cancelled out (rows it inserted and
	// deleted again): the catalog references nothing the block wrote
	for _, u := range t.undo {
		u()
	}
	return nil
}

// commitStaged writes a commit under the engine's writer lock.
func (s *Session) commitStaged(ctx context.Context, c *snapshot.Commit) error {
	if err := s.filesPresent(ctx, c); err != nil {
		return err
	}
	e := s.eng
	e.wg.Add(1)
	defer e.wg.Done()
	e.lockWrites()
	defer e.writeMu.Unlock()
	// the block's delete files were stamped for the snapshot after its base
	head, err := e.DB.Head(ctx)
	if err != nil {
		return err
	}
	restamped, err := s.restampDeletes(ctx, c, head.ID+1) // deletefiles.go
	if err != nil {
		s.dropFiles(ctx, restamped)
		return err
	}
	// a commit must not be abandoned half-way because the client went away
	if _, err := c.Commit(context.WithoutCancel(ctx)); err != nil {
		s.dropFiles(ctx, restamped)
		if errors.Is(err, snapshot.ErrConflict) {
			return pgerr.Wrap(pgerr.SerializationFailure, err, "could not serialize access due to concurrent update")
		}
		return err
	}
	return nil
}

// Overlay makes a table scan inside a block see the block's staged writes:
// ended files disappear, staged delete files replace the committed ones,
// deleted inlined rows are dropped and staged data files are appended. A
// scan at another snapshot than the block's (time travel) is left alone.
func (s *Session) Overlay(snap catalog.Snapshot, sch *catalog.Schema, tbl *catalog.Table, ref *planner.TableRef, scan *exec.TableScan) {
	t := s.readTxn() // with_write.go
	if t == nil || snap.ID != t.base.ID {
		return
	}
	dir := s.eng.DB.TableDir(sch, tbl)
	files, sfs := ref.Files[:0:0], scan.Files[:0:0]
	for i, f := range ref.Files {
		if t.c.Ended(f.ID) {
			continue
		}
		sf := scan.Files[i]
		if d, ok := t.c.StagedDelete(f.ID); ok {
			sf.DeletePath, sf.DeleteSize, sf.DeleteCount, sf.CountKnown, sf.DeleteKey = dir+d.RelPath, d.FileSize, d.DeleteCount, true, d.EncryptionKey
			sf.DeleteStaged = true
		}
		files, sfs = append(files, f), append(sfs, sf)
	}
	ref.Files, scan.Files = files, sfs
	if del := t.c.InlinedDeleted(tbl.ID); del != nil {
		scan.Inlined = dropInlined(scan.Inlined, len(scan.Cols), ref.Inlined, del)
	}
	for _, f := range t.c.AddedFiles(tbl.ID) {
		ref.Pending = append(ref.Pending, f)
		sf := exec.ScanFile{Path: dir + f.RelPath, Size: f.FileSize, RecordCount: f.RecordCount, CountKnown: true, Key: f.EncryptionKey}
		if s.mergeFiles != nil && !f.EmbeddedRowIDs {
			// rows the block inserted have no row ids yet: MERGE, which
			// joins on row ids, numbers them apart, the same in every
			// scan while the file stays (merge.go)
			n, ok := s.mergeFiles[sf.Path]
			if !ok {
				n = int64(len(s.mergeFiles))
				s.mergeFiles[sf.Path] = n
			}
			sf.RowIDStart = pendingRowIDBase + n<<32
		}
		ref.PendingScan = append(ref.PendingScan, sf)
	}
	scan.Files = append(scan.Files, ref.PendingScan...)
}

// dropInlined removes deleted rows from inlined batches (laid out as ncols
// table columns, then file ordinal, row id, row id).
func dropInlined(bs []*vec.Batch, ncols int, names []string, del map[string][]int64) []*vec.Batch {
	gone := map[int64]map[int64]bool{} // by file ordinal: row ids
	for k, name := range names {
		for _, id := range del[name] {
			ord := -1 - int64(k)
			if gone[ord] == nil {
				gone[ord] = map[int64]bool{}
			}
			gone[ord][id] = true
		}
	}
	var out []*vec.Batch
	for _, b := range bs {
		ord, rid := b.Vecs[ncols], b.Vecs[ncols+2]
		var keep []int
		for i := 0; i < b.N; i++ {
			if !gone[ord.I64[i]][rid.I64[i]] {
				keep = append(keep, i)
			}
		}
		switch {
		case len(keep) == b.N:
			out = append(out, b)
		case len(keep) > 0:
			nb := &vec.Batch{N: len(keep)}
			for _, v := range b.Vecs {
				nv := vec.New(v.Type, len(keep))
				nv.Gather(v, keep)
				nb.Vecs = append(nb.Vecs, nv)
			}
			out = append(out, nb)
		}
	}
	return out
}

// filesPresent checks, right before a commit names them, that the files
// the commit keeps are still in storage: a block may stay open for hours,
// and an orphan sweep by another process (which cannot know this one's
// writes) may have taken them. Committing then would acknowledge rows that
// can never be read, so the commit is refused instead.
func (s *Session) filesPresent(ctx context.Context, c *snapshot.Commit) error {
	for _, p := range c.Kept() {
		if _, err := s.eng.Store.Stat(ctx, p); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				e := pgerr.New(pgerr.UndefinedFile, "could not commit: file \"%s\" written by this transaction is gone; nothing was committed", p)
				e.Hint = "Another process may have deleted it as an orphan: give delete_orphaned_files an older_than longer than your transactions last."
				return e
			}
			return pgerr.Wrap(pgerr.IOError, err, "could not commit: checking file \"%s\"", p)
		}
	}
	return nil
}

// LakeMetadata is the lake's metadata at snap, without the open block's
// changes.
func (s *Session) LakeMetadata(ctx context.Context, snap catalog.Snapshot) (*catalog.Metadata, error) {
	return s.eng.Metadata(ctx, snap)
}
