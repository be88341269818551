package snapshot

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/lakepg/lakepg/catalog"
)

// Maintenance commits (DuckLake §12): compaction, rewrite of deleted rows
// and the flush of inlined data each write exactly one snapshot whose
// changes_made holds only their own token, as DuckDB's do. They share the
// optimistic protocol of Commit (snapshot row first, re-check against every
// snapshot after the base, retry with backoff) but not its builder: what
// they change is given as finished facts, and their rows are not the rows a
// statement writes (sources are DELETEd and scheduled for deletion, not
// end-dated).

// maintCommit is one maintenance snapshot.
type maintCommit struct {
	db    *catalog.DB
	base  catalog.Snapshot
	files int64 // file ids the commit takes from next_file_id
	// check applies the conflict rules of the operation to what other
	// writers did after base.
	check func(other *changeSet) error
	// body writes the rows and returns changes_made.
	body func(w *writer) (string, error)
}

func (m *maintCommit) run(ctx context.Context) (catalog.Snapshot, error) {
	var lastErr error
	for attempt := 0; attempt <= maxRetries; attempt++ {
		if attempt > 0 {
			t := time.NewTimer(backoff(attempt - 1))
			select {
			case <-ctx.Done():
				t.Stop()
				return catalog.Snapshot{}, ctx.Err()
			case <-t.C:
			}
		}
		snap, err := m.try(ctx)
		countTry(attempt, err)
		if err == nil {
			return snap, nil
		}
		if !retryable(err) || ctx.Err() != nil {
			return catalog.Snapshot{}, err
		}
		lastErr = err
	}
	countGaveUp()
	return catalog.Snapshot{}, fmt.Errorf("%w: gave up after %d retries: %w", ErrConflict, maxRetries, lastErr)
}

func (m *maintCommit) try(ctx context.Context) (catalog.Snapshot, error) {
	tx, err := m.db.BeginWrite(ctx)
	if err != nil {
		return catalog.Snapshot{}, fmt.Errorf("snapshot: begin commit: %w", err)
	}
	defer tx.Rollback()
	head, err := tx.Head(ctx)
	if err != nil {
		return catalog.Snapshot{}, fmt.Errorf("snapshot: read head: %w", err)
	}
	if head.ID != m.base.ID {
		changes, err := tx.ChangesSince(ctx, m.base.ID)
		if err != nil {
			return catalog.Snapshot{}, err
		}
		other := newChangeSet()
		for _, ch := range changes {
			if err := other.parse(ch); err != nil {
				return catalog.Snapshot{}, err
			}
		}
		if err := m.check(other); err != nil {
			return catalog.Snapshot{}, err
		}
	}
	w := &writer{c: &Commit{db: m.db, base: m.base}, tx: tx, ctx: ctx, head: head, snapID: head.ID + 1}
	w.done = written{inserted: idSet{}, deleted: idSet{}, altered: idSet{}, deletedInline: idSet{}, insertedInline: idSet{}, structural: idSet{}, versioned: idSet{}}
	w.nextFile = head.NextFileID
	snap := catalog.Snapshot{
		ID:            w.snapID,
		Time:          time.Now().UTC().Truncate(time.Microsecond),
		SchemaVersion: head.SchemaVersion,
		NextCatalogID: head.NextCatalogID,
		// DuckDB caches table stats keyed on next_file_id: a data change
		// without new files still moves it.
		NextFileID: head.NextFileID + max(m.files, 1),
	}
	if _, err := w.exec(`INSERT INTO ducklake_snapshot VALUES (?, ?, ?, ?, ?)`,
		snap.ID, snap.Time, snap.SchemaVersion, snap.NextCatalogID, snap.NextFileID); err != nil {
		return snap, err
	}
	changes, err := m.body(w)
	if err != nil {
		return snap, err
	}
	snap.Changes = changes
	if _, err := w.exec(`INSERT INTO ducklake_snapshot_changes VALUES (?, ?, NULL, NULL, NULL)`, snap.ID, changes); err != nil {
		return snap, err
	}
	if err := tx.Commit(); err != nil {
		return catalog.Snapshot{}, fmt.Errorf("snapshot: commit snapshot %d: %w", snap.ID, err)
	}
	return snap, nil
}

