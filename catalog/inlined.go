package catalog

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// Inlined data is where DuckDB keeps small inserts and deletes (up to
// data_inlining_row_limit rows, 10 by default) instead of writing Parquet
// files: rows in ducklake_inlined_data_<table>_<schema version>, deletes of
// Parquet rows in ducklake_inlined_delete_<table>. A reader that ignores
// them misses rows DuckDB wrote.

// InlinedRows are the rows of one inlined-data table visible at a snapshot.
type InlinedRows struct {
	Table string // the inlined-data table's name
	// ColumnIDs is the column_id of each value column, as the table's layout
	// at the inlined table's schema version names them; -1 for a column the
	// mapping cannot place.
	ColumnIDs []int64
	RowIDs    []int64
	// Values holds len(ColumnIDs) values per row, row after row, as the
	// driver scans them: the backend's own representation (SQLite keeps most
	// types as text, PostgreSQL as typed values).
	Values []any
}

// InlinedData reads every inlined row of table t visible at snap, ordered by
// inlined table and row_id.
// The rows are shared (filecache.go): read them, do not modify them.
func (db *DB) InlinedData(ctx context.Context, t *Table, snap Snapshot) ([]InlinedRows, error) {
	v, err := db.cachedForTable(ctx, cacheKey{'i', t.ID}, db.Format(), snap, func() (any, int64, error) {
		out, err := db.inlinedDataAnyFormat(ctx, t, snap)
		return out, inlinedBytes(out), err
	})
	if err != nil {
		return nil, err
	}
	return v.([]InlinedRows), nil
}

func (db *DB) inlinedDataAnyFormat(ctx context.Context, t *Table, snap Snapshot) ([]InlinedRows, error) {
	out, err := db.inlinedData(ctx, t, snap)
	if err != nil {
		// the catalog may have been migrated (its inlined tables' system
		// columns renamed) since it was opened: read again in the new layout
		was := db.Format()
		if f, ferr := db.RecheckFormat(ctx, db.sql); ferr == nil && f != was {
			return db.inlinedData(ctx, t, snap)
		}
	}
	return out, err
}

func (db *DB) inlinedData(ctx context.Context, t *Table, snap Snapshot) ([]InlinedRows, error) {
	regs, err := db.InlinedTables(ctx, t.ID)
	if err != nil || len(regs) == 0 {
		return nil, err
	}
	if len(regs) == 1 && columnsUnaltered(t) {
		// The usual small table: one inlined table, and no column added,
		// renamed or re-created since the table row began, so every schema
		// version since named the current columns as they are now (a dropped
		// column's values find no id and are not read). One query, no
		// transaction: on a PostgreSQL catalog the layout lookup's
		// transaction cost four of a cold read's eleven round trips.
		names := make(map[string]int64, len(t.Columns))
		for _, c := range t.Columns {
			names[c.Name] = c.ID
		}
		ir, err := readInlined(ctx, db.q(), db.d, regs[0].Name, db.InlinedColumns(), names, snap.ID)
		if err != nil || len(ir.RowIDs) == 0 {
			return nil, err
		}
		return []InlinedRows{ir}, nil
	}
	rt, err := db.beginRead(ctx)
	if err != nil {
		return nil, fmt.Errorf("catalog: read inlined data: %w", err)
	}
	defer rt.done()
	var out []InlinedRows
	for _, reg := range regs {
		names, err := db.columnNamesAtVersion(ctx, rt, t, reg.SchemaVersion)
		if err != nil {
			return nil, err
		}
		ir, err := readInlined(ctx, rt, db.d, reg.Name, db.InlinedColumns(), names, snap.ID)
		if err != nil {
			return nil, err
		}
		if len(ir.RowIDs) > 0 {
			out = append(out, ir)
		}
	}
	return out, nil
}

