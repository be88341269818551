package catalog

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// DuckLake format versions lakepg reads and writes. A catalog stays in the
// version it was created in until Migrate moves it on, as DuckDB 2.0 keeps
// a 1.0 catalog at 1.0 unless AUTOMATIC_MIGRATION is given.
//
// What 1.1 changes in the catalog (DuckLake 1.1 specification; DuckDB 2.0's
// ducklake extension):
//   - ducklake_data_file and ducklake_delete_file end in row_group_count
//     (BIGINT, NULL when unknown, and for every row older than the migration);
//   - a new table ducklake_view_column_tag for comments on view columns;
//   - the system columns of the ducklake_inlined_data_* tables are named
//     _ducklake_row_id, _ducklake_begin_snapshot and _ducklake_end_snapshot
//     (user columns may then be called row_id), and every column name that
//     starts with _ducklake_ is reserved;
//   - a Puffin delete file (format 'puffin') may hold one deletion vector
//     per snapshot, each cumulative, instead of the single vector of 1.0
//     (exec/parquetio puffin.go);
//   - partition transforms epoch_year/month/day/hour.
//
// ducklake_inlined_delete_<table> keeps its column names in both versions.
const (
	Format10 = "1.0"
	Format11 = "1.1"
)

// FormatVersion is the format a new catalog gets unless Options.Format asks
// for another: 1.0, which every DuckDB from 1.5.2 on reads.
const FormatVersion = Format10

// ParseFormat checks a format version given by a user ("1.0" or "1.1").
func ParseFormat(v string) (string, error) {
	switch strings.TrimSpace(v) {
	case Format10:
		return Format10, nil
	case Format11:
		return Format11, nil
	}
	return "", fmt.Errorf("catalog: DuckLake format version %q is not supported (want %s or %s)", v, Format10, Format11)
}

// checkStoredFormat is what init says about ducklake_metadata.version.
func checkStoredFormat(v string) (string, error) {
	switch v {
	case Format10, Format11:
		return v, nil
	case "1.1-dev1":
		// DuckDB's development builds before the 2.0 release; their layout
		// may differ from the released 1.1 and DuckDB itself migrates them.
		return "", fmt.Errorf("catalog: DuckLake catalog version %q is a pre-release of 1.1: attach it once with the released DuckDB 2.0 and AUTOMATIC_MIGRATION TRUE, then lakepg reads it", v)
	}
	return "", fmt.Errorf("catalog: DuckLake catalog version %q is not supported (lakepg reads %s and %s)", v, Format10, Format11)
}

// Format is the catalog's DuckLake format version ("1.0" or "1.1").
func (db *DB) Format() string {
	f, _ := db.format.Load().(string)
	return f
}

// RecheckFormat reads ducklake_metadata.version again through q (a commit's
// transaction, say) and remembers it: another program (DuckDB 2.0 with
// AUTOMATIC_MIGRATION, lakepg migrate) may have migrated the catalog since
// it was opened, and what lakepg creates in it must then have the new
// layout. It returns the format now in force.
func (db *DB) RecheckFormat(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}) (string, error) {
	var v string
	if err := q.QueryRowContext(ctx, `SELECT "value" FROM ducklake_metadata WHERE "key" = 'version' AND scope IS NULL`).Scan(&v); err != nil {
		return "", fmt.Errorf("catalog: read the format version: %w", err)
	}
	f, err := checkStoredFormat(v)
	if err != nil {
		return "", err
	}
	db.format.Store(f)
	return f, nil
}

// InlinedColumns are the names of the three system columns that lead every
// ducklake_inlined_data_* table.
type InlinedColumns struct {
	RowID, Begin, End string
}

var (
	inlinedColumns10 = InlinedColumns{"row_id", "begin_snapshot", "end_snapshot"}
	inlinedColumns11 = InlinedColumns{"_ducklake_row_id", "_ducklake_begin_snapshot", "_ducklake_end_snapshot"}
)

// InlinedColumns names the system columns of this catalog's inlined-data
// tables.
func (db *DB) InlinedColumns() InlinedColumns {
	if db.Format() == Format11 {
		return inlinedColumns11
	}
	return inlinedColumns10
}

