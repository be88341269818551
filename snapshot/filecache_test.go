package snapshot

import (
	"reflect"
	"testing"

	"github.com/lakepg/lakepg/catalog"
)

// TestFileListCache: a table's file list read at one snapshot serves later
// snapshots whose commits (from any handle, as from another server) left the
// table alone, equal to what a fresh read returns; a commit into the table,
// a change kind lakepg does not know, or an older snapshot reads the catalog.
func TestFileListCache(t *testing.T) { eachBackend(t, testFileListCache) }

func testFileListCache(t *testing.T, be backend) {
	e := newEnv(t, be)
	m := twoTables(t, e)
	a, _ := m.TableByName(0, "a")
	b, _ := m.TableByName(0, "b")
	mainS, _ := m.SchemaByName("main")
	stats := catalog.ReadFileCacheStats

	files := func(db *catalog.DB, snap catalog.Snapshot) []catalog.DataFile {
		t.Helper()
		fs, err := db.Files(e.ctx, mainS, a, snap)
		if err != nil {
			t.Fatal(err)
		}
		return fs
	}
	// fresh is the list a handle without a cache reads
	fresh := func(snap catalog.Snapshot) []catalog.DataFile {
		t.Helper()
		return files(e.open(), snap)
	}
	expect := func(what string, snap catalog.Snapshot, hit bool, n int) {
		t.Helper()
		before := stats()
		got := files(e.db, snap)
		after := stats()
		if gotHit := after.Hits-before.Hits == 1 && after.Loads == before.Loads; gotHit != hit {
			t.Errorf("%s: served from the cache %v, want %v (%+v -> %+v)", what, gotHit, hit, before, after)
		}
		if len(got) != n {
			t.Fatalf("%s: %d files, want %d", what, len(got), n)
		}
		if want := fresh(snap); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: cached list\n%+v\nfresh read\n%+v", what, got, want)
		}
	}

	c := Begin(e.db, m.Snapshot, m)
	c.AddDataFile(*a, file("a1.parquet", 3))
	s1 := e.commit(c)
	expect("first read", e.head(), false, 1)
	expect("same snapshot", e.head(), true, 1)

	// another handle inserts into b, creates a table: a is left alone
	c = Begin(e.open(), s1, m)
	c.AddDataFile(*b, file("b1.parquet", 4))
	s2 := e.commit(c)
	c = Begin(e.open(), s2, m)
	c.CreateTable(*mainS, "c", []ColumnDef{{Name: "v", Type: "int64", NullsAllowed: true}})
	s3 := e.commit(c)
	expect("after commits to other tables", e.head(), true, 1)

	// another handle inserts into a: read again
	c = Begin(e.open(), s3, e.load(s3))
	c.AddDataFile(*a, file("a2.parquet", 5))
	s4 := e.commit(c)
	expect("after an insert into the table", e.head(), false, 2)

	// an older snapshot is read from the catalog and leaves the newer list
	expect("time travel", e.at(s1.ID), false, 1)
	expect("back at the head", e.at(s4.ID), true, 2)

	// a change kind lakepg does not know counts as a change of every table
	c = Begin(e.open(), s4, e.load(s4))
	c.AddDataFile(*b, file("b2.parquet", 6))
	s5 := e.commit(c)
	e.exec(`UPDATE ducklake_snapshot_changes SET changes_made = 'rewritten_everything:1' WHERE snapshot_id = ?`, s5.ID)
	expect("after an unknown change", e.at(s5.ID), false, 2)
}
