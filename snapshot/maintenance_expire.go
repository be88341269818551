package snapshot

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/lakepg/lakepg/catalog"
)

// Expiry and cleanup (DuckLake §12) write no snapshot: expiring deletes
// snapshot rows and everything only they could see, and schedules the files
// nothing can read any more; cleanup deletes scheduled files from storage.

// ExpireOptions choose the snapshots to expire: those listed in Versions, or
// those taken before OlderThan. The latest snapshot is never expired.
type ExpireOptions struct {
	Versions  []int64
	OlderThan *time.Time
	DryRun    bool
}

// ExpireSnapshots deletes the chosen snapshots as DuckDB's
// ducklake_expire_snapshots does and returns them.
func ExpireSnapshots(ctx context.Context, db *catalog.DB, opt ExpireOptions) ([]catalog.Snapshot, error) {
	var lastErr error
	for attempt := 0; attempt <= maxRetries; attempt++ {
		if attempt > 0 {
			t := time.NewTimer(backoff(attempt - 1))
			select {
			case <-ctx.Done():
				t.Stop()
				return nil, ctx.Err()
			case <-t.C:
			}
		}
		snaps, err := expireOnce(ctx, db, opt)
		if err == nil {
			return snaps, nil
		}
		if !retryable(err) || ctx.Err() != nil {
			return nil, err
		}
		lastErr = err
	}
	return nil, fmt.Errorf("%w: gave up after %d retries: %w", ErrConflict, maxRetries, lastErr)
}

func expireOnce(ctx context.Context, db *catalog.DB, opt ExpireOptions) ([]catalog.Snapshot, error) {
	all, err := db.Snapshots(ctx)
	if err != nil || len(all) == 0 {
		return nil, err
	}
	latest := all[len(all)-1].ID
	want := map[int64]bool{}
	for _, v := range opt.Versions {
		want[v] = true
	}
	var chosen []catalog.Snapshot
	for _, s := range all {
		if s.ID == latest {
			continue
		}
		// Times are compared here, not in SQL: SQLite holds them as text in
		// whatever zone the writer rendered them.
		if (opt.OlderThan != nil && s.Time.Before(*opt.OlderThan)) || want[s.ID] {
			chosen = append(chosen, s)
		}
	}
	if len(chosen) == 0 || opt.DryRun {
		return chosen, nil
	}
	tx, err := db.BeginWrite(ctx)
	if err != nil {
		return nil, fmt.Errorf("snapshot: begin expire: %w", err)
	}
	defer tx.Rollback()
	x := &expirer{ctx: ctx, tx: tx, dataPath: db.DataPath()}
	if err := x.run(chosen); err != nil {
		return nil, err
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("snapshot: commit expire: %w", err)
	}
	return chosen, nil
}

type expirer struct {
	ctx      context.Context
	tx       *catalog.Tx
	dataPath string
	now      time.Time
}

func (x *expirer) exec(q string, args ...any) error {
	if _, err := x.tx.ExecContext(x.ctx, q, args...); err != nil {
		return fmt.Errorf("snapshot: expire: %s: %w", firstWords(q), err)
	}
	return nil
}

// noSurvivor is true for a versioned row that no remaining snapshot sees.
const noSurvivor = `end_snapshot IS NOT NULL AND NOT EXISTS (SELECT snapshot_id FROM ducklake_snapshot
	WHERE snapshot_id >= begin_snapshot AND snapshot_id < end_snapshot)`

func idList(ids []int64) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = fmt.Sprint(id)
	}
	return strings.Join(parts, ", ")
}