// Visible is the condition that a row of an inlined-data table is visible at
// a snapshot: two '?' parameters, both the snapshot id.
func (c InlinedColumns) Visible() string {
	return fmt.Sprintf("(%[1]s <= ? AND (%[2]s IS NULL OR %[2]s > ?))", quoteIdent(c.Begin), quoteIdent(c.End))
}

// Reserved reports whether a user column called name cannot be kept in an
// inlined-data table of this format: in 1.0 the three system names, in 1.1
// every name starting with _ducklake_ (DuckDB reserves that prefix).
func (c InlinedColumns) Reserved(name string) bool {
	n := strings.ToLower(name)
	if c.RowID == inlinedColumns11.RowID {
		return strings.HasPrefix(n, "_ducklake_")
	}
	switch n {
	case "row_id", "begin_snapshot", "end_snapshot", "_ducklake_internal_row_id", "_ducklake_internal_snapshot_id":
		return true
	}
	return false
}

// ErrMigrateConflict is returned by Migrate when an inlined-data table has a
// user column whose name the renamed system columns would take.
var ErrMigrateConflict = errors.New("catalog: a user column collides with a renamed inlined-data system column")

// MigrateResult says what Migrate did.
type MigrateResult struct {
	From, To string
	// InlinedTables is how many registered inlined-data tables had their
	// system columns renamed.
	InlinedTables int
}

