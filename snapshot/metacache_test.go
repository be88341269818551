package snapshot

import (
	"reflect"
	"testing"

	"github.com/lakepg/lakepg/catalog"
)

// TestMetaCache: a catalog.MetaCache serves snapshots that only changed data from
// the metadata of their schema version (no catalog read), equal to what Load reads,
// and loads again after a schema change, whoever made it (here another handle on
// the catalog, as another server would).
func TestMetaCache(t *testing.T) { eachBackend(t, testMetaCache) }

func testMetaCache(t *testing.T, be backend) {
	e := newEnv(t, be)
	m := twoTables(t, e)
	mc := catalog.NewMetaCache(e.db)
	stats := func() catalog.MetaCacheStats { return catalog.ReadMetaCacheStats() }

	check := func(snap catalog.Snapshot) *catalog.Metadata {
		t.Helper()
		got, err := mc.Get(e.ctx, snap)
		if err != nil {
			t.Fatal(err)
		}
		if want := e.load(snap); !reflect.DeepEqual(got, want) {
			t.Fatalf("snapshot %d: cached metadata\n%+v\nLoad\n%+v", snap.ID, got, want)
		}
		return got
	}

	before := stats()
	check(m.Snapshot)
	if s := stats(); s.Loads-before.Loads != 1 || s.Bytes <= 0 {
		t.Fatalf("first Get: %+v, before %+v", s, before)
	}

	// inserts from this handle and another: same schema version, no load
	a, _ := m.TableByName(0, "a")
	c := Begin(e.db, m.Snapshot, m)
	c.AddDataFile(*a, file("a1.parquet", 3))
	s1 := e.commit(c)
	c = Begin(e.open(), s1, m)
	c.AddDataFile(*a, file("a2.parquet", 4))
	s2 := e.commit(c)
	if s2.SchemaVersion != m.Snapshot.SchemaVersion {
		t.Fatalf("an insert moved schema_version %d -> %d", m.Snapshot.SchemaVersion, s2.SchemaVersion)
	}
	before = stats()
	for _, id := range []int64{s2.ID, s1.ID, m.Snapshot.ID} {
		if got := check(e.at(id)); got.Snapshot.ID != id {
			t.Fatalf("Get(%d) returned snapshot %d", id, got.Snapshot.ID)
		}
	}
	if s := stats(); s.Loads != before.Loads || s.Reused-before.Reused != 3 {
		t.Fatalf("data-only snapshots: %+v, before %+v", s, before)
	}

	// tables created (one with a nested column) and data inserted, by
	// another handle: built from the cached metadata and the new tables
	mainS, _ := m.SchemaByName("main")
	c = Begin(e.open(), s2, m)
	c.CreateTable(*mainS, "n1", []ColumnDef{{Name: "id", Type: "int64", NullsAllowed: true},
		{Name: "l", Type: "list", NullsAllowed: true, Children: []ColumnDef{{Name: "element", Type: "int32", NullsAllowed: true}}}})
	sc := e.commit(c)
	mc1 := e.load(sc)
	c = Begin(e.open(), sc, mc1)
	c.CreateTable(*mainS, "n2", []ColumnDef{{Name: "v", Type: "varchar", NullsAllowed: false}})
	sc = e.commit(c)
	mc2 := e.load(sc)
	n2, _ := mc2.TableByName(0, "n2")
	c = Begin(e.db, sc, mc2)
	c.AddDataFile(*n2, file("n2.parquet", 2))
	sc = e.commit(c)
	before = stats()
	got := check(e.at(sc.ID))
	if s := stats(); s.Loads != before.Loads || s.Advances-before.Advances != 1 {
		t.Fatalf("after CREATE TABLEs: %+v, before %+v", s, before)
	}
	if len(got.Tables) != 4 {
		t.Fatalf("tables after CREATE TABLEs: %+v", got.Tables)
	}
	// the advanced version's size is prev's plus the new tables', which
	// must come to what estimating it whole gives
	if want := e.load(m.Snapshot).EstimatedBytes() + got.EstimatedBytes(); mc.Bytes() != want {
		t.Fatalf("cache bytes after the advance: %d, want %d", mc.Bytes(), want)
	}

	// a rename (recorded as created_table, as DuckDB does) ends a table row:
	// loaded whole
	b, _ := got.TableByName(0, "b")
	c = Begin(e.open(), got.Snapshot, got)
	c.RenameTable(*mainS, *b, "b2")
	sr := e.commit(c)
	before = stats()
	got = check(e.at(sr.ID))
	if s := stats(); s.Loads-before.Loads != 1 || s.Advances != before.Advances {
		t.Fatalf("after a rename: %+v, before %+v", s, before)
	}
	if _, ok := got.TableByName(0, "b"); ok {
		t.Fatal("table b still there after its rename")
	}

	// a column added by another handle: a new schema version, loaded
	m2 := e.load(e.head())
	a2, _ := m2.TableByName(0, "a")
	c = Begin(e.open(), m2.Snapshot, m2)
	c.AddColumn(*a2, ColumnDef{Name: "w", Type: "varchar", NullsAllowed: true})
	s3 := e.commit(c)
	before = stats()
	got = check(e.at(s3.ID))
	if s := stats(); s.Loads-before.Loads != 1 {
		t.Fatalf("after a schema change: %+v, before %+v", s, before)
	}
	ta, _ := got.TableByName(0, "a")
	if len(ta.Columns) != 2 || ta.Columns[1].Name != "w" {
		t.Fatalf("table a after ADD COLUMN: %+v", ta.Columns)
	}
	// the older schema version is still served as it was
	if old := check(e.at(s2.ID)); len(old.Tables[0].Columns) != 1 {
		t.Fatalf("snapshot %d after the change: %+v", s2.ID, old.Tables[0].Columns)
	}
}
