package sql

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/catalog/catalogtest"
)

// lakeOn is lake on a SQLite catalog or, for "postgres", on a schema of
// the test PostgreSQL server (skipped without LAKEPG_TEST_PG_DSN).
func lakeOn(t *testing.T, backend string) *Session {
	t.Helper()
	if backend == "sqlite" {
		return lake(t)
	}
	admin := catalogtest.PostgresDSN(t)
	if admin == "" {
		t.Skip("LAKEPG_TEST_PG_DSN is not set")
	}
	schema := catalogtest.NewSchema(t, admin)
	ctx := context.Background()
	db, err := catalog.OpenWithOptions(ctx, admin, filepath.Join(t.TempDir(), "data")+"/", catalog.Options{Schema: schema})
	if err != nil {
		t.Fatal(err)
	}
	return sessionOn(t, db) // sql_test.go
}

// eachCatalog runs f on a SQLite and a PostgreSQL catalog.
func eachCatalog(t *testing.T, f func(t *testing.T, s *Session)) {
	for _, b := range []string{"sqlite", "postgres"} {
		t.Run(b, func(t *testing.T) { f(t, lakeOn(t, b)) })
	}
}

func tagIs(t *testing.T, s *Session, q, want string) {
	t.Helper()
	_, tag, err := run(t, s, q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	if tag != want {
		t.Fatalf("%s: tag %q, want %q", q, tag, want)
	}
}

func TestOnConflictBasics(t *testing.T) { eachCatalog(t, testOnConflictBasics) }

func testOnConflictBasics(t *testing.T, s *Session) {
	must(t, s, `CREATE TABLE kv (k int PRIMARY KEY, v text, n int DEFAULT 0)`)
	tagIs(t, s, `INSERT INTO kv VALUES (1, 'a'), (2, 'b') ON CONFLICT DO NOTHING`, "INSERT 0 2")
	tagIs(t, s, `INSERT INTO kv VALUES (1, 'x'), (3, 'c'), (3, 'd') ON CONFLICT DO NOTHING`, "INSERT 0 1")
	must(t, s, `SELECT k, v FROM kv ORDER BY k`, "1|a", "2|b", "3|c")
	tagIs(t, s, `INSERT INTO kv VALUES (1, 'A'), (4, 'D') ON CONFLICT (k) DO UPDATE SET v = excluded.v, n = kv.n + 1`, "INSERT 0 2")
	must(t, s, `SELECT k, v, n FROM kv ORDER BY k`, "1|A|1", "2|b|0", "3|c|0", "4|D|0")
	mustFail(t, s, `INSERT INTO kv VALUES (1, 'A'), (1, 'B') ON CONFLICT (k) DO UPDATE SET v = excluded.v`, "21000")
	mustFail(t, s, `INSERT INTO kv VALUES (5, 'A'), (5, 'B') ON CONFLICT (k) DO UPDATE SET v = excluded.v`, "21000")
	mustFail(t, s, `INSERT INTO kv VALUES (1, 'A') ON CONFLICT (v) DO NOTHING`, "42P10")
	mustFail(t, s, `INSERT INTO kv VALUES (1, 'A') ON CONFLICT DO UPDATE SET v = 'x'`, "42601")
	must(t, s, `INSERT INTO kv AS t VALUES (2, 'B'), (6, 'F') ON CONFLICT ON CONSTRAINT kv_pkey DO UPDATE SET v = t.v || excluded.v WHERE t.k > 1 RETURNING k, v`, "2|bB", "6|F")
	must(t, s, `INSERT INTO kv VALUES (1, 'Z') ON CONFLICT (k) DO UPDATE SET v = excluded.v WHERE kv.v = 'nope' RETURNING *`)
	must(t, s, `SELECT k, v, n FROM kv ORDER BY k`, "1|A|1", "2|bB|0", "3|c|0", "4|D|0", "6|F|0")
	must(t, s, `BEGIN`)
	tagIs(t, s, `INSERT INTO kv VALUES (7, 'g') ON CONFLICT DO NOTHING`, "INSERT 0 1")
	tagIs(t, s, `INSERT INTO kv VALUES (7, 'G'), (8, 'h') ON CONFLICT (k) DO UPDATE SET v = excluded.v`, "INSERT 0 2")
	must(t, s, `SELECT k, v FROM kv WHERE k >= 7 ORDER BY k`, "7|G", "8|h")
	must(t, s, `COMMIT`)
	must(t, s, `SELECT k, v FROM kv WHERE k >= 7 ORDER BY k`, "7|G", "8|h")
	must(t, s, `CREATE TEMP TABLE tmp (k int, v text)`)
	mustFail(t, s, `INSERT INTO tmp VALUES (1, 'a') ON CONFLICT DO NOTHING`, "0A000")
}

// A 100k-row upsert into a 1M-row table probes only the files whose key
// range holds a proposed key and updates only the file the conflicts are in.
func TestOnConflictSetWise(t *testing.T) {
	s := lake(t)
	must(t, s, `CREATE TABLE big (id bigint PRIMARY KEY, v bigint, pad text)`)
	for f := 0; f < 10; f++ {
		lo := f * 100000
		must(t, s, fmt.Sprintf(`INSERT INTO big SELECT g, 0, 'row ' || g FROM generate_series(%d, %d) g`, lo, lo+99999))
	}
	// 50k keys of the fourth file, 50k new ones past every file
	start := time.Now()
	tagIs(t, s, `INSERT INTO big SELECT g, 1, 'new' FROM generate_series(350000, 449999) g
		UNION ALL SELECT g, 1, 'new' FROM generate_series(2000000, 2049999) g
		ON CONFLICT (id) DO UPDATE SET v = big.v + excluded.v`, "INSERT 0 150000")
	t.Logf("upsert of 150000 rows (100000 conflicting) into 1000000: %v", time.Since(start))
	if st := s.conflictStats; st.FilesRead != 2 || st.FilesPruned != 8 || st.Conflicts != 100000 || st.UpdateFiles != 2 {
		t.Fatalf("probe read %d files, pruned %d, %d conflicts, update read %d files", st.FilesRead, st.FilesPruned, st.Conflicts, st.UpdateFiles)
	}
	must(t, s, `SELECT count(*), sum(v), count(*) FILTER (WHERE pad = 'new') FROM big`, "1050000|150000|50000")
	start = time.Now()
	tagIs(t, s, `INSERT INTO big SELECT g, 5, 'again' FROM generate_series(2000000, 2099999) g ON CONFLICT DO NOTHING`, "INSERT 0 50000")
	t.Logf("DO NOTHING of 100000 rows (50000 conflicting): %v", time.Since(start))
	if st := s.conflictStats; st.FilesRead != 1 || st.FilesPruned != 11 {
		t.Fatalf("DO NOTHING probe read %d files, pruned %d", st.FilesRead, st.FilesPruned)
	}
	must(t, s, `SELECT count(*), sum(v) FROM big`, "1100000|400000")
}

// Two sessions upserting the same new key: one commits, the other gets
// 40001; the same for an existing key both update.
func TestOnConflictConcurrent(t *testing.T) { eachCatalog(t, testOnConflictConcurrent) }

func testOnConflictConcurrent(t *testing.T, a *Session) {
	b, err := a.eng.NewSession("test", "lake", map[string]string{"TimeZone": "UTC"})
	if err != nil {
		t.Fatal(err)
	}
	must(t, a, `CREATE TABLE kv (k int PRIMARY KEY, v text)`)
	must(t, a, `INSERT INTO kv VALUES (1, 'one')`)
	must(t, a, `BEGIN`)
	tagIs(t, a, `INSERT INTO kv VALUES (2, 'a') ON CONFLICT (k) DO UPDATE SET v = excluded.v`, "INSERT 0 1")
	tagIs(t, b, `INSERT INTO kv VALUES (2, 'b') ON CONFLICT (k) DO UPDATE SET v = excluded.v`, "INSERT 0 1")
	mustFail(t, a, `COMMIT`, "40001")
	must(t, a, `SELECT k, v FROM kv ORDER BY k`, "1|one", "2|b")

	must(t, a, `BEGIN`)
	tagIs(t, a, `INSERT INTO kv VALUES (1, 'a') ON CONFLICT (k) DO UPDATE SET v = excluded.v`, "INSERT 0 1")
	tagIs(t, b, `INSERT INTO kv VALUES (1, 'b') ON CONFLICT (k) DO UPDATE SET v = v || excluded.v`, "INSERT 0 1")
	mustFail(t, a, `COMMIT`, "40001")
	must(t, a, `SELECT k, v FROM kv ORDER BY k`, "1|oneb", "2|b")
}

// Parameters in ON CONFLICT's SET and WHERE and in MERGE take their types
// from where they are used.
func TestOnConflictParameters(t *testing.T) {
	s := lake(t)
	must(t, s, `CREATE TABLE kv (k int PRIMARY KEY, v text, n int)`)
	for i := 0; i < 2; i++ {
		if _, _, err := run(t, s, `INSERT INTO kv VALUES ($1, $2, 0) ON CONFLICT (k) DO UPDATE SET v = $3, n = kv.n + $4 WHERE kv.n < $4 RETURNING n`, "1", "a", "b", "5"); err != nil {
			t.Fatal(err)
		}
	}
	must(t, s, `SELECT k, v, n FROM kv`, "1|b|5")
	if _, _, err := run(t, s, `MERGE INTO kv USING (SELECT $1::int AS k) s ON kv.k = s.k WHEN MATCHED THEN UPDATE SET n = $2 WHEN NOT MATCHED THEN INSERT VALUES (s.k, $3, $2)`, "1", "9", "x"); err != nil {
		t.Fatal(err)
	}
	must(t, s, `SELECT k, v, n FROM kv`, "1|b|9")
}

// A small upsert in autocommit keeps its new rows inlined in the catalog,
// as a small INSERT does.
func TestOnConflictInlines(t *testing.T) {
	s := lake(t)
	must(t, s, `CREATE TABLE kv (k int PRIMARY KEY, v text)`)
	tagIs(t, s, `INSERT INTO kv VALUES (1, 'a'), (2, 'b') ON CONFLICT DO NOTHING`, "INSERT 0 2")
	tagIs(t, s, `INSERT INTO kv VALUES (2, 'x'), (3, 'c') ON CONFLICT (k) DO NOTHING`, "INSERT 0 1")
	if files := dataFiles(t, s); len(files) != 0 {
		t.Fatalf("small upserts wrote %v", files)
	}
	tagIs(t, s, `INSERT INTO kv VALUES (3, 'C'), (4, 'd') ON CONFLICT (k) DO UPDATE SET v = excluded.v`, "INSERT 0 2")
	must(t, s, `SELECT k, v FROM kv ORDER BY k`, "1|a", "2|b", "3|C", "4|d")
	tagIs(t, s, `INSERT INTO kv VALUES (4, 'D'), (5, 'e') ON CONFLICT (k) DO UPDATE SET v = excluded.v`, "INSERT 0 2")
	must(t, s, `SELECT k, v FROM kv ORDER BY k`, "1|a", "2|b", "3|C", "4|D", "5|e")
	mustFail(t, s, `INSERT INTO kv VALUES (5, 'x') ON CONFLICT (k) DO UPDATE SET k = 1`, "23505")
	mustFail(t, s, `INSERT INTO kv VALUES (6, 'x'), (7, 'y') ON CONFLICT (v) DO NOTHING`, "42P10")
}
