// Package snapshot owns writing to a DuckLake catalog: building one commit,
// which becomes exactly one new snapshot, and DuckLake's optimistic commit
// protocol with its conflict checks and retries.
//
// It must not know about operators, Parquet contents or SQL text from
// clients; it receives finished facts (a table to create, a Parquet file that
// was written with its exact size and stats, a delete file replacing another)
// and turns them into catalog rows.
//
// # Lifecycle
//
//  1. Begin(db, base, meta): base is the snapshot the statement read (its
//     head when it started), meta the catalog as that snapshot sees it.
//  2. Builder calls (CreateSchema, CreateTable, AddDataFile, ...) only record
//     intent. Ids they return are provisional: correct if nobody else commits
//     first, otherwise only hints valid within the statement. FinalID maps a
//     provisional id to the one written after Commit succeeds.
//  3. Commit writes everything in ONE catalog transaction:
//     - catalog rows, with catalog ids from the head's next_catalog_id, file
//     ids from its next_file_id, row ids from ducklake_table_stats;
//     - stats, schema_versions rows, the snapshot row (head+1), and the
//     changes_made line that other writers (DuckDB included) read to
//     detect conflicts with us. A concurrent writer that took head+1
//     makes the snapshot row fail on the primary key.
//     On PostgreSQL the reads a commit needs come first and the writes whose
//     results it does not need are pipelined in one batch sent with the
//     COMMIT's flush (catalog.Tx.ExecDeferred), and lakepg servers queue on
//     a session advisory lock of the catalog (catalog.BeginCommit) instead
//     of racing for head+1; DuckDB does not take it and still races.
//
// # The optimistic protocol (DuckLake spec §10)
//
// On SQLite the transaction begins with BEGIN IMMEDIATE, so writers are
// serialised and the head read inside the transaction cannot move. On
// PostgreSQL nothing is locked up front: several lakepg servers and DuckDB
// commit at once, the transaction is REPEATABLE READ (one view for the head
// and everything decided from it), and the ducklake_snapshot primary key is
// the serialisation point: of two commits built on the same head, the second
// to insert head+1 gets unique_violation 23505.
//
// Either way, if the head read inside the transaction is not base, someone
// committed since we started: the changes_made of every snapshot after base
// are checked against ours with DuckLake's conflict table; a conflict returns
// an error wrapping ErrConflict (SQLSTATE 40001 for the client). Otherwise
// ids, row ids and stats are recomputed from the new head and written.
// Errors that mean "another writer won" (catalog.LostRace: PostgreSQL 23505,
// 40001 serialization_failure and 40P01 deadlock_detected; SQLite busy and
// key violations) roll back and retry after 100 ms × 1.5^n × rand(0.5..1),
// at most 10 times, re-reading the head and re-running the checks against
// base each time.
//
// Commits of one process that are ready at the same moment are written in
// one catalog transaction (group.go): each as its own snapshot behind a
// savepoint, with exactly the checks above against the head inside the
// transaction (the group's earlier members included), one COMMIT for all.
// A member that fails is rolled back to its savepoint alone; a failed
// COMMIT fails every member with nothing of any in the catalog.
//
// Besides the change tokens, each commit re-checks the rows it end-dates:
// dropping a table, renaming it, altering a column or replacing a delete file
// requires the row it replaces to still be live (and, for delete files, to be
// the one the statement read). DuckDB's token checks miss some races (two
// renames of one table); these checks do not. Deletes from one data file
// conflict whichever way either writer recorded them: a delete file or an
// ended file requires the delete file the statement read and no inlined
// file deletes of that file after base; inlined file deletes require the
// delete file read (another writer's inlined deletes of the table conflict
// by token).
//
// # Invariants
//
//   - One commit, one snapshot; nothing is visible before the catalog
//     transaction commits.
//   - schema_version grows by one when the commit changes the catalog
//     (schemas, tables, columns); next_file_id grows by the file ids handed
//     out, or by one for inlined inserts, as in DuckDB (deletes that write
//     no file leave it).
//   - Ids are never reused: column ids continue from the maximum over all of
//     a table's historical column rows.
//   - One delete-file row per data file: a new delete file holds all
//     deleted positions, the earlier ones with the snapshot that deleted
//     them (_ducklake_internal_snapshot_id), and the old row is removed and
//     its file scheduled for deletion, as DuckDB does. (Lakes written before
//     kept the old row end-dated; readers still take either.)
//   - ducklake_table_column_stats min/max stay exact or become NULL, never
//     loose, because DuckDB answers MIN/MAX from them.
package snapshot
