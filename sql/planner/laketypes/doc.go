// Package laketypes says what a lake table's columns read as: the lakepg
// (PostgreSQL) type of a DuckLake column type — lists as arrays, structs as
// records, maps as their JSON text, varchar(n) and character(n) from the
// column's lakepg.type tag (charn.go) — the column ids a scan of a nested
// column reads, and DuckDB's VARCHAR text of inlined list and struct values
// read back into vectors (nested_inlined.go). It knows no SQL statements.
package laketypes
