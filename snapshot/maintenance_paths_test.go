package snapshot

import (
	"testing"
	"time"

	"github.com/lakepg/lakepg/catalog"
)

func TestCanonicalPath(t *testing.T) {
	const data = "/lake/data/"
	const want = "/lake/data/public/t/ducklake-a.parquet"
	for _, c := range []struct{ dataPath, in, want string }{
		{data, want, want},
		{data, "/lake/data//public/./t/ducklake-a.parquet", want},
		{data, "/lake/data/public/x/../t/ducklake-a.parquet", want},
		{data, "/lake//data/public/t//ducklake-a.parquet", want},
		{"/lake//data/./", "public/t/ducklake-a.parquet", want},
		{data, "public/t/ducklake-a.parquet", want},
		{data, "./public/t/ducklake-a.parquet", want},
		{"/lake/data", "public/t/ducklake-a.parquet", want},
		{data, "file:///lake/data/public/t/ducklake-a.parquet", want},
		{data, "FILE://localhost/lake/data/public/t/ducklake-a.parquet", want},
		{"file:///lake/data/", "public/t/ducklake-a.parquet", want},
		{data, "/lake/data/public/t/", "/lake/data/public/t"},
		{data, "/lake/data/public/t__tmp/ducklake-a.parquet", "/lake/data/public/t__tmp/ducklake-a.parquet"},
		{"s3://bucket/lake/", "public/t/ducklake-a.parquet", "s3://bucket/lake/public/t/ducklake-a.parquet"},
		{"s3://bucket/lake/", "s3://bucket/lake//public/./t/ducklake-a.parquet", "s3://bucket/lake/public/t/ducklake-a.parquet"},
		{"s3://bucket/lake/", "S3A://bucket/lake/public/x/../t/ducklake-a.parquet", "s3://bucket/lake/public/t/ducklake-a.parquet"},
		{"s3://bucket/lake/", "s3n://bucket/lake/public/t/ducklake-a.parquet", "s3://bucket/lake/public/t/ducklake-a.parquet"},
		{"s3://bucket//lake/", "public/t/ducklake-a.parquet", "s3://bucket/lake/public/t/ducklake-a.parquet"},
		{data, "GS://bucket/x//y.parquet", "gs://bucket/x/y.parquet"},
		{"", "a/./b//c.parquet", "a/b/c.parquet"},
	} {
		if got := CanonicalPath(c.dataPath, c.in); got != c.want {
			t.Errorf("CanonicalPath(%q, %q) = %q, want %q", c.dataPath, c.in, got, c.want)
		}
	}
	if a, b := BaseName("s3://b/x/ducklake-a.parquet"), BaseName("/other/dir/ducklake-a.parquet"); a != b || a != "ducklake-a.parquet" {
		t.Errorf("BaseName: %q, %q", a, b)
	}
}

// TestKnownFilesSpellings: every row the catalog has, live or end-dated,
// data or delete file, absolute or relative, under a table or schema with
// a NULL path, or scheduled for deletion, is named in any spelling of its
// path; a file elsewhere with one of those names is found by SameName.
func TestKnownFilesSpellings(t *testing.T) { eachBackend(t, testKnownFilesSpellings) }

func testKnownFilesSpellings(t *testing.T, be backend) {
	e := newEnv(t, be)
	data := e.db.DataPath()
	c, _ := e.begin()
	sid := c.CreateSchema("s")
	c.CreateTable(catalog.Schema{ID: sid, Name: "s"}, "t", []ColumnDef{{Name: "x", Type: "int32", NullsAllowed: true}})
	c.CreateTable(catalog.Schema{ID: sid, Name: "s"}, "u", []ColumnDef{{Name: "x", Type: "int32", NullsAllowed: true}})
	e.commit(c)
	c, m := e.begin()
	sch, _ := m.SchemaByName("s")
	tt, _ := m.TableByName(sch.ID, "t")
	tu, _ := m.TableByName(sch.ID, "u")
	c.AddDataFile(*tt, NewDataFile{RelPath: "ducklake-live.parquet", RecordCount: 1, FileSize: 10})
	c.AddDataFile(*tt, NewDataFile{RelPath: "ducklake-ended.parquet", RecordCount: 1, FileSize: 10})
	c.AddDataFile(*tt, NewDataFile{RelPath: "ducklake-abs.parquet", RecordCount: 1, FileSize: 10})
	c.AddDataFile(*tu, NewDataFile{RelPath: "ducklake-nullpath.parquet", RecordCount: 1, FileSize: 10})
	e.commit(c)
	c, m = e.begin()
	tt, _ = m.TableByName(sch.ID, "t")
	files, err := e.db.Files(e.ctx, sch, tt, m.Snapshot)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		switch {
		case f.Path == data+"s/t/ducklake-live.parquet":
			c.ReplaceDeleteFile(*tt, f, NewDeleteFile{RelPath: "ducklake-live-delete.parquet", DeleteCount: 1, FileSize: 10})
		case f.Path == data+"s/t/ducklake-ended.parquet":
			c.EndDataFile(*tt, f)
		}
	}
	e.commit(c)
	// an absolute row in an odd spelling, a table whose row has no path
	// (its files live in the schema's directory), a scheduled file
	e.exec(`UPDATE ducklake_data_file SET path = ?, path_is_relative = ? WHERE path = 'ducklake-abs.parquet'`, data+"s//t/./../t/ducklake-abs.parquet", false)
	e.exec(`UPDATE ducklake_table SET path = NULL WHERE table_name = 'u'`)
	e.exec(`INSERT INTO ducklake_files_scheduled_for_deletion (data_file_id, path, path_is_relative, schedule_start) VALUES (?, ?, ?, ?)`,
		99, "s/t/ducklake-old.parquet", true, time.Now().UTC())

	named, err := KnownFiles(e.ctx, e.db)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{
		data + "s/t/ducklake-live.parquet",
		data + "s//t/ducklake-live.parquet",
		"file://" + data + "s/t/./ducklake-live.parquet",
		data + "s/t/ducklake-live-delete.parquet",
		data + "s/t/ducklake-ended.parquet",
		data + "s/t/ducklake-abs.parquet",
		data + "s/ducklake-nullpath.parquet",
		data + "s/t/ducklake-old.parquet",
		data + "x/../s/t/ducklake-old.parquet",
	} {
		if !named.Names(p) {
			t.Errorf("the catalog does not name %s", p)
		}
	}
	for _, p := range []string{data + "s/t/ducklake-stray.parquet", data + "s/t__tmp/ducklake-live.parquet"} {
		if named.Names(p) {
			t.Errorf("the catalog names %s", p)
		}
	}
	if got, ok := named.SameName(data + "s/t__tmp/ducklake-live.parquet"); !ok || got != data+"s/t/ducklake-live.parquet" {
		t.Errorf("SameName of a misplaced file: %q, %v", got, ok)
	}
	if got, ok := named.SameName(data + "elsewhere/ducklake-abs.parquet"); !ok || CanonicalPath(data, got) != data+"s/t/ducklake-abs.parquet" {
		t.Errorf("SameName of a misplaced absolute file: %q, %v", got, ok)
	}
	if got, ok := named.SameName(data + "s/t/ducklake-stray.parquet"); ok {
		t.Errorf("SameName of a stray file: %q", got)
	}
}
