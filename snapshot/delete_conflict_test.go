package snapshot

import (
	"errors"
	"testing"

	"github.com/lakepg/lakepg/catalog"
)

// TestFileDeleteConflicts: two commits built on one base delete from data
// files of one table, each either with a delete file, by ending the whole
// file, or with inlined file deletes (DuckLake §10: a data file deleted
// from by both is a conflict, whichever way each recorded it and whichever
// rows each deleted; different data files are not).
func TestFileDeleteConflicts(t *testing.T) { eachBackend(t, testFileDeleteConflicts) }

func testFileDeleteConflicts(t *testing.T, be backend) {
	type del func(c *Commit, a catalog.Table, f catalog.DataFile)
	deleteFile := func(c *Commit, a catalog.Table, f catalog.DataFile) {
		c.ReplaceDeleteFile(a, f, NewDeleteFile{RelPath: "del.parquet", DeleteCount: 3, FileSize: 10, FooterSize: 5})
	}
	endFile := func(c *Commit, a catalog.Table, f catalog.DataFile) { c.EndDataFile(a, f) }
	inlined := func(c *Commit, a catalog.Table, f catalog.DataFile) {
		c.DeleteInlinedPositions(a, f, []int64{7, 8}) // rows the other commit does not delete
	}
	for _, tc := range []struct {
		name          string
		first, second del
		sameFile      bool
		conflict      bool
	}{
		// the cases the per-file check of delete files and ended files adds
		{"inlined/delete file", inlined, deleteFile, true, true},
		{"inlined/end file", inlined, endFile, true, true},
		{"delete file/end file", deleteFile, endFile, true, true},
		// the other order, checked before already
		{"delete file/inlined", deleteFile, inlined, true, true},
		{"end file/inlined", endFile, inlined, true, true},
		{"delete file/delete file", deleteFile, deleteFile, true, true},
		// another data file of the same table
		{"inlined/delete file other file", inlined, deleteFile, false, false},
		{"delete file/inlined other file", deleteFile, inlined, false, false},
		{"inlined/end other file", inlined, endFile, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, be)
			twoTables(t, e)
			c, m := e.begin()
			a, _ := m.TableByName(0, "a")
			c.AddDataFile(*a, file("f1.parquet", 10))
			c.AddDataFile(*a, file("f2.parquet", 10))
			e.commit(c)
			m = e.load(e.head())
			mainS, _ := m.SchemaByName("main")
			a, _ = m.TableByName(0, "a")
			files, err := e.db.Files(e.ctx, mainS, a, m.Snapshot)
			if err != nil || len(files) != 2 {
				t.Fatalf("files %v: %v", files, err)
			}
			second := files[0]
			if !tc.sameFile {
				second = files[1]
			}
			// Two writers, as two processes would be: separate handles, one base.
			c1 := Begin(e.db, m.Snapshot, m)
			tc.first(c1, *a, files[0])
			c2 := Begin(e.open(), m.Snapshot, m)
			tc.second(c2, *a, second)
			e.commit(c1)
			_, err = c2.Commit(e.ctx)
			switch {
			case tc.conflict && !errors.Is(err, ErrConflict):
				t.Errorf("second commit: want a conflict, got %v", err)
			case !tc.conflict && err != nil:
				t.Errorf("second commit: want success, got %v", err)
			}
			want := m.Snapshot.ID + 1
			if !tc.conflict {
				want++
			}
			if h := e.head(); h.ID != want {
				t.Errorf("head %d, want %d", h.ID, want)
			}
		})
	}
}
