package catalog

import (
	"context"
	"fmt"
	"sync"
	"unsafe"
)

// Distinct-value sketches live in lakepg_file_column_sketch, a table of
// lakepg's own beside the DuckLake tables (as lakepg_constraint): one row
// per data file and column, the serialized HyperLogLog sketch (exec/hll)
// of the column's values in that file, written by the commit that adds
// the file. DuckLake has no place for them and DuckDB ignores tables it
// does not know, so a lake stays a DuckLake lake: DuckDB neither reads nor
// writes the rows, and its files simply have none. A row is visible
// exactly while its data file is (the file's begin_snapshot and
// end_snapshot decide), and it is deleted with the file's other rows when
// compaction, expiry or cleanup removes the file. The planner merges the
// sketches of the files a scan reads into the column's number of
// distinct values (sql/ndv.go).
const sketchTable = "lakepg_file_column_sketch"

// SketchOrphansDelete deletes the sketches of data files no longer in
// the catalog: DuckDB's compaction and expiry remove files' rows without
// knowing this table.
const SketchOrphansDelete = `DELETE FROM ` + sketchTable + ` WHERE NOT EXISTS (SELECT 1 FROM ducklake_data_file df WHERE df.data_file_id = ` + sketchTable + `.data_file_id)`

func sketchTableDDL(d *dialect) []string {
	blob := "BLOB"
	if d.name != "sqlite" {
		blob = "BYTEA"
	}
	return []string{
		`CREATE TABLE IF NOT EXISTS ` + sketchTable + ` (
	data_file_id BIGINT NOT NULL,
	table_id BIGINT NOT NULL,
	column_id BIGINT NOT NULL,
	sketch ` + blob + ` NOT NULL,
	PRIMARY KEY (data_file_id, column_id)
)`,
		`CREATE INDEX IF NOT EXISTS lakepg_file_column_sketch_table ON ` + sketchTable + ` (table_id)`,
	}
}

// FileSketch is one column's sketch of one data file, for a commit to
// write.
type FileSketch struct {
	ColumnID int64
	Sketch   []byte
}

// EnsureSketchTable creates lakepg_file_column_sketch inside the commit's
// transaction when it does not exist yet.
func (t *Tx) EnsureSketchTable(ctx context.Context) error {
	if ok, err := t.db.tableExists(ctx, t, sketchTable); err != nil {
		return fmt.Errorf("catalog: look for %s: %w", sketchTable, err)
	} else if ok {
		return nil
	}
	for _, q := range sketchTableDDL(t.db.d) {
		if _, err := t.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("catalog: create %s: %w", sketchTable, err)
		}
	}
	return nil
}

// SketchTableExists reports whether lakepg_file_column_sketch exists, for
// commits that delete data files' rows.
func (t *Tx) SketchTableExists(ctx context.Context) (bool, error) {
	return t.db.tableExists(ctx, t, sketchTable)
}

// SketchInsert is the statement that writes one sketch row: data_file_id,
// table_id, column_id, sketch.
const SketchInsert = `INSERT INTO ` + sketchTable + ` (data_file_id, table_id, column_id, sketch) VALUES (?, ?, ?, ?)`

// SketchDelete deletes the sketch rows of a data file (by data_file_id).
const SketchDelete = `DELETE FROM ` + sketchTable + ` WHERE data_file_id = ?`

// TableSketches are the sketches of a table's data files visible at a
// snapshot. Like a file list (filecache.go) they are shared by every
// statement that reads the table at a snapshot they hold for: read them,
// do not modify them.
type TableSketches struct {
	// Files: data_file_id → column_id → serialized sketch.
	Files map[int64]map[int64][]byte

	mu   sync.Mutex
	memo map[any]any
}

// Memo returns what make derives from the sketches under key, made once
// and kept as long as the sketches are (the planner keeps a column's
// merged sketch of all files here, so that the merge is done once per
// table and snapshot range, not once per statement).
func (s *TableSketches) Memo(key any, make func() any) any {
	s.mu.Lock()
	defer s.mu.Unlock()
	if v, ok := s.memo[key]; ok {
		return v
	}
	if s.memo == nil {
		s.memo = map[any]any{}
	}
	v := make()
	s.memo[key] = v
	return v
}

// Sketches reads the sketches of table t's data files visible at snap:
// nothing before the first sketch was ever written, else one bounded query
// for this table, kept in the file-list cache like its file list.
func (db *DB) Sketches(ctx context.Context, s *Schema, t *Table, snap Snapshot) (*TableSketches, error) {
	v, err := db.cachedForTable(ctx, cacheKey{'s', t.ID}, db.TableDir(s, t), snap, func() (any, int64, error) {
		sk, err := db.readSketches(ctx, t.ID, snap)
		if err != nil {
			return nil, 0, err
		}
		n := int64(unsafe.Sizeof(*sk))
		for _, cols := range sk.Files {
			n += 64
			for _, b := range cols {
				n += 48 + int64(len(b))
			}
		}
		return sk, n, nil
	})
	if err != nil {
		return nil, err
	}
	return v.(*TableSketches), nil
}

func (db *DB) readSketches(ctx context.Context, tableID int64, snap Snapshot) (*TableSketches, error) {
	out := &TableSketches{Files: map[int64]map[int64][]byte{}}
	rt, err := db.beginRead(ctx)
	if err != nil {
		return nil, fmt.Errorf("catalog: read sketches: %w", err)
	}
	defer rt.done()
	if ok, err := db.tableExists(ctx, rt, sketchTable); err != nil {
		return nil, fmt.Errorf("catalog: look for %s: %w", sketchTable, err)
	} else if !ok {
		return out, nil
	}
	rows, err := rt.QueryContext(ctx, `SELECT sk.data_file_id, sk.column_id, sk.sketch
FROM `+sketchTable+` sk JOIN ducklake_data_file df ON df.data_file_id = sk.data_file_id
WHERE sk.table_id = ? AND df.table_id = ? AND `+visibleAt("df."), tableID, tableID, snap.ID, snap.ID)
	if err != nil {
		return nil, fmt.Errorf("catalog: read sketches of table %d: %w", tableID, err)
	}
	defer rows.Close()
	for rows.Next() {
		var file, col int64
		var b []byte
		if err := rows.Scan(&file, &col, &b); err != nil {
			return nil, fmt.Errorf("catalog: read sketches of table %d: %w", tableID, err)
		}
		m := out.Files[file]
		if m == nil {
			m = map[int64][]byte{}
			out.Files[file] = m
		}
		m[col] = b
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("catalog: read sketches of table %d: %w", tableID, err)
	}
	return out, nil
}
