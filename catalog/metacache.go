package catalog

import (
	"context"
	"sync"
	"sync/atomic"
	"unsafe"
)

// MetaCache keeps the Metadata of recent snapshots. DuckLake raises a
// snapshot's schema_version whenever a commit changes schemas, tables,
// columns, views, partitions, tags or constraints (DuckDB caches its
// catalog keyed on it too), so two snapshots with the same schema_version
// see the same catalog: a snapshot that only added or removed data reuses
// the Metadata loaded for an earlier (or later) snapshot of its schema
// version, with only Snapshot replaced, and costs no catalog query. Only a
// schema change makes the next statement load again.
//
// Metadata handed out is shared and must not be modified. The cache holds
// at most MetaCacheVersions schema versions; Bytes estimates what it holds.
type MetaCache struct {
	db *DB

	mu        sync.Mutex
	byVersion map[int64]*Metadata // schema_version -> the catalog it has
	order     []int64             // schema versions, oldest insert first
	bytes     map[int64]int64     // estimated size per schema version
	total     atomic.Int64
	loads     atomic.Int64
	advances  atomic.Int64
	hits      atomic.Int64
}

// MetaCacheVersions bounds how many schema versions a MetaCache keeps.
const MetaCacheVersions = 16

// NewMetaCache makes an empty cache over db.
func NewMetaCache(db *DB) *MetaCache {
	c := &MetaCache{db: db, byVersion: map[int64]*Metadata{}, bytes: map[int64]int64{}}
	registerMetaCache(c)
	return c
}

// Get returns the catalog as snap sees it. snap must be a snapshot read
// from the catalog (its SchemaVersion and Time set); one built from an id
// alone is loaded without the cache.
func (c *MetaCache) Get(ctx context.Context, snap Snapshot) (*Metadata, error) {
	if snap.Time.IsZero() {
		c.loads.Add(1)
		return c.db.Load(ctx, snap)
	}
	c.mu.Lock()
	m := c.byVersion[snap.SchemaVersion]
	c.mu.Unlock()
	if m != nil {
		c.hits.Add(1)
		cp := *m
		cp.Snapshot = snap
		return &cp, nil
	}
	m, size, err := c.load(ctx, snap)
	if err != nil {
		return nil, err
	}
	if size <= 0 {
		size = m.EstimatedBytes()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old := c.byVersion[snap.SchemaVersion]; old != nil {
		return m, nil // another statement loaded it meanwhile
	}
	for len(c.order) >= MetaCacheVersions {
		v := c.order[0]
		c.order = c.order[1:]
		delete(c.byVersion, v)
		c.total.Add(-c.bytes[v])
		delete(c.bytes, v)
	}
	c.byVersion[snap.SchemaVersion] = m
	c.order = append(c.order, snap.SchemaVersion)
	c.bytes[snap.SchemaVersion] = size
	c.total.Add(size)
	return m, nil
}

// load reads snap's metadata: advanced from the latest cached snapshot
// before it when only tables were created since (DB.Advance), else loaded
// whole. size is the estimate of an advanced one, from prev's and what
// changed (0 when not known): estimating every table's columns again after
// each CREATE TABLE cost time growing with the lake.
func (c *MetaCache) load(ctx context.Context, snap Snapshot) (m *Metadata, size int64, err error) {
	var prev *Metadata
	var prevSize int64
	c.mu.Lock()
	for _, m := range c.byVersion {
		if m.Snapshot.ID < snap.ID && m.Snapshot.SchemaVersion < snap.SchemaVersion &&
			(prev == nil || m.Snapshot.ID > prev.Snapshot.ID) {
			prev = m
		}
	}
	if prev != nil {
		prevSize = c.bytes[prev.Snapshot.SchemaVersion]
	}
	c.mu.Unlock()
	if prev != nil {
		var added []Table
		m, ok, err := c.db.advanceInto(ctx, prev, snap, &added)
		if err != nil {
			return nil, 0, err
		}
		if ok {
			c.advances.Add(1)
			if prevSize > 0 {
				size = prevSize + tablesBytes(added) + constraintsBytes(m.Constraints) - constraintsBytes(prev.Constraints)
			}
			return m, size, nil
		}
	}
	c.loads.Add(1)
	m, err = c.db.Load(ctx, snap)
	return m, 0, err
}

// Bytes is the estimated memory the cache holds: the EstimatedBytes of the
// metadata of each schema version it keeps.
func (c *MetaCache) Bytes() int64 { return c.total.Load() }

// MetaCacheStats are the figures of the process's metadata caches.
type MetaCacheStats struct {
	Bytes    int64 // estimated memory held
	Loads    int64 // metadata loads of the whole catalog
	Advances int64 // metadata built from an earlier snapshot's and the tables created since
	Reused   int64 // statements served from the cache
}

var metaCaches struct {
	mu     sync.Mutex
	caches []*MetaCache
}

func registerMetaCache(c *MetaCache) {
	metaCaches.mu.Lock()
	metaCaches.caches = append(metaCaches.caches, c)
	metaCaches.mu.Unlock()
}

// ReadMetaCacheStats sums the figures of every MetaCache of the process.
func ReadMetaCacheStats() MetaCacheStats {
	metaCaches.mu.Lock()
	defer metaCaches.mu.Unlock()
	var s MetaCacheStats
	for _, c := range metaCaches.caches {
		s.Bytes += c.total.Load()
		s.Loads += c.loads.Load()
		s.Advances += c.advances.Load()
		s.Reused += c.hits.Load()
	}
	return s
}

// EstimatedBytes is a rough size of m: its structs and strings (what a
// MetaCache counts for it).
func (m *Metadata) EstimatedBytes() int64 {
	n := int64(unsafe.Sizeof(*m))
	for _, s := range m.Schemas {
		n += int64(unsafe.Sizeof(s)) + int64(len(s.UUID)+len(s.Name)+len(s.Path))
	}
	n += tablesBytes(m.Tables)
	for _, v := range m.Views {
		n += int64(unsafe.Sizeof(v)) + int64(len(v.Name)+len(v.SQL)+len(v.UUID)+len(v.Comment))
	}
	return n + constraintsBytes(m.Constraints)
}

func tablesBytes(tables []Table) int64 {
	var n int64
	for i := range tables {
		t := &tables[i]
		n += int64(unsafe.Sizeof(*t)) + int64(len(t.UUID)+len(t.Name)+len(t.Path)+len(t.Comment)+len(t.MatView))
		n += columnsBytes(t.Columns)
		if t.Partition != nil {
			n += 64 * int64(1+len(t.Partition.Keys))
		}
	}
	return n
}

func constraintsBytes(cons []Constraint) int64 {
	var n int64
	for _, c := range cons {
		n += int64(unsafe.Sizeof(c)) + int64(len(c.Name)+8*len(c.Columns))
	}
	return n
}

func columnsBytes(cols []Column) int64 {
	var n int64
	for i := range cols {
		c := &cols[i]
		n += int64(unsafe.Sizeof(*c)) + int64(len(c.Name)+len(c.Type)+len(c.PGType)+len(c.Comment))
		if c.InitialDefault != nil {
			n += int64(len(*c.InitialDefault))
		}
		if c.DefaultValue != nil {
			n += int64(len(*c.DefaultValue))
		}
		n += columnsBytes(c.Children)
	}
	return n
}
