package catalog

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"
)

// Schema is a ducklake_schema row.
type Schema struct {
	ID             int64
	UUID           string
	Name           string
	Path           string // "" when the stored path is NULL (use the data path)
	PathIsRelative bool
	BeginSnapshot  int64
}

// Column is a ducklake_column row.
type Column struct {
	ID    int64 // column_id: the Parquet field_id, stable for the table's life
	Order int64
	Name  string
	Type  string // DuckLake type name: int32, varchar, decimal(18,3), list, ...
	// InitialDefault is the value rows of older files read for this column
	// (literal text), nil for NULL.
	InitialDefault *string
	// DefaultValue is the column's DEFAULT, nil when there is none. DuckDB
	// stores "no default" as the text 'NULL'; Load turns that into nil.
	DefaultValue     *string
	DefaultValueType string // 'literal' or 'expression' ('' for nested parents)
	NullsAllowed     bool
	ParentID         *int64
	BeginSnapshot    int64
	// PGType is the declared PostgreSQL type DuckLake cannot hold
	// ("varchar(40)", "bpchar(10)"), from its table's lakepg.type.<id> tag
	// (pgtype.go); "" when there is none.
	PGType string
	// Children are the fields of a nested column (list: element; map: key,
	// value; struct: its fields), in column_order (nested.go).
	Children []Column
	// Comment is COMMENT ON COLUMN's text, "" for none (comments.go).
	Comment string
}

// Table is a ducklake_table row with its visible top-level columns.
type Table struct {
	ID             int64
	UUID           string
	SchemaID       int64
	Name           string
	Path           string // "" when the stored path is NULL (use the schema path)
	PathIsRelative bool
	BeginSnapshot  int64
	// Columns are the top-level columns ordered by column_order, nested
	// columns with their Children.
	Columns []Column
	// Partition is the table's partition spec, nil when it has none.
	Partition *PartitionSpec
	// Comment is COMMENT ON TABLE's text, "" for none (comments.go).
	Comment string
	// MatView is the query of the materialized view the table holds, ""
	// for an ordinary table (comments.go).
	MatView string
}

// ColumnByName finds a top-level column, case-sensitively.
func (t *Table) ColumnByName(name string) (*Column, bool) {
	for i := range t.Columns {
		if t.Columns[i].Name == name {
			return &t.Columns[i], true
		}
	}
	return nil, false
}

// ColumnByID finds a top-level column by column_id.
func (t *Table) ColumnByID(id int64) (*Column, bool) {
	for i := range t.Columns {
		if t.Columns[i].ID == id {
			return &t.Columns[i], true
		}
	}
	return nil, false
}

// Metadata is the catalog as one snapshot sees it.
type Metadata struct {
	Snapshot Snapshot
	Schemas  []Schema // ordered by schema_id
	Tables   []Table  // ordered by table_id
	Views    []View   // ordered by view_id
	// Constraints are the PRIMARY KEY and UNIQUE constraints (constraints.go)
	Constraints []Constraint
}

// SchemaByName finds a schema by exact name.
func (m *Metadata) SchemaByName(name string) (*Schema, bool) {
	for i := range m.Schemas {
		if m.Schemas[i].Name == name {
			return &m.Schemas[i], true
		}
	}
	return nil, false
}

// SchemaByID finds a schema by id.
func (m *Metadata) SchemaByID(id int64) (*Schema, bool) {
	for i := range m.Schemas {
		if m.Schemas[i].ID == id {
			return &m.Schemas[i], true
		}
	}
	return nil, false
}

// TableByName finds a table in a schema by exact name.
func (m *Metadata) TableByName(schemaID int64, name string) (*Table, bool) {
	if t, known := indexedTable(m.Tables, schemaID, name); known { // metadelta.go
		return t, t != nil
	}
	for i := range m.Tables {
		if m.Tables[i].SchemaID == schemaID && m.Tables[i].Name == name {
			return &m.Tables[i], true
		}
	}
	return nil, false
}

