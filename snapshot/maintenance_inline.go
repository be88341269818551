package snapshot

import (
	"fmt"
	"strings"

	"github.com/lakepg/lakepg/catalog"
)

// Data inlining on write (DuckLake §7): an INSERT of at most
// data_inlining_row_limit rows goes into ducklake_inlined_data_<t>_<sv>
// instead of a Parquet file, and a DELETE of at most that many rows of one
// Parquet file goes into ducklake_inlined_delete_<t>. Both are ordinary
// parts of a Commit, so they take part in the optimistic protocol like any
// other change.

// InlinedColumn is one top-level column of the layout inlined values follow.
type InlinedColumn struct {
	Name string
	Type string // DuckLake type, for creating the inlined-data table
}

type inlinedInsert struct {
	tableID int64 // provisional for a table the commit creates (CTAS)
	cols    []InlinedColumn
	rows    [][]any // one value per column, already in the backend's representation
	stats   []catalog.ColumnStats
	// rowIDs, when set, are the rows' own ids (new versions of updated
	// rows); otherwise they take ids from next_row_id.
	rowIDs []int64
}

type inlinedFileDelete struct {
	tableID   int64
	df        catalog.DataFile
	positions []int64
}

// inlineWrites is what a Commit inlines. on holds the tables (new or
// existing) data inlining is on for. targets is per attempt: the
// inlined-data table each table's rows go into, and whether this commit
// creates it.
type inlineWrites struct {
	inserts     []inlinedInsert
	fileDeletes []inlinedFileDelete
	on          idSet
	targets     map[int64]inlinedTarget
}

type inlinedTarget struct {
	name   string
	create bool
}

func (iw *inlineWrites) empty() bool { return len(iw.inserts) == 0 && len(iw.fileDeletes) == 0 }

// InsertInlinedRows stages rows of table t to be inlined. cols is the
// table's top-level layout the values follow; stats are the rows' column
// statistics as a data file would have them (they feed the table's column
// statistics).
//
// t may be a table this commit creates (CREATE TABLE ... AS): its rows go
// into the inlined-data table made with it, as DuckDB does.
func (c *Commit) InsertInlinedRows(t catalog.Table, cols []InlinedColumn, rows [][]any, stats []catalog.ColumnStats) {
	if len(rows) == 0 {
		return
	}
	c.inl.inserts = append(c.inl.inserts, inlinedInsert{tableID: t.ID, cols: cols, rows: rows, stats: stats})
}

// InsertInlinedRowVersions stages the new versions of rows an UPDATE
// changed, inlined with their own row ids (rowIDs, parallel to rows), as
// DuckDB inlines an UPDATE of at most data_inlining_row_limit rows. Like
// DuckDB it counts them in the table's gross record_count but leaves
// next_row_id alone, since no new row ids are used.
func (c *Commit) InsertInlinedRowVersions(t catalog.Table, cols []InlinedColumn, rows [][]any, rowIDs []int64, stats []catalog.ColumnStats) {
	if len(rows) == 0 {
		return
	}
	c.inl.inserts = append(c.inl.inserts, inlinedInsert{tableID: t.ID, cols: cols, rows: rows, stats: stats, rowIDs: rowIDs})
}

// DeleteInlinedPositions stages the deletion of rows at positions of data
// file df as inlined file deletes (no delete file).
func (c *Commit) DeleteInlinedPositions(t catalog.Table, df catalog.DataFile, positions []int64) {
	c.inl.fileDeletes = append(c.inl.fileDeletes, inlinedFileDelete{tableID: t.ID, df: df, positions: positions})
}

// LayoutTable is a table whose layout a commit creates or changes.
type LayoutTable struct {
	TableID  int64 // provisional for a table the commit creates
	SchemaID int64 // -1 when unknown (a Commit begun without metadata)
}

