package snapshot

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/lakepg/lakepg/catalog"
)

// twoTables creates main.a and main.b (ids 2 and 3) with one int64 column.
func twoTables(t *testing.T, e *env) *catalog.Metadata {
	t.Helper()
	c, m := e.begin()
	mainS, _ := m.SchemaByName("main")
	c.CreateTable(*mainS, "a", []ColumnDef{{Name: "v", Type: "int64", NullsAllowed: true}})
	c.CreateTable(*mainS, "b", []ColumnDef{{Name: "v", Type: "int64", NullsAllowed: true}})
	return e.load(e.commit(c))
}

func file(name string, n int64) NewDataFile {
	return NewDataFile{RelPath: name, RecordCount: n, FileSize: 100 * n, FooterSize: 10,
		Stats: []catalog.ColumnStats{intStats(1, "1", fmt.Sprint(n), n, 0)}}
}

func TestConcurrentInsertsDifferentTables(t *testing.T) {
	eachBackend(t, testConcurrentInsertsDifferentTables)
}

func testConcurrentInsertsDifferentTables(t *testing.T, be backend) {
	e := newEnv(t, be)
	m := twoTables(t, e)
	base := m.Snapshot
	a, _ := m.TableByName(0, "a")
	b, _ := m.TableByName(0, "b")

	// Two writers from the same base; the second finds the head moved, sees
	// only an insert into another table, and builds on the new head.
	c1 := Begin(e.db, base, m)
	c1.AddDataFile(*a, file("a1.parquet", 3))
	c2 := Begin(e.open(), base, m)
	c2.AddDataFile(*b, file("b1.parquet", 4))
	c2.AddDataFile(*b, file("b2.parquet", 5))
	s1 := e.commit(c1)
	s2, err := c2.Commit(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if s1.ID != base.ID+1 || s2.ID != base.ID+2 {
		t.Errorf("snapshot ids %d %d (base %d)", s1.ID, s2.ID, base.ID)
	}
	if s1.NextFileID != 1 || s2.NextFileID != 3 {
		t.Errorf("next_file_id %d %d", s1.NextFileID, s2.NextFileID)
	}
	e.expectRows(`SELECT data_file_id, table_id, begin_snapshot, path, row_id_start FROM ducklake_data_file ORDER BY data_file_id`,
		"0|2|2|a1.parquet|0", "1|3|3|b1.parquet|0", "2|3|3|b2.parquet|4")
	e.expectRows(`SELECT * FROM ducklake_table_stats ORDER BY table_id`, "2|3|3|300", "3|9|9|900")
	e.expectRows(`SELECT changes_made FROM ducklake_snapshot_changes WHERE snapshot_id > 1 ORDER BY snapshot_id`,
		"inserted_into_table:2", "inserted_into_table:3")

	// Two inserts into the same table also combine; row ids continue.
	m = e.load(e.head())
	a, _ = m.TableByName(0, "a")
	c3 := Begin(e.db, m.Snapshot, m)
	c3.AddDataFile(*a, file("a2.parquet", 2))
	c4 := Begin(e.db, m.Snapshot, m)
	c4.AddDataFile(*a, file("a3.parquet", 7))
	e.commit(c3)
	e.commit(c4)
	e.expectRows(`SELECT data_file_id, path, row_id_start FROM ducklake_data_file WHERE table_id = 2 ORDER BY data_file_id`,
		"0|a1.parquet|0", "3|a2.parquet|3", "4|a3.parquet|5")
	e.expectRows(`SELECT table_id, record_count, next_row_id FROM ducklake_table_stats WHERE table_id = 2`, "2|12|12")
	e.expectRows(`SELECT min_value, max_value FROM ducklake_table_column_stats WHERE table_id = 2`, "1|7")
}

func TestConcurrentDropsConflict(t *testing.T) { eachBackend(t, testConcurrentDropsConflict) }

func testConcurrentDropsConflict(t *testing.T, be backend) {
	e := newEnv(t, be)
	m := twoTables(t, e)
	mainS, _ := m.SchemaByName("main")
	a, _ := m.TableByName(0, "a")
	c1 := Begin(e.db, m.Snapshot, m)
	c1.DropTable(*mainS, *a)
	c2 := Begin(e.open(), m.Snapshot, m)
	c2.DropTable(*mainS, *a)
	e.commit(c1)
	_, err := c2.Commit(e.ctx)
	if !errors.Is(err, ErrConflict) {
		t.Fatalf("second drop: %v", err)
	}
	if h := e.head(); h.ID != m.Snapshot.ID+1 {
		t.Errorf("head %d after a failed commit", h.ID)
	}
}

// TestConcurrentGoroutines races writers on separate handles (as separate
// processes would be): inserts into different tables all land, each in its
// own snapshot; of several drops of one table exactly one wins.
func TestConcurrentGoroutines(t *testing.T) { eachBackend(t, testConcurrentGoroutines) }

func testConcurrentGoroutines(t *testing.T, be backend) {
	e := newEnv(t, be)
	m := twoTables(t, e)
	a, _ := m.TableByName(0, "a")
	b, _ := m.TableByName(0, "b")
	mainS, _ := m.SchemaByName("main")
	const n = 4
	var wg sync.WaitGroup
	errs := make([]error, 2*n)
	ids := make([]int64, 2*n)
	for i := 0; i < 2*n; i++ {
		db := e.open()
		tb := a
		if i%2 == 1 {
			tb = b
		}
		c := Begin(db, m.Snapshot, m)
		c.AddDataFile(*tb, file(fmt.Sprintf("f%d.parquet", i), int64(i+1)))
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			s, err := c.Commit(e.ctx)
			errs[i], ids[i] = err, s.ID
		}(i)
	}
	wg.Wait()
	seen := map[int64]bool{}
	for i, err := range errs {
		if err != nil {
			t.Fatalf("writer %d: %v", i, err)
		}
		if seen[ids[i]] {
			t.Errorf("snapshot %d used twice", ids[i])
		}
		seen[ids[i]] = true
	}
	e.expectRows(`SELECT COUNT(*), COUNT(DISTINCT data_file_id), SUM(record_count) FROM ducklake_data_file`, "8|8|36")
	e.expectRows(`SELECT SUM(record_count), SUM(next_row_id) FROM ducklake_table_stats`, "36|36")

	m = e.load(e.head())
	a, _ = m.TableByName(0, "a")
	var won, lost int
	var mu sync.Mutex
	for i := 0; i < n; i++ {
		c := Begin(e.open(), m.Snapshot, m)
		c.DropTable(*mainS, *a)
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := c.Commit(e.ctx)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				won++
			case errors.Is(err, ErrConflict):
				lost++
			default:
				t.Errorf("drop: %v", err)
			}
		}()
	}
	wg.Wait()
	if won != 1 || lost != n-1 {
		t.Errorf("drops: %d won, %d lost", won, lost)
	}
}

