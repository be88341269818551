package snapshot

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/lakepg/lakepg/catalog"
)

// Reads maintenance needs beyond what a query reads: catalog options,
// inlined rows with their history, and inlined file deletes with the
// snapshots that made them.

// Option reads a DuckLake option from ducklake_metadata as DuckDB resolves
// it: the table's value, else the schema's, else the global one.
func Option(ctx context.Context, db *catalog.DB, key string, schemaID, tableID int64) (string, bool, error) {
	rows, err := db.MetadataRows(ctx, key)
	if err != nil {
		return "", false, fmt.Errorf("snapshot: %w", err)
	}
	best, found := -1, ""
	for _, r := range rows {
		v, scope, id := r.Value, r.Scope, r.ScopeID
		rank := -1
		switch {
		case !scope.Valid || scope.String == "":
			rank = 0
		case scope.String == "schema" && id.Int64 == schemaID:
			rank = 1
		case scope.String == "table" && id.Int64 == tableID:
			rank = 2
		}
		if rank > best {
			best, found = rank, v
		}
	}
	return found, best >= 0, nil
}

// InlinedRow is one row of an inlined-data table with its history.
type InlinedRow struct {
	RowID, Begin int64
	End          *int64
	Values       []any // one per value column, as the driver scanned it
}

// ReadInlinedRows reads every row of an inlined-data table that begins at
// or before snap (deleted ones too), ordered by row_id, and the names of its
// value columns.
func ReadInlinedRows(ctx context.Context, db *catalog.DB, table string, snap int64) ([]string, []InlinedRow, error) {
	names, rows, err := readInlinedRows(ctx, db, table, snap)
	if errors.Is(err, catalog.ErrInlinedLayout) {
		// migrated since the catalog was opened: read in the new layout
		was := db.Format()
		if f, ferr := db.RecheckFormat(ctx, db.SQL()); ferr == nil && f != was {
			return readInlinedRows(ctx, db, table, snap)
		}
	}
	return names, rows, err
}