// TableByID finds a table by id.
func (m *Metadata) TableByID(id int64) (*Table, bool) {
	// Load and Advance keep Tables in id order: a binary search finds it
	// (10,000 tables); a list made otherwise is scanned on a miss
	if i := sort.Search(len(m.Tables), func(i int) bool { return m.Tables[i].ID >= id }); i < len(m.Tables) && m.Tables[i].ID == id {
		return &m.Tables[i], true
	}
	for i := range m.Tables {
		if m.Tables[i].ID == id {
			return &m.Tables[i], true
		}
	}
	return nil, false
}

// TablesIn lists the tables of one schema.
func (m *Metadata) TablesIn(schemaID int64) []*Table {
	var out []*Table
	for i := range m.Tables {
		if m.Tables[i].SchemaID == schemaID {
			out = append(out, &m.Tables[i])
		}
	}
	return out
}

// visibleAt is DuckLake's visibility rule for a row with begin/end columns,
// taking the snapshot id twice.
func visibleAt(prefix string) string {
	return fmt.Sprintf("(%[1]sbegin_snapshot <= ? AND (%[1]send_snapshot IS NULL OR %[1]send_snapshot > ?))", prefix)
}

// Load reads every schema, table and column visible at snap, in one
// consistent read of the catalog.
func (db *DB) Load(ctx context.Context, snap Snapshot) (*Metadata, error) {
	rt, err := db.beginRead(ctx)
	if err != nil {
		return nil, fmt.Errorf("catalog: load snapshot %d: %w", snap.ID, err)
	}
	defer rt.done()
	m := &Metadata{Snapshot: snap}
	s := snap.ID

	rows, err := rt.QueryContext(ctx, `SELECT schema_id, schema_uuid, schema_name, path, path_is_relative, begin_snapshot
FROM ducklake_schema WHERE `+visibleAt("")+` ORDER BY schema_id`, s, s)
	if err != nil {
		return nil, fmt.Errorf("catalog: load schemas: %w", err)
	}
	for rows.Next() {
		var (
			sc    Schema
			uuid  sql.NullString
			path  sql.NullString
			isRel NullBool
		)
		if err := rows.Scan(&sc.ID, &uuid, &sc.Name, &path, &isRel, &sc.BeginSnapshot); err != nil {
			rows.Close()
			return nil, fmt.Errorf("catalog: load schemas: %w", err)
		}
		sc.UUID, sc.Path = uuid.String, path.String
		// A NULL path (catalogs migrated from 0.1) means "the parent path",
		// which a relative empty path gives.
		sc.PathIsRelative = !isRel.Valid || isRel.Bool || !path.Valid
		m.Schemas = append(m.Schemas, sc)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("catalog: load schemas: %w", err)
	}

	rows, err = rt.QueryContext(ctx, `SELECT table_id, table_uuid, schema_id, table_name, path, path_is_relative, begin_snapshot
FROM ducklake_table WHERE `+visibleAt("")+` ORDER BY table_id`, s, s)
	if err != nil {
		return nil, fmt.Errorf("catalog: load tables: %w", err)
	}
	byID := map[int64]int{}
	for rows.Next() {
		t, err := scanTable(rows)
		if err != nil {
			rows.Close()
			return nil, fmt.Errorf("catalog: load tables: %w", err)
		}
		byID[t.ID] = len(m.Tables)
		m.Tables = append(m.Tables, t)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("catalog: load tables: %w", err)
	}

	cols, err := readColumns(ctx, rt, `WHERE `+visibleAt("")+` AND parent_column IS NULL`, s, s)
	if err != nil {
		return nil, err
	}
	for _, tc := range cols {
		if i, ok := byID[tc.tableID]; ok {
			m.Tables[i].Columns = append(m.Tables[i].Columns, tc.Column)
		}
	}
	if err := loadChildren(ctx, rt, m, byID, s, nil); err != nil { // nested.go
		return nil, err
	}
	if err := loadPGTypes(ctx, rt, m, byID, s, nil); err != nil { // pgtype.go
		return nil, err
	}
	parts, err := loadPartitions(ctx, rt, s)
	if err != nil {
		return nil, err
	}
	for tid, spec := range parts {
		if i, ok := byID[tid]; ok {
			m.Tables[i].Partition = spec
		}
	}
	if m.Views, err = loadViews(ctx, rt, s); err != nil { // views.go
		return nil, err
	}
	if err := loadComments(ctx, rt, m, byID, s, db.Format() == Format11, nil); err != nil { // comments.go
		return nil, err
	}
	if m.Constraints, err = loadConstraints(ctx, db, rt, s); err != nil { // constraints.go
		return nil, err
	}
	for i := range m.Tables {
		if len(m.Tables[i].Columns) == 0 {
			return nil, fmt.Errorf("catalog: table %d (%s) has no columns at snapshot %d: corrupt catalog", m.Tables[i].ID, m.Tables[i].Name, s)
		}
	}
	return m, nil
}