// checkCompaction is DuckLake's rule for merge_adjacent and rewrite_delete:
// the table must not have been dropped, deleted from or compacted since.
func checkCompaction(tableID int64) func(*changeSet) error {
	return func(other *changeSet) error {
		switch {
		case other.droppedTables[tableID]:
			return conflictf("attempting to compact table with index %d, but another transaction dropped it", tableID)
		case other.deleted[tableID], other.deletedInline[tableID]:
			return conflictf("attempting to compact table with index %d, but another transaction deleted from it", tableID)
		case other.compacted[tableID]:
			return conflictf("attempting to compact table with index %d, but another transaction compacted it", tableID)
		case other.flushed[tableID]:
			return conflictf("attempting to compact table with index %d, but another transaction flushed its inlined data", tableID)
		}
		return nil
	}
}

// NewFile is a file a maintenance operation wrote, with where it sits in
// history.
type NewFile struct {
	NewDataFile
	BeginSnapshot int64
	PartialMax    int64  // 0: NULL (every row has BeginSnapshot)
	RowIDStart    *int64 // nil: the file embeds _ducklake_internal_row_id
}

// Merge is one output file of merge_adjacent_files and the files it
// replaces.
type Merge struct {
	Sources []catalog.DataFile
	File    NewFile
}

// MergeAdjacent commits merge_adjacent_files for table t: each merged file
// is added, its sources' rows (data file, stats, partition values) are
// DELETEd and the source files scheduled for deletion. Nothing else in
// history changes: the merged file carries the sources' row ids and
// snapshot ids, so every snapshot reads the same rows. tableDir is the
// table's directory (for the scheduled paths, relative to data_path).
func MergeAdjacent(ctx context.Context, db *catalog.DB, base catalog.Snapshot, t catalog.Table, tableDir string, merges []Merge) (catalog.Snapshot, error) {
	m := &maintCommit{db: db, base: base, files: int64(len(merges)), check: checkCompaction(t.ID)}
	m.body = func(w *writer) (string, error) {
		if err := w.tableLive(t.ID); err != nil {
			return "", err
		}
		for _, mg := range merges {
			for _, src := range mg.Sources {
				if err := w.untouched(t.ID, src); err != nil {
					return "", err
				}
			}
			if _, err := w.insertFile(t.ID, mg.File); err != nil {
				return "", err
			}
			for _, src := range mg.Sources {
				if err := w.purgeDataFile(src.ID); err != nil {
					return "", err
				}
				if err := w.schedule(src.ID, tableDir, src.RelPath); err != nil {
					return "", err
				}
			}
		}
		return fmt.Sprintf("merge_adjacent:%d", t.ID), nil
	}
	return m.run(ctx)
}

// untouched checks that a source file of a compaction is still live and
// still has no deletes of any kind.
func (w *writer) untouched(tableID int64, df catalog.DataFile) error {
	var n int64
	if err := w.tx.QueryRowContext(w.ctx, `SELECT COUNT(*) FROM ducklake_data_file WHERE data_file_id = ? AND end_snapshot IS NULL`, df.ID).Scan(&n); err != nil {
		return fmt.Errorf("snapshot: check data file %d: %w", df.ID, err)
	}
	if n == 0 {
		return conflictf("data file %d was changed by another transaction", df.ID)
	}
	if err := w.tx.QueryRowContext(w.ctx, `SELECT COUNT(*) FROM ducklake_delete_file WHERE data_file_id = ?`, df.ID).Scan(&n); err != nil {
		return fmt.Errorf("snapshot: check data file %d: %w", df.ID, err)
	}
	if n > 0 {
		return conflictf("data file %d was deleted from by another transaction", df.ID)
	}
	n, err := w.inlinedDeletesOf(tableID, df.ID)
	if err != nil {
		return err
	}
	if n > 0 {
		return conflictf("data file %d was deleted from by another transaction", df.ID)
	}
	return nil
}