// NewLayouts lists the tables this commit creates, and the existing ones
// whose layout it changes as DuckDB counts it: a column added, dropped,
// renamed or retyped, or the table renamed. DuckDB gives each of them a new
// inlined-data table when data inlining is on for it (see InliningOn).
func (c *Commit) NewLayouts() []LayoutTable {
	var out []LayoutTable
	for _, nt := range c.newTables {
		if !nt.dropped {
			out = append(out, LayoutTable{TableID: nt.provID, SchemaID: nt.schemaID})
		}
	}
	ids := idSet{}
	for _, a := range c.addedCols {
		ids.add(a.tableID)
	}
	for _, ch := range c.colChanges {
		if ch.drop || ch.rename != nil || ch.typ != nil {
			ids.add(ch.tableID)
		}
	}
	schemaOf := map[int64]int64{}
	for _, r := range c.renamed {
		ids.add(r.t.ID)
		schemaOf[r.t.ID] = r.s.ID
	}
	for _, id := range ids.sorted() {
		sid, ok := schemaOf[id]
		if !ok {
			sid = -1
			if c.meta != nil {
				if t, found := c.meta.TableByID(id); found {
					sid = t.SchemaID
				}
			}
		}
		out = append(out, LayoutTable{TableID: id, SchemaID: sid})
	}
	return out
}

// InliningOn records that data inlining is on for table tableID (an id
// from NewLayouts). As DuckDB does, creating the table or changing its
// layout then also creates and registers the inlined-data table its small
// inserts go to, ducklake_inlined_data_<table>_<schema version>, so that
// the first inlined insert is not a catalog change of its own.
func (c *Commit) InliningOn(tableID int64) {
	if c.inl.on == nil {
		c.inl.on = idSet{}
	}
	c.inl.on.add(tableID)
}

// inlinedMine adds the inlined changes to the conflict description: an
// inlined insert conflicts like an insert (none for a table the commit
// creates), inlined file deletes like inlined_delete.
func (c *Commit) inlinedMine(m *mine) {
	iw := &c.inl
	for _, in := range iw.inserts {
		if !c.isProvisional(in.tableID) {
			m.inserted.add(in.tableID)
		}
	}
	for _, d := range iw.fileDeletes {
		m.deletedInline.add(d.tableID)
	}
}

// inlinedTableNeeded decides, inside the attempt's transaction, which
// inlined-data table each table's rows go into. DuckDB inserts into the
// registered table with the highest schema version, normally the one made
// with the table's layout (InliningOn). When there is none (the table was
// created while inlining was off), or its columns are not the table's
// current layout, this commit creates one, which is a catalog change
// (schema_version + 1) but, as in DuckDB, not a new layout: no
// schema_versions row.
func (w *writer) inlinedTableNeeded() (bool, error) {
	iw := &w.c.inl
	iw.targets = map[int64]inlinedTarget{}
	need := false
	for _, in := range iw.inserts {
		if _, done := iw.targets[in.tableID]; done || w.droppedTable(in.tableID) {
			continue
		}
		if w.c.isProvisional(in.tableID) {
			// a table this commit creates: its inlined-data table is made
			// with it when inlining is on for it (newTableInlined)
			tgt := inlinedTarget{create: !iw.on[in.tableID]}
			need = need || tgt.create
			iw.targets[in.tableID] = tgt
			continue
		}
		regs, err := w.tx.InlinedTables(w.ctx, in.tableID)
		if err != nil {
			return false, err
		}
		tgt := inlinedTarget{create: true}
		if len(regs) > 0 {
			last := regs[len(regs)-1]
			names, err := w.inlinedColumnNames(last.Name)
			if err != nil {
				return false, err
			}
			if sameNames(names, in.cols) {
				tgt = inlinedTarget{name: last.Name}
			}
		}
		need = need || tgt.create
		iw.targets[in.tableID] = tgt
	}
	return need, nil
}

func sameNames(names []string, cols []InlinedColumn) bool {
	if len(names) != len(cols) {
		return false
	}
	for i, c := range cols {
		if names[i] != c.Name {
			return false
		}
	}
	return true
}

// inlinedColumnNames are the value columns of an inlined-data table, after
// its three system columns.
func (w *writer) inlinedColumnNames(table string) ([]string, error) {
	return w.tx.InlinedColumnNames(w.ctx, table)
}