func TestConflictRules(t *testing.T) { eachBackend(t, testConflictRules) }

func testConflictRules(t *testing.T, be backend) {
	type step func(c *Commit, m *catalog.Metadata)
	mainOf := func(m *catalog.Metadata) catalog.Schema { s, _ := m.SchemaByName("main"); return *s }
	tbl := func(m *catalog.Metadata, name string) catalog.Table { tb, _ := m.TableByName(0, name); return *tb }
	insertA := func(c *Commit, m *catalog.Metadata) { c.AddDataFile(tbl(m, "a"), file("x.parquet", 1)) }
	insertB := func(c *Commit, m *catalog.Metadata) { c.AddDataFile(tbl(m, "b"), file("y.parquet", 1)) }
	alterA := func(c *Commit, m *catalog.Metadata) {
		c.AddColumn(tbl(m, "a"), ColumnDef{Name: "w", Type: "int32", NullsAllowed: true})
	}
	dropA := func(c *Commit, m *catalog.Metadata) { c.DropTable(mainOf(m), tbl(m, "a")) }
	createT := func(c *Commit, m *catalog.Metadata) {
		c.CreateTable(mainOf(m), "T", []ColumnDef{{Name: "v", Type: "int32", NullsAllowed: true}})
	}
	createS := func(c *Commit, m *catalog.Metadata) { c.CreateSchema("s2") }
	renameBtoT := func(c *Commit, m *catalog.Metadata) { c.RenameTable(mainOf(m), tbl(m, "b"), "T") }
	renameAtoU := func(c *Commit, m *catalog.Metadata) { c.RenameTable(mainOf(m), tbl(m, "a"), "u") }
	renameAtoV := func(c *Commit, m *catalog.Metadata) { c.RenameTable(mainOf(m), tbl(m, "a"), "v") }
	deleteA := func(c *Commit, m *catalog.Metadata) {
		files, err := c.db.Files(ctx(), ptr(mainOf(m)), ptr(tbl(m, "a")), m.Snapshot)
		if err != nil || len(files) == 0 {
			panic(fmt.Sprint("no files ", err))
		}
		c.ReplaceDeleteFile(tbl(m, "a"), files[0], NewDeleteFile{RelPath: "del.parquet", DeleteCount: 1, FileSize: 10, FooterSize: 5})
	}
	for _, tc := range []struct {
		name     string
		first    step
		second   step
		conflict bool
	}{
		{"insert/insert other table", insertA, insertB, false},
		{"insert/insert same table", insertA, insertA, false},
		{"alter/insert", alterA, insertA, true},
		{"insert/alter", insertA, alterA, false},
		{"drop/insert", dropA, insertA, true},
		{"drop/alter", dropA, alterA, true},
		{"alter/alter", alterA, alterA, true},
		{"create/create same name", createT, createT, true},
		{"create schema twice", createS, createS, true},
		{"rename/create same name", renameBtoT, createT, true},
		{"rename/rename", renameAtoU, renameAtoV, true},
		{"insert/delete", insertA, deleteA, true},
		{"delete/insert", deleteA, insertA, true},
		{"delete/delete same file", deleteA, deleteA, true},
		{"delete/insert other table", deleteA, insertB, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, be)
			twoTables(t, e)
			c, m := e.begin()
			c.AddDataFile(tbl(m, "a"), file("seed.parquet", 5))
			e.commit(c)
			m = e.load(e.head())
			c1 := Begin(e.db, m.Snapshot, m)
			tc.first(c1, m)
			c2 := Begin(e.db, m.Snapshot, m)
			tc.second(c2, m)
			e.commit(c1)
			_, err := c2.Commit(e.ctx)
			t.Log(err)
			if tc.conflict && !errors.Is(err, ErrConflict) {
				t.Errorf("want a conflict, got %v", err)
			}
			if !tc.conflict && err != nil {
				t.Errorf("want success, got %v", err)
			}
		})
	}
}

