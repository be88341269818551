package snapshot

import (
	"errors"
	"testing"

	"github.com/lakepg/lakepg/catalog"
)

func TestPartitionKeys(t *testing.T) { eachBackend(t, testPartitionKeys) }

// testPartitionKeys: SET PARTITIONED BY writes DuckDB's rows (a partition_id from
// next_catalog_id, one partition_column per key, the old spec end-dated, an ALTER's
// schema version and schema_versions row); files name their spec and carry one value row
// per key; RESET leaves a spec without keys.
func testPartitionKeys(t *testing.T, be backend) {
	e := newEnv(t, be)
	m := twoTables(t, e) // a = 2, b = 3, next_catalog_id 4
	a, _ := m.TableByName(0, "a")

	c := Begin(e.db, m.Snapshot, m)
	if id := c.SetPartitionKeys(*a, []PartitionKeyDef{{ColumnID: 1, Transform: "identity"}}); id != 4 {
		t.Fatalf("partition id %d, want 4", id)
	}
	s2 := e.commit(c)
	if s2.Changes != "altered_table:2" || s2.SchemaVersion != m.Snapshot.SchemaVersion+1 || s2.NextCatalogID != 5 {
		t.Errorf("snapshot %+v", s2)
	}
	e.expectRows(`SELECT partition_id, table_id, begin_snapshot, end_snapshot FROM ducklake_partition_info`, "4|2|2|~")
	e.expectRows(`SELECT partition_id, table_id, partition_key_index, column_id, transform FROM ducklake_partition_column`, "4|2|0|1|identity")
	e.expectRows(`SELECT begin_snapshot, table_id FROM ducklake_schema_versions WHERE begin_snapshot = 2`, "2|2")
	m2 := e.load(s2)
	a2, _ := m2.TableByName(0, "a")
	if !a2.Partition.Partitioned() || a2.Partition.ID != 4 || a2.Partition.Keys[0].Transform != "identity" {
		t.Fatalf("loaded partition spec %+v", a2.Partition)
	}

	c = Begin(e.db, s2, m2)
	f := file("v=7/f.parquet", 3)
	f.Partition = &FilePartition{SpecID: 4, Values: []*string{p("7")}}
	c.AddDataFile(*a2, f)
	g := file("v=__HIVE_DEFAULT_PARTITION__/g.parquet", 2)
	g.Partition = &FilePartition{SpecID: 4, Values: []*string{nil}}
	c.AddDataFile(*a2, g)
	s3 := e.commit(c)
	e.expectRows(`SELECT data_file_id, partition_id FROM ducklake_data_file ORDER BY 1`, "0|4", "1|4")
	e.expectRows(`SELECT data_file_id, table_id, partition_key_index, partition_value FROM ducklake_file_partition_value ORDER BY 1`, "0|2|0|7", "1|2|0|~")
	files, err := e.db.Files(e.ctx, &m2.Schemas[0], a2, s3)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 || len(files[0].Partition) != 1 || *files[0].Partition[0].Value != "7" || files[0].Partition[0].Transform != "identity" ||
		files[1].Partition[0].Value != nil || *files[1].PartitionID != 4 {
		t.Errorf("files %+v", files)
	}

	// a commit that read spec 4 loses to one that replaced it
	m3 := e.load(s3)
	a3, _ := m3.TableByName(0, "a")
	mine := Begin(e.db, s3, m3)
	h := file("v=8/h.parquet", 1)
	h.Partition = &FilePartition{SpecID: 4, Values: []*string{p("8")}}
	mine.AddDataFile(*a3, h)
	other := Begin(e.db, s3, m3)
	other.SetPartitionKeys(*a3, []PartitionKeyDef{{ColumnID: 1, Transform: "bucket(4)"}})
	s4 := e.commit(other)
	if _, err := mine.Commit(e.ctx); !errors.Is(err, ErrConflict) {
		t.Errorf("insert under a replaced spec: %v, want a conflict", err)
	}
	e.expectRows(`SELECT partition_id, begin_snapshot, end_snapshot FROM ducklake_partition_info ORDER BY 1`, "4|2|4", "5|4|~")

	// RESET: a spec without keys
	m4 := e.load(s4)
	a4, _ := m4.TableByName(0, "a")
	c = Begin(e.db, s4, m4)
	c.SetPartitionKeys(*a4, nil)
	s5 := e.commit(c)
	e.expectRows(`SELECT partition_id, begin_snapshot, end_snapshot FROM ducklake_partition_info ORDER BY 1`, "4|2|4", "5|4|5", "6|5|~")
	a5, _ := e.load(s5).TableByName(0, "a")
	if a5.Partition == nil || a5.Partition.ID != 6 || a5.Partition.Partitioned() {
		t.Errorf("after RESET: %+v", a5.Partition)
	}
}

func TestPartitionOfNewTable(t *testing.T) { eachBackend(t, testPartitionOfNewTable) }

// testPartitionOfNewTable: a table created, partitioned and written in one commit gets
// consistent ids even when another writer took catalog ids first.
func testPartitionOfNewTable(t *testing.T, be backend) {
	e := newEnv(t, be)
	c, m := e.begin()
	mainS, _ := m.SchemaByName("main")
	tid := c.CreateTable(*mainS, "n", []ColumnDef{{Name: "k", Type: "varchar", NullsAllowed: true}})
	pid := c.SetPartitionKeys(catalog.Table{ID: tid}, []PartitionKeyDef{{ColumnID: 1, Transform: "identity"}})
	f := file("k=x/f.parquet", 1)
	f.Partition = &FilePartition{SpecID: pid, Values: []*string{p("x")}}
	c.AddDataFile(catalog.Table{ID: tid}, f)

	other, _ := e.begin()
	other.CreateSchema("s")
	e.commit(other) // takes catalog id 2

	s := e.commit(c)
	if s.Changes != `created_table:"main"."n",inserted_into_table:3` {
		t.Errorf("changes %q", s.Changes)
	}
	e.expectRows(`SELECT partition_id, table_id FROM ducklake_partition_info`, "4|3")
	e.expectRows(`SELECT table_id, partition_id FROM ducklake_data_file`, "3|4")
	e.expectRows(`SELECT partition_id, table_id, column_id FROM ducklake_partition_column`, "4|3|1")
}
