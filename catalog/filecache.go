package catalog

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"
)

// The file-list cache. Listing a table's files with their statistics read
// every file's row and every column's statistics row on each statement: a
// table of 100,000 files took about a second to plan whatever its filter
// kept. Yet a table's files only change in snapshots that say so: every
// commit records in ducklake_snapshot_changes which tables it inserted
// into, deleted from, compacted, altered or dropped (DuckDB as lakepg). So a
// table's list read at one snapshot stays the list at later snapshots until
// one of them names the table, and checking that costs at most one small
// query per range of new snapshots (none when the statement's own head
// carried the changes).
//
// A list is kept for the range of snapshots it is known to be right for;
// a statement at a later snapshot extends the range when the snapshots in
// between leave the table alone, else reads the list again. Lists handed
// out are shared by every statement: callers must not modify their
// elements (the slices' capacity ends at their length, so an append makes a
// copy). Copying 100,000 files per statement cost more than reading them. The cache holds at most
// Options.FileCacheBytes (estimated), dropping the least recently used tables.

// DefaultFileCacheBytes bounds the memory of a catalog's file lists unless
// Options.FileCacheBytes says otherwise.
const DefaultFileCacheBytes = 256 << 20

// The same holds for a table's inlined rows and inlined file deletes
// (InlinedData, InlinedFileDeletes), which only commits naming the table
// change: they are kept the same way, so that reading a small table costs
// no catalog query beyond the statement's head.

type fileList struct {
	dir    string // the table's directory the paths were resolved with, the format for inlined data
	lo, hi int64  // the list is the table's at every snapshot in [lo, hi]
	val    any    // []DataFile, []InlinedRows or map[int64][]int64
	bytes  int64
	used   int64 // tick of the last use, for eviction
	// derived are structures callers built from a file list (FilesDerived),
	// kept and dropped with it; their bytes count in bytes
	derived map[string]any
}

// cacheKey names what is kept of a table: its files, inlined rows or
// inlined file deletes.
type cacheKey struct {
	kind  byte // 'f', 'i', 'd'
	table int64
}

type fileCache struct {
	limit  int64 // bytes held at most (Options.FileCacheBytes)
	mu     sync.Mutex
	tables map[cacheKey]*fileList
	total  int64
	tick   int64
	// changes_made of snapshots seen, by id: immutable once committed
	changes map[int64]string
	maxSeen int64
}

var fileCacheStats struct {
	bytes, hits, loads atomic.Int64
}

// FileCacheStats are the figures of the process's file-list caches.
type FileCacheStats struct {
	Bytes int64 // estimated memory held
	Hits  int64 // file lists served from the cache
	Loads int64 // file lists read from the catalog
}

// ReadFileCacheStats returns the process's file-list cache figures.
func ReadFileCacheStats() FileCacheStats {
	return FileCacheStats{Bytes: fileCacheStats.bytes.Load(), Hits: fileCacheStats.hits.Load(), Loads: fileCacheStats.loads.Load()}
}

// maxKnownChanges bounds the snapshot changes remembered.
const maxKnownChanges = 8192

// Files lists the data files of a table visible at snap, ordered by
// data_file_id, each with its visible delete file and its column stats.
// The list is shared (see above): read it, do not modify it.
func (db *DB) Files(ctx context.Context, s *Schema, t *Table, snap Snapshot) ([]DataFile, error) {
	v, err := db.cachedForTable(ctx, cacheKey{'f', t.ID}, db.TableDir(s, t), snap, func() (any, int64, error) {
		files, err := db.readFiles(ctx, s, t, snap)
		files = files[:len(files):len(files)]
		return files, filesBytes(files), err
	})
	if err != nil {
		return nil, err
	}
	return v.([]DataFile), nil
}

// FilesDerived returns the value that build derives from files, a list
// Files returned for table tableID, built once per cached list: a planner
// keeps its per-table pruning structures (files ordered by a column's
// bounds, their scan descriptions) here, so a statement over a table of
// 100,000 files need not visit each. build returns the value and its size
// in bytes, counted against the cache's limit. When files is not the list
// the cache holds (it was read for a transaction, or evicted), nothing is
// built: ok is false, and building per statement is the caller's choice.
func (db *DB) FilesDerived(tableID int64, files []DataFile, key string, build func() (any, int64)) (v any, ok bool) {
	c := &db.files
	c.mu.Lock()
	e := c.tables[cacheKey{'f', tableID}]
	if e != nil && !sameList(e.val, files) {
		e = nil
	}
	if e != nil {
		if v, ok := e.derived[key]; ok {
			c.mu.Unlock()
			return v, true
		}
	}
	c.mu.Unlock()
	if e == nil {
		return nil, false
	}
	v, size := build()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tables[cacheKey{'f', tableID}] != e {
		return v, false // replaced or evicted meanwhile
	}
	if old, ok := e.derived[key]; ok {
		return old, true // built by another statement meanwhile
	}
	if c.total+size > c.max() {
		return v, false
	}
	if e.derived == nil {
		e.derived = map[string]any{}
	}
	e.derived[key] = v
	e.bytes += size
	c.total += size
	fileCacheStats.bytes.Add(size)
	return v, true
}

