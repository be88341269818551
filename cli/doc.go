// Package cli is lakepg's command line beyond serving: the interactive shell
// (`lakepg shell`), bulk import of CSV and Parquet files, local or in S3
// (`lakepg import`), the snapshot list (`lakepg snapshots`), maintenance and
// its dry runs (`lakepg maintenance`, which issues the CALL
// lakepg.<procedure> statements of the sql package and prints their
// notices), the consistency check of a lake
// (`lakepg check`: files, sizes, row counts and each live file's column
// statistics against its Parquet footer), the layering of flags, LAKEPG_*
// environment variables and a TOML config file that the server shares, and
// the statement line of the query log, written by the server and the
// embedded shell alike.
//
// Every command runs either embedded, opening the lake's catalog and data
// directly and driving the sql package in-process, or as a client of a
// running server (--connect postgres://…, over pgx). Both sit behind Conn, so
// the shell, the formats and import are written once.
//
// It sits beside cmd/lakepg at the top of the import graph: it may use any
// package below (sql, exec, catalog, storage), never wire, and nothing but
// cmd/lakepg imports it.
package cli