func (x *expirer) ids(q string, args ...any) ([]int64, error) {
	rows, err := x.tx.QueryContext(x.ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("snapshot: expire: %w", err)
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

func (x *expirer) run(snaps []catalog.Snapshot) error {
	x.now = time.Now().UTC()
	ids := make([]int64, len(snaps))
	for i, s := range snaps {
		ids[i] = s.ID
	}
	in := idList(ids)
	for _, tbl := range []string{"ducklake_snapshot", "ducklake_snapshot_changes"} {
		if err := x.exec(`DELETE FROM ` + tbl + ` WHERE snapshot_id IN (` + in + `)`); err != nil {
			return err
		}
	}
	// Tables every one of whose rows is invisible to every surviving
	// snapshot are gone for good.
	deadTables, err := x.ids(`SELECT DISTINCT table_id FROM ducklake_table t WHERE ` + noSurvivor + `
AND NOT EXISTS (SELECT 1 FROM ducklake_table t2 WHERE t2.table_id = t.table_id AND (t2.end_snapshot IS NULL OR EXISTS (
	SELECT snapshot_id FROM ducklake_snapshot WHERE snapshot_id >= t2.begin_snapshot AND snapshot_id < t2.end_snapshot)))`)
	if err != nil {
		return err
	}
	tableFilter := ""
	if len(deadTables) > 0 {
		tableFilter = `table_id IN (` + idList(deadTables) + `) OR `
	}
	dirs, err := x.tableDirs()
	if err != nil {
		return err
	}
	dataFiles, err := x.files(`SELECT data_file_id, table_id, path, path_is_relative FROM ducklake_data_file WHERE ` + tableFilter + `(` + noSurvivor + `)`)
	if err != nil {
		return err
	}
	if len(dataFiles) > 0 {
		fids := make([]int64, len(dataFiles))
		for i, f := range dataFiles {
			fids[i] = f.id
		}
		for _, tbl := range []string{"ducklake_data_file", "ducklake_file_column_stats", "ducklake_file_variant_stats", "ducklake_file_partition_value"} {
			if err := x.exec(`DELETE FROM ` + tbl + ` WHERE data_file_id IN (` + idList(fids) + `)`); err != nil {
				return err
			}
		}
		if err := x.schedule(dataFiles, dirs); err != nil {
			return err
		}
	}
	// lakepg's own sketches (catalog/sketches.go) go with their files,
	// and so do those of files DuckDB removed: it does not know the table
	if ok, err := x.tx.SketchTableExists(x.ctx); err != nil {
		return err
	} else if ok {
		if err := x.exec(catalog.SketchOrphansDelete); err != nil {
			return err
		}
	}
	fileFilter := ""
	if len(dataFiles) > 0 {
		fids := make([]int64, len(dataFiles))
		for i, f := range dataFiles {
			fids[i] = f.id
		}
		fileFilter = `data_file_id IN (` + idList(fids) + `) OR `
	}
	delFiles, err := x.files(`SELECT delete_file_id, table_id, path, path_is_relative FROM ducklake_delete_file WHERE ` + tableFilter + fileFilter + `(` + noSurvivor + `)`)
	if err != nil {
		return err
	}
	if len(delFiles) > 0 {
		dids := make([]int64, len(delFiles))
		for i, f := range delFiles {
			dids[i] = f.id
		}
		if err := x.exec(`DELETE FROM ducklake_delete_file WHERE delete_file_id IN (` + idList(dids) + `)`); err != nil {
			return err
		}
		if err := x.schedule(delFiles, dirs); err != nil {
			return err
		}
	}
	if len(deadTables) > 0 {
		if err := x.purgeTables(deadTables); err != nil {
			return err
		}
	}
	for _, tbl := range []string{"ducklake_schema", "ducklake_view", "ducklake_tag", "ducklake_macro"} {
		if err := x.exec(`DELETE FROM ` + tbl + ` WHERE ` + noSurvivor); err != nil {
			return err
		}
	}
	for _, tbl := range []string{"ducklake_macro_impl", "ducklake_macro_parameters"} {
		if err := x.exec(`DELETE FROM ` + tbl + ` WHERE NOT EXISTS (SELECT 1 FROM ducklake_macro m WHERE m.macro_id = ` + tbl + `.macro_id)`); err != nil {
			return err
		}
	}
	return x.exec(`DELETE FROM ducklake_name_mapping WHERE NOT EXISTS (SELECT 1 FROM ducklake_column_mapping m WHERE m.mapping_id = ducklake_name_mapping.mapping_id)`)
}

// purgeTables removes every row of dead tables and drops their inlined
// tables.
func (x *expirer) purgeTables(tables []int64) error {
	in := idList(tables)
	rows, err := x.tx.QueryContext(x.ctx, `SELECT table_name FROM ducklake_inlined_data_tables WHERE table_id IN (`+in+`)`)
	if err != nil {
		return fmt.Errorf("snapshot: expire: %w", err)
	}
	var drop []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			rows.Close()
			return err
		}
		drop = append(drop, n)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, id := range tables {
		drop = append(drop, InlinedDeleteTable(id))
	}
	for _, tbl := range []string{"ducklake_table", "ducklake_table_stats", "ducklake_table_column_stats", "ducklake_partition_info",
		"ducklake_partition_column", "ducklake_column", "ducklake_column_tag", "ducklake_sort_info", "ducklake_sort_expression",
		"ducklake_schema_versions", "ducklake_inlined_data_tables", "ducklake_column_mapping"} {
		if err := x.exec(`DELETE FROM ` + tbl + ` WHERE table_id IN (` + in + `)`); err != nil {
			return err
		}
	}
	for _, n := range drop {
		if err := x.exec(`DROP TABLE IF EXISTS ` + catalog.QuoteIdent(n)); err != nil {
			return err
		}
	}
	return nil
}

type expiredFile struct {
	id, tableID int64
	path        string
	isRel       bool
}

func (x *expirer) files(q string) ([]expiredFile, error) {
	rows, err := x.tx.QueryContext(x.ctx, q)
	if err != nil {
		return nil, fmt.Errorf("snapshot: expire: %w", err)
	}
	defer rows.Close()
	var out []expiredFile
	for rows.Next() {
		var f expiredFile
		var rel catalog.NullBool
		if err := rows.Scan(&f.id, &f.tableID, &f.path, &rel); err != nil {
			return nil, err
		}
		f.isRel = !rel.Valid || rel.Bool
		out = append(out, f)
	}
	return out, rows.Err()
}

// tableDirs resolves each table's directory (any of its rows: a rename
// keeps the path) through its schema, as readers resolve file paths.
func (x *expirer) tableDirs() (map[int64]string, error) {
	rows, err := x.tx.QueryContext(x.ctx, `SELECT t.table_id, t.path, t.path_is_relative, s.path, s.path_is_relative
FROM ducklake_table t JOIN ducklake_schema s ON s.schema_id = t.schema_id ORDER BY t.table_id, t.begin_snapshot`)
	if err != nil {
		return nil, fmt.Errorf("snapshot: expire: %w", err)
	}
	defer rows.Close()
	out := map[int64]string{}
	for rows.Next() {
		var (
			id         int64
			tp, sp     sql.NullString
			trel, srel catalog.NullBool
		)
		if err := rows.Scan(&id, &tp, &trel, &sp, &srel); err != nil {
			return nil, err
		}
		dir := x.dataPath
		if sp.Valid {
			if !srel.Valid || srel.Bool {
				dir += sp.String
			} else {
				dir = sp.String
			}
		}
		if tp.Valid {
			if !trel.Valid || trel.Bool {
				dir += tp.String
			} else {
				dir = tp.String
			}
		}
		out[id] = dir
	}
	return out, rows.Err()
}

// schedule records expired files with paths relative to data_path.
func (x *expirer) schedule(files []expiredFile, dirs map[int64]string) error {
	for _, f := range files {
		full := f.path
		if f.isRel {
			full = dirs[f.tableID] + f.path
		}
		path, isRel := full, false
		if strings.HasPrefix(full, x.dataPath) {
			path, isRel = strings.TrimPrefix(full, x.dataPath), true
		}
		if err := x.exec(`INSERT INTO ducklake_files_scheduled_for_deletion VALUES (?, ?, ?, ?)`, f.id, path, isRel, x.now); err != nil {
			return err
		}
	}
	return nil
}

// ScheduledFile is a ducklake_files_scheduled_for_deletion row.
type ScheduledFile struct {
	ID       int64
	Path     string // resolved
	Schedule time.Time
}

// ScheduledFiles lists files scheduled for deletion before olderThan (all
// of them when olderThan is nil).
func ScheduledFiles(ctx context.Context, db *catalog.DB, olderThan *time.Time) ([]ScheduledFile, error) {
	rows, err := db.SQL().QueryContext(ctx, `SELECT data_file_id, path, path_is_relative, schedule_start FROM ducklake_files_scheduled_for_deletion ORDER BY data_file_id`)
	if err != nil {
		return nil, fmt.Errorf("snapshot: read files scheduled for deletion: %w", err)
	}
	defer rows.Close()
	var out []ScheduledFile
	for rows.Next() {
		var (
			f   ScheduledFile
			rel catalog.NullBool
			t   catalog.NullTime
		)
		if err := rows.Scan(&f.ID, &f.Path, &rel, &t); err != nil {
			return nil, fmt.Errorf("snapshot: read files scheduled for deletion: %w", err)
		}
		if !rel.Valid || rel.Bool {
			f.Path = db.DataPath() + f.Path
		}
		f.Schedule = t.Time
		if olderThan != nil && !t.Time.Before(*olderThan) {
			continue
		}
		out = append(out, f)
	}
	return out, rows.Err()
}

// ForgetScheduled removes the rows of files cleanup deleted.
func ForgetScheduled(ctx context.Context, db *catalog.DB, ids []int64) error {
	for lo := 0; lo < len(ids); lo += inlinedDeleteBatch {
		part := ids[lo:min(lo+inlinedDeleteBatch, len(ids))]
		if _, err := db.SQL().ExecContext(ctx, `DELETE FROM ducklake_files_scheduled_for_deletion WHERE data_file_id IN (`+idList(part)+`)`); err != nil {
			return fmt.Errorf("snapshot: forget cleaned files: %w", err)
		}
	}
	return nil
}