type tableColumn struct {
	tableID int64
	Column
}

// readColumns reads ducklake_column rows, ordered as DuckDB orders them
// (table, parent NULLS FIRST, column_order).
func readColumns(ctx context.Context, q queryer, where string, args ...any) ([]tableColumn, error) {
	rows, err := q.QueryContext(ctx, columnsQuery(where), args...)
	if err != nil {
		return nil, fmt.Errorf("catalog: load columns: %w", err)
	}
	defer rows.Close()
	return scanColumns(rows)
}

func columnsQuery(where string) string {
	return `SELECT table_id, column_id, column_order, column_name, column_type, initial_default,
	default_value, default_value_type, nulls_allowed, parent_column, begin_snapshot
FROM ducklake_column ` + where + ` ORDER BY table_id, parent_column NULLS FIRST, column_order, column_id`
}

// liveColumnsWhere picks a table's live columns (LiveColumns).
const liveColumnsWhere = `WHERE table_id = ? AND end_snapshot IS NULL`

func scanColumns(rows rowScanner) ([]tableColumn, error) {
	var out []tableColumn
	for rows.Next() {
		var (
			c                 tableColumn
			order             sql.NullInt64
			initDef, def, dvt sql.NullString
			nulls             NullBool
			parent            sql.NullInt64
		)
		if err := rows.Scan(&c.tableID, &c.ID, &order, &c.Name, &c.Type, &initDef, &def, &dvt, &nulls, &parent, &c.BeginSnapshot); err != nil {
			return nil, fmt.Errorf("catalog: load columns: %w", err)
		}
		c.Order = order.Int64
		if !order.Valid {
			c.Order = c.ID
		}
		c.InitialDefault = nullStr(initDef)
		if def.Valid && !strings.EqualFold(def.String, "NULL") {
			c.DefaultValue = strPtr(def.String)
		}
		c.DefaultValueType = dvt.String
		c.NullsAllowed = !nulls.Valid || nulls.Bool
		c.ParentID = nullInt(parent)
		out = append(out, c)
	}
	return out, rows.Err()
}

// LiveColumns reads a table's columns that are live at the head (end_snapshot
// IS NULL), nested children included, for building a commit.
func (t *Tx) LiveColumns(ctx context.Context, tableID int64) ([]Column, error) {
	if r := t.prefetchedTable(tableID); r != nil {
		return append([]Column(nil), r.cols...), nil
	}
	cols, err := readColumns(ctx, t, liveColumnsWhere, tableID)
	if err != nil {
		return nil, err
	}
	return columnsOf(cols), nil
}

func columnsOf(cols []tableColumn) []Column {
	out := make([]Column, len(cols))
	for i, c := range cols {
		out[i] = c.Column
	}
	return out
}

