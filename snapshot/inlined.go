package snapshot

import (
	"fmt"
	"strings"

	"github.com/lakepg/lakepg/catalog"
)

// inlinedDelete ends rows DuckDB inlined into the catalog.
type inlinedDelete struct {
	tableID int64
	table   string // the ducklake_inlined_data_* table holding the rows
	rowIDs  []int64
	seenAt  int64 // the snapshot the rows were read at
}

// DeleteInlinedRows deletes inlined rows (DuckDB's data inlining) of table
// t kept in inlinedTable: their end_snapshot becomes the new snapshot, which
// is how DuckDB deletes them too (no delete file). The change is
// inlined_delete:<table id>.
func (c *Commit) DeleteInlinedRows(t catalog.Table, inlinedTable string, rowIDs []int64) {
	c.DeleteInlinedRowsSeenAt(t, inlinedTable, rowIDs, c.base.ID)
}

// DeleteInlinedRowsSeenAt is DeleteInlinedRows for rows a statement read at
// snapshot seenAt, which may be older than the commit's base. Only the
// versions it read may be ended: DuckDB keeps an updated inlined row's
// row_id, so a live row with that id begun later is another transaction's
// update of it, a conflict.
func (c *Commit) DeleteInlinedRowsSeenAt(t catalog.Table, inlinedTable string, rowIDs []int64, seenAt int64) {
	c.inlinedDeletes = append(c.inlinedDeletes, inlinedDelete{tableID: t.ID, table: inlinedTable, rowIDs: rowIDs, seenAt: seenAt})
}

// inlinedDeleteBatch bounds the IN list of one UPDATE (SQLite allows 32766
// parameters, PostgreSQL 65535).
const inlinedDeleteBatch = 500

func (w *writer) writeInlinedDeletes() error {
	for _, d := range w.c.inlinedDeletes {
		if w.droppedTable(d.tableID) {
			continue
		}
		for lo := 0; lo < len(d.rowIDs); lo += inlinedDeleteBatch {
			ids := d.rowIDs[lo:min(lo+inlinedDeleteBatch, len(d.rowIDs))]
			args := make([]any, len(ids), len(ids)+1)
			for i, id := range ids {
				args[i] = id
			}
			marks := strings.Repeat("?, ", len(ids))
			sys := w.tx.DB().InlinedColumns()
			end := catalog.QuoteIdent(sys.End)
			n, err := w.exec(`UPDATE `+catalog.QuoteIdent(d.table)+` SET `+end+` = ? WHERE `+end+` IS NULL AND `+catalog.QuoteIdent(sys.RowID)+` IN (`+marks[:len(marks)-2]+`) AND `+catalog.QuoteIdent(sys.Begin)+` <= ?`,
				append(append([]any{w.snapID}, args...), d.seenAt)...)
			if err != nil {
				return err
			}
			if n != int64(len(ids)) {
				return conflictf("attempting to delete inlined rows of table with index %d, but another transaction deleted or updated them", d.tableID)
			}
		}
		w.done.deletedInline.add(d.tableID)
	}
	return nil
}

// checkInlinedDeletes is DuckLake's conflict rule for inlined_delete: the
// table must not have been dropped, altered, flushed, inserted into or had
// inlined rows deleted by another transaction.
func checkInlinedDeletes(ids idSet, other *changeSet) error {
	for _, id := range ids.sorted() {
		var what string
		switch {
		case other.droppedTables[id]:
			what = "dropped it"
		case other.altered[id]:
			what = "altered it"
		case other.deletedInline[id]:
			what = "deleted from it"
		case other.flushed[id]:
			what = "flushed its inlined data"
		case other.inserted[id], other.insertedInline[id]:
			what = "inserted into it"
		default:
			continue
		}
		return conflictf("attempting to delete from table with index %d, but another transaction %s", id, what)
	}
	return nil
}

func inlinedDeleteTokens(ids idSet) []string {
	var toks []string
	for _, id := range ids.sorted() {
		toks = append(toks, fmt.Sprintf("inlined_delete:%d", id))
	}
	return toks
}