// layoutSnapshotSQL finds a snapshot at which a table (table_id, then the
// schema version twice) had the layout of an inlined-data table named for
// that schema version: the one that began the table's last
// ducklake_schema_versions row at or before that version. Those rows
// outlive expired snapshots; the last snapshot that had the version is the
// fallback for catalogs without them. Column rows answer for any snapshot
// id by their begin/end, whether its snapshot row still exists or not.
const layoutSnapshotSQL = `SELECT COALESCE((SELECT MAX(begin_snapshot) FROM ducklake_schema_versions WHERE table_id = ? AND schema_version <= ?),
	(SELECT MAX(snapshot_id) FROM ducklake_snapshot WHERE schema_version = ?))`

// LayoutSnapshot is the snapshot id at which table tableID was laid out as
// the inlined-data table of schema version sv (layoutSnapshotSQL); ok is
// false when the catalog cannot tell.
func (db *DB) LayoutSnapshot(ctx context.Context, tableID, sv int64) (id int64, ok bool, err error) {
	var at sql.NullInt64
	if err := db.sql.QueryRowContext(ctx, db.Rebind(layoutSnapshotSQL), tableID, sv, sv).Scan(&at); err != nil {
		return 0, false, fmt.Errorf("catalog: find the layout of schema version %d: %w", sv, err)
	}
	return at.Int64, at.Valid, nil
}