// MaxColumnID is the largest column_id the table ever had (0 if none), over
// all historical rows: a new column takes MaxColumnID+1 so that a dropped
// column's field id is never reused.
func (t *Tx) MaxColumnID(ctx context.Context, tableID int64) (int64, error) {
	var m sql.NullInt64
	if err := t.QueryRowContext(ctx, `SELECT MAX(column_id) FROM ducklake_column WHERE table_id = ?`, tableID).Scan(&m); err != nil {
		return 0, fmt.Errorf("catalog: max column id: %w", err)
	}
	return m.Int64, nil
}

// MaxColumnID is the largest column_id table tableID ever had (0 if none).
func (db *DB) MaxColumnID(ctx context.Context, tableID int64) (int64, error) {
	rows, err := db.q().QueryContext(ctx, `SELECT MAX(column_id) FROM ducklake_column WHERE table_id = ?`, tableID)
	if err != nil {
		return 0, fmt.Errorf("catalog: max column id: %w", err)
	}
	defer rows.Close()
	var m sql.NullInt64
	if rows.Next() {
		if err := rows.Scan(&m); err != nil {
			return 0, fmt.Errorf("catalog: max column id: %w", err)
		}
	}
	return m.Int64, rows.Err()
}

// InlinedTable is a ducklake_inlined_data_tables row: a table DuckDB keeps
// small inserts in, laid out as the table was at SchemaVersion.
type InlinedTable struct {
	TableID       int64
	Name          string
	SchemaVersion int64
}

// InlinedTables lists the inlined-data tables registered for a table.
func (t *Tx) InlinedTables(ctx context.Context, tableID int64) ([]InlinedTable, error) {
	if r := t.prefetchedTable(tableID); r != nil {
		return append([]InlinedTable(nil), r.inlined...), nil
	}
	return inlinedTables(ctx, t, tableID)
}

// InlinedTables lists the inlined-data tables registered for a table,
// ordered by schema version.
func (db *DB) InlinedTables(ctx context.Context, tableID int64) ([]InlinedTable, error) {
	return inlinedTables(ctx, db.q(), tableID)
}

func inlinedTables(ctx context.Context, q queryer, tableID int64) ([]InlinedTable, error) {
	rows, err := q.QueryContext(ctx, inlinedTablesQuery, tableID)
	if err != nil {
		return nil, fmt.Errorf("catalog: read inlined tables: %w", err)
	}
	defer rows.Close()
	return scanInlinedTables(rows)
}

const inlinedTablesQuery = `SELECT table_id, table_name, schema_version FROM ducklake_inlined_data_tables WHERE table_id = ? ORDER BY schema_version`

func scanInlinedTables(rows rowScanner) ([]InlinedTable, error) {
	var out []InlinedTable
	for rows.Next() {
		var it InlinedTable
		if err := rows.Scan(&it.TableID, &it.Name, &it.SchemaVersion); err != nil {
			return nil, fmt.Errorf("catalog: read inlined tables: %w", err)
		}
		out = append(out, it)
	}
	return out, rows.Err()
}

// TableDir is the directory holding a table's files: data_path + schema path
// + table path, where a path with path_is_relative false is absolute and an
// empty (NULL) path means the parent's directory. The result ends in '/'
// unless a stored path lacks the separator.
func (db *DB) TableDir(s *Schema, t *Table) string {
	dir := db.dataPath
	if s != nil {
		if s.PathIsRelative {
			dir += s.Path
		} else {
			dir = s.Path
		}
	}
	if t.PathIsRelative {
		dir += t.Path
	} else {
		dir = t.Path
	}
	return dir
}

// scanTable reads a row of (table_id, table_uuid, schema_id, table_name,
// path, path_is_relative, begin_snapshot) from ducklake_table.
func scanTable(rows *sql.Rows) (Table, error) {
	var (
		t     Table
		uuid  sql.NullString
		path  sql.NullString
		isRel NullBool
	)
	if err := rows.Scan(&t.ID, &uuid, &t.SchemaID, &t.Name, &path, &isRel, &t.BeginSnapshot); err != nil {
		return t, err
	}
	t.UUID, t.Path = uuid.String, path.String
	t.PathIsRelative = !isRel.Valid || isRel.Bool || !path.Valid
	return t, nil
}