// inlinedDeletesOf counts inlined file deletes of a data file.
func (w *writer) inlinedDeletesOf(tableID, fileID int64) (int64, error) {
	name := InlinedDeleteTable(tableID)
	if ok, err := w.tableExists(name); err != nil || !ok {
		return 0, err
	}
	var n int64
	if err := w.tx.QueryRowContext(w.ctx, `SELECT COUNT(*) FROM `+catalog.QuoteIdent(name)+` WHERE file_id = ?`, fileID).Scan(&n); err != nil {
		return 0, fmt.Errorf("snapshot: read inlined deletes: %w", err)
	}
	return n, nil
}

// tableExists asks the catalog database whether a table exists; querying a
// missing one would abort a PostgreSQL transaction.
func (w *writer) tableExists(name string) (bool, error) {
	return tableExistsTx(w.ctx, w.tx, name)
}

func tableExistsTx(ctx context.Context, tx *catalog.Tx, name string) (bool, error) {
	q := `SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = ?`
	if tx.DB().Dialect() == "postgres" {
		q = `SELECT COUNT(*) FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = current_schema() AND c.relname = ? AND c.relkind IN ('r', 'p')`
	}
	var n int64
	if err := tx.QueryRowContext(ctx, q, name).Scan(&n); err != nil {
		return false, fmt.Errorf("snapshot: look up table %s: %w", name, err)
	}
	return n > 0, nil
}

// insertFile adds a data file row with its column statistics and returns
// its id.
func (w *writer) insertFile(tableID int64, f NewFile) (int64, error) {
	key, err := w.keyFor(f.EncryptionKey)
	if err != nil {
		return 0, err
	}
	id := w.nextFile
	w.nextFile++
	var rowIDStart any
	if f.RowIDStart != nil {
		rowIDStart = *f.RowIDStart
	}
	q, args := w.fileInsert(`INSERT INTO ducklake_data_file `+dataFileCols+` VALUES (?, ?, ?, NULL, NULL, ?, ?, 'parquet', ?, ?, ?, ?, ?, ?, NULL, ?)`, f.RowGroupCount,
		id, tableID, f.BeginSnapshot, f.RelPath, true, f.RecordCount, f.FileSize, nullIfZero(f.FooterSize), rowIDStart, w.partitionID(f.Partition), key, nullIfZero(f.PartialMax))
	if _, err := w.exec(q, args...); err != nil {
		return 0, err
	}
	if err := w.insertPartitionValues(id, tableID, f.Partition); err != nil {
		return 0, err
	}
	for _, cs := range f.Stats {
		if _, err := w.exec(`INSERT INTO ducklake_file_column_stats VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)`,
			id, tableID, cs.ColumnID, cs.ColumnSizeBytes, cs.ValueCount, cs.NullCount, cs.Min, cs.Max, cs.ContainsNaN); err != nil {
			return 0, err
		}
	}
	if err := w.putSketches(id, tableID, f.Stats); err != nil {
		return 0, err
	}
	return id, nil
}

// purgeDataFile removes every row describing a data file, as DuckDB's
// merge and expiry do.
func (w *writer) purgeDataFile(id int64) error {
	for _, tbl := range []string{"ducklake_data_file", "ducklake_file_column_stats", "ducklake_delete_file", "ducklake_file_partition_value", "ducklake_file_variant_stats"} {
		if _, err := w.exec(`DELETE FROM `+tbl+` WHERE data_file_id = ?`, id); err != nil {
			return err
		}
	}
	if ok, err := w.tx.SketchTableExists(w.ctx); err != nil {
		return err
	} else if ok {
		if _, err := w.exec(catalog.SketchDelete, id); err != nil {
			return err
		}
	}
	return nil
}