func TestRetryAfterLostRace(t *testing.T) { eachBackend(t, testRetryAfterLostRace) }

func testRetryAfterLostRace(t *testing.T, be backend) {
	e := newEnv(t, be)
	m := twoTables(t, e)
	a, _ := m.TableByName(0, "a")
	c := Begin(e.db, m.Snapshot, m)
	c.AddDataFile(*a, file("a1.parquet", 3))
	var attempts []int
	// The first attempt fails as a PostgreSQL-backed commit does when
	// another writer took the snapshot id first, and that other writer's
	// insert into b really lands while we back off.
	other := Begin(e.open(), m.Snapshot, m)
	b, _ := m.TableByName(0, "b")
	other.AddDataFile(*b, file("b1.parquet", 1))
	otherDone := make(chan error, 1)
	c.beforeCommit = func(attempt int) error {
		attempts = append(attempts, attempt)
		if attempt == 0 {
			go func() { _, err := other.Commit(e.ctx); otherDone <- err }()
			return errors.New(`UNIQUE constraint failed: ducklake_snapshot.snapshot_id`)
		}
		return nil
	}
	s, err := c.Commit(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := <-otherDone; err != nil {
		t.Fatal(err)
	}
	if len(attempts) != 2 {
		t.Errorf("attempts %v", attempts)
	}
	h := e.head()
	if h.ID != m.Snapshot.ID+2 || (s.ID != h.ID && s.ID != h.ID-1) {
		t.Errorf("snapshot %d, head %d", s.ID, h.ID)
	}
	e.expectRows(`SELECT COUNT(DISTINCT data_file_id), COUNT(DISTINCT begin_snapshot) FROM ducklake_data_file`, "2|2")

	// A conflict is final: no retries.
	m = e.load(e.head())
	mainS, _ := m.SchemaByName("main")
	a, _ = m.TableByName(0, "a")
	d1 := Begin(e.db, m.Snapshot, m)
	d1.DropTable(*mainS, *a)
	d2 := Begin(e.db, m.Snapshot, m)
	d2.DropTable(*mainS, *a)
	n := 0
	d2.beforeCommit = func(int) error { n++; return nil }
	e.commit(d1)
	if _, err := d2.Commit(e.ctx); !errors.Is(err, ErrConflict) || n != 0 {
		t.Errorf("conflict: %v after %d attempts", err, n)
	}

	// Giving up after max retries reports a conflict too.
	m = e.load(e.head())
	b, _ = m.TableByName(0, "b")
	g := Begin(e.db, m.Snapshot, m)
	g.AddDataFile(*b, file("b9.parquet", 1))
	tries := 0
	g.beforeCommit = func(int) error { tries++; return errors.New("database is locked") }
	if _, err := g.Commit(e.ctx); !errors.Is(err, ErrConflict) || tries != maxRetries+1 {
		t.Errorf("exhausted retries: %v after %d tries", err, tries)
	}
	if h := e.head(); h.ID != m.Snapshot.ID {
		t.Errorf("failed attempts left snapshot %d behind", h.ID)
	}
}

// TestProvisionalIDs: a CREATE that loses the race gets its ids from the
// new head; the statement's provisional ids map through FinalID.
func TestProvisionalIDs(t *testing.T) { eachBackend(t, testProvisionalIDs) }

func testProvisionalIDs(t *testing.T, be backend) {
	e := newEnv(t, be)
	base := e.head()
	m := e.load(base)
	c1 := Begin(e.db, base, m)
	c1.CreateSchema("s1")
	c2 := Begin(e.db, base, m)
	sid := c2.CreateSchema("s2")
	tid := c2.CreateTable(catalog.Schema{ID: sid}, "t", []ColumnDef{{Name: "v", Type: "int32", NullsAllowed: true}})
	c2.AddDataFile(catalog.Table{ID: tid}, file("t1.parquet", 2)) // CTAS
	if sid != 2 || tid != 3 {
		t.Fatalf("provisional %d %d", sid, tid)
	}
	e.commit(c1)
	s := e.commit(c2)
	if c2.FinalID(sid) != 3 || c2.FinalID(tid) != 4 || c2.FinalID(0) != 0 {
		t.Errorf("final ids %d %d", c2.FinalID(sid), c2.FinalID(tid))
	}
	if s.NextCatalogID != 5 || s.SchemaVersion != 2 || s.Changes != `created_schema:"s2",created_table:"s2"."t",inserted_into_table:4` {
		t.Errorf("snapshot %+v", s)
	}
	e.expectRows(`SELECT table_id, schema_id, table_name FROM ducklake_table`, "4|3|t")
	e.expectRows(`SELECT data_file_id, table_id, row_id_start FROM ducklake_data_file`, "0|4|0")
	e.expectRows(`SELECT * FROM ducklake_table_stats`, "4|2|2|200")
	e.expectRows(`SELECT * FROM ducklake_table_column_stats`, "4|1|0|~|1|2|~")
	e.expectRows(`SELECT * FROM ducklake_schema_versions ORDER BY begin_snapshot`, "2|2|4")
}

func ctx() context.Context { return context.Background() }

func ptr[T any](v T) *T { return &v }
