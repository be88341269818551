package sql

import (
	"testing"

	"github.com/lakepg/lakepg/exec/exectest"
	"github.com/lakepg/lakepg/exec/memory"
	"github.com/lakepg/lakepg/pgerr"
)

// TestTempTablesArePrivate: another session neither sees a session's
// temporary table nor its schema in the catalogs, has its own of the same
// name, and nothing reaches the lake's catalog (no snapshot is made).
func TestTempTablesArePrivate(t *testing.T) {
	s := setup(t)
	other, err := s.eng.NewSession("other", "lake", map[string]string{"TimeZone": "UTC"})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	snaps, _, err := run(t, s, `SELECT count(*) FROM lakepg.snapshots`)
	if err != nil {
		t.Fatal(err)
	}
	must(t, s, `CREATE TEMP TABLE tmp (a int, b text)`)
	must(t, s, `INSERT INTO tmp VALUES (1, 'mine')`)
	must(t, s, `UPDATE tmp SET b = b || '!'`)
	mustFail(t, other, `SELECT * FROM tmp`, pgerr.UndefinedTable)
	must(t, other, `SELECT count(*) FROM pg_class WHERE relname = 'tmp'`, "0")
	must(t, other, `SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'pg_temp%'`, "0")
	must(t, other, `SELECT pg_my_temp_schema()`, "0")
	must(t, other, `CREATE TEMP TABLE tmp (a int, b text)`)
	must(t, other, `INSERT INTO tmp VALUES (2, 'theirs'), (3, 'theirs')`)
	must(t, s, `SELECT a, b FROM tmp`, "1|mine!")
	must(t, other, `SELECT a, b FROM tmp ORDER BY a`, "2|theirs", "3|theirs")
	// each sees its own schema, and the other's as another session's
	must(t, s, `SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'pg_temp%'`, "1")
	mine, _, err := run(t, s, `SELECT pg_my_temp_schema()::bigint`)
	if err != nil {
		t.Fatal(err)
	}
	must(t, other, `SELECT pg_is_other_temp_schema(`+mine[0]+`), pg_is_other_temp_schema(pg_my_temp_schema()), pg_is_other_temp_schema(2200)`, "t|f|f")
	// the lake's catalog saw nothing
	must(t, other, `SELECT count(*) FROM lakepg.snapshots`, snaps...)
	must(t, other, `SELECT count(*) FROM information_schema.tables WHERE table_schema NOT IN ('pg_catalog', 'information_schema') AND table_name = 'tmp'`, "1")
	must(t, s, `SELECT count(*) FROM lakepg.snapshots`, snaps...)
	other.Close()
	// the other session's table went with it; ours stays
	must(t, s, `SELECT a FROM tmp`, "1")
}

// TestTempTablesLakePathsRefuse: lake-only statements reached with a
// temporary table answer an error with a SQLSTATE, never a panic.
func TestTempTablesLakePathsRefuse(t *testing.T) {
	s := setup(t)
	must(t, s, `CREATE TEMP TABLE tmp (a int)`)
	mustFail(t, s, `ALTER TABLE tmp ALTER COLUMN a TYPE bigint`, pgerr.FeatureNotSupported)
	mustFail(t, s, `ALTER TABLE tmp DROP COLUMN a`, pgerr.FeatureNotSupported)
	mustFail(t, s, `SELECT * FROM lakepg.at_version('tmp', 1)`, pgerr.FeatureNotSupported)
	mustFail(t, s, `SELECT * FROM lakepg.table_changes('tmp', 0, 1)`, pgerr.FeatureNotSupported)
	mustFail(t, s, `CALL lakepg.merge_adjacent_files('tmp')`, pgerr.FeatureNotSupported)
	mustFail(t, s, `CREATE VIEW v AS SELECT * FROM tmp`, pgerr.FeatureNotSupported)
	mustFail(t, s, `CREATE TEMP TABLE bad (a int) ; CREATE TEMP TABLE public.bad2 (a int)`, pgerr.InvalidTableDefinition)
	mustFail(t, s, `DROP TABLE tmp, t`, pgerr.FeatureNotSupported)
	// the lake table t is still there, and a lake table can take the
	// temporary table's name (the temporary one shadows it)
	must(t, s, `SELECT count(*) FROM t`, "4")
	must(t, s, `CREATE TABLE tmp (z text)`)
	must(t, s, `INSERT INTO public.tmp VALUES ('lake')`)
	must(t, s, `INSERT INTO tmp VALUES (5)`)
	must(t, s, `SELECT * FROM tmp`, "5")
	must(t, s, `SELECT * FROM public.tmp`, "lake")
	must(t, s, `EXPLAIN SELECT * FROM tmp`, "Temp Scan on pg_temp.tmp", "  Rows: 1 estimated (temporary table rows)")
}

