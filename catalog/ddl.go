package catalog

import "strings"

// ddlColumn is one column of a DuckLake catalog table, typed as in DuckDB's
// own DDL (InitializeDuckLake in the 1.5 ducklake extension).
type ddlColumn struct {
	name       string
	typ        string // BIGINT, VARCHAR, BOOLEAN, UUID or TIMESTAMPTZ
	notNull    bool
	primaryKey bool
}

type ddlTable struct {
	name string
	cols []ddlColumn
}

func col(name, typ string) ddlColumn { return ddlColumn{name: name, typ: typ} }
func pk(name string) ddlColumn       { return ddlColumn{name: name, typ: "BIGINT", primaryKey: true} }

// Shorthands for the repeated column shapes.
const (
	tBig  = "BIGINT"
	tStr  = "VARCHAR"
	tBool = "BOOLEAN"
	tUUID = "UUID"
	tTS   = "TIMESTAMPTZ"
)

// ducklakeTables lists the 28 fixed DuckLake 1.0 tables in the order DuckDB
// creates them, each with its columns in DuckDB's order. The order of columns
// is load-bearing: DuckDB inserts with positional VALUES lists.
var ducklakeTables = []ddlTable{
	{"ducklake_metadata", []ddlColumn{{name: "key", typ: tStr, notNull: true}, {name: "value", typ: tStr, notNull: true}, col("scope", tStr), col("scope_id", tBig)}},
	{"ducklake_snapshot", []ddlColumn{pk("snapshot_id"), col("snapshot_time", tTS), col("schema_version", tBig), col("next_catalog_id", tBig), col("next_file_id", tBig)}},
	{"ducklake_snapshot_changes", []ddlColumn{pk("snapshot_id"), col("changes_made", tStr), col("author", tStr), col("commit_message", tStr), col("commit_extra_info", tStr)}},
	{"ducklake_schema", []ddlColumn{pk("schema_id"), col("schema_uuid", tUUID), col("begin_snapshot", tBig), col("end_snapshot", tBig), col("schema_name", tStr), col("path", tStr), col("path_is_relative", tBool)}},
	{"ducklake_table", []ddlColumn{col("table_id", tBig), col("table_uuid", tUUID), col("begin_snapshot", tBig), col("end_snapshot", tBig), col("schema_id", tBig), col("table_name", tStr), col("path", tStr), col("path_is_relative", tBool)}},
	{"ducklake_view", []ddlColumn{col("view_id", tBig), col("view_uuid", tUUID), col("begin_snapshot", tBig), col("end_snapshot", tBig), col("schema_id", tBig), col("view_name", tStr), col("dialect", tStr), col("sql", tStr), col("column_aliases", tStr)}},
	{"ducklake_tag", []ddlColumn{col("object_id", tBig), col("begin_snapshot", tBig), col("end_snapshot", tBig), col("key", tStr), col("value", tStr)}},
	{"ducklake_column_tag", []ddlColumn{col("table_id", tBig), col("column_id", tBig), col("begin_snapshot", tBig), col("end_snapshot", tBig), col("key", tStr), col("value", tStr)}},
	{"ducklake_data_file", []ddlColumn{pk("data_file_id"), col("table_id", tBig), col("begin_snapshot", tBig), col("end_snapshot", tBig), col("file_order", tBig), col("path", tStr), col("path_is_relative", tBool), col("file_format", tStr), col("record_count", tBig), col("file_size_bytes", tBig), col("footer_size", tBig), col("row_id_start", tBig), col("partition_id", tBig), col("encryption_key", tStr), col("mapping_id", tBig), col("partial_max", tBig)}},
	{"ducklake_file_column_stats", []ddlColumn{col("data_file_id", tBig), col("table_id", tBig), col("column_id", tBig), col("column_size_bytes", tBig), col("value_count", tBig), col("null_count", tBig), col("min_value", tStr), col("max_value", tStr), col("contains_nan", tBool), col("extra_stats", tStr)}},
	{"ducklake_file_variant_stats", []ddlColumn{col("data_file_id", tBig), col("table_id", tBig), col("column_id", tBig), col("variant_path", tStr), col("shredded_type", tStr), col("column_size_bytes", tBig), col("value_count", tBig), col("null_count", tBig), col("min_value", tStr), col("max_value", tStr), col("contains_nan", tBool), col("extra_stats", tStr)}},
	{"ducklake_delete_file", []ddlColumn{pk("delete_file_id"), col("table_id", tBig), col("begin_snapshot", tBig), col("end_snapshot", tBig), col("data_file_id", tBig), col("path", tStr), col("path_is_relative", tBool), col("format", tStr), col("delete_count", tBig), col("file_size_bytes", tBig), col("footer_size", tBig), col("encryption_key", tStr), col("partial_max", tBig)}},
	{"ducklake_column", []ddlColumn{col("column_id", tBig), col("begin_snapshot", tBig), col("end_snapshot", tBig), col("table_id", tBig), col("column_order", tBig), col("column_name", tStr), col("column_type", tStr), col("initial_default", tStr), col("default_value", tStr), col("nulls_allowed", tBool), col("parent_column", tBig), col("default_value_type", tStr), col("default_value_dialect", tStr)}},
	{"ducklake_table_stats", []ddlColumn{col("table_id", tBig), col("record_count", tBig), col("next_row_id", tBig), col("file_size_bytes", tBig)}},
	{"ducklake_table_column_stats", []ddlColumn{col("table_id", tBig), col("column_id", tBig), col("contains_null", tBool), col("contains_nan", tBool), col("min_value", tStr), col("max_value", tStr), col("extra_stats", tStr)}},
	{"ducklake_partition_info", []ddlColumn{col("partition_id", tBig), col("table_id", tBig), col("begin_snapshot", tBig), col("end_snapshot", tBig)}},
	{"ducklake_partition_column", []ddlColumn{col("partition_id", tBig), col("table_id", tBig), col("partition_key_index", tBig), col("column_id", tBig), col("transform", tStr)}},
	{"ducklake_file_partition_value", []ddlColumn{col("data_file_id", tBig), col("table_id", tBig), col("partition_key_index", tBig), col("partition_value", tStr)}},
	{"ducklake_files_scheduled_for_deletion", []ddlColumn{col("data_file_id", tBig), col("path", tStr), col("path_is_relative", tBool), col("schedule_start", tTS)}},
	{"ducklake_inlined_data_tables", []ddlColumn{col("table_id", tBig), col("table_name", tStr), col("schema_version", tBig)}},
	{"ducklake_column_mapping", []ddlColumn{col("mapping_id", tBig), col("table_id", tBig), col("type", tStr)}},
	{"ducklake_name_mapping", []ddlColumn{col("mapping_id", tBig), col("column_id", tBig), col("source_name", tStr), col("target_field_id", tBig), col("parent_column", tBig), col("is_partition", tBool)}},
	{"ducklake_schema_versions", []ddlColumn{col("begin_snapshot", tBig), col("schema_version", tBig), col("table_id", tBig)}},
	{"ducklake_macro", []ddlColumn{col("schema_id", tBig), col("macro_id", tBig), col("macro_name", tStr), col("begin_snapshot", tBig), col("end_snapshot", tBig)}},
	{"ducklake_macro_impl", []ddlColumn{col("macro_id", tBig), col("impl_id", tBig), col("dialect", tStr), col("sql", tStr), col("type", tStr)}},
	{"ducklake_macro_parameters", []ddlColumn{col("macro_id", tBig), col("impl_id", tBig), col("column_id", tBig), col("parameter_name", tStr), col("parameter_type", tStr), col("default_value", tStr), col("default_value_type", tStr)}},
	{"ducklake_sort_info", []ddlColumn{col("sort_id", tBig), col("table_id", tBig), col("begin_snapshot", tBig), col("end_snapshot", tBig)}},
	{"ducklake_sort_expression", []ddlColumn{col("sort_id", tBig), col("table_id", tBig), col("sort_key_index", tBig), col("expression", tStr), col("dialect", tStr), col("sort_direction", tStr), col("null_order", tStr)}},
}