// schedule records a file for cleanup_old_files. The path is relative to
// data_path when the file lies under it.
func (w *writer) schedule(id int64, dir, rel string) error {
	full := dir + rel
	path, isRel := full, false
	if dp := w.tx.DB().DataPath(); strings.HasPrefix(full, dp) {
		path, isRel = strings.TrimPrefix(full, dp), true
	}
	_, err := w.exec(`INSERT INTO ducklake_files_scheduled_for_deletion VALUES (?, ?, ?, ?)`, id, path, isRel, time.Now().UTC())
	return err
}

// Rewrite is one data file of rewrite_data_files: the old file (with the
// delete file the operation read) and the file of its surviving rows (nil
// when none survive).
type Rewrite struct {
	Old  catalog.DataFile
	File *NewFile
}

// RewriteDeletes commits rewrite_data_files for table t: the old data files
// and their delete files end at the new snapshot, the rewritten files begin
// there, and the table statistics are recomputed from what is live.
func RewriteDeletes(ctx context.Context, db *catalog.DB, base catalog.Snapshot, t catalog.Table, rewrites []Rewrite) (catalog.Snapshot, error) {
	var nFiles int64
	for _, r := range rewrites {
		if r.File != nil {
			nFiles++
		}
	}
	m := &maintCommit{db: db, base: base, files: nFiles, check: checkCompaction(t.ID)}
	m.body = func(w *writer) (string, error) {
		if err := w.tableLive(t.ID); err != nil {
			return "", err
		}
		for _, r := range rewrites {
			liveDel, fileLive, err := w.tx.LiveDeleteFile(w.ctx, r.Old.ID)
			if err != nil {
				return "", err
			}
			if !fileLive || (liveDel == nil) != (r.Old.Delete == nil) || (liveDel != nil && *liveDel != r.Old.Delete.ID) {
				return "", conflictf("data file %d was changed by another transaction", r.Old.ID)
			}
			if _, err := w.endLive("ducklake_data_file", "data_file_id = ?", r.Old.ID); err != nil {
				return "", err
			}
			if _, err := w.endLive("ducklake_delete_file", "data_file_id = ?", r.Old.ID); err != nil {
				return "", err
			}
			if r.File != nil {
				f := *r.File
				f.BeginSnapshot = w.snapID
				if _, err := w.insertFile(t.ID, f); err != nil {
					return "", err
				}
			}
		}
		if err := w.recomputeStats(t.ID); err != nil {
			return "", err
		}
		return fmt.Sprintf("rewrite_delete:%d", t.ID), nil
	}
	return m.run(ctx)
}