// TestTempTablesDiscardAndMemory: DISCARD TEMP, DISCARD ALL, ROLLBACK and
// the end of the session give the rows' memory back.
func TestTempTablesDiscardAndMemory(t *testing.T) {
	s := setup(t)
	must(t, s, `CREATE TEMP TABLE a AS SELECT g AS x, repeat('x', 100) AS pad FROM generate_series(1, 10000) g`)
	used := s.TempMemoryUsed()
	if used < 10000*100 {
		t.Fatalf("10000 rows of 100 bytes charged %d bytes", used)
	}
	must(t, s, `BEGIN`)
	must(t, s, `INSERT INTO a SELECT * FROM a`)
	must(t, s, `DELETE FROM a WHERE x < 5000`)
	if s.TempMemoryUsed() <= used {
		t.Fatalf("inside the block %d bytes, before %d", s.TempMemoryUsed(), used)
	}
	must(t, s, `ROLLBACK`)
	if got := s.TempMemoryUsed(); got != used {
		t.Fatalf("after ROLLBACK %d bytes, before the block %d", got, used)
	}
	must(t, s, `SELECT count(*) FROM a`, "10000")
	must(t, s, `DISCARD TEMP`)
	if got := s.TempMemoryUsed(); got != 0 {
		t.Fatalf("after DISCARD TEMP %d bytes", got)
	}
	mustFail(t, s, `SELECT * FROM a`, pgerr.UndefinedTable)
	must(t, s, `CREATE TEMP TABLE b AS SELECT g FROM generate_series(1, 1000) g`)
	must(t, s, `DISCARD ALL`)
	mustFail(t, s, `SELECT * FROM b`, pgerr.UndefinedTable)
	if got := s.TempMemoryUsed(); got != 0 {
		t.Fatalf("after DISCARD ALL %d bytes", got)
	}
	must(t, s, `CREATE TEMP TABLE c AS SELECT g FROM generate_series(1, 1000) g`)
	pool := memory.GlobalMemory.Used()
	s.Close()
	if got := memory.GlobalMemory.Used(); got >= pool || s.TempMemoryUsed() != 0 {
		t.Fatalf("closing the session left %d bytes (pool %d → %d)", s.TempMemoryUsed(), pool, got)
	}
}