// sameList reports whether cached value v is the file list files (the
// same array, not merely equal contents).
func sameList(v any, files []DataFile) bool {
	l, ok := v.([]DataFile)
	return ok && len(l) == len(files) && len(l) > 0 && &l[0] == &files[0]
}

// cachedForTable returns what load reads of a table at snap, from the
// cache when it is known to be right for snap.
func (db *DB) cachedForTable(ctx context.Context, key cacheKey, dir string, snap Snapshot, load func() (any, int64, error)) (any, error) {
	if v, ok := db.cachedAt(ctx, key, dir, snap); ok {
		fileCacheStats.hits.Add(1)
		return v, nil
	}
	fileCacheStats.loads.Add(1)
	v, size, err := load()
	if err != nil {
		return nil, err
	}
	db.store(key, dir, snap, v, size)
	return v, nil
}

// cachedAt is the value kept for key if it is known to be right for snap.
func (db *DB) cachedAt(ctx context.Context, key cacheKey, dir string, snap Snapshot) (any, bool) {
	c := &db.files
	if snap.Time.IsZero() {
		return nil, false // a snapshot known by id alone: its changes are unknown
	}
	c.mu.Lock()
	c.noteChanges(snap.ID, snap.Changes)
	e := c.tables[key]
	if e == nil || e.dir != dir || snap.ID < e.lo {
		c.mu.Unlock()
		return nil, false
	}
	if snap.ID <= e.hi {
		// A later commit to the table may have rewritten what an older
		// snapshot sees (a delete file replaced by one with a snapshot
		// column, the old one removed): serve an older snapshot only when
		// no snapshot known since touched the table.
		if !c.untouchedSince(key.table, snap.ID) {
			c.mu.Unlock()
			return nil, false
		}
		c.tick++
		e.used = c.tick
		c.mu.Unlock()
		return e.val, true
	}
	from := e.hi
	c.mu.Unlock()
	if !db.leftAlone(ctx, key.table, from, snap.ID) {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tables[key] != e {
		return nil, false
	}
	e.hi = max(e.hi, snap.ID)
	c.tick++
	e.used = c.tick
	return e.val, true
}

// store keeps v, read at snap.
func (db *DB) store(key cacheKey, dir string, snap Snapshot, v any, size int64) {
	if snap.Time.IsZero() || size > db.files.max()/2 {
		return
	}
	c := &db.files
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tables == nil {
		c.tables = map[cacheKey]*fileList{}
	}
	if old := c.tables[key]; old != nil {
		if old.hi > snap.ID {
			return // a newer one is kept; this one is for time travel
		}
		c.total -= old.bytes
		fileCacheStats.bytes.Add(-old.bytes)
		delete(c.tables, key)
	}
	for c.total+size > c.max() && len(c.tables) > 0 {
		var victim cacheKey
		var oldest *fileList
		for k, e := range c.tables {
			if oldest == nil || e.used < oldest.used {
				victim, oldest = k, e
			}
		}
		c.total -= oldest.bytes
		fileCacheStats.bytes.Add(-oldest.bytes)
		delete(c.tables, victim)
	}
	c.tick++
	c.tables[key] = &fileList{dir: dir, lo: snap.ID, hi: snap.ID, val: v, bytes: size, used: c.tick}
	c.total += size
	fileCacheStats.bytes.Add(size)
}

// max is the cache's limit (a DB made without OpenWithOptions has the
// default).
func (c *fileCache) max() int64 {
	if c.limit <= 0 {
		return DefaultFileCacheBytes
	}
	return c.limit
}

// noteChanges remembers a snapshot's changes_made. Called with c.mu held.
func (c *fileCache) noteChanges(id int64, changes string) {
	if c.changes == nil {
		c.changes = map[int64]string{}
	}
	if _, ok := c.changes[id]; ok {
		return
	}
	c.changes[id] = changes
	c.maxSeen = max(c.maxSeen, id)
	if len(c.changes) > maxKnownChanges {
		for k := range c.changes {
			if k < c.maxSeen-maxKnownChanges/2 {
				delete(c.changes, k)
			}
		}
	}
}

// untouchedSince reports whether every snapshot after id up to the newest
// the cache knows of left the table alone (false when it misses one's
// changes or they are too many to look at).
// Called with c.mu held.
func (c *fileCache) untouchedSince(tableID, id int64) bool {
	if c.maxSeen-id > 64 {
		return false
	}
	for s := id + 1; s <= c.maxSeen; s++ {
		if ch, ok := c.changes[s]; !ok || touchesTable(ch, tableID) {
			return false
		}
	}
	return true
}

// noteHead remembers a head read from the catalog, so that older
// snapshots are served only when the cache knows what came after them.
func (db *DB) noteHead(s Snapshot) {
	c := &db.files
	c.mu.Lock()
	c.noteChanges(s.ID, s.Changes)
	c.mu.Unlock()
}

// leftAlone reports whether no snapshot in (from, to] changed the table's
// files, as their changes_made say; false when that cannot be told (a
// snapshot without its changes row, a change lakepg does not know).
func (db *DB) leftAlone(ctx context.Context, tableID, from, to int64) bool {
	c := &db.files
	c.mu.Lock()
	var missing bool
	var known []string
	for id := from + 1; id <= to && !missing; id++ {
		ch, ok := c.changes[id]
		missing = !ok
		known = append(known, ch)
	}
	c.mu.Unlock()
	if missing {
		got, ok := db.readChanges(ctx, from, to)
		if !ok {
			return false
		}
		known = got
	}
	for _, ch := range known {
		if touchesTable(ch, tableID) {
			return false
		}
	}
	return true
}

// readChanges reads the changes of the snapshots in (from, to] and
// remembers them; ok is false unless every one has its row.
func (db *DB) readChanges(ctx context.Context, from, to int64) ([]string, bool) {
	if to-from > maxKnownChanges/2 {
		return nil, false
	}
	rows, err := db.q().QueryContext(ctx, `SELECT snapshot_id, changes_made FROM ducklake_snapshot_changes WHERE snapshot_id > ? AND snapshot_id <= ?`, from, to)
	if err != nil {
		return nil, false
	}
	defer rows.Close()
	got := map[int64]string{}
	for rows.Next() {
		var id int64
		var ch sql.NullString
		if err := rows.Scan(&id, &ch); err != nil {
			return nil, false
		}
		got[id] = ch.String
	}
	if rows.Err() != nil || int64(len(got)) != to-from {
		return nil, false
	}
	c := &db.files
	c.mu.Lock()
	out := make([]string, 0, len(got))
	for id := from + 1; id <= to; id++ {
		c.noteChanges(id, got[id])
		out = append(out, got[id])
	}
	c.mu.Unlock()
	return out, true
}

// tableChangeKinds are the changes_made entries that name a table (or a
// view or schema: catalog ids are shared, so another object's id is never
// the table's) by id; nameChangeKinds name new objects by name, which
// cannot be an existing table.
var (
	tableChangeKinds = []string{"inserted_into_table", "deleted_from_table", "compacted_table", "altered_table",
		"dropped_table", "inlined_insert", "inlined_delete", "flushed_inlined", "inline_flush", "merge_adjacent", "rewrite_delete", "dropped_schema", "dropped_view", "altered_view"}
	nameChangeKinds = []string{"created_table", "created_schema", "created_view", "created_scalar_macro", "created_table_macro"}
)

// touchesTable reports whether a snapshot's changes_made may have changed
// the table's files: an entry naming it, or one lakepg does not know.
func touchesTable(changes string, tableID int64) bool {
	for _, e := range splitChanges(changes) {
		kind, val, ok := strings.Cut(e, ":")
		if !ok {
			return true
		}
		kind = strings.ToLower(strings.TrimSpace(kind))
		switch {
		case contains(nameChangeKinds, kind):
		case contains(tableChangeKinds, kind):
			id, err := strconv.ParseInt(strings.TrimSpace(val), 10, 64)
			if err != nil || id == tableID {
				return true
			}
		default:
			return true
		}
	}
	return false
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// splitChanges splits changes_made at the commas outside double quotes
// (names in created_… entries are quoted and may hold commas).
func splitChanges(s string) []string {
	var out []string
	quoted := false
	start := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"':
			quoted = !quoted
		case ',':
			if !quoted {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

// filesBytes estimates the memory of a file list.
func filesBytes(files []DataFile) int64 {
	n := int64(unsafe.Sizeof(DataFile{})) * int64(len(files))
	for i := range files {
		f := &files[i]
		n += int64(len(f.Path) + len(f.RelPath) + len(f.EncryptionKey))
		if f.Delete != nil {
			n += int64(unsafe.Sizeof(*f.Delete)) + int64(len(f.Delete.Path)+len(f.Delete.RelPath)+len(f.Delete.EncryptionKey))
		}
		for _, cs := range f.Stats {
			n += int64(unsafe.Sizeof(cs) + unsafe.Sizeof(statValue{}))
			if cs.Min != nil {
				n += int64(len(*cs.Min))
			}
			if cs.Max != nil {
				n += int64(len(*cs.Max))
			}
		}
		n += int64(len(f.Partition)) * 48
		n += int64(len(f.NameMap)) * 64
	}
	return n
}