// recomputeStats sets a table's statistics from what is live: record_count
// and file_size_bytes from the live data files (and live inlined rows), the
// column statistics as the union of the live files' (unknown when inlined
// rows are live). next_row_id never goes back.
func (w *writer) recomputeStats(tableID int64) error {
	var rc, size sql.NullInt64
	if err := w.tx.QueryRowContext(w.ctx, `SELECT SUM(record_count), SUM(file_size_bytes) FROM ducklake_data_file WHERE table_id = ? AND end_snapshot IS NULL`, tableID).Scan(&rc, &size); err != nil {
		return fmt.Errorf("snapshot: recompute stats: %w", err)
	}
	regs, err := w.tx.InlinedTables(w.ctx, tableID)
	if err != nil {
		return err
	}
	var inlined int64
	for _, r := range regs {
		var n int64
		if err := w.tx.QueryRowContext(w.ctx, `SELECT COUNT(*) FROM `+catalog.QuoteIdent(r.Name)+` WHERE `+catalog.QuoteIdent(w.tx.DB().InlinedColumns().End)+` IS NULL`).Scan(&n); err != nil {
			return fmt.Errorf("snapshot: count inlined rows: %w", err)
		}
		inlined += n
	}
	if _, err := w.exec(`UPDATE ducklake_table_stats SET record_count = ?, file_size_bytes = ? WHERE table_id = ?`, rc.Int64+inlined, size.Int64, tableID); err != nil {
		return err
	}
	cols, err := w.tx.LiveColumns(w.ctx, tableID)
	if err != nil {
		return err
	}
	types := map[int64]string{}
	for _, c := range cols {
		types[c.ID] = c.Type
	}
	existing, err := w.tx.TableColumnStats(w.ctx, tableID)
	if err != nil {
		return err
	}
	acc := map[int64]colAcc{}
	seen := map[int64]bool{}
	rows, err := w.tx.QueryContext(w.ctx, `SELECT st.column_id, st.value_count, st.null_count, st.min_value, st.max_value, st.contains_nan
FROM ducklake_file_column_stats st JOIN ducklake_data_file df ON df.data_file_id = st.data_file_id
WHERE df.table_id = ? AND df.end_snapshot IS NULL ORDER BY st.data_file_id`, tableID)
	if err != nil {
		return fmt.Errorf("snapshot: recompute column stats: %w", err)
	}
	for rows.Next() {
		var (
			cs          catalog.ColumnStats
			vals, nulls sql.NullInt64
			minV, maxV  sql.NullString
			nan         catalog.NullBool
		)
		if err := rows.Scan(&cs.ColumnID, &vals, &nulls, &minV, &maxV, &nan); err != nil {
			rows.Close()
			return fmt.Errorf("snapshot: recompute column stats: %w", err)
		}
		if vals.Valid {
			cs.ValueCount = &vals.Int64
		}
		if nulls.Valid {
			cs.NullCount = &nulls.Int64
		}
		if minV.Valid {
			cs.Min = &minV.String
		}
		if maxV.Valid {
			cs.Max = &maxV.String
		}
		cs.ContainsNaN = nan.Ptr()
		a := fileAcc(cs)
		if seen[cs.ColumnID] {
			a = mergeAcc(acc[cs.ColumnID], a, types[cs.ColumnID])
		}
		acc[cs.ColumnID], seen[cs.ColumnID] = a, true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("snapshot: recompute column stats: %w", err)
	}
	for id := range existing {
		a, ok := acc[id]
		if !ok || inlined > 0 {
			a = colAcc{}
		}
		if _, err := w.exec(`UPDATE ducklake_table_column_stats SET contains_null = ?, contains_nan = ?, min_value = ?, max_value = ? WHERE table_id = ? AND column_id = ?`,
			a.containsNull, a.containsNaN, a.min, a.max, tableID, id); err != nil {
			return err
		}
	}
	return nil
}

// FlushedTable is what the rows of one inlined-data table became: one
// Parquet file, or one per partition of a partitioned table. RowIDs are the
// flushed rows (all rows of the table the flush read, an updated row's
// versions each once).
type FlushedTable struct {
	InlinedTable string
	RowIDs       []int64
	Files        []FlushedFile
}

// FlushedFile is one file of flushed rows; Deletes, when set, holds the
// positions of its rows that were already deleted, with the snapshots that
// deleted them.
type FlushedFile struct {
	File    NewFile
	Deletes *NewDeleteFileAt
}

// NewDeleteFileAt is a delete file with its snapshot column: it begins at
// the earliest snapshot it records and PartialMax is the latest (0 when
// there is one snapshot).
type NewDeleteFileAt struct {
	NewDeleteFile
	BeginSnapshot int64
	PartialMax    int64
}

// FoldedDeletes are the inlined file deletes of one data file, written
// into a delete file together with the positions of its delete file at
// read time (Old.Delete, which is then removed and scheduled for deletion).
type FoldedDeletes struct {
	Old       catalog.DataFile
	Positions int64 // inlined delete rows folded in
	File      NewDeleteFileAt
}

// TableFlush is one table's part of a flush_inlined_data commit: new data
// files (and delete files for rows already deleted) that replace its
// inlined rows, and its inlined file deletes folded into delete files.
type TableFlush struct {
	Table  catalog.Table
	Dir    string // the table's directory, for scheduling replaced files
	Tables []FlushedTable
	Folded []FoldedDeletes
}

