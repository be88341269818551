package sql

import (
	"context"
	"testing"
)

// TestRenameInBlockKeepsFilesReadable is dbt's table model: the table is built under a
// temporary name and renamed into place in one block. The catalog must name the files
// where they were written (a table's directory is fixed when it is created).
func TestRenameInBlockKeepsFilesReadable(t *testing.T) {
	s := lake(t)
	must(t, s, `CREATE TABLE stg AS SELECT 1 AS x`)
	must(t, s, `BEGIN`)
	must(t, s, `CREATE TABLE stg__dbt_tmp AS SELECT g AS x FROM generate_series(1, 3000) g`)
	must(t, s, `INSERT INTO stg__dbt_tmp VALUES (0)`)
	must(t, s, `ALTER TABLE stg RENAME TO stg__dbt_backup`)
	must(t, s, `ALTER TABLE stg__dbt_tmp RENAME TO stg`)
	must(t, s, `INSERT INTO stg VALUES (-1)`)
	must(t, s, `SELECT count(*), min(x), max(x) FROM stg`, "3002|-1|3000")
	must(t, s, `COMMIT`)
	must(t, s, `DROP TABLE stg__dbt_backup`)
	must(t, s, `SELECT count(*), min(x), max(x) FROM stg`, "3002|-1|3000")
	// a name DuckLake cannot use as a directory: the files go under the table's uuid
	must(t, s, `BEGIN`)
	must(t, s, `CREATE TABLE "odd name" AS SELECT g AS x FROM generate_series(1, 2000) g`)
	must(t, s, `ALTER TABLE "odd name" RENAME TO plain`)
	must(t, s, `COMMIT`)
	must(t, s, `SELECT count(*) FROM plain`, "2000")
	// two tables swap names in one block
	must(t, s, `BEGIN`)
	must(t, s, `ALTER TABLE stg RENAME TO swap`)
	must(t, s, `ALTER TABLE plain RENAME TO stg`)
	must(t, s, `ALTER TABLE swap RENAME TO plain`)
	must(t, s, `COMMIT`)
	must(t, s, `SELECT count(*) FROM stg`, "2000")
	must(t, s, `SELECT count(*) FROM plain`, "3002")
	// every data file the catalog names is where it says
	ctx := context.Background()
	head, err := s.eng.DB.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	meta, err := s.eng.Metadata(ctx, head)
	if err != nil {
		t.Fatal(err)
	}
	for _, tbl := range meta.Tables {
		sch, _ := meta.SchemaByID(tbl.SchemaID)
		files, err := s.eng.DB.Files(ctx, sch, &tbl, head)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if _, err := s.eng.Store.Stat(ctx, f.Path); err != nil {
				t.Errorf("table %s: file %s named by the catalog: %v", tbl.Name, f.Path, err)
			}
		}
	}
}

// TestDropAndCreateSchemaInBlock: drops are written before creations, so a block may
// replace a schema by one of the same name.
func TestDropAndCreateSchemaInBlock(t *testing.T) {
	s := lake(t)
	must(t, s, `CREATE SCHEMA s1`)
	must(t, s, `CREATE TABLE s1.t AS SELECT 1 AS x`)
	must(t, s, `BEGIN`)
	must(t, s, `DROP SCHEMA s1 CASCADE`)
	must(t, s, `CREATE SCHEMA s1`)
	must(t, s, `CREATE TABLE s1.t AS SELECT 2 AS x`)
	must(t, s, `COMMIT`)
	must(t, s, `SELECT x FROM s1.t`, "2")
}

// TestInlinedRowsAfterExpiryAndRename: the layout of an old inlined-data table comes
// from ducklake_schema_versions, which outlives expired snapshots; renaming a column
// afterwards must not lose the values of rows inlined before.
func TestInlinedRowsAfterExpiryAndRename(t *testing.T) {
	s := lake(t)
	must(t, s, `CREATE TABLE t (id bigint, a integer, b text)`)
	must(t, s, `INSERT INTO t VALUES (1, 6, 'x')`)
	must(t, s, `ALTER TABLE t ADD COLUMN c integer`)
	must(t, s, `INSERT INTO t VALUES (2, 7, 'y', 8)`)
	must(t, s, `CALL lakepg.expire_snapshots(older_than => now())`)
	must(t, s, `ALTER TABLE t RENAME COLUMN a TO a2`)
	must(t, s, `SELECT * FROM t ORDER BY id`, "1|6|x|NULL", "2|7|y|8")
}

// TestCommitRefusedWhenStagedFileIsGone: a file the block wrote that disappeared before
// COMMIT (an orphan sweep by another process) makes COMMIT fail with 58P01 and commit
// nothing, instead of acknowledging rows nobody can read.
func TestCommitRefusedWhenStagedFileIsGone(t *testing.T) {
	s := lake(t)
	must(t, s, `CREATE TABLE t (x integer)`)
	must(t, s, `BEGIN`)
	must(t, s, `INSERT INTO t SELECT g FROM generate_series(1, 3000) g`)
	ctx := context.Background()
	staged := s.txn.c.Kept()
	if len(staged) != 1 {
		t.Fatalf("staged files %q, want one", staged)
	}
	if err := s.eng.Store.Delete(ctx, staged[0]); err != nil {
		t.Fatal(err)
	}
	mustFail(t, s, `COMMIT`, "58P01")
	must(t, s, `SELECT count(*) FROM t`, "0")
	must(t, s, `INSERT INTO t VALUES (1)`)
	must(t, s, `SELECT count(*) FROM t`, "1")
}

// TestFlushAfterColumnRename: flushing inlined rows to Parquet maps their columns through
// the layout the inlined-data table was written with, also when a column was renamed and
// the snapshots of that layout expired since.
func TestFlushAfterColumnRename(t *testing.T) {
	s := lake(t)
	must(t, s, `CREATE TABLE t (id bigint, a integer, b text)`)
	must(t, s, `INSERT INTO t VALUES (1, 6, 'x'), (2, 7, 'y')`)
	must(t, s, `ALTER TABLE t RENAME COLUMN b TO c`)
	must(t, s, `INSERT INTO t VALUES (3, 8, 'z')`)
	must(t, s, `CALL lakepg.expire_snapshots(older_than => now())`)
	must(t, s, `ALTER TABLE t RENAME COLUMN c TO d`)
	must(t, s, `CALL lakepg.flush_inlined_data()`)
	must(t, s, `SELECT * FROM t ORDER BY id`, "1|6|x", "2|7|y", "3|8|z")
}