// viewColumnTagTable is the table DuckLake 1.1 adds: comments (key
// 'comment') and tags on the columns of views, by column name.
var viewColumnTagTable = ddlTable{"ducklake_view_column_tag", []ddlColumn{col("view_id", tBig), col("column_name", tStr), col("begin_snapshot", tBig), col("end_snapshot", tBig), col("key", tStr), col("value", tStr)}}

// tablesOf lists the fixed tables of a catalog in format version f: 1.1
// ends ducklake_data_file and ducklake_delete_file with row_group_count and
// adds ducklake_view_column_tag last, as DuckDB 2.0 creates them.
func tablesOf(f string) []ddlTable {
	if f != Format11 {
		return ducklakeTables
	}
	out := make([]ddlTable, 0, len(ducklakeTables)+1)
	for _, t := range ducklakeTables {
		if t.name == "ducklake_data_file" || t.name == "ducklake_delete_file" {
			t.cols = append(append([]ddlColumn(nil), t.cols...), col("row_group_count", tBig))
		}
		out = append(out, t)
	}
	return append(out, viewColumnTagTable)
}

// createTableSQL renders one CREATE TABLE for the dialect. Column names are
// always double-quoted: several (key, value, type, sql, format) are keywords
// somewhere, and quoting does not change the stored column names.
func (d *dialect) createTableSQL(t ddlTable) string {
	var b strings.Builder
	b.WriteString("CREATE TABLE ")
	b.WriteString(t.name)
	b.WriteString("(")
	for i, c := range t.cols {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(quoteIdent(c.name))
		b.WriteString(" ")
		b.WriteString(d.columnType(c.typ))
		if c.notNull {
			b.WriteString(" NOT NULL")
		}
		if c.primaryKey {
			b.WriteString(" PRIMARY KEY")
		}
	}
	b.WriteString(")")
	return b.String()
}

