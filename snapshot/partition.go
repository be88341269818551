package snapshot

import (
	"github.com/lakepg/lakepg/catalog"
)

// PartitionKeyDef is one key of a table's partitioning as SET PARTITIONED
// BY gives it: a top-level column and DuckDB's name of the transform
// (identity, year, month, day, hour, bucket(N)).
type PartitionKeyDef struct {
	ColumnID  int64
	Transform string
}

// FilePartition says which partition a new data file holds: the spec its
// values were computed under (an id from the catalog, or one SetPartitionKeys
// handed out in this commit) and one value per key, in key order, as text
// (nil for NULL).
type FilePartition struct {
	SpecID int64
	Values []*string
}

// partitionChange is a SET or RESET PARTITIONED BY of one table.
type partitionChange struct {
	tableID int64
	provID  int64 // the new partition_id (provisional)
	keys    []PartitionKeyDef
	// seen is the spec id live when the statement read the table (-1:
	// none): the commit checks nobody replaced it since.
	seen int64
}

// SetPartitionKeys replaces table t's partition keys; no keys is RESET
// PARTITIONED BY (DuckDB then records a spec without keys). The new spec
// takes a partition_id from next_catalog_id, returned provisional like
// other catalog ids; data files written under it in this commit name it.
// Setting keys twice in one commit keeps one spec with the last keys.
func (c *Commit) SetPartitionKeys(t catalog.Table, keys []PartitionKeyDef) int64 {
	keys = append([]PartitionKeyDef(nil), keys...)
	for _, pc := range c.partitions {
		if pc.tableID == t.ID {
			pc.keys = keys
			return pc.provID
		}
	}
	seen := int64(-1)
	if t.Partition != nil {
		seen = t.Partition.ID
	}
	pc := &partitionChange{tableID: t.ID, provID: c.allocCatalogID(), keys: keys, seen: seen}
	c.partitions = append(c.partitions, pc)
	return pc.provID
}

func (c *Commit) findPartitionChange(tableID int64) *partitionChange {
	for _, pc := range c.partitions {
		if pc.tableID == tableID {
			return pc
		}
	}
	return nil
}

// spec is the partition spec a table has after this commit's changes.
func (pc *partitionChange) spec() *catalog.PartitionSpec {
	s := &catalog.PartitionSpec{ID: pc.provID}
	for i, k := range pc.keys {
		s.Keys = append(s.Keys, catalog.PartitionKey{Index: i, ColumnID: k.ColumnID, Transform: k.Transform})
	}
	return s
}

// writePartitions end-dates each changed table's live partition_info row and
// inserts the new spec with its partition_column rows, as DuckDB's
// WriteNewPartitionKeys does. It is an ALTER: altered_table, a new schema
// version, a schema_versions row and a new inlined-data table.
func (w *writer) writePartitions() error {
	for _, pc := range w.c.partitions {
		if w.droppedTable(pc.tableID) {
			continue
		}
		tid := w.fid(pc.tableID)
		isNew := w.c.isProvisional(pc.tableID)
		if !isNew {
			if err := w.tableLive(tid); err != nil {
				return err
			}
			live, err := w.tx.LivePartition(w.ctx, tid)
			if err != nil {
				return err
			}
			liveID := int64(-1)
			if live != nil {
				liveID = live.ID
			}
			if liveID != pc.seen {
				return conflictf("attempting to change the partition keys of table with index %d, but another transaction changed them", tid)
			}
			if _, err := w.endLive("ducklake_partition_info", "table_id = ?", tid); err != nil {
				return err
			}
			w.done.altered.add(tid)
		}
		pid := w.fid(pc.provID)
		if _, err := w.exec(`INSERT INTO ducklake_partition_info VALUES (?, ?, ?, NULL)`, pid, tid, w.snapID); err != nil {
			return err
		}
		for i, k := range pc.keys {
			if _, err := w.exec(`INSERT INTO ducklake_partition_column VALUES (?, ?, ?, ?, ?)`, pid, tid, i, k.ColumnID, k.Transform); err != nil {
				return err
			}
		}
		w.done.structural.add(tid)
		w.done.versioned.add(tid)
	}
	return nil
}

// checkFileSpecs checks, once per spec, that the partition specs the
// commit's new files were written under are still live: files computed
// under keys another writer replaced would carry wrong values.
func (w *writer) checkFileSpecs(tid int64, files []fileRec) error {
	checked := map[int64]bool{}
	for _, fr := range files {
		p := fr.f.Partition
		if p == nil || checked[p.SpecID] || w.c.isProvisional(p.SpecID) {
			continue
		}
		checked[p.SpecID] = true
		var n int64
		if err := w.tx.QueryRowContext(w.ctx, `SELECT COUNT(*) FROM ducklake_partition_info WHERE partition_id = ? AND table_id = ? AND end_snapshot IS NULL`, p.SpecID, tid).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			return conflictf("attempting to insert into table with index %d, but another transaction changed its partition keys", tid)
		}
	}
	return nil
}

// insertPartitionValues writes a new data file's partition values: one
// ducklake_file_partition_value row per key, NULL values included.
func (w *writer) insertPartitionValues(fileID, tableID int64, p *FilePartition) error {
	if p == nil {
		return nil
	}
	for i, v := range p.Values {
		var val any
		if v != nil {
			val = *v
		}
		if _, err := w.exec(`INSERT INTO ducklake_file_partition_value VALUES (?, ?, ?, ?)`, fileID, tableID, i, val); err != nil {
			return err
		}
	}
	return nil
}

// partitionID is the partition_id column of a new data file.
func (w *writer) partitionID(p *FilePartition) any {
	if p == nil {
		return nil
	}
	return w.fid(p.SpecID)
}
