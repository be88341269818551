package snapshot

import (
	"bytes"
	"testing"
	"time"

	"github.com/lakepg/lakepg/catalog"
)

// TestFileSketches: a commit writes the sketches of its files' columns to
// lakepg_file_column_sketch (created on first use), DB.Sketches reads those
// of the files visible at a snapshot, and a merge of the files deletes the
// sources' rows and writes the merged file's; expiry drops rows whose file
// is gone.
func TestFileSketches(t *testing.T) { eachBackend(t, testFileSketches) }

func testFileSketches(t *testing.T, be backend) {
	e := newEnv(t, be)
	c, _ := e.begin()
	sid := c.CreateSchema("s")
	c.CreateTable(catalog.Schema{ID: sid, Name: "s"}, "t", []ColumnDef{{Name: "k", Type: "int64", NullsAllowed: true}, {Name: "v", Type: "varchar", NullsAllowed: true}})
	e.commit(c)
	m := e.load(e.head())
	sch, _ := m.SchemaByName("s")
	tbl, _ := m.TableByName(sch.ID, "t")

	// before any sketch: none, and no table to read them from
	sk, err := e.db.Sketches(e.ctx, sch, tbl, e.head())
	if err != nil || len(sk.Files) != 0 {
		t.Fatalf("sketches before any: %v, %v", sk, err)
	}
	blob := func(b byte) []byte { return []byte{1, 12, 1, 1, b, 0xff} } // any bytes: the catalog does not read them
	for i, name := range []string{"a.parquet", "b.parquet"} {
		c, _ = e.begin()
		k := intStats(1, "1", "9", 3, 0)
		k.Sketch = blob(byte(i))
		c.AddDataFile(*tbl, NewDataFile{RelPath: name, RecordCount: 3, FileSize: 100, Stats: []catalog.ColumnStats{k, intStats(2, "a", "b", 3, 0)}})
		e.commit(c)
	}
	head := e.head()
	sk, err = e.db.Sketches(e.ctx, sch, tbl, head)
	if err != nil {
		t.Fatal(err)
	}
	if len(sk.Files) != 2 || !bytes.Equal(sk.Files[0][1], blob(0)) || !bytes.Equal(sk.Files[1][1], blob(1)) || sk.Files[0][2] != nil {
		t.Fatalf("sketches: %v", sk.Files)
	}
	if n := sk.Memo("x", func() any { return 7 }).(int) + sk.Memo("x", func() any { return 8 }).(int); n != 14 {
		t.Errorf("Memo made its value twice (%d)", n)
	}
	// time travel: the first file alone at its snapshot
	if old, err := e.db.Sketches(e.ctx, sch, tbl, e.at(head.ID-1)); err != nil || len(old.Files) != 1 {
		t.Errorf("sketches at the snapshot before: %v, %v", old, err)
	}

	files, err := e.db.Files(e.ctx, sch, tbl, head)
	if err != nil {
		t.Fatal(err)
	}
	merged := intStats(1, "1", "9", 6, 0)
	merged.Sketch = blob(9)
	if _, err := MergeAdjacent(e.ctx, e.db, head, *tbl, "", []Merge{{Sources: files, File: NewFile{
		NewDataFile: NewDataFile{RelPath: "m.parquet", RecordCount: 6, FileSize: 200, Stats: []catalog.ColumnStats{merged}}, BeginSnapshot: files[0].BeginSnapshot}}}); err != nil {
		t.Fatal(err)
	}
	e.expectRows(`SELECT data_file_id, column_id FROM lakepg_file_column_sketch ORDER BY 1`, "2|1")
	sk, err = e.db.Sketches(e.ctx, sch, tbl, e.head())
	if err != nil || len(sk.Files) != 1 || !bytes.Equal(sk.Files[2][1], blob(9)) {
		t.Fatalf("sketches after the merge: %v, %v", sk.Files, err)
	}

	// a row of a file the catalog no longer has (DuckDB removed it) goes
	// with the next expiry
	e.exec(`INSERT INTO lakepg_file_column_sketch VALUES (?, ?, ?, ?)`, 99, tbl.ID, 1, blob(5))
	later := time.Now().Add(time.Hour)
	if _, err := ExpireSnapshots(e.ctx, e.db, ExpireOptions{OlderThan: &later}); err != nil {
		t.Fatal(err)
	}
	e.expectRows(`SELECT data_file_id, column_id FROM lakepg_file_column_sketch ORDER BY 1`, "2|1")
}