func readInlinedRows(ctx context.Context, db *catalog.DB, table string, snap int64) ([]string, []InlinedRow, error) {
	sys := db.InlinedColumns()
	rows, err := db.SQL().QueryContext(ctx, db.Rebind(`SELECT * FROM `+catalog.QuoteIdent(table)+` WHERE `+catalog.QuoteIdent(sys.Begin)+` <= ? ORDER BY 1, 2`), snap)
	if err != nil {
		return nil, nil, fmt.Errorf("snapshot: read inlined rows of %s: %w", table, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil || len(cols) < 3 {
		return nil, nil, fmt.Errorf("snapshot: inlined table %s has no system columns: %v", table, err)
	}
	if !strings.EqualFold(cols[0], sys.RowID) {
		// migrated since the catalog was opened (SQLite reads the unknown
		// quoted name as a string and matches nothing)
		return nil, nil, fmt.Errorf("snapshot: inlined table %s: %w", table, catalog.ErrInlinedLayout)
	}
	var out []InlinedRow
	dest := make([]any, len(cols))
	vals := make([]any, len(cols))
	for i := range dest {
		dest[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return nil, nil, fmt.Errorf("snapshot: read inlined rows of %s: %w", table, err)
		}
		var r InlinedRow
		var ok bool
		if r.RowID, ok = asInt(vals[0]); !ok {
			return nil, nil, fmt.Errorf("snapshot: inlined table %s: bad row_id %v", table, vals[0])
		}
		if r.Begin, ok = asInt(vals[1]); !ok {
			return nil, nil, fmt.Errorf("snapshot: inlined table %s: bad begin_snapshot %v", table, vals[1])
		}
		if e, ok := asInt(vals[2]); ok {
			r.End = &e
		}
		r.Values = make([]any, len(cols)-3)
		for i, v := range vals[3:] {
			if b, ok := v.([]byte); ok {
				v = append([]byte(nil), b...) // the driver reuses its buffer
			}
			r.Values[i] = v
		}
		out = append(out, r)
	}
	return cols[3:], out, rows.Err()
}

func asInt(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case int32:
		return int64(x), true
	}
	return 0, false
}

// DeletedPos is a deleted position of a data file and the snapshot that
// deleted it.
type DeletedPos struct {
	Pos, Snapshot int64
}

// InlinedFileDeletes reads ducklake_inlined_delete_<t> rows that begin at or
// before snap, by data file, each with its snapshot.
func InlinedFileDeletes(ctx context.Context, db *catalog.DB, tableID, snap int64) (map[int64][]DeletedPos, error) {
	name := InlinedDeleteTable(tableID)
	if ok, err := tableExistsDB(ctx, db, name); err != nil || !ok {
		return nil, err
	}
	rows, err := db.SQL().QueryContext(ctx, db.Rebind(`SELECT file_id, row_id, begin_snapshot FROM `+catalog.QuoteIdent(name)+` WHERE begin_snapshot <= ? ORDER BY file_id, row_id`), snap)
	if err != nil {
		return nil, fmt.Errorf("snapshot: read inlined deletes: %w", err)
	}
	defer rows.Close()
	out := map[int64][]DeletedPos{}
	for rows.Next() {
		var f int64
		var d DeletedPos
		if err := rows.Scan(&f, &d.Pos, &d.Snapshot); err != nil {
			return nil, fmt.Errorf("snapshot: read inlined deletes: %w", err)
		}
		out[f] = append(out[f], d)
	}
	return out, rows.Err()
}

// LayoutSince is the first snapshot of a table's current layout: the last
// ducklake_schema_versions row of the table, else the table's creation.
func LayoutSince(ctx context.Context, db *catalog.DB, t catalog.Table) (int64, error) {
	var id sql.NullInt64
	if err := db.SQL().QueryRowContext(ctx, db.Rebind(`SELECT MAX(begin_snapshot) FROM ducklake_schema_versions WHERE table_id = ?`), t.ID).Scan(&id); err != nil {
		return 0, fmt.Errorf("snapshot: read schema versions: %w", err)
	}
	if id.Valid && id.Int64 > t.BeginSnapshot {
		return id.Int64, nil
	}
	return t.BeginSnapshot, nil
}

// FileHistory is what the change feed needs about one data file of a table,
// live or not: its life and every delete file it ever had.
type FileHistory struct {
	ID, Begin  int64
	End        *int64
	RelPath    string
	PathIsRel  bool
	Size       int64
	RowIDStart int64
	PartialMax *int64
	Partition  bool   // partition_id set: written for a partitioned table
	Key        string // encryption_key, "" for a plain file
	Deletes    []DeleteHistory
	// NameMap is the mapping of a registered file (mapping_id set).
	NameMap []catalog.NameMapEntry
}

// DeleteHistory is one delete file of a data file.
type DeleteHistory struct {
	RelPath   string
	PathIsRel bool
	Size      int64
	Begin     int64
	End       *int64
	Key       string // encryption_key, "" for a plain file
}

// TableFileHistory lists every data file of a table that begins at or
// before snap, with all its delete files, ordered by data_file_id.
func TableFileHistory(ctx context.Context, db *catalog.DB, tableID, snap int64) ([]FileHistory, error) {
	rows, err := db.SQL().QueryContext(ctx, db.Rebind(`SELECT data_file_id, begin_snapshot, end_snapshot, path, path_is_relative, file_size_bytes, row_id_start, partial_max, partition_id, encryption_key, mapping_id
FROM ducklake_data_file WHERE table_id = ? AND begin_snapshot <= ? ORDER BY data_file_id`), tableID, snap)
	if err != nil {
		return nil, fmt.Errorf("snapshot: read data files: %w", err)
	}
	var out []FileHistory
	index := map[int64]int{}
	mapping := map[int64]int64{} // file index → mapping_id
	for rows.Next() {
		var (
			f                    FileHistory
			end, rid, pmax, part sql.NullInt64
			rel                  catalog.NullBool
			key                  sql.NullString
			mid                  sql.NullInt64
		)
		if err := rows.Scan(&f.ID, &f.Begin, &end, &f.RelPath, &rel, &f.Size, &rid, &pmax, &part, &key, &mid); err != nil {
			rows.Close()
			return nil, fmt.Errorf("snapshot: read data files: %w", err)
		}
		if end.Valid {
			f.End = &end.Int64
		}
		if pmax.Valid {
			f.PartialMax = &pmax.Int64
		}
		f.RowIDStart, f.PathIsRel, f.Partition, f.Key = rid.Int64, !rel.Valid || rel.Bool, part.Valid, key.String
		if mid.Valid {
			mapping[int64(len(out))] = mid.Int64
		}
		index[f.ID] = len(out)
		out = append(out, f)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(mapping) > 0 {
		var ids []int64
		for _, id := range mapping {
			ids = append(ids, id)
		}
		maps, err := db.NameMaps(ctx, ids)
		if err != nil {
			return nil, err
		}
		for i, id := range mapping {
			out[i].NameMap = maps[id]
		}
	}
	rows, err = db.SQL().QueryContext(ctx, db.Rebind(`SELECT data_file_id, path, path_is_relative, file_size_bytes, begin_snapshot, end_snapshot, encryption_key
FROM ducklake_delete_file WHERE table_id = ? AND begin_snapshot <= ? ORDER BY begin_snapshot, delete_file_id`), tableID, snap)
	if err != nil {
		return nil, fmt.Errorf("snapshot: read delete files: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			id  int64
			d   DeleteHistory
			end sql.NullInt64
			rel catalog.NullBool
			key sql.NullString
		)
		if err := rows.Scan(&id, &d.RelPath, &rel, &d.Size, &d.Begin, &end, &key); err != nil {
			return nil, fmt.Errorf("snapshot: read delete files: %w", err)
		}
		if end.Valid {
			d.End = &end.Int64
		}
		d.PathIsRel, d.Key = !rel.Valid || rel.Bool, key.String
		if i, ok := index[id]; ok {
			out[i].Deletes = append(out[i].Deletes, d)
		}
	}
	return out, rows.Err()
}

func tableExistsDB(ctx context.Context, db *catalog.DB, name string) (bool, error) {
	q := `SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = ?`
	if db.Dialect() == "postgres" {
		q = `SELECT COUNT(*) FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = current_schema() AND c.relname = ? AND c.relkind IN ('r', 'p')`
	}
	var n int64
	if err := db.SQL().QueryRowContext(ctx, db.Rebind(q), name).Scan(&n); err != nil {
		return false, fmt.Errorf("snapshot: look up table %s: %w", name, err)
	}
	return n > 0, nil
}

// SetOption writes a DuckLake option into ducklake_metadata as DuckDB's
// ducklake_set_option does (update the row of that key and scope, else
// insert one). scope is "" (global), "schema" or "table". It makes no
// snapshot.
func SetOption(ctx context.Context, db *catalog.DB, key, value, scope string, scopeID int64) error {
	tx, err := db.BeginWrite(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	filter, args := `scope IS NULL`, []any{key}
	var sc, id any
	if scope != "" {
		filter, sc, id = `scope = ? AND scope_id = ?`, scope, scopeID
		args = append(args, scope, scopeID)
	}
	var n int64
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM ducklake_metadata WHERE "key" = ? AND `+filter, args...).Scan(&n); err != nil {
		return fmt.Errorf("snapshot: set option %s: %w", key, err)
	}
	if n == 0 {
		_, err = tx.ExecContext(ctx, `INSERT INTO ducklake_metadata VALUES (?, ?, ?, ?)`, key, value, sc, id)
	} else {
		_, err = tx.ExecContext(ctx, `UPDATE ducklake_metadata SET "value" = ? WHERE "key" = ? AND `+filter, append([]any{value}, args...)...)
	}
	if err != nil {
		return fmt.Errorf("snapshot: set option %s: %w", key, err)
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	catalog.NoteMetadataWritten(ctx)
	return nil
}