// TestTempTableSpills: a temporary table that outgrows the memory budget
// keeps its chunks that did not fit in files of the temp space, read back
// by scans, UPDATE and DELETE like the others; the files live as long as a
// table version needs them (ROLLBACK keeps them, DROP, DISCARD and the
// session's end remove them); only temp space running out fails, with
// 53200, leaving the table as it was.
func TestTempTableSpills(t *testing.T) {
	sp := exectest.UseSpill(t, 0)
	s := setup(t)
	old := memory.GlobalMemory.Limit()
	memory.GlobalMemory.SetLimit(memory.GlobalMemory.Used() + 8<<20)
	defer memory.GlobalMemory.SetLimit(old)
	files := func() int { return exectest.SpillFilesLeft(t, sp) }
	must(t, s, `CREATE TEMP TABLE big (x bigint, s text)`)
	must(t, s, `INSERT INTO big SELECT g, 'row' FROM generate_series(1, 1000) g`)
	must(t, s, `INSERT INTO big SELECT g, repeat('y', 100) FROM generate_series(1, 300000) g`)
	if files() == 0 {
		t.Fatal("300,000 rows of 100 bytes under 8 MiB: no file")
	}
	if used := s.TempMemoryUsed(); used > 8<<20 {
		t.Fatalf("the table holds %d bytes of memory", used)
	}
	must(t, s, `SELECT count(*), sum(x), sum(length(s)) FROM big`, "301000|45000650500|30003000")
	must(t, s, `BEGIN`)
	must(t, s, `DELETE FROM big WHERE x % 3 = 0`)
	must(t, s, `UPDATE big SET s = 'z' WHERE x % 3 = 1`)
	must(t, s, `SELECT count(*), sum(length(s)) FROM big`, "200667|10101333")
	must(t, s, `ROLLBACK`)
	must(t, s, `SELECT count(*), sum(x), sum(length(s)) FROM big`, "301000|45000650500|30003000")
	must(t, s, `DELETE FROM big WHERE x % 3 = 0`)
	must(t, s, `SELECT count(*), min(x), max(x) FROM big WHERE length(s) = 100`, "200000|1|299999")
	must(t, s, `CREATE TEMP TABLE copy AS SELECT * FROM big`)
	must(t, s, `SELECT count(*) FROM copy c JOIN big b ON b.x = c.x AND b.s = c.s`, "200667")
	must(t, s, `DROP TABLE big`)
	must(t, s, `DISCARD TEMP`)
	if n := files(); n != 0 || sp.Used() != 0 {
		t.Fatalf("after DROP and DISCARD: %d files, %d bytes of temp space", n, sp.Used())
	}
	must(t, s, `CREATE TEMP TABLE again AS SELECT g AS x, repeat('y', 100) AS s FROM generate_series(1, 200000) g`)
	if files() == 0 {
		t.Fatal("no file")
	}
	s.Close()
	if n := files(); n != 0 || sp.Used() != 0 {
		t.Fatalf("after the session's end: %d files, %d bytes of temp space", n, sp.Used())
	}
	// with 1 MiB of temp space the insert fails, and the table is as it was
	exectest.UseSpill(t, 1<<20)
	s = setup(t)
	must(t, s, `CREATE TEMP TABLE big (x bigint, s text)`)
	must(t, s, `INSERT INTO big SELECT g, 'row' FROM generate_series(1, 1000) g`)
	mustFail(t, s, `INSERT INTO big SELECT g, repeat('y', 100) FROM generate_series(1, 1000000) g`, memory.OutOfMemory)
	must(t, s, `SELECT count(*) FROM big`, "1000")
}

// TestTempTableMillionRows: a temporary table of a million rows, joined with
// a lake table and changed set-wise.
func TestTempTableMillionRows(t *testing.T) {
	s := setup(t)
	must(t, s, `CREATE TABLE dim (k int, name text)`)
	must(t, s, `INSERT INTO dim SELECT g, 'n' || g FROM generate_series(0, 99) g`)
	must(t, s, `CREATE TEMP TABLE facts (id bigint, k int, amount double precision)`)
	must(t, s, `INSERT INTO facts SELECT g, (g % 100)::int, g * 0.5 FROM generate_series(1, 1000000) g`)
	must(t, s, `SELECT count(*), sum(id) FROM facts`, "1000000|500000500000")
	must(t, s, `SELECT d.name, count(*) FROM facts f JOIN dim d ON d.k = f.k WHERE d.k IN (1, 42) GROUP BY d.name ORDER BY 1`, "n1|10000", "n42|10000")
	must(t, s, `DELETE FROM facts WHERE k >= 50`)
	must(t, s, `SELECT count(*) FROM facts`, "500000")
	must(t, s, `UPDATE facts SET amount = -1 FROM dim WHERE dim.k = facts.k AND dim.name = 'n7'`)
	must(t, s, `SELECT count(*) FROM facts WHERE amount = -1`, "10000")
	must(t, s, `INSERT INTO dim SELECT DISTINCT k + 1000, 'copied' FROM facts`)
	must(t, s, `SELECT count(*) FROM dim WHERE name = 'copied'`, "50")
	must(t, s, `DROP TABLE facts`)
	if got := s.TempMemoryUsed(); got != 0 {
		t.Fatalf("after DROP %d bytes", got)
	}
}