// FlushInlined commits flush_inlined_data for the given tables as one
// snapshot, as DuckDB does: the inlined rows are physically removed and
// inlined file deletes become delete files.
func FlushInlined(ctx context.Context, db *catalog.DB, base catalog.Snapshot, flushes []TableFlush) (catalog.Snapshot, error) {
	var nFiles int64
	for _, tf := range flushes {
		nFiles += int64(len(tf.Folded))
		for _, ft := range tf.Tables {
			for _, ff := range ft.Files {
				nFiles++
				if ff.Deletes != nil {
					nFiles++
				}
			}
		}
	}
	check := func(other *changeSet) error {
		for _, tf := range flushes {
			id := tf.Table.ID
			switch {
			case other.droppedTables[id]:
				return conflictf("attempting to flush table with index %d, but another transaction dropped it", id)
			case other.deletedInline[id]:
				return conflictf("attempting to flush table with index %d, but another transaction deleted from it", id)
			case other.flushed[id]:
				return conflictf("attempting to flush table with index %d, but another transaction flushed it", id)
			case len(tf.Folded) > 0 && (other.deleted[id] || other.compacted[id]):
				return conflictf("attempting to flush table with index %d, but another transaction deleted from it", id)
			}
		}
		return nil
	}
	m := &maintCommit{db: db, base: base, files: nFiles, check: check}
	m.body = func(w *writer) (string, error) {
		for _, tf := range flushes {
			if err := w.tableLive(tf.Table.ID); err != nil {
				return "", err
			}
		}
		// DuckDB's order of file ids: the data files of every flushed
		// table, then the delete files of folded inlined file deletes, then
		// those of rows deleted while inlined
		ids := make([][][]int64, len(flushes))
		for k, tf := range flushes {
			var added int64
			ids[k] = make([][]int64, len(tf.Tables))
			for i, ft := range tf.Tables {
				for _, ff := range ft.Files {
					id, err := w.insertFile(tf.Table.ID, ff.File)
					if err != nil {
						return "", err
					}
					ids[k][i] = append(ids[k][i], id)
					added += ff.File.FileSize
				}
			}
			if added > 0 {
				if _, err := w.exec(`UPDATE ducklake_table_stats SET file_size_bytes = file_size_bytes + ? WHERE table_id = ?`, added, tf.Table.ID); err != nil {
					return "", err
				}
			}
		}
		for _, tf := range flushes {
			t := tf.Table
			for _, fd := range tf.Folded {
				liveDel, fileLive, err := w.tx.LiveDeleteFile(w.ctx, fd.Old.ID)
				if err != nil {
					return "", err
				}
				if !fileLive || (liveDel == nil) != (fd.Old.Delete == nil) || (liveDel != nil && *liveDel != fd.Old.Delete.ID) {
					return "", conflictf("data file %d was changed by another transaction", fd.Old.ID)
				}
				if old := fd.Old.Delete; old != nil {
					if _, err := w.exec(`DELETE FROM ducklake_delete_file WHERE delete_file_id = ?`, old.ID); err != nil {
						return "", err
					}
					if err := w.schedule(old.ID, tf.Dir, old.RelPath); err != nil {
						return "", err
					}
				}
				if err := w.insertDeleteFile(t.ID, fd.Old.ID, fd.File); err != nil {
					return "", err
				}
				n, err := w.exec(`DELETE FROM `+catalog.QuoteIdent(InlinedDeleteTable(t.ID))+` WHERE file_id = ? AND begin_snapshot <= ?`, fd.Old.ID, m.base.ID)
				if err != nil {
					return "", err
				}
				if n != fd.Positions {
					return "", conflictf("inlined deletes of data file %d changed while flushing", fd.Old.ID)
				}
			}
		}
		var toks []string
		for k, tf := range flushes {
			for i, ft := range tf.Tables {
				for j, ff := range ft.Files {
					if d := ff.Deletes; d != nil {
						if err := w.insertDeleteFile(tf.Table.ID, ids[k][i][j], *d); err != nil {
							return "", err
						}
					}
				}
				if err := w.deleteInlinedRows(ft.InlinedTable, ft.RowIDs, m.base.ID); err != nil {
					return "", err
				}
			}
			if err := w.dropEmptyInlined(tf.Table.ID); err != nil {
				return "", err
			}
			if len(tf.Folded) > 0 {
				toks = append(toks, fmt.Sprintf("deleted_from_table:%d", tf.Table.ID))
			}
			toks = append(toks, fmt.Sprintf("inline_flush:%d", tf.Table.ID))
		}
		return strings.Join(toks, ","), nil
	}
	return m.run(ctx)
}