// writeInlinedInserts gives the rows consecutive row ids from the table's
// next_row_id and folds them into the table statistics like a file: gross
// record_count and next_row_id grow, file_size_bytes does not. New
// versions of updated rows keep their ids and leave next_row_id.
func (w *writer) writeInlinedInserts() error {
	iw := &w.c.inl
	for _, in := range iw.inserts {
		if w.droppedTable(in.tableID) {
			continue
		}
		isNew := w.c.isProvisional(in.tableID)
		tid := w.fid(in.tableID)
		if !isNew {
			if err := w.tableLive(tid); err != nil {
				return err
			}
		}
		tgt := iw.targets[in.tableID]
		if isNew && !tgt.create {
			tgt.name = inlinedDataTable(tid, w.sv)
		}
		if tgt.create {
			name := inlinedDataTable(tid, w.sv)
			if ok, err := w.createInlinedTable(tid, w.sv, in.cols); err != nil {
				return err
			} else if !ok {
				return fmt.Errorf("snapshot: table with index %d cannot be inlined", tid)
			}
			tgt = inlinedTarget{name: name}
			iw.targets[in.tableID] = tgt
		}
		st, ok, err := w.tx.TableStats(w.ctx, tid)
		if err != nil {
			return err
		}
		n := int64(len(in.rows))
		td := &tableData{id: tid, isNew: isNew, statsExist: ok, stats: st,
			files: []fileRec{{f: NewDataFile{RecordCount: n, Stats: in.stats}}}}
		if err := w.prefetch(td); err != nil { // reads before the rows' writes
			return err
		}
		marks := "?, ?, NULL" + strings.Repeat(", ?", len(in.cols))
		q := `INSERT INTO ` + catalog.QuoteIdent(tgt.name) + ` VALUES (` + marks + `)`
		for i, row := range in.rows {
			id := st.NextRowID + int64(i)
			if in.rowIDs != nil {
				id = in.rowIDs[i]
			}
			args := append([]any{id, w.snapID}, row...)
			if err := w.put(q, args...); err != nil {
				return err
			}
		}
		td.stats.RecordCount += n
		if in.rowIDs == nil {
			td.stats.NextRowID += n
		}
		if err := w.writeStats(td); err != nil {
			return err
		}
		w.done.insertedInline.add(tid)
	}
	return nil
}

// inlinedDataTable names the inlined-data table of a table for a schema
// version.
func inlinedDataTable(tid, sv int64) string {
	return fmt.Sprintf("ducklake_inlined_data_%d_%d", tid, sv)
}

// createInlinedTable creates and registers the inlined-data table of table
// tid for schema version sv with top-level columns cols, declared as
// DuckDB's metadata manager declares them on this backend. ok is false,
// and nothing is written, where DuckDB would not inline the table: a
// column of a type the backend cannot hold inlined, or named like the
// system columns.
func (w *writer) createInlinedTable(tid, sv int64, cols []InlinedColumn) (ok bool, err error) {
	db := w.tx.DB()
	// the system columns' names depend on the format version, which a
	// migration by another program may have changed since the catalog was
	// opened; a table made with the old names would be misread
	if _, err := db.RecheckFormat(w.ctx, w.tx); err != nil {
		return false, err
	}
	defs := make([]string, len(cols))
	for i, c := range cols {
		typ, ok := db.InlinedColumnType(c.Type)
		if !ok || db.InlinedColumns().Reserved(c.Name) {
			return false, nil
		}
		defs[i] = catalog.QuoteIdent(c.Name) + " " + typ
	}
	if len(defs) == 0 {
		return false, nil
	}
	name := inlinedDataTable(tid, sv)
	sys := db.InlinedColumns()
	ddl := "CREATE TABLE IF NOT EXISTS " + catalog.QuoteIdent(name) + "(" + catalog.QuoteIdent(sys.RowID) + " BIGINT, " +
		catalog.QuoteIdent(sys.Begin) + " BIGINT, " + catalog.QuoteIdent(sys.End) + " BIGINT, " + strings.Join(defs, ", ") + ")"
	if _, err := w.exec(ddl); err != nil {
		return false, err
	}
	if _, err := w.exec(`INSERT INTO ducklake_inlined_data_tables VALUES (?, ?, ?)`, tid, name, sv); err != nil {
		return false, err
	}
	w.tx.NoteInlinedTables(tid)
	return true, nil
}

// newTableInlined creates the inlined-data table of a table this commit
// creates, when inlining is on for it (DuckDB does so at CREATE TABLE).
func (w *writer) newTableInlined(nt *newTable, tid int64) error {
	if !w.c.inl.on[nt.provID] {
		return nil
	}
	var cols []InlinedColumn
	for i, def := range nt.cols {
		if !nt.colDrop[i] {
			cols = append(cols, InlinedColumn{Name: def.Name, Type: def.Type})
		}
	}
	_, err := w.createInlinedTable(tid, w.sv, cols)
	return err
}