// Migrate moves the catalog to format version to, in one catalog
// transaction: a failure leaves it as it was. Only 1.0 → 1.1 exists; a
// catalog already at to is left alone. Every snapshot stays readable: the
// rename keeps the inlined rows, and the added columns are NULL for the
// rows already there.
//
// Servers and DuckDB clients that have the catalog open keep the version
// they read when they opened it: stop them first (DuckDB 1.5 cannot open a
// 1.1 catalog at all).
func (db *DB) Migrate(ctx context.Context, to string) (MigrateResult, error) {
	res := MigrateResult{From: db.Format(), To: to}
	to, err := ParseFormat(to)
	if err != nil {
		return res, err
	}
	tx, err := db.BeginWrite(ctx)
	if err != nil {
		return res, fmt.Errorf("catalog: migrate: %w", err)
	}
	defer tx.Rollback()
	// read the version again under the write lock: another migration may
	// have run since this DB was opened
	var cur string
	if err := tx.QueryRowContext(ctx, `SELECT "value" FROM ducklake_metadata WHERE "key" = 'version' AND scope IS NULL`).Scan(&cur); err != nil {
		return res, fmt.Errorf("catalog: migrate: read version: %w", err)
	}
	if cur, err = checkStoredFormat(cur); err != nil {
		return res, err
	}
	res.From = cur
	if cur == to {
		db.format.Store(cur)
		return res, nil
	}
	if cur != Format10 || to != Format11 {
		return res, fmt.Errorf("catalog: cannot migrate a DuckLake %s catalog to %s (a migrated catalog cannot be downgraded)", cur, to)
	}
	n, err := renameInlinedSystemColumns(ctx, tx)
	if err != nil {
		return res, err
	}
	res.InlinedTables = n
	for _, t := range []string{"ducklake_data_file", "ducklake_delete_file"} {
		has, err := hasColumn(ctx, tx, t, "row_group_count")
		if err != nil {
			return res, fmt.Errorf("catalog: migrate: %w", err)
		}
		if has {
			continue
		}
		if _, err := tx.ExecContext(ctx, `ALTER TABLE `+t+` ADD COLUMN row_group_count `+db.d.columnType(tBig)); err != nil {
			return res, fmt.Errorf("catalog: migrate: add %s.row_group_count: %w", t, err)
		}
	}
	exists, err := db.probeTable(ctx, tx, viewColumnTagTable.name)
	if err != nil {
		return res, fmt.Errorf("catalog: migrate: %w", err)
	}
	if !exists {
		if _, err := tx.ExecContext(ctx, db.d.createTableSQL(viewColumnTagTable)); err != nil {
			return res, fmt.Errorf("catalog: migrate: create %s: %w", viewColumnTagTable.name, err)
		}
	}
	if _, err := tx.ExecContext(ctx, `UPDATE ducklake_metadata SET "value" = ? WHERE "key" = 'version' AND scope IS NULL`, to); err != nil {
		return res, fmt.Errorf("catalog: migrate: set version: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return res, fmt.Errorf("catalog: migrate: %w", err)
	}
	db.format.Store(to)
	return res, nil
}

// renameInlinedSystemColumns gives every registered inlined-data table the
// 1.1 names of its system columns. The first three columns must be the 1.0
// names (or already the 1.1 ones, left from an earlier attempt); anything
// else, a table that is gone, or a user column already using a new name
// aborts the migration, as DuckDB's does, rather than leave rows unreadable.
func renameInlinedSystemColumns(ctx context.Context, tx *Tx) (int, error) {
	// the user table's name, for the error that asks to rename a column
	rows, err := tx.QueryContext(ctx, `SELECT i.table_name, MAX(s.schema_name), MAX(t.table_name) FROM ducklake_inlined_data_tables i
LEFT JOIN ducklake_table t ON t.table_id = i.table_id AND t.end_snapshot IS NULL
LEFT JOIN ducklake_schema s ON s.schema_id = t.schema_id AND s.end_snapshot IS NULL
GROUP BY i.table_name ORDER BY i.table_name`)
	if err != nil {
		return 0, fmt.Errorf("catalog: migrate: list inlined-data tables: %w", err)
	}
	var names []string
	owner := map[string]string{}
	for rows.Next() {
		var n string
		var sch, tab sql.NullString
		if err := rows.Scan(&n, &sch, &tab); err != nil {
			rows.Close()
			return 0, fmt.Errorf("catalog: migrate: list inlined-data tables: %w", err)
		}
		names = append(names, n)
		owner[n] = n
		if tab.Valid {
			owner[n] = sch.String + "." + tab.String
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("catalog: migrate: list inlined-data tables: %w", err)
	}
	old := []string{inlinedColumns10.RowID, inlinedColumns10.Begin, inlinedColumns10.End}
	renamed := []string{inlinedColumns11.RowID, inlinedColumns11.Begin, inlinedColumns11.End}
	n := 0
	for _, table := range names {
		cols, err := columnNames(ctx, tx, table)
		if err != nil {
			return n, fmt.Errorf("catalog: migrate: read inlined-data table %s: %w", table, err)
		}
		if len(cols) < len(old) {
			return n, fmt.Errorf("catalog: migrate: inlined-data table %s has an unexpected column layout", table)
		}
		user := map[string]bool{}
		for _, c := range cols[len(old):] {
			user[strings.ToLower(c)] = true
		}
		var stmts []string
		for i := range old {
			switch {
			case strings.EqualFold(cols[i], renamed[i]):
				continue
			case !strings.EqualFold(cols[i], old[i]):
				return n, fmt.Errorf("catalog: migrate: inlined-data table %s has an unexpected column layout (column %d is %q)", table, i+1, cols[i])
			case user[renamed[i]]:
				return n, fmt.Errorf("%w: table %s has a column %q: rename the column, then flush the table's inlined data (CALL lakepg.flush_inlined_data('%s')), and migrate again", ErrMigrateConflict, owner[table], renamed[i], owner[table])
			}
			stmts = append(stmts, `ALTER TABLE `+quoteIdent(table)+` RENAME COLUMN `+quoteIdent(cols[i])+` TO `+quoteIdent(renamed[i]))
		}
		for _, s := range stmts {
			if _, err := tx.ExecContext(ctx, s); err != nil {
				return n, fmt.Errorf("catalog: migrate: rename the system columns of %s: %w", table, err)
			}
		}
		if len(stmts) > 0 {
			n++
		}
	}
	return n, nil
}

// columnsOf lists a catalog table's columns in order.
func columnNames(ctx context.Context, tx *Tx, table string) ([]string, error) {
	rows, err := tx.QueryContext(ctx, `SELECT * FROM `+quoteIdent(table)+` WHERE 1 = 0`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return rows.Columns()
}

func hasColumn(ctx context.Context, tx *Tx, table, column string) (bool, error) {
	cols, err := columnNames(ctx, tx, table)
	if err != nil {
		return false, fmt.Errorf("read %s: %w", table, err)
	}
	for _, c := range cols {
		if strings.EqualFold(c, column) {
			return true, nil
		}
	}
	return false, nil
}