// quoteIdent double-quotes an SQL identifier, doubling embedded quotes.
func quoteIdent(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// QuoteIdent double-quotes an SQL identifier for use in catalog DDL and
// queries (inlined-data table and column names).
func QuoteIdent(s string) string { return quoteIdent(s) }

// catalogIndexes are indexes lakepg adds to the DuckLake tables of a
// catalog it creates, so that the per-table reads of a statement or a
// commit (a table's columns, its name check, its files and statistics) do
// not scan every table's rows in a catalog of thousands of tables. DuckDB
// reads and writes these tables with plain SQL and does not mind them
// (test/duckdb attaches lakes lakepg created). Catalogs DuckDB created have
// none; lakepg works the same without them.
var catalogIndexes = []string{
	`CREATE INDEX IF NOT EXISTS lakepg_column_table ON ducklake_column (table_id)`,
	`CREATE INDEX IF NOT EXISTS lakepg_table_schema_name ON ducklake_table (schema_id, table_name)`,
	`CREATE INDEX IF NOT EXISTS lakepg_table_id ON ducklake_table (table_id)`,
	`CREATE INDEX IF NOT EXISTS lakepg_data_file_table ON ducklake_data_file (table_id)`,
	`CREATE INDEX IF NOT EXISTS lakepg_file_column_stats_table ON ducklake_file_column_stats (table_id)`,
	`CREATE INDEX IF NOT EXISTS lakepg_table_stats_table ON ducklake_table_stats (table_id)`,
	`CREATE INDEX IF NOT EXISTS lakepg_table_column_stats_table ON ducklake_table_column_stats (table_id)`,
	// every commit into a table reads its inlined-data tables: without it
	// that read scanned a row per table of the lake, 0.1 ms per commit
	// more with every 1,000 tables on PostgreSQL
	`CREATE INDEX IF NOT EXISTS lakepg_inlined_data_tables_table ON ducklake_inlined_data_tables (table_id)`,
	// Advance (metadelta.go) asks what tables and columns began or ended
	// since a snapshot after every CREATE TABLE: without these it read every
	// table's and column's row each time, slowing down every statement as a
	// lake of thousands of tables grew.
	`CREATE INDEX IF NOT EXISTS lakepg_table_begin ON ducklake_table (begin_snapshot)`,
	`CREATE INDEX IF NOT EXISTS lakepg_table_end ON ducklake_table (end_snapshot)`,
	`CREATE INDEX IF NOT EXISTS lakepg_column_begin ON ducklake_column (begin_snapshot)`,
	`CREATE INDEX IF NOT EXISTS lakepg_column_end ON ducklake_column (end_snapshot)`,
	// and the tags (lakepg keeps each column's PostgreSQL type in one)
	`CREATE INDEX IF NOT EXISTS lakepg_tag_object ON ducklake_tag (object_id)`,
	`CREATE INDEX IF NOT EXISTS lakepg_tag_begin ON ducklake_tag (begin_snapshot)`,
	`CREATE INDEX IF NOT EXISTS lakepg_tag_end ON ducklake_tag (end_snapshot)`,
	`CREATE INDEX IF NOT EXISTS lakepg_column_tag_table ON ducklake_column_tag (table_id)`,
	`CREATE INDEX IF NOT EXISTS lakepg_column_tag_begin ON ducklake_column_tag (begin_snapshot)`,
	`CREATE INDEX IF NOT EXISTS lakepg_column_tag_end ON ducklake_column_tag (end_snapshot)`,
}