// newLayoutInlined creates ducklake_inlined_data_<tid>_<sv> with the
// table's new layout after a structural change, as DuckDB does when
// inlining is on for the table. It also does so when inlining is off here
// but the table already has inlined-data tables: DuckDB clients inline
// into the newest one, and with the old layout their inserts would fail.
func (w *writer) newLayoutInlined(tid int64) error {
	existing, err := w.tx.InlinedTables(w.ctx, tid)
	if err != nil {
		return err
	}
	if !w.c.inl.on[tid] && len(existing) == 0 {
		return nil
	}
	name := inlinedDataTable(tid, w.sv)
	for _, it := range existing {
		if it.Name == name {
			return nil
		}
	}
	live, err := w.tx.LiveColumns(w.ctx, tid)
	if err != nil {
		return err
	}
	var cols []InlinedColumn
	for _, c := range live {
		if _, ok := w.tx.DB().InlinedColumnType(c.Type); !ok {
			return nil // a nested field DuckDB cannot inline
		}
		if c.ParentID == nil {
			cols = append(cols, InlinedColumn{Name: c.Name, Type: c.Type})
		}
	}
	_, err = w.createInlinedTable(tid, w.sv, cols)
	return err
}

// InlinedDeleteTable names the table of inlined file deletes of a table.
func InlinedDeleteTable(tableID int64) string {
	return fmt.Sprintf("ducklake_inlined_delete_%d", tableID)
}

// writeInlinedFileDeletes records deleted positions of Parquet files in
// ducklake_inlined_delete_<t> (created on first use, as DuckDB does). The
// data file must still be live with the delete file the statement read.
func (w *writer) writeInlinedFileDeletes() error {
	created := map[int64]bool{}
	for _, d := range w.c.inl.fileDeletes {
		if w.droppedTable(d.tableID) {
			continue
		}
		liveDel, fileLive, err := w.tx.LiveDeleteFile(w.ctx, d.df.ID)
		if err != nil {
			return err
		}
		if !fileLive {
			return conflictf("attempting to delete from data file %d, but another transaction deleted it", d.df.ID)
		}
		if (liveDel == nil) != (d.df.Delete == nil) || (liveDel != nil && *liveDel != d.df.Delete.ID) {
			return conflictf("attempting to delete from data file %d, but another transaction deleted from it", d.df.ID)
		}
		name := catalog.QuoteIdent(InlinedDeleteTable(d.tableID))
		if !created[d.tableID] {
			if _, err := w.exec(`CREATE TABLE IF NOT EXISTS ` + name + `(file_id BIGINT, row_id BIGINT, begin_snapshot BIGINT)`); err != nil {
				return err
			}
			created[d.tableID] = true
		}
		for _, p := range d.positions {
			if _, err := w.exec(`INSERT INTO `+name+` VALUES (?, ?, ?)`, d.df.ID, p, w.snapID); err != nil {
				return err
			}
		}
		w.done.deletedInline.add(d.tableID)
	}
	return nil
}

// noInlinedDeletesSince is the other half of the per-file rule writeDeletes
// and writeInlinedFileDeletes share (DuckLake §10: a data file deleted from
// by both commits is a conflict, whatever rows each deleted): a delete file
// or an end-dated file written for data file fileID conflicts with inlined
// file deletes another writer recorded for it after this commit's base.
// The table tokens alone miss it, since deleted_from_table does not
// conflict with inlined_delete.
func (w *writer) noInlinedDeletesSince(tableID, fileID int64) error {
	name := InlinedDeleteTable(tableID)
	if ok, err := w.tableExists(name); err != nil || !ok {
		return err
	}
	var n int64
	if err := w.tx.QueryRowContext(w.ctx, `SELECT COUNT(*) FROM `+catalog.QuoteIdent(name)+` WHERE file_id = ? AND begin_snapshot > ?`, fileID, w.c.base.ID).Scan(&n); err != nil {
		return fmt.Errorf("snapshot: read inlined deletes of data file %d: %w", fileID, err)
	}
	if n > 0 {
		return conflictf("attempting to delete from data file %d, but another transaction deleted from it", fileID)
	}
	return nil
}

func idTokens(kind string, ids idSet) []string {
	var toks []string
	for _, id := range ids.sorted() {
		toks = append(toks, fmt.Sprintf("%s:%d", kind, id))
	}
	return toks
}