// columnNamesAtVersion maps column names to column ids as table t was laid
// out at a schema version (layoutSnapshotSQL). Renamed and dropped columns
// are why the current names do not do.
func (db *DB) columnNamesAtVersion(ctx context.Context, rt *readTx, t *Table, version int64) (map[string]int64, error) {
	names := map[string]int64{}
	rows, err := rt.QueryContext(ctx, layoutSnapshotSQL, t.ID, version, version)
	if err != nil {
		return nil, fmt.Errorf("catalog: read inlined data: %w", err)
	}
	var at sql.NullInt64
	if rows.Next() {
		err = rows.Scan(&at)
	}
	rows.Close()
	if err != nil {
		return nil, fmt.Errorf("catalog: read inlined data: %w", err)
	}
	if !at.Valid {
		// The snapshots of that version were expired: the current layout is
		// the best guess left.
		for _, c := range t.Columns {
			names[c.Name] = c.ID
		}
		return names, nil
	}
	rows, err = rt.QueryContext(ctx, `SELECT column_id, column_name FROM ducklake_column
WHERE table_id = ? AND parent_column IS NULL AND `+visibleAt("")+``, t.ID, at.Int64, at.Int64)
	if err != nil {
		return nil, fmt.Errorf("catalog: read inlined data: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var name string
		if err := rows.Scan(&id, &name); err != nil {
			return nil, fmt.Errorf("catalog: read inlined data: %w", err)
		}
		names[name] = id
	}
	return names, rows.Err()
}

// inlinedSystemColumns lead every inlined-data table, in this order (row
// id, begin and end snapshot; their names depend on the format version).
const inlinedSystemColumns = 3

// columnsUnaltered reports whether every top-level column of t began with
// the table's row: a rename or re-creation of the table, or a column added
// or renamed since, gives some column an older or a later begin_snapshot.
func columnsUnaltered(t *Table) bool {
	if len(t.Columns) == 0 {
		return false
	}
	for _, c := range t.Columns {
		if c.BeginSnapshot != t.BeginSnapshot {
			return false
		}
	}
	return true
}

func readInlined(ctx context.Context, rt queryer, d *dialect, table string, sys InlinedColumns, names map[string]int64, snap int64) (InlinedRows, error) {
	ir := InlinedRows{Table: table}
	rows, err := rt.QueryContext(ctx, `SELECT * FROM `+quoteIdent(table)+` WHERE `+sys.Visible()+` ORDER BY 1`, d.oneOffArgs(snap, snap)...)
	if err != nil {
		return ir, fmt.Errorf("catalog: read inlined data from %s: %w", table, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return ir, fmt.Errorf("catalog: read inlined data from %s: %w", table, err)
	}
	if len(cols) < inlinedSystemColumns {
		return ir, fmt.Errorf("catalog: inlined data table %s has %d columns, want at least %d", table, len(cols), inlinedSystemColumns)
	}
	if !strings.EqualFold(cols[0], sys.RowID) {
		// SQLite takes a double-quoted name it does not know for a string,
		// so a filter on a renamed column matches nothing instead of failing
		return ir, fmt.Errorf("catalog: inlined data table %s: %w (first column %q, want %q)", table, ErrInlinedLayout, cols[0], sys.RowID)
	}
	for _, name := range cols[inlinedSystemColumns:] {
		id, ok := names[name]
		if !ok {
			id = -1
		}
		ir.ColumnIDs = append(ir.ColumnIDs, id)
	}
	dest := make([]any, len(cols))
	vals := make([]any, len(cols))
	for i := range dest {
		dest[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return ir, fmt.Errorf("catalog: read inlined data from %s: %w", table, err)
		}
		rid, err := asInt64(vals[0])
		if err != nil {
			return ir, fmt.Errorf("catalog: inlined data table %s: row_id: %w", table, err)
		}
		ir.RowIDs = append(ir.RowIDs, rid)
		for _, v := range vals[inlinedSystemColumns:] {
			if b, ok := v.([]byte); ok {
				// database/sql reuses the scan buffer
				v = append([]byte(nil), b...)
			}
			ir.Values = append(ir.Values, v)
		}
	}
	return ir, rows.Err()
}

// ErrInlinedLayout: an inlined-data table's system columns are not named as
// the catalog's format version says (a migration since it was opened).
var ErrInlinedLayout = errors.New("system columns not in the catalog's format")

// InlinedFileDeletes reads the positions of table tableID's data files that
// ducklake_inlined_delete_<tableID> deletes as of snap, by data_file_id.
// The position slices are shared (filecache.go): do not modify them.
func (db *DB) InlinedFileDeletes(ctx context.Context, tableID int64, snap Snapshot) (map[int64][]int64, error) {
	v, err := db.cachedForTable(ctx, cacheKey{'d', tableID}, "", snap, func() (any, int64, error) {
		out, err := db.inlinedFileDeletes(ctx, tableID, snap)
		n := int64(48 * len(out))
		for _, ps := range out {
			n += 8 * int64(len(ps))
		}
		return out, n, err
	})
	if err != nil {
		return nil, err
	}
	m := v.(map[int64][]int64)
	out := make(map[int64][]int64, len(m))
	for k, ps := range m {
		out[k] = ps[:len(ps):len(ps)]
	}
	return out, nil
}

func (db *DB) inlinedFileDeletes(ctx context.Context, tableID int64, snap Snapshot) (map[int64][]int64, error) {
	name := fmt.Sprintf("ducklake_inlined_delete_%d", tableID)
	ok, err := db.tableExists(ctx, db.q(), name)
	if err != nil || !ok {
		return nil, err
	}
	rows, err := db.q().QueryContext(ctx, `SELECT file_id, row_id FROM `+quoteIdent(name)+` WHERE begin_snapshot <= ? ORDER BY file_id, row_id`, db.d.oneOffArgs(snap.ID)...)
	if err != nil {
		return nil, fmt.Errorf("catalog: read inlined deletes: %w", err)
	}
	defer rows.Close()
	out := map[int64][]int64{}
	for rows.Next() {
		var file, pos int64
		if err := rows.Scan(&file, &pos); err != nil {
			return nil, fmt.Errorf("catalog: read inlined deletes: %w", err)
		}
		out[file] = append(out[file], pos)
	}
	return out, rows.Err()
}

func asInt64(v any) (int64, error) {
	switch x := v.(type) {
	case int64:
		return x, nil
	case int32:
		return int64(x), nil
	case nil:
		return 0, fmt.Errorf("NULL")
	}
	return 0, fmt.Errorf("unexpected %T", v)
}

// inlinedBytes estimates the memory of inlined rows.
func inlinedBytes(rows []InlinedRows) int64 {
	var n int64
	for _, r := range rows {
		n += 64 + int64(len(r.Table)) + 8*int64(len(r.ColumnIDs)+len(r.RowIDs)) + 16*int64(len(r.Values))
		for _, v := range r.Values {
			switch x := v.(type) {
			case string:
				n += int64(len(x))
			case []byte:
				n += int64(len(x))
			}
		}
	}
	return n
}
