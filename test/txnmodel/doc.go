// Package txnmodel is a randomized, model-checked test of lakepg's transactions: generated
// sequences of CREATE/ALTER/RENAME/DROP of tables and schemas, CREATE TABLE AS,
// INSERT/UPDATE/DELETE/COPY, in autocommit and in BEGIN … COMMIT blocks with savepoints,
// rollbacks, failing statements, dropped connections and a second writer whose commits make
// the block's COMMIT conflict (40001) or not. Every statement also runs against an in-memory
// model of the tables it should leave; after every statement the session must read what the
// model holds (a block sees its own changes), after every commit another session must read
// the committed model and `lakepg check` must find every file the catalog names and no
// orphan, and at the end DuckDB 1.5.5 attaches the catalog and must read every table as the
// model has it. It runs on a SQLite and on a PostgreSQL catalog.
//
// CI runs a fixed number of sequences from a fixed seed (printed); -sequences N runs more,
// -seed S picks another seed and -seed 0 a new one each run (printed with every failure, so
// a failing sequence can be replayed):
//
//	go test ./test/txnmodel -run TestTransactionModel -args -sequences 500 -seed 7
package txnmodel