// dropEmptyInlined drops the table's empty inlined-data tables other than
// the newest (the one inserts go to) with their registrations, as DuckDB's
// flush does: their rows, if they had any, now live in Parquet files.
func (w *writer) dropEmptyInlined(tableID int64) error {
	regs, err := w.tx.InlinedTables(w.ctx, tableID)
	if err != nil || len(regs) < 2 {
		return err
	}
	for _, r := range regs[:len(regs)-1] {
		if ok, err := w.tableExists(r.Name); err != nil {
			return err
		} else if !ok {
			continue
		}
		var n int64
		if err := w.tx.QueryRowContext(w.ctx, `SELECT COUNT(*) FROM `+catalog.QuoteIdent(r.Name)).Scan(&n); err != nil {
			return fmt.Errorf("snapshot: count rows of %s: %w", r.Name, err)
		}
		if n > 0 {
			continue
		}
		if _, err := w.exec(`DROP TABLE ` + catalog.QuoteIdent(r.Name)); err != nil {
			return err
		}
		if _, err := w.exec(`DELETE FROM ducklake_inlined_data_tables WHERE table_id = ? AND table_name = ?`, tableID, r.Name); err != nil {
			return err
		}
	}
	return nil
}

func (w *writer) insertDeleteFile(tableID, dataFileID int64, d NewDeleteFileAt) error {
	key, err := w.keyFor(d.EncryptionKey)
	if err != nil {
		return err
	}
	id := w.nextFile
	w.nextFile++
	q, args := w.fileInsert(`INSERT INTO ducklake_delete_file `+deleteFileCols+` VALUES (?, ?, ?, NULL, ?, ?, ?, 'parquet', ?, ?, ?, ?, ?)`, d.RowGroupCount,
		id, tableID, d.BeginSnapshot, dataFileID, d.RelPath, true, d.DeleteCount, d.FileSize, nullIfZero(d.FooterSize), key, nullIfZero(d.PartialMax))
	_, err = w.exec(q, args...)
	return err
}

// deleteInlinedRows removes the flushed rows, those begun at or before
// the snapshot read; each must still be there. An updated row has several
// versions with one row id (DuckDB and lakepg keep ids on UPDATE), so ids
// repeat: each distinct id is deleted once, expecting all its versions.
func (w *writer) deleteInlinedRows(table string, ids []int64, read int64) error {
	want := map[int64]int64{}
	var uniq []int64
	for _, id := range ids {
		if want[id] == 0 {
			uniq = append(uniq, id)
		}
		want[id]++
	}
	for lo := 0; lo < len(uniq); lo += inlinedDeleteBatch {
		part := uniq[lo:min(lo+inlinedDeleteBatch, len(uniq))]
		args := make([]any, len(part), len(part)+1)
		var expect int64
		for i, id := range part {
			args[i] = id
			expect += want[id]
		}
		marks := strings.Repeat("?, ", len(part))
		sys := w.tx.DB().InlinedColumns()
		n, err := w.exec(`DELETE FROM `+catalog.QuoteIdent(table)+` WHERE `+catalog.QuoteIdent(sys.RowID)+` IN (`+marks[:len(marks)-2]+`) AND `+catalog.QuoteIdent(sys.Begin)+` <= ?`, append(args, read)...)
		if err != nil {
			return err
		}
		if n != expect {
			return conflictf("inlined rows of %s changed while flushing", table)
		}
	}
	return nil
}

// ErrNothingToDo is returned by maintenance that found nothing to change.
var ErrNothingToDo = errors.New("snapshot: nothing to do")
