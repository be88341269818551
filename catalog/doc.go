// Package catalog owns lakepg's catalog database: the 28 DuckLake 1.0 metadata
// tables (ducklake_snapshot, ducklake_table, ducklake_data_file, ...) kept in an
// ordinary SQL database reached through database/sql.
//
// What it does:
//   - creates a new catalog exactly as DuckDB's ducklake extension would
//     (same table names, column order and, per backend, the same column types),
//     so that DuckDB 1.5 can ATTACH 'ducklake:sqlite:<file>' or
//     'ducklake:postgres:<libpq DSN>' on a lake lakepg made, and lakepg can
//     open a catalog DuckDB made;
//   - resolves snapshots (latest, by id, by time) and reads everything visible at
//     one snapshot: schemas, tables, columns, data files with their live delete
//     file and column statistics, table statistics;
//   - hands the snapshot package a write transaction (BeginWrite) that holds the
//     catalog's writer lock where the backend has one, and tells it which
//     errors mean that another writer committed first (LostRace);
//   - keeps lakepg's roles (name, superuser, login, SCRAM verifier) in
//     lakepg_role beside the DuckLake tables, created by the first role
//     written (roles.go), so servers sharing a catalog share users.
//
// What it must not know: operators, SQL text from clients, Parquet contents,
// and how a commit is put together (that is package snapshot).
//
// Visibility everywhere is DuckLake's half-open range: a versioned row is
// visible at snapshot S when begin_snapshot <= S and (end_snapshot IS NULL or
// S < end_snapshot).
//
// Backends. SQLite (modernc.org/sqlite, driver "sqlite", WAL, busy_timeout,
// foreign keys off; writers serialised by BEGIN IMMEDIATE) and PostgreSQL
// (github.com/jackc/pgx/v5 through its database/sql driver "pgx"; the tables
// live in one schema, public unless Options.Schema names another, reached
// through search_path; writers are REPEATABLE READ transactions that race on
// the ducklake_snapshot primary key, see postgres.go). Queries are written
// once with '?' placeholders and portable SQL (no '::' casts, explicit NULLS
// FIRST); everything that differs between backends lives in dialect.go and
// postgres.go. Scanning accepts both representations (NullBool, NullTime:
// 0/1 and text on SQLite, bool and time.Time on PostgreSQL).
package catalog
