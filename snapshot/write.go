package snapshot

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"time"

	"github.com/lakepg/lakepg/catalog"
)

// Retry settings of the optimistic protocol, DuckDB's defaults
// (ducklake_retry_wait_ms, ducklake_retry_backoff, ducklake_max_retry_count).
var (
	retryWait    = 100 * time.Millisecond
	retryBackoff = 1.5
	maxRetries   = 10
)

// backoff is the wait before retry number n (0-based):
// retryWait × retryBackoff^n × a random factor in [0.5, 1).
func backoff(n int) time.Duration {
	f := math.Pow(retryBackoff, float64(n)) * (0.5 + rand.Float64()/2)
	return time.Duration(float64(retryWait) * f)
}

// Commit writes the collected changes as one new snapshot and returns it.
// An empty commit writes nothing and returns the base snapshot. A logical
// conflict with a concurrent writer returns an error wrapping ErrConflict;
// so does giving up after the retries.
func (c *Commit) Commit(ctx context.Context) (catalog.Snapshot, error) {
	if c.committed {
		return catalog.Snapshot{}, errors.New("snapshot: commit already written")
	}
	if c.Empty() {
		return c.base, nil
	}
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
		snap, err := c.tryGrouped(ctx, attempt) // group.go
		countTry(attempt, err)
		if err == nil {
			c.committed = true
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

// try is one attempt: one catalog transaction.
func (c *Commit) try(ctx context.Context, attempt int) (catalog.Snapshot, error) {
	tx, err := c.db.BeginCommit(ctx, c.reads())
	if err != nil {
		return catalog.Snapshot{}, fmt.Errorf("snapshot: begin commit: %w", err)
	}
	defer tx.Rollback()
	snap, nextCatalogID, err := c.writeIn(ctx, tx, attempt)
	if err != nil {
		return catalog.Snapshot{}, err
	}
	if err := tx.Commit(); err != nil {
		return catalog.Snapshot{}, fmt.Errorf("snapshot: commit snapshot %d: %w", snap.ID, err)
	}
	c.finalCatalogBase = nextCatalogID
	return snap, nil
}

// writeIn writes the commit as the next snapshot in tx, on top of whatever
// tx already holds (the group's earlier commits, group.go), after checking
// for conflicts with everything committed since the commit's base. It
// returns the snapshot and the head's next_catalog_id it built on.
func (c *Commit) writeIn(ctx context.Context, tx *catalog.Tx, attempt int) (catalog.Snapshot, int64, error) {
	head, err := tx.Head(ctx)
	if err != nil {
		return catalog.Snapshot{}, 0, fmt.Errorf("snapshot: read head: %w", err)
	}
	if head.ID != c.base.ID {
		// Someone committed since the statement read base: check what they
		// did against what we do, then build on their head.
		changes, err := tx.ChangesSince(ctx, c.base.ID)
		if err != nil {
			return catalog.Snapshot{}, 0, err
		}
		other := newChangeSet()
		for _, ch := range changes {
			if err := other.parse(ch); err != nil {
				return catalog.Snapshot{}, 0, err
			}
		}
		if err := c.mine().check(other); err != nil {
			return catalog.Snapshot{}, 0, err
		}
	}
	if err := c.checkKeyed(ctx, tx, head); err != nil { // constraints.go
		return catalog.Snapshot{}, 0, err
	}
	var snap catalog.Snapshot
	if c.onlyExtras() {
		snap = head // no DuckLake change: no snapshot (extra.go)
	} else {
		w := &writer{c: c, tx: tx, ctx: ctx, head: head, snapID: head.ID + 1}
		if snap, err = w.write(); err != nil {
			return catalog.Snapshot{}, 0, deferredCause(tx, err)
		}
	}
	if err := c.runExtras(ctx, tx, head.NextCatalogID); err != nil {
		return catalog.Snapshot{}, 0, deferredCause(tx, err)
	}
	if c.beforeCommit != nil {
		if err := c.beforeCommit(attempt); err != nil {
			return catalog.Snapshot{}, 0, err
		}
	}
	return snap, head.NextCatalogID, nil
}

// deferredCause is err, or when a pipelined write of tx failed before it,
// that failure: the transaction aborted there, and the statement that
// reported err only found it aborted.
func deferredCause(tx *catalog.Tx, err error) error {
	if derr := tx.DeferredErr(); derr != nil && derr != err && !errors.Is(err, derr) {
		return fmt.Errorf("snapshot: %w", derr)
	}
	return err
}

// mine describes this commit for the conflict rules. Ids of objects created
// by this commit never appear in another writer's changes, so provisional ids
// are left out.
func (c *Commit) mine() *mine {
	m := &mine{droppedTables: idSet{}, inserted: idSet{}, deleted: idSet{}, deletedInline: idSet{}, altered: idSet{}, renamed: idSet{}, changedViews: idSet{}}
	for _, s := range c.newSchemas {
		if !s.dropped {
			m.createdSchemas = append(m.createdSchemas, s.name)
		}
	}
	m.droppedSchemas = c.droppedSchemas
	for _, t := range c.newTables {
		if t.dropped {
			continue
		}
		sid := t.schemaID
		if c.isProvisional(sid) {
			sid = -1
		}
		m.createdTables = append(m.createdTables, createdName{schema: t.schema, name: t.name, schemaID: sid})
	}
	for _, r := range c.renamed {
		m.createdTables = append(m.createdTables, createdName{schema: r.s.Name, name: r.newName, schemaID: r.t.SchemaID, rename: true})
		m.renamed.add(r.t.ID)
	}
	for _, d := range c.droppedTables {
		m.droppedTables.add(d.t.ID)
	}
	for _, f := range c.addedFiles {
		if !c.isProvisional(f.tableID) {
			m.inserted.add(f.tableID)
		}
	}
	for _, r := range c.replaced {
		m.deleted.add(r.tableID)
	}
	for _, e := range c.ended {
		m.deleted.add(e.tableID)
	}
	for _, d := range c.inlinedDeletes {
		m.deletedInline.add(d.tableID)
	}
	c.inlinedMine(m)
	c.mineViews(m)       // views.go
	c.mineComments(m)    // comments.go
	c.mineSorts(m)       // sort.go
	c.mineConstraints(m) // constraints.go
	for _, a := range c.addedCols {
		m.altered.add(a.tableID)
	}
	for _, ch := range c.colChanges {
		m.altered.add(ch.tableID)
	}
	for _, pc := range c.partitions {
		if !c.isProvisional(pc.tableID) {
			m.altered.add(pc.tableID)
		}
	}
	return m
}

// writer writes one attempt's rows.
// ErrPlainInEncrypted: a plaintext file in a lake whose owner asked for
// encryption would silently weaken it; every writer encrypts in an encrypted
// lake, so this is a safety net for a path that forgot to.
// (snapshot imports only catalog, so no SQLSTATE here.)
var ErrPlainInEncrypted = errors.New("snapshot: refusing to add an unencrypted Parquet file to an encrypted DuckLake lake")

// keyFor checks a new file's key against the lake and returns what the
// encryption_key column gets (NULL for a plain file in a plain lake).
func (w *writer) keyFor(key string) (any, error) {
	if key == "" {
		if w.c.db.Encrypted() {
			return nil, ErrPlainInEncrypted
		}
		return nil, nil
	}
	return key, nil
}

type writer struct {
	c      *Commit
	tx     *catalog.Tx
	ctx    context.Context
	head   catalog.Snapshot
	snapID int64
	sv     int64 // the new snapshot's schema_version

	nextFile  int64            // next free data/delete file id
	sketches  bool             // lakepg_file_column_sketch is known to exist
	nameMaps  map[string]int64 // mappings written by this commit (registered.go)
	data      map[int64]*tableData
	dataOrder []int64
	done      written
}

func (w *writer) exec(q string, args ...any) (int64, error) {
	res, err := w.tx.ExecContext(w.ctx, q, args...)
	if err != nil {
		return 0, fmt.Errorf("snapshot: %s: %w", firstWords(q), err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, nil
	}
	return n, nil
}

// put runs a statement whose result is not needed; on PostgreSQL it goes
// out pipelined with the statements after it (catalog.Tx.ExecDeferred).
func (w *writer) put(q string, args ...any) error {
	if err := w.tx.ExecDeferred(w.ctx, q, args...); err != nil {
		return fmt.Errorf("snapshot: %s: %w", firstWords(q), err)
	}
	return nil
}

// putSketches writes the distinct-value sketches of a new data file's
// columns (catalog/sketches.go), creating their table on first use.
func (w *writer) putSketches(fileID, tableID int64, stats []catalog.ColumnStats) error {
	for _, cs := range stats {
		if cs.Sketch == nil {
			continue
		}
		if !w.sketches {
			if err := w.tx.EnsureSketchTable(w.ctx); err != nil {
				return err
			}
			w.sketches = true
		}
		if err := w.put(catalog.SketchInsert, fileID, tableID, cs.ColumnID, cs.Sketch); err != nil {
			return err
		}
	}
	return nil
}

// firstWords names a statement in an error without the whole SQL.
func firstWords(q string) string {
	f := strings.Fields(q)
	if len(f) > 3 {
		f = f[:3]
	}
	return strings.Join(f, " ")
}

// dataFileCols and deleteFileCols name the columns of the 1.0 layout, so
// that the same INSERT fills a 1.1 catalog, whose tables end in
// row_group_count (left NULL: unknown, which the format allows).
const (
	dataFileCols   = `(data_file_id, table_id, begin_snapshot, end_snapshot, file_order, path, path_is_relative, file_format, record_count, file_size_bytes, footer_size, row_id_start, partition_id, encryption_key, mapping_id, partial_max)`
	deleteFileCols = `(delete_file_id, table_id, begin_snapshot, end_snapshot, data_file_id, path, path_is_relative, format, delete_count, file_size_bytes, footer_size, encryption_key, partial_max)`
)

// fileInsert adds row_group_count (NULL when unknown) to an INSERT of a
// data or delete file row in a DuckLake 1.1 catalog; a 1.0 catalog has no
// such column. q ends in the VALUES list's ')'.
func (w *writer) fileInsert(q string, rowGroups int64, args ...any) (string, []any) {
	if w.tx.DB().Format() != catalog.Format11 {
		return q, args
	}
	q = strings.Replace(q, `, partial_max)`, `, partial_max, row_group_count)`, 1)
	return q[:len(q)-1] + `, ?)`, append(args, nullIfZero(rowGroups))
}

// endLive end-dates the live rows of table matching where.
func (w *writer) endLive(table, where string, args ...any) (int64, error) {
	return w.exec(`UPDATE `+table+` SET end_snapshot = ? WHERE end_snapshot IS NULL AND `+where, append([]any{w.snapID}, args...)...)
}

func (w *writer) fid(id int64) int64 { return w.c.remap(id, w.head.NextCatalogID) }

func nullIfZero(v int64) any {
	if v == 0 {
		return nil
	}
	return v
}

// pathFor is the directory name DuckDB gives a schema or table: the name
// when it is made of [A-Za-z0-9_-] only, else the uuid.
func pathFor(name, id string) string {
	if name == "" {
		return id + "/"
	}
	for i := 0; i < len(name); i++ {
		ch := name[i]
		if !(ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || ch == '_' || ch == '-') {
			return id + "/"
		}
	}
	return name + "/"
}

func (w *writer) droppedTable(id int64) bool { return w.c.dropsTable(id) }

// reads names what an attempt will read of the tables the commit adds rows
// to, for BeginCommit to fetch with the commit lock (catalog.CommitReads).
func (c *Commit) reads() *catalog.CommitReads {
	ids := idSet{}
	for _, af := range c.addedFiles {
		if !c.isProvisional(af.tableID) && !c.dropsTable(af.tableID) {
			ids.add(af.tableID)
		}
	}
	for _, in := range c.inl.inserts {
		if !c.isProvisional(in.tableID) && !c.dropsTable(in.tableID) {
			ids.add(in.tableID)
		}
	}
	return &catalog.CommitReads{Base: c.base.ID, Tables: ids.sorted()}
}

// tableLive checks that an existing table still has a live row.
func (w *writer) tableLive(id int64) error {
	live, err := w.tx.TableLive(w.ctx, id)
	if err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	if !live {
		return conflictf("table with index %d was dropped by another transaction", id)
	}
	return nil
}

// nameTaken reports whether a live table or view in schema sid has name.
func (w *writer) nameTaken(sid int64, name string) (bool, error) {
	var n int64
	err := w.tx.QueryRowContext(w.ctx, `SELECT (SELECT COUNT(*) FROM ducklake_table WHERE schema_id = ? AND table_name = ? AND end_snapshot IS NULL)
	+ (SELECT COUNT(*) FROM ducklake_view WHERE schema_id = ? AND view_name = ? AND end_snapshot IS NULL)`, sid, name, sid, name).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("snapshot: check name %q: %w", name, err)
	}
	return n > 0, nil
}

type fileRec struct {
	id         int64
	rowIDStart int64
	f          NewDataFile
}

// tableData is what a commit adds to one table's data.
type tableData struct {
	id         int64
	isNew      bool
	statsExist bool
	stats      catalog.TableStats
	files      []fileRec

	// prefetched: types and colStats were read (prefetch) before the
	// commit's first write, so that on PostgreSQL the writes go out in one
	// pipelined batch instead of one before each read
	prefetched bool
	types      map[int64]string
	colStats   map[int64]catalog.TableColumnStats
}

// prefetch reads what writeStats needs of td's table: its live column types
// and, when it has statistics, the per-column ones.
func (w *writer) prefetch(td *tableData) error {
	types, err := w.columnTypes(td)
	if err != nil {
		return err
	}
	td.types = types
	if td.statsExist {
		if td.colStats, err = w.tx.TableColumnStats(w.ctx, td.id); err != nil {
			return err
		}
	}
	td.prefetched = true
	return nil
}

// written collects, while the rows go in, what the snapshot's
// changes_made and schema_versions rows must say.
type written struct {
	droppedSchemas []int64
	droppedTables  []int64
	droppedViews   []int64
	createdSchemas []string
	createdTables  []string // already quoted "schema"."table"
	createdViews   []string // already quoted "schema"."view"
	inserted       idSet
	deleted        idSet
	altered        idSet
	alteredViews   idSet // comments on views (comments.go)
	deletedInline  idSet
	insertedInline idSet // inlined_insert (maintenance_inline.go)
	structural     idSet // altered so that inlined rows need a new layout
	versioned      idSet // tables that get a ducklake_schema_versions row
}

// changes renders changes_made in the order DuckDB writes it.
func (wr *written) changes() string {
	var toks []string
	sort.Slice(wr.droppedSchemas, func(i, j int) bool { return wr.droppedSchemas[i] < wr.droppedSchemas[j] })
	sort.Slice(wr.droppedTables, func(i, j int) bool { return wr.droppedTables[i] < wr.droppedTables[j] })
	for _, id := range wr.droppedSchemas {
		toks = append(toks, fmt.Sprintf("dropped_schema:%d", id))
	}
	for _, id := range wr.droppedTables {
		toks = append(toks, fmt.Sprintf("dropped_table:%d", id))
	}
	for _, id := range wr.droppedViews {
		toks = append(toks, fmt.Sprintf("dropped_view:%d", id))
	}
	for _, n := range wr.createdSchemas {
		toks = append(toks, "created_schema:"+quoteName(n))
	}
	for _, n := range wr.createdTables {
		toks = append(toks, "created_table:"+n)
	}
	for _, n := range wr.createdViews {
		toks = append(toks, "created_view:"+n)
	}
	for _, id := range wr.inserted.sorted() {
		toks = append(toks, fmt.Sprintf("inserted_into_table:%d", id))
	}
	for _, id := range wr.deleted.sorted() {
		toks = append(toks, fmt.Sprintf("deleted_from_table:%d", id))
	}
	for _, id := range wr.altered.sorted() {
		toks = append(toks, fmt.Sprintf("altered_table:%d", id))
	}
	for _, id := range wr.alteredViews.sorted() {
		toks = append(toks, fmt.Sprintf("altered_view:%d", id))
	}
	toks = append(toks, idTokens("inlined_insert", wr.insertedInline)...)
	toks = append(toks, inlinedDeleteTokens(wr.deletedInline)...)
	return strings.Join(toks, ",")
}

// write writes every row of the commit inside the attempt's transaction
// and returns the snapshot it makes.
func (w *writer) write() (catalog.Snapshot, error) {
	c := w.c
	w.done = written{inserted: idSet{}, deleted: idSet{}, altered: idSet{}, alteredViews: idSet{}, deletedInline: idSet{}, insertedInline: idSet{}, structural: idSet{}, versioned: idSet{}}

	// Which tables get data files, in order of first mention.
	w.data = map[int64]*tableData{}
	for _, af := range c.addedFiles {
		if w.droppedTable(af.tableID) {
			continue
		}
		tid := w.fid(af.tableID)
		td := w.data[tid]
		if td == nil {
			td = &tableData{id: tid, isNew: c.isProvisional(af.tableID)}
			w.data[tid] = td
			w.dataOrder = append(w.dataOrder, tid)
		}
		td.files = append(td.files, fileRec{f: af.f})
	}
	var nFiles int64
	for _, td := range w.data {
		nFiles += int64(len(td.files))
	}
	nFiles += newNameMaps(w.c.addedFiles) // registered.go
	for _, r := range c.replaced {
		if !w.droppedTable(r.tableID) {
			nFiles++
		}
	}
	// DuckDB moves next_file_id when it hands out file ids, and by one for
	// inlined inserts (it caches table stats keyed on it, and those change);
	// deletes without a new file (inlined deletes, a file end-dated whole)
	// leave it, and the stats, alone.
	dataChange := nFiles > 0 || len(c.inl.inserts) > 0

	catalogChange := len(c.droppedSchemas) > 0 || len(c.droppedTables) > 0 || len(c.renamed) > 0 ||
		len(c.addedCols) > 0 || len(c.colChanges) > 0 || len(c.partitions) > 0 || c.viewsChanged() ||
		len(c.comments) > 0 || !c.cons.empty() || len(c.sorts) > 0
	for _, s := range c.newSchemas {
		catalogChange = catalogChange || !s.dropped
	}
	for _, t := range c.newTables {
		catalogChange = catalogChange || !t.dropped
	}
	if need, err := w.inlinedTableNeeded(); err != nil {
		return catalog.Snapshot{}, err
	} else if need {
		catalogChange = true
	}

	snap := catalog.Snapshot{
		ID:            w.snapID,
		Time:          time.Now().UTC().Truncate(time.Microsecond),
		SchemaVersion: w.head.SchemaVersion,
		NextCatalogID: w.head.NextCatalogID + c.catalogIDs,
		NextFileID:    w.head.NextFileID + nFiles,
		Author:        c.author,
		Message:       c.message,
	}
	if catalogChange {
		snap.SchemaVersion++
	}
	w.sv = snap.SchemaVersion
	if dataChange && nFiles == 0 {
		// inlined inserts only: they change the table stats DuckDB caches
		// keyed on next_file_id, so it must move
		snap.NextFileID++
	}
	w.nextFile = w.head.NextFileID

	// Drops go first, so that a block may drop a schema or table and
	// create another of the same name.
	for _, phase := range []func() error{
		w.writeDroppedTables,
		w.writeDroppedViews, // views.go
		w.writeDroppedSchemas,
		w.writeNewSchemas,
		w.writeRenames,
		w.writeViewRenames,
		w.writeNewTables,
		w.writeNewViews,
		w.writeAddedColumns,
		w.writeColumnChanges,
		w.writePGTypeChanges, // pgtype.go
		w.writePartitions,    // partition.go
		w.writeComments,      // comments.go
		w.writeSorts,         // sort.go
		w.writeConstraints,   // constraints.go
		w.writeDataFiles,
		w.writeDeletes,
		w.writeInlinedDeletes,
		w.writeInlinedInserts,
		w.writeInlinedFileDeletes,
	} {
		if err := phase(); err != nil {
			return snap, err
		}
	}

	// DuckDB inserts into the inlined-data table with the highest schema
	// version; after a structural change it must find one with the new
	// layout, or it would inline rows into the old one.
	for _, tid := range w.done.structural.sorted() {
		if err := w.newLayoutInlined(tid); err != nil {
			return snap, err
		}
	}
	for _, tid := range w.done.versioned.sorted() {
		if err := w.put(`INSERT INTO ducklake_schema_versions VALUES (?, ?, ?)`, snap.ID, snap.SchemaVersion, tid); err != nil {
			return snap, err
		}
	}
	// The snapshot row: on PostgreSQL a concurrent writer without lakepg's
	// commit lock (DuckDB) that took the id makes it fail on the primary
	// key. It goes with the other writes, pipelined at the end: lakepg's
	// own servers queue on the commit lock (catalog.BeginCommit), so
	// failing earlier would only save reads in a race with DuckDB.
	if err := w.put(`INSERT INTO ducklake_snapshot VALUES (?, ?, ?, ?, ?)`,
		snap.ID, snap.Time, snap.SchemaVersion, snap.NextCatalogID, snap.NextFileID); err != nil {
		return snap, err
	}
	snap.Changes = w.done.changes()
	var changes any
	if snap.Changes != "" {
		changes = snap.Changes
	}
	if err := w.put(`INSERT INTO ducklake_snapshot_changes VALUES (?, ?, ?, ?, NULL)`, snap.ID, changes, c.author, c.message); err != nil {
		return snap, err
	}
	return snap, nil
}

func (w *writer) writeNewSchemas() error {
	for _, ns := range w.c.newSchemas {
		if ns.dropped {
			continue
		}
		var n int64
		if err := w.tx.QueryRowContext(w.ctx, `SELECT COUNT(*) FROM ducklake_schema WHERE schema_name = ? AND end_snapshot IS NULL`, ns.name).Scan(&n); err != nil {
			return fmt.Errorf("snapshot: check schema %q: %w", ns.name, err)
		}
		if n > 0 {
			return conflictf("schema %q already exists", ns.name)
		}
		if _, err := w.exec(`INSERT INTO ducklake_schema VALUES (?, ?, ?, NULL, ?, ?, ?)`,
			w.fid(ns.provID), ns.loc.UUID, w.snapID, ns.name, ns.loc.Path, true); err != nil {
			return err
		}
		w.done.createdSchemas = append(w.done.createdSchemas, ns.name)
	}
	return nil
}

// writeDroppedTables end-dates the table row and everything scoped to it.
func (w *writer) writeDroppedTables() error {
	for _, d := range w.c.droppedTables {
		n, err := w.endLive("ducklake_table", "table_id = ?", d.t.ID)
		if err != nil {
			return err
		}
		if n == 0 {
			return conflictf("attempting to drop table %q, but another transaction dropped it already", d.t.Name)
		}
		for _, tbl := range []string{"ducklake_partition_info", "ducklake_column", "ducklake_column_tag", "ducklake_data_file", "ducklake_delete_file", "ducklake_sort_info"} {
			if _, err := w.endLive(tbl, "table_id = ?", d.t.ID); err != nil {
				return err
			}
		}
		if _, err := w.endLive("ducklake_tag", "object_id = ?", d.t.ID); err != nil {
			return err
		}
		w.done.droppedTables = append(w.done.droppedTables, d.t.ID)
	}
	return nil
}

// writeRenames end-dates each renamed table's row and re-inserts it with
// the same id, uuid and directory under the new name. The change is
// recorded as created_table, as DuckDB does. Every old row is end-dated
// before any new name is checked, so that a block may swap two names.
func (w *writer) writeRenames() error {
	type liveRow struct {
		r     *renamedTable
		uuid  string
		sid   int64
		path  sql.NullString
		isRel catalog.NullBool
	}
	var rows []liveRow
	for _, r := range w.c.renamed {
		if w.droppedTable(r.t.ID) {
			continue
		}
		lr := liveRow{r: r}
		var name string
		err := w.tx.QueryRowContext(w.ctx, `SELECT table_uuid, schema_id, table_name, path, path_is_relative FROM ducklake_table WHERE table_id = ? AND end_snapshot IS NULL`, r.t.ID).
			Scan(&lr.uuid, &lr.sid, &name, &lr.path, &lr.isRel)
		if errors.Is(err, sql.ErrNoRows) {
			return conflictf("attempting to rename table %q, but another transaction dropped it", r.t.Name)
		}
		if err != nil {
			return fmt.Errorf("snapshot: read table %d: %w", r.t.ID, err)
		}
		if name != r.t.Name {
			return conflictf("attempting to rename table %q, but another transaction renamed it to %q", r.t.Name, name)
		}
		if _, err := w.endLive("ducklake_table", "table_id = ?", r.t.ID); err != nil {
			return err
		}
		rows = append(rows, lr)
	}
	for _, lr := range rows {
		r := lr.r
		if taken, err := w.nameTaken(lr.sid, r.newName); err != nil {
			return err
		} else if taken {
			return conflictf("table %q already exists", r.newName)
		}
		var p any
		if lr.path.Valid {
			p = lr.path.String
		}
		if _, err := w.exec(`INSERT INTO ducklake_table VALUES (?, ?, ?, NULL, ?, ?, ?, ?)`,
			r.t.ID, lr.uuid, w.snapID, lr.sid, r.newName, p, lr.isRel.Ptr()); err != nil {
			return err
		}
		w.done.createdTables = append(w.done.createdTables, quoteName(r.s.Name)+"."+quoteName(r.newName))
		w.done.versioned.add(r.t.ID)
		w.done.structural.add(r.t.ID) // DuckDB starts a new inlined-data table at a rename too
	}
	return nil
}

func (w *writer) writeNewTables() error {
	for _, nt := range w.c.newTables {
		if nt.dropped {
			continue
		}
		tid, sid := w.fid(nt.provID), w.fid(nt.schemaID)
		if !w.c.isProvisional(nt.schemaID) {
			if taken, err := w.nameTaken(sid, nt.name); err != nil {
				return err
			} else if taken {
				return conflictf("table %q already exists", nt.name)
			}
		}
		if _, err := w.exec(`INSERT INTO ducklake_table VALUES (?, ?, ?, NULL, ?, ?, ?, ?)`,
			tid, nt.loc.UUID, w.snapID, sid, nt.name, nt.loc.Path, true); err != nil {
			return err
		}
		ids := nt.columnIDs()
		for i, def := range nt.cols {
			if nt.colDrop[i] {
				continue
			}
			if err := w.insertColumn(tid, ids[i], def); err != nil {
				return err
			}
		}
		if err := w.newTableInlined(nt, tid); err != nil {
			return err
		}
		w.done.createdTables = append(w.done.createdTables, quoteName(nt.schema)+"."+quoteName(nt.name))
		w.done.versioned.add(tid)
	}
	return nil
}

// writeAddedColumns: ids continue from the largest id the table ever had,
// recomputed inside the commit's transaction, at the distances AddColumn
// handed out.
func (w *writer) writeAddedColumns() error {
	maxID := map[int64]int64{}
	for _, a := range w.c.addedCols {
		if w.droppedTable(a.tableID) {
			continue
		}
		m, ok := maxID[a.tableID]
		if !ok {
			if err := w.tableLive(a.tableID); err != nil {
				return err
			}
			var err error
			if m, err = w.tx.MaxColumnID(w.ctx, a.tableID); err != nil {
				return err
			}
			maxID[a.tableID] = m
		}
		if err := w.insertColumn(a.tableID, m+a.provID-a.base, a.def); err != nil {
			return err
		}
		w.done.altered.add(a.tableID)
		w.done.structural.add(a.tableID)
		w.done.versioned.add(a.tableID)
	}
	return nil
}

// writeColumnChanges end-dates each altered column's live row once and
// inserts its replacement with the same column id; a drop end-dates the
// column and everything nested under it.
func (w *writer) writeColumnChanges() error {
	live := map[int64]map[int64]catalog.Column{}
	for _, ch := range w.c.colChanges {
		if w.droppedTable(ch.tableID) {
			continue
		}
		cols, ok := live[ch.tableID]
		if !ok {
			lc, err := w.tx.LiveColumns(w.ctx, ch.tableID)
			if err != nil {
				return err
			}
			cols = map[int64]catalog.Column{}
			for _, col := range lc {
				cols[col.ID] = col
			}
			live[ch.tableID] = cols
		}
		cur, ok := cols[ch.columnID]
		if !ok {
			return conflictf("column %d of table with index %d was dropped or altered by another transaction", ch.columnID, ch.tableID)
		}
		if ch.drop {
			for _, id := range descendants(cols, ch.columnID) {
				if _, err := w.endLive("ducklake_column", "table_id = ? AND column_id = ?", ch.tableID, id); err != nil {
					return err
				}
			}
			w.done.structural.add(ch.tableID)
		} else {
			if _, err := w.endLive("ducklake_column", "table_id = ? AND column_id = ?", ch.tableID, ch.columnID); err != nil {
				return err
			}
			next := cur
			if ch.rename != nil {
				next.Name = *ch.rename
				w.done.structural.add(ch.tableID)
			}
			if ch.typ != nil {
				next.Type = *ch.typ
				w.done.structural.add(ch.tableID)
			}
			dvt := cur.DefaultValueType
			if ch.setDefault {
				next.DefaultValue = ch.def
				dvt = "literal"
				if ch.defExpr {
					dvt = "expression"
				}
			}
			if ch.notNull {
				next.NullsAllowed = false
			}
			if ch.nullable {
				next.NullsAllowed = true
			}
			if err := w.insertColumnRow(ch.tableID, next, dvt); err != nil {
				return err
			}
		}
		w.done.altered.add(ch.tableID)
		w.done.versioned.add(ch.tableID)
	}
	return nil
}

// writeDataFiles gives files ids from next_file_id in call order and row
// id ranges from each table's next_row_id, then folds them into the
// table's statistics.
func (w *writer) writeDataFiles() error {
	for _, tid := range w.dataOrder {
		td := w.data[tid]
		if td.isNew {
			continue
		}
		if err := w.tableLive(tid); err != nil {
			return err
		}
		if err := w.checkFileSpecs(tid, td.files); err != nil {
			return err
		}
		st, ok, err := w.tx.TableStats(w.ctx, tid)
		if err != nil {
			return err
		}
		td.stats, td.statsExist = st, ok
		if err := w.prefetch(td); err != nil {
			return err
		}
	}
	cursor := map[int64]int{}
	for _, af := range w.c.addedFiles {
		if w.droppedTable(af.tableID) {
			continue
		}
		tid := w.fid(af.tableID)
		td := w.data[tid]
		i := cursor[tid]
		cursor[tid] = i + 1
		key, err := w.keyFor(td.files[i].f.EncryptionKey)
		if err != nil {
			return err
		}
		fr := &td.files[i]
		mapping, err := w.writeNameMap(tid, fr.f) // registered.go
		if err != nil {
			return err
		}
		fr.id = w.nextFile
		w.nextFile++
		fr.rowIDStart = td.stats.NextRowID
		td.stats.NextRowID += fr.f.RecordCount
		td.stats.RecordCount += fr.f.RecordCount
		td.stats.FileSizeBytes += fr.f.FileSize
		q, args := w.fileInsert(`INSERT INTO ducklake_data_file `+dataFileCols+` VALUES (?, ?, ?, NULL, NULL, ?, ?, 'parquet', ?, ?, ?, ?, ?, ?, ?, NULL)`, fr.f.RowGroupCount,
			fr.id, tid, w.snapID, fr.f.RelPath, !fr.f.Registered, fr.f.RecordCount, fr.f.FileSize, nullIfZero(fr.f.FooterSize), fr.rowIDStart, w.partitionID(fr.f.Partition), key, mapping)
		if err := w.put(q, args...); err != nil {
			return err
		}
		if err := w.insertPartitionValues(fr.id, tid, fr.f.Partition); err != nil {
			return err
		}
		for _, cs := range fr.f.Stats {
			if err := w.put(`INSERT INTO ducklake_file_column_stats VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)`,
				fr.id, tid, cs.ColumnID, cs.ColumnSizeBytes, cs.ValueCount, cs.NullCount, cs.Min, cs.Max, cs.ContainsNaN); err != nil {
				return err
			}
		}
		if err := w.putSketches(fr.id, tid, fr.f.Stats); err != nil {
			return err
		}
		w.done.inserted.add(tid)
	}
	for _, tid := range w.dataOrder {
		if err := w.writeStats(w.data[tid]); err != nil {
			return err
		}
	}
	return nil
}

// writeDeletes: a new delete file holds every deleted position of its data
// file and end-dates the old one, so exactly one is live at any snapshot;
// a fully deleted data file is end-dated instead.
func (w *writer) writeDeletes() error {
	for _, r := range w.c.replaced {
		if w.droppedTable(r.tableID) {
			continue
		}
		liveDel, fileLive, err := w.tx.LiveDeleteFile(w.ctx, r.df.ID)
		if err != nil {
			return err
		}
		if !fileLive {
			return conflictf("attempting to delete from data file %d, but another transaction deleted it", r.df.ID)
		}
		switch {
		case liveDel == nil && r.df.Delete == nil:
		case liveDel != nil && r.df.Delete != nil && *liveDel == r.df.Delete.ID:
		default:
			return conflictf("attempting to delete from data file %d, but another transaction deleted from it", r.df.ID)
		}
		if err := w.noInlinedDeletesSince(r.tableID, r.df.ID); err != nil {
			return err
		}
		begin, partialMax := w.snapID, int64(0)
		if r.f.Stamp != 0 {
			if r.f.Stamp != w.snapID {
				// the file says these rows were deleted at another snapshot
				return conflictf("the delete file of data file %d was written for snapshot %d, but the commit is snapshot %d", r.df.ID, r.f.Stamp, w.snapID)
			}
			if r.f.BeginSnapshot > 0 {
				begin = r.f.BeginSnapshot
			}
			partialMax = w.snapID
		}
		if liveDel != nil {
			if r.f.Stamp == 0 {
				return fmt.Errorf("snapshot: the delete file replacing delete file %d has no snapshot column", *liveDel)
			}
			// DuckDB's way (notes §5): the new file holds the old positions
			// with their snapshots, so the old row goes and its file is
			// scheduled for cleanup_old_files.
			if _, err := w.exec(`DELETE FROM ducklake_delete_file WHERE delete_file_id = ?`, *liveDel); err != nil {
				return err
			}
			if err := w.schedule(*liveDel, "", r.df.Delete.Path); err != nil {
				return err
			}
		}
		key, err := w.keyFor(r.f.EncryptionKey)
		if err != nil {
			return err
		}
		id := w.nextFile
		w.nextFile++
		q, args := w.fileInsert(`INSERT INTO ducklake_delete_file `+deleteFileCols+` VALUES (?, ?, ?, NULL, ?, ?, ?, 'parquet', ?, ?, ?, ?, ?)`, r.f.RowGroupCount,
			id, r.tableID, begin, r.df.ID, r.f.RelPath, true, r.f.DeleteCount, r.f.FileSize, nullIfZero(r.f.FooterSize), key, nullIfZero(partialMax))
		if _, err := w.exec(q, args...); err != nil {
			return err
		}
		w.done.deleted.add(r.tableID)
	}
	for _, e := range w.c.ended {
		if w.droppedTable(e.tableID) {
			continue
		}
		// Ending the file deletes every row: rows another writer deleted
		// since (delete file or inlined) may be rows this statement updated.
		liveDel, _, err := w.tx.LiveDeleteFile(w.ctx, e.df.ID)
		if err != nil {
			return err
		}
		if (liveDel == nil) != (e.df.Delete == nil) || (liveDel != nil && *liveDel != e.df.Delete.ID) {
			return conflictf("attempting to delete from data file %d, but another transaction deleted from it", e.df.ID)
		}
		if err := w.noInlinedDeletesSince(e.tableID, e.df.ID); err != nil {
			return err
		}
		n, err := w.endLive("ducklake_data_file", "data_file_id = ?", e.df.ID)
		if err != nil {
			return err
		}
		if n == 0 {
			return conflictf("attempting to delete from data file %d, but another transaction deleted it", e.df.ID)
		}
		if _, err := w.endLive("ducklake_delete_file", "data_file_id = ?", e.df.ID); err != nil {
			return err
		}
		w.done.deleted.add(e.tableID)
	}
	return nil
}

// writeDroppedSchemas runs after the tables they held were dropped and
// before new schemas are created.
func (w *writer) writeDroppedSchemas() error {
	for _, d := range w.c.droppedSchemas {
		n, err := w.endLive("ducklake_schema", "schema_id = ?", d.s.ID)
		if err != nil {
			return err
		}
		if n == 0 {
			return conflictf("attempting to drop schema %q, but another transaction dropped it already", d.s.Name)
		}
		if err := w.schemaEmpty(d.s); err != nil {
			return err
		}
		w.done.droppedSchemas = append(w.done.droppedSchemas, d.s.ID)
	}
	return nil
}

// schemaEmpty checks that a schema being dropped holds no live table or
// view. One the statement saw is the caller's mistake (it must drop the
// schema's tables in the same commit); one it did not see was created by a
// concurrent writer, which is a conflict.
func (w *writer) schemaEmpty(s catalog.Schema) error {
	rows, err := w.tx.QueryContext(w.ctx, `SELECT table_id, table_name FROM ducklake_table WHERE schema_id = ? AND end_snapshot IS NULL
UNION ALL SELECT view_id, view_name FROM ducklake_view WHERE schema_id = ? AND end_snapshot IS NULL`, s.ID, s.ID)
	if err != nil {
		return fmt.Errorf("snapshot: check schema %q: %w", s.Name, err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var name string
		if err := rows.Scan(&id, &name); err != nil {
			return fmt.Errorf("snapshot: check schema %q: %w", s.Name, err)
		}
		if w.c.meta != nil {
			if t, ok := w.c.meta.TableByID(id); ok && t.SchemaID == s.ID {
				return fmt.Errorf("snapshot: cannot drop schema %q: it still contains %q", s.Name, name)
			}
			if v, ok := w.c.meta.ViewByName(s.ID, name); ok && v.ID == id {
				return fmt.Errorf("snapshot: cannot drop schema %q: it still contains view %q", s.Name, name)
			}
		}
		return conflictf("attempting to drop schema %q, but another transaction created an entry in this schema", s.Name)
	}
	return rows.Err()
}

// descendants is id and every column nested under it.
func descendants(cols map[int64]catalog.Column, id int64) []int64 {
	out := []int64{id}
	for i := 0; i < len(out); i++ {
		for _, c := range cols {
			if c.ParentID != nil && *c.ParentID == out[i] {
				out = append(out, c.ID)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// insertColumn writes a new top-level column's row and its children's
// (ids depth-first after it); column_order is the column id, as DuckDB
// writes it.
func (w *writer) insertColumn(tableID, columnID int64, def ColumnDef) error {
	col := columnOf(columnID, def)
	var insert func(c *catalog.Column) error
	insert = func(c *catalog.Column) error {
		if err := w.insertColumnRow(tableID, *c, c.DefaultValueType); err != nil {
			return err
		}
		for i := range c.Children {
			if err := insert(&c.Children[i]); err != nil {
				return err
			}
		}
		return nil
	}
	if err := insert(&col); err != nil {
		return err
	}
	return w.insertPGTypeTag(tableID, columnID, def.PGType) // pgtype.go
}

func (w *writer) insertColumnRow(tableID int64, col catalog.Column, defaultType string) error {
	def := "NULL" // DuckDB's text for "no default"
	if col.DefaultValue != nil {
		def = *col.DefaultValue
	}
	_, err := w.exec(`INSERT INTO ducklake_column VALUES (?, ?, NULL, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'duckdb')`,
		col.ID, w.snapID, tableID, col.Order, col.Name, col.Type, col.InitialDefault, def, col.NullsAllowed, col.ParentID, defaultType)
	return err
}

// writeStats inserts a table's first ducklake_table_stats row, with one
// ducklake_table_column_stats row per column the files have stats for, or
// updates both with the new files folded in.
func (w *writer) writeStats(td *tableData) error {
	if !td.prefetched {
		if err := w.prefetch(td); err != nil {
			return err
		}
	}
	types := td.types
	fileStats := make([]map[int64]catalog.ColumnStats, len(td.files))
	allNull := make([]map[int64]bool, len(td.files))
	for i, fr := range td.files {
		m := map[int64]catalog.ColumnStats{}
		for _, cs := range fr.f.Stats {
			m[cs.ColumnID] = cs
		}
		fileStats[i] = m
		for _, id := range fr.f.NullColumns {
			if allNull[i] == nil {
				allNull[i] = map[int64]bool{}
			}
			allNull[i][id] = true
		}
	}
	fold := func(acc colAcc, id int64, from int) colAcc {
		for i, fs := range fileStats[from:] {
			a := colAcc{} // a file without stats for the column: unknown
			if cs, ok := fs[id]; ok {
				a = fileAcc(cs)
			} else if allNull[from+i][id] {
				a = allNullAcc()
			}
			acc = mergeAcc(acc, a, types[id])
		}
		return acc
	}
	// what the rows will say, for a group's later commits (catalog.Tx.KeepReads)
	after := map[int64]catalog.TableColumnStats{}
	note := func(id int64, acc colAcc, extra *string) {
		after[id] = catalog.TableColumnStats{ColumnID: id, ContainsNull: acc.containsNull, ContainsNaN: acc.containsNaN,
			Min: acc.min, Max: acc.max, ExtraStats: extra}
	}
	if !td.statsExist {
		if err := w.put(`INSERT INTO ducklake_table_stats VALUES (?, ?, ?, ?)`,
			td.id, td.stats.RecordCount, td.stats.NextRowID, td.stats.FileSizeBytes); err != nil {
			return err
		}
		idSeen := idSet{}
		for _, fs := range fileStats {
			for id := range fs {
				idSeen.add(id)
			}
		}
		for _, id := range idSeen.sorted() {
			first := colAcc{}
			if cs, ok := fileStats[0][id]; ok {
				first = fileAcc(cs)
			} else if allNull[0][id] {
				first = allNullAcc()
			}
			acc := fold(first, id, 1)
			if err := w.put(`INSERT INTO ducklake_table_column_stats VALUES (?, ?, ?, ?, ?, ?, NULL)`,
				td.id, id, acc.containsNull, acc.containsNaN, acc.min, acc.max); err != nil {
				return err
			}
			note(id, acc, nil)
		}
		w.tx.NoteTableStats(td.id, td.stats, after)
		return nil
	}
	if err := w.put(`UPDATE ducklake_table_stats SET record_count = ?, next_row_id = ?, file_size_bytes = ? WHERE table_id = ?`,
		td.stats.RecordCount, td.stats.NextRowID, td.stats.FileSizeBytes, td.id); err != nil {
		return err
	}
	existing := td.colStats
	ids := idSet{}
	for id := range existing {
		ids.add(id)
	}
	for _, id := range ids.sorted() {
		row := existing[id]
		if _, live := types[id]; !live {
			after[id] = row
			continue // a dropped column: its row no longer matters
		}
		acc := fold(tableAcc(row), id, 0)
		if err := w.put(`UPDATE ducklake_table_column_stats SET contains_null = ?, contains_nan = ?, min_value = ?, max_value = ? WHERE table_id = ? AND column_id = ?`,
			acc.containsNull, acc.containsNaN, acc.min, acc.max, td.id, id); err != nil {
			return err
		}
		note(id, acc, row.ExtraStats)
	}
	w.tx.NoteTableStats(td.id, td.stats, after)
	return nil
}

// columnTypes maps column id to DuckLake type for a table's columns live in
// this commit (children of nested columns included for existing tables).
func (w *writer) columnTypes(td *tableData) (map[int64]string, error) {
	types := map[int64]string{}
	if td.isNew {
		for _, nt := range w.c.newTables {
			if w.fid(nt.provID) == td.id {
				ids := nt.columnIDs()
				var add func(c catalog.Column)
				add = func(c catalog.Column) {
					types[c.ID] = c.Type
					for _, ch := range c.Children {
						add(ch)
					}
				}
				for i, def := range nt.cols {
					if !nt.colDrop[i] {
						add(columnOf(ids[i], def))
					}
				}
			}
		}
		return types, nil
	}
	cols, err := w.tx.LiveColumns(w.ctx, td.id)
	if err != nil {
		return nil, err
	}
	for _, c := range cols {
		types[c.ID] = c.Type
	}
	return types, nil
}
